// Host/device qualifiers for the arithmetic core: every arith header compiles with nvcc and with a
// plain C++ compiler (where the qualifiers fall back to `inline`).
#pragma once

#if defined(__CUDACC__)
#define DEEPSCOPE_HD __host__ __device__ __forceinline__
#define DEEPSCOPE_HD_NOINLINE __host__ __device__
#else
#define DEEPSCOPE_HD inline
#define DEEPSCOPE_HD_NOINLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define DEEPSCOPE_DEVICE_CODE 1
#else
#define DEEPSCOPE_DEVICE_CODE 0
#endif

// Unroll hint understood by nvcc and by GCC/Clang.
#if defined(__CUDACC__)
#define DEEPSCOPE_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define DEEPSCOPE_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define DEEPSCOPE_UNROLL _Pragma("GCC unroll 64")
#else
#define DEEPSCOPE_UNROLL
#endif

// A loop that must stay a loop (its body is already unrolled, or unrolling it costs registers).
#if defined(__CUDACC__)
#define DEEPSCOPE_NO_UNROLL _Pragma("unroll 1")
#else
#define DEEPSCOPE_NO_UNROLL
#endif
