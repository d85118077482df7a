// Fast paths of a + b, a * b, sqr(a) and a * d for Expansion<N>, 3 <= N <= 8: the same orders as
// the Hénon paper's Algorithms 4/5 (expansion_alg45.h), but each order's 2Sum errors are added up
// into ONE carry for the next order by plain additions, instead of staying pending one by one.
// Those additions are exact whenever the order's items sit on a common grid close enough to their
// size, which an integer check on the exponents proves at run time (below); when it cannot, or
// when the renormalisation's order checks fail, the operation is redone on its slow path (rare:
// operands with gaps of tens of bits between terms, cancellation of the leading terms).
// Algorithm 5 keeps O(n^2) pending errors at order n, so it costs O(N^3) flops; here order n has
// O(n) items: O(N^2) for * and sqr, O(N) for + and * double. Both paths are error-free up to the
// last order and then renormalise N+1 terms; the slow paths are exact up to the final truncation:
// both within the bounds of expansion.h (derivation: docs/arith/expansion.md). Included by
// expansion.h.
//
// The check. If the K items of an order are multiples of 2^g and |x| <= 2^h each, a 2Sum chain
// over them has partial sums below K (1+u)^K 2^h, so its K-1 errors are multiples of 2^g of
// magnitude <= u |partial sum|, and their sum is below K (K-1) (1+u)^K 2^(h-53): with
// h - g <= 105 - ceil(log2(K (K-1))) every partial sum of the errors is an integer multiple of 2^g
// below 2^(53+g), hence a double: the plain additions are exact, and the carry is again a multiple
// of 2^g. The exponents come from the bits (integer instructions, not the FP64 pipe): a product
// p = RN(x y) is a multiple of ulp(p) = 2^(e(p)-52) with |p| < 2^(e(p)+1); its error x y - p is a
// multiple of ulp(x) ulp(y) >= 2^(e(p)-106) with magnitude <= 2^(e(p)-53); an input term x is a
// multiple of 2^(e(x)-52); zero items constrain nothing. (Subnormals count as exponent -1023,
// which only makes the check stricter; below min_abs the bounds do not hold anyway.)
#pragma once

namespace ds {
namespace expansion_detail {

// 2^e <= |x| < 2^(e+1) for normal x; -1023 for zero and subnormals.
DEEPSCOPE_HD int exp_of(double x) { return static_cast<int>((bits_of(x) >> 52) & 0x7ff) - 1023; }
DEEPSCOPE_HD bool is_zero(double x) { return (bits_of(x) << 1) == 0; }
DEEPSCOPE_HD int imax(int a, int b) { return a > b ? a : b; }
DEEPSCOPE_HD int imin(int a, int b) { return a < b ? a : b; }

constexpr int kFree = 1 << 20;  // the grid exponent of a zero item: it constrains nothing

// ceil(log2(K (K - 1))), K >= 2.
constexpr int pair_log(int k) {
  int v = k * (k - 1), l = 0;
  while ((1 << l) < v) ++l;
  return l;
}
// The lemma above, for an order of K items with |x| <= 2^hi, all multiples of 2^grid.
template <int K>
DEEPSCOPE_HD bool carries_exact(int hi, int grid) {
  return hi - grid <= 105 - pair_log(K);
}

// Grid exponent of an input term.
DEEPSCOPE_HD int term_grid(double x) { return is_zero(x) ? kFree : exp_of(x) - 52; }

// |x| as an integer: magnitudes compare as these do.
DEEPSCOPE_HD uint64_t mag(double x) { return bits_of(x) & ~(uint64_t(1) << 63); }
// |b| <= 2^-53 |a| exactly (for |a| > 2^-970; below, only b == 0 passes): then |b| <= ulp(a).
DEEPSCOPE_HD bool below(double b, double a) {
  constexpr uint64_t k53 = uint64_t(53) << 52;
  return mag(b) == 0 || (mag(a) > k53 && mag(b) <= mag(a) - k53);
}

// The renormalisation of expansion.h (bottom-up VecSum, top-down pass, invariant check) with
// Fast2Sum (3 flops) in place of 2Sum (6): error-free as long as the first operand of each Fast2Sum
// is the larger in magnitude, which an integer compare checks. Returns false if an order or the
// invariant |out[i+1]| <= 2^-53 |out[i]| failed (cancellation, zeros in the middle, rare carries);
// the caller then redoes the operation on its slow path. Dropped: the last rounding error,
// <= ulp(out[N-1]) / 2.
template <int N>
DEEPSCOPE_HD bool renorm_fast(const double (&r)[N + 1], double (&out)[N]) {
  double y[N + 1];
  double s = r[N];
  bool ok = true;
  DEEPSCOPE_UNROLL
  for (int i = N - 1; i >= 0; --i) {
    ok = ok & (mag(r[i]) >= mag(s));
    eft::fast_two_sum(r[i], s, s, y[i + 1]);
  }
  y[0] = s;
  double c = y[1];
  DEEPSCOPE_UNROLL
  for (int i = 2; i < N; ++i) {
    ok = ok & (mag(c) >= mag(y[i]));
    eft::fast_two_sum(c, y[i], y[i - 1], c);
  }
  y[N - 1] = c + y[N];
  DEEPSCOPE_UNROLL
  for (int i = 0; i + 1 < N; ++i) ok = ok & below(y[i + 1], y[i]);
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) out[i] = y[i];
  return ok;
}

// The slow paths: the exact value as a list of M doubles (every product with its 2ProdFMA error,
// or the terms of a sum) in local memory, renormalised by settle_local: for j = 0..N-1, VecSum
// over x[j..M-1] until the computed sum |x[j+1]| + ... + |x[M-1]| <= (1/2 + 2^-40) ulp(x[j]). This
// is settle() of expansion.h with loops instead of unrolled code (few registers: on the GPU the
// calling kernel's register count is at least its callees'); the same termination argument holds
// for M <= 2 * 8^2 (each pass shrinks the remainder by M u <= 2^-46, and the computed sum of |x|
// is at most (M - 1) u <= 2^-46 relatively below the exact one), and so does the result:
// |t[i+1]| <= (1 + 2^-38) u |t[i]|, nothing lost but the remainder after t[N-1], which is
// <= (1/2 + 2^-39) ulp(t[N-1]). Error <= (1 + 2^-33) eps |exact| for every operation.
template <int M, int N>
DEEPSCOPE_HD Expansion<N> settle_local(double* x) {
  DEEPSCOPE_NO_UNROLL
  for (int j = 0; j < N; ++j) {
    DEEPSCOPE_NO_UNROLL
    for (int pass = 0; pass < 64; ++pass) {
      double rest = 0;
      DEEPSCOPE_NO_UNROLL
      for (int i = j + 1; i < M; ++i) rest += std::fabs(x[i]);
      if (2 * rest <= (1 + 0x1p-39) * ulp_of(x[j])) break;  // exact scaling: no subnormal rounding
      double s = x[M - 1];
      DEEPSCOPE_NO_UNROLL
      for (int i = M - 2; i >= j; --i) eft::two_sum(x[i], s, s, x[i + 1]);
      x[j] = s;
    }
  }
  Expansion<N> r;
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) r.t[i] = x[i];
  return r;
}

template <int N>
DEEPSCOPE_EXPANSION_SLOW Expansion<N> add_slow(const Expansion<N>& a, const Expansion<N>& b) {
  double x[2 * N];
  DEEPSCOPE_NO_UNROLL
  for (int i = 0; i < N; ++i) {
    x[2 * i] = a.t[i];
    x[2 * i + 1] = b.t[i];
  }
  return settle_local<2 * N, N>(x);
}
template <int N>
DEEPSCOPE_EXPANSION_SLOW Expansion<N> add_double_slow(const Expansion<N>& a, double d) {
  double x[N + 1];
  x[0] = d;
  DEEPSCOPE_NO_UNROLL
  for (int i = 0; i < N; ++i) x[i + 1] = a.t[i];
  return settle_local<N + 1, N>(x);
}
template <int N>
DEEPSCOPE_EXPANSION_SLOW Expansion<N> mul_slow(const Expansion<N>& a, const Expansion<N>& b) {
  double x[2 * N * N];
  DEEPSCOPE_NO_UNROLL
  for (int k = 0; k < N * N; ++k) eft::two_prod(a.t[k / N], b.t[k % N], x[2 * k], x[2 * k + 1]);
  return settle_local<2 * N * N, N>(x);
}
template <int N>
DEEPSCOPE_EXPANSION_SLOW Expansion<N> sqr_slow(const Expansion<N>& a) {
  return mul_slow(a, a);
}
template <int N>
DEEPSCOPE_EXPANSION_SLOW Expansion<N> mul_double_slow(const Expansion<N>& a, double d) {
  double x[2 * N];
  DEEPSCOPE_NO_UNROLL
  for (int i = 0; i < N; ++i) eft::two_prod(a.t[i], d, x[2 * i], x[2 * i + 1]);
  return settle_local<2 * N, N>(x);
}

// ---- a + b: order n has a_n, b_n and the carry; r_n = (a_n + b_n) + c_n, c_{n+1} = both errors.
// Returns false if a carry that must be exact (orders 1 .. N-2) could not be proved so.
template <int N>
DEEPSCOPE_HD bool add_fast_terms(const double* a, const double* b, double (&r)[N + 1]) {
  double c;
  eft::two_sum(a[0], b[0], r[0], c);
  int grid = imin(term_grid(a[0]), term_grid(b[0]));
  bool ok = true;
  DEEPSCOPE_UNROLL
  for (int n = 1; n < N; ++n) {
    double s, e, t;
    eft::two_sum(a[n], b[n], s, e);
    eft::two_sum(s, c, r[n], t);
    if (n <= N - 2) {
      int hi = imax(imax(exp_of(a[n]), exp_of(b[n])), exp_of(c)) + 1;
      grid = imin(imin(term_grid(a[n]), term_grid(b[n])), grid);
      ok = ok & carries_exact<3>(hi, grid);
    }
    c = e + t;
  }
  r[N] = c;
  return ok;
}

template <int N>
DEEPSCOPE_HD Expansion<N> add_fast(const Expansion<N>& a, const Expansion<N>& b) {
  if constexpr (N < 3) {
    return add_alg4(a, b);
  } else {
    double r[N + 1];
    Expansion<N> out;
    if (!(add_fast_terms<N>(a.t, b.t, r) & renorm_fast<N>(r, out.t))) return add_slow(a, b);
    return out;
  }
}

// ---- a + d: Algorithm 4 with b = (d, 0, ..., 0) (one exact carry walks down the terms, no check
// needed), then renorm_fast.
template <int N>
DEEPSCOPE_HD Expansion<N> add_double_fast(const Expansion<N>& a, double d) {
  if constexpr (N < 3) {
    return add_double(a, d);
  } else {
    double r[N + 1], c;
    eft::two_sum(a.t[0], d, r[0], c);
    DEEPSCOPE_UNROLL
    for (int n = 1; n < N; ++n) eft::two_sum(c, a.t[n], r[n], c);
    r[N] = c;
    Expansion<N> out;
    if (!renorm_fast<N>(r, out.t)) return add_double_slow(a, d);
    return out;
  }
}

// ---- a * d: order n has p_n = RN(a_n d), the error of p_{n-1} and the carry.
template <int N>
DEEPSCOPE_HD bool mul_double_fast_terms(const double* a, double d, double (&r)[N + 1]) {
  double pe, c = 0;
  eft::two_prod(a[0], d, r[0], pe);
  int px = exp_of(r[0]);
  int pe_hi = px - 53, pe_grid = is_zero(r[0]) ? kFree : px - 106, grid = kFree;
  bool ok = true;
  DEEPSCOPE_UNROLL
  for (int n = 1; n < N; ++n) {
    double p, e, s, t1;
    eft::two_prod(a[n], d, p, e);
    eft::two_sum(p, pe, s, t1);
    int x = exp_of(p);
    int hi = imax(x + 1, pe_hi);
    int g = imin(is_zero(p) ? kFree : x - 52, pe_grid);
    if (n == 1) {
      r[1] = s;
      if (n <= N - 2) ok = ok & carries_exact<2>(hi, g);
      c = t1;
    } else {
      double t2;
      eft::two_sum(s, c, r[n], t2);
      if (n <= N - 2) {
        hi = imax(hi, exp_of(c) + 1);
        g = imin(g, grid);
        ok = ok & carries_exact<3>(hi, g);
      }
      c = t1 + t2;
    }
    grid = g;
    pe = e;
    pe_hi = x - 53;
    pe_grid = is_zero(p) ? kFree : x - 106;
  }
  r[N] = pe + c;
  return ok;
}

template <int N>
DEEPSCOPE_HD Expansion<N> mul_double_fast(const Expansion<N>& a, double d) {
  if constexpr (N < 3) {
    return mul_double_alg5(a, d);
  } else {
    double r[N + 1];
    Expansion<N> out;
    if (!(mul_double_fast_terms<N>(a.t, d, r) & renorm_fast<N>(r, out.t))) return mul_double_slow(a, d);
    return out;
  }
}

// ---- a * b and sqr(a): order m has the products of order m (i + j = m; for sqr the symmetric
// pairs once, as x_i (2 x_j)), the errors of order m-1's products and the carry.
template <bool Sqr>
constexpr int products_at(int m) {
  return Sqr ? m / 2 + 1 : m + 1;
}

// Order m (1 <= m <= N); C = products_at(m - 1): pe are the errors of the previous order's
// products, |pe[j]| <= 2^pe_hi, all multiples of 2^pe_grid. For sqr, b holds 2 a (exact).
template <int N, bool Sqr, int m, int C>
DEEPSCOPE_HD void mul_fast_orders(const double* a, const double* b, double (&r)[N + 1], const double (&pe)[C],
                                  int pe_hi, int pe_grid, double carry, int carry_grid, bool& ok) {
  if constexpr (m < N) {
    constexpr int P = products_at<Sqr>(m);
    constexpr bool kCarry = m >= 2;
    constexpr int K = P + C + (kCarry ? 1 : 0);
    double p[P], e[P];
    int hi = imax(pe_hi, kCarry ? exp_of(carry) + 1 : -2000);
    int grid = imin(pe_grid, kCarry ? carry_grid : kFree);
    int e_hi = -2000, e_grid = kFree;  // bounds of this order's product errors
    DEEPSCOPE_UNROLL
    for (int i = 0; i < P; ++i) {
      if (Sqr && 2 * i == m) {
        eft::two_prod(a[i], a[i], p[i], e[i]);
      } else {
        eft::two_prod(a[i], b[m - i], p[i], e[i]);
      }
      int x = exp_of(p[i]);
      bool z = is_zero(p[i]);
      hi = imax(hi, x + 1);
      grid = imin(grid, z ? kFree : x - 52);
      e_hi = imax(e_hi, x - 53);
      e_grid = imin(e_grid, z ? kFree : x - 106);
    }
    double items[K];
    DEEPSCOPE_UNROLL
    for (int i = 0; i < P; ++i) items[i] = p[i];
    DEEPSCOPE_UNROLL
    for (int j = 0; j < C; ++j) items[P + j] = pe[j];
    if constexpr (kCarry) items[K - 1] = carry;
    double acc, next, t;
    eft::two_sum(items[0], items[1], acc, next);
    DEEPSCOPE_UNROLL
    for (int k = 2; k < K; ++k) {
      eft::two_sum(acc, items[k], acc, t);
      next += t;
    }
    r[m] = acc;
    if constexpr (m <= N - 2) ok = ok & carries_exact<K>(hi, grid);
    mul_fast_orders<N, Sqr, m + 1, P>(a, b, r, e, e_hi, e_grid, next, grid, ok);
  } else {
    // Order N: plain products and sums (their rounding errors are of order N + 1).
    double last = carry;
    if constexpr (Sqr) {
      DEEPSCOPE_UNROLL
      for (int i = 1; 2 * i <= N; ++i) last += a[i] * (2 * i == N ? a[i] : b[N - i]);
    } else {
      DEEPSCOPE_UNROLL
      for (int i = 1; i < N; ++i) last += a[i] * b[N - i];
    }
    DEEPSCOPE_UNROLL
    for (int j = 0; j < C; ++j) last += pe[j];
    r[N] = last;
  }
}

template <int N, bool Sqr>
DEEPSCOPE_HD bool mul_fast_terms(const double* a, const double* b, double (&r)[N + 1]) {
  double pe[1];
  eft::two_prod(a[0], Sqr ? a[0] : b[0], r[0], pe[0]);
  int x = exp_of(r[0]);
  bool ok = true;
  mul_fast_orders<N, Sqr, 1, 1>(a, b, r, pe, x - 53, is_zero(r[0]) ? kFree : x - 106, 0.0, kFree, ok);
  return ok;
}

template <int N>
DEEPSCOPE_HD Expansion<N> mul_fast(const Expansion<N>& a, const Expansion<N>& b) {
  if constexpr (N < 3) {
    return mul_alg5(a, b);
  } else {
    double r[N + 1];
    Expansion<N> out;
    if (!(mul_fast_terms<N, false>(a.t, b.t, r) & renorm_fast<N>(r, out.t))) return mul_slow(a, b);
    return out;
  }
}

template <int N>
DEEPSCOPE_HD Expansion<N> sqr_fast(const Expansion<N>& a) {
  if constexpr (N < 3) {
    return square_alg5(a);
  } else {
    double a2[N], r[N + 1];
    a2[0] = a.t[0];
    DEEPSCOPE_UNROLL
    for (int i = 1; i < N; ++i) a2[i] = a.t[i] + a.t[i];
    Expansion<N> out;
    if (!(mul_fast_terms<N, true>(a.t, a2, r) & renorm_fast<N>(r, out.t))) return sqr_slow(a);
    return out;
  }
}

}  // namespace expansion_detail
}  // namespace ds
