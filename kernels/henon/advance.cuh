// Per-item math of the Hénon workspace, h(x, y) = (1 + y - a x^2, b x), templated on the number
// type and shared by the CPU backend (orbit.cpp, scan.cpp) and the CUDA wrappers (henon.cu): the
// map's step in each format and advance(), the escape-checked loop. cycle.cuh builds on it.
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

}  // namespace ds::henon
