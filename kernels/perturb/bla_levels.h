// The layout of a BLA table's levels and their building by merges (bla.h), for any entry type and
// merge rule: the Mandelbrot tables (bla.cpp) and the formulas' (kernels/formula/bla.cpp) share it.
// Host only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bla.h"
#include "kernels/core/cpu_parallel.h"

namespace ds::perturb {

// Levels 0 and 1 (steps of 1 and 2) are not kept: the pixels take plain steps there instead (the
// kernel skips only from level 1 up, and a level-1 skip saves one step), and they held 3/4 of the
// table (2N entries of up to 80 bytes for an orbit of N points; now N/2). The first kept level is
// made from the orbit directly (bla_entry_from_singles).
constexpr int kFirstBlaLevel = 2;

// Level sizes: level 0 has the steps m -> m + 1 for m = 1 .. len - 2, level l + 1 half of level l.
// Returns the number of levels (len >= 3).
inline int bla_level_sizes(uint64_t len, std::size_t (&sizes)[kMaxBlaLevels + 1]) {
  int levels = 0;
  for (std::size_t n = len - 2; n > 0 && levels < kMaxBlaLevels; n /= 2) sizes[levels++] = n;
  return levels;
}

// Level l's entry idx made from single steps (single(k): level 0's entry k), merged in the order
// the levels below would make it (the same bits as building those levels).
template <class E, class Single, class Merge>
E bla_entry_from_singles(std::size_t idx, int l, const Single& single, const Merge& merge) {
  if (l == 0) return single(idx);
  return merge(bla_entry_from_singles<E>(2 * idx, l - 1, single, merge),
               bla_entry_from_singles<E>(2 * idx + 1, l - 1, single, merge));
}

// The entries of every level from first_level (at least kFirstBlaLevel) up, for an orbit of len >= 3
// points, in one vector: level l at [level_offset[l], level_offset[l + 1]) (levels below
// first_level empty); *levels gets the number of levels. single(k) is level 0's entry k (the step
// from m = k + 1), merge(x, y) the entry for x's steps then y's. The first kept level merges its
// 2^first_level single steps in the order the levels below would (the same bits as building those
// levels); each level's entries are built on all cores.
template <class E, class Single, class Merge>
std::vector<E> build_bla_levels(uint64_t len, int first_level, uint64_t (&level_offset)[kMaxBlaLevels + 1],
                                int* levels_out, const Single& single, const Merge& merge) {
  first_level = first_level < kFirstBlaLevel ? kFirstBlaLevel : first_level;
  std::size_t sizes[kMaxBlaLevels + 1] = {};
  const int levels = bla_level_sizes(len, sizes);
  std::size_t total = 0;
  for (int l = 0; l < levels; ++l) {
    level_offset[l] = total;
    if (l >= first_level) total += sizes[l];
  }
  *levels_out = levels;
  for (int l = levels; l <= kMaxBlaLevels; ++l) level_offset[l] = total;
  // One allocation, every level in place (large tables cost more in page faults than in merges).
  std::vector<E> all(total);
  auto on_all_cores = [](std::size_t n, auto&& body) {
    parallel_for(n, 4096, [&](std::size_t a, std::size_t b) {
      for (std::size_t k = a; k < b; ++k) body(k);
    });
  };
  if (levels > first_level)
    on_all_cores(level_offset[first_level + 1] - level_offset[first_level],
                 [&](std::size_t k) { all[level_offset[first_level] + k] = bla_entry_from_singles<E>(k, first_level, single, merge);
                 });
  for (int l = first_level + 1; l < levels; ++l) {
    const E* cur = all.data() + level_offset[l - 1];
    E* next = all.data() + level_offset[l];
    on_all_cores(level_offset[l + 1] - level_offset[l],
                 [&](std::size_t k) { next[k] = merge(cur[2 * k], cur[2 * k + 1]); });
  }
  return all;
}

}  // namespace ds::perturb
