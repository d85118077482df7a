// `render --formula NAME`: a formula other than z^2 + c (kernels/formula) rendered directly in
// binary64 on the CPU, its PNG carrying the formula; the options its engine cannot honour yet are
// refused before any work (exit 2), never drawn as a Mandelbrot picture. docs/formulas.md.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/formula/formula.h"
#include "render_work.h"

namespace ds::app {

// What of `render`'s request a formula render cannot do yet, as render_command gathers it.
struct FormulaRequest {
  bool perturb = false;    // --arith perturb
  std::string arith;       // --arith NAME ("" or "auto": binary64)
  int frames = 1, aa = 1;  // --frames, --aa
  bool verify = false, exr = false, tile_rows = false, auto_iter = false, strips = false;
  bool cuda = false;    // --backend cuda
  unsigned fields = 0;  // the shader's per-pixel data beyond counts (mandel::Field bits)
};

// Throws cli::UsageError naming the first option of `req` that formulas do not support yet, and
// mandel::ViewError (exit 2 too) where binary64 does not resolve t.view (formula::require_direct_f64).
void check_formula_request(const formula::Formula& f, const FormulaRequest& req, const mandel::View& v);

// Renders t.view with f (formula::render_direct on the CPU), colours it like any render and writes
// t's PNG (with the kPngFormulaKey chunk) and .npy files. Returns the exit code (130: cancelled).
int render_formula(const RenderTarget& t, const formula::Formula& f, const RenderPlan& plan);

// The kPngFormulaKey text: "formula = NAME", then what computed it, how many of `pixels` counts the
// error bound could not certify (formula::Certification), and what is not done.
std::string formula_text(const formula::Formula& f, uint64_t uncertified, uint64_t pixels);

}  // namespace ds::app
