// The reference "plain double loop" of issue #6 on the H100, outside the build: Hénon steps with no
// escape test, 540,672 orbits (132 SMs x 32 blocks x 128), one launch. Run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -DN_STEPS=1000000 -DREPS=6 -o plain docs/bench/henon_plain_loop.cu && ./plain
// (nvcc's default FMA contraction, as a plain loop would be built). Variants: the v = 1 + y form
// deepscope uses (3 FP64 instructions a step), the same with an integer magnitude key every step,
// two orbits per thread, and Figure 6 as written.
#include <cstdio>
#include <cstdint>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s\n", cudaGetErrorString(e)); return 1; } } while (0)
__device__ __forceinline__ uint32_t key(double d) { return (uint32_t)__double2hiint(d) & 0x7fffffffu; }
template <int V>
__global__ void k(double a, double b, int64_t n, double* out, uint32_t limit) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  double x = 1e-3 * (i % 1000) / 1000.0, u = 1.0, x2 = x + 1e-4, u2 = 1.0;
  uint32_t kk = 0;
  for (int64_t s = 0; s < n; s += 8) {
    if (V == 0) {
#pragma unroll
      for (int j = 0; j < 8; ++j) { double nx = __fma_rn(-(a * x), x, u); u = __fma_rn(b, x, 1.0); x = nx; }
    } else if (V == 1) {
      uint32_t kx = key(x);
#pragma unroll
      for (int j = 0; j < 8; ++j) { double nx = __fma_rn(-(a * x), x, u); u = __fma_rn(b, x, 1.0); x = nx; uint32_t q = key(x); kx = q > kx ? q : kx; }
      if (kx >= limit) { kk++; }
    } else if (V == 2) {
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        double nx = __fma_rn(-(a * x), x, u); u = __fma_rn(b, x, 1.0); x = nx;
        double ny = __fma_rn(-(a * x2), x2, u2); u2 = __fma_rn(b, x2, 1.0); x2 = ny;
      }
    } else if (V == 3) {  // plain loop as written in Figure 6, double: x = y + 1 - a*x*x; y = b*xold
#pragma unroll
      for (int j = 0; j < 8; ++j) { double xo = x; x = u + 1.0 - a * x * x; u = b * xo; }
    }
  }
  out[i] = x + u + x2 + u2 + kk;
}
int main() {
  const int threads = 128, blocks = 132 * 32; const int64_t items = (int64_t)threads * blocks;
  double* out; CK(cudaMalloc(&out, items * sizeof(double)));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  const int64_t n = N_STEPS;
  const char* names[] = {"plain u-form 3 ops", "u-form + key per step", "u-form, 2 orbits per thread", "Figure 6 as written (contracted)"};
  for (int rep = 0; rep < REPS; ++rep)
  for (int v = 0; v < 4; ++v) {
    cudaEventRecord(e0);
    if (v == 0) k<0><<<blocks, threads>>>(1.4, 0.3, n, out, 0x40900000u);
    if (v == 1) k<1><<<blocks, threads>>>(1.4, 0.3, n, out, 0x40900000u);
    if (v == 2) k<2><<<blocks, threads>>>(1.4, 0.3, n, out, 0x40900000u);
    if (v == 3) k<3><<<blocks, threads>>>(1.4, 0.3, n, out, 0x40900000u);
    cudaEventRecord(e1); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    const double steps = (double)items * n * (v == 2 ? 2 : 1);
    if (rep >= REPS - 2) printf("%-36s %.3e steps/s  (%.1f ms)\n", names[v], steps / (ms * 1e-3), ms);
  }
  return 0;
}
