// A formula's binary64 perturbation pass against an older perturb_step.h (compare_perturb_step.sh
// extracts it from git as old_ps.h, namespace ds::oldf): counts, decided flags and smooth values of
// every pixel of a 128x128 view, with or without BLA. Exit 1 when any pixel differs.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>
#include "kernels/formula/bla.h"
#include "kernels/formula/perturb.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
#include "old_ps.h"
using namespace ds;
int main(int argc, char** argv) {
  const bool with_bla = argc > 1 && std::string(argv[1]) == "bla";
  const formula::Formula f = formula::parse_formula(argc > 2 ? argv[2] : "burning-ship");
  mandel::View v;
  v.re = argc > 3 ? argv[3] : "-0.989752281000521898831661265663459503552380985223124";
  v.im = argc > 4 ? argv[4] : "-0.528974112195614262618309520861418904169817810601377";
  v.zoom = argc > 5 ? argv[5] : "1.2676506002282359e30";
  v.width = v.height = 128;
  v.max_iter = argc > 6 ? std::stoull(argv[6]) : 8000;
  const mandel::Geometry g = mandel::geometry(v);
  formula::FormulaReference ref = formula::compute_formula_reference(f, g.re, g.im, formula::formula_reference_bits(g), v.max_iter);
  oldf::PerturbParams p;
  p.f = f; p.wr = ref.wr.data(); p.wi = ref.wi.data(); p.err = ref.err.data(); p.length = ref.length;
  p.period_states = ref.period_states;
  for (int k = 0; k < formula::kFormulaMaxPhases; ++k) p.prefix[k] = ref.prefix[k];
  p.max_iter = v.max_iter; p.log_degree = std::log(formula::mean_degree(f)); p.re_d = g.re_d; p.im_d = g.im_d;
  int max_ops = 0;
  for (int k = 0; k < f.phases; ++k) max_ops = std::max(max_ops, f.phase[k].count);
  p.slack = std::max(1.0 + 0x1p-30, std::exp(std::ldexp(16.0 * (max_ops + 2) * static_cast<double>(v.max_iter), -53)));
  const double h = g.half_step_d;
  formula::FormulaBlaTable bla;
  if (with_bla) {
    const double dcmax = (std::fabs(mandel::pixel_offset(0, v.width)) + std::fabs(mandel::pixel_offset(0, v.height))) * h * (1.0 + 0x1p-40);
    bla = formula::build_formula_bla(f, ref, dcmax);
    p.bla = reinterpret_cast<const oldf::FormulaBlaEntry*>(bla.entries.data());
    for (int l = 0; l <= perturb::kMaxBlaLevels; ++l) p.bla_offset[l] = bla.level_offset[l];
    p.bla_levels = bla.levels;
  }
  formula::DirectOptions o;
  o.bla = with_bla;
  formula::Certification cert;
  const mandel::RenderResult r = formula::render_perturb(v, f, o, &cert);
  int diff = 0, undecided_old = 0;
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      const double dcr = mandel::pixel_offset(i, v.width) * h, dci = -mandel::pixel_offset(j, v.height) * h;
      const double ec = 2.01 * 0x1p-53 * (std::fabs(dcr) + std::fabs(dci)) + 0x1p-1070;
      bool dec = false;
      const mandel::PixelResult px = oldf::formula_perturb_pixel(p, dcr, dci, ec, &dec);
      const size_t k = static_cast<size_t>(j) * v.width + i;
      undecided_old += !dec;
      if (px.count != r.count(k) || dec != (cert.certified[k] != 0) || px.smooth != r.smooth[k]) ++diff;
    }
  std::printf("%s bla %d: old undecided %d, new undecided %llu, pixels differing (count, decided or smooth) %d\n",
              formula::to_string(f).c_str(), with_bla, undecided_old, (unsigned long long)cert.uncertain, diff);
  return diff != 0;
}
