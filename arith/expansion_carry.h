// Expansion<N>: the one-carry-per-order passes behind a * b, sqr, x * d and y + x^2 d + c for N >= 4,
// with Algorithms 4 and 5 (expansion_arith.h) as the fallback.
// Part of expansion.h, which includes it in order (not for inclusion on its own).
//
// Algorithms 4 and 5 carry every 2Sum error of an order to the next one as a term of its own, so
// order n of a square has O(n^2) pending errors and the square costs O(N^3) 2Sums. Here the items
// of an order (its products, the previous order's product errors, and one carry) go through a
// single 2Sum chain, and the chain's K - 1 errors are added up by plain additions into ONE carry
// for the next order: O(N^2) 2Sums for the square, O(N) for y + s d + c and for x * d.
//
// Those plain additions are exact when the items lie on a common grid close to their size:
// lemma: if K items are integer multiples of 2^g and each is below 2^h in magnitude, then every
// partial sum of a 2Sum chain over them is a multiple of 2^g below K (1 + u)^K 2^h, each of the K - 1
// errors is a multiple of 2^g (RN of a multiple of 2^g is one, or exact) of magnitude at most u
// times its partial sum, so every partial sum of the errors is a multiple of 2^g below
// K (K - 1) (1 + u)^K 2^(h - 53). When h - g <= 105 - ceil(log2(K (K - 1))) that is below
// 2^(53 + g): a double, so each plain addition is exact, and the carry is again a multiple of 2^g.
// h and g come from the exponent fields (integer instructions, off the FP64 pipe): a double v is
// below 2^(E - 1022) and a multiple of 2^(E - 1075), E its biased exponent field (this holds for
// zero and subnormals too); the error of p = RN(a b) is at most ulp(p) / 2 < 2^(E_p - 1075) and a
// multiple of ulp(a) ulp(b) >= 2^(E_p - 1128) (2ProdFMA, barring underflow, as everywhere).
// Only the carries into orders 1 .. N-1 must be exact; the carry into order N joins the rounded
// last term. When a check fails (operands with a gap of about 40 bits or more between terms, a zero
// term, a result that underflows or overflows) the operation is redone by Algorithms 4 and 5, so the
// result is always within the stated bounds; in the Hénon orbits the checks pass on every step
// but the first few from an exact start point (zero terms).
//
// Both paths give N + 1 terms, all but the last error-free, and the same renormalisation, so they
// share the bounds of expansion.h. The last term's error here is smaller than Algorithm 5's: the
// derivation and its constants are in docs/arith/expansion.md ("One carry per order"). The two
// paths are not bit-identical (different summation order), and both are the same instructions on
// the host and the device.
#pragma once

namespace ds {
namespace expansion_detail {

// From f64x4 up (the Hénon step on the H100: f64x4 +7 %, f64x7 +41 %, f64x8 +50 %; at f64x3 the
// same speed, so it keeps Algorithms 4/5: docs/bench/henon.md). A build with
// -DDEEPSCOPE_ONE_CARRY_FROM=9 runs Algorithms 4/5 only (the bench's baseline).
#ifndef DEEPSCOPE_ONE_CARRY_FROM
#define DEEPSCOPE_ONE_CARRY_FROM 4
#endif
template <int N>
constexpr bool kOneCarry = N >= DEEPSCOPE_ONE_CARRY_FROM;

DEEPSCOPE_HD int exponent_field(double v) { return static_cast<int>(bits_of(v) >> 52) & 0x7ff; }

constexpr int ceil_log2(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

// The items of one order: each is below 2^hi in magnitude and an integer multiple of 2^lo.
struct Span {
  int hi = -2100, lo = 1 << 20;
  DEEPSCOPE_HD void term(double v) {
    const int e = exponent_field(v);
    hi = e - 1022 > hi ? e - 1022 : hi;
    lo = e - 1075 < lo ? e - 1075 : lo;
  }
  // The exact error of p = RN(a b).
  DEEPSCOPE_HD void product_error(double p) {
    const int e = exponent_field(p);
    hi = e - 1075 > hi ? e - 1075 : hi;
    lo = e - 1128 < lo ? e - 1128 : lo;
  }
  // A carry: the exact sum of the previous order's errors, all multiples of 2^carry_lo.
  DEEPSCOPE_HD void carry(double v, int carry_lo) {
    const int e = exponent_field(v);
    hi = e - 1022 > hi ? e - 1022 : hi;
    lo = carry_lo < lo ? carry_lo : lo;
  }
  // The lemma above for a chain of K items.
  template <int K>
  DEEPSCOPE_HD bool carry_exact() const {
    return hi - lo <= 105 - ceil_log2(K * (K - 1));
  }
};

// One order: a 2Sum chain over items[0..K-1] gives the order's term; its errors, added up, the
// carry.
template <int K>
DEEPSCOPE_HD double chain(const double (&items)[K], double& carry) {
  static_assert(K >= 2, "a chain has two items or more");
  double acc, t;
  eft::two_sum(items[0], items[1], acc, carry);
  DEEPSCOPE_UNROLL
  for (int k = 2; k < K; ++k) {
    eft::two_sum(acc, items[k], acc, t);
    carry += t;
  }
  return acc;
}

// ---- a b and x^2: order m has the products a_i b_{m-i} (for the square each symmetric pair once,
// as x_i (2 x_{m-i}), and x_i^2 when 2i = m; then a = x and b = 2x with b_0 = x_0), the errors of
// order m-1's products (C of them, pp: those products) and the carry (m >= 2).
template <bool kSquare>
constexpr int products_at(int m) {
  return kSquare ? m / 2 + 1 : m + 1;
}

template <int N, bool kSquare, int m, int C>
DEEPSCOPE_HD void product_carry_orders(const double* a, const double* b, double (&s)[N + 1],
                                       const double (&pe)[C], const double (&pp)[C], double carry,
                                       int carry_lo, bool& ok) {
  if constexpr (m < N) {
    constexpr int P = products_at<kSquare>(m), K = P + C + (m >= 2 ? 1 : 0);
    double items[K], p[P], e[P];
    DEEPSCOPE_UNROLL
    for (int i = 0; i < P; ++i) {
      eft::two_prod(a[i], kSquare && 2 * i == m ? a[i] : b[m - i], p[i], e[i]);
      items[i] = p[i];
    }
    DEEPSCOPE_UNROLL
    for (int j = 0; j < C; ++j) items[P + j] = pe[j];
    if constexpr (m >= 2) items[K - 1] = carry;
    Span span;
    if constexpr (m <= N - 2) {
      DEEPSCOPE_UNROLL
      for (int i = 0; i < P; ++i) span.term(p[i]);
      DEEPSCOPE_UNROLL
      for (int j = 0; j < C; ++j) span.product_error(pp[j]);
      if constexpr (m >= 2) span.carry(carry, carry_lo);
      ok = ok & span.carry_exact<K>();
    }
    double next;
    s[m] = chain(items, next);
    product_carry_orders<N, kSquare, m + 1, P>(a, b, s, e, p, next, span.lo, ok);
  } else {
    // Order N: plain products and sums (their rounding errors are of order N + 1).
    double last = carry;
    if constexpr (kSquare) {
      DEEPSCOPE_UNROLL
      for (int i = 1; 2 * i <= N; ++i) last = eft::fma_rn(a[i], 2 * i == N ? a[i] : b[N - i], last);
    } else {
      DEEPSCOPE_UNROLL
      for (int i = 1; i < N; ++i) last = eft::fma_rn(a[i], b[N - i], last);
    }
    DEEPSCOPE_UNROLL
    for (int j = 0; j < C; ++j) last += pe[j];
    s[N] = last;
  }
}

// a b as N + 1 terms (the last rounded); false if a carry could not be proved exact.
template <int N, bool kSquare>
DEEPSCOPE_HD bool product_carry_terms(const double* a, const double* b, double (&s)[N + 1]) {
  double pe[1];
  eft::two_prod(a[0], b[0], s[0], pe[0]);
  const double pp[1] = {s[0]};
  bool ok = true;
  product_carry_orders<N, kSquare, 1, 1>(a, b, s, pe, pp, 0.0, 0, ok);
  return ok;
}
template <int N>
DEEPSCOPE_HD bool mul_carry_terms(const Expansion<N>& a, const Expansion<N>& b, double (&s)[N + 1]) {
  return product_carry_terms<N, false>(a.t, b.t, s);
}
// x^2 as N + 1 terms; false if a carry could not be proved exact.
template <int N>
DEEPSCOPE_HD bool square_carry_terms(const Expansion<N>& a, double (&s)[N + 1]) {
  double x2[N];
  x2[0] = a.t[0];
  DEEPSCOPE_UNROLL
  for (int i = 1; i < N; ++i) x2[i] = a.t[i] + a.t[i];
  return product_carry_terms<N, true>(a.t, x2, s);
}

// ---- y + s d + c: order n has y_n, p_n = RN(s_n d), the error q_{n-1} of p_{n-1} and the carry
// (c at order 0 in its place).
template <int N, int n, int S>
DEEPSCOPE_HD void add_mul_carry_orders(const double* y, const double (&s)[S], double d, double p_prev,
                                       double q, double carry, int carry_lo, double (&r)[N + 1], bool& ok) {
  if constexpr (n < N) {
    double p, qn;
    eft::two_prod(s[n], d, p, qn);
    const double items[4] = {y[n], p, q, carry};
    Span span;
    if constexpr (n <= N - 2) {
      span.term(y[n]);
      span.term(p);
      span.product_error(p_prev);
      span.carry(carry, carry_lo);
      ok = ok & span.carry_exact<4>();
    }
    double next;
    r[n] = chain(items, next);
    add_mul_carry_orders<N, n + 1, S>(y, s, d, p, qn, next, span.lo, r, ok);
  } else {
    double last = q;
    if constexpr (S == N + 1) last = eft::fma_rn(s[N], d, last);
    r[N] = last + carry;
  }
}

// y + s d + c over S = N or N + 1 terms of s, as N + 1 terms; false if a carry is not proved exact.
template <int N, int S>
DEEPSCOPE_HD bool add_mul_carry_terms(const Expansion<N>& y, const double (&s)[S], double d, double c,
                                      double (&r)[N + 1]) {
  static_assert(S == N || S == N + 1, "s has N or N + 1 terms");
  double p, q, carry;
  eft::two_prod(s[0], d, p, q);
  const double items[3] = {y.t[0], p, c};
  Span span;
  span.term(y.t[0]);
  span.term(p);
  if (c != 0) span.term(c);  // a zero constrains nothing (y + x^2 d has none)
  bool ok = span.carry_exact<3>();
  r[0] = chain(items, carry);
  add_mul_carry_orders<N, 1, S>(y.t, s, d, p, q, carry, span.lo, r, ok);
  return ok;
}

// y + x^2 d + c as N + 1 terms: the square's terms straight into the pass above. The add pass runs
// even where the square's check already failed (the first steps of an orbit from 0): the caller
// redoes the operation either way, and an early return would put a branch into every step of the
// device's loop.
template <int N>
DEEPSCOPE_HD bool add_sqr_mul_carry_terms(const Expansion<N>& y, const Expansion<N>& x, double d, double c,
                                          double (&r)[N + 1]) {
  double s[N + 1];
  const bool ok = square_carry_terms(x, s);
  return add_mul_carry_terms<N, N + 1>(y, s, d, c, r) & ok;
}

// ---- x * d: order n has p_n = RN(x_n d), the error of p_{n-1} and the carry (n >= 2).
template <int N, int n>
DEEPSCOPE_HD void mul_double_carry_orders(const double* x, double d, double p_prev, double q, double carry,
                                          int carry_lo, double (&r)[N + 1], bool& ok) {
  if constexpr (n < N) {
    constexpr int K = n == 1 ? 2 : 3;  // order 1 has no carry yet
    double p, qn, next, items[K];
    eft::two_prod(x[n], d, p, qn);
    items[0] = p;
    items[1] = q;
    if constexpr (K == 3) items[2] = carry;
    Span span;
    if constexpr (n <= N - 2) {
      span.term(p);
      span.product_error(p_prev);
      if constexpr (K == 3) span.carry(carry, carry_lo);
      ok = ok & span.carry_exact<K>();
    }
    r[n] = chain(items, next);
    mul_double_carry_orders<N, n + 1>(x, d, p, qn, next, span.lo, r, ok);
  } else {
    r[N] = q + carry;
  }
}

// x * d as N + 1 terms; false if a carry is not proved exact.
template <int N>
DEEPSCOPE_HD bool mul_double_carry_terms(const Expansion<N>& x, double d, double (&r)[N + 1]) {
  double q;
  eft::two_prod(x.t[0], d, r[0], q);
  bool ok = true;
  mul_double_carry_orders<N, 1>(x.t, d, r[0], q, 0.0, 0, r, ok);
  return ok;
}

}  // namespace expansion_detail
}  // namespace ds
