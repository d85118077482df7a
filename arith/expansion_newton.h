// Expansion<N>: / and sqrt by Newton's method in increasing precision.
// Part of expansion.h, which includes it in order (not for inclusion on its own).
#pragma once

namespace ds {

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

}  // namespace ds
