// Per-item math of the Hénon workspace after the transient, host and device: period detection
// (Joldes, Popescu, Tucker 2013, section 4), the cycle's Jacobian product, the sink test and the
// eigenvalues, and finish_item() for the scan.
#pragma once
#include <cstdint>

#include "advance.cuh"

namespace ds::henon {

template <class T>
DEEPSCOPE_HD bool close(const T& x0, const T& y0, const T& x1, const T& y1, const T& tol) {
  return abs(x0 - x1) < tol && abs(y0 - y1) < tol;
}

// Period detection (paper, section 4), with the max norm. On entry (x, y) = h^Nt(x0, y0). Returns
// the smallest k in [1, p_max] with max_{i=1..k} |h^{Nt+i} - h^{Nt+i+k}| < tol, 0 when there is none,
// -1 when the orbit escapes first. On a period, (x, y) is left at h^{Nt+1}, a point of the cycle.
// Memory is O(1) per item: every k with a close return of the first point is a candidate, and
// the candidate is checked by iterating both ends of the window again (rare after the first).
template <class T>
DEEPSCOPE_HD int32_t detect_period(const MapParams<T>& p, int32_t p_max, T& x, T& y) {
  step(p.a, p.b, x, y);
  if (outside(x, y, p.bound)) return -1;
  T cx = x, cy = y;  // h^{Nt+1+k} after k steps below
  for (int32_t k = 1; k <= p_max; ++k) {
    step(p.a, p.b, cx, cy);
    if (outside(cx, cy, p.bound)) return -1;
    if (!close(x, y, cx, cy, p.tol)) continue;
    T ux = x, uy = y, vx = cx, vy = cy;
    bool ok = true;
    for (int32_t i = 2; i <= k && ok; ++i) {
      step(p.a, p.b, ux, uy);
      step(p.a, p.b, vx, vy);
      ok = close(ux, uy, vx, vy, p.tol);
    }
    if (ok) return k;
  }
  return 0;
}

// A value m * 2^e, so that products over long cycles neither overflow nor vanish (fixed-point
// formats would wrap or lose every bit within a few dozen steps otherwise).
template <class T>
struct Scaled {
  T m;
  int32_t e;
};

// Brings |m| into [1, 2) (m == 0 stays 0 with e = 0). mul_pow2 is exact for the floating formats;
// for fixed point a right shift truncates below the resolution, which is the format's own limit.
template <class T>
DEEPSCOPE_HD void normalize(Scaled<T>& s) {
  if (!(abs(s.m) > T(0.0))) {
    s.m = T(0.0);
    s.e = 0;
    return;
  }
  const double d = to_double(abs(s.m));
  int k = 0;
  if (d > 0.0) {
    (void)std::frexp(d, &k);
    k -= 1;  // d in [2^k, 2^(k+1))
    if (k != 0) {
      s.m = mul_pow2(s.m, -k);
      s.e += k;
    }
  }
  // to_double rounds: settle the last binade exactly in T.
  if (abs(s.m) >= T(2.0)) {
    s.m = mul_pow2(s.m, -1);
    s.e += 1;
  } else if (abs(s.m) < T(1.0) && abs(s.m) > T(0.0)) {
    s.m = mul_pow2(s.m, 1);
    s.e -= 1;
  }
}

// The cycle's Jacobian product M = J_k ... J_1 with J = [[-2 a x, 1], [b, 0]], kept as a matrix in
// T times 2^e; its trace and determinant ((-b)^k, accumulated separately and exactly up to the
// rounding of each product), and the cycle point with the smallest x (a canonical point, so that
// different start points on the same cycle report the same point).
template <class T>
struct CycleInfo {
  Scaled<T> trace, det;
  T min_x, min_y;
};

template <class T>
DEEPSCOPE_HD CycleInfo<T> cycle_info(const MapParams<T>& p, int32_t k, T x, T y) {
  T m00(1.0), m01(0.0), m10(0.0), m11(1.0);
  int32_t me = 0;
  Scaled<T> det{T(1.0), 0};
  const T nb = neg(p.b);
  CycleInfo<T> c;
  c.min_x = x;
  c.min_y = y;
  for (int32_t i = 0; i < k; ++i) {
    if (x < c.min_x) {
      c.min_x = x;
      c.min_y = y;
    }
    const T j00 = mul_pow2(p.a * x, 1);  // 2 a x; J00 = -j00
    T n00 = m10 - j00 * m00, n01 = m11 - j00 * m01;
    T n10 = p.b * m00, n11 = p.b * m01;
    m00 = n00;
    m01 = n01;
    m10 = n10;
    m11 = n11;
    // Rescale the matrix by a power of two when its largest entry leaves [2^-4, 2^4).
    double big = to_double(abs(m00));
    double v = to_double(abs(m01));
    big = v > big ? v : big;
    v = to_double(abs(m10));
    big = v > big ? v : big;
    v = to_double(abs(m11));
    big = v > big ? v : big;
    if (big > 0.0 && (big >= 16.0 || big < 0.0625)) {
      int s = 0;
      (void)std::frexp(big, &s);
      m00 = mul_pow2(m00, -s);
      m01 = mul_pow2(m01, -s);
      m10 = mul_pow2(m10, -s);
      m11 = mul_pow2(m11, -s);
      me += s;
    }
    det.m = det.m * nb;
    normalize(det);
    step(p.a, p.b, x, y);
  }
  c.trace = Scaled<T>{m00 + m11, me};
  normalize(c.trace);
  c.det = det;
  return c;
}

// Both eigenvalues of the cycle inside the unit disc, decided in T without square roots: for
// z^2 - t z + d the Schur-Cohn (Jury) conditions are |d| < 1 and |t| < 1 + d.
template <class T>
DEEPSCOPE_HD bool is_sink(const Scaled<T>& t, const Scaled<T>& d) {
  const bool d_zero = !(abs(d.m) > T(0.0));
  if (!d_zero && d.e >= 0) return false;  // |d| >= 1 (|d.m| in [1, 2))
  const bool t_zero = !(abs(t.m) > T(0.0));
  if (t_zero) return true;
  if (t.e >= 1) return false;  // |t| >= 2 > 1 + d
  const T lhs = mul_pow2(abs(t.m), t.e);
  const T rhs = d_zero ? T(1.0) : T(1.0) + mul_pow2(d.m, d.e);
  return lhs < rhs;
}

// Eigenvalues of the 2x2 product from its trace and determinant, in T. The discriminant
// t^2 - 4d is formed in T at a common power of two; its square root is taken in T where the
// format has one, else in double (*sqrt_in_double is set). Real case: l1 = (t + sign(t) sqrt(D))/2
// (no cancellation), l2 = d / l1 (in T where the format divides, else in double). Complex case:
// re = t/2, im = sqrt(-D)/2 for l1 (l2 is its conjugate).
template <class T>
struct Eigen {
  bool complex = false;
  bool sqrt_in_double = false;
  Scaled<T> re1, im1, re2;  // complex: l = re1 +- i im1; real: l1 = re1, l2 = re2
};

template <class T>
DEEPSCOPE_HD Scaled<T> scaled_sqrt(Scaled<T> v, bool* in_double) {
  if (v.e % 2 != 0) {
    v.m = mul_pow2(v.m, 1);
    v.e -= 1;
  }
  Scaled<T> r;
  r.e = v.e / 2;
  if constexpr (T::kHasDivSqrt) {
    r.m = sqrt(v.m);
  } else {
    r.m = T(std::sqrt(to_double(v.m)));
    *in_double = true;
  }
  normalize(r);
  return r;
}

template <class T>
DEEPSCOPE_HD Eigen<T> eigenvalues(const Scaled<T>& t, const Scaled<T>& d) {
  Eigen<T> ev;
  const bool t_zero = !(abs(t.m) > T(0.0));
  const bool d_zero = !(abs(d.m) > T(0.0));
  int32_t E = t_zero ? d.e : d_zero ? 2 * t.e : (2 * t.e > d.e ? 2 * t.e : d.e);
  E += 4;  // headroom: the difference below stays under 2^2 in magnitude
  Scaled<T> D{T(0.0), E};
  const T t2 = t_zero ? T(0.0) : mul_pow2(sqr(t.m), 2 * t.e - E);
  const T d4 = d_zero ? T(0.0) : mul_pow2(d.m, d.e + 2 - E);
  D.m = t2 - d4;
  normalize(D);
  const bool d_neg = D.m < T(0.0);
  if (!d_neg) {
    const Scaled<T> s = scaled_sqrt(D, &ev.sqrt_in_double);
    const bool s_zero = !(abs(s.m) > T(0.0));
    int32_t F = t_zero ? s.e : s_zero ? t.e : (t.e > s.e ? t.e : s.e);
    T mag = (t_zero ? T(0.0) : mul_pow2(abs(t.m), t.e - F)) + (s_zero ? T(0.0) : mul_pow2(s.m, s.e - F));
    Scaled<T> l1{t.m < T(0.0) ? neg(mag) : mag, F - 1};
    normalize(l1);
    ev.re1 = l1;
    if (!(abs(l1.m) > T(0.0)) || d_zero) {
      ev.re2 = Scaled<T>{T(0.0), 0};
    } else {
      Scaled<T> l2;
      if constexpr (T::kHasDivSqrt) {
        l2.m = d.m / l1.m;
      } else {
        l2.m = T(to_double(d.m) / to_double(l1.m));
      }
      l2.e = d.e - l1.e;
      normalize(l2);
      ev.re2 = l2;
    }
  } else {
    ev.complex = true;
    Scaled<T> re = t;
    re.e -= 1;
    ev.re1 = re;
    ev.re2 = re;
    Scaled<T> nd{neg(D.m), D.e};
    Scaled<T> im = scaled_sqrt(nd, &ev.sqrt_in_double);
    im.e -= 1;
    ev.im1 = im;
  }
  return ev;
}

// After the transient: period, cycle information and the sink decision for one item.
template <class T>
DEEPSCOPE_HD detail::ItemOut finish_item(const MapParams<T>& p, int32_t p_max, T x, T y) {
  detail::ItemOut r{0, 0, 0.0, 0.0};
  const int32_t k = detect_period(p, p_max, x, y);
  r.period = k;
  if (k <= 0) return r;
  const CycleInfo<T> c = cycle_info(p, k, x, y);
  r.sink = is_sink(c.trace, c.det) ? 1 : 0;
  r.x = to_double(c.min_x);
  r.y = to_double(actual_y(c.min_y));
  return r;
}

}  // namespace ds::henon
