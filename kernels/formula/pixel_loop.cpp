// The shared frame of the formula renders on the CPU (pixel_loop.h).
#include "pixel_loop.h"

#include <algorithm>
#include <vector>

#include "kernels/core/cpu_parallel.h"
#include "kernels/mandelbrot/mandelbrot.cuh"

namespace ds::formula {

mandel::RenderResult formula_result(const mandel::View& v, mandel::Method method) {
  mandel::RenderResult res;
  res.width = v.width;
  res.height = v.height;
  res.max_iter = v.max_iter;
  res.arith = Arith::kF64;
  res.backend = Backend::kCpu;
  res.method = method;
  return res;
}

void run_pixel_loop(const mandel::View& v, const DirectOptions& opt,
                    const std::function<mandel::PixelResult(int i, int j, bool* decided)>& pixel,
                    std::chrono::steady_clock::time_point t0, double setup_seconds, mandel::RenderResult& res,
                    Certification* cert) {
  const std::size_t w = static_cast<std::size_t>(v.width), pixels = w * static_cast<std::size_t>(v.height);
  const bool wide = mandel::wide_counts(v.max_iter);
  res.counts.assign(pixels, 0);
  res.smooth.assign(pixels, 0.0f);
  if (wide) res.counts_high.assign(pixels, 0);
  uint32_t* high = wide ? res.counts_high.data() : nullptr;
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
          bool decided = false;
          const mandel::PixelResult px = pixel(i, j, &decided);
          ok[k] = decided ? 1 : 0;
          mandel::store_pixel(res.counts.data(), high, res.smooth.data(), k, px.count, px.smooth);
        }
      },
      po);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  res.kernel_seconds = res.seconds - setup_seconds;
  if (opt.cancel && opt.cancel->load()) {
    res.cancelled = true;
    return;
  }
  for (std::size_t k = 0; k < pixels; ++k) res.iterations += res.count(k) - 1;
  if (cert) {
    cert->uncertain = 0;
    for (uint8_t b : ok) cert->uncertain += b ? 0 : 1;
    cert->certified = std::move(ok);
  }
}

}  // namespace ds::formula
