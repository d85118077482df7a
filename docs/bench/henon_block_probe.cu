// Issue #6, f64: where the blocked escape test loses against the plain double loop. Loop shapes
// over the same v = 1 + y step, with and without the real advance_native of kernels/henon/advance.cuh, one
// launch each, 540,672 orbits (132 SMs x 32 blocks x 128) x N_STEPS. Run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 --fmad=false --expt-relaxed-constexpr -I. -DDEEPSCOPE_WITH_CUDA=1 \
//        -DN_STEPS=1000000 -o probe docs/bench/henon_block_probe.cu && ./probe
#include <cstdint>
#include <cstdio>

#include "kernels/core/cuda_check.h"

#include "kernels/henon/advance.cuh"


using ds::henon::MapParams;
using P = MapParams<ds::Native<double>>;

__device__ __forceinline__ void st(double a, double b, double& x, double& u) {
  const double nx = __fma_rn(-(a * x), x, u);
  u = __fma_rn(b, x, 1.0);
  x = nx;
}

// advance_exact on (x, u) as doubles: up to n steps with the exact test; *out when it escaped.
__device__ int64_t exact(const P& p, double& x, double& u, int64_t n, bool* out) {
  ds::Native<double> X, V;
  X.v = x;
  V.v = u;
  const int64_t k = ds::henon::advance_exact(p, X, V, n);
  x = X.v;
  u = V.v;
  *out = ds::henon::outside(X, V, p.bound);
  return k;
}

// The blocked loop with an inner unroll of U and blocks of K = U * R steps (R sub-blocks, a loop).
template <int U, int R>
__device__ int64_t blocked(const P& p, double& x, double& u, int64_t n, uint32_t limit) {
  constexpr int K = U * R;
  const double a = p.a.v, b = p.b.v;
  int64_t i = 0;
  for (; i + K <= n; i += K) {
    const double sx = x, su = u;
#pragma unroll 1
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int j = 0; j < U; ++j) st(a, b, x, u);
    }
    if (ds::henon::magnitude_key(x) < limit) continue;
    x = sx;
    u = su;
    bool out;
    const int64_t k = exact(p, x, u, K, &out);
    if (out) return i + k;
  }
  bool out;
  return i + exact(p, x, u, n - i, &out);
}

// The shape advance_native had at 103b545: 64 steps fully unrolled, both paths inside the loop.
__device__ int64_t old_shape(const P& p, double& x, double& u, int64_t n) {
  const bool end_only = ds::henon::end_test_suffices(p);
  const bool check_v = !(std::fabs(p.b.v) < 0.99);
  const uint32_t kx_limit = ds::henon::magnitude_key(p.bound.v) - 1;
  const uint32_t kv_limit = ds::henon::magnitude_key(p.bound.v - 1) - 1;
  const double a = p.a.v, b = p.b.v;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const double sx = x, sv = u;
    bool fail;
    if (end_only) {
#pragma unroll
      for (int j = 0; j < 64; ++j) st(a, b, x, u);
      fail = ds::henon::magnitude_key(x) >= kx_limit;
    } else {
      uint32_t kx = 0, kv = 0;
#pragma unroll
      for (int j = 0; j < 64; ++j) {
        st(a, b, x, u);
        const uint32_t qx = ds::henon::magnitude_key(x);
        kx = qx > kx ? qx : kx;
        if (check_v) {
          const uint32_t qv = ds::henon::magnitude_key(u);
          kv = qv > kv ? qv : kv;
        }
      }
      fail = kx >= kx_limit || (check_v && kv >= kv_limit);
    }
    if (!fail) continue;
    x = sx;
    u = sv;
    bool out;
    const int64_t k = exact(p, x, u, 64, &out);
    if (out) return i + k;
  }
  bool out;
  return i + exact(p, x, u, n - i, &out);
}

template <int V>
__global__ void k(P p, int64_t n, double* out, int64_t* taken) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  double x = 1e-3 * (i % 1000) / 1000.0, u = 1.0;
  const uint32_t limit = ds::henon::magnitude_key(p.bound.v) - 1;
  int64_t t = 0;
  if (V == 0) {  // plain, unroll 8
    for (int64_t s = 0; s < n; s += 8) {
#pragma unroll
      for (int j = 0; j < 8; ++j) st(p.a.v, p.b.v, x, u);
    }
    t = n;
  } else if (V == 1) {  // plain, unroll 64
    for (int64_t s = 0; s < n; s += 64) {
#pragma unroll
      for (int j = 0; j < 64; ++j) st(p.a.v, p.b.v, x, u);
    }
    t = n;
  } else if (V == 2) {
    t = blocked<8, 8>(p, x, u, n, limit);
  } else if (V == 3) {
    t = blocked<64, 1>(p, x, u, n, limit);
  } else if (V == 4) {
    t = blocked<8, 32>(p, x, u, n, limit);
  } else if (V == 5) {
    t = blocked<16, 16>(p, x, u, n, limit);
  } else if (V == 6) {
    ds::Native<double> X, U;
    X.v = x;
    U.v = u;
    t = ds::henon::advance_native(p, X, U, n);
    x = X.v;
    u = U.v;
  } else if (V == 7) {
    ds::Native<double> X, U;
    X.v = x;
    U.v = u;
    t = ds::henon::advance_native_path<false, false, 8>(p, X, U, n);
    x = X.v;
    u = U.v;
  } else if (V == 8) {
    t = old_shape(p, x, u, n);
  }
  out[i] = x + u;
  taken[i] = t;
}

int main() {
  const int threads = 128, blocks = 132 * 32;
  const int64_t items = (int64_t)threads * blocks;
  double* out;
  int64_t* taken;
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&out, items * sizeof(double)));
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&taken, items * sizeof(int64_t)));
  cudaEvent_t e0, e1;
  DEEPSCOPE_CUDA_CHECK(cudaEventCreate(&e0));
  DEEPSCOPE_CUDA_CHECK(cudaEventCreate(&e1));
  P p;
  p.a.v = 1.4;
  p.b.v = 0.3;
  p.bound.v = 16.0;
  p.tol.v = 1e-10;
  const int64_t n = N_STEPS;
  const char* names[] = {"plain, unroll 8",
                         "plain, unroll 64",
                         "blocks of 64 = 8 x unroll 8, end test",
                         "blocks of 64 unrolled, end test",
                         "blocks of 256 = 32 x unroll 8, end test",
                         "blocks of 256 = 16 x unroll 16, end test",
                         "advance_native (kernels/henon/advance.cuh), end test",
                         "advance_native_path, key every step",
                         "advance_native as at 103b545 (64 unrolled)"};
  void (*kern[])(P, int64_t, double*, int64_t*) = {k<0>, k<1>, k<2>, k<3>, k<4>, k<5>, k<6>, k<7>, k<8>};
  for (int rep = 0; rep < 3; ++rep)
    for (int v = 0; v < 9; ++v) {
      DEEPSCOPE_CUDA_CHECK(cudaEventRecord(e0));
      kern[v]<<<blocks, threads>>>(p, n, out, taken);
      DEEPSCOPE_CUDA_CHECK(cudaEventRecord(e1));
      DEEPSCOPE_CUDA_CHECK(cudaEventSynchronize(e1));
      DEEPSCOPE_CUDA_CHECK(cudaGetLastError());
      float ms;
      DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      int64_t t0;
      DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&t0, taken, sizeof t0, cudaMemcpyDeviceToHost));
      if (rep == 2) printf("%-44s %.3e steps/s  (%.1f ms, taken %lld)\n", names[v], items * (double)n / (ms * 1e-3), ms, (long long)t0);
    }
  return 0;
}
