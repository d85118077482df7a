// Issue #6, f64xN: the Hénon loop of kernels/henon/advance.cuh (advance on Expansion<N>, a and b doubles)
// timed per N, 540,672 orbits, one launch each. Prints orbits/s at 1e6 iterations and a checksum
// of the final states (bit-identical arithmetic gives the same checksum).
//   nvcc -O3 -arch=sm_90 -std=c++17 --fmad=false --expt-relaxed-constexpr -I. -DDEEPSCOPE_WITH_CUDA=1 \
//        [-DVARIANT=1|2] [-DMINB=3] -o probe docs/bench/henon_twosum_probe.cu && ./probe
// VARIANT replaces eft::two_sum<double> by an explicit specialization: 1 orders the operands by
// |.| (DSETP and selects) and runs Fast2Sum; 2 orders them by the high words' integer magnitude
// (exponent order suffices for Fast2Sum). Both give s and e bit for bit. MINB caps the registers
// with __launch_bounds__(128, MINB) (3: 168 registers).
//
// H100 (nvidia-h100-x1), 2026-11-22/23, orbits/s at 1e6 iterations:
//   code (commit)                                     f64x3   f64x4   f64x5   f64x6   f64x7   f64x8
//   86ebd6c arithmetic, block unrolled (VARIANT=0)     50010   28800   20260   15900   11000    8557
//     VARIANT=1                                        46580   27760   21670   15340   10670    8076
//     VARIANT=2                                        39780   22300   18250   12580    8974    6821
//   681ff04 (add_mul), block unrolled                  66940   38100   23850   16240    8106    6333
//     the block's steps rolled (kRolledBlock)          67230   40670   27010   19010   13470   10310
//   180f108 (add_sqr_mul, rolled)                      76140   45110   29660   20660   14690   11110
//     MINB=3                                           75700   44990   29450   20620   15040   11250
//     MINB=4 (128 registers, spills)                   75640   44970   29660   20640   14940   11220
//     VARIANT=1                                        75540   44760   29300   20080   14190   10700
//     VARIANT=2                                        66740   39120   25270   17320   11990    8795
//   48a9479, MINB=3, renormalisation check (DS_RENORM_CHECK, a macro that commit had in
//   arith/expansion.h): 0 FP (kept)                                     20780   15130   11310
//     1 exponent fields on the integer pipe                              20310   14980   11130
//     2 2^-53 |a| built on the integer pipe, FP compare                  20770   15120   11280
// Static SASS instructions of the f64x7 kernel (cuobjdump): 39,080 at 86ebd6c (by the count, that
// loop, whose step carried both parameter forms, was not unrolled), 117,584 at 681ff04 unrolled,
// 38,168 rolled. (At 86ebd6c VARIANT was a temporary switch inside eft::two_sum, the same code.)
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "arith/eft.h"
#include "kernels/core/cuda_check.h"

#ifndef VARIANT
#define VARIANT 0
#endif
#if VARIANT != 0
namespace ds::eft {
template <>
__host__ __device__ __forceinline__ void two_sum<double>(double a, double b, double& s, double& e) {
#if VARIANT == 1
  const bool p = std::fabs(a) >= std::fabs(b);
#elif defined(__CUDA_ARCH__)
  const bool p = (__double2hiint(a) & 0x7fffffff) >= (__double2hiint(b) & 0x7fffffff);
#else
  const bool p = std::fabs(a) >= std::fabs(b);  // host side: unused
#endif
  const double big = p ? a : b, small = p ? b : a;
  s = a + b;
  e = small - (s - big);
}
}  // namespace ds::eft
#endif

#include "kernels/henon/advance.cuh"

#ifdef MINB  // minimum blocks of 128 per SM: caps the registers (MINB = 3: 168)
#define BOUNDS __launch_bounds__(128, MINB)
#else
#define BOUNDS
#endif
template <int N>
__global__ void BOUNDS run(ds::henon::MapParams<ds::Expansion<N>> p, int64_t n, uint64_t* sum, int64_t* taken) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  ds::Expansion<N> x(0.1 + 1e-7 * (i % 1000)), y(0.1);
  const int64_t t = ds::henon::advance(p, x, y, n);
  uint64_t h = 0;
  for (int k = 0; k < N; ++k) {
    uint64_t b;
    memcpy(&b, &x.t[k], 8);
    h ^= b * (2 * k + 1);
    memcpy(&b, &y.t[k], 8);
    h ^= b * (2 * k + 7);
  }
  atomicAdd(reinterpret_cast<unsigned long long*>(sum), static_cast<unsigned long long>(h));
  atomicAdd(reinterpret_cast<unsigned long long*>(taken), static_cast<unsigned long long>(t));
}

template <int N>
void one(int64_t steps) {
  const int block = 128;
  const int64_t blocks = 132 * 32;
  ds::henon::MapParams<ds::Expansion<N>> p{ds::Expansion<N>(1.4), ds::Expansion<N>(0.3), ds::Expansion<N>(1e3),
                                            ds::Expansion<N>(1e-10)};
  uint64_t* sum;
  int64_t* taken;
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&sum, 8));
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&taken, 8));
  run<N><<<blocks, block>>>(p, 16, sum, taken);  // warm-up
  DEEPSCOPE_CUDA_CHECK(cudaGetLastError());
  DEEPSCOPE_CUDA_CHECK(cudaMemset(sum, 0, 8));
  DEEPSCOPE_CUDA_CHECK(cudaMemset(taken, 0, 8));
  cudaEvent_t e0, e1;
  DEEPSCOPE_CUDA_CHECK(cudaEventCreate(&e0));
  DEEPSCOPE_CUDA_CHECK(cudaEventCreate(&e1));
  DEEPSCOPE_CUDA_CHECK(cudaEventRecord(e0));
  run<N><<<blocks, block>>>(p, steps, sum, taken);
  DEEPSCOPE_CUDA_CHECK(cudaGetLastError());
  DEEPSCOPE_CUDA_CHECK(cudaEventRecord(e1));
  DEEPSCOPE_CUDA_CHECK(cudaEventSynchronize(e1));
  float ms = 0;
  DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
  uint64_t h = 0;
  int64_t t = 0;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&h, sum, 8, cudaMemcpyDeviceToHost));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&t, taken, 8, cudaMemcpyDeviceToHost));
  std::printf("f64x%d  %.4g orbits/s at 1e6  (%.3f s, %lld of %lld steps)  checksum %016llx\n", N,
              t / (ms * 1e-3) / 1e6, ms * 1e-3, (long long)t, (long long)(steps * blocks * block),
              (unsigned long long)h);
  DEEPSCOPE_CUDA_CHECK(cudaFree(sum));
  DEEPSCOPE_CUDA_CHECK(cudaFree(taken));
}

int main() {
  one<3>(39215);
  one<4>(19512);
  one<5>(11111);
  one<6>(6908);
  one<7>(4576);
  one<8>(3182);
}
