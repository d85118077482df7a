// Expansion<N> (f64x2 ... f64x8): a real number as the unevaluated sum of N binary64 terms, most
// significant first. + and * follow the Hénon-sinks paper (Algorithms 4 and 5) for N >= 3; f64x2 uses
// the double-word algorithms of expansion_dw.h (bounds stated there); / and sqrt use Newton.
//
// Invariant (every input the contracts below assume): the terms are ulp-nonoverlapping,
// |t[i+1]| <= ulp(t[i]), and a zero term is followed by zeros only; so |t[i]| <= (2u)^i |t[0]| with
// u = 2^-53, and sign(x) = sign(t[0]). Every result of an operation (and from_string, the double
// constructor) satisfies the stronger |t[i+1]| <= (1 + 2^-38) u |t[i]| as well (barring underflow).
//
// Unit: eps = traits().eps = u^N = 2^(-53N). Bounds, for results with |result| >= traits().min_abs
// and no overflow, valid for 3 <= N <= 8 (derivation: docs/arith/expansion.md; N = 2: expansion_dw.h):
//   a + b, a - b, a + d, a - d:  |err| <= (1 + 2^-30) eps |exact| + 2^-32 eps (|a| + |b|)
//       (the second term is the rounded sum of Algorithm 4's last error terms; it matters only when
//        the operands cancel by more than ~30 bits: then the bound is absolute, not relative)
//   a * b, sqr(a), a * d:        |err| <= (1 + 2^-14) eps |exact|
//   add_mul(y, s, d, c) = y + s d + c:
//                                |err| <= (1 + 2^-30) eps |exact| + 2^-24 eps (|y| + |c| + 2 |s| |d|)
//   add_sqr_mul(y, x, d, c) = y + x^2 d + c:
//                                |err| <= (1 + 2^-30) eps |exact| + 2^-14 eps (|y| + |c| + 2 x^2 |d|)
//   a / b, sqrt(a):              |err| <= 3 eps |exact|
//   mul_pow2, neg, abs, comparisons: exact (mul_pow2 barring overflow/underflow); to_double: RN.
// For N >= 4, a * b, sqr, x * d and add_sqr_mul first try one carry per order (expansion_carry.h:
// O(N^2) 2Sums instead of O(N^3), proved exact by integer checks at run time, Algorithms 4/5 where
// a check fails), with the same bounds.
// Near underflow (below min_abs the low terms lose bits) and for operands that are not valid
// expansions the bounds do not hold; sqr is not bit-identical to a * a (it sums fewer products).
//
// Renormalisation (after every + and *), of the N+1 terms r_0..r_N that Algorithms 4/5 produce:
// an error-free bottom-up VecSum with 2Sum, an error-free top-down 2Sum pass whose last step is a
// rounded sum (its error is the dropped term), then the check |t[i+1]| <= 2^-53 |t[i]|. Rare
// cancellation patterns fail the check and go to settle(), a slower, provably terminating loop
// (VecSum until each term dominates its remainder by half an ulp). Nothing is lost before the last
// term is dropped, so the truncation error is <= (1 + 2^-38) u |t[N-1]|.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "bits.h"
#include "decimal.h"
#include "eft.h"
#include "error.h"
#include "hd.h"
#include "traits.h"

namespace ds {

template <int N>
struct Expansion {
  static_assert(N >= 1 && N <= 8, "Expansion<N>: N must be 1..8 (f64x2..f64x8 are the formats)");
  double t[N];  // most significant first, ulp-nonoverlapping

  Expansion() = default;
  // Unchecked: NaN/Inf pass through (use from_double on untrusted input).
  DEEPSCOPE_HD explicit Expansion(double d) : t{} { t[0] = d; }

  static constexpr FormatTraits traits() {
    constexpr const char* kNames[] = {"",      "f64x1", "f64x2", "f64x3", "f64x4",
                                      "f64x5", "f64x6", "f64x7", "f64x8"};
    return {kNames[N],
            53 * N,
            pow2(-53 * N),
            false,
            std::numeric_limits<double>::max(),
            pow2(-1022 + 53 * N),
            static_cast<double>(mul_flops())};
  }
  static constexpr bool kHasDivSqrt = true;

  // Host only. Greedy nearest (t[i] = RN of what is left), so |t[i+1]| <= ulp(t[i]) / 2.
  // Throws ArithError on malformed input or overflow.
  static Expansion from_string(const std::string& s) {
    Expansion r;
    decimal::to_expansion(s, r.t, N);
    return r;
  }
  // Host only. Throws ArithError for NaN/Inf.
  static Expansion from_double(double d) {
    if (!std::isfinite(d)) throw ArithError(std::string(traits().name) + ": value is not finite");
    return Expansion(d);
  }

  // Flops of one a * b (two_prod = 2, 2Sum = 6, compare = 1) including the renormalisation's
  // fast path: the traits' rel_cost until `deepscope bench arith` measures it.
  static constexpr int mul_flops() {
    if (N == 2) return 9;  // DWTimesDW3 (expansion_dw.h)
    int two_prods = N * (N + 1) / 2, two_sums = 0;
    for (int n = 1; n < N; ++n) two_sums += n + n * n;
    int last = (N - 1) + (N - 1 + N * N);
    int renorm = N < 2 ? 6 : 6 * N + 6 * (N - 2) + 1 + 2 * (N - 1);
    return 2 * two_prods + 6 * two_sums + last + renorm;
  }

 private:
  static constexpr double pow2(int k) {
    double r = 1;
    for (; k > 0; --k) r *= 2;
    for (; k < 0; ++k) r /= 2;
    return r;
  }
};

}  // namespace ds

// In this order: each part uses the ones above it.
// clang-format off
#include "expansion_renorm.h"  // VecSum, renormalisation, exact sign and comparison
#include "expansion_carry.h"   // one carry per order: *, sqr, * d, y + x^2 d + c for N >= 4
#include "expansion_arith.h"   // + - * sqr, add_mul, add_sqr_mul, mul_pow2 (Algorithms 4 and 5)
#include "expansion_newton.h"  // / and sqrt
// clang-format on

namespace ds {

// ---- comparisons (exact, on the value) and conversions -----------------------------------------

template <int N>
DEEPSCOPE_HD bool operator<(const Expansion<N>& a, const Expansion<N>& b) {
  return expansion_detail::compare(a, b) < 0;
}
template <int N>
DEEPSCOPE_HD bool operator>(const Expansion<N>& a, const Expansion<N>& b) {
  return expansion_detail::compare(a, b) > 0;
}
template <int N>
DEEPSCOPE_HD bool operator<=(const Expansion<N>& a, const Expansion<N>& b) {
  return expansion_detail::compare(a, b) <= 0;
}
template <int N>
DEEPSCOPE_HD bool operator>=(const Expansion<N>& a, const Expansion<N>& b) {
  return expansion_detail::compare(a, b) >= 0;
}
template <int N>
DEEPSCOPE_HD bool operator==(const Expansion<N>& a, const Expansion<N>& b) {
  return expansion_detail::compare(a, b) == 0;
}
template <int N>
DEEPSCOPE_HD bool operator!=(const Expansion<N>& a, const Expansion<N>& b) {
  return expansion_detail::compare(a, b) != 0;
}

// RN(t_0 + t_1 + ...), correctly rounded: RN(t_0 + v) with v = RO(t_1 + t_2 + ...), the tail
// rounded to odd. The tail is < 1.01 ulp(t_0), so its own ulp is ~2^-52 of the spacing of the
// rounding boundaries around t_0; rounding to odd never lands on such a boundary unless the tail is
// exactly on it, hence RN(t_0 + v) = RN(x). RO: (h, l) = 2Sum(t_1, t_2), the rest l + t_3 + ... lies
// strictly between h and its neighbour on its side, so RO = h if the rest is 0 or h is odd, else
// that neighbour; the rest's sign comes from exact_sign. (When t_2 is subnormal the rest need not
// be that small, but then t_2 + t_3 + ... is exact and the rest is just the 2Sum error.)
template <int N>
DEEPSCOPE_HD double to_double(const Expansion<N>& a) {
  using namespace expansion_detail;
  if constexpr (N == 1) {
    return a.t[0];
  } else if constexpr (N == 2) {
    return a.t[0] + a.t[1];
  } else {
    double h, l;
    int sign;
    if (std::fabs(a.t[2]) < 0x1p-1022) {
      // t_2, t_3, ... are multiples of 2^-1074 whose sum stays below 2^-1021: summed exactly.
      double s = a.t[2];
      DEEPSCOPE_UNROLL
      for (int i = 3; i < N; ++i) s += a.t[i];
      eft::two_sum(a.t[1], s, h, l);
      sign = (l > 0) - (l < 0);
    } else {
      eft::two_sum(a.t[1], a.t[2], h, l);
      double rest[N - 2];
      rest[0] = l;
      DEEPSCOPE_UNROLL
      for (int i = 3; i < N; ++i) rest[i - 2] = a.t[i];
      sign = exact_sign(rest);
    }
    uint64_t hb = bits_of(h);
    if (sign != 0 && (hb & 1) == 0) {
      if (h == 0) {
        h = sign > 0 ? from_bits(1) : -from_bits(1);
      } else {
        bool away = (h > 0) == (sign > 0);  // the neighbour of larger magnitude
        h = from_bits(away ? hb + 1 : hb - 1);
      }
    }
    return a.t[0] + h;
  }
}

// Host only: exact decimal (sig_digits == 0) or rounded to sig_digits significant digits.
template <int N>
std::string to_string(const Expansion<N>& a, int sig_digits = 0) {
  return decimal::from_expansion(a.t, N, sig_digits);
}

}  // namespace ds

#include "expansion_dw.h"  // f64x2: the double-word algorithms
