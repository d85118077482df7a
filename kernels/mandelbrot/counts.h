// Iteration counts, 64-bit end to end (docs/mandelbrot.md, "Counts"): the largest limit a view may
// ask for, and how a pixel's count and smooth count are stored (host + device).
#pragma once
#include <cstddef>
#include <cstdint>

#include "arith/hd.h"

namespace ds::mandel {

// The largest iteration limit: 2^63 - 1, so every count also fits int64 (Python, NumPy, JSON).
constexpr uint64_t kMaxIterations = 0x7FFFFFFFFFFFFFFFull;

// Storage of per-pixel counts. Narrow (max_iter < 2^32, every view before 64-bit counts): counts[k]
// is the count and smooth[k] the smooth count, exactly as before. Wide (max_iter >= 2^32): counts[k]
// holds the low 32 bits, counts_high[k] the high 32 bits, and smooth[k] the smooth count minus the
// count (a float cannot hold 5e9 + 0.3; the difference keeps 24 bits of fraction). Narrow views pay
// nothing for the wide case: no extra array on the host or the device.
DEEPSCOPE_HD constexpr bool wide_counts(uint64_t max_iter) { return max_iter > 0xFFFFFFFFull; }

// A finished pixel: its count and its stored smooth value (narrow: the smooth count; wide: the
// smooth count minus count).
struct PixelResult {
  uint64_t count;
  float smooth;
};

// The stored smooth value of a pixel that reached max_iter.
DEEPSCOPE_HD float smooth_at_limit(uint64_t max_iter) {
  return wide_counts(max_iter) ? 0.0f : static_cast<float>(max_iter);
}

// Writes pixel k: counts_high is nullptr for narrow views.
DEEPSCOPE_HD void store_pixel(uint32_t* counts, uint32_t* counts_high, float* smooth, std::size_t k, uint64_t count,
                              float s) {
  counts[k] = static_cast<uint32_t>(count);
  if (counts_high) counts_high[k] = static_cast<uint32_t>(count >> 32);
  smooth[k] = s;
}

// The count of pixel k of a stored array (counts_high nullptr: narrow).
DEEPSCOPE_HD uint64_t load_count(const uint32_t* counts, const uint32_t* counts_high, std::size_t k) {
  return counts_high ? (static_cast<uint64_t>(counts_high[k]) << 32) | counts[k] : counts[k];
}

}  // namespace ds::mandel
