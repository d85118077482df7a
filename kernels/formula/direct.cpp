// The CPU render of a formula in binary64: step.h's certified orbit of every pixel on all cores
// (the parameter plane, or a Julia set's).
#include "direct.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "kernels/mandelbrot/mandelbrot.cuh"
#include "pixel_loop.h"
#include "step.h"

namespace ds::formula {

void require_direct_f64(const mandel::View& v, const Formula& f, int guard_bits) {
  const mandel::Geometry g = mandel::geometry(v);
  const std::string name = "formula " + to_string(f);
  if (!g.square_pixels)
    throw mandel::ViewError(name +
                            ": a rotated, stretched or exponential-map view needs perturbation, "
                            "which is not implemented for formulas other than z^2 + c yet "
                            "(docs/formulas.md)");
  std::string why;
  if (!mandel::resolves(Arith::kF64, g, guard_bits, &why))
    throw mandel::ViewError(name +
                            ": direct binary64 (--arith f64) cannot render this view; perturbation "
                            "(--arith perturb or auto) can (docs/formulas.md), and " +
                            why);
}

mandel::RenderResult render_direct(const mandel::View& v, const Formula& f, const DirectOptions& opt,
                                   Certification* cert) {
  require_direct_f64(v, f, opt.guard_bits);
  const mandel::Geometry g = mandel::geometry(v);
  const auto t0 = std::chrono::steady_clock::now();
  mandel::RenderResult res = formula_result(v, mandel::Method::kDirect);
  // c as mandel_pixel forms it in binary64: centre + offset * (s/2), each rounded once.
  const double re = g.re_d, im = g.im_d, h = g.half_step_d, log_d = std::log(mean_degree(f));
  // The bound's own roundings, a few a step (step.h): (1 + 2^-53)^(10 max_iter) <= slack.
  const double slack =
      std::max(1.0 + 0x1p-30, std::exp(std::ldexp(10.0 * static_cast<double>(v.max_iter), -53)));
  const JuliaSeed& julia = opt.julia;
  const double ec_julia = 1.01 * 0x1p-53 * (std::fabs(julia.re_d) + std::fabs(julia.im_d)) + 0x1p-1070;
  run_pixel_loop(
      v, opt,
      [&](int i, int j, bool* certified) {
        const double cr = re + mandel::pixel_offset(i, v.width) * h;
        const double ci = im - mandel::pixel_offset(j, v.height) * h;
        // |c~ - c| per component <= u (|centre| + 2 |offset h| + |c~|): the centre's and h's
        // roundings to binary64, the product's and the sum's (Euclidean <= the two summed).
        const double kx = mandel::pixel_offset(i, v.width), ky = mandel::pixel_offset(j, v.height);
        const double ec = 1.01 * 0x1p-53 *
                              (std::fabs(re) + std::fabs(im) + 2 * std::fabs(kx * h) + 2 * std::fabs(ky * h) +
                               std::fabs(cr) + std::fabs(ci)) +
                          0x1p-1020;
        if (julia.on())  // z_1 = the pixel (its error ec), c = the seed rounded once per component
          return formula_orbit_certified(f, log_d, v.max_iter, cr, ci, ec, julia.re_d, julia.im_d, ec_julia,
                                         slack, certified);
        return formula_pixel_certified(f, log_d, v.max_iter, cr, ci, ec, slack, certified);
      },
      t0, 0.0, res, cert);
  return res;
}

}  // namespace ds::formula
