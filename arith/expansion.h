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

namespace expansion_detail {

using bits::bits_of;
using bits::from_bits;
using bits::pow2;

// ulp(x) = weight of the last mantissa bit (2^-1074 for subnormals); 0 for x == 0, so that the
// only thing allowed to follow a zero term is zero.
DEEPSCOPE_HD double ulp_of(double x) {
  uint64_t e = (bits_of(x) >> 52) & 0x7ff;
  if (x == 0) return 0;
  if (e > 52) return from_bits((e - 52) << 52);
  return from_bits(e == 0 ? 1 : uint64_t(1) << (e - 1));
}


// One bottom-up VecSum over x[lo..M-1] (2Sum, so error-free for any inputs): x[lo] receives the
// rounded sum, x[i+1] the error of the step that added x[i]. lo is a runtime value; the terms
// above it are left alone. Selects instead of branches keep every index a compile-time constant.
template <int M>
DEEPSCOPE_HD void vecsum_from(double (&x)[M], int lo) {
  double s = x[M - 1];
  DEEPSCOPE_UNROLL
  for (int i = M - 2; i >= 0; --i) {
    double sum, err;
    eft::two_sum(x[i], s, sum, err);
    bool active = i >= lo;
    x[i + 1] = active ? err : x[i + 1];
    s = active ? sum : s;
  }
  DEEPSCOPE_UNROLL
  for (int i = 0; i < M; ++i) x[i] = i == lo ? s : x[i];
}

// Slow path of the renormalisation, for any M <= 17 doubles: for j = 0..K-1, repeat VecSum over
// x[j..M-1] until the remainder R_j = x[j+1] + ... + x[M-1] has sum|x[i]| <= (1/2 + 2^-40) ulp(x[j])
// (computed; the exact sum is at most 2^-47 larger). The leading term of R_j (x[j+1] once settled)
// is then <= (1/2 + 2^-39) ulp(x[j]) <= (1 + 2^-38) u |x[j]|, and so is the part dropped after
// x[K-1]. (The test is written 2 rest <= (1 + 2^-39) ulp: (1/2 + 2^-40) ulp would round up to a
// whole ulp when ulp(x[j]) = 2^-1074, letting x[j] = 2^-1074, x[j+1] = -2^-1074 through.)
// Termination: each pass is error-free, leaves an error <= ulp(x[j])/2 right below x[j] and
// shrinks the rest by a factor <= M u; all values are multiples of 2^-1074, so within ~45 passes
// either x[j] dominates (then two more passes meet the test) or everything below is exactly zero.
// The cap of 64 passes is never reached.
template <int M, int K>
DEEPSCOPE_HD void settle(double (&x)[M]) {
  DEEPSCOPE_NO_UNROLL
  for (int j = 0; j < K; ++j) {
    DEEPSCOPE_NO_UNROLL
    for (int pass = 0; pass < 64; ++pass) {
      double lead = 0, rest = 0;
      DEEPSCOPE_UNROLL
      for (int i = 0; i < M; ++i) {
        lead = i == j ? x[i] : lead;
        rest += i > j ? std::fabs(x[i]) : 0.0;
      }
      if (2 * rest <= (1 + 0x1p-39) * ulp_of(lead)) break;  // exact scaling: no subnormal rounding
      vecsum_from(x, j);
    }
  }
}

// The renormalisation's check |b| <= 2^-53 |a|. (Integer forms, on the exponent fields or with
// 2^-53 |a| built on the integer pipe, ran no faster on the H100: docs/bench/henon_twosum_probe.cu.)
DEEPSCOPE_HD bool below_2m53(double a, double b) { return std::fabs(b) <= std::fabs(a) * 0x1p-53; }

// Renormalises x[0..N] (any doubles; in practice the output of Algorithm 4 or 5) into N terms with
// |out[i+1]| <= (1 + 2^-38) u |out[i]| and <= ulp(out[i]). Error-free except for dropping the last
// term, |dropped| <= (1 + 2^-38) u |out[N-1]|.
//
// kLeadDominates: the caller guarantees |x[0]| >= |x[1] + ... + x[N]| (as computed), so the last
// step of the bottom-up pass is a Fast2Sum (the same s and error as 2Sum; a * d has it: x[0] =
// RN(a_0 d) and the rest is at most 3.1 u |x[0]|).
template <int N, bool kLeadDominates = false>
DEEPSCOPE_HD void renormalize(double (&x)[N + 1], double (&out)[N]) {
  constexpr int M = N + 1;
  double s = x[M - 1];
  DEEPSCOPE_UNROLL
  for (int i = M - 2; i >= 1; --i) {
    eft::two_sum(x[i], s, s, x[i + 1]);
  }
  if constexpr (kLeadDominates) {
    eft::fast_two_sum(x[0], s, s, x[1]);
  } else {
    eft::two_sum(x[0], s, s, x[1]);
  }
  x[0] = s;
  if constexpr (N >= 2) {
    // (x[0], x[1]) is already a rounded pair (x[0] = RN(x[0] + x[1])); the top-down pass starts
    // below it. Its last step is a plain sum: the dropped error is <= ulp/2 <= u |out[N-1]|.
    double c = x[1];
    DEEPSCOPE_UNROLL
    for (int i = 2; i < N; ++i) eft::two_sum(c, x[i], x[i - 1], c);
    double last = c + x[N];
    // |b| <= RN(2^-53 |a|) implies |b| <= ulp(a) (also when the product is subnormal or a is
    // zero); a 2Sum error is <= ulp/2 <= 2^-53 |sum|, so this fails only when lower terms pile
    // onto an error of almost half an ulp, or a cancellation left the terms unordered.
    bool ok = below_2m53(x[N - 2], last);
    DEEPSCOPE_UNROLL
    for (int i = 0; i + 2 < N; ++i) ok = ok & below_2m53(x[i], x[i + 1]);
    if (ok) {
      x[N - 1] = last;
    } else {
      eft::two_sum(c, x[N], x[N - 1], x[N]);  // the exact pair again, then the slow path
      settle<M, N>(x);
    }
  }
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) out[i] = x[i];
}

template <int N, bool kLeadDominates = false>
DEEPSCOPE_HD Expansion<N> renormalized(double (&x)[N + 1]) {
  Expansion<N> r;
  renormalize<N, kLeadDominates>(x, r.t);
  return r;
}

// Exact sign (-1, 0, 1) of x[0] + ... + x[M-1] for any doubles: VecSum passes until the leading
// term exceeds twice the (rounded) sum of the others' magnitudes. Same termination argument as
// settle(); typically one pass.
template <int M>
DEEPSCOPE_HD int exact_sign(double (&x)[M]) {
  DEEPSCOPE_NO_UNROLL
  for (int pass = 0; pass < 64; ++pass) {
    double rest = 0;
    DEEPSCOPE_UNROLL
    for (int i = 1; i < M; ++i) rest += std::fabs(x[i]);
    if (std::fabs(x[0]) > 2 * rest || rest == 0) break;
    vecsum_from(x, 0);
  }
  return (x[0] > 0) - (x[0] < 0);
}

// Compares a with b exactly: the sign of a_0 - b_0 + a_1 - b_1 + ...
template <int N>
DEEPSCOPE_HD int compare(const Expansion<N>& a, const Expansion<N>& b) {
  double x[2 * N];
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) {
    x[2 * i] = a.t[i];
    x[2 * i + 1] = -b.t[i];
  }
  return exact_sign(x);
}

// The first K terms of x (K < N), or x padded with zeros (K > N).
template <int K, int N>
DEEPSCOPE_HD Expansion<K> resize(const Expansion<N>& x) {
  Expansion<K> r;
  DEEPSCOPE_UNROLL
  for (int i = 0; i < K; ++i) r.t[i] = i < N ? x.t[i] : 0.0;
  return r;
}

}  // namespace expansion_detail

// ---- addition: Algorithm 4 ------------------------------------------------------------------

namespace expansion_detail {
// Order n of Algorithm 4 (n = 1..N-1), then the next order: (s_n, e_n) = 2Sum(a_n, b_n), VecSum of
// s_n with the pending errors e_0..e_{n-1} gives r_n. Orders are template arguments so that every
// array index is a compile-time constant (nvcc then keeps the arrays in registers).
template <int N, int n>
DEEPSCOPE_HD void add_orders(const double* a, const double* b, double (&r)[N + 1], double (&e)[N]) {
  if constexpr (n < N) {
    double acc, en;
    eft::two_sum(a[n], b[n], acc, en);
    DEEPSCOPE_UNROLL
    for (int i = 0; i < n; ++i) eft::two_sum(e[i], acc, acc, e[i]);
    r[n] = acc;
    e[n] = en;
    add_orders<N, n + 1>(a, b, r, e);
  }
}

// r_0..r_{N-1} come from 2Sums of same-order terms and VecSums of the pending errors (error-free);
// r_N is the rounded sum of the last N errors. Then renormalise.
template <int N>
DEEPSCOPE_HD Expansion<N> add(const Expansion<N>& a, const Expansion<N>& b) {
  double r[N + 1], e[N];
  eft::two_sum(a.t[0], b.t[0], r[0], e[0]);
  add_orders<N, 1>(a.t, b.t, r, e);
  double last = e[0];
  DEEPSCOPE_UNROLL
  for (int i = 1; i < N; ++i) last += e[i];
  r[N] = last;
  return renormalized<N>(r);
}

// Algorithm 4 with b = (d, 0, ..., 0), omitting the operations on zeros (they are exact no-ops):
// one pending error walks down the terms.
template <int N>
DEEPSCOPE_HD Expansion<N> add_double(const Expansion<N>& a, double d) {
  double r[N + 1], c;
  eft::two_sum(a.t[0], d, r[0], c);
  DEEPSCOPE_UNROLL
  for (int n = 1; n < N; ++n) eft::two_sum(c, a.t[n], r[n], c);
  r[N] = c;
  return renormalized<N>(r);
}
}  // namespace expansion_detail

template <int N>
DEEPSCOPE_HD Expansion<N> operator+(const Expansion<N>& a, const Expansion<N>& b) {
  return expansion_detail::add(a, b);
}
template <int N>
DEEPSCOPE_HD Expansion<N> operator+(const Expansion<N>& a, double d) {
  return expansion_detail::add_double(a, d);
}

template <int N>
DEEPSCOPE_HD Expansion<N> operator-(const Expansion<N>& a) {
  Expansion<N> r;
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) r.t[i] = -a.t[i];
  return r;
}
template <int N>
DEEPSCOPE_HD Expansion<N> neg(const Expansion<N>& a) {
  return -a;
}
template <int N>
DEEPSCOPE_HD Expansion<N> abs(const Expansion<N>& a) {
  return a.t[0] < 0 ? -a : a;
}
template <int N>
DEEPSCOPE_HD Expansion<N> operator-(const Expansion<N>& a, const Expansion<N>& b) {
  return a + (-b);
}
template <int N>
DEEPSCOPE_HD Expansion<N> operator-(const Expansion<N>& a, double d) {
  return a + (-d);
}

// ---- multiplication: Algorithm 5 ------------------------------------------------------------

namespace expansion_detail {
// Order n of Algorithm 5 (n = 1..N-1), then the next: the n+1 products a_i b_{n-i} by two_prod;
// VecSum of the products and the n^2 pending errors gives r_n, and its n^2 + n errors plus the
// n+1 product errors are pending for order n+1 ((n+1)^2 in all).
template <int N, int n>
DEEPSCOPE_HD void mul_orders(const double* a, const double* b, double (&r)[N + 1], double (&e)[N * N]) {
  if constexpr (n < N) {
    constexpr int old = n * n;
    double p[n + 1], pe[n + 1];
    DEEPSCOPE_UNROLL
    for (int i = 0; i <= n; ++i) eft::two_prod(a[i], b[n - i], p[i], pe[i]);
    double acc = p[0];
    DEEPSCOPE_UNROLL
    for (int i = 1; i <= n; ++i) eft::two_sum(p[i], acc, acc, p[i]);
    DEEPSCOPE_UNROLL
    for (int j = 0; j < old; ++j) eft::two_sum(e[j], acc, acc, e[j]);
    r[n] = acc;
    DEEPSCOPE_UNROLL
    for (int i = 1; i <= n; ++i) e[old + i - 1] = p[i];
    DEEPSCOPE_UNROLL
    for (int i = 0; i <= n; ++i) e[old + n + i] = pe[i];
    mul_orders<N, n + 1>(a, b, r, e);
  }
}
}  // namespace expansion_detail

// r_0 = RN(a_0 b_0) and the orders above; r_N = plain products of order N + all pending errors.
template <int N>
DEEPSCOPE_HD Expansion<N> operator*(const Expansion<N>& a, const Expansion<N>& b) {
  double r[N + 1], e[N * N];
  eft::two_prod(a.t[0], b.t[0], r[0], e[0]);
  expansion_detail::mul_orders<N, 1>(a.t, b.t, r, e);
  double last = 0;
  DEEPSCOPE_UNROLL
  for (int i = 1; i < N; ++i) last += a.t[i] * b.t[N - i];
  DEEPSCOPE_UNROLL
  for (int j = 0; j < N * N; ++j) last += e[j];
  r[N] = last;
  return expansion_detail::renormalized<N>(r);
}

namespace expansion_detail {
// Pending errors of sqr after order n-1: each order k adds (q - 1) VecSum errors and q product
// errors, q = k/2 + 1 distinct products.
DEEPSCOPE_HD constexpr int sqr_errors(int n) {
  int e = 1;
  for (int k = 1; k < n; ++k) e += 2 * (k / 2 + 1) - 1;
  return e;
}

template <int N, int n, int E>
DEEPSCOPE_HD void sqr_orders(const double* a, double (&r)[N + 1], double (&e)[E]) {
  if constexpr (n < N) {
    constexpr int old = sqr_errors(n), q = n / 2 + 1;
    double p[q], pe[q];
    DEEPSCOPE_UNROLL
    for (int i = 0; i < q; ++i) eft::two_prod(a[i], 2 * i == n ? a[i] : 2 * a[n - i], p[i], pe[i]);
    double acc = p[0];
    DEEPSCOPE_UNROLL
    for (int i = 1; i < q; ++i) eft::two_sum(p[i], acc, acc, p[i]);
    DEEPSCOPE_UNROLL
    for (int j = 0; j < old; ++j) eft::two_sum(e[j], acc, acc, e[j]);
    r[n] = acc;
    DEEPSCOPE_UNROLL
    for (int i = 1; i < q; ++i) e[old + i - 1] = p[i];
    DEEPSCOPE_UNROLL
    for (int i = 0; i < q; ++i) e[old + q - 1 + i] = pe[i];
    sqr_orders<N, n + 1, E>(a, r, e);
  }
}

// Algorithm 5 for a * a with the symmetric products merged: a_i a_{n-i} + a_{n-i} a_i is formed
// once as two_prod(a_i, 2 a_{n-i}) (doubling is exact), so order n has n/2 + 1 products and the
// pending error list stays about half as long. Same bound as *, not bit-identical to a * a.
// square_terms: the N + 1 terms before the renormalisation (r_N rounded, all others error-free).
template <int N>
DEEPSCOPE_HD void square_terms(const Expansion<N>& a, double (&r)[N + 1]) {
  constexpr int kPending = sqr_errors(N);
  double e[kPending];
  eft::two_prod(a.t[0], a.t[0], r[0], e[0]);
  sqr_orders<N, 1, kPending>(a.t, r, e);
  double last = 0;
  DEEPSCOPE_UNROLL
  for (int i = 1; 2 * i <= N; ++i) last = eft::fma_rn(a.t[i], 2 * i == N ? a.t[i] : 2 * a.t[N - i], last);
  DEEPSCOPE_UNROLL
  for (int j = 0; j < kPending; ++j) last += e[j];
  r[N] = last;
}
template <int N>
DEEPSCOPE_HD Expansion<N> square(const Expansion<N>& a) {
  double r[N + 1];
  square_terms(a, r);
  return renormalized<N>(r);
}
}  // namespace expansion_detail

template <int N>
DEEPSCOPE_HD Expansion<N> sqr(const Expansion<N>& a) {
  return expansion_detail::square(a);
}

namespace expansion_detail {
template <int N, int n>
DEEPSCOPE_HD void mul_double_orders(const double* a, double d, double (&r)[N + 1], double (&e)[N]) {
  if constexpr (n < N) {
    double acc, pe;
    eft::two_prod(a[n], d, acc, pe);
    DEEPSCOPE_UNROLL
    for (int j = 0; j < n; ++j) eft::two_sum(e[j], acc, acc, e[j]);
    r[n] = acc;
    e[n] = pe;
    mul_double_orders<N, n + 1>(a, d, r, e);
  }
}

// Algorithm 5 with b = (d, 0, ..., 0), omitting the exact no-ops on zeros: order n has the one
// product a_n d, and the pending list grows by one error per order.
template <int N>
DEEPSCOPE_HD Expansion<N> mul_double(const Expansion<N>& a, double d) {
  double r[N + 1], e[N];
  eft::two_prod(a.t[0], d, r[0], e[0]);
  mul_double_orders<N, 1>(a.t, d, r, e);
  double last = e[0];
  DEEPSCOPE_UNROLL
  for (int j = 1; j < N; ++j) last += e[j];
  r[N] = last;
  return renormalized<N, true>(r);
}
}  // namespace expansion_detail

template <int N>
DEEPSCOPE_HD Expansion<N> operator*(const Expansion<N>& a, double d) {
  return expansion_detail::mul_double(a, d);
}

// ---- y + s d + c in one pass ------------------------------------------------------------------

namespace expansion_detail {
// Order n (1..N-1) of add_mul: the order-n terms y_n, p_n = RN(s_n d) and q (the exact error of
// s_{n-1} d), then a VecSum with the 2n pending errors, which leaves 2n + 2 pending.
template <int N, int n>
DEEPSCOPE_HD void add_mul_orders(const double* y, const double* s, double d, double& q, double (&r)[N + 1],
                                 double (&e)[2 * N]) {
  if constexpr (n < N) {
    double p, qn, acc, e0, e1;
    eft::two_prod(s[n], d, p, qn);
    eft::two_sum(y[n], p, acc, e0);
    eft::two_sum(q, acc, acc, e1);
    DEEPSCOPE_UNROLL
    for (int i = 0; i < 2 * n; ++i) eft::two_sum(e[i], acc, acc, e[i]);
    r[n] = acc;
    e[2 * n] = e0;
    e[2 * n + 1] = e1;
    q = qn;
    add_mul_orders<N, n + 1>(y, s, d, q, r, e);
  }
}

// y + s d + c over S = N or N + 1 terms of s: orders 0..N-1 as above; r_N = q_{N-1} (+ s_N d,
// a plain product, when S = N + 1) + the 2N pending errors, rounded; then the renormalisation.
template <int N, int S>
DEEPSCOPE_HD Expansion<N> add_mul_terms(const Expansion<N>& y, const double (&s)[S], double d, double c) {
  static_assert(S == N || S == N + 1, "s has N or N + 1 terms");
  double r[N + 1], e[2 * N], p, q, acc;
  eft::two_prod(s[0], d, p, q);
  eft::two_sum(y.t[0], p, acc, e[0]);
  eft::two_sum(c, acc, r[0], e[1]);
  add_mul_orders<N, 1>(y.t, s, d, q, r, e);
  double last = q;
  if constexpr (S == N + 1) last = eft::fma_rn(s[N], d, last);
  DEEPSCOPE_UNROLL
  for (int i = 0; i < 2 * N; ++i) last += e[i];
  r[N] = last;
  return renormalized<N>(r);
}
}  // namespace expansion_detail

// y + s d + c with a single renormalisation (N >= 3): Algorithm 4 over the three expansions y,
// (p_0, ..., p_{N-1}) and (0, q_0, ..., q_{N-1}), where s_i d = p_i + q_i exactly (2ProdFMA), and c
// at order 0. Everything before r_N (q_{N-1} plus the 2N last pending errors, rounded) is
// error-free. Bound (docs/arith/expansion.md):
//   |err| <= (1 + 2^-30) eps |exact| + 2^-24 eps (|y| + |c| + 2 |s| |d|).
template <int N>
DEEPSCOPE_HD Expansion<N> add_mul(const Expansion<N>& y, const Expansion<N>& s, double d, double c) {
  static_assert(N >= 3, "add_mul follows Algorithm 4; f64x2 has the double-word operations");
  return expansion_detail::add_mul_terms<N, N>(y, s.t, d, c);
}

// y + x^2 d + c (the Hénon map's 1 + y - a x^2 with d = -a, c = 1) with one renormalisation
// (N >= 3): the N + 1 terms of Algorithm 5's square before its renormalisation go straight into
// add_mul's pass, so nothing is dropped between the two. Where sqr, * double, + double and - took
// four renormalisations and rounded four times, this takes one. Bound (docs/arith/expansion.md):
//   |err| <= (1 + 2^-30) eps |exact| + 2^-14 eps (|y| + |c| + 2 |x|^2 |d|).
template <int N>
DEEPSCOPE_HD Expansion<N> add_sqr_mul(const Expansion<N>& y, const Expansion<N>& x, double d, double c) {
  static_assert(N >= 3, "add_sqr_mul follows Algorithms 4 and 5; f64x2 has the double-word operations");
  double s[N + 1];
  expansion_detail::square_terms(x, s);
  return expansion_detail::add_mul_terms<N, N + 1>(y, s, d, c);
}

// Exact x * 2^k, barring overflow and underflow.
template <int N>
DEEPSCOPE_HD Expansion<N> mul_pow2(const Expansion<N>& a, int k) {
  using expansion_detail::pow2;
  Expansion<N> r = a;
  if (k >= -1022 && k <= 1023) {
    double f = pow2(k);
    DEEPSCOPE_UNROLL
    for (int i = 0; i < N; ++i) r.t[i] *= f;
    return r;
  }
  k = k < -3000 ? -3000 : k > 3000 ? 3000 : k;  // beyond, every finite term is 0 or inf anyway
  DEEPSCOPE_NO_UNROLL
  while (k != 0) {
    int step = k > 1023 ? 1023 : k < -1022 ? -1022 : k;
    double f = pow2(step);
    DEEPSCOPE_UNROLL
    for (int i = 0; i < N; ++i) r.t[i] *= f;
    k -= step;
  }
  return r;
}

// ---- division and square root: Newton in increasing precision ---------------------------------

namespace expansion_detail {

// 1/b for 1 <= b < 2: y_M ~ 1/b at M = ceil(N/2) terms (recursively; 1/b_0 at one term), then one
// Newton step y + y (1 - b y) at N terms: relative error d_N <= d_M^2 + 2.01 eps_N, where
// eps_M^2 = u^(2M) <= eps_N, so the error stays a modest multiple of eps_N (d_1 <= 3u).
template <int N>
DEEPSCOPE_HD Expansion<N> reciprocal(const Expansion<N>& b) {
  constexpr int M = (N + 1) / 2;
  if constexpr (M == 1) {
    double y = 1.0 / b.t[0];
    Expansion<N> e = -(b * y + (-1.0));  // 1 - b y
    return e * y + y;
  } else {
    Expansion<N> y = resize<N>(reciprocal<M>(resize<M>(b)));
    Expansion<N> e = -(b * y + (-1.0));
    return y + y * e;
  }
}

// 1/sqrt(b) for 1 <= b < 4, the same way: z + z (1 - b z^2) / 2, d_N <= 1.5 d_M^2 + O(eps_N).
template <int N>
DEEPSCOPE_HD Expansion<N> rsqrt(const Expansion<N>& b) {
  constexpr int M = (N + 1) / 2;
  if constexpr (M == 1) {
    double z = 1.0 / std::sqrt(b.t[0]);
    Expansion<N> e = -((b * z) * z + (-1.0));
    return e * (0.5 * z) + z;
  } else {
    Expansion<N> z = resize<N>(rsqrt<M>(resize<M>(b)));
    Expansion<N> e = -(b * sqr(z) + (-1.0));
    return z + mul_pow2(z * e, -1);
  }
}

// Exponent of the leading term (floor(log2|x|)), x finite and nonzero.
DEEPSCOPE_HD int exponent_of(double x) { return std::ilogb(x); }

}  // namespace expansion_detail

// a / b: operands scaled to [1, 2) by powers of two (exact), q = a y with y ~ 1/b, then one
// correction q + y (a - b q) (Karp-Markstein) so that y's error d_y enters only as d_y^2:
// |err| <= (product b q) + (final sum) + O(2^-30) ~ 2.0001 eps, stated as 3 eps. A zero or
// non-finite operand gives a_0 / b_0.
template <int N>
DEEPSCOPE_HD Expansion<N> operator/(const Expansion<N>& a, const Expansion<N>& b) {
  using namespace expansion_detail;
  if (b.t[0] == 0 || !std::isfinite(b.t[0]) || a.t[0] == 0 || !std::isfinite(a.t[0]))
    return Expansion<N>(a.t[0] / b.t[0]);
  int ka = exponent_of(a.t[0]), kb = exponent_of(b.t[0]);
  Expansion<N> as = mul_pow2(a, -ka), bs = mul_pow2(b, -kb);
  Expansion<N> y = reciprocal(bs);
  Expansion<N> q = as * y;
  Expansion<N> r = as - bs * q;
  q = q + y * r;
  return mul_pow2(q, ka - kb);
}

// sqrt(a): a scaled to [1, 4) by 2^(-2k), s = a z with z ~ 1/sqrt(a), then s + z (a - s^2) / 2:
// |err| <= (sqr s)/2 + (final sum) + O(2^-30) ~ 1.5 eps, stated as 3 eps. a == 0 gives 0,
// a < 0 or NaN gives NaN.
template <int N>
DEEPSCOPE_HD Expansion<N> sqrt(const Expansion<N>& a) {
  using namespace expansion_detail;
  if (!(a.t[0] > 0) || !std::isfinite(a.t[0])) return Expansion<N>(std::sqrt(a.t[0]));
  int e = exponent_of(a.t[0]);
  int k = (e >= 0 ? e : e - 1) / 2;  // floor(e / 2)
  Expansion<N> as = mul_pow2(a, -2 * k);
  Expansion<N> z = rsqrt(as);
  Expansion<N> s = as * z;
  Expansion<N> r = as - sqr(s);
  s = s + mul_pow2(z * r, -1);
  return mul_pow2(s, k);
}

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
