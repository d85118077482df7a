// `render --formula NAME`: a formula other than z^2 + c (kernels/formula) rendered on the CPU, directly
// in binary64 or by perturbation past binary64's zoom, the pixels binary64 could not certify
// re-decided in MPFR; its PNG carries the formula, the path and the counts of undecided pixels. The
// options its engine cannot honour yet are refused before any work (exit 2), never drawn as a
// Mandelbrot picture. docs/formulas.md.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/formula/formula.h"
#include "kernels/formula/render.h"
#include "render_work.h"

namespace ds::app {

// What of `render`'s request a formula render cannot do yet, as render_command gathers it.
struct FormulaRequest {
  bool perturb = false;    // --arith perturb: perturbation at any zoom
  std::string arith;       // --arith NAME ("" or "auto": the zoom chooses; f64: direct binary64)
  int frames = 1, aa = 1;  // --frames, --aa
  bool verify = false, exr = false, tile_rows = false, auto_iter = false, strips = false;
  bool cuda = false;    // --backend cuda
  bool bla = true;      // perturbation's BLA steps (--no-bla: every iteration stepped)
  unsigned fields = 0;  // the shader's per-pixel data beyond counts (mandel::Field bits)
  // --max-references N: pixels re-decided by their own MPFR orbit at most (each is a certified
  // single-pixel orbit, what perturbation's one-pixel secondary references are), default 10000.
  uint64_t max_fallback = 10000;
  formula::JuliaSeed julia;  // --julia-re/--julia-im (or the location's): a Julia set of the formula
};

// The path `req` asks for: kPerturb for --arith perturb, kDirect for --arith f64, else kAuto.
formula::FormulaPath formula_path(const FormulaRequest& req);

// Throws cli::UsageError naming the first option of `req` that formulas do not support yet, and
// mandel::ViewError (exit 2 too) where the path cannot render v (formula::require_formula_view).
void check_formula_request(const formula::Formula& f, const FormulaRequest& req, const mandel::View& v);

// Renders t.view with f (formula::render on the CPU), colours it like any render and writes t's PNG
// (with the kPngFormulaKey chunk) and .npy files. Returns the exit code: 1 when pixels stayed
// unresolved (their counts binary64's guesses, as perturbation's unresolved pixels), 130 when
// cancelled.
int render_formula(const RenderTarget& t, const formula::Formula& f, const RenderPlan& plan,
                   const FormulaRequest& req = {});

// Sets r's labels and error-estimate counters from a formula render's report, as its PNG records
// them (binary64 on the CPU; undecided, decided by MPFR, unresolved): render_formula and the
// window's screenshots both call it.
void note_formula_report(const formula::FormulaReport& rep, mandel::RenderResult* r);

// The kPngFormulaKey text: "formula = NAME", the path that ran ("method = ..."), and the pixels
// binary64 left undecided, how many the MPFR fallback decided and how many stayed unresolved; for a
// Julia set "julia_re = RE" and "julia_im = IM" after the formula (read back by location.h).
std::string formula_text(const formula::Formula& f, const formula::FormulaReport& rep,
                         const formula::JuliaSeed& julia = {});

}  // namespace ds::app
