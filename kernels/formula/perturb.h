// Perturbation for formulas on the CPU: the reference orbit of the view's centre in MPFR (the
// opcodes of mpfr_ops.h, every state rounded to binary64 with a bound on MPFR's own error), and
// every pixel as a binary64 delta against it (perturb_step.h). Pixels whose escape tests the
// delta's error bound could not decide are reported, for render.h's MPFR fallback.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "arith/floatexp.h"
#include "direct.h"
#include "formula.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/mandelbrot/view.h"

namespace ds::formula {

// The half pixel spacing below which binary64 deltas would leave binary64's normal range (the
// Mandelbrot engine's f64 limit, kernels/perturb/reference.cpp's auto_delta): such views take
// FloatExp deltas (perturb_step.h; without BLA), down to FloatExp's range.
constexpr double kPerturbMinLog2Step = -900;
constexpr double kPerturbMinLog2StepFloatExp = -1000000000.0;
// The reference's error bound is carried in long double (its least normal 2^-16382), so its states
// with an exponent are kept only up to this many bits; beyond, FloatExp deltas read the binary64
// states with their absolute floor (sound, and mostly undecided).
constexpr int kFloatExpStatesMaxBits = 16000;

// MPFR bits for a view's reference: ceil(-log2 s) + 128, as the Mandelbrot engine's
// reference_bits (kernels/perturb/reference.cpp: view_bits + 64), at least 128.
int formula_reference_bits(const mandel::Geometry& g);

struct FormulaReference {
  std::string re, im;  // its centre (decimal, as given)
  int bits = 0;
  uint64_t max_iter = 0;
  uint64_t length = 0;  // Z_0 .. Z_{length-1}: to the escape (escaped) or to Z_max_iter
  bool escaped = false;
  // States before each opcode (perturb_step.h's PerturbParams), rounded to nearest from MPFR.
  std::vector<double> wr, wi;
  std::vector<double> err;  // per index: MPFR's error bound over its states (rounded up)
  // With floatexp_states: the same states rounded to nearest with an exponent (no underflow) and
  // err with an exponent (rounded up), for FloatExp deltas: an orbit that comes back closer to 0
  // than binary64 holds keeps its digits there (perturb_step.h's ref_state).
  std::vector<FloatExp> wr_fe, wi_fe, err_fe;
  uint64_t period_states = 0;
  uint32_t prefix[kFormulaMaxPhases] = {};
  double seconds = 0;
};

// f's orbit of (re, im) at `bits` for up to max_iter iterations, with its running error bound
// (mpfr_ops.h's op_bound at u = 2^-bits, from the centre's rounding). With julia.on(): the orbit
// from Z_1 = (re, im) with c = julia's seed, and index 0's states NaN with an infinite bound (a
// Julia orbit has no Z_0; nothing reads them: perturb_step.h). Empty (length 0) when cancelled.
FormulaReference compute_formula_reference(const Formula& f, const std::string& re, const std::string& im,
                                           int bits, uint64_t max_iter,
                                           const std::atomic<bool>* cancel = nullptr,
                                           const JuliaSeed& julia = {}, bool floatexp_states = false);

// Throws mandel::ViewError naming the limit where perturbation cannot render v (a pixel map or
// exponential map; s/2 below FloatExp's range; a reference whose states would take more than three
// quarters of the host's memory). Past 2^kPerturbMinLog2Step the deltas are FloatExp.
void require_perturb_f64(const mandel::View& v, const Formula& f);

// Every pixel of v by perturb_step.h against the reference at v's centre (computed here; *ref,
// when given, gets it; opt.julia: the Julia set's pixels against the centre's Julia orbit): counts, smooth counts, iterations, method kPerturb, backend kCpu; *cert
// says which counts the delta's bound decided (the rest are binary64's guesses).
mandel::RenderResult render_perturb(const mandel::View& v, const Formula& f, const DirectOptions& opt = {},
                                    Certification* cert = nullptr, FormulaReference* ref = nullptr);

}  // namespace ds::formula
