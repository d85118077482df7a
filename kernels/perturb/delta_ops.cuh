// The delta types' small operations (double, floatexp, floatexp2, the double word): magnitudes,
// moduli, how errors add, the side type of the error estimate and conversions from floatexp, shared
// by the pixel loop (perturb.cuh) and the BLA tables (bla.cpp). Host + device.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "arith/floatexp.h"
#include "arith/floatexp2.h"
#include "arith/floatexpn.h"
#include "arith/hd.h"
#include "dw_delta.h"

namespace ds::perturb {

DEEPSCOPE_HD double as_double(double x) { return x; }
DEEPSCOPE_HD double as_double(FloatExp x) { return to_double(x); }
DEEPSCOPE_HD double as_double(FloatExp2 x) { return to_double(x); }
DEEPSCOPE_HD double as_double(DwDelta x) { return to_double(x); }
template <int N>
DEEPSCOPE_HD double as_double(const FloatExpN<N>& x) {
  return to_double(x);
}
DEEPSCOPE_HD double absval(double x) { return x < 0 ? -x : x; }
DEEPSCOPE_HD FloatExp absval(FloatExp x) { return abs(x); }
DEEPSCOPE_HD FloatExp2 absval(FloatExp2 x) { return abs(x); }
DEEPSCOPE_HD DwDelta absval(DwDelta x) { return abs(x); }
template <int N>
DEEPSCOPE_HD FloatExpN<N> absval(const FloatExpN<N>& x) {
  return abs(x);
}
DEEPSCOPE_HD double twice(double x) { return x + x; }
DEEPSCOPE_HD FloatExp twice(FloatExp x) { return mul_pow2(x, 1); }
DEEPSCOPE_HD FloatExp2 twice(FloatExp2 x) { return mul_pow2(x, 1); }
DEEPSCOPE_HD DwDelta twice(DwDelta x) { return mul_pow2(x, 1); }
template <int N>
DEEPSCOPE_HD FloatExpN<N> twice(const FloatExpN<N>& x) {
  return mul_pow2(x, 1);
}
// |x + iy| (the modulus), in T's range.
DEEPSCOPE_HD FloatExp modulus(FloatExp x, FloatExp y) { return sqrt(sqr(x) + sqr(y)); }
DEEPSCOPE_HD FloatExp2 modulus(FloatExp2 x, FloatExp2 y) { return sqrt(sqr(x) + sqr(y)); }
// For estimates only (BLA coefficients' moduli): floatexp's 53 bits are enough.
template <int N>
DEEPSCOPE_HD FloatExpN<N> modulus(const FloatExpN<N>& x, const FloatExpN<N>& y) {
  const FloatExp a = to_floatexp(x), b = to_floatexp(y);
  return FloatExpN<N>::of(sqrt(sqr(a) + sqr(b)));
}
// |x + iy| for double, overflow- and underflow-safe: the plain formula where the squares' sum is
// well inside binary64's range (bit for bit), else from the larger part (the error estimate's
// terms go below 2^-512 after an orbit's close approaches to 0, and long BLA steps' coefficients
// above 2^512 with scaled deltas: squares would flush them to 0 or infinity).
DEEPSCOPE_HD double safe_hypot_scaled(double x, double y) {  // safe_hypot past the plain formula's range
  const double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
  const double big = ax > ay ? ax : ay, small = ax > ay ? ay : ax;
  if (big == 0.0 || !(big < INFINITY)) return big;
  const double r = small / big;
  return big * ::sqrt(1.0 + r * r);
}
// Inlined on the host (GCC called it, a tenth of the 106-bit tier's time at FractalShark's view 25).
DEEPSCOPE_DW double safe_hypot(double x, double y) {
  const double m2 = x * x + y * y;
  if (m2 < 1e300 && m2 > 1e-300) return ::sqrt(m2);
  return safe_hypot_scaled(x, y);
}
DEEPSCOPE_HD double modulus(double x, double y) { return safe_hypot(x, y); }
// For the error estimate only (BLA coefficients' moduli): binary64 is enough.
DEEPSCOPE_HD DwDelta modulus(DwDelta x, DwDelta y) { return DwDelta(safe_hypot(to_double(x), to_double(y))); }
// sqrt(a^2 + b^2) for a, b >= 0: how independent errors add.
DEEPSCOPE_DW double quad(double a, double b) { return safe_hypot(a, b); }  // inlined on the host too
DEEPSCOPE_HD FloatExp quad(FloatExp a, FloatExp b) { return sqrt(sqr(a) + sqr(b)); }
DEEPSCOPE_HD FloatExp2 quad(FloatExp2 a, FloatExp2 b) { return sqrt(sqr(a) + sqr(b)); }
// The escape test's flag condition 16 e >= d, e = quad(a, b) * down (unscaled) for a, b >= 0, is
// false for certain where 256 (a^2 + b^2) (1 + 1e-13) + 256e-300 < (d / down)^2 in binary64, with
// inv_down = 1 / down (a power of two) and d > 1e-290. Why: hyp = quad(a, b) (either branch of
// safe_hypot) has hyp^2 <= (a^2 + b^2)(1 + 10u) plus at most 1e-322 lost to underflow in the
// squares, u = 2^-53; e <= hyp down (1 + u) unless e is subnormal, and then 16 e < 2^-1017 < d;
// the left side's own roundings and that of (d / down)^2 take less than 5u of the 1e-13 margin (an
// overflow to infinity on the right holds as well, on the left fails the test). So this never
// changes a decision; it skips the square root wherever |z|^2 is not within a few estimates of 4
// (every step but the last few of an escaping pixel).
DEEPSCOPE_HD bool clearly_below_threshold(double a, double b, double d, double inv_down) {
  const double s = a * a + b * b;
  const double big_d = d * inv_down;
  return d > 1e-290 && (s * (1.0 + 1e-13) + 1e-300) * 256.0 < big_d * big_d;
}
// A bound on |x + iy| >= its true value (the L1 norm): no squares, so no underflow in double.
// Inlined on the host (GCC called it for the double word: 8% of the tier's time at view 25).
template <class T>
DEEPSCOPE_DW T l1(T x, T y) {
  return absval(x) + absval(y);
}

// The type of the pixel's side quantities (the error estimate, the interior test's derivatives and
// closest approach): T itself for double and floatexp; floatexp for floatexp2, whose extra bits
// these estimates do not need (the pixel's z and dz keep all 106).
template <class T>
struct AuxOf {
  using type = T;
};
template <>
struct AuxOf<FloatExp2> {
  using type = FloatExp;
};
template <int N>
struct AuxOf<FloatExpN<N>> {
  using type = FloatExp;
};
template <>
struct AuxOf<DwDelta> {
  using type = double;
};
DEEPSCOPE_HD double aux(double x) { return x; }
DEEPSCOPE_HD double aux(DwDelta x) { return to_double(x); }
DEEPSCOPE_HD FloatExp aux(FloatExp x) { return x; }
DEEPSCOPE_HD FloatExp aux(FloatExp2 x) { return to_floatexp(x); }
template <int N>
DEEPSCOPE_HD FloatExp aux(const FloatExpN<N>& x) {
  return to_floatexp(x);
}
// A floatexp value in T (rounded to binary64 for T = double; exact for the others).
template <class T>
DEEPSCOPE_HD T from_fe(FloatExp x);
template <>
DEEPSCOPE_HD double from_fe<double>(FloatExp x) {
  return to_double(x);
}
template <>
DEEPSCOPE_HD FloatExp from_fe<FloatExp>(FloatExp x) {
  return x;
}
template <>
DEEPSCOPE_HD FloatExp2 from_fe<FloatExp2>(FloatExp x) {
  return FloatExp2::from_parts(x, 0.0);
}
template <>
DEEPSCOPE_HD FloatExpN<4> from_fe<FloatExpN<4>>(FloatExp x) {
  return FloatExpN<4>::of(x);
}
template <>
DEEPSCOPE_HD FloatExpN<8> from_fe<FloatExpN<8>>(FloatExp x) {
  return FloatExpN<8>::of(x);
}
template <>
DEEPSCOPE_HD DwDelta from_fe<DwDelta>(FloatExp x) {
  return DwDelta(to_double(x));
}

// The unit roundoff of the delta type's operations: 2^-53 for binary64 and floatexp, 2^(1-53N) for
// floatexp N (arith/floatexpn.h), 5 2^-106 for
// floatexp2 and the double word (their multiplication's bound, arith/floatexp2.h, dw_delta.h).
template <class T>
constexpr double roundoff() {
  if constexpr (FloatExpNTerms<T>::value > 0)
    return T::kUnitRoundoff;
  else
    return std::is_same<T, FloatExp2>::value || std::is_same<T, DwDelta>::value ? FloatExp2::kUnitRoundoff
                                                                                  : 1.1102230246251565e-16;
}

}  // namespace ds::perturb
