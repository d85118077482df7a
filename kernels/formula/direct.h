// Direct iteration of a formula (formula.h) for every pixel of a view, on the CPU in binary64: the
// first engine behind `render --formula`. Perturbation, BLA and the GPU for formulas are not done
// (docs/formulas.md); views binary64 cannot resolve are refused, never drawn wrong.
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "formula.h"
#include "julia.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/mandelbrot/view.h"

namespace ds::formula {

struct DirectOptions {
  const std::atomic<bool>* cancel = nullptr;  // polled between pixels
  std::function<void(double)> progress;       // fraction done
  unsigned cpu_threads = 0;                   // 0: every core
  int guard_bits = mandel::kGuardBits;        // the precision rule of view.h for binary64
  bool bla = true;  // perturbation only (render_perturb): BLA steps; false iterates every step
  JuliaSeed julia;  // on(): the Julia set of julia's c (z_1 = the pixel); else the parameter plane
  bool floatexp_deltas = false;  // perturbation only: FloatExp deltas at any zoom (tests; else past 2^-900)
};

// Throws mandel::ViewError when binary64 does not resolve the view (the precision rule of
// mandel::resolves with opt.guard_bits), or when the view has a pixel map or the exponential map
// (formula perturbation does not draw those yet either). `what` names the formula.
void require_direct_f64(const mandel::View& v, const Formula& f, int guard_bits = mandel::kGuardBits);

// Which counts binary64 could certify (step.h's formula_pixel_certified: a running error bound
// decided every escape test). Direct binary64 loses orbits that are chaotic for many steps (the abs
// formulas have wide regions of them): their counts are those of the rounded orbit, not the exact
// one, and are counted here and reported by render, never passed off as exact.
struct Certification {
  uint64_t uncertain = 0;          // pixels whose count the bound could not certify
  std::vector<uint8_t> certified;  // per pixel, row-major: 1 certified, 0 not
};

// Every pixel of v iterated directly in binary64 (step.h's formula_pixel_certified; counts.h's
// storage): counts, smooth counts, iterations, method kDirect, arith kF64, backend kCpu; *cert (when
// given) gets which counts are certified. Checks first with require_direct_f64. A cancelled render
// comes back with cancelled = true.
mandel::RenderResult render_direct(const mandel::View& v, const Formula& f, const DirectOptions& opt = {},
                                   Certification* cert = nullptr);

}  // namespace ds::formula
