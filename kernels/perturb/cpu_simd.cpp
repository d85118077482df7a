// The lockstep pixel loop's two widths (cpu_simd_lanes.inc, for binary64 and double-word deltas,
// compiled for AVX2 and for AVX-512 in regions of their own, so the rest of the build stays
// generic) and the run-time choice.
#include "cpu_simd.h"

#include "perturb.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DEEPSCOPE_SIMD_LANES 1
#include <immintrin.h>
#else
#define DEEPSCOPE_SIMD_LANES 0
#endif

namespace ds::perturb::cpu_detail {

#if DEEPSCOPE_SIMD_LANES
// The lanes' way to pixel_step: one out-of-line copy in generic code (pixel_step is inlined where
// it is called, and the lanes call it from three places in each width's loop).
__attribute__((noinline)) bool scalar_pass(const PerturbParams<double>& p, PixelState<double, kNoFields>& s) {
  return pixel_step(p, s);
}

// The double word's, likewise.
__attribute__((noinline)) bool scalar_pass(const PerturbParams<DwDelta>& p, PixelState<DwDelta, kNoFields>& s) {
  return pixel_step(p, s);
}

// AVX2 with FMA, for the double word's explicit fused products (vfma); nothing else fuses a product
// into a sum: -ffp-contract=off (the whole build's), as the scalar loop.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace avx2 {
constexpr int N = 4;
typedef double vd __attribute__((vector_size(32)));
typedef long vi __attribute__((vector_size(32)));
inline vd vsqrt(vd x) { return reinterpret_cast<vd>(_mm256_sqrt_pd(reinterpret_cast<__m256d>(x))); }
inline unsigned bits(vi m) { return static_cast<unsigned>(_mm256_movemask_pd(reinterpret_cast<__m256d>(m))); }
inline vd gather(const double* base, vi idx) {
  return reinterpret_cast<vd>(_mm256_i64gather_pd(base, reinterpret_cast<__m256i>(idx), 8));
}
inline vd vfma(vd a, vd b, vd c) {
  return reinterpret_cast<vd>(
      _mm256_fmadd_pd(reinterpret_cast<__m256d>(a), reinterpret_cast<__m256d>(b), reinterpret_cast<__m256d>(c)));
}
#include "cpu_simd_lanes.inc"
}  // namespace avx2
#pragma GCC pop_options

// AVX-512 brings FMA with it; -ffp-contract=off (the whole build's) keeps products and sums apart.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl")
// GCC 12's avx512fintrin.h starts its gathers and square roots from an undefined vector.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
namespace avx512 {
constexpr int N = 8;
typedef double vd __attribute__((vector_size(64)));
typedef long vi __attribute__((vector_size(64)));
inline vd vsqrt(vd x) { return reinterpret_cast<vd>(_mm512_sqrt_pd(reinterpret_cast<__m512d>(x))); }
inline unsigned bits(vi m) {
  return static_cast<unsigned>(_mm512_movepi64_mask(reinterpret_cast<__m512i>(m)));
}
inline vd gather(const double* base, vi idx) {
  return reinterpret_cast<vd>(_mm512_i64gather_pd(reinterpret_cast<__m512i>(idx), base, 8));
}
inline vd vfma(vd a, vd b, vd c) {
  return reinterpret_cast<vd>(
      _mm512_fmadd_pd(reinterpret_cast<__m512d>(a), reinterpret_cast<__m512d>(b), reinterpret_cast<__m512d>(c)));
}
#include "cpu_simd_lanes.inc"
}  // namespace avx512
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif

CpuSimd simd_supported() {
#if DEEPSCOPE_SIMD_LANES
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return CpuSimd::kAvx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return CpuSimd::kAvx2;
#endif
  return CpuSimd::kScalar;
}

const char* simd_name(CpuSimd s) {
  switch (s) {
    case CpuSimd::kScalar:
      return "scalar";
    case CpuSimd::kAvx2:
      return "avx2";
    case CpuSimd::kAvx512:
      return "avx512";
    default:
      return "auto";
  }
}

CpuSimd simd_path(CpuSimd asked) {
  if (asked == CpuSimd::kAuto) asked = cpu_simd_from_environment();
  if (asked == CpuSimd::kAuto) asked = CpuSimd::kAvx512;
  const CpuSimd have = simd_supported();
  if (asked == CpuSimd::kAvx512 && have != CpuSimd::kAvx512) asked = CpuSimd::kAvx2;
  if (asked == CpuSimd::kAvx2 && have == CpuSimd::kScalar) asked = CpuSimd::kScalar;
  return asked;
}

bool perturb_lanes(CpuSimd path, const PerturbParams<double>& p, int x0, int y0, std::size_t tw, std::size_t first,
                   std::size_t last, const std::function<void(std::size_t, const PerturbPixel&)>& put,
                   bool bla_radii_nested, LaneStats* stats) {
#if DEEPSCOPE_SIMD_LANES
  const auto begin = [&](std::size_t q, PixelState<double, kNoFields>& s) {
    return pixel_begin(p, x0 + static_cast<int>(q % tw), y0 + static_cast<int>(q / tw), s);
  };
  if (path == CpuSimd::kAvx512) return avx512::lanes_run(p, first, last, begin, put, bla_radii_nested, stats);
  if (path == CpuSimd::kAvx2) return avx2::lanes_run(p, first, last, begin, put, bla_radii_nested, stats);
#endif
  (void)path;
  (void)stats;
  (void)bla_radii_nested;
  for (std::size_t k = first; k < last; ++k) {
    if (p.stop.requested()) return false;
    put(k, perturb_pixel<double, kNoFields>(p, x0 + static_cast<int>(k % tw), y0 + static_cast<int>(k / tw)));
  }
  return !p.stop.requested();
}

bool perturb_lanes_dw(CpuSimd path, const PerturbParams<DwDelta>& p, std::size_t count, const DwLaneBegin& begin,
                      const std::function<void(std::size_t, const PerturbPixel&)>& put, LaneStats* stats) {
#if DEEPSCOPE_SIMD_LANES
  if (path == CpuSimd::kAvx512) return avx512::lanes_run(p, 0, count, begin, put, p.bla_nested, stats);
  if (path == CpuSimd::kAvx2) return avx2::lanes_run(p, 0, count, begin, put, p.bla_nested, stats);
#endif
  (void)path;
  (void)stats;
  for (std::size_t q = 0; q < count; ++q) {
    if (p.stop.requested()) return false;
    PixelState<DwDelta, kNoFields> s;
    if (!begin(q, s))
      while (!pixel_step(p, s)) {
      }
    put(q, s.out);
  }
  return !p.stop.requested();
}

}  // namespace ds::perturb::cpu_detail

namespace ds::perturb {

CpuSimd cpu_simd_from_environment() {
  const char* env = std::getenv("DEEPSCOPE_CPU_SIMD");
  if (!env || !*env) return CpuSimd::kAuto;
  const std::string v = env;
  if (v == "auto") return CpuSimd::kAuto;
  if (v == "scalar") return CpuSimd::kScalar;
  if (v == "avx2") return CpuSimd::kAvx2;
  if (v == "avx512") return CpuSimd::kAvx512;
  throw std::invalid_argument("DEEPSCOPE_CPU_SIMD: '" + v + "' is not one of auto, scalar, avx2, avx512");
}

}  // namespace ds::perturb
