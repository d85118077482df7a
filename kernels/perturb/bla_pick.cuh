// The BLA step a pixel takes (bla.h's table; perturb.cuh's pixel_step and the CPU's vectorized
// loop, cpu_simd_lanes.inc): host + device.
#pragma once
#include <cstdint>

#include "arith/hd.h"
#include "bla.h"

namespace ds::perturb {

// The pixel loop's pieces (pixel_step, bla_pick): inlined into perturb_pixel's loop on the host too
// (GCC otherwise calls them, with the state in memory: 20% slower; nvcc inlines them anyway).
#if defined(__CUDACC__)
#define DEEPSCOPE_PIXEL_INLINE DEEPSCOPE_HD
#else
#define DEEPSCOPE_PIXEL_INLINE inline __attribute__((always_inline))
#endif

template <class T>
struct PerturbParams;

// Count trailing zeros of a non-zero 64-bit value.
DEEPSCOPE_HD int ctz64(uint64_t x) {
#if DEEPSCOPE_DEVICE_CODE
  return __ffsll(static_cast<long long>(x)) - 1;
#else
  return __builtin_ctzll(x);
#endif
}

// The BLA step a pixel at reference point m > 0 and iteration n, with |dz| <= mag (L1), takes: the
// longest valid entry from m (its index in p.bla, *idx, and its length in iterations, *len), or
// false where none is (a plain step then). On the canonical path of a reference the pixels go
// round (bla.h), its suffix entry first: to the reference's end in one step.
// Where the table's radii are nested (p.bla_nested: each entry's radius at most its lower half's),
// the valid levels at m are a run from the lowest, so it climbs from there and stops at the first
// invalid one: one load where no step is valid (a pixel far from the reference, such as most of
// FractalShark's view 25's), where looking from the top costs one a level (18 at m = 1 on a
// 100,000-point orbit). Both orders pick the same entry (CpuSimd.EveryPixelAsPerturbPixelWithEitherBlaSearch).
template <class T>
DEEPSCOPE_PIXEL_INLINE bool bla_pick(const PerturbParams<T>& p, uint64_t m, uint64_t n, T mag, uint64_t* idx, uint64_t* len) {
  const uint64_t k = m - 1;
  int top = k == 0 ? p.bla_levels - 1 : ctz64(k);
  if (top > p.bla_levels - 1) top = p.bla_levels - 1;
  const uint64_t kk = p.ref_len - 2;
  const int si = p.bla_suffix > 0 ? bla_suffix_index(k, kk) : -1;
  const bool with_suffix = si >= 0 && si < p.bla_suffix;
  if (p.bla_nested) {
    if (with_suffix) {
      const uint64_t i = p.level_offset[kMaxBlaLevels] + static_cast<uint64_t>(si);
      const uint64_t steps = kk - k;
      if (p.max_iter - n >= steps && mag < p.bla[i].r) {
        *idx = i;
        *len = steps;
        return true;
      }
    }
    bool found = false;
    for (int l = 1; l <= top; ++l) {
      if (p.level_offset[l] == p.level_offset[l + 1]) {  // a level the table left out (bla.h)
        if (found) break;
        continue;
      }
      const uint64_t i = p.level_offset[l] + (k >> l);
      if (i >= p.level_offset[l + 1]) break;  // none this close to the end here, nor higher up
      const uint64_t steps = uint64_t{1} << l;
      if (p.max_iter - n < steps || !(mag < p.bla[i].r)) break;
      *idx = i;
      *len = steps;
      found = true;
    }
    return found;
  }
  for (int l = with_suffix ? top + 1 : top; l >= 1; --l) {
    const bool suffix = with_suffix && l == top + 1;
    const uint64_t i = suffix ? p.level_offset[kMaxBlaLevels] + static_cast<uint64_t>(si) : p.level_offset[l] + (k >> l);
    if (!suffix && i >= p.level_offset[l + 1]) continue;  // no entry this close to the reference's end
    const uint64_t steps = suffix ? kk - k : uint64_t{1} << l;
    if (p.max_iter - n < steps) continue;
    if (!(mag < p.bla[i].r)) continue;
    *idx = i;
    *len = steps;
    return true;
  }
  return false;
}

}  // namespace ds::perturb
