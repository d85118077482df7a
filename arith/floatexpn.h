// FloatExpN<N> (floatexp3 .. floatexp8): an N-term expansion significand with a wide integer
// exponent, value = (t_0 + ... + t_{N-1}) * 2^e: 53 N bits at any depth. Perturbation's wide tiers,
// for the pixels whose 106-bit deltas run out of bits on a long wrapping orbit (docs/perturbation.md,
// "Undecided pixels"). An internal delta type like FloatExp2, not a selectable arithmetic.
//
// Representation: zero is all terms 0, e = 0; otherwise 1 <= |t_0| < 2, the terms an Expansion<N>
// (arith/expansion.h: ulp-nonoverlapping, most significant first) and |e| < 2^30. The significand
// stays within [2^-430, 4] of 1 in every operation below (its lowest term above 2^-860), clear of
// binary64's underflow, so
// Expansion<N>'s bounds hold (eps = 2^-53N). Contract for results in the valid range:
//   a * b, sqr(a):  |err| <= (1 + 2^-14) eps |exact| (Expansion<N>'s, renormalisation exact);
//   a + b, a - b:   |err| <= (1 + 2^-30) eps |exact| + 2^-32 eps (|a| + |b|) when the exponents
//                   differ by at most 53 N + 3, else the larger operand (|err| < 2^-(53N+2) |exact|);
//   so every operation is within kUnitRoundoff = 2 eps of (|a| + |b|) or |a b|;
//   sqrt(a):        3 eps relative (Expansion<N>'s Newton; used for estimates);
//   mul_pow2, neg, abs, comparisons: exact; to_double: RN of t_0 (the terms below change it at
//   most by an ulp), 0 or inf outside range.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "bits.h"
#include "expansion.h"
#include "expansion_arith.h"
#include "expansion_newton.h"
#include "floatexp.h"
#include "floatexp2.h"
#include "hd.h"

namespace ds {

template <int N>
struct FloatExpN {
  static_assert(N >= 3 && N <= 8, "FloatExpN: 3 to 8 terms");
  Expansion<N> m;
  int32_t e;

  // 2 eps: the largest of the operations' bounds above, with the cancellation term.
  static constexpr double kUnitRoundoff = [] {
    double r = 2.0;
    for (int k = 0; k < 53 * N; ++k) r /= 2;
    return r;
  }();

  FloatExpN() = default;
  DEEPSCOPE_HD explicit FloatExpN(double d) {
    const FloatExp f = FloatExp::make(d, 0);
    m = Expansion<N>(f.m);
    e = f.m == 0 ? 0 : f.e;
  }
  // A FloatExp's value (exact).
  DEEPSCOPE_HD static FloatExpN of(FloatExp x) {
    FloatExpN r;
    r.m = Expansion<N>(x.m);
    r.e = x.e;
    return r;
  }
  // (head.m + lo + more[0] + ... + more[N-3]) 2^head.e from a point's head, tail and further terms
  // (not overlapping), through Expansion<N>'s sums (exact), normalised.
  DEEPSCOPE_HD static FloatExpN of_terms(FloatExp head, double lo, const double* more) {
    Expansion<N> s(head.m);
    s = s + lo;
    for (int i = 0; i < N - 2; ++i) s = s + more[i];
    return normalise(s, head.e);
  }
  // (hi + lo) * 2^k from a FloatExp2 (exact).
  DEEPSCOPE_HD static FloatExpN of(FloatExp2 x) {
    FloatExpN r;
    r.m = Expansion<N>(x.hi);
    r.m.t[1] = x.lo;
    r.e = x.e;
    return r;
  }
  // The value (t[0] + ... ) 2^k of a valid expansion (any scale within [2^-400, 2^400]).
  DEEPSCOPE_HD static FloatExpN normalise(const Expansion<N>& s, int64_t k) {
    FloatExpN r;
    if (s.t[0] == 0.0) {
      r.m = Expansion<N>(0.0);
      r.e = 0;
      return r;
    }
    const int be = static_cast<int>((bits::bits_of(s.t[0]) >> 52) & 0x7ff) - 1023;
    const double scale = bits::pow2(-be);  // exact: |be| < 1000
    for (int i = 0; i < N; ++i) r.m.t[i] = s.t[i] * scale;
    r.e = static_cast<int32_t>(k + be);
    return r;
  }
};
using FloatExp3 = FloatExpN<3>;

// Whether T is a FloatExpN, and its terms.
template <class T>
struct FloatExpNTerms {
  static constexpr int value = 0;
};
template <int N>
struct FloatExpNTerms<FloatExpN<N>> {
  static constexpr int value = N;
};

template <int N>
DEEPSCOPE_HD FloatExp to_floatexp(const FloatExpN<N>& a) {
  FloatExp r;
  r.m = a.m.t[0];
  r.e = a.e;
  return r;
}
// The nearest FloatExp2 (the first two terms: 106 bits).
template <int N>
DEEPSCOPE_HD FloatExp2 to_floatexp2(const FloatExpN<N>& a) {
  FloatExp2 r;
  r.hi = a.m.t[0];
  r.lo = a.m.t[1];
  r.e = a.e;
  return r;
}

template <int N>
DEEPSCOPE_HD FloatExpN<N> operator*(const FloatExpN<N>& a, const FloatExpN<N>& b) {
  if (a.m.t[0] == 0.0 || b.m.t[0] == 0.0) return FloatExpN<N>(0.0);
  return FloatExpN<N>::normalise(a.m * b.m, static_cast<int64_t>(a.e) + b.e);
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> sqr(const FloatExpN<N>& a) {
  if (a.m.t[0] == 0.0) return a;
  return FloatExpN<N>::normalise(sqr(a.m), static_cast<int64_t>(a.e) * 2);
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> operator*(const FloatExpN<N>& a, double d) {
  return a * FloatExpN<N>(d);
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> operator+(FloatExpN<N> a, FloatExpN<N> b) {
  if (a.m.t[0] == 0.0) return b;
  if (b.m.t[0] == 0.0) return a;
  if (a.e < b.e) {
    const FloatExpN<N> t = a;
    a = b;
    b = t;
  }
  const int32_t d = a.e - b.e;
  if (d > 53 * N + 3) return a;
  const double scale = bits::pow2(-d);  // b's terms stay above 2^-(53N + 56 + 53N): no underflow
  for (int i = 0; i < N; ++i) b.m.t[i] *= scale;
  return FloatExpN<N>::normalise(a.m + b.m, a.e);
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> operator-(FloatExpN<N> a) {
  for (int i = 0; i < N; ++i) a.m.t[i] = -a.m.t[i];
  return a;
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> neg(const FloatExpN<N>& a) {
  return -a;
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> operator-(const FloatExpN<N>& a, const FloatExpN<N>& b) {
  return a + (-b);
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> operator+(const FloatExpN<N>& a, double d) {
  return a + FloatExpN<N>(d);
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> operator-(const FloatExpN<N>& a, double d) {
  return a + FloatExpN<N>(-d);
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> abs(const FloatExpN<N>& a) {
  return a.m.t[0] < 0 ? -a : a;
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> mul_pow2(FloatExpN<N> a, int k) {
  if (a.m.t[0] != 0.0) a.e += k;
  return a;
}
template <int N>
DEEPSCOPE_HD FloatExpN<N> sqrt(const FloatExpN<N>& a) {
  if (a.m.t[0] <= 0.0) return FloatExpN<N>(a.m.t[0] < 0.0 ? std::numeric_limits<double>::quiet_NaN() : 0.0);
  const bool odd = (a.e & 1) != 0;
  Expansion<N> s = a.m;
  if (odd)
    for (int i = 0; i < N; ++i) s.t[i] *= 2.0;  // in [1, 4)
  return FloatExpN<N>::normalise(sqrt(s), (odd ? a.e - 1 : a.e) / 2);
}
template <int N>
DEEPSCOPE_HD double to_double(const FloatExpN<N>& a) {
  return to_double(to_floatexp(a));
}

// Three-way comparison of the values (exact).
template <int N>
DEEPSCOPE_HD int floatexpn_cmp(const FloatExpN<N>& a, const FloatExpN<N>& b) {
  const int sa = (a.m.t[0] > 0) - (a.m.t[0] < 0);
  const int sb = (b.m.t[0] > 0) - (b.m.t[0] < 0);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  if (a.e != b.e) return (a.e < b.e) == (sa > 0) ? -1 : 1;
  return a.m < b.m ? -1 : (b.m < a.m ? 1 : 0);
}
template <int N>
DEEPSCOPE_HD bool operator<(const FloatExpN<N>& a, const FloatExpN<N>& b) {
  return floatexpn_cmp(a, b) < 0;
}
template <int N>
DEEPSCOPE_HD bool operator>(const FloatExpN<N>& a, const FloatExpN<N>& b) {
  return floatexpn_cmp(a, b) > 0;
}
template <int N>
DEEPSCOPE_HD bool operator<=(const FloatExpN<N>& a, const FloatExpN<N>& b) {
  return floatexpn_cmp(a, b) <= 0;
}
template <int N>
DEEPSCOPE_HD bool operator>=(const FloatExpN<N>& a, const FloatExpN<N>& b) {
  return floatexpn_cmp(a, b) >= 0;
}

}  // namespace ds
