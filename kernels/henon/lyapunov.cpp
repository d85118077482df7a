// The largest Lyapunov exponent over a parameter-plane view: the parameters of the plane's scan
// grid, each pixel's orbit and tangent vector (lyapunov.cuh) on all cores or on CUDA (henon.cu).
#include <chrono>
#include <cmath>
#include <limits>

#include "kernels/core/cpu_parallel.h"
#include "lyapunov.cuh"
#include "map_input.h"
#include "plane.h"

namespace ds::henon {
namespace {

// Runs one pixel; false when cancelled. *sum is the log sum, NaN when the orbit escaped.
template <class T>
bool lyapunov_pixel(const MapParams<T>& p, const double start[2], int64_t n_transient, int64_t n_steps,
                    const std::atomic<bool>* cancel, double* sum) {
  T x(start[0]), y = stored_y(T(start[1]));
  *sum = std::numeric_limits<double>::quiet_NaN();
  if (outside(x, y, p.bound)) return true;
  for (int64_t done = 0; done < n_transient;) {
    if (cancelled(cancel)) return false;
    const int64_t n = std::min<int64_t>(kSlice, n_transient - done);
    done += advance(p, x, y, n);
    if (outside(x, y, p.bound)) return true;
  }
  TangentState s;
  for (int64_t done = 0; done < n_steps;) {
    if (cancelled(cancel)) return false;
    const int64_t n = std::min<int64_t>(kSlice, n_steps - done);
    if (!lyapunov_steps(p, x, y, s, n)) return true;
    done += n;
  }
  *sum = s.log_sum;
  return true;
}

template <class T>
bool lyapunov_t(const ScanParams& sp, Backend be, int64_t n_steps, const std::atomic<bool>* cancel,
                const std::function<void(double)>& progress, std::vector<double>& sums) {
  const int64_t W = sp.na, H = sp.nb, items = W * H;
  // The scan's parameter values (scan.cpp, axis_values): a_min + i a_step, two rounded operations
  // (b from grid index b_first + ib).
  const T a0 = T::from_string(sp.a_min), da = T::from_string(sp.a_step);
  const T b0 = T::from_string(sp.b_min), db = T::from_string(sp.b_step);
  const MapParams<T> base = make_params<T>("0", "0", sp.bound, sp.tol);
  std::vector<T> as(static_cast<std::size_t>(items)), bs(static_cast<std::size_t>(items));
  for (int64_t j = 0; j < H; ++j) {
    const T b = b0 + db * T(static_cast<double>(sp.b_first + H - 1 - j));  // row 0 at the top
    for (int64_t i = 0; i < W; ++i) {
      as[static_cast<std::size_t>(j * W + i)] = a0 + da * T(static_cast<double>(i));
      bs[static_cast<std::size_t>(j * W + i)] = b;
    }
  }
  const std::vector<double> init = init_points(sp);
  const double start[2] = {init[0], init[1]};
  sums.assign(static_cast<std::size_t>(items), 0.0);
  if (be == Backend::kCuda)
    return detail::lyapunov_cuda(sp.arith, as.data(), bs.data(), items, start, &base.bound, sp.n_transient,
                                 n_steps, cancel, progress, sums.data());
  std::atomic<bool> stopped{false};
  ParallelOptions po;
  po.cancel = cancel;
  po.progress = progress;
  const bool complete = parallel_for(
      static_cast<std::size_t>(items), 1,
      [&](std::size_t b, std::size_t e) {
        for (std::size_t q = b; q < e; ++q) {
          const MapParams<T> p{as[q], bs[q], base.bound, base.tol};
          if (!lyapunov_pixel(p, start, sp.n_transient, n_steps, cancel, &sums[q])) {
            stopped = true;
            return;
          }
        }
      },
      po);
  return complete && !stopped.load();
}

}  // namespace

LyapunovResult plane_lyapunov(const PlaneView& v, int64_t n_steps) {
  check_range("lyapunov: n_steps", n_steps, 1, kMaxLyapunovSteps);
  PlaneView one = v;
  one.n_init = 1;  // the first start point of the box
  const ScanParams sp = plane_scan_params(one);
  const Backend be = select_backend(v.backend);
  (void)estimate_scan(sp, be);  // the scan's checks: sizes, the axes in the format, the box
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<double> sums;
  const bool complete = dispatch(sp.arith, [&](auto tag) {
    return lyapunov_t<typename decltype(tag)::type>(sp, be, n_steps, v.cancel, v.progress, sums);
  });
  LyapunovResult r;
  r.width = static_cast<int>(sp.na);
  r.height = static_cast<int>(sp.nb);  // the band's rows for a band
  r.backend = be;
  r.cancelled = !complete;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.cancelled) return r;
  r.exponent.resize(sums.size());
  bool any = false;
  for (std::size_t q = 0; q < sums.size(); ++q) {
    const double e = sums[q] / static_cast<double>(n_steps);
    r.exponent[q] = e;
    if (std::isnan(e)) {
      ++r.escaped;
    } else if (std::isfinite(e)) {
      r.min_exponent = any ? std::min(r.min_exponent, e) : e;
      r.max_exponent = any ? std::max(r.max_exponent, e) : e;
      any = true;
    }
  }
  return r;
}

}  // namespace ds::henon
