// ds::Composite ("composite"): the "composite precision" float2 of the MD-drift thesis
// (shared/papers/composite-float2-md-drift.txt, Figures 5-8): a value word and an error word whose
// sum is the number, with the thesis's add, sub, mul and div kept exactly as published, so that the
// MD-drift workspace can compare them with the rigorous double-word format ds::FloatFloat.
//
// Properties of the published algorithms (they are not double-word algorithms in the JMP sense):
// - nothing renormalizes: after an add, |e| may exceed u|v|, or even |v| under cancellation;
// - mul drops the rounding error of v1*v2, and div ignores both error words and adds its Newton
//   correction twice (once into the value word, once as the error word), so mul and div are only
//   about as accurate as binary32: traits() therefore states 24 bits and eps = u = 2^-24.
// Bounds below are relative errors in u = 2^-24 for normalized operands (|e| <= u|v|, as
// from_string, from_double and the double constructor produce) and exact results in
// [min_abs, max_abs] = [2^-78, 2^127]. They are our derivations (first order in the rounding errors
// of each step, u^2 and u^3 terms bounded by enumerating the signs of all rounding errors), checked
// against MPFR in tests/arith/test_composite.cpp.
#pragma once
#include <cmath>
#include <string>

#include "decimal.h"
#include "eft.h"
#include "error.h"
#include "ff.h"
#include "hd.h"
#include "traits.h"

namespace ds {

struct Composite {
  float v;  // the thesis's x2.value (float2.x)
  float e;  // the thesis's x2.error (float2.y)

  Composite() = default;
  // Unchecked (for kernels): the same exact split as FloatFloat(double): v = RN(d), e = RN(d - v).
  DEEPSCOPE_HD explicit Composite(double d) : v(static_cast<float>(d)), e(0.0f) {
    e = static_cast<float>(d - static_cast<double>(v));
  }

  static constexpr bool kHasDivSqrt = true;
  // rel_cost: from flop counts (the published mul is 6 binary32 operations, one counted as 0.5 f64
  // multiply) until `deepscope bench arith` measures it.
  static constexpr FormatTraits traits() { return {"composite", 24, 0x1p-24, false, 0x1p127, 0x1p-78, 3.0}; }

  // Host only. Greedy nearest: v = RN(x), e = RN(x - v) of the exact decimal value x (normalized,
  // within u^2 |x| of x). Throws ArithError on malformed input or when |RN(x)| > max_abs.
  static Composite from_string(const std::string& s) {
    float w[2];
    decimal::to_expansion(s, w, 2);
    if (std::fabs(static_cast<double>(w[0])) > traits().max_abs)
      throw ArithError("composite: value \"" + s + "\" is out of range");
    Composite r;
    r.v = w[0];
    r.e = w[1];
    return r;
  }
  // Host only. Throws ArithError for NaN/Inf and |d| > max_abs; otherwise Composite(d).
  static Composite from_double(double d) {
    if (!std::isfinite(d)) throw ArithError("composite: value is not finite");
    if (std::fabs(d) > traits().max_abs) throw ArithError("composite: value out of range");
    return Composite(d);
  }
};

namespace composite_detail {

// The value as a normalized pair (hi = RN(v + e), lo exact): Knuth's 2Sum, exact for any words.
DEEPSCOPE_HD FloatFloat normalized(Composite x) {
  FloatFloat r;
  eft::two_sum(x.v, x.e, r.hi, r.lo);
  return r;
}

}  // namespace composite_detail

// Thesis Figure 6, as published: 2Sum of the value words, the error words added to its error term,
// no renormalization. With |e0| = |v1 + v2 - RN(v1 + v2)| <= u |v1 + v2| exact, the two remaining
// roundings give |err| <= u(2 + u)(|e0| + |e1|) + u |e2|; for normalized operands
// |err| <= (4u^2 + 7u^3)(|x| + |y|), i.e. relative <= 4u^2 + 7u^3 for operands of equal sign, while
// under cancellation the relative error is unbounded (the error words are summed in binary32).
DEEPSCOPE_HD Composite operator+(Composite x2, Composite y2) {
  Composite z2;
  float t;
  z2.v = x2.v + y2.v;
  t = z2.v - x2.v;
  z2.e = x2.v - (z2.v - t) + (y2.v - t) + x2.e + y2.e;
  return z2;
}
DEEPSCOPE_HD Composite operator-(Composite x) {
  Composite r;
  r.v = -x.v;
  r.e = -x.e;
  return r;
}
// Thesis: the addition with the signs of both words of y2 reversed. Same bound as +.
DEEPSCOPE_HD Composite operator-(Composite x2, Composite y2) { return x2 + (-y2); }

// Thesis Figure 7, as published: z.v = RN(v1 v2) keeps its rounding error out of z.e, so
// relative error <= u + 9u^2 (first order: u from v1 v2, 6u^2 from the three cross terms and
// their two sums; 8u^2 + O(u^3) after dividing by |x y| >= (1 - u)^2 |v1 v2|).
DEEPSCOPE_HD Composite operator*(Composite x2, Composite y2) {
  Composite z2;
  z2.v = x2.v * y2.v;
  z2.e = x2.v * y2.e + x2.e * y2.v + x2.e * y2.e;
  return z2;
}

// Thesis Figure 8, as published: t = RN(1/v2), s = RN(t v1), diff = v1 - RN(s v2) (exact by
// Sterbenz), then value s + t diff and error t diff, so the correction is counted twice, and e1,
// e2 are ignored. With d1..d5 the five roundings: result = (v1/v2)(1 - d1 - d2 - 2 d3 + d5 + O(u^2)),
// hence relative error <= 7u + 9u^2 including |e1| <= u|v1|, |e2| <= u|v2| (7u + 8u^2 + O(u^3) by
// enumerating the signs). Needs |v2| < 2^126 so that t is a normal float.
DEEPSCOPE_HD Composite operator/(Composite x2, Composite y2) {
  Composite z2;
  float t, s, diff;
  t = (1 / y2.v);
  s = t * x2.v;
  diff = x2.v - (s * y2.v);
  z2.v = s + t * diff;
  z2.e = t * diff;
  return z2;
}

// The "T op double" forms convert d with Composite(d) (exact when d fits in a pair), then apply the
// published operation: the bounds above, relative to v + e of Composite(d).
DEEPSCOPE_HD Composite operator+(Composite x, double d) { return x + Composite(d); }
DEEPSCOPE_HD Composite operator-(Composite x, double d) { return x - Composite(d); }
DEEPSCOPE_HD Composite operator*(Composite x, double d) { return x * Composite(d); }

// Not in the thesis (it has no square root): 2Sum-normalize, then FloatFloat's SQRTDWtoDW
// (LLMPR Algorithm 8): relative error <= 25/8 u^2 for any operand (normalized or not) >= min_abs.
DEEPSCOPE_HD Composite sqrt(Composite x) {
  FloatFloat r = sqrt(composite_detail::normalized(x));
  Composite z;
  z.v = r.hi;
  z.e = r.lo;
  return z;
}

DEEPSCOPE_HD Composite neg(Composite x) { return -x; }
// Exact; the sign is that of RN(v + e), which is the sign of v + e (a sum of floats rounds to 0
// only when it is 0), since e may outweigh v.
DEEPSCOPE_HD Composite abs(Composite x) { return x.v + x.e < 0.0f ? -x : x; }
// The published mul on (x, x): relative error <= u + 9u^2.
DEEPSCOPE_HD Composite sqr(Composite x) { return x * x; }
// Exact: both words times 2^k, barring overflow and underflow (no renormalization, as in the
// thesis's representation).
DEEPSCOPE_HD Composite mul_pow2(Composite x, int k) {
  Composite r;
  r.v = ff_detail::scale_pow2(x.v, k);
  r.e = ff_detail::scale_pow2(x.e, k);
  return r;
}
// RN_binary64(v + e): one rounding of the exact value.
DEEPSCOPE_HD double to_double(Composite x) { return static_cast<double>(x.v) + static_cast<double>(x.e); }

// Exact comparisons of the values v + e (not of the words): both sides 2Sum-normalized, then
// compared as FloatFloat.
DEEPSCOPE_HD bool operator<(Composite a, Composite b) {
  return composite_detail::normalized(a) < composite_detail::normalized(b);
}
DEEPSCOPE_HD bool operator>(Composite a, Composite b) { return b < a; }
DEEPSCOPE_HD bool operator<=(Composite a, Composite b) {
  return composite_detail::normalized(a) <= composite_detail::normalized(b);
}
DEEPSCOPE_HD bool operator>=(Composite a, Composite b) { return b <= a; }
DEEPSCOPE_HD bool operator==(Composite a, Composite b) {
  return composite_detail::normalized(a) == composite_detail::normalized(b);
}
DEEPSCOPE_HD bool operator!=(Composite a, Composite b) { return !(a == b); }

// Host only: the exact value v + e (sig_digits == 0) or rounded half-even to sig_digits digits.
inline std::string to_string(Composite x, int sig_digits = 0) {
  float w[2] = {x.v, x.e};
  return decimal::from_expansion(w, 2, sig_digits);
}

}  // namespace ds
