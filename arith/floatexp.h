// FloatExp (floatexp): a binary64 significand with a wide integer exponent, value = m * 2^e, for
// quantities far beyond double's exponent range (perturbation deltas past zoom 1e300,
// docs/perturbation.md). Same interface as every number type; not in DEEPSCOPE_FOR_EACH_ARITH
// (docs/arith.md: it carries 53 bits like f64, so direct rendering gains nothing from it).
//
// Representation: m = 0 and e = 0 for zero, else 1 <= |m| < 2 (a normal double with biased
// exponent 1023) and e an int32 with |e| < 2^30 (the valid range: |x| in (2^-2^30, 2^2^30)).
// Contract, u = 2^-53, for results and operands in the valid range:
//   a * b, sqr(a), a / b, sqrt(a), a * d:  correctly rounded (one rounding of the exact mantissa
//                                           operation, renormalisation exact);
//   a + b, a - b, a + d:  correctly rounded when the exponents differ by at most 60, else the
//                         larger operand is returned (|err| <= 2^-59 |exact| < u |exact|);
//   mul_pow2, neg, abs, comparisons: exact; to_double: RN, 0 or inf outside double's range.
// No overflow or underflow checks inside the valid range (as the other formats, "barring
// overflow"); NaN/Inf mantissas propagate unchanged.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "decimal.h"
#include "error.h"
#include "bits.h"
#include "hd.h"
#include "traits.h"

namespace ds {

namespace floatexp_detail {
using bits::bits_of;
using bits::from_bits;
constexpr uint64_t kExpMask = 0x7ffULL << 52;
}  // namespace floatexp_detail

struct FloatExp {
  double m;
  int32_t e;

  FloatExp() = default;
  // m * 2^e for any finite double m (renormalised); unchecked like the other formats' constructors.
  DEEPSCOPE_HD explicit FloatExp(double d) { *this = make(d, 0); }

  static constexpr bool kHasDivSqrt = true;
  static constexpr FormatTraits traits() {
    // max_abs / min_abs: the range is 2^(+-2^30), beyond double; infinity and 0 stand for it.
    // rel_cost: multiply cost relative to f64 as `deepscope bench perturb` reports it (8 chains on
    // one CPU thread, as bench arith: 4.75 and 5.93 in two runs on the development machine's EPYC).
    return {"floatexp", 53, 1.1102230246251565e-16, false, std::numeric_limits<double>::infinity(), 0.0, 5.5};
  }

  // The normalised value d * 2^k (d finite; subnormal d handled).
  DEEPSCOPE_HD static FloatExp make(double d, int64_t k) {
    using namespace floatexp_detail;
    FloatExp r;
    uint64_t b = bits_of(d);
    int be = static_cast<int>((b >> 52) & 0x7ff);
    if (be == 0) {
      if (d == 0) {
        r.m = 0;
        r.e = 0;
        return r;
      }
      d *= 18446744073709551616.0;  // 2^64: a subnormal becomes normal
      k -= 64;
      b = bits_of(d);
      be = static_cast<int>((b >> 52) & 0x7ff);
    }
    if (be == 0x7ff) {  // NaN or Inf: propagate
      r.m = d;
      r.e = 0;
      return r;
    }
    r.m = from_bits((b & ~kExpMask) | (1023ULL << 52));
    r.e = static_cast<int32_t>(k + be - 1023);
    return r;
  }

  // Host only. Rounds to nearest (53 bits). Throws ArithError on malformed input.
  static FloatExp from_string(const std::string& s) {
    double m = 0;
    long e = 0;
    decimal::to_wide_binary(s, &m, &e);
    FloatExp r;
    r.m = m;
    r.e = static_cast<int32_t>(e);
    return r;
  }
  // Host only. Throws ArithError for NaN/Inf.
  static FloatExp from_double(double d) {
    if (!std::isfinite(d)) throw ArithError("floatexp: value is not finite");
    return FloatExp(d);
  }
};

using floatexp = FloatExp;

// Multiply-type results have |m| in [1, 4): one conditional halving renormalises them.
DEEPSCOPE_HD FloatExp floatexp_from_product(double m, int32_t e) {
  FloatExp r;
  if (m == 0) {
    r.m = 0;
    r.e = 0;
    return r;
  }
  const bool big = m >= 2.0 || m <= -2.0;
  r.m = big ? m * 0.5 : m;
  r.e = big ? e + 1 : e;
  return r;
}

DEEPSCOPE_HD FloatExp operator*(FloatExp a, FloatExp b) {
  return floatexp_from_product(a.m * b.m, a.e + b.e);
}
DEEPSCOPE_HD FloatExp sqr(FloatExp a) { return floatexp_from_product(a.m * a.m, a.e + a.e); }
DEEPSCOPE_HD FloatExp operator*(FloatExp a, double d) { return a * FloatExp(d); }

DEEPSCOPE_HD FloatExp operator+(FloatExp a, FloatExp b) {
  if (a.m == 0) return b;
  if (b.m == 0) return a;
  const int32_t d = a.e - b.e;
  if (d >= 0) {
    if (d > 60) return a;
    return FloatExp::make(a.m + b.m * bits::pow2(-d), a.e);
  }
  if (d < -60) return b;
  return FloatExp::make(a.m * bits::pow2(d) + b.m, b.e);
}
DEEPSCOPE_HD FloatExp operator-(FloatExp a) {
  a.m = -a.m;
  return a;
}
DEEPSCOPE_HD FloatExp neg(FloatExp a) { return -a; }
DEEPSCOPE_HD FloatExp operator-(FloatExp a, FloatExp b) { return a + (-b); }
DEEPSCOPE_HD FloatExp operator+(FloatExp a, double d) { return a + FloatExp(d); }
DEEPSCOPE_HD FloatExp operator-(FloatExp a, double d) { return a + FloatExp(-d); }
DEEPSCOPE_HD FloatExp abs(FloatExp a) {
  a.m = a.m < 0 ? -a.m : a.m;
  return a;
}
DEEPSCOPE_HD FloatExp mul_pow2(FloatExp a, int k) {
  if (a.m != 0) a.e += k;
  return a;
}
DEEPSCOPE_HD FloatExp operator/(FloatExp a, FloatExp b) {
  // |a.m / b.m| in (1/2, 2): at most one doubling renormalises it (0 / b stays 0).
  const double q = a.m / b.m;
  FloatExp r;
  if (q == 0) {
    r.m = 0;
    r.e = 0;
    return r;
  }
  const bool small = q < 1.0 && q > -1.0;
  r.m = small ? q * 2.0 : q;
  r.e = small ? a.e - b.e - 1 : a.e - b.e;
  return r;
}
DEEPSCOPE_HD FloatExp sqrt(FloatExp a) {
  if (a.m == 0) return a;
  const bool odd = (a.e & 1) != 0;
  FloatExp r;
  r.m = std::sqrt(odd ? a.m * 2.0 : a.m);  // in [1, 2): exact doubling, one rounding
  r.e = (odd ? a.e - 1 : a.e) / 2;
  return r;
}
DEEPSCOPE_HD double to_double(FloatExp a) {
  if (a.m == 0) return 0.0;
  // |m| in [1, 2): within binary64's normal range the product with 2^e is exact (no library call:
  // ldexp cost the 106-bit tier a sixth of its time, where the error estimate reads floatexp).
  if (a.e >= -1022 && a.e <= 1023) return a.m * bits::pow2(a.e);
  if (a.e > 1100) return a.m * std::numeric_limits<double>::infinity();
  if (a.e < -1200) return a.m * 0.0;
  return std::ldexp(a.m, a.e);
}

// Three-way comparison of the values (canonical zeros; NaN compares as unordered only through m).
DEEPSCOPE_HD int floatexp_cmp(FloatExp a, FloatExp b) {
  const int sa = (a.m > 0) - (a.m < 0);
  const int sb = (b.m > 0) - (b.m < 0);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  if (a.e != b.e) return (a.e < b.e) == (sa > 0) ? -1 : 1;
  return a.m < b.m ? -1 : (a.m > b.m ? 1 : 0);
}
DEEPSCOPE_HD bool operator<(FloatExp a, FloatExp b) { return floatexp_cmp(a, b) < 0; }
DEEPSCOPE_HD bool operator>(FloatExp a, FloatExp b) { return floatexp_cmp(a, b) > 0; }
DEEPSCOPE_HD bool operator<=(FloatExp a, FloatExp b) { return floatexp_cmp(a, b) <= 0; }
DEEPSCOPE_HD bool operator>=(FloatExp a, FloatExp b) { return floatexp_cmp(a, b) >= 0; }
DEEPSCOPE_HD bool operator==(FloatExp a, FloatExp b) { return a.m == b.m && a.e == b.e; }
DEEPSCOPE_HD bool operator!=(FloatExp a, FloatExp b) { return !(a == b); }

// Host only: exact decimal (sig_digits == 0) or rounded to sig_digits significant digits.
inline std::string to_string(FloatExp a, int sig_digits = 0) {
  return decimal::from_wide_binary(a.m, a.e, sig_digits);
}

}  // namespace ds
