// The MPFR reference for formulas: a pixel's orbit iterated directly at a given precision (the same
// opcodes as step.h, each operation rounded once in MPFR), and n x n grids of pixels whose counts
// are trusted where a run at more bits gives the same count. Independent of the binary64 render
// except for the opcode list and the count contract. docs/formulas.md, "Checks".
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "formula.h"
#include "julia.h"
#include "kernels/mandelbrot/view.h"

namespace ds::formula {

// The count of pixel (i, j) of v (j = 0 at the top; square pixels only) under f, iterated at
// `bits`: c = centre + (s/2) (2i + 1 - width, height - 2j - 1) from the decimal strings, z_1 = c,
// the first n >= 1 with |z_n|^2 > 4, else max_iter. Throws mandel::ViewError for a pixel outside
// the image or a view with a pixel map or exponential map. With julia.on(): z_1 = that pixel and
// c = julia's seed (its decimal strings at `bits`), the same steps and count (julia.h).
uint64_t mpfr_count(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i, int j,
                    int bits, const JuliaSeed& julia = {});

// mpfr_count with a running error bound beside the MPFR orbit (mpfr_ops.h: each opcode's rounding
// at u = 2^-bits, the inherited error grown by |2z| or |z||s| + |s||z|): *certified is true when
// the bound decided every escape test up to the count (|z| +- bound clear of 2), so the count is
// that of the exact orbit of the exact c. With `cancel` set (checked every 1,024 iterations) it
// returns 0 with *certified false.
uint64_t mpfr_count_certified(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i,
                              int j, int bits, bool* certified, const JuliaSeed& julia = {},
                              const std::atomic<bool>* cancel = nullptr);

// The fallback for pixels that binary64 could not decide: mpfr_count_certified at `bits`, then at
// twice the bits, and so on up to max_bits. True with *count (and *bits_used, the last precision
// tried) when some precision certified the count; false when max_bits did not.
bool mpfr_decide(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i, int j, int bits,
                 int max_bits, uint64_t* count, int* bits_used = nullptr, const JuliaSeed& julia = {},
                 const std::atomic<bool>* cancel = nullptr);

struct GridPixel {
  int i = 0, j = 0;
  uint64_t count = 0;    // at `bits`
  uint64_t confirm = 0;  // at `confirm_bits`
  bool trusted() const { return count == confirm; }
};

// The n x n sample grid of v (mandel::grid_pixels: columns floor((k + 0.5) w / n)), each pixel
// counted at `bits` and at `confirm_bits`, on every core (threads 0: all).
std::vector<GridPixel> mpfr_grid(const mandel::View& v, const Formula& f, int n, int bits, int confirm_bits,
                                 unsigned threads = 0, const JuliaSeed& julia = {});

}  // namespace ds::formula
