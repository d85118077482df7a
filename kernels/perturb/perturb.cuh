// Perturbation for one pixel, templated on the delta type T (double, FloatExp, or the 106-bit
// DwDelta and FloatExp2 for the pixels the first two cannot decide): the one function that the CPU
// backend and the CUDA kernel both run (host + device).
//
// With Z_m the reference orbit and dc = c - C, the pixel's orbit is z_n = Z_m + dz with
//   dz <- (2 Z_m + dz) dz + dc,  m <- m + 1            (exact algebra of z <- z^2 + c)
// Rebasing (Zhuoran): when |z| < |dz|, or m reaches the reference's last point, dz <- z and
// m <- 0 (Z_0 = 0), so dz never has to carry a value larger than the orbit itself.
// BLA: where |dz| < R of a table entry covering 2^l steps from m, dz <- A dz + B dc in one step
// (bla.h). Counts and smooth counts follow mandelbrot.cuh's contract exactly: the first
// n >= 1 with |z_n|^2 > 4, or max_iter.
// Precision (docs/perturbation/errors.md, "Undecided pixels"): with error_bound, an estimate of the error
// of z is carried along (the first-order propagation of the roundings of every step, the terms
// BLA drops and Z's own rounding, adding in quadrature), and a pixel whose escape test falls
// within 4 estimates of |z| = 2 is flagged like a glitch.
// Glitch checks (docs/perturbation.md): with T = double, a delta whose magnitude falls below
// 2^-1000 (dc included) would lose bits to underflow; such a pixel is flagged (count 0) and
// re-rendered on the host from a secondary reference with floatexp deltas. floatexp has no such
// limit.
// Scaled binary64 (docs/perturbation.md, "Scaled deltas"): with T = double and down = 2^-K < 1,
// every length of the z-plane (Z, dz, dc, the BLA radii, the error estimate, g'' and J) is held
// times 2^K, which carries views whose pixel spacing is below binary64's range (2^-900 to 2^-1400)
// in binary64 arithmetic. The step's one product of two lengths takes the factor back:
//   dz' <- ((2 Z' + dz') 2^-K) dz' + dc'
// (a power of two, so each operation rounds as it would unscaled). Where the true 2 Z + dz falls
// below 2^-1000 (an orbit that close to 0), that product would lose bits: the pixel is flagged.
// Interior (docs/perturbation/errors.md, "Interior"): the orbit's closest approaches to 0 give a
// candidate period p (atom domains); from the last one, the derivative dz/dz carried along gives
// the multiplier lambda of each window of p steps. Two windows in a row with |lambda| < 1/4 mean
// an attracting cycle (windows with a BLA step do not count: BLA does not carry g''): for p = 1 exactly
// (|z_n|, |z_n+1| < 1/8 force |c| < 1/4, inside M), for p > 1 through the renormalised quadratic map of the
// minibrot. The pixel is inside: count max_iter, and it stops there.
#pragma once
#include <cstdint>
#include <type_traits>

#include "arith/floatexp.h"
#include "arith/floatexp2.h"
#include "arith/hd.h"
#include "kernels/core/stop_flag.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
#include "bla.h"
#include "delta_ops.cuh"
#include "dw_delta.h"
#include "bla_pick.cuh"
#include "period_map_step.cuh"

namespace ds::perturb {
using namespace mandel;  // views, tiles and results: kernels/mandelbrot


// Below this magnitude a double delta is flagged as a glitch (T = double only).
constexpr double kDoubleDeltaFloor = 9.332636185032189e-302;  // 2^-1000
// The longest period whose windows the interior test runs step by step (without BLA), and the
// most windows it composes (an attracting cycle of up to that many times the candidate period).
// (2^24: a proof of a period-10^6 minibrot's interior costs 3 10^6 plain steps a pixel, run only
// where that is less than finishing the orbit; the Kantorovich test's margin grows with the steps.)
constexpr uint32_t kMaxExactPeriod = uint32_t{1} << 24;
constexpr uint32_t kMaxComposedWindows = 16;

template <class T>
struct PerturbParams {
  const T* zr;  // reference Z_0 .. Z_{ref_len-1}
  const T* zi;
  uint64_t ref_len;
  const BlaEntry<T>* bla;  // levels' entries, level l at bla + level_offset[l]
  uint64_t level_offset[kMaxBlaLevels + 1];
  int bla_levels;             // 0: no BLA
  int bla_suffix;             // suffix entries after the levels, at bla + level_offset[kMaxBlaLevels] (bla.h)
  bool bla_nested;            // BlaTable::radii_nested: bla_pick climbs from the lowest level
  // The period map (period_map.h; pm_degree 0: none): coefficient b_ij at bla[pm_offset +
  // period_map_index(i, j, pm_degree)] (ar, ai). A pixel at m = 1 with |dz| < pm_radius and
  // |dc| <= pm_rv (L1 norms) goes to the last point (pm_steps steps) in one evaluation at
  // x = dz pm_inv_rt, y = dc pm_inv_rv (powers of 2); each coefficient's entry holds |b_ij| in r
  // (for the evaluation's rounding estimate). After the coefficients, pm_rungs entries: domains
  // |dz| < ar (from pm_radius down) and what the map drops in each (ai).
  int pm_degree = 0, pm_rungs = 0;
  uint64_t pm_offset = 0, pm_steps = 0;
  T pm_inv_rt, pm_inv_rv, pm_radius, pm_rv;
  T off_re, off_im;           // view centre - reference centre
  T half_step;                // s/2
  double map[4];              // View::pixel_map (identity: square pixels)
  double inv_map[4];          // image_axes_inverse(map): the fields' vectors back to image axes
  StripeSpec stripe;          // the stripe average's (fields.cuh; density 0: not asked)
  double sqrt_radius = 2.0;   // KF's escape radius for kFieldSqrtSmooth (fields.cuh)
  bool exp_map;               // View::exp_map: pixels on the exponential map (exp_map_offset)
  T last_error;               // the reference's error bound at its last point (a rebase there inherits it)
  T c_shift;                  // the reference's error as a shift of c (Reference::error_shift)
  double ref_re_d, ref_im_d;  // nearest doubles of C: c in binary64 for the smooth tail
  int width, height;          // the whole image
  uint64_t max_iter;
  bool check_underflow;  // T = double or DwDelta
  double down = 1.0;     // T = double: 2^-K for deltas scaled by 2^K (1: unscaled)
  double tr_floor = 0.0;  // T = double, scaled: 2^(K - 1000), the least |2 Z' + dz'| kept (L1)
  bool interior;         // stop pixels proven inside the set
  bool prove_always;     // run the proof's windows without BLA even where finishing costs less
  // Nonzero (the tiers' proof pass, cpu_tiers.cpp): run the proof's windows at most that many times
  // a pixel, whether or not finishing would cost less (there a pixel that reaches the limit unproven
  // may stay undecided, and its windows cost less than leaving it marked).
  uint32_t dear_proofs = 0;
  bool error_bound;      // carry a bound on |computed z - exact z| and flag undecided escapes
  StopFlag stop;         // polled every kStopPollSteps loop steps: a raised flag ends the pixel unfinished
};

struct PerturbPixel {
  uint64_t count;  // 0: flagged, re-evaluate
  float smooth;    // as stored (counts.h: the smooth count, or smooth count - count for wide views)
  uint64_t skipped;  // iterations done by BLA steps
  uint64_t rebases;
  bool interior;  // proven inside the set (count = max_iter)
  FieldValues fields;  // perturb_pixel<T, true> only (kernels/mandelbrot/fields.cuh); zero unless escaped
};

// A flagged pixel's smooth (count 0) says why, with T = DwDelta: kFlaggedAtFloor where a delta
// fell below the double word's floor (a wider exponent, floatexp2, may decide it), 0 where the
// error estimate reached the escape test (floatexp2's 106 bits would not: the same precision).
constexpr float kFlaggedAtFloor = -1.0f;

// A length of the z-plane as the double it stands for (scaled binary64: times p.down).
template <class T>
DEEPSCOPE_HD double true_length(const PerturbParams<T>& p, T x) {
  if constexpr (sizeof(T) == sizeof(double)) {
    return as_double(x) * p.down;
  } else {
    (void)p;
    return as_double(x);
  }
}
// The same in the side type E (a scaled double back to its value; the others unchanged).
template <class T, class E>
DEEPSCOPE_HD E unscaled(const PerturbParams<T>& p, E x) {
  if constexpr (sizeof(T) == sizeof(double)) {
    return x * p.down;
  } else {
    (void)p;
    return x;
  }
}

template <class T>
DEEPSCOPE_HD bool below_floor(T x, T y) {
  if constexpr (sizeof(T) == sizeof(double)) {
    const double a = as_double(l1(x, y));
    return a != 0.0 && a < kDoubleDeltaFloor;
  } else if constexpr (std::is_same<T, DwDelta>::value) {
    const double a = (x.hi < 0 ? -x.hi : x.hi) + (y.hi < 0 ? -y.hi : y.hi);
    return a != 0.0 && a < kDwDeltaFloor;
  } else {
    return false;
  }
}


// The interior test on one window (g = f^p from w): g(w) - w = (er, ei), |z| = zmag (L1), g'(w)
// and g''(w). Kantorovich on h(x) = g(x) - x with |h'| >= 1 - |g'| and M = 2 |g''| standing in
// for the bound of |g''| near w: where e M / (1 - |g'|)^2 <= 1/2, h has a root x* (a p-cycle)
// within r = 2 e / (1 - |g'|) of w, and where |g'| + 2 M r < 1, g contracts the disk of radius r
// about x* into itself, so w's orbit stays bounded. |g'| is the modulus (with a margin for its
// roundings): the L1 norm overstates it by up to sqrt(2), and every pixel with |g'| > 1/sqrt(2)
// would fail the test however long it ran (half the interior of a minibrot's cardioid). e and
// |g''| are L1 norms (upper bounds), and e carries the rounding of the two z it subtracts.
// `steps`: the composition's length (its derivative is a product of that many complex factors,
// each rounded: a relative error of at most about 4 steps 2^-53, added to |g'| as a margin).
// Where the composition took period-map steps, ve, e1 and e2 bound what G(w), G' and G'' may be
// off by (the map's truncation and evaluation; PixelState), and join e, |g'| and M.
template <class T>
DEEPSCOPE_HD bool attracted(T er, T ei, T zmag, T d1r, T d1i, T d2r, T d2i, double steps, T ve = T(0.0),
                            T e1 = T(0.0), T e2 = T(0.0)) {
  const double lambda =
      as_double(modulus(d1r, d1i) + e1) * (1.0 + 1e-12 + 4.0 * steps * 1.1102230246251565e-16);
  if (!(lambda < 1.0)) return false;
  const double gap = 1.0 - lambda;
  const T e = l1(er, ei) + zmag * 1e-15 + ve;
  const T m = twice(l1(d2r, d2i) + e2);
  const double em = as_double(e * m);  // e M: a scale-free product (e ~ the cycle's size, M ~ 1/size)
  if (!(em <= 0.5 * gap * gap)) return false;
  return lambda + 4.0 * em / gap < 1.0;  // |g'| + 2 M r, r = 2 e / gap
}

// Which per-pixel fields a perturb_pixel instantiation carries: none (counts only), the derivative
// (distance estimate and phase), or the derivative and the stripe average. Separate instantiations,
// so the stripe's state costs the others nothing (registers: docs/bench/perturbation.md).
enum FieldsMode : int { kNoFields = 0, kDerivFields = 1, kStripeFields = 2 };
inline FieldsMode fields_mode(unsigned fields) {
  return (fields & kFieldStripe) ? kStripeFields : fields ? kDerivFields : kNoFields;
}

// A step linear in z with slope A (BLA's, the period map's) on the interior test's derivatives:
// g' <- A g', g'' <- A g'' (g'' as if the step had no curvature: such windows never prove alone).
template <class E>
DEEPSCOPE_PIXEL_INLINE void times_slope(E ar, E ai, E* d1r, E* d1i, E* d2r, E* d2i) {
  E t = ar * *d1r - ai * *d1i;
  *d1i = ar * *d1i + ai * *d1r;
  *d1r = t;
  t = ar * *d2r - ai * *d2i;
  *d2i = ar * *d2i + ai * *d2r;
  *d2r = t;
}

// The image axes' inverse for the fields of pixel (i, j): p.inv_map, or on the exponential map the
// pixel's own (into here).
template <class T>
DEEPSCOPE_HD const double* fields_inverse(const PerturbParams<T>& p, int i, int j, double* here) {
  if (!p.exp_map) return p.inv_map;
  exp_map_axes_inverse(p.map, i, j, p.width, p.height, here);
  return here;
}

// The state of one pixel between passes of its loop (pixel_begin, pixel_step): what perturb_pixel
// keeps from one iteration to the next. The CPU's vectorized loop (cpu_simd.h) carries the common
// passes of several pixels itself and hands a pixel to pixel_step for every other pass.
template <class T, int kFields = kNoFields>
struct PixelState {
  using E = typename AuxOf<T>::type;
  DEEPSCOPE_HD PixelState() : step(E(0.0)), jd(E(0.0)) {}
  PerturbPixel out{0u, 0.0f, 0u, 0u, false, FieldValues{}};
  int i = 0, j = 0;  // the pixel
  T dcr, dci;
  double cr_d, ci_d;
  E step;       // s (fields only)
  Deriv<E> jd;  // J = (dz/dc) s (fields only)
  StripeAcc stripe;
  uint64_t stripe_len = 1;  // the steps since the last z folded into the stripe average
  T dzr, dzi;
  uint64_t m = 1, n = 1;
  // Interior: the closest approach to 0 so far (|z| in L1, step kmin), the candidate period, the
  // current window's start (step wstart, z = w) and g', g'' of the window so far; the composition
  // G of the last ck whole windows (from z = cw: G', G''), and how many compositions passed.
  E d1r = E(1.0), d1i = E(0.0), d2r = E(0.0), d2i = E(0.0);
  T wr = T(0.0), wi = T(0.0);
  E c1r = E(1.0), c1i = E(0.0), c2r = E(0.0), c2i = E(0.0);
  T cwr = T(0.0), cwi = T(0.0);
  E zmin = E(0.0);
  uint64_t kmin = 0, kprev = 0, period = 0, wstart = 0;  // steps (64-bit like n)
  uint32_t hits = 0, ck = 0;
  uint32_t tries = 0;          // windows since the candidate period was last chosen or proven
  bool window_bla = false;     // the current window took a BLA step
  // Period-map steps in the interior test (a map step is a whole period's g, with g'' from the
  // map's polynomial): the window's map steps, what g(w), g' and g'' of the window (w1e, w2e, wve)
  // and of the composition (c1e, c2e, cve) may be off by (bounds, zero without the map: the map's
  // truncation and evaluation, carried through the plain steps after it), and the composition's
  // steps not taken by the map (what its proof's windows cost in plain steps).
  uint32_t window_maps = 0;
  E w1e = E(0.0), w2e = E(0.0), wve = E(0.0), c1e = E(0.0), c2e = E(0.0), cve = E(0.0);
  uint64_t cplain = 0;
  bool composed_bla = false;   // a window of the composition took one
  uint32_t exact_windows = 0;  // windows still to run without BLA (for the test)
  uint32_t dear = 0;           // proofs started under PerturbParams::dear_proofs
  // An estimate of |computed z - exact z| (error_bound): the first-order propagation of every
  // rounding, independent roundings adding in quadrature.
  E err = E(0.0);
  double inv_down = 1.0;  // 1 / p.down for scaled binary64 (a power of two, exact), else 1
  uint32_t polls = 0;
};

// Pixel (i, j) of the image (j = 0 at the top) into s: true where it is decided already (s.out).
template <class T, int kFields = kNoFields>
DEEPSCOPE_HD bool pixel_begin(const PerturbParams<T>& p, int i, int j, PixelState<T, kFields>& s) {
  constexpr double kRoundoff = roundoff<T>();
  using E = typename AuxOf<T>::type;
  PerturbPixel& out = s.out;
  s.i = i;
  s.j = j;
  const bool wide = wide_counts(p.max_iter);
  // (kx, ky): the pixel's offset in half-steps, y up; the map is exact for the identity.
  double kx, ky;
  if (p.exp_map) {
    exp_map_offset(i, j, p.width, p.height, &kx, &ky);
  } else {
    kx = pixel_offset(i, p.width);
    ky = -pixel_offset(j, p.height);
  }
  const T dcr = s.dcr = p.off_re + p.half_step * (p.map[0] * kx + p.map[1] * ky);
  const T dci = s.dci = p.off_im + p.half_step * (p.map[2] * kx + p.map[3] * ky);
  const double cr_d = s.cr_d = p.ref_re_d + true_length(p, dcr);
  const double ci_d = s.ci_d = p.ref_im_d + true_length(p, dci);
  const E step = s.step = aux(twice(p.half_step));
  s.jd = Deriv<E>(step);  // J_1 = s
  if (cr_d * cr_d + ci_d * ci_d > 4.0) {  // as mandel_pixel: |c| > 2 escapes at n = 1
    out.count = 1;
    out.smooth = smooth_tail(1u, cr_d, ci_d, cr_d, ci_d, wide);
    if constexpr (kFields != kNoFields)
      if (p.max_iter > 1) {
        if (kFields == kStripeFields && p.stripe.density) s.stripe.add(p.stripe, cr_d, ci_d, 1);
        double inv_here[4];
        out.fields = finish_fields(cr_d, ci_d, unscaled(p, s.jd.real()), unscaled(p, s.jd.imag()),
                                   unscaled(p, step), cr_d, ci_d, fields_inverse(p, i, j, inv_here),
                                   kFields == kStripeFields ? p.stripe : StripeSpec{}, s.stripe, p.sqrt_radius);
      }
    return true;
  }
  if (p.check_underflow && below_floor(dcr, dci)) {
    if constexpr (std::is_same<T, DwDelta>::value) out.smooth = kFlaggedAtFloor;
    return true;
  }
  s.dzr = dcr;  // z_1 = c = Z_1 + dc
  s.dzi = dci;
  // The error estimate starts at dc's own rounding. The reference's own error acts as a shift of c
  // of up to c_shift (Reference::error_shift): a count that changes within that shift is not
  // decided by this reference, whatever the deltas' precision, so it joins the estimate from the
  // start (a bound, added, not in quadrature).
  s.err = aux(l1(dcr, dci)) * kRoundoff + aux(p.c_shift);
  if constexpr (sizeof(T) == sizeof(double)) s.inv_down = 1.0 / p.down;
  return false;
}

// One pass of pixel s's loop (an iteration: a plain step or a BLA step, with the escape test, the
// interior test and rebasing): true when the pixel is decided (s.out).
template <class T, int kFields = kNoFields>
DEEPSCOPE_PIXEL_INLINE bool pixel_step(const PerturbParams<T>& p, PixelState<T, kFields>& s) {
  constexpr double kRoundoff = roundoff<T>();
  using E = typename AuxOf<T>::type;
  PerturbPixel& out = s.out;
  const bool wide = wide_counts(p.max_iter);
  const T dcr = s.dcr, dci = s.dci;
  const double cr_d = s.cr_d, ci_d = s.ci_d;
  const E step = s.step;
  (void)step;
  auto& jd = s.jd;
  auto& stripe = s.stripe;
  uint64_t& stripe_len = s.stripe_len;
  (void)jd;
  (void)stripe;
  (void)stripe_len;
  T &dzr = s.dzr, &dzi = s.dzi;
  uint64_t &m = s.m, &n = s.n;
  const uint64_t last = p.ref_len - 1;
  E &d1r = s.d1r, &d1i = s.d1i, &d2r = s.d2r, &d2i = s.d2i;
  T &wr = s.wr, &wi = s.wi;
  E &c1r = s.c1r, &c1i = s.c1i, &c2r = s.c2r, &c2i = s.c2i;
  T &cwr = s.cwr, &cwi = s.cwi;
  E& zmin = s.zmin;
  uint64_t &kmin = s.kmin, &kprev = s.kprev, &period = s.period, &wstart = s.wstart;
  uint32_t &hits = s.hits, &ck = s.ck, &tries = s.tries;
  bool &window_bla = s.window_bla, &composed_bla = s.composed_bla;
  uint32_t& exact_windows = s.exact_windows;
  E& err = s.err;
  const double inv_down = s.inv_down;
  (void)inv_down;
  uint32_t& polls = s.polls;
  if (p.stop.poll(polls)) return true;  // cancelled: count 0, discarded by the caller
  if (n >= p.max_iter) {
    out.count = p.max_iter;
    out.smooth = smooth_at_limit(p.max_iter);
    return true;
  }
  const T zr = p.zr[m] + dzr;
  const T zi = p.zi[m] + dzi;
  const double zr_d = true_length(p, zr), zi_d = true_length(p, zi);
  const double r2 = zr_d * zr_d + zi_d * zi_d;
  if constexpr (kFields == kStripeFields)
    if (p.stripe.density) {
      double ur, ui;
      direction_parts(aux(zr), aux(zi), &ur, &ui);  // z_n's direction at any depth
      stripe.add(p.stripe, ur, ui, stripe_len);
      stripe_len = 1;
    }
  // The escape test |z|^2 > 4 is decided only where the error estimate keeps |z| clear of 2:
  // |z|^2 moves by about 4 err near |z| = 2, and the pixel is flagged within 4 err of the
  // threshold (4 sigma of the estimate).
  if (p.error_bound) {
    const double a = as_double(err), b = kRoundoff * as_double(l1(aux(p.zr[m]), aux(p.zi[m])));
    const double d = r2 > 4.0 ? r2 - 4.0 : 4.0 - r2;
    // The same decision without the square root where it is clear (clearly_below_threshold);
    // the rest exactly as stated.
    if (!clearly_below_threshold(a, b, d, inv_down)) {
      const double e = unscaled(p, quad(a, b));
      if (16.0 * e >= d) return true;
    }
  }
  if (r2 > 4.0) {
    out.count = n;
    out.smooth = smooth_tail(n, zr_d, zi_d, cr_d, ci_d, wide);
    if constexpr (kFields != kNoFields) {
      double inv_here[4];
      out.fields = finish_fields(zr_d, zi_d, unscaled(p, jd.real()), unscaled(p, jd.imag()), unscaled(p, step), cr_d,
                                 ci_d, fields_inverse(p, s.i, s.j, inv_here),
                                 kFields == kStripeFields ? p.stripe : StripeSpec{}, stripe, p.sqrt_radius);
    }
    return true;
  }
  if (p.interior) {
    // A new window starts at step n from z: g = identity so far.
    const auto start_window = [&]() {
      wstart = n;
      wr = zr;
      wi = zi;
      d1r = E(1.0);
      d1i = d2r = d2i = E(0.0);
      window_bla = false;
      s.window_maps = 0;
      s.w1e = s.w2e = s.wve = E(0.0);
    };
    // A window of `period` steps ends: g = f^p maps its start w to z, with g'(w) = d1, g''(w) = d2.
    // The test runs on G = g composed over the last ck windows (f^(ck p)): the attracting cycle
    // may have a multiple of the candidate period (a satellite of period 2p keeps the period p
    // that the orbit's first close approach gave, and single windows alternate between
    // |g'| < 1 and > 1; pairs contract).
    if (period != 0 && n - wstart >= period) {
      ++tries;
      if (n - wstart != period) {
        // A BLA step ran past the window's end: the window is not one period.
        ck = 0;
        hits = 0;
      } else {
        const uint64_t plain = period - static_cast<uint64_t>(s.window_maps) * p.pm_steps;
        if (ck == 0) {
          cwr = wr;
          cwi = wi;
          c1r = d1r;
          c1i = d1i;
          c2r = d2r;
          c2i = d2i;
          s.c1e = s.w1e;
          s.c2e = s.w2e;
          s.cve = s.wve;
          s.cplain = plain;
          composed_bla = false;
        } else {
          s.cplain += plain;  // (g o G)' = g' G', (g o G)'' = g'' G'^2 + g' G''
          if (s.c1e != E(0.0) || s.cve != E(0.0) || s.w1e != E(0.0)) {
            // The window's g ran from the computed G(w), up to cve from the exact one: its slope
            // there may differ by up to |g''| cve (2 |g''| standing for its bound nearby, as M).
            const E g1 = modulus(d1r, d1i), g2 = l1(d2r, d2i), gc1 = modulus(c1r, c1i), gc2 = l1(c2r, c2i);
            const E dg1 = s.w1e + twice(g2 + s.w2e) * s.cve;
            const E big1 = gc1 + s.c1e;
            s.c2e = g2 * (twice(gc1) * s.c1e + s.c1e * s.c1e) + (s.w2e + dg1) * big1 * big1 + g1 * s.c2e +
                    dg1 * (gc2 + s.c2e);
            s.c1e = g1 * s.c1e + dg1 * big1;
            s.cve = g1 * s.cve + s.wve + g2 * s.cve * s.cve;
          }
          const E sr = c1r * c1r - c1i * c1i, si = twice(c1r * c1i);
          const E t2r = (d2r * sr - d2i * si) + (d1r * c2r - d1i * c2i);
          const E t2i = (d2r * si + d2i * sr) + (d1r * c2i + d1i * c2r);
          const E t1r = d1r * c1r - d1i * c1i;
          c1i = d1r * c1i + d1i * c1r;
          c1r = t1r;
          c2r = t2r;
          c2i = t2i;
        }
        ++ck;
        composed_bla = composed_bla || window_bla;
        const E er = aux(zr - cwr), ei = aux(zi - cwi), zl = aux(l1(zr, zi));
        const double lambda = as_double(modulus(c1r, c1i));
        // A composition with a BLA step does not count: BLA keeps g' (A is the step's slope)
        // but not g'', which the test needs (a false interior at rust-fractal's
        // all_seeing_eye). Where it would pass (|G'| < 1, and G(w) near w on the scale that
        // G'' gives), the next 2 ck + 1 windows run without BLA instead, for two compositions:
        // where that is cheaper than the rest of the orbit, which the pixel's own share of
        // plain steps so far estimates (at a minibrot's view with 64 periods of iterations
        // a proof's plain steps cost several times what BLA leaves of the whole orbit; the
        // count is max_iter either way, proven or not).
        if (!composed_bla && attracted(er, ei, zl, c1r, c1i, c2r, c2i,
                                       static_cast<double>(ck) * static_cast<double>(period), s.cve, s.c1e,
                                       s.c2e)) {
          if (++hits >= 2) {
            out.count = p.max_iter;
            out.smooth = smooth_at_limit(p.max_iter);
            out.interior = true;
            return true;
          }
          ck = 0;  // the second proof starts afresh from here
          tries = 0;
        } else if (composed_bla && lambda < 1.0 &&
                   as_double((l1(er, ei) + zl * 1e-15) * twice(l1(c2r, c2i))) <= (1.0 - lambda) * (1.0 - lambda)) {
          // The proof's windows run without BLA (the map's steps stay: they carry g''): the
          // composition's other steps, 2 ck + 1 windows' worth.
          const double proof =
              static_cast<double>(2 * ck + 1) * static_cast<double>(s.cplain) / static_cast<double>(ck);
          const double rest = static_cast<double>(p.max_iter - n) * static_cast<double>(n - out.skipped) /
                              static_cast<double>(n);
          if (period <= kMaxExactPeriod && period * ck <= kMaxExactPeriod) {
            if (p.dear_proofs != 0) {
              // A tier's proof pass: at most that many proofs a pixel, cheap or dear (the plain
              // steps of one raise `rest`'s estimate, and the next would look cheap).
              if (s.dear < p.dear_proofs) {
                ++s.dear;
                exact_windows = 2 * ck + 1;
              }
            } else if (p.prove_always || proof < rest) {
              exact_windows = 2 * ck + 1;
            }
          }
          ck = 0;
        } else if (ck >= kMaxComposedWindows || !(lambda < 1e12)) {
          ck = 0;
          hits = 0;
        }
      }
      if (tries >= 2 * kMaxComposedWindows && exact_windows == 0) {
        tries = 0;
        // No proof in that many windows: try the other candidate. A closest approach during
        // the orbit's first passage (the nucleus's neighbourhood, often closer than the cycle
        // it settles on) leaves a gap kmin - kprev between transient approaches (6 at a
        // period-135 minibrot's centre), while kmin itself is the atom domain's period there.
        // Later approaches recur at multiples of the period, so there the gap is right.
        if (kprev != 0) {
          period = period == kmin ? kmin - kprev : kmin;
          ck = 0;
          hits = 0;
        }
      }
      if (!window_bla && exact_windows > 0) --exact_windows;
      start_window();
    }
    // A closer approach to 0 than any before: n - kmin is the candidate period (atom domain;
    // kmin itself is the other candidate, above).
    const E zmag = aux(l1(zr, zi));
    if (kmin == 0 || zmag < zmin) {
      if (n - kmin != period || kmin == 0) {
        period = kmin == 0 ? 0u : n - kmin;
        start_window();
        hits = 0;
        ck = 0;
        tries = 0;
      }
      kprev = kmin;
      kmin = n;
      zmin = zmag;
    }
  }
  if (m >= last || l1(zr, zi) < l1(dzr, dzi)) {
    // A rebase rounds z; at a periodic reference's end z also carries that point's own error,
    // which no longer cancels against the next point (the pixel restarts at Z_0).
    if (p.error_bound)
      err = quad(err, aux(l1(zr, zi) + l1(p.zr[m], p.zi[m])) * kRoundoff + (m >= last ? aux(p.last_error) : E(0.0)));
    dzr = zr;
    dzi = zi;
    m = 0;
    ++out.rebases;
  }
  if (m == 1 && p.pm_degree > 0 && p.max_iter - n >= p.pm_steps &&
      l1(dzr, dzi) < p.pm_radius && l1(dcr, dci) <= p.pm_rv) {
    // The period map (period_map_step.cuh): dz at the last point, its slopes A = dF/dt and
    // B = dF/dv, and what the step adds to the error estimate.
    T fr, fi, ar, ai, br, bi;
    E local;
    MapCurvature<T, E> curv;
    period_map_eval(p, dzr, dzi, dcr, dci, &fr, &fi, &ar, &ai, &br, &bi, &local, p.interior ? &curv : nullptr);
    if (p.error_bound) err = quad(aux(modulus(ar, ai)) * err, local);
    if constexpr (kFields != kNoFields)
      jd.linear_step(aux(ar), aux(ai), aux(br), aux(bi), step);  // J <- A J + B s
    if constexpr (kFields == kStripeFields) stripe_len = p.pm_steps;
    if (p.interior) {
      // The map's step is the whole period's g from t: g' <- A g', g'' <- F_tt g'^2 + A g'' (in
      // the held units of g'', as the plain step's: scaled binary64's F_tt is already times 2^-K),
      // and what they and g(w) may be off by.
      ++s.window_maps;
      const E axr = aux(ar), axi = aux(ai), a2r = aux(curv.a2r), a2i = aux(curv.a2i);
      const E am = modulus(axr, axi), a2m = l1(a2r, a2i), g1 = modulus(d1r, d1i), big1 = g1 + s.w1e;
      s.w2e = a2m * (twice(g1) * s.w1e + s.w1e * s.w1e) + curv.e2 * big1 * big1 + am * s.w2e +
              curv.e1 * (l1(d2r, d2i) + s.w2e);
      s.w1e = am * s.w1e + curv.e1 * big1;
      s.wve = am * s.wve + local + a2m * s.wve * s.wve;
      const E sr = d1r * d1r - d1i * d1i, si = twice(d1r * d1i);
      const E t2r = (a2r * sr - a2i * si) + (axr * d2r - axi * d2i);
      d2i = (a2r * si + a2i * sr) + (axr * d2i + axi * d2r);
      d2r = t2r;
      const E t1r = axr * d1r - axi * d1i;
      d1i = axr * d1i + axi * d1r;
      d1r = t1r;
    }
    dzr = fr;
    dzi = fi;
    m += p.pm_steps;
    n += p.pm_steps;
    out.skipped += p.pm_steps;
    return false;
  }
  if (m > 0 && p.bla_levels > 1 && exact_windows == 0) {
    const T mag = l1(dzr, dzi);
    uint64_t idx, len;
    if (bla_pick(p, m, n, mag, &idx, &len)) {
      const BlaEntry<T>& e = p.bla[idx];
      const T nr = e.ar * dzr - e.ai * dzi + (e.br * dcr - e.bi * dci);
      const T ni = e.ar * dzi + e.ai * dzr + (e.br * dci + e.bi * dcr);
      if (p.error_bound) {
        // |A| err, then the roundings of A dz + B dc, the roundings of A and B themselves (ea |dz|
        // + eb |dc|) and what the entry's steps drop, (ka |dz| + kb |dc|)^2 (BlaEntry, bla.h). With
        // eps |A dz| sqrt(2^l) in their place a pixel of the campaign's seed 10293 came out 33
        // iterations short, unflagged, and 17 of KF's 5e227 at 128x128 one off
        // (test_campaign_findings.cpp).
        const T a = modulus(e.ar, e.ai), adz = a * mag, ldc = l1(dcr, dci), bdc = modulus(e.br, e.bi) * ldc;
        T drop = e.ka * mag + e.kb * ldc;
        drop = drop * drop;
        if constexpr (sizeof(T) == sizeof(double)) drop = drop * p.down;  // scaled: e^2 in units of 2^K
        const T local = (adz * 2.0 + bdc * 2.0 + l1(nr, ni)) * kRoundoff + e.ea * mag + e.eb * ldc + drop;
        err = quad(aux(a) * err, aux(local));
      }
      dzr = nr;
      dzi = ni;
      if constexpr (kFields != kNoFields) jd.linear_step(aux(e.ar), aux(e.ai), aux(e.br), aux(e.bi), step);  // J <- A J + B s
      if constexpr (kFields == kStripeFields) stripe_len = len;
      window_bla = true;
      if (p.interior) times_slope(aux(e.ar), aux(e.ai), &d1r, &d1i, &d2r, &d2i);
      m += len;
      n += len;
      out.skipped += len;
      return false;
    }
  }
  // z itself (scaled binary64: unscaled), for the derivatives.
  const E xr = unscaled(p, aux(zr)), xi = unscaled(p, aux(zi));
  if (p.interior && s.window_maps != 0) {
    // After a map step in the window: this step ran from a z up to wve off the exact g's, so its
    // factor 2 z is up to 2 wve off; the bounds follow (z' = z^2 + c: the value's error 2 z e + e^2).
    const E zm = modulus(xr, xi), ve = unscaled(p, s.wve), g1 = modulus(d1r, d1i);
    s.w2e = twice(unscaled(p, twice(g1) * s.w1e + s.w1e * s.w1e) + zm * s.w2e + ve * (l1(d2r, d2i) + s.w2e));
    s.w1e = twice(zm * s.w1e + ve * (g1 + s.w1e));
    s.wve = twice(zm) * s.wve + unscaled(p, s.wve * s.wve);
  }
  if (p.interior) {  // z -> z^2 + c: g' <- 2 z g', g'' <- 2 (g'^2 + z g'') (scaled: g'^2 2^-K)
    const E sr = unscaled(p, d1r * d1r - d1i * d1i), si = unscaled(p, twice(d1r * d1i));
    const E t2 = twice(sr + (xr * d2r - xi * d2i));
    d2i = twice(si + (xr * d2i + xi * d2r));
    d2r = t2;
    const E t1 = twice(xr * d1r - xi * d1i);
    d1i = twice(xr * d1i + xi * d1r);
    d1r = t1;
  }
  if constexpr (kFields != kNoFields) jd.square_step(xr, xi, step);  // J <- 2 z J + s
  T tr = twice(p.zr[m]) + dzr;
  T ti = twice(p.zi[m]) + dzi;
  if constexpr (sizeof(T) == sizeof(double)) {
    if (p.down != 1.0) {  // scaled: 2 z back to its value, kept only where binary64 holds it
      const T a = l1(tr, ti);
      if (a < p.tr_floor && a != 0.0) return true;
      tr = tr * p.down;
      ti = ti * p.down;
    }
  }
  const T nr = (tr * dzr - ti * dzi) + dcr;
  const T ni = (tr * dzi + ti * dzr) + dci;
  if (p.error_bound) {
    // dz' = (2 Z + dz) dz + dc: the inherited error grows by |2 z|; the step adds the roundings
    // of 2 Z + dz, the complex product and the sum, and of Z itself (stored to T's bits). The
    // multiplier is the modulus, not the L1 norm: an overestimate by up to sqrt(2) a step would
    // compound over the orbit (r2 is exact enough unless z is tiny, where L1 costs nothing).
    const E zl = r2 > 1e-290 ? E(::sqrt(r2)) : l1(xr, xi);
    const E local = ((l1(aux(tr), aux(ti)) + unscaled(p, l1(aux(p.zr[m]), aux(p.zi[m])))) *
                         l1(aux(dzr), aux(dzi)) * 2.0 +
                     l1(aux(nr), aux(ni))) *
                    kRoundoff;
    // The error's own square: z + e squares to z^2 + 2 z e + e^2, and where e is no longer small
    // beside z (a pixel whose orbit the deltas have lost) the first-order growth alone
    // underestimates it without bound (scaled binary64: e^2 in units of 2^K is e^2 2^-K).
    E sq = err * err;
    if constexpr (sizeof(T) == sizeof(double)) sq = sq * E(p.down);
    err = quad(twice(zl) * err, local) + sq;
  }
  dzr = nr;
  dzi = ni;
  ++m;
  ++n;
  if (p.check_underflow && below_floor(dzr, dzi)) {
    if constexpr (std::is_same<T, DwDelta>::value) out.smooth = kFlaggedAtFloor;
    return true;
  }
  return false;
}

// Pixel (i, j) of the image (j = 0 at the top). kFields: also the fields (fields.cuh), from the scaled
// derivative J = (dz/dc) s carried in the side type E: J <- 2 z J + s a step, A J + B s a BLA step,
// unchanged by a rebase (z is); kStripeFields also folds each z into the stripe average. The counts
// are the same either way.
template <class T, int kFields = kNoFields>
DEEPSCOPE_HD PerturbPixel perturb_pixel(const PerturbParams<T>& p, int i, int j) {
  PixelState<T, kFields> s;
  if (!pixel_begin(p, i, j, s))
    while (!pixel_step(p, s)) {
    }
  return s.out;
}

}  // namespace ds::perturb
