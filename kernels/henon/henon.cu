// CUDA wrappers of the Hénon workspace: one thread per (parameter, start point) for scans, one
// thread for an orbit, both over the per-item functions of advance.cuh and cycle.cuh. The transient runs in
// launches of bounded work so the host can honour cancellation between them.
#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

#include "cycle.cuh"
#include "henon.h"
#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "lyapunov.cuh"
#include "plane.h"

namespace ds::henon {
namespace {

constexpr int kBlock = 128;

template <class T>
__global__ void init_kernel(const double* init, int64_t init_count, int64_t items, T bound, T* xs, T* ys,
                            int32_t* alive) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= items) return;
  const int64_t j = i % init_count;
  const T x(init[2 * j]), y = stored_y(T(init[2 * j + 1]));
  xs[i] = x;
  ys[i] = y;
  alive[i] = outside(x, y, bound) ? 0 : 1;
}

// One thread per item. With kOneParam every item has the parameter (a, b) passed as kernel
// arguments, which nvcc keeps in uniform registers: for f32 and f64 that frees the register-file
// reads a per-thread a and b cost, 5.12e12 against 4.51e12 steps/s on the H100
// (docs/bench/henon_bank_probe.cu; indexed __constant__ or __grid_constant__ loads do not help).
template <class T, bool kOneParam>
__global__ void advance_kernel(const T* as, const T* bs, T a, T b, int64_t n_init, int64_t items, T bound, T tol,
                               int64_t steps, T* xs, T* ys, int32_t* alive, int64_t* taken) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= items || !alive[i]) return;
  const int64_t pl = kOneParam ? 0 : i / n_init;
  const MapParams<T> p{kOneParam ? a : as[pl], kOneParam ? b : bs[pl], bound, tol};
  T x = xs[i], y = ys[i];
  const int64_t n = advance(p, x, y, steps);
  xs[i] = x;
  ys[i] = y;
  if (outside(x, y, p.bound)) alive[i] = 0;
  if (taken) taken[i] += n;
}

// Expansions over one parameter with a and b doubles (the paper's Figure 6, bench henon's rows):
// a and b as kernel arguments and only the double-parameter loops. f64x7 and f64x8 are held to
// 168 registers (3 blocks of 128 per SM, 12 warps instead of 8): +2.4 % and +1.3 % on the H100
// despite a few spills (docs/bench/henon_twosum_probe.cu, MINB=3).
template <class T>
constexpr int kMinBlocks = 1;
template <>
constexpr int kMinBlocks<Expansion<7>> = 3;
template <>
constexpr int kMinBlocks<Expansion<8>> = 3;

template <class T>
__global__ void __launch_bounds__(kBlock, kMinBlocks<T>)
    advance_double_ab_kernel(double a, double b, int64_t items, T bound, T tol, int64_t steps, T* xs, T* ys,
                             int32_t* alive) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= items || !alive[i]) return;
  const MapParams<T> p{T(a), T(b), bound, tol};
  T x = xs[i], y = ys[i];
  advance_form<AB::kDouble>(p, x, y, steps);
  xs[i] = x;
  ys[i] = y;
  if (outside(x, y, p.bound)) alive[i] = 0;
}

template <class T>
__global__ void finish_kernel(const T* as, const T* bs, int64_t n_init, int64_t items, T bound, T tol,
                              int32_t p_max, const T* xs, const T* ys, const int32_t* alive,
                              detail::ItemOut* out) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= items) return;
  detail::ItemOut r{-1, 0, 0.0, 0.0};
  if (alive[i]) {
    const int64_t pl = i / n_init;
    const MapParams<T> p{as[pl], bs[pl], bound, tol};
    r = finish_item(p, p_max, xs[i], ys[i]);
  }
  out[i] = r;
}

// Plots n points of one orbit from state (x, y); stops at the first point outside the box.
template <class T>
__global__ void points_kernel(T a, T b, T bound, T* state, int64_t n, double* xs, double* ys, int64_t* n_out,
                              int32_t* escaped) {
  T x = state[0], y = state[1];
  int64_t i = 0;
  for (; i < n; ++i) {
    step(a, b, x, y);
    if (outside(x, y, bound)) {
      *escaped = 1;
      break;
    }
    xs[i] = to_double(x);
    ys[i] = to_double(actual_y(y));
  }
  *n_out = i;
  state[0] = x;
  state[1] = y;
}


bool stop(const std::atomic<bool>* c) { return c && c->load(std::memory_order_relaxed); }

unsigned blocks_for(int64_t items) { return static_cast<unsigned>((items + kBlock - 1) / kBlock); }

// Steps of the first launch: about 1e11 format-weighted steps (rel_cost weighs a multiply, so a
// Hénon step of f64xN is over-weighted about 2.5x): tens of milliseconds on an H100.
template <class T>
int64_t launch_steps(int64_t items) {
  const double cost = std::max(1.0, T::traits().rel_cost);
  const double s = 1e11 / (static_cast<double>(items) * cost);
  return std::max<int64_t>(1, static_cast<int64_t>(std::min(s, 1e12)));
}

// Later launches are sized from the last one's measured time to about kLaunchSeconds each (at
// most 4x more or less per launch), so that cancellation stays prompt on any GPU while each
// launch's start and drain stay a small share of it. (With the first size only, f64x7 ran 23
// launches of 7 ms for the bench's 4576 steps.)
constexpr double kLaunchSeconds = 0.1;
int64_t next_launch_steps(int64_t steps, double seconds) {
  const double f = seconds > 0 ? std::min(4.0, std::max(0.25, kLaunchSeconds / seconds)) : 4.0;
  return std::max<int64_t>(1, static_cast<int64_t>(std::min(static_cast<double>(steps) * f, 1e12)));
}

// The transient kernel a chunk runs: a and b per thread; f32/f64 over one parameter with a and b
// as kernel arguments; f64xN over one parameter with a and b doubles (advance_double_ab_kernel).
// The fixed-point formats gain nothing from a second kernel. double_ab: a and b are doubles.
enum class Transient { kPerThread, kOneParam, kDoubleAB };
template <class T>
Transient transient_kernel(int64_t n_params, bool double_ab) {
  if constexpr (IsNative<T>::value) {
    if (n_params == 1) return Transient::kOneParam;
  } else if constexpr (IsExpansion<T>::value) {
    if (n_params == 1 && double_ab) return Transient::kDoubleAB;
  }
  return Transient::kPerThread;
}

template <class T>
bool scan_chunk(const T* a, const T* b, int64_t n_params, const double* init, int64_t n_init, T bound, T tol,
                int64_t n_transient, int32_t p_max, const std::atomic<bool>* cancel, detail::ItemOut* out,
                double* loop_seconds, int64_t init_count) {
  const int64_t items = n_params * n_init;
  DeviceBuffer da(n_params * sizeof(T)), db(n_params * sizeof(T)), di(2 * init_count * sizeof(double));
  DeviceBuffer dx(items * sizeof(T)), dy(items * sizeof(T)), dalive(items * sizeof(int32_t));
  DeviceBuffer dout(items * sizeof(detail::ItemOut));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(da.p, a, n_params * sizeof(T), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(db.p, b, n_params * sizeof(T), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(di.p, init, 2 * init_count * sizeof(double), cudaMemcpyHostToDevice));
  const unsigned blocks = blocks_for(items);
  init_kernel<T><<<blocks, kBlock>>>(di.as<double>(), init_count, items, bound, dx.as<T>(), dy.as<T>(),
                                     dalive.as<int32_t>());
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  int64_t per = launch_steps<T>(items);
  bool dab = false;
  if constexpr (IsExpansion<T>::value) dab = double_ab(a[0], b[0]);
  const Transient k = transient_kernel<T>(n_params, dab);
  CudaEvent loop_start, loop_end;  // the transient loop's launches, for bench henon
  DEEPSCOPE_CUDA_CHECK(cudaEventRecord(loop_start.e));
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t done = 0; done < n_transient;) {
    const int64_t s = std::min(per, n_transient - done);
    if constexpr (IsNative<T>::value) {
      if (k == Transient::kOneParam)
        advance_kernel<T, true><<<blocks, kBlock>>>(nullptr, nullptr, a[0], b[0], n_init, items, bound, tol, s,
                                                    dx.as<T>(), dy.as<T>(), dalive.as<int32_t>(), nullptr);
    } else if constexpr (IsExpansion<T>::value) {
      if (k == Transient::kDoubleAB)
        advance_double_ab_kernel<T><<<blocks, kBlock>>>(a[0].t[0], b[0].t[0], items, bound, tol, s, dx.as<T>(),
                                                        dy.as<T>(), dalive.as<int32_t>());
    }
    if (k == Transient::kPerThread)
      advance_kernel<T, false><<<blocks, kBlock>>>(da.as<T>(), db.as<T>(), a[0], b[0], n_init, items, bound, tol,
                                                   s, dx.as<T>(), dy.as<T>(), dalive.as<int32_t>(), nullptr);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    done += s;
    if (stop(cancel)) return false;
    const auto t1 = std::chrono::steady_clock::now();
    per = next_launch_steps(s, std::chrono::duration<double>(t1 - t0).count());
    t0 = t1;
  }
  DEEPSCOPE_CUDA_CHECK(cudaEventRecord(loop_end.e));
  DEEPSCOPE_CUDA_CHECK(cudaEventSynchronize(loop_end.e));
  if (loop_seconds) {
    float ms = 0;
    DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, loop_start.e, loop_end.e));
    *loop_seconds = 1e-3 * ms;
  }
  finish_kernel<T><<<blocks, kBlock>>>(da.as<T>(), db.as<T>(), n_init, items, bound, tol, p_max, dx.as<T>(),
                                       dy.as<T>(), dalive.as<int32_t>(), dout.as<detail::ItemOut>());
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(out, dout.p, items * sizeof(detail::ItemOut), cudaMemcpyDeviceToHost));
  return !stop(cancel);
}

template <class T>
bool orbit_one(T a, T b, T bound, T* state, int64_t n_transient, int64_t n_points,
               const std::atomic<bool>* cancel, double* xs, double* ys, int64_t* n_out,
               int64_t* escape_step) {
  *n_out = 0;
  *escape_step = -1;
  DeviceBuffer da(sizeof(T)), db(sizeof(T)), dx(sizeof(T)), dy(sizeof(T)), dalive(sizeof(int32_t)),
      dtaken(sizeof(int64_t));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(da.p, &a, sizeof(T), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(db.p, &b, sizeof(T), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dx.p, &state[0], sizeof(T), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dy.p, &state[1], sizeof(T), cudaMemcpyHostToDevice));
  const int32_t one = 1;
  const int64_t zero = 0;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dalive.p, &one, sizeof one, cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dtaken.p, &zero, sizeof zero, cudaMemcpyHostToDevice));
  const int64_t per = std::max<int64_t>(1, static_cast<int64_t>(2e7 / std::max(1.0, T::traits().rel_cost)));
  bool ok = true;
  for (int64_t done = 0; done < n_transient;) {
    const int64_t s = std::min(per, n_transient - done);
    advance_kernel<T, false><<<1, 1>>>(da.as<T>(), db.as<T>(), a, b, 1, 1, bound, bound, s, dx.as<T>(),
                                       dy.as<T>(), dalive.as<int32_t>(), dtaken.as<int64_t>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    done += s;
    if (stop(cancel)) {
      ok = false;
      break;
    }
  }
  int32_t alive = 0;
  int64_t taken = 0;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&alive, dalive.p, sizeof alive, cudaMemcpyDeviceToHost));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&taken, dtaken.p, sizeof taken, cudaMemcpyDeviceToHost));
  if (!alive) *escape_step = taken;
  if (ok && alive && n_points > 0) {
    DeviceBuffer dstate(2 * sizeof(T)), dxs(n_points * sizeof(double)), dys(n_points * sizeof(double)),
        dn(sizeof(int64_t)), desc(sizeof(int32_t));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dstate.as<T>(), dx.p, sizeof(T), cudaMemcpyDeviceToDevice));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dstate.as<T>() + 1, dy.p, sizeof(T), cudaMemcpyDeviceToDevice));
    const int32_t zero32 = 0;
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(desc.p, &zero32, sizeof zero32, cudaMemcpyHostToDevice));
    points_kernel<T><<<1, 1>>>(a, b, bound, dstate.as<T>(), n_points, dxs.as<double>(), dys.as<double>(),
                               dn.as<int64_t>(), desc.as<int32_t>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    int64_t n = 0;
    int32_t esc = 0;
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&n, dn.p, sizeof n, cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&esc, desc.p, sizeof esc, cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(xs, dxs.p, n * sizeof(double), cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(ys, dys.p, n * sizeof(double), cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(state, dstate.p, 2 * sizeof(T), cudaMemcpyDeviceToHost));
    *n_out = n;
    if (esc) *escape_step = n_transient + n + 1;
  } else {
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&state[0], dx.p, sizeof(T), cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&state[1], dy.p, sizeof(T), cudaMemcpyDeviceToHost));
  }
  return ok;
}

// The Lyapunov steps of every live item (a and b per item); an orbit that escapes is dropped.
template <class T>
__global__ void lyapunov_kernel(const T* as, const T* bs, int64_t items, T bound, int64_t steps, T* xs, T* ys,
                                int32_t* alive, TangentState* st) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= items || !alive[i]) return;
  const MapParams<T> p{as[i], bs[i], bound, bound};
  T x = xs[i], y = ys[i];
  TangentState s = st[i];
  if (!lyapunov_steps(p, x, y, s, steps)) alive[i] = 0;
  xs[i] = x;
  ys[i] = y;
  st[i] = s;
}

// The transient (the scan's advance_kernel, one parameter per item), then the tangent steps, both
// in launches sized like the scan's so that cancellation stays prompt.
template <class T>
bool lyapunov_items(const T* a, const T* b, int64_t items, const double start[2], T bound,
                    int64_t n_transient, int64_t n_steps, const std::atomic<bool>* cancel,
                    const std::function<void(double)>& progress, double* sums) {
  DeviceBuffer da(items * sizeof(T)), db(items * sizeof(T)), di(2 * sizeof(double));
  DeviceBuffer dx(items * sizeof(T)), dy(items * sizeof(T)), dalive(items * sizeof(int32_t));
  DeviceBuffer dst(items * sizeof(TangentState));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(da.p, a, items * sizeof(T), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(db.p, b, items * sizeof(T), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(di.p, start, 2 * sizeof(double), cudaMemcpyHostToDevice));
  std::vector<TangentState> st(static_cast<std::size_t>(items));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dst.p, st.data(), items * sizeof(TangentState), cudaMemcpyHostToDevice));
  const unsigned blocks = blocks_for(items);
  init_kernel<T>
      <<<blocks, kBlock>>>(di.as<double>(), 1, items, bound, dx.as<T>(), dy.as<T>(), dalive.as<int32_t>());
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  const double total = static_cast<double>(n_transient) + static_cast<double>(n_steps);
  for (int phase = 0; phase < 2; ++phase) {
    const int64_t n = phase == 0 ? n_transient : n_steps;
    int64_t per = launch_steps<T>(items);
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t done = 0; done < n;) {
      const int64_t s = std::min(per, n - done);
      if (phase == 0)
        advance_kernel<T, false><<<blocks, kBlock>>>(da.as<T>(), db.as<T>(), T(0.0), T(0.0), 1, items, bound,
                                                     bound, s, dx.as<T>(), dy.as<T>(), dalive.as<int32_t>(),
                                                     nullptr);
      else
        lyapunov_kernel<T><<<blocks, kBlock>>>(da.as<T>(), db.as<T>(), items, bound, s, dx.as<T>(),
                                               dy.as<T>(), dalive.as<int32_t>(), dst.as<TangentState>());
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
      DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      done += s;
      if (stop(cancel)) return false;
      if (progress)
        progress((static_cast<double>(done) + (phase == 1 ? static_cast<double>(n_transient) : 0.0)) / total);
      const auto t1 = std::chrono::steady_clock::now();
      per = next_launch_steps(s, std::chrono::duration<double>(t1 - t0).count());
      t0 = t1;
    }
  }
  std::vector<int32_t> alive(static_cast<std::size_t>(items));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(alive.data(), dalive.p, items * sizeof(int32_t), cudaMemcpyDeviceToHost));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(st.data(), dst.p, items * sizeof(TangentState), cudaMemcpyDeviceToHost));
  for (int64_t i = 0; i < items; ++i)
    sums[i] = alive[static_cast<std::size_t>(i)] ? st[static_cast<std::size_t>(i)].log_sum
                                                 : std::numeric_limits<double>::quiet_NaN();
  return true;
}

}  // namespace

namespace detail {

bool lyapunov_cuda(Arith arith, const void* a, const void* b, int64_t items, const double start[2],
                   const void* bound, int64_t n_transient, int64_t n_steps, const std::atomic<bool>* cancel,
                   const std::function<void(double)>& progress, double* sums) {
  return dispatch(arith, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return lyapunov_items<T>(static_cast<const T*>(a), static_cast<const T*>(b), items, start,
                             *static_cast<const T*>(bound), n_transient, n_steps, cancel, progress, sums);
  });
}

bool scan_chunk_cuda(Arith arith, const void* a, const void* b, int64_t n_params, const double* init,
                     int64_t n_init, const void* bound, const void* tol, int64_t n_transient, int32_t p_max,
                     const std::atomic<bool>* cancel, ItemOut* out, double* loop_seconds,
                     int64_t init_count) {
  return dispatch(arith, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return scan_chunk<T>(static_cast<const T*>(a), static_cast<const T*>(b), n_params, init, n_init,
                         *static_cast<const T*>(bound), *static_cast<const T*>(tol), n_transient, p_max,
                         cancel, out, loop_seconds, init_count > 0 ? init_count : n_init);
  });
}

int64_t cuda_wave_items(Arith arith, bool double_params, int64_t n_params) {
  return dispatch(arith, [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    int dev = 0, sms = 0, blocks = 0;
    DEEPSCOPE_CUDA_CHECK(cudaGetDevice(&dev));
    DEEPSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    // The kernel scan_chunk launches for such a chunk.
    const void* k = reinterpret_cast<const void*>(&advance_kernel<T, false>);
    const Transient t = transient_kernel<T>(n_params, double_params);
    if constexpr (IsNative<T>::value) {
      if (t == Transient::kOneParam) k = reinterpret_cast<const void*>(&advance_kernel<T, true>);
    } else if constexpr (IsExpansion<T>::value) {
      if (t == Transient::kDoubleAB) k = reinterpret_cast<const void*>(&advance_double_ab_kernel<T>);
    }
    DEEPSCOPE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, kBlock, 0));
    return static_cast<int64_t>(sms) * std::max(blocks, 1) * kBlock;
  });
}

bool orbit_cuda(Arith arith, const void* a, const void* b, const void* bound, void* state,
                int64_t n_transient, int64_t n_points, const std::atomic<bool>* cancel, double* xs,
                double* ys, int64_t* n_out, int64_t* escape_step) {
  return dispatch(arith, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return orbit_one<T>(*static_cast<const T*>(a), *static_cast<const T*>(b), *static_cast<const T*>(bound),
                        static_cast<T*>(state), n_transient, n_points, cancel, xs, ys, n_out, escape_step);
  });
}

}  // namespace detail
}  // namespace ds::henon
