// The CPU render of a formula in binary64: step.h's formula_pixel over every pixel on all cores.
#include "direct.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "kernels/core/cpu_parallel.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
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
  mandel::RenderResult res;
  res.width = v.width;
  res.height = v.height;
  res.max_iter = v.max_iter;
  res.arith = Arith::kF64;
  res.backend = Backend::kCpu;
  res.method = mandel::Method::kDirect;
  const std::size_t w = static_cast<std::size_t>(v.width), pixels = w * static_cast<std::size_t>(v.height);
  const bool wide = mandel::wide_counts(v.max_iter);
  res.counts.assign(pixels, 0);
  res.smooth.assign(pixels, 0.0f);
  if (wide) res.counts_high.assign(pixels, 0);
  uint32_t* high = wide ? res.counts_high.data() : nullptr;
  // c as mandel_pixel forms it in binary64: centre + offset * (s/2), each rounded once.
  const double re = g.re_d, im = g.im_d, h = g.half_step_d, log_d = std::log(mean_degree(f));
  // The bound's own roundings, a few a step (step.h): (1 + 2^-53)^(10 max_iter) <= slack.
  const double slack =
      std::max(1.0 + 0x1p-30, std::exp(std::ldexp(10.0 * static_cast<double>(v.max_iter), -53)));
  std::vector<uint8_t> ok(pixels, 0);
  ParallelOptions po;
  po.cancel = opt.cancel;
  po.progress = opt.progress;
  po.threads = opt.cpu_threads;
  parallel_for(
      pixels, std::max<std::size_t>(1, w),
      [&](std::size_t k0, std::size_t k1) {
        for (std::size_t k = k0; k < k1; ++k) {
          if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) return;
          const int i = static_cast<int>(k % w), j = static_cast<int>(k / w);
          const double cr = re + mandel::pixel_offset(i, v.width) * h;
          const double ci = im - mandel::pixel_offset(j, v.height) * h;
          // |c~ - c| per component <= u (|centre| + 2 |offset h| + |c~|): the centre's and h's
          // roundings to binary64, the product's and the sum's (Euclidean <= the two summed).
          const double kx = mandel::pixel_offset(i, v.width), ky = mandel::pixel_offset(j, v.height);
          const double ec = 1.01 * 0x1p-53 *
                                (std::fabs(re) + std::fabs(im) + 2 * std::fabs(kx * h) +
                                 2 * std::fabs(ky * h) + std::fabs(cr) + std::fabs(ci)) +
                            0x1p-1020;
          bool certified = false;
          const mandel::PixelResult px =
              formula_pixel_certified(f, log_d, v.max_iter, cr, ci, ec, slack, &certified);
          ok[k] = certified ? 1 : 0;
          mandel::store_pixel(res.counts.data(), high, res.smooth.data(), k, px.count, px.smooth);
        }
      },
      po);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.kernel_seconds = res.seconds;
  if (opt.cancel && opt.cancel->load()) {
    res.cancelled = true;
    return res;
  }
  for (std::size_t k = 0; k < pixels; ++k) res.iterations += res.count(k) - 1;
  if (cert) {
    cert->uncertain = 0;
    for (uint8_t b : ok) cert->uncertain += b ? 0 : 1;
    cert->certified = std::move(ok);
  }
  return res;
}

}  // namespace ds::formula
