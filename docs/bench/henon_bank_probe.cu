// Issue #6, f64: the same 64-step end-test loop with a and b loaded per thread from global memory
// (as the scan kernel does) against a and b as kernel parameters (uniform registers), and with the
// FMA operands written in different orders (bit-identical results; the register allocation and
// operand-reuse flags differ). 540,672 orbits x N_STEPS, one launch each. On the GPU machine:
//   nvcc -O3 -arch=sm_90 -std=c++17 --fmad=false -I. -DN_STEPS=1000000 -o bank docs/bench/henon_bank_probe.cu && ./bank
#include <cstdint>
#include <cstdio>

#include "kernels/core/cuda_check.h"


__device__ __forceinline__ uint32_t key(double d) { return (uint32_t)__double2hiint(d) & 0x7fffffffu; }

template <int S>
__device__ __forceinline__ void st(double a, double b, double& x, double& v) {
  double nx;
  if (S == 0) {  // kernels/henon/advance.cuh as written
    nx = __fma_rn(-(a * x), x, v);
    v = __fma_rn(b, x, 1.0);
  } else if (S == 1) {
    nx = __fma_rn(x, -(a * x), v);
    v = __fma_rn(x, b, 1.0);
  } else if (S == 2) {
    nx = __fma_rn(-(x * a), x, v);
    v = __fma_rn(x, b, 1.0);
  } else {
    const double na = -a;  // -(a x) = (-a) x exactly
    nx = __fma_rn(na * x, x, v);
    v = __fma_rn(x, b, 1.0);
  }
  x = nx;
}

template <int S>
__device__ int64_t loop(double a, double b, double& x, double& v, int64_t n, uint32_t limit) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const double sx = x, sv = v;
#pragma unroll
    for (int j = 0; j < 64; ++j) st<S>(a, b, x, v);
    if (key(x) < limit) continue;
    x = sx;  // (never taken here: the orbits stay on the attractor)
    v = sv;
#pragma unroll 1
    for (int j = 0; j < 64; ++j) {
      st<S>(a, b, x, v);
      if (!(fabs(x) <= 16.0)) return i + j + 1;
    }
  }
#pragma unroll 1
  for (; i < n; ++i) st<S>(a, b, x, v);
  return n;
}

// G: a and b from global memory per thread; else kernel parameters.
template <int S, bool G>
__global__ void k(const double* as, const double* bs, double a0, double b0, int64_t n, double* out, int64_t* taken) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const double a = G ? as[i & 1] : a0, b = G ? bs[i & 1] : b0;
  double x = 1e-3 * (i % 1000) / 1000.0, v = 1.0;
  const int64_t t = loop<S>(a, b, x, v, n, key(16.0) - 1);
  out[i] = x + v;
  taken[i] = t;
}

// a and b of a batch of parameters: a __grid_constant__ kernel argument indexed by blockIdx.y
// (uniform), or __constant__ memory indexed the same way.
struct Batch {
  double a[512], b[512];
};
__constant__ double c_ab[2][512];
template <bool C>
__global__ void kb(const __grid_constant__ Batch pb, int64_t n, double* out, int64_t* taken) {
  const int64_t i = (blockIdx.y * (int64_t)gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  const double a = C ? c_ab[0][blockIdx.y] : pb.a[blockIdx.y], b = C ? c_ab[1][blockIdx.y] : pb.b[blockIdx.y];
  double x = 1e-3 * (i % 1000) / 1000.0, v = 1.0;
  const int64_t t = loop<0>(a, b, x, v, n, key(16.0) - 1);
  out[i] = x + v;
  taken[i] = t;
}

int main() {
  const int threads = 128, blocks = 132 * 32;
  const int64_t items = (int64_t)threads * blocks;
  double *out, *ab;
  int64_t* taken;
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&out, items * sizeof(double)));
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&taken, items * sizeof(int64_t)));
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&ab, 4 * sizeof(double)));
  const double h[4] = {1.4, 1.4, 0.3, 0.3};
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(ab, h, sizeof h, cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1;
  DEEPSCOPE_CUDA_CHECK(cudaEventCreate(&e0));
  DEEPSCOPE_CUDA_CHECK(cudaEventCreate(&e1));
  const int64_t n = N_STEPS;
  struct V {
    const char* name;
    void (*f)(const double*, const double*, double, double, int64_t, double*, int64_t*);
  } vs[] = {{"a, b per thread, as written", k<0, true>}, {"a, b per thread, fma(x, -(a x), v), fma(x, b, 1)", k<1, true>},
            {"a, b per thread, fma(-(x a), x, v)", k<2, true>}, {"a, b per thread, ((-a) x) x + v", k<3, true>},
            {"a, b parameters, as written", k<0, false>},  {"a, b parameters, fma(x, -(a x), v)", k<1, false>}};
  double ref = 0;
  for (int rep = 0; rep < 3; ++rep)
    for (int v = 0; v < 6; ++v) {
      DEEPSCOPE_CUDA_CHECK(cudaEventRecord(e0));
      vs[v].f<<<blocks, threads>>>(ab, ab + 2, 1.4, 0.3, n, out, taken);
      DEEPSCOPE_CUDA_CHECK(cudaEventRecord(e1));
      DEEPSCOPE_CUDA_CHECK(cudaEventSynchronize(e1));
      DEEPSCOPE_CUDA_CHECK(cudaGetLastError());
      float ms;
      DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      double o;
      DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&o, out + 12345, sizeof o, cudaMemcpyDeviceToHost));
      if (v == 0) ref = o;
      if (rep == 2)
        printf("%-50s %.3e steps/s  (%.1f ms)%s\n", vs[v].name, items * (double)n / (ms * 1e-3), ms,
               o == ref ? "" : "  RESULT DIFFERS");
    }
  // The same grid as 512 parameters x 1056 orbits each (8.25 blocks of 128: 9 blocks, the last
  // a quarter full), so 540,672 orbits run plus the padding.
  static Batch pb;
  for (int q = 0; q < 512; ++q) {
    pb.a[q] = 1.4;
    pb.b[q] = 0.3;
  }
  DEEPSCOPE_CUDA_CHECK(cudaMemcpyToSymbol(c_ab, &pb, sizeof pb));
  double *out2;
  int64_t* taken2;
  const dim3 grid(1056 / threads + 1, 512);
  const int64_t slots = (int64_t)grid.x * grid.y * threads;
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&out2, slots * sizeof(double)));
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&taken2, slots * sizeof(int64_t)));
  for (int rep = 0; rep < 3; ++rep)
    for (int c = 0; c < 2; ++c) {
      DEEPSCOPE_CUDA_CHECK(cudaEventRecord(e0));
      if (c) kb<true><<<grid, threads>>>(pb, n, out2, taken2);
      else kb<false><<<grid, threads>>>(pb, n, out2, taken2);
      DEEPSCOPE_CUDA_CHECK(cudaEventRecord(e1));
      DEEPSCOPE_CUDA_CHECK(cudaEventSynchronize(e1));
      DEEPSCOPE_CUDA_CHECK(cudaGetLastError());
      float ms;
      DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      if (rep == 2)
        printf("%-50s %.3e steps/s  (%.1f ms, %lld thread slots)\n",
               c ? "a, b __constant__[blockIdx.y]" : "a, b __grid_constant__ batch[blockIdx.y]",
               slots * (double)n / (ms * 1e-3), ms, (long long)slots);
    }
  return 0;
}
