// BLA table construction (kernels/perturb/bla.h), in floatexp so that no coefficient overflows while
// merging, rounded to the delta type at the end.
#include "bla.h"

#include <algorithm>
#include <cmath>

#include "kernels/core/cpu_parallel.h"
#include "perturb.cuh"
#include "perturb.h"

namespace ds::perturb {
namespace {

FloatExp hypot_fe(FloatExp x, FloatExp y) { return sqrt(sqr(x) + sqr(y)); }
FloatExp max0(FloatExp x) { return x.m > 0 ? x : FloatExp(0.0); }

}  // namespace

// Levels 0 and 1 (steps of 1 and 2) are not kept: the pixels take plain steps there instead (the
// kernel skips only from level 1 up, and a level-1 skip saves one step), and they held 3/4 of the
// table (2N entries of up to 80 bytes for an orbit of N points; now N/2). Level 2 is made from the
// orbit directly, each entry merging its four single steps in the order the levels below would.
constexpr int kFirstBlaLevel = 2;

template <class T>
BlaTable<T> build_bla(const Reference& ref, FloatExp dcmax) {
  BlaTable<T> t;
  t.dcmax = dcmax;
  const uint64_t len = ref.length();
  if (len < 3) return t;
  // Level sizes: level 0 has the steps m -> m + 1 for m = 1 .. len - 2, level l + 1 half of level l.
  // Levels below kFirstBlaLevel are empty.
  std::size_t total = 0;
  int levels = 0;
  for (std::size_t n = len - 2; n > 0 && levels < kMaxBlaLevels; n /= 2, ++levels) {
    t.level_offset[levels] = total;
    if (levels >= kFirstBlaLevel) total += n;
  }
  t.levels = levels;
  for (int l = levels; l <= kMaxBlaLevels; ++l) t.level_offset[l] = total;
  // One allocation, every level in place (large tables cost more in page faults than in merges).
  std::vector<BlaEntry<FloatExp>> all(total);
  const FloatExp eps(kBlaEpsilon);
  // Each level's entries are independent: built on all cores in chunks.
  auto on_all_cores = [](std::size_t n, auto&& body) {
    parallel_for(n, 4096, [&](std::size_t a, std::size_t b) {
      for (std::size_t k = a; k < b; ++k) body(k);
    });
  };
  const auto merge = [&](const BlaEntry<FloatExp>& x, const BlaEntry<FloatExp>& y) {
    BlaEntry<FloatExp> z;
    z.ar = y.ar * x.ar - y.ai * x.ai;
    z.ai = y.ar * x.ai + y.ai * x.ar;
    z.br = (y.ar * x.br - y.ai * x.bi) + y.br;
    z.bi = (y.ar * x.bi + y.ai * x.br) + y.bi;
    const FloatExp ax = hypot_fe(x.ar, x.ai);
    FloatExp ry = x.r;
    if (ax.m != 0) ry = max0((y.r - hypot_fe(x.br, x.bi) * dcmax) / ax);
    z.r = std::min(x.r, ry);
    return z;
  };
  const auto single = [&](std::size_t k) {  // level 0, entry k: the step from m = k + 1
    const FloatExp zr = ref.zr[k + 1], zi = ref.zi[k + 1];
    return BlaEntry<FloatExp>{mul_pow2(zr, 1), mul_pow2(zi, 1), FloatExp(1.0), FloatExp(0.0), eps * hypot_fe(zr, zi)};
  };
  if (levels > kFirstBlaLevel) {
    static_assert(kFirstBlaLevel == 2, "level 2 is merged from four single steps");
    on_all_cores(t.level_offset[3] - t.level_offset[2], [&](std::size_t k) {
      all[t.level_offset[2] + k] =
          merge(merge(single(4 * k), single(4 * k + 1)), merge(single(4 * k + 2), single(4 * k + 3)));
    });
  }
  for (int l = kFirstBlaLevel + 1; l < levels; ++l) {
    const BlaEntry<FloatExp>* cur = all.data() + t.level_offset[l - 1];
    BlaEntry<FloatExp>* next = all.data() + t.level_offset[l];
    on_all_cores(t.level_offset[l + 1] - t.level_offset[l],
                 [&](std::size_t k) { next[k] = merge(cur[2 * k], cur[2 * k + 1]); });
  }
  if constexpr (sizeof(T) != sizeof(double)) {
    t.entries = std::move(all);
  } else {
    t.entries.resize(all.size());
    on_all_cores(all.size(), [&](std::size_t k) {
      const BlaEntry<FloatExp>& f = all[k];
      BlaEntry<T>& e = t.entries[k];
      e.ar = to_double(f.ar);
      e.ai = to_double(f.ai);
      e.br = to_double(f.br);
      e.bi = to_double(f.bi);
      // An entry whose coefficients leave double's range is never used (radius 0).
      const bool finite =
          std::isfinite(e.ar) && std::isfinite(e.ai) && std::isfinite(e.br) && std::isfinite(e.bi);
      e.r = finite ? to_double(f.r) : 0.0;
    });
  }
  return t;
}

template BlaTable<double> build_bla<double>(const Reference&, FloatExp);
template BlaTable<FloatExp> build_bla<FloatExp>(const Reference&, FloatExp);

}  // namespace ds::perturb
