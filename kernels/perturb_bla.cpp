// BLA table construction (perturb_bla.h), in floatexp so that no coefficient overflows while
// merging, rounded to the delta type at the end.
#include "perturb_bla.h"

#include <algorithm>
#include <cmath>

#include "perturb.cuh"
#include "perturb.h"

namespace ds::mandel::perturb {
namespace {

FloatExp hypot_fe(FloatExp x, FloatExp y) { return sqrt(sqr(x) + sqr(y)); }
FloatExp max0(FloatExp x) { return x.m > 0 ? x : FloatExp(0.0); }

template <class T>
T from_fe(FloatExp x);
template <>
double from_fe<double>(FloatExp x) {
  return to_double(x);
}
template <>
FloatExp from_fe<FloatExp>(FloatExp x) {
  return x;
}

}  // namespace

template <class T>
BlaTable<T> build_bla(const Reference& ref, FloatExp dcmax) {
  BlaTable<T> t;
  t.dcmax = dcmax;
  const uint32_t len = ref.length();
  if (len < 3) return t;
  // Level 0: steps m -> m + 1 for m = 1 .. len - 2.
  struct Fe {
    FloatExp ar, ai, br, bi, r;
  };
  std::vector<Fe> cur(len - 2);
  const FloatExp eps(kBlaEpsilon);
  for (uint32_t k = 0; k + 2 < len; ++k) {
    const FloatExp zr = ref.zr[k + 1], zi = ref.zi[k + 1];
    cur[k] = {mul_pow2(zr, 1), mul_pow2(zi, 1), FloatExp(1.0), FloatExp(0.0), eps * hypot_fe(zr, zi)};
  }
  std::vector<Fe> all;
  all.reserve(2 * cur.size());
  t.level_offset[0] = 0;
  int level = 0;
  while (!cur.empty() && level < kMaxBlaLevels) {
    all.insert(all.end(), cur.begin(), cur.end());
    t.level_offset[level + 1] = static_cast<uint32_t>(all.size());
    ++level;
    std::vector<Fe> next(cur.size() / 2);
    for (size_t k = 0; k < next.size(); ++k) {
      const Fe& x = cur[2 * k];
      const Fe& y = cur[2 * k + 1];
      Fe z;
      z.ar = y.ar * x.ar - y.ai * x.ai;
      z.ai = y.ar * x.ai + y.ai * x.ar;
      z.br = (y.ar * x.br - y.ai * x.bi) + y.br;
      z.bi = (y.ar * x.bi + y.ai * x.br) + y.bi;
      const FloatExp ax = hypot_fe(x.ar, x.ai);
      FloatExp ry = x.r;
      if (ax.m != 0) ry = max0((y.r - hypot_fe(x.br, x.bi) * dcmax) / ax);
      z.r = std::min(x.r, ry);
      next[k] = z;
    }
    cur.swap(next);
  }
  t.levels = level;
  for (int l = level + 1; l <= kMaxBlaLevels; ++l) t.level_offset[l] = t.level_offset[level];
  t.entries.resize(all.size());
  for (size_t k = 0; k < all.size(); ++k) {
    const Fe& f = all[k];
    BlaEntry<T>& e = t.entries[k];
    e.ar = from_fe<T>(f.ar);
    e.ai = from_fe<T>(f.ai);
    e.br = from_fe<T>(f.br);
    e.bi = from_fe<T>(f.bi);
    // In double, an entry whose coefficients leave the range is never used (radius 0).
    bool finite = true;
    if constexpr (sizeof(T) == sizeof(double))
      finite = std::isfinite(as_double(e.ar)) && std::isfinite(as_double(e.ai)) &&
               std::isfinite(as_double(e.br)) && std::isfinite(as_double(e.bi));
    e.r = finite ? from_fe<T>(f.r) : from_fe<T>(FloatExp(0.0));
  }
  return t;
}

template BlaTable<double> build_bla<double>(const Reference&, FloatExp);
template BlaTable<FloatExp> build_bla<FloatExp>(const Reference&, FloatExp);

}  // namespace ds::mandel::perturb
