// The perturbation engine's host API (plain C++, no CUDA types): the MPFR reference orbit and its
// cache, the direct MPFR evaluation of single pixels (the glitch fallback), and the render entry
// that mandel::render() calls for Method::kPerturb. Method and error policy: docs/perturbation.md.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arith/floatexp.h"
#include "mandelbrot.h"

namespace ds::mandel::perturb {

// Z_0 = 0, Z_{n+1} = Z_n^2 + C for the reference point C, computed in MPFR and rounded to 53 bits
// (floatexp, so tiny Z near a minibrot's nucleus keep their value). Stored: Z_0 .. Z_{length-1},
// where Z_{length-1} is Z_max_iter, or the first Z with |Z|^2 > 4 (escaped), or the first Z with
// |Z| < 2^-64 (periodic).
struct Reference {
  std::string re, im;  // C, decimal, as given
  int bits = 0;        // MPFR precision of the iteration
  uint32_t max_iter = 0;
  bool escaped = false;
  // The orbit returned within 2^-64 of 0 at its last point (C lies at a minibrot's nucleus, to
  // working precision): it is periodic there, and stopping it is exact, since pixels rebase at
  // the last point (z = Z_last + dz becomes their new dz). Valid for any max_iter.
  bool periodic = false;
  std::vector<FloatExp> zr, zi;
  double seconds = 0;
  uint32_t length() const { return static_cast<uint32_t>(zr.size()); }
};

// MPFR bits that the reference (and the offsets of the pixels from it) need at the view: the
// pixel spacing's binary exponent plus 64.
int reference_bits(const Geometry& g);

// Computes the orbit of (re, im) at `bits` for up to max_iter iterations. Polls *cancel (returns
// nullptr when set) and reports progress in [0, 1].
std::shared_ptr<const Reference> compute_reference(const std::string& re, const std::string& im, int bits,
                                                   uint32_t max_iter, const std::atomic<bool>* cancel,
                                                   const std::function<void(double)>& progress);

// The reference for a view: the last one computed (kept in a one-entry cache) when it has enough
// bits and iterations and its centre lies within the view's reach (|C - centre| at most twice the
// image's half-diagonal, so every pixel's delta keeps its precision), else a new one at the view's
// centre. *reused tells which. nullptr when cancelled.
std::shared_ptr<const Reference> reference_for(const Geometry& g, const View& v,
                                               const std::atomic<bool>* cancel,
                                               const std::function<void(double)>& progress, bool* reused);
void clear_reference_cache();

// The offset (view centre - reference centre), exact in MPFR, rounded to floatexp.
void centre_offset(const Reference& ref, const Geometry& g, FloatExp* re, FloatExp* im);

// Pixel (i, j) of the view iterated directly in MPFR at `bits` (the engine's count and smooth
// definitions, mandelbrot.cuh): the fallback for pixels the checks flag, and a test oracle.
void direct_pixel(const Geometry& g, const View& v, int i, int j, int bits, uint32_t* count, float* smooth);

// Renders `t` (clipped) of the view by perturbation on opt.backend (resolved, kCpu or kCuda) and
// fills res (counts, smooth, perturb, iterations, times, cancelled).
void render(const View& v, const Geometry& g, const Tile& t, const RenderOptions& opt, RenderResult* res);

// A Misiurewicz point c (z_{preperiod+period}(c) = z_preperiod(c), z_0 = 0) refined from the seed
// by Newton's method in MPFR at `bits` bits, printed in fixed notation with `digits` decimals:
// deep locations for tests and benchmarks. Throws ViewError on bad arguments.
void misiurewicz_point(const std::string& seed_re, const std::string& seed_im, int preperiod, int period,
                       int bits, int digits, std::string* re, std::string* im);

// The delta type a view gets under DeltaFormat::kAuto.
DeltaFormat auto_delta(const Geometry& g);

}  // namespace ds::mandel::perturb
