// DwDelta: perturbation's double-word delta type, hi + lo in binary64's exponent range (106 bits,
// no exponent of its own): the first of the two tiers that re-decide the pixels binary64 deltas
// flagged (docs/perturbation/errors.md, "Undecided pixels"), where the view's deltas stay far inside
// binary64's range. It costs a fraction of floatexp2 (no renormalisation of an exponent after every
// operation, and the side quantities stay binary64), and it decides the same pixels whenever no
// delta falls below kDwDeltaFloor; a pixel whose delta does is flagged again and goes to floatexp2.
//
// The arithmetic is f64x2's (arith/expansion_dw.h: Joldes, Muller, Popescu 2017, Algorithms 4, 6,
// 9 and 12, tested against MPFR in tests/arith): a + b within 3u^2 |exact|, a * b within 4u^2,
// a * d within 2u^2 (u = 2^-53), for normalised pairs without underflow. kUnitRoundoff takes 5u^2,
// floatexp2's figure, so the two tiers share one error estimate. Comparisons are exact: a
// normalised pair (hi = RN(hi + lo)) orders as (hi, lo) lexicographically.
#pragma once
#include <cmath>

#include "arith/expansion.h"
#include "arith/floatexp.h"
#include "arith/floatexp2.h"
#include "arith/hd.h"

// The operations are inlined on the host too (GCC kept + and * as calls: a fifth of the tier's time).
#if defined(__CUDACC__) || !defined(__GNUC__)
#define DEEPSCOPE_DW DEEPSCOPE_HD
#else
#define DEEPSCOPE_DW inline __attribute__((always_inline))
#endif

namespace ds::perturb {

struct DwDelta {
  double hi, lo;

  static constexpr double kUnitRoundoff = FloatExp2::kUnitRoundoff;

  DwDelta() = default;
  DEEPSCOPE_HD explicit DwDelta(double d) : hi(d), lo(0.0) {}
  DEEPSCOPE_DW static DwDelta of(const Expansion<2>& x) {
    DwDelta r;
    r.hi = x.t[0];
    r.lo = x.t[1];
    return r;
  }
  DEEPSCOPE_DW Expansion<2> dw() const {
    Expansion<2> r;  // already normalised: no renormalisation
    r.t[0] = hi;
    r.t[1] = lo;
    return r;
  }
};

// Below this (L1 norm of a delta, or any nonzero reference point) the low word would lose bits to
// binary64's subnormal range (2^-1022 - 53 - a margin): the pixel is flagged for floatexp2.
constexpr double kDwDeltaFloor = 0x1p-900;
// Above this a coefficient or a radius is not held (a BLA entry with one is never used).
constexpr double kDwDeltaCeiling = 0x1p1000;

DEEPSCOPE_DW DwDelta operator+(DwDelta a, DwDelta b) { return DwDelta::of(a.dw() + b.dw()); }
DEEPSCOPE_DW DwDelta operator-(DwDelta a) {
  a.hi = -a.hi;
  a.lo = -a.lo;
  return a;
}
DEEPSCOPE_DW DwDelta operator-(DwDelta a, DwDelta b) { return a + (-b); }
DEEPSCOPE_DW DwDelta operator*(DwDelta a, DwDelta b) { return DwDelta::of(a.dw() * b.dw()); }
DEEPSCOPE_DW DwDelta operator*(DwDelta a, double d) { return DwDelta::of(a.dw() * d); }
DEEPSCOPE_DW DwDelta abs(DwDelta a) { return a.hi < 0 ? -a : a; }
DEEPSCOPE_DW DwDelta mul_pow2(DwDelta a, int k) {
  a.hi *= bits::pow2(k);
  a.lo *= bits::pow2(k);
  return a;
}
DEEPSCOPE_DW double to_double(DwDelta a) { return a.hi + a.lo; }
DEEPSCOPE_DW bool operator<(DwDelta a, DwDelta b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
DEEPSCOPE_DW bool operator>(DwDelta a, DwDelta b) { return b < a; }
DEEPSCOPE_DW bool operator<=(DwDelta a, DwDelta b) { return !(b < a); }
DEEPSCOPE_DW bool operator>=(DwDelta a, DwDelta b) { return !(a < b); }

// The value of x as a DwDelta, exactly, where both words stay normal (x = 0, or 2^-900 <= |x| and
// |x| < 2^1000); *ok false otherwise (the result is then RN to binary64, not to be used).
inline DwDelta dw_from(FloatExp2 x, bool* ok) {
  DwDelta r;
  if (x.hi == 0.0) {
    r.hi = r.lo = 0.0;
    return r;
  }
  if (x.e < -900 || x.e >= 1000) {
    *ok = false;
    r.hi = to_double(x);
    r.lo = 0.0;
    return r;
  }
  const double s = bits::pow2(x.e);  // exact: |e| < 1000
  r.hi = x.hi * s;
  r.lo = x.lo * s;
  return r;
}

}  // namespace ds::perturb
