// FloatExp2 (floatexp2): a double-word significand hi + lo with a wide integer exponent,
// value = (hi + lo) * 2^e: 106 bits at any depth. Perturbation's second tier, for the pixels whose
// escape binary64 and floatexp deltas cannot decide (docs/perturbation/errors.md, "Undecided pixels").
// An internal delta type like FloatExp, not a selectable arithmetic: no decimal input or output.
//
// Representation: zero is hi = lo = 0, e = 0; otherwise 1 <= |hi| < 2, hi = RN(hi + lo) (so
// |lo| <= 2^-53), and |e| < 2^30. Contract, with u = 2^-53, for results in the valid range:
//   a + b, a - b:  |err| <= 3u^2 |exact| (AccurateDWPlusDW: Joldes, Muller, Popescu, "Tight and
//                  rigorous error bounds for basic building blocks of double-word arithmetic",
//                  ACM TOMS 44(2), 2017, Algorithm 6), when the exponents differ by at most 107,
//                  else the larger operand (|err| < 2^-105 |exact|);
//   a * b, sqr(a): |err| <= 5u^2 |exact| (DWTimesDW with FMA, ibid., Algorithm 12), the largest
//                  of the bounds: kUnitRoundoff;
//   sqrt(a):       one Newton step from sqrt(hi): about 2^-100 relative (used for estimates);
//   mul_pow2, neg, abs, comparisons: exact; to_double: RN of hi + lo, 0 or inf outside range.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "bits.h"
#include "eft.h"
#include "floatexp.h"
#include "hd.h"
#include "traits.h"

namespace ds {

struct FloatExp2 {
  double hi, lo;
  int32_t e;

  // 5u^2, the proven bound of one multiplication (the largest of the operations').
  static constexpr double kUnitRoundoff = 5.0 * 1.1102230246251565e-16 * 1.1102230246251565e-16;

  FloatExp2() = default;
  DEEPSCOPE_HD explicit FloatExp2(double d) {
    const FloatExp f = FloatExp::make(d, 0);
    hi = f.m;
    lo = 0.0;
    e = f.e;
  }
  // (m + lo) * 2^k from a normalised FloatExp's significand m and a tail lo with |lo| <= 2^-53.
  DEEPSCOPE_HD static FloatExp2 from_parts(FloatExp m, double lo) {
    FloatExp2 r;
    if (m.m == 0) {
      r.hi = r.lo = 0.0;
      r.e = 0;
      return r;
    }
    return normalise(m.m, lo, m.e);
  }

  static constexpr FormatTraits traits() {
    // rel_cost 0: not measured (not one of bench arith's formats; bench perturb reports the tier).
    return {"floatexp2", 106, kUnitRoundoff, false, std::numeric_limits<double>::infinity(), 0.0, 0.0};
  }

  // (h + l) * 2^k for a double-word h + l (|l| <= ulp(h)) with 2^-900 < |h| < 2^900, or h = 0.
  DEEPSCOPE_HD static FloatExp2 normalise(double h, double l, int64_t k) {
    FloatExp2 r;
    double s, t;
    eft::fast_two_sum(h, l, s, t);
    if (s == 0.0) {
      r.hi = r.lo = 0.0;
      r.e = 0;
      return r;
    }
    const int be = static_cast<int>((bits::bits_of(s) >> 52) & 0x7ff) - 1023;
    const double scale = bits::pow2(-be);  // exact: |be| < 1000
    r.hi = s * scale;
    r.lo = t * scale;
    r.e = static_cast<int32_t>(k + be);
    return r;
  }
};

// The nearest FloatExp (53 bits).
DEEPSCOPE_HD FloatExp to_floatexp(FloatExp2 a) {
  FloatExp r;
  r.m = a.hi;
  r.e = a.e;
  return r;
}

DEEPSCOPE_HD FloatExp2 operator*(FloatExp2 a, FloatExp2 b) {
  double ch, cl;
  eft::two_prod(a.hi, b.hi, ch, cl);
  const double tl0 = a.lo * b.lo;
  const double tl1 = eft::fma_rn(a.hi, b.lo, tl0);
  const double cl2 = eft::fma_rn(a.lo, b.hi, tl1);
  cl += cl2;
  // |ch| in [1, 4): one conditional halving (exact) renormalises.
  double zh, zl;
  eft::fast_two_sum(ch, cl, zh, zl);
  FloatExp2 r;
  if (zh == 0.0) {
    r.hi = r.lo = 0.0;
    r.e = 0;
    return r;
  }
  const bool big = zh >= 2.0 || zh <= -2.0;
  r.hi = big ? zh * 0.5 : zh;
  r.lo = big ? zl * 0.5 : zl;
  r.e = big ? a.e + b.e + 1 : a.e + b.e;
  return r;
}
DEEPSCOPE_HD FloatExp2 sqr(FloatExp2 a) { return a * a; }
DEEPSCOPE_HD FloatExp2 operator*(FloatExp2 a, double d) { return a * FloatExp2(d); }

DEEPSCOPE_HD FloatExp2 operator+(FloatExp2 a, FloatExp2 b) {
  if (a.hi == 0.0) return b;
  if (b.hi == 0.0) return a;
  if (a.e < b.e) {
    const FloatExp2 t = a;
    a = b;
    b = t;
  }
  const int32_t d = a.e - b.e;
  if (d > 107) return a;
  const double scale = bits::pow2(-d);
  const double bh = b.hi * scale, bl = b.lo * scale;
  double sh, sl, th, tl;
  eft::two_sum(a.hi, bh, sh, sl);
  eft::two_sum(a.lo, bl, th, tl);
  sl += th;
  eft::fast_two_sum(sh, sl, sh, sl);
  sl += tl;
  return FloatExp2::normalise(sh, sl, a.e);
}
DEEPSCOPE_HD FloatExp2 operator-(FloatExp2 a) {
  a.hi = -a.hi;
  a.lo = -a.lo;
  return a;
}
DEEPSCOPE_HD FloatExp2 neg(FloatExp2 a) { return -a; }
DEEPSCOPE_HD FloatExp2 operator-(FloatExp2 a, FloatExp2 b) { return a + (-b); }
DEEPSCOPE_HD FloatExp2 operator+(FloatExp2 a, double d) { return a + FloatExp2(d); }
DEEPSCOPE_HD FloatExp2 operator-(FloatExp2 a, double d) { return a + FloatExp2(-d); }
DEEPSCOPE_HD FloatExp2 abs(FloatExp2 a) { return a.hi < 0 ? -a : a; }
DEEPSCOPE_HD FloatExp2 mul_pow2(FloatExp2 a, int k) {
  if (a.hi != 0.0) a.e += k;
  return a;
}
DEEPSCOPE_HD FloatExp2 sqrt(FloatExp2 a) {
  if (a.hi <= 0.0) return FloatExp2(a.hi < 0.0 ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  const bool odd = (a.e & 1) != 0;
  const double h = odd ? a.hi * 2.0 : a.hi, l = odd ? a.lo * 2.0 : a.lo;  // in [1, 4)
  const double q = std::sqrt(h);
  double p, pe;
  eft::two_prod(q, q, p, pe);
  const double r = ((h - p) - pe + l) / (2.0 * q);  // Newton: q + (x - q^2) / 2q
  return FloatExp2::normalise(q, r, (odd ? a.e - 1 : a.e) / 2);
}
DEEPSCOPE_HD double to_double(FloatExp2 a) {
  if (a.hi == 0.0) return 0.0;
  if (a.e >= -1022 && a.e <= 1022) return (a.hi + a.lo) * bits::pow2(a.e);  // exact scaling (to_double(FloatExp))
  if (a.e > 1100) return a.hi * std::numeric_limits<double>::infinity();
  if (a.e < -1200) return a.hi * 0.0;
  return std::ldexp(a.hi + a.lo, a.e);
}

// Three-way comparison of the values.
DEEPSCOPE_HD int floatexp2_cmp(FloatExp2 a, FloatExp2 b) {
  const int sa = (a.hi > 0) - (a.hi < 0);
  const int sb = (b.hi > 0) - (b.hi < 0);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  if (a.e != b.e) return (a.e < b.e) == (sa > 0) ? -1 : 1;
  if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
  return a.lo < b.lo ? -1 : (a.lo > b.lo ? 1 : 0);
}
DEEPSCOPE_HD bool operator<(FloatExp2 a, FloatExp2 b) { return floatexp2_cmp(a, b) < 0; }
DEEPSCOPE_HD bool operator>(FloatExp2 a, FloatExp2 b) { return floatexp2_cmp(a, b) > 0; }
DEEPSCOPE_HD bool operator<=(FloatExp2 a, FloatExp2 b) { return floatexp2_cmp(a, b) <= 0; }
DEEPSCOPE_HD bool operator>=(FloatExp2 a, FloatExp2 b) { return floatexp2_cmp(a, b) >= 0; }
DEEPSCOPE_HD bool operator==(FloatExp2 a, FloatExp2 b) { return a.hi == b.hi && a.lo == b.lo && a.e == b.e; }
DEEPSCOPE_HD bool operator!=(FloatExp2 a, FloatExp2 b) { return !(a == b); }

}  // namespace ds
