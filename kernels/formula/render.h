// A formula's view rendered as the command line and the tests ask for it: direct binary64 where
// binary64 resolves the view, perturbation beyond, and every pixel whose count binary64 could not
// certify re-decided by its own MPFR orbit with a running error bound; what is still undecided is
// counted, never passed off as exact. docs/formulas.md.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "direct.h"
#include "formula.h"
#include "kernels/mandelbrot/mandelbrot.h"

namespace ds::formula {

enum class FormulaPath { kAuto, kDirect, kPerturb };
const char* path_name(FormulaPath p);  // "auto", "direct binary64", "perturbation (binary64 deltas)"

struct FormulaOptions {
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;    // the fraction done of the current stage
  std::function<void(const char*)> stage;  // "binary64 pass", then "MPFR fallback" where it runs
  unsigned cpu_threads = 0;                // 0: every core
  bool bla = true;                         // perturbation: BLA steps (bla.h); false iterates every step
  FormulaPath path = FormulaPath::kAuto;   // kAuto: direct where binary64 resolves the view (view.h's rule)
  // Pixels re-decided in MPFR at most (the rest stay unresolved); 0: none.
  uint64_t max_fallback = 4096;
  // The fallback's precisions: the view's reference bits (perturb.h), doubled up to this many times
  // the first (at least fallback_min_bits to start).
  int fallback_bits_factor = 8;
  int fallback_min_bits = 128;
  JuliaSeed julia;  // on(): the Julia set of its c on every path (julia.h); else the parameter plane
};

struct FormulaReport {
  FormulaPath path = FormulaPath::kDirect;  // what ran (never kAuto)
  uint64_t pixels = 0;
  uint64_t undecided = 0;   // pixels whose count binary64's error bound could not certify
  uint64_t fallback = 0;    // of those, decided by their MPFR orbit (certified by its bound)
  uint64_t unresolved = 0;  // undecided and not decided in MPFR: their counts are binary64's guesses
  int reference_bits = 0;   // perturbation: the reference's MPFR precision
  uint64_t reference_length = 0;
  bool reference_escaped = false;
  bool floatexp = false;         // perturbation's deltas were FloatExp (past binary64's range)
  bool bla = false;  // perturbation had a BLA table to step by (FormulaOptions::bla; FloatExp: to zoom ~4e301)
  uint64_t bla_skipped = 0;      // iterations of the binary64 pass BLA steps replaced
  uint64_t pass_iterations = 0;  // iterations of the binary64 pass (the sum of count - 1)
  double reference_seconds = 0, pass_seconds = 0, fallback_seconds = 0;
  int fallback_max_bits = 0;       // the largest precision a fallback pixel needed
  int fallback_bits_cap = 0;       // the most the fallback tried
  uint64_t fallback_limit = 0;     // FormulaOptions::max_fallback (pixels past it were not tried)
  std::vector<uint8_t> certified;  // per pixel, row-major: 1 where the count is certified
};

// What ran, for messages and records: path_name(rep.path), or "perturbation (FloatExp deltas)"
// where the deltas were FloatExp.
std::string method_name(const FormulaReport& rep);

// The path kAuto takes for v: kDirect when binary64 resolves it (mandel::resolves with
// mandel::kGuardBits), else kPerturb.
FormulaPath auto_path(const mandel::View& v);

// Checks the view for the path (require_direct_f64 or require_perturb_f64: ViewError, exit 2).
void require_formula_view(const mandel::View& v, const Formula& f, FormulaPath path);

// v rendered with f by opt.path, then the fallback; *report says what happened.
mandel::RenderResult render(const mandel::View& v, const Formula& f, const FormulaOptions& opt,
                            FormulaReport* report);

}  // namespace ds::formula
