// The Hénon-sinks paper's Algorithms 4 (addition) and 5 (multiplication) for Expansion<N>: the
// operations of f64x1 (which f64x2's Newton iterations use); for N >= 3 the fast paths of
// expansion_fast.h replace them (same orders, one exact carry per order instead of O(n^2) pending
// errors). Error-free up to the last order; bounds in expansion.h and docs/arith/expansion.md.
// Included by expansion.h.
#pragma once

namespace ds {
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
DEEPSCOPE_HD Expansion<N> add_alg4(const Expansion<N>& a, const Expansion<N>& b) {
  double r[N + 1], e[N];
  eft::two_sum(a.t[0], b.t[0], r[0], e[0]);
  add_orders<N, 1>(a.t, b.t, r, e);
  double last = e[0];
  DEEPSCOPE_UNROLL
  for (int i = 1; i < N; ++i) last += e[i];
  r[N] = last;
  return renormalized<N>(r);
}

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

// r_0 = RN(a_0 b_0) and the orders above; r_N = plain products of order N + all pending errors.
template <int N>
DEEPSCOPE_HD Expansion<N> mul_alg5(const Expansion<N>& a, const Expansion<N>& b) {
  double r[N + 1], e[N * N];
  eft::two_prod(a.t[0], b.t[0], r[0], e[0]);
  mul_orders<N, 1>(a.t, b.t, r, e);
  double last = 0;
  DEEPSCOPE_UNROLL
  for (int i = 1; i < N; ++i) last += a.t[i] * b.t[N - i];
  DEEPSCOPE_UNROLL
  for (int j = 0; j < N * N; ++j) last += e[j];
  r[N] = last;
  return renormalized<N>(r);
}

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
template <int N>
DEEPSCOPE_HD Expansion<N> square_alg5(const Expansion<N>& a) {
  constexpr int kPending = sqr_errors(N);
  double r[N + 1], e[kPending];
  eft::two_prod(a.t[0], a.t[0], r[0], e[0]);
  sqr_orders<N, 1, kPending>(a.t, r, e);
  double last = 0;
  DEEPSCOPE_UNROLL
  for (int i = 1; 2 * i <= N; ++i) last += a.t[i] * (2 * i == N ? a.t[i] : 2 * a.t[N - i]);
  DEEPSCOPE_UNROLL
  for (int j = 0; j < kPending; ++j) last += e[j];
  r[N] = last;
  return renormalized<N>(r);
}

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
DEEPSCOPE_HD Expansion<N> mul_double_alg5(const Expansion<N>& a, double d) {
  double r[N + 1], e[N];
  eft::two_prod(a.t[0], d, r[0], e[0]);
  mul_double_orders<N, 1>(a.t, d, r, e);
  double last = e[0];
  DEEPSCOPE_UNROLL
  for (int j = 1; j < N; ++j) last += e[j];
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
}  // namespace ds
