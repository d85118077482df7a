// The Mandelbrot escape-time iteration for one pixel, templated on the number type: the one
// function that the CPU backend and the CUDA kernels both run (host + device).
//
// Contract (docs/mandelbrot.md, "Counts"): z_1 = c, z_{n+1} = z_n^2 + c; the count is the first
// n >= 1 with |z_n|^2 > 4, or max_iter when no n < max_iter escapes. The same bailout for every
// format, so counts compare across formats. The smooth count continues the escaped orbit in
// binary64 (the orbit is then dominated by z^2, so precision no longer matters) until |z| > 2^8
// and returns m + 1 - log2(log2 |z_m|) (radius-2 normalisation, so smooth ~ count + fraction).
//
// Error estimate (docs/mandelbrot.md, "Undecided pixels"; MandelParams::error_bound): each pixel
// carries e2, an estimate of |computed z - exact z|^2: the first-order propagation of every
// rounding, independent roundings adding in quadrature as in perturbation (perturb.cuh),
//   e2_1 = (c's rounding)^2,   e2_{n+1} = 4 |z_n|^2 e2_n + q,   q = (one step's rounding bound)^2,
// and a pixel whose escape test |z_n|^2 > 4 falls within 16 sqrt(e2_n) of 4 (4 sigma: |z|^2 moves
// by about 4 err near |z| = 2), or that escapes with sqrt(e2) past 2^-4 (the first-order estimate
// no longer holds), is undecided: count 0, re-decided on the host in a wider format (recheck.cpp).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "arith/eft.h"
#include "arith/hd.h"
#include "arith/native.h"
#include "counts.h"
#include "kernels/core/stop_flag.h"
#include "fields.cuh"
#include "view.h"

namespace ds::mandel {

// Everything the per-pixel function needs, built on the host by make_params.
template <class T>
struct MandelParams {
  T re, im;                        // the centre, parsed exactly (T::from_string)
  T half_step;                     // s/2, s the pixel spacing
  double re_d, im_d, half_step_d;  // nearest doubles: the |c| > 2 pre-test and the smooth tail only
  int width, height;               // the whole image (tiles index into it)
  uint64_t max_iter;
  double inv_map[4];               // image_axes_inverse of the identity (direct formats: square pixels only)
  StripeSpec stripe;               // the stripe average's (fields.cuh; density 0: not asked)
  double sqrt_radius = 2.0;        // KF's escape radius for kFieldSqrtSmooth (fields.cuh)
  StopFlag stop;                   // polled every kStopPollSteps steps: raised, the pixel ends unfinished
  // Hardware formats (f32, f64): stop an orbit whose computed values repeat exactly (Brent's
  // periodicity check; RenderOptions::interior). Exact repetition makes the computed orbit periodic
  // forever, so the count is max_iter either way: the same result as iterating to the limit.
  bool periodicity = false;
  // The error estimate (header comment): bound_q is q, bound_e1 the estimate of z_1 = c; both from
  // the format's traits (make_params). false: counts as without it (to measure its cost).
  bool error_bound = false;
  double bound_q = 0, bound_e1 = 0;
};

// sqrt(e2) past this (2^-4) at an escape: the first-order estimate no longer holds (at |z| >= 2 the
// neglected e^2 is then below 1/64 of the propagated 2 |z| e).
constexpr double kBoundCap2 = 0x1p-8;

// The error estimate's test of z_n, |z_n|^2 = r2 (as the escape test computes it): true when the
// escape test cannot be decided (header comment). NaN r2 (an overflowed orbit) is decided: escaped.
DEEPSCOPE_HD bool bound_undecided(double r2, double e2) {
  const double d = r2 - 4.0;
  return d * d <= 256.0 * e2 || (r2 > 4.0 && e2 > kBoundCap2);
}

// e2_{n+1} from e2_n and r2 = |z_n|^2: the inherited error grows by |2 z_n|, the step adds q.
DEEPSCOPE_HD double bound_step(double r2, double e2, double q) { return eft::fma_rn(4.0 * r2, e2, q); }

// z <- z^2 + c unless |z|^2 > 4 (then returns true and leaves z). Generic form: three products
// in T; the escape test on to_double of the squares, so no sum can leave a fixed-point range.
template <class T>
DEEPSCOPE_HD bool escape_or_step(T& x, T& y, const T& cr, const T& ci) {
  T x2 = sqr(x);
  T y2 = sqr(y);
  if (to_double(x2) + to_double(y2) > 4.0) return true;
  T xy = x * y;
  y = (xy + xy) + ci;
  x = (x2 - y2) + cr;
  return false;
}

// Hardware formats: z^2 + c as x' = fma(x, x, fma(-y, y, cr)), y' = fma(x + x, y, ci), 4 FP
// instructions two deep (x + x is exact), and the escape test RN(x^2 + RN(y^2)) > 4. FMA
// contraction is off project-wide, so these fmas are the only ones, and host (std::fma) and device
// (__fma_rn) round identically.
template <class F>
DEEPSCOPE_HD void native_step(F& x, F& y, F cr, F ci) {
  const F xn = eft::fma_rn(x, x, eft::fma_rn(-y, y, cr));
  y = eft::fma_rn(x + x, y, ci);
  x = xn;
}

template <class F>
DEEPSCOPE_HD bool native_escaped(F x, F y, F limit) {
  return !(eft::fma_rn(x, x, y * y) <= limit);  // NaN (an overflowed block) counts as escaped
}

template <class F>
DEEPSCOPE_HD bool escape_or_step(Native<F>& x, Native<F>& y, const Native<F>& cr, const Native<F>& ci) {
  if (native_escaped(x.v, y.v, F(4))) return true;
  native_step(x.v, y.v, cr.v, ci.v);
  return false;
}

// |z|^2 as the hardware formats' escape test computes it (native_escaped), in binary64.
template <class F>
DEEPSCOPE_HD double native_r2(F x, F y) {
  return static_cast<double>(eft::fma_rn(x, x, y * y));
}

// The outcome of one tested step.
enum StepState : int { kStepped = 0, kEscaped = 1, kUndecided = 2 };

// escape_or_step with the error estimate e2 (header comment): kUndecided when the escape test at z
// falls within the estimate, kEscaped when |z|^2 > 4 (z left), else the step (z and e2 advance).
template <class T>
DEEPSCOPE_HD int bounded_step(T& x, T& y, const T& cr, const T& ci, double& e2, double q) {
  T x2 = sqr(x);
  T y2 = sqr(y);
  const double r2 = to_double(x2) + to_double(y2);
  if (bound_undecided(r2, e2)) return kUndecided;
  if (r2 > 4.0) return kEscaped;
  T xy = x * y;
  y = (xy + xy) + ci;
  x = (x2 - y2) + cr;
  e2 = bound_step(r2, e2, q);
  return kStepped;
}

template <class F>
DEEPSCOPE_HD int bounded_step(Native<F>& x, Native<F>& y, const Native<F>& cr, const Native<F>& ci,
                              double& e2, double q) {
  const double r2 = native_r2(x.v, y.v);
  if (bound_undecided(r2, e2)) return kUndecided;
  if (!(r2 <= 4.0)) return kEscaped;  // native_escaped's test
  e2 = bound_step(r2, e2, q);
  native_step(x.v, y.v, cr.v, ci.v);
  return kStepped;
}

// One tested step, with the error estimate where p asks for it.
template <class P, class T>
DEEPSCOPE_HD int tested_step(const P& p, T& x, T& y, const T& cr, const T& ci, double& e2) {
  if (p.error_bound) return bounded_step(x, y, cr, ci, e2, p.bound_q);
  return escape_or_step(x, y, cr, ci) ? kEscaped : kStepped;
}

// Blocks of the hardware formats' loop: kSteps steps with no test, then one test of the last z
// against 4 - kMargin. Once the per-step test fires (|z| > 2 - O(u), |c| <= 2), each step can lower
// 2 - |z| at most fourfold plus ~24u, so every later z of the block has |z|^2 > 4 - 4^K 80u: a
// block holding an escape always fails the block test (4^8 80 2^-53 = 5.8e-10 < 2^-26 for f64;
// 4^4 80 2^-24 = 1.2e-3 < 2^-8 for f32). A failed block is run again step by step with the exact
// test, so counts and orbits are those of testing every step.
//
// With the error estimate, a step at z_m that the estimate cannot decide has 2 - |z_m| <= g =
// 8 sqrt(e2_m) (4 - r2 <= 16 sqrt(e2) and 2 + |z| >= 2), so by the same argument the block's last
// z has |z|^2 > 4 - 4^(K+1) (g + O(u)): a block passes only where kLimit - |z|^2 is at least
// 2^(2K+6) sqrt(max e2 over the block) (twice that), and a block that fails is run step by step
// with the estimate's test (kBoundScale2 = 2^(4K+12), the square of that factor).
template <class F>
struct NativeBlock;
template <>
struct NativeBlock<double> {
  static constexpr uint32_t kSteps = 8;
  static constexpr double kLimit = 4.0 - 0x1p-26;
  static constexpr double kBoundScale2 = 0x1p44;
};
template <>
struct NativeBlock<float> {
  static constexpr uint32_t kSteps = 4;
  static constexpr float kLimit = 4.0f - 0x1p-8f;
  static constexpr double kBoundScale2 = 0x1p28;
};

// The block test with the error estimate: the block's last z is clear of the limit by the margin
// above (e2_max: the largest e2 of the block's steps). NaN (an overflowed block) fails.
template <class F>
DEEPSCOPE_HD bool native_block_clear(F x, F y, double e2_max) {
  const double h = static_cast<double>(NativeBlock<F>::kLimit) - native_r2(x, y);
  return h >= 0.0 && h * h >= NativeBlock<F>::kBoundScale2 * e2_max;
}

// Pixel centre offsets in units of s/2: 2i + 1 - width and 2j + 1 - height (exact integers).
DEEPSCOPE_HD double pixel_offset(int index, int extent) { return 2.0 * index + 1.0 - extent; }

// Kalles Fraktaler's and Fraktaler-3's exponential map (View::exp_map): pixel (i, j) of a w x h
// image lies at angle theta = 2 pi (i + 1/2) / w (counter-clockwise from the real axis) and radius
// r = R 2^(-(j + 1/2) / h) pixels from the centre, R = hypot(w, h) / 2: row 0 is the outermost ring,
// and the whole image spans one halving of the radius, so keyframes zoomed x2 each tile a zoom
// (docs/mandelbrot.md, "Exponential map"). The offset (kx, ky) in half-steps, y up, in binary64
// (host and device libraries may round cos, sin and exp an ulp apart: 1e-13 of a pixel).
DEEPSCOPE_HD void exp_map_offset(int i, int j, int w, int h, double* kx, double* ky) {
  const double theta = 6.283185307179586 * (i + 0.5) / w;
  const double r = hypot(static_cast<double>(w), static_cast<double>(h)) * exp(-0.6931471805599453 * (j + 0.5) / h);
  *kx = r * cos(theta);  // 2 r pixels' half-steps: r = R e^rho with R = hypot / 2, times 2
  *ky = r * sin(theta);
}

// The exponential map's image axes at pixel (i, j): inv maps a c-plane vector in spacings to the
// image's axes there (x along increasing i, y along increasing j), through the pixel map m.
DEEPSCOPE_HD void exp_map_axes_inverse(const double* m, int i, int j, int w, int h, double* inv) {
  const double theta = 6.283185307179586 * (i + 0.5) / w;
  const double r = 0.5 * hypot(static_cast<double>(w), static_cast<double>(h)) *
                   exp(-0.6931471805599453 * (j + 0.5) / h);  // pixels
  const double c = cos(theta), s = sin(theta);
  const double ax = r * 6.283185307179586 / w, ay = -r * 0.6931471805599453 / h;
  // L: columns d(offset)/di = ax (-s, c), d(offset)/dj = ay (c, s); then M L.
  const double l[4] = {-ax * s, ay * c, ax * c, ay * s};
  const double a[4] = {m[0] * l[0] + m[1] * l[2], m[0] * l[1] + m[1] * l[3], m[2] * l[0] + m[3] * l[2],
                       m[2] * l[1] + m[3] * l[3]};
  invert_2x2(a, inv);
}

// The smooth count for an orbit that escaped at count n with z_n = (zr, zi), in binary64, as
// stored (counts.h): narrow (wide = false), the smooth count mu = n + k + 1 - log2(log2 |z_{n+k}|)
// rounded to float; wide, mu - n, computed without n so that it keeps its fraction at any n.
DEEPSCOPE_HD float smooth_tail(uint64_t n, double zr, double zi, double cr, double ci, bool wide = false) {
  double r2 = zr * zr + zi * zi;
  double k = 0.0;
  for (int q = 0; q < 64 && r2 <= 65536.0; ++q) {
    double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    r2 = zr * zr + zi * zi;
    k += 1.0;
  }
  const double loglog = log2(0.5 * log2(r2));  // log2|z| = log2(r2)/2
  if (wide) {
    const double excess = k + 1.0 - loglog;  // mu - n, exact of n
    const double floor = -static_cast<double>(n);  // mu >= 0, as below
    return static_cast<float>(excess > floor ? excess : floor);
  }
  const double m = static_cast<double>(n) + k;  // n + k exactly (n < 2^32), as the count went up
  double mu = m + 1.0 - loglog;
  return static_cast<float>(mu > 0.0 ? mu : 0.0);
}

// A pixel's iteration in progress: mandel_pixel in three steps, so that a GPU thread can stop
// after a slice of iterations and take another pixel (refill_pixels) with the same math.
template <class T>
struct PixelState {
  T x, y, cr, ci;
  double cr_d, ci_d;
  uint64_t n;
  bool escaped;
  // Brent's periodicity check (hardware formats): z saved at block ends n = 64, 128, 256, ...;
  // a later block end with exactly that z means the computed orbit cycles.
  T sx, sy;
  uint64_t next_save;
  // The error estimate (MandelParams::error_bound): e2 of z; se2 of the saved z.
  double e2, se2;
  bool undecided;  // the estimate could not decide an escape test: the pixel's count is 0
};

// Starts pixel (i, j) of the image (j = 0 at the top). Returns true when the pixel is finished
// at once (|c| > 2, or max_iter = 1), with its result in *done.
template <class T>
DEEPSCOPE_HD bool pixel_begin(const MandelParams<T>& p, int i, int j, PixelState<T>& s, PixelResult* done) {
  const double kr = pixel_offset(i, p.width);
  const double ki = pixel_offset(j, p.height);
  s.cr_d = p.re_d + kr * p.half_step_d;
  s.ci_d = p.im_d - ki * p.half_step_d;
  // |c| > 2 escapes at n = 1; testing it in binary64 keeps every iterated |c| <= 2, so fixed-point
  // formats never square more than |z| <= 6.
  if (s.cr_d * s.cr_d + s.ci_d * s.ci_d > 4.0) {
    *done = {1u, smooth_tail(1u, s.cr_d, s.ci_d, s.cr_d, s.ci_d, wide_counts(p.max_iter))};
    return true;
  }
  s.cr = p.re + p.half_step * kr;
  s.ci = p.im - p.half_step * ki;
  s.x = s.cr;
  s.y = s.ci;
  s.n = 1;
  s.escaped = false;
  s.sx = s.x;
  s.sy = s.y;
  s.next_save = 64;
  s.e2 = p.bound_e1;
  s.se2 = s.e2;
  s.undecided = false;
  if (s.n >= p.max_iter) {
    *done = {p.max_iter, smooth_at_limit(p.max_iter)};
    return true;
  }
  return false;
}

// The hardware formats' blocks (NativeBlock) from z_n up to `end`, with the error estimate when
// kBound: returns kEscaped or kUndecided at the step that decided it (n, z at that step), or
// kStepped with n within kSteps of end. Periodicity (MandelParams::periodicity): an exact repeat
// of a saved z ends the pixel at max_iter, unless its estimate more than quadrupled since the save
// (the computed cycle repels: iterating on would leave it undecided).
template <bool kBound, class F>
DEEPSCOPE_HD int native_blocks(const MandelParams<Native<F>>& p, PixelState<Native<F>>& s, Native<F>& x,
                               Native<F>& y, double& e2, uint64_t& n, uint64_t end) {
  using B = NativeBlock<F>;
  while (end - n >= B::kSteps) {
    const F bx = x.v, by = y.v;
    const double be2 = e2;
    bool clear;
    if constexpr (kBound) {
      double e2_max = e2;
      DEEPSCOPE_UNROLL
      for (uint32_t k = 0; k < B::kSteps; ++k) {
        e2 = bound_step(native_r2(x.v, y.v), e2, p.bound_q);
        e2_max = e2_max > e2 ? e2_max : e2;
        native_step(x.v, y.v, s.cr.v, s.ci.v);
      }
      clear = native_block_clear(x.v, y.v, e2_max);
    } else {
      DEEPSCOPE_UNROLL
      for (uint32_t k = 0; k < B::kSteps; ++k) native_step(x.v, y.v, s.cr.v, s.ci.v);
      clear = !native_escaped(x.v, y.v, F(B::kLimit));
    }
    if (clear) {
      n += B::kSteps;
      if (p.periodicity) {
        // Every block so far passed its test, so no step escaped (above); a z equal to the saved
        // one repeats the same blocks forever: the count is max_iter, as iterating would give.
        if (x.v == s.sx.v && y.v == s.sy.v) {
          if (kBound && e2 > 4.0 * s.se2) return kUndecided;
          n = p.max_iter;
          return kStepped;
        }
        if (n >= s.next_save) {
          s.sx = x;
          s.sy = y;
          s.se2 = e2;
          s.next_save = 2 * n;
        }
      }
      continue;
    }
    x.v = bx;  // run the block again with the exact test
    y.v = by;
    e2 = be2;
    uint32_t k = 0;
    int state = kStepped;
    while (k < B::kSteps && (state = tested_step(p, x, y, s.cr, s.ci, e2)) == kStepped) ++k;
    n += k;
    if (state != kStepped) return state;
  }
  return kStepped;
}

// Up to `budget` more iterations; true when the pixel is finished (escaped, undecided, or n = max_iter).
template <class T>
DEEPSCOPE_HD bool pixel_run(const MandelParams<T>& p, PixelState<T>& s, uint64_t budget) {
  const uint64_t end = p.max_iter - s.n > budget ? s.n + budget : p.max_iter;
  T x = s.x, y = s.y;
  uint64_t n = s.n;
  double e2 = s.e2;
  int state = kStepped;
  if constexpr (IsNative<T>::value) {
    state = p.error_bound ? native_blocks<true>(p, s, x, y, e2, n, end)
                          : native_blocks<false>(p, s, x, y, e2, n, end);
  }
  while (state == kStepped && n < end) {
    state = tested_step(p, x, y, s.cr, s.ci, e2);
    if (state == kStepped) ++n;
  }
  s.x = x;
  s.y = y;
  s.n = n;
  s.e2 = e2;
  s.escaped = state == kEscaped;
  s.undecided = state == kUndecided;
  return state != kStepped || n >= p.max_iter;
}

// The result of a finished pixel.
template <class T>
DEEPSCOPE_HD PixelResult pixel_end(const MandelParams<T>& p, const PixelState<T>& s) {
  if (s.undecided) return {0u, 0.0f};  // re-decided by the host (recheck.cpp)
  if (!s.escaped) return {p.max_iter, smooth_at_limit(p.max_iter)};
  return {s.n, smooth_tail(s.n, to_double(s.x), to_double(s.y), s.cr_d, s.ci_d, wide_counts(p.max_iter))};
}

// The count and smooth count of pixel (i, j) of the image (j = 0 at the top).
template <class T>
DEEPSCOPE_HD PixelResult mandel_pixel(const MandelParams<T>& p, int i, int j) {
  PixelState<T> s;
  PixelResult r;
  if (pixel_begin(p, i, j, s, &r)) return r;
  // Slices of kStopPollSteps (the same orbit and counts as one run): a cancelled render's pixels
  // stop within a slice, with count 0, which the caller discards.
  while (!pixel_run(p, s, kStopPollSteps))
    if (p.stop.requested()) return {0u, 0.0f};
  return pixel_end(p, s);
}

// mandel_pixel with the fields (fields.cuh): the same orbit and the same per-step escape test (the
// hardware formats' blocks give the counts of testing every step, so the counts are mandel_pixel's),
// with the scaled derivative J = (dz/dc) s carried in binary64 from the orbit rounded to binary64.
template <class T>
DEEPSCOPE_HD PixelResult field_pixel(const MandelParams<T>& p, int i, int j, FieldValues* f) {
  *f = FieldValues{};
  PixelState<T> s;
  PixelResult r;
  const double step = 2.0 * p.half_step_d;
  StripeAcc stripe;
  if (pixel_begin(p, i, j, s, &r)) {
    if (r.count == 1 && p.max_iter > 1) {  // |c| > 2: escaped at z_1 = c, J_1 = s
      if (p.stripe.density) stripe.add(p.stripe, s.cr_d, s.ci_d, 1);
      *f = finish_fields(s.cr_d, s.ci_d, step, 0.0, step, s.cr_d, s.ci_d, p.inv_map, p.stripe, stripe, p.sqrt_radius);
    }
    return r;
  }
  T x = s.x, y = s.y;
  double jr = step, ji = 0.0;
  double e2 = s.e2;
  uint64_t n = s.n;
  uint32_t polls = 0;
  for (; n < p.max_iter; ++n) {
    if (p.stop.poll(polls)) return {0u, 0.0f};  // cancelled: discarded by the caller
    const double xd = to_double(x), yd = to_double(y);
    if (p.stripe.density) stripe.add(p.stripe, xd, yd, 1);  // z_n
    const int state = tested_step(p, x, y, s.cr, s.ci, e2);
    if (state == kUndecided) {
      *f = FieldValues{};
      return {0u, 0.0f};  // re-decided by the host (recheck.cpp)
    }
    if (state == kEscaped) {
      s.x = x;
      s.y = y;
      s.n = n;
      s.escaped = true;
      *f = finish_fields(xd, yd, jr, ji, step, s.cr_d, s.ci_d, p.inv_map, p.stripe, stripe, p.sqrt_radius);
      return pixel_end(p, s);
    }
    const double tr = 2.0 * (xd * jr - yd * ji) + step;
    ji = 2.0 * (xd * ji + yd * jr);
    jr = tr;
  }
  s.n = n;
  s.escaped = false;
  return pixel_end(p, s);
}

// Warp primitives of the GPU over the full warp, as the refill schedule and the cooperative limb
// kernels use them; the tests run the same code on the host with an emulated warp (a policy with
// the same members).
struct DeviceWarp {
  unsigned long long* counter = nullptr;  // refill_pixels' pixel counter
  DEEPSCOPE_HD unsigned lane() const {
#if DEEPSCOPE_DEVICE_CODE
    return threadIdx.x & 31u;
#else
    return 0;
#endif
  }
  DEEPSCOPE_HD uint32_t ballot(bool p) const {
#if DEEPSCOPE_DEVICE_CODE
    return __ballot_sync(0xffffffffu, p);
#else
    return p;
#endif
  }
  DEEPSCOPE_HD uint32_t shfl(uint32_t v, int src) const {
#if DEEPSCOPE_DEVICE_CODE
    return __shfl_sync(0xffffffffu, v, src);
#else
    return v + 0 * src;
#endif
  }
  DEEPSCOPE_HD bool all(bool p) const {
#if DEEPSCOPE_DEVICE_CODE
    return __all_sync(0xffffffffu, p);
#else
    return p;
#endif
  }
  DEEPSCOPE_HD bool any(bool p) const {
#if DEEPSCOPE_DEVICE_CODE
    return __any_sync(0xffffffffu, p);
#else
    return p;
#endif
  }
  DEEPSCOPE_HD void sync() const {
#if DEEPSCOPE_DEVICE_CODE
    __syncwarp();
#endif
  }
  // Takes n consecutive indices from the counter; returns the first.
  DEEPSCOPE_HD unsigned long long claim(unsigned n) const {
#if DEEPSCOPE_DEVICE_CODE
    return atomicAdd(counter, static_cast<unsigned long long>(n));
#else
    return n + 0 * (counter != nullptr);
#endif
  }
};

DEEPSCOPE_HD int popcount32(uint32_t x) {
#if DEEPSCOPE_DEVICE_CODE
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

DEEPSCOPE_HD int lowest_set_bit(uint32_t x) {  // x != 0
#if DEEPSCOPE_DEVICE_CODE
  return __ffs(x) - 1;
#else
  return __builtin_ffs(static_cast<int>(x)) - 1;
#endif
}

// Iterations a thread runs before it may swap a finished pixel for a new one.
template <class T>
struct RefillBudget {
  static constexpr uint32_t value = 4;
};
template <class F>
struct RefillBudget<Native<F>> {
  static constexpr uint32_t value = 16;
};

// Thread per pixel with refill ("persistent threads"): every lane of a warp takes pixels from a
// shared counter (row-major over rows [row_begin, row_begin + rows) of the tile, one atomic per
// warp and round) and, when its pixel finishes, the next one, so a warp never idles for its
// slowest pixel. Results are mandel_pixel's: the same begin/run/end on each pixel.
template <class T, class W>
DEEPSCOPE_HD void refill_pixels(const W& w, const MandelParams<T>& p, int x0, int y0, int tw, int row_begin,
                                int rows, uint32_t* counts, float* smooth, uint32_t* counts_high) {
  const unsigned long long total =
      static_cast<unsigned long long>(tw) * static_cast<unsigned long long>(rows);
  const unsigned lane = w.lane();
  PixelState<T> s{};  // set by pixel_begin before use; initialised for the compiler's sake
  unsigned long long idx = 0;
  bool active = false;  // holds an unfinished pixel
  bool need = true;     // wants a pixel (false once the band is used up)
  uint32_t polls = 0;   // rounds, the same in every lane: the stop poll below is warp-uniform
  for (;;) {
    if ((++polls & 4095u) == 0 && w.any(p.stop.requested())) break;  // cancelled: the band is discarded
    const uint32_t mask = w.ballot(need);
    if (mask == 0 && !w.any(active)) break;
    if (mask != 0) {
      const int leader = lowest_set_bit(mask);
      unsigned long long base = 0;
      if (static_cast<int>(lane) == leader) base = w.claim(static_cast<unsigned>(popcount32(mask)));
      base = (static_cast<unsigned long long>(w.shfl(static_cast<uint32_t>(base >> 32), leader)) << 32) |
             w.shfl(static_cast<uint32_t>(base), leader);
      if (need) {
        idx = base + static_cast<unsigned>(popcount32(mask & ((1u << lane) - 1u)));
        need = false;
        if (idx < total) {
          const int i = static_cast<int>(idx % static_cast<unsigned long long>(tw));
          const int r = row_begin + static_cast<int>(idx / static_cast<unsigned long long>(tw));
          PixelResult done;
          if (pixel_begin(p, x0 + i, y0 + r, s, &done)) {
            const std::size_t k = static_cast<std::size_t>(r) * tw + i;
            store_pixel(counts, counts_high, smooth, k, done.count, done.smooth);
            need = true;
          } else {
            active = true;
          }
        }
      }
    }
    if (active && pixel_run(p, s, RefillBudget<T>::value)) {
      const PixelResult res = pixel_end(p, s);
      const std::size_t k =
          static_cast<std::size_t>(row_begin + idx / static_cast<unsigned long long>(tw)) * tw +
          static_cast<std::size_t>(idx % static_cast<unsigned long long>(tw));
      store_pixel(counts, counts_high, smooth, k, res.count, res.smooth);
      active = false;
      need = true;
    }
  }
}

// Host: the parameters of a validated view in T (centre and s/2 rounded by T::from_string).
template <class T>
MandelParams<T> make_params(const Geometry& g, const View& v, const RenderOptions& opt = {}) {
  MandelParams<T> p;
  p.re = T::from_string(g.re);
  p.im = T::from_string(g.im);
  p.half_step = T::from_string(g.half_step);
  p.re_d = g.re_d;
  p.im_d = g.im_d;
  p.half_step_d = g.half_step_d;
  p.width = v.width;
  p.height = v.height;
  p.max_iter = v.max_iter;
  const double identity[4] = {1.0, 0.0, 0.0, 1.0};  // direct formats: square pixels only
  image_axes_inverse(identity, p.inv_map);
  p.stripe = stripe_spec(opt);
  p.sqrt_radius = opt.sqrt_smooth_radius;
  p.stop = host_stop(opt.cancel);  // the CUDA launcher puts its pinned flag here
  p.periodicity = opt.interior;
  p.error_bound = opt.error_bound;
  if (p.error_bound) {
    // One step's rounding, as an absolute bound at |z|^2 <= 4 and |c| <= 2 (the pre-test): floating
    // formats round each of the step's few operations within a small multiple of u of a value of
    // at most |z|^2 + |c| <= 6 (4 u 6 allows for it; below min_abs the low terms underflow);
    // fixed formats truncate or round each product within a few eps per word (128 eps allows for
    // limb32's). c's own rounding: the same, at the view's coordinates.
    const FormatTraits t = T::traits();
    const double scale = 2.0 + (g.max_coord > 2.0 ? g.max_coord : 2.0);
    const double local = t.fixed ? 128.0 * t.eps : 4.0 * t.eps * 6.0 + 4.0 * t.min_abs;
    const double first = t.fixed ? 128.0 * t.eps : 4.0 * t.eps * scale + 4.0 * t.min_abs;
    p.bound_q = local * local;
    p.bound_e1 = first * first;
  }
  return p;
}

}  // namespace ds::mandel
