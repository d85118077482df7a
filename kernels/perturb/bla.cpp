// BLA table construction (kernels/perturb/bla.h), in floatexp (floatexp2 for the 106-bit tier) so that no
// coefficient overflows while merging, rounded to the delta type at the end.
#include "bla.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <type_traits>

#include "bla_levels.h"
#include "kernels/core/cpu_parallel.h"
#include "perturb.cuh"
#include "perturb.h"

namespace ds::perturb {
namespace {

FloatExp hypot_fe(FloatExp x, FloatExp y) { return sqrt(sqr(x) + sqr(y)); }
FloatExp max0(FloatExp x) { return x.m > 0 ? x : FloatExp(0.0); }
// The reference's point k in the builder's arithmetic U: 53 bits (FloatExp), 106 (FloatExp2) or 53 N
// (FloatExpN<N>, a wide orbit's).
template <class U>
void point(const Reference& ref, uint64_t k, U* re, U* im) {
  if constexpr (FloatExpNTerms<U>::value > 0) {
    *re = ref.re_wide<FloatExpNTerms<U>::value>(k);
    *im = ref.im_wide<FloatExpNTerms<U>::value>(k);
  } else if constexpr (std::is_same<U, FloatExp2>::value) {
    *re = ref.re106(k);
    *im = ref.im106(k);
  } else {
    *re = ref.re53(k);
    *im = ref.im53(k);
  }
}

// The suffix entries (bla.h) of a periodic or wrapped orbit, appended to `all`: at FractalShark's
// view 14 a pixel goes round the 116,694 points about 1,500 times, and took the path's 10 level
// steps and 2 plain steps each time; a suffix entry takes the path's steps from its point on in
// one (the merges that the levels would make, in the same order, so the same radius rule holds).
template <class T, class E, class Single, class Merge>
void append_suffix(uint64_t len, int first_level, BlaTable<T>& t, std::vector<E>* all, const Single& single,
                   const Merge& merge) {
  const uint64_t K = len - 2;
  first_level = std::max(first_level, kFirstBlaLevel);
  // The path's steps: (k, level) for K's set bits, highest first. Levels below the table's first
  // are merged from single steps here, as the table's first level is.
  std::vector<E> steps;
  uint64_t k = 0;
  for (int b = 63; b >= 0; --b) {
    if (!((K >> b) & 1)) continue;
    const std::size_t idx = static_cast<std::size_t>(k >> b);
    if (b >= first_level && b < t.levels)
      steps.push_back((*all)[t.level_offset[b] + idx]);
    else
      steps.push_back(bla_entry_from_singles<E>(idx, b, single, merge));
    k += uint64_t{1} << b;
  }
  // Suffix i = step i, then suffix i + 1 (the last one is the path's last step).
  std::vector<E> suffix(steps.size());
  for (std::size_t i = steps.size(); i-- > 0;)
    suffix[i] = i + 1 == steps.size() ? steps[i] : merge(steps[i], suffix[i + 1]);
  all->insert(all->end(), suffix.begin(), suffix.end());
  t.suffix = static_cast<int>(suffix.size());
}

// The period map (period_map.h) for |dc| <= dcmax, appended to t's entries. The pixels test |dc|
// and |t| in the L1 norm (up to sqrt(2) above the modulus): the map is built for 3/2 dcmax. For
// binary64 deltas only unscaled, and (binary64 and double words) only where the normalised
// variables' scales are in binary64's range.
template <class T>
void append_period_map(const Reference& ref, FloatExp dcmax, int scale, BlaTable<T>* t,
                       const std::atomic<bool>* cancel) {
  if (scale != 0) {
    t->pm.why = "scaled binary64 deltas";
    return;
  }
  // The first pass's tables take the map's binary64 domain, the double words' coarse table its
  // 2^-70 one, their fine table (eps below the coarse one's) its 2^-90 one.
  t->pm = build_period_map(ref, dcmax * FloatExp(1.5), cancel);
  t->pm_domain = std::is_same<T, DwDelta>::value ? (t->eps < kBlaEpsilonCoarse ? 2 : 1) : 0;
  if (t->pm.degree > 0 && t->pm.radius[t->pm_domain].m == 0) {
    t->pm.degree = 0;
    t->pm.why = t->pm_domain == 2 ? "no domain within the double words' 2^-90" : "no domain within the double words' 2^-70";
  }
  if (t->pm.degree == 0) return;
  const auto fits = [](FloatExp x) {
    const double d = to_double(x);
    return std::isnormal(d) && std::isnormal(1.0 / d);
  };
  if constexpr (std::is_same<T, double>::value || std::is_same<T, DwDelta>::value)
    if (!fits(t->pm.rt) || !fits(t->pm.rv) || !fits(t->pm.radius[t->pm_domain])) {
      t->pm.degree = 0;
      t->pm.why = "its scales are out of binary64's range";
      return;
    }
  // A long double in T: binary64 rounded, floatexp without underflow, the double word exactly.
  const auto in_t = [](long double x) {
    if constexpr (std::is_same<T, double>::value) {
      return static_cast<double>(x);
    } else if constexpr (std::is_same<T, DwDelta>::value) {
      return dw_from_ld(x);
    } else {
      return floatexp_from_ld(x);
    }
  };
  t->pm_offset = t->entries.size();
  for (std::size_t q = 0; q < t->pm.coef.size(); ++q) {
    const std::complex<long double>& c = t->pm.coef[q];
    BlaEntry<T> e{};
    if constexpr (std::is_same<T, DwDelta>::value) {  // the coefficients to 106 bits
      e.ar = t->pm.wide_re[q];
      e.ai = t->pm.wide_im[q];
    } else {
      e.ar = in_t(c.real());
      e.ai = in_t(c.imag());
    }
    e.br = e.bi = T(0.0);
    e.r = in_t(std::abs(c));  // |b_ij|, for the pixels' rounding estimate (perturb.cuh)
    t->entries.push_back(e);
  }
  // The domain's rungs (period_map.h), from its own down: radius in ar, bound in ai.
  const int w = t->pm_domain;
  for (std::size_t c = static_cast<std::size_t>(t->pm.first_rung[w]); c < t->pm.rung_radius.size(); ++c) {
    BlaEntry<T> e{};
    e.ar = from_fe<T>(t->pm.rung_radius[c]);  // exact: 53 bits in each T
    e.ai = from_fe<T>(t->pm.rung_error[c]);
    e.br = e.bi = e.r = T(0.0);
    t->entries.push_back(e);
  }
  t->pm_rungs = static_cast<int>(t->pm.rung_radius.size()) - t->pm.first_rung[w];
}

}  // namespace

template <class T>
BlaTable<T> build_bla(const Reference& ref, FloatExp dcmax, int first_level, int scale, double eps_in,
                      bool period_map, const std::atomic<bool>* cancel) {
  // The builder's arithmetic: floatexp (no coefficient overflows while merging), or floatexp2 for
  // the 106-bit tier's table, rounded to T at the end.
  constexpr bool kWide = std::is_same<T, FloatExp2>::value || std::is_same<T, DwDelta>::value;
  constexpr bool kWider = FloatExpNTerms<T>::value > 0;  // the wide tiers: in T itself
  using U = std::conditional_t<kWider, T, std::conditional_t<kWide, FloatExp2, FloatExp>>;
  BlaTable<T> t;
  t.dcmax = dcmax;
  t.eps = eps_in > 0 ? eps_in : bla_epsilon<T>();
  const uint64_t len = ref.length();
  if (len < 3) return t;
  const FloatExp eps(t.eps);
  // The coefficients' roundings a merge (bla.h, BlaEntry::ea, eb): three a part (2^-53 each in
  // floatexp, a few 2^-106 in floatexp2) and sqrt(2) from the parts to the modulus: 2 units of
  // 2^-52 (8 flagged KF's 5e227 at 128x128 1,029 pixels against 841, with the same counts). They
  // add linearly through the merges (a bound): in quadrature, one entry of 32,768 steps at the
  // campaign's seed 20032 (zoom 9.8e246) was 16 times off its bound and four pixels one off MPFR,
  // unflagged (test_campaign_findings.cpp); linearly, 5e227 at 128x128 flags 2,343.
  const FloatExp u(kWider ? roundoff<T>() * 2 : kWide ? 0x1p-104 : 0x1p-52);
  const auto merge = [&](const BlaEntry<U>& x, const BlaEntry<U>& y) {
    BlaEntry<U> z;
    z.ar = y.ar * x.ar - y.ai * x.ai;
    z.ai = y.ar * x.ai + y.ai * x.ar;
    z.br = (y.ar * x.br - y.ai * x.bi) + y.br;
    z.bi = (y.ar * x.bi + y.ai * x.br) + y.bi;
    // Radii are tolerances, computed in floatexp whatever the coefficients' arithmetic (53 bits of
    // a radius are as many as the 53-bit table's; the 106-bit table's are 2^-53 of those).
    const FloatExp ax = hypot_fe(aux(x.ar), aux(x.ai)), bx = hypot_fe(aux(x.br), aux(x.bi)), xr = aux(x.r);
    FloatExp ry = xr;
    if (ax.m != 0) ry = max0((aux(y.r) - bx * dcmax) / ax);
    z.r = from_fe<U>(std::min(xr, ry));
    // What the steps drop and the coefficients' roundings, both added linearly (bounds, in floatexp;
    // bla.h).
    const FloatExp ay = hypot_fe(aux(y.ar), aux(y.ai)), by = hypot_fe(aux(y.br), aux(y.bi)), say = sqrt(ay);
    z.ka = from_fe<U>(say * aux(x.ka) + aux(y.ka) * ax);
    z.kb = from_fe<U>(say * aux(x.kb) + aux(y.ka) * bx + aux(y.kb));
    z.ea = from_fe<U>(ay * aux(x.ea) + aux(y.ea) * ax + u * ay * ax);
    z.eb = from_fe<U>(ay * aux(x.eb) + aux(y.ea) * bx + aux(y.eb) + u * (ay * bx + by));
    return z;
  };
  const auto single = [&](std::size_t k) {  // level 0, entry k: the step from m = k + 1
    U zr, zi;
    point(ref, k + 1, &zr, &zi);
    return BlaEntry<U>{mul_pow2(zr, 1), mul_pow2(zi, 1), U(1.0), U(0.0),
                       from_fe<U>(eps * hypot_fe(aux(zr), aux(zi))), U(1.0), U(0.0), U(0.0), U(0.0)};
  };
  std::vector<BlaEntry<U>> all =
      build_bla_levels<BlaEntry<U>>(len, first_level, t.level_offset, &t.levels, single, merge);
  if (ref.wraps()) append_suffix(len, first_level, t, &all, single, merge);
  // Each entry rounded to T on all cores.
  auto on_all_cores = [](std::size_t n, auto&& body) {
    parallel_for(n, 4096, [&](std::size_t a, std::size_t b) {
      for (std::size_t k = a; k < b; ++k) body(k);
    });
  };
  if constexpr (std::is_same<T, DwDelta>::value) {
    // The double word holds the floatexp2 coefficients exactly within its range; an entry with one
    // outside it is never used (radius 0). Radii are tolerances: rounded down is safe.
    t.entries.resize(all.size());
    on_all_cores(all.size(), [&](std::size_t k) {
      const BlaEntry<FloatExp2>& f = all[k];
      BlaEntry<T>& e = t.entries[k];
      bool ok = true;
      e.ar = dw_from(f.ar, &ok);
      e.ai = dw_from(f.ai, &ok);
      e.br = dw_from(f.br, &ok);
      e.bi = dw_from(f.bi, &ok);
      const double ka = to_double(f.ka), kb = to_double(f.kb);
      // The double word holds A and B exactly (dw_from): no rounding added here.
      const double ea = to_double(f.ea), eb = to_double(f.eb);
      ok = ok && std::isfinite(ka) && std::isfinite(kb) && std::isfinite(ea) && std::isfinite(eb);
      e.ka = DwDelta(ka);
      e.kb = DwDelta(kb);
      e.ea = DwDelta(ea);
      e.eb = DwDelta(eb);
      const double r = to_double(f.r);
      e.r = DwDelta(ok ? std::min(r, kDwDeltaCeiling) : 0.0);
    });
  } else if constexpr (!std::is_same<T, double>::value) {
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
      e.ka = to_double(f.ka);
      e.kb = to_double(f.kb);
      // The merges' roundings and the last one, to double (half a unit of each part: |A| 2^-53).
      e.ea = to_double(f.ea) + std::hypot(e.ar, e.ai) * 0x1p-53;
      e.eb = to_double(f.eb) + std::hypot(e.br, e.bi) * 0x1p-53;
      // An entry whose coefficients leave double's range is never used (radius 0).
      const bool finite = std::isfinite(e.ar) && std::isfinite(e.ai) && std::isfinite(e.br) && std::isfinite(e.bi) &&
                          std::isfinite(e.ka) && std::isfinite(e.kb) && std::isfinite(e.ea) && std::isfinite(e.eb);
      e.r = finite ? to_double(mul_pow2(f.r, scale)) : 0.0;
    });
  }
  if constexpr (std::is_same<T, double>::value || std::is_same<T, DwDelta>::value) {
    std::atomic<bool> nested{true};
    for (int l = std::max(first_level, kFirstBlaLevel) + 1; l < t.levels; ++l) {
      const BlaEntry<T>* lower = t.entries.data() + t.level_offset[l - 1];
      const BlaEntry<T>* upper = t.entries.data() + t.level_offset[l];
      parallel_for(t.level_offset[l + 1] - t.level_offset[l], 4096, [&](std::size_t a, std::size_t b) {
        for (std::size_t k = a; k < b; ++k)
          if (!(upper[k].r <= lower[2 * k].r)) nested.store(false, std::memory_order_relaxed);
      });
    }
    t.radii_nested = nested.load();
  }
  if constexpr (!std::is_same<T, FloatExp2>::value && !kWider)
    if (period_map) append_period_map(ref, dcmax, scale, &t, cancel);
  return t;
}

int bla_first_level_within(uint64_t len, std::size_t entry, std::size_t bytes) {
  if (len < 3) return kFirstBlaLevel;
  std::size_t sizes[kMaxBlaLevels + 1] = {};
  const int levels = bla_level_sizes(len, sizes);
  std::size_t from = 0;  // entries of the levels >= l
  int best = kMaxBlaLevels + 1;
  for (int l = levels - 1; l >= kFirstBlaLevel; --l) {
    from += sizes[l];
    if (from * entry > bytes) break;
    best = l;
  }
  return best;
}

template BlaTable<double> build_bla<double>(const Reference&, FloatExp, int, int, double, bool,
                                            const std::atomic<bool>*);
template BlaTable<FloatExp> build_bla<FloatExp>(const Reference&, FloatExp, int, int, double, bool,
                                                const std::atomic<bool>*);
template BlaTable<FloatExp2> build_bla<FloatExp2>(const Reference&, FloatExp, int, int, double, bool,
                                                  const std::atomic<bool>*);
template BlaTable<FloatExpN<4>> build_bla<FloatExpN<4>>(const Reference&, FloatExp, int, int, double, bool,
                                                        const std::atomic<bool>*);
template BlaTable<FloatExpN<8>> build_bla<FloatExpN<8>>(const Reference&, FloatExp, int, int, double, bool,
                                                        const std::atomic<bool>*);
template BlaTable<DwDelta> build_bla<DwDelta>(const Reference&, FloatExp, int, int, double, bool,
                                              const std::atomic<bool>*);

}  // namespace ds::perturb
