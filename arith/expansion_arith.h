// Expansion<N>: + and - (the Hénon-sinks paper's Algorithm 4), * and sqr (Algorithm 5), the fused
// y + s d + c and y + x^2 d + c with one renormalisation, and mul_pow2.
// Part of expansion.h, which includes it in order (not for inclusion on its own).
#pragma once

namespace ds {

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
  if constexpr (expansion_detail::kOneCarry<N>) {
    double s[N + 1];
    if (expansion_detail::mul_carry_terms(a, b, s)) return expansion_detail::renormalized<N>(s);
  }
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
  if constexpr (expansion_detail::kOneCarry<N>) {
    double s[N + 1];
    if (expansion_detail::square_carry_terms(a, s)) return expansion_detail::renormalized<N>(s);
  }
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
  if constexpr (expansion_detail::kOneCarry<N>) {
    double r[N + 1];
    if (expansion_detail::mul_double_carry_terms(a, d, r)) return expansion_detail::renormalized<N, true>(r);
  }
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
  if constexpr (expansion_detail::kOneCarry<N>) {
    double r[N + 1];
    if (expansion_detail::add_sqr_mul_carry_terms(y, x, d, c, r)) return expansion_detail::renormalized<N>(r);
  }
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

}  // namespace ds
