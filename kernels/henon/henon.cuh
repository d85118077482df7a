// Per-item math of the Hénon workspace, h(x, y) = (1 + y - a x^2, b x), templated on the number
// type and shared by the CPU backend (cpu.cpp) and the CUDA wrappers (henon.cu).
// Period detection follows the Hénon-sinks paper (Joldes, Popescu, Tucker 2013, section 4).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "arith/format.h"
#include "arith/hd.h"
#include "henon.h"

namespace ds::henon {

// Everything an item needs besides its start point, converted to T once on the host.
template <class T>
struct MapParams {
  T a, b;
  T bound;  // escape: |x| or |y| above it (or not comparable: NaN) ends the orbit
  T tol;    // close return: max(|dx|, |dy|) < tol
};

// One step of the map, (1 + y) - a x^2 with the constant added as a double (T + double is the
// cheaper operation in every format: f64x2's DWPlusFP is half of AccurateDWPlusDW).
template <class T>
DEEPSCOPE_HD void step(const T& a, const T& b, T& x, T& y) {
  T nx = (y + 1.0) - a * sqr(x);
  y = b * x;
  x = nx;
}

// Expansions: when a and b are doubles (no tail: a grid on a binary grid, or the paper's Figure 6,
// which takes them as double), b x is Expansion * double, O(N^2) instead of a full product, and
// for N >= 3, 1 + y - a x^2 is one add_sqr_mul: one renormalisation where sqr, y + 1, x^2 * a and
// the subtraction took four (and it rounds once, not four times). step() picks the form at run
// time; the loops of advance() pick it once per call (step_as below). The map is the
// same function of (a, b, x, y) on every backend and in every caller.
template <int N>
DEEPSCOPE_HD void step_double_ab(double a, double b, Expansion<N>& x, Expansion<N>& y) {
  Expansion<N> nx;
  if constexpr (N >= 3) {
    nx = add_sqr_mul(y, x, -a, 1.0);
  } else {
    nx = (y + 1.0) - sqr(x) * a;
  }
  y = x * b;
  x = nx;
}
template <int N>
DEEPSCOPE_HD void step_full_ab(const Expansion<N>& a, const Expansion<N>& b, Expansion<N>& x, Expansion<N>& y) {
  Expansion<N> nx = (y + 1.0) - a * sqr(x);
  y = b * x;
  x = nx;
}
template <int N>
DEEPSCOPE_HD bool double_ab(const Expansion<N>& a, const Expansion<N>& b) {
  return a.t[1] == 0.0 && b.t[1] == 0.0;
}
template <int N>
DEEPSCOPE_HD void step(const Expansion<N>& a, const Expansion<N>& b, Expansion<N>& x, Expansion<N>& y) {
  if (double_ab(a, b)) {
    step_double_ab(a.t[0], b.t[0], x, y);
  } else {
    step_full_ab(a, b, x, y);
  }
}

// f32 and f64 store the second coordinate as v = 1 + y (stored_y / actual_y below): the map only
// ever uses y as 1 + y, and then a step is x' = RN(v - RN(a x) x), v' = RN(1 + b x), three FP
// instructions (DMUL, two DFMA), like a plain double loop; y = RN(v - 1) is formed only for output.
template <class F>
DEEPSCOPE_HD void step(const Native<F>& a, const Native<F>& b, Native<F>& x, Native<F>& v) {
  const F nx = eft::fma_rn(-(a.v * x.v), x.v, v.v);
  v.v = eft::fma_rn(b.v, x.v, F(1));
  x.v = nx;
}

template <class T>
struct IsExpansion : std::false_type {};
template <int N>
struct IsExpansion<Expansion<N>> : std::true_type {};

// The step with an expansion's parameter form fixed at compile time, for loops: kDouble (a and b
// are doubles) and kFull (they are not) are what step() picks at run time, checked once by the
// caller; kAny is step() itself (every other format has one form).
enum class AB { kAny, kDouble, kFull };
template <AB kForm, class T>
DEEPSCOPE_HD void step_as(const MapParams<T>& p, T& x, T& y) {
  if constexpr (kForm == AB::kDouble) {
    step_double_ab(p.a.t[0], p.b.t[0], x, y);
  } else if constexpr (kForm == AB::kFull) {
    step_full_ab(p.a, p.b, x, y);
  } else {
    step(p.a, p.b, x, y);
  }
}

// The second coordinate as the per-item code stores it, from and to the map's y.
template <class T>
DEEPSCOPE_HD T stored_y(const T& y) {
  return y;
}
template <class T>
DEEPSCOPE_HD T actual_y(const T& v) {
  return v;
}
template <class F>
DEEPSCOPE_HD Native<F> stored_y(const Native<F>& y) {
  Native<F> v;
  v.v = y.v + F(1);
  return v;
}
template <class F>
DEEPSCOPE_HD Native<F> actual_y(const Native<F>& v) {
  Native<F> y;
  y.v = v.v - F(1);
  return y;
}

// True when (x, y) has left the box |x|, |y| <= bound. Written as !(<=) so that a NaN (which no
// valid input produces, since the host bounds a, b and the box) also counts as escaped.
template <class T>
DEEPSCOPE_HD bool outside(const T& x, const T& y, const T& bound) {
  return !(abs(x) <= bound) || !(abs(y) <= bound);
}
template <class F>
DEEPSCOPE_HD bool outside(const Native<F>& x, const Native<F>& v, const Native<F>& bound) {
  return !(abs(x) <= bound) || !(abs(actual_y(v)) <= bound);
}

// The leading double of a floating-format value: within a relative 2^-40 of it (exact for f32,
// f64 and the float pairs' high word; the first term of an expansion).
template <class T>
DEEPSCOPE_HD double lead(const T& v) {
  return to_double(v);
}
template <int N>
DEEPSCOPE_HD double lead(const Expansion<N>& v) {
  return v.t[0];
}

// The high word of |d| as an integer: monotone in |d| (NaN and inf above every finite value), and
// an integer operation, so the escape pre-test below stays off the FP64 pipe.
DEEPSCOPE_HD uint32_t magnitude_key(double d) {
#if DEEPSCOPE_DEVICE_CODE
  return static_cast<uint32_t>(__double2hiint(d)) & 0x7fffffffu;
#else
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return static_cast<uint32_t>(bits >> 32) & 0x7fffffffu;
#endif
}

// Advances (x, y) by up to n steps; stops at the first point outside the box and returns the
// number of steps taken. The orbit escaped exactly when the final (x, y) is outside the box (also
// when that happened at step n). The host bounds |a| bound^2 + bound + 1 and
// |b| bound below the format's range, so no step from inside the box can overflow or wrap.
// Floating formats run blocks of kEscapeBlock steps with an integer pre-test (the largest
// magnitude key seen); a block whose key reaches the bound's is run again step by step with the
// exact test, so the result is the same as testing every step. When |b| < 0.99, |y'| = |b x| stays
// inside whenever x was, and only x is looked at. Fixed-point formats wrap on overflow and test
// every step exactly.
constexpr int kEscapeBlock = 8;

template <class T, AB kForm = AB::kAny>
DEEPSCOPE_HD int64_t advance_exact(const MapParams<T>& p, T& x, T& y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    step_as<kForm>(p, x, y);
    if (outside(x, y, p.bound)) return i + 1;
  }
  return n;
}

// One step of a block and its pre-test key (the largest magnitude key seen).
template <AB kForm, bool kCheckY, class T>
DEEPSCOPE_HD void keyed_step(const MapParams<T>& p, T& x, T& y, uint32_t& key) {
  step_as<kForm>(p, x, y);
  const uint32_t kx = magnitude_key(lead(x));
  key = kx > key ? kx : key;
  if constexpr (kCheckY) {
    const uint32_t ky = magnitude_key(lead(y));
    key = ky > key ? ky : key;
  }
}

// f64x3 .. f64x8 run a block's steps as a loop: a step is hundreds of instructions, and the block
// unrolled (8 step bodies, up to 118,000 instructions in one kernel) ran 1.3x slower on the H100
// at N = 7 and 8 (docs/bench/henon_twosum_probe.cu); smaller formats unroll it.
template <class T>
constexpr bool kRolledBlock = false;
template <int N>
constexpr bool kRolledBlock<Expansion<N>> = N >= 3;

template <class T, bool kCheckY, AB kForm>
DEEPSCOPE_HD int64_t advance_blocks(const MapParams<T>& p, T& x, T& y, int64_t n) {
  const uint32_t limit = magnitude_key(lead(p.bound)) - 1;  // -1: lead() may sit just below
  int64_t i = 0;
  for (; i + kEscapeBlock <= n; i += kEscapeBlock) {
    const T sx = x, sy = y;
    uint32_t key = 0;
    if constexpr (kRolledBlock<T>) {
      DEEPSCOPE_NO_UNROLL
      for (int j = 0; j < kEscapeBlock; ++j) keyed_step<kForm, kCheckY>(p, x, y, key);
    } else {
      DEEPSCOPE_UNROLL
      for (int j = 0; j < kEscapeBlock; ++j) keyed_step<kForm, kCheckY>(p, x, y, key);
    }
    if (key >= limit) {
      x = sx;
      y = sy;
      const int64_t k = advance_exact<T, kForm>(p, x, y, kEscapeBlock);
      if (outside(x, y, p.bound)) return i + k;
    }
  }
  return i + advance_exact<T, kForm>(p, x, y, n - i);
}

// f32 and f64: blocks of kEscapeBlock steps on (x, v). Where an orbit that leaves the box can never
// come back (|b| < 0.99 and a bound at or above R0 below), only the block's last x is tested: no
// instruction is spent on the test inside the block. Otherwise every x is keyed as in
// advance_blocks (and v too when |b| >= 0.99: |y| > bound implies |v| > bound - 1). A block that
// fails is run again from its start with the exact test, so the result equals advance_exact's.
//
// Why the last x suffices: let r_n = |x_n| leave the box at step n (r_{n-1} <= bound < r_n).
// Then |y_n| = |b| r_{n-1} < r_n, and as long as r_n >= r_{n-1}, r_{n+1} >= |a| r_n^2 - 1 - |b| r_n
// (less the rounding of three operations, <= 2u of each term), which is >= r_n whenever r_n >= R0,
// the positive root of a' r^2 - (1 + c'|b|) r - c' = 0 with a' = |a| (1 - 4u), c' = 1 + 4u. So
// |x| grows at every later step (to inf, then NaN: both fail the key), and a block whose last x is
// inside never left the box. The bound must exceed R0 by a relative 2^-20 for the test to be used.
template <class F>
DEEPSCOPE_HD bool end_test_suffices(const MapParams<Native<F>>& p) {
  const double u = sizeof(F) == 4 ? 0x1p-24 : 0x1p-53;
  const double a = std::fabs(static_cast<double>(p.a.v)) * (1 - 4 * u), b = std::fabs(static_cast<double>(p.b.v));
  if (!(b < 0.99) || !(a > 0)) return false;
  const double c = 1 + 4 * u, s = 1 + c * b;
  const double r0 = (s + std::sqrt(s * s + 4 * a * c)) / (2 * a);
  return static_cast<double>(p.bound.v) >= r0 * (1 + 0x1p-20);
}

// Blocks of kNativeBlock steps. The end-test path unrolls the whole block (an H100 runs it at
// 5.15e12 steps/s in a bare kernel against 4.89e12 as 8 rolled rounds of 8 steps;
// docs/bench/henon_block_probe.cu). The keyed path runs 8 rolled rounds of 8 unrolled steps: fully
// unrolled, it took 94 registers in that probe's kernel (30 in the scan's, where it mattered less).
constexpr int kNativeBlock = 64;

// One path of advance_native, chosen once per call: EndOnly tests the block's last x only;
// otherwise every x (and v with CheckV) is keyed. A block is Rounds rolled rounds of
// kNativeBlock / Rounds unrolled steps.
template <bool EndOnly, bool CheckV, int Rounds, class F>
DEEPSCOPE_HD int64_t advance_native_path(const MapParams<Native<F>>& p, Native<F>& x, Native<F>& v, int64_t n) {
  constexpr int kSub = kNativeBlock / Rounds;
  static_assert(kSub * Rounds == kNativeBlock, "Rounds must divide kNativeBlock");
  const uint32_t kx_limit = magnitude_key(static_cast<double>(p.bound.v)) - 1;
  const double vb = static_cast<double>(p.bound.v) - 1;  // |y| > bound implies |v| > bound - 1
  const uint32_t kv_limit = vb > 0 ? magnitude_key(vb) - 1 : 0;
  const F a = p.a.v, b = p.b.v;
  F xv = x.v, vv = v.v;
  int64_t i = 0;
  for (; i + kNativeBlock <= n; i += kNativeBlock) {
    const F sx = xv, sv = vv;
    uint32_t kx = 0, kv = 0;
    DEEPSCOPE_NO_UNROLL
    for (int r = 0; r < Rounds; ++r) {
      DEEPSCOPE_UNROLL
      for (int j = 0; j < kSub; ++j) {
        const F nx = eft::fma_rn(-(a * xv), xv, vv);
        vv = eft::fma_rn(b, xv, F(1));
        xv = nx;
        if constexpr (!EndOnly) {
          const uint32_t qx = magnitude_key(static_cast<double>(xv));
          kx = qx > kx ? qx : kx;
          if constexpr (CheckV) {
            const uint32_t qv = magnitude_key(static_cast<double>(vv));
            kv = qv > kv ? qv : kv;
          }
        }
      }
    }
    if constexpr (EndOnly) kx = magnitude_key(static_cast<double>(xv));
    if (kx < kx_limit && (!CheckV || kv < kv_limit)) continue;
    x.v = sx;  // the block again, from its start, with the exact test
    v.v = sv;
    const int64_t k = advance_exact(p, x, v, kNativeBlock);
    if (outside(x, v, p.bound)) return i + k;
    xv = x.v;
    vv = v.v;
  }
  x.v = xv;
  v.v = vv;
  return i + advance_exact(p, x, v, n - i);
}

template <class F>
DEEPSCOPE_HD int64_t advance_native(const MapParams<Native<F>>& p, Native<F>& x, Native<F>& v, int64_t n) {
  if (end_test_suffices(p)) return advance_native_path<true, false, 1>(p, x, v, n);
  if (std::fabs(static_cast<double>(p.b.v)) < 0.99) return advance_native_path<false, false, 8>(p, x, v, n);
  return advance_native_path<false, true, 8>(p, x, v, n);
}

// The floating formats' blocked loop with the parameter form kForm (a caller that knows a and b
// to be doubles runs kDouble directly: only those loops are compiled in); y is keyed too when
// |b| >= 0.99.
template <AB kForm, class T>
DEEPSCOPE_HD int64_t advance_form(const MapParams<T>& p, T& x, T& y, int64_t n) {
  if (std::fabs(lead(p.b)) < 0.99) return advance_blocks<T, false, kForm>(p, x, y, n);
  return advance_blocks<T, true, kForm>(p, x, y, n);
}

template <class T>
DEEPSCOPE_HD int64_t advance(const MapParams<T>& p, T& x, T& y, int64_t n) {
  if constexpr (IsNative<T>::value) {
    return advance_native(p, x, y, n);
  } else if constexpr (T::traits().fixed) {
    return advance_exact(p, x, y, n);
  } else if constexpr (IsExpansion<T>::value) {
    return double_ab(p.a, p.b) ? advance_form<AB::kDouble>(p, x, y, n) : advance_form<AB::kFull>(p, x, y, n);
  } else {
    return advance_form<AB::kAny>(p, x, y, n);
  }
}

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
