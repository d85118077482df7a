// `render --verify` for formulas: sampled pixels of a rendered image against the formula's own MPFR
// orbit (mpfr_orbit.h), in the report z^2 + c's check gives (kernels/perturb/oracle.h), so the CLI
// prints and records both the same way.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>

#include "formula.h"
#include "julia.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/oracle.h"

namespace ds::formula {

struct FormulaVerifyOptions {
  int samples = 16;  // perturb::oracle::verify_pixels: a floor(sqrt(N))-sided grid, then random ones
  uint64_t seed = 0;
  JuliaSeed julia;
  const std::atomic<bool>* cancel = nullptr;  // checked every 1,024 iterations of each orbit
  unsigned threads = 0;                       // 0: every core
  // Precision: each pixel's certified orbit (mpfr_count_certified) from the render's fallback start
  // (formula_reference_bits, at least 128), doubling up to max_bits_factor times it; the count is
  // trusted when a certified run one rung higher (perturb::oracle::next_bits) gives it again.
  int max_bits_factor = 8;
};

// Compares r (the whole image's counts on the host) with f's MPFR orbits at the sampled pixels.
// Status per pixel as z^2 + c's oracle says it: trusted (certified and confirmed), unconfirmed
// (the confirming run did not certify), uncertain (no precision up to the cap certified a count),
// contradicted (two certified runs disagree: a bug in the bound), cancelled. Throws
// std::invalid_argument when r is not the whole image.
perturb::oracle::VerifyReport verify_formula_render(const mandel::View& v, const Formula& f,
                                                    const mandel::RenderResult& r, const FormulaVerifyOptions& opt,
                                                    const std::function<void(double)>& progress = nullptr);

}  // namespace ds::formula
