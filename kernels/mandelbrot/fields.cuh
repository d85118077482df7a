// Per-pixel fields beyond the counts (RenderOptions::fields, mandelbrot.h): the distance estimate's
// vector and the final phase, finished from the escaped z and the derivative that the direct and
// perturbation engines carry (host + device; docs/mandelbrot.md, "Per-pixel data").
//
// The derivative is carried scaled by the pixel spacing s: J = (dz/dc) s, so J_1 = s and
//   J <- 2 z J + s             (a step z <- z^2 + c)
//   J <- A J + B s             (a BLA step dz <- A dz + B dc, kernels/perturb/bla.h)
// and a rebase leaves it alone (z is unchanged). Scaled so, J stays near |z| ln|z| / (the distance
// in pixels) at escape, at any depth: binary64 holds it while s >= 2^-900 (the direct formats and
// f64 deltas), floatexp beyond.
#pragma once
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "arith/bits.h"
#include "arith/floatexp.h"
#include "arith/hd.h"
#include "mandelbrot.h"

namespace ds::mandel {

struct FieldValues {
  float dex = 0.0f, dey = 0.0f;  // the distance estimate's vector in pixels (image axes: x right, y down)
  float phase = 0.0f;            // arg(z) / 2 pi of the escaped z, in [0, 1)
  float stripe = 0.0f;           // the stripe average, stored as stripe_store says
  float sqrt_smooth = 0.0f;      // KF's square-root smoothing fraction (sqrt_smooth_fraction)
};

// Where a render's fields go (row-major like the counts); a null pointer: not asked.
struct FieldPtrs {
  float* dex = nullptr;
  float* dey = nullptr;
  float* phase = nullptr;
  float* stripe = nullptr;
  float* sqrt_smooth = nullptr;
  DEEPSCOPE_HD bool any() const { return dex || phase || stripe || sqrt_smooth; }
  DEEPSCOPE_HD void store(std::size_t k, const FieldValues& f) const {
    if (dex) {
      dex[k] = f.dex;
      dey[k] = f.dey;
    }
    if (phase) phase[k] = f.phase;
    if (stripe) stripe[k] = f.stripe;
    if (sqrt_smooth) sqrt_smooth[k] = f.sqrt_smooth;
  }
};

// Pointers to a render's host field arrays (those not empty; the others null).
inline FieldPtrs host_field_ptrs(RenderResult& r) {
  FieldPtrs f;
  if (!r.dex.empty()) {
    f.dex = r.dex.data();
    f.dey = r.dey.data();
  }
  if (!r.phase.empty()) f.phase = r.phase.data();
  if (!r.stripe.empty()) f.stripe = r.stripe.data();
  if (!r.sqrt_smooth.empty()) f.sqrt_smooth = r.sqrt_smooth.data();
  return f;
}

// The stripe average (Haerkoenen, "On smooth fractal coloring techniques", 2007), made for deep
// zooms: t_n = 1/2 + 1/2 sin(d arg z_n) for every z_n of the orbit (z_1 = c), averaged with weights
// that fall off by `memory` a step back from the last,
//   S_n = memory S_(n-1) + (1 - memory) t_n,   S_0 = 1/2,
// and interpolated between S_(N-1) and S_N by where |z_N| lies past the bailout 2^8, as the smooth
// count is: stripe = S_(N-1) + w (S_N - S_(N-1)), w = 1 + log2(ln 2^8 / ln|z_N|) in [0, 1], so the
// value is continuous across the count bands. Haerkoenen's plain mean (memory = 1 - 1/n) flattens
// at depth, where every pixel shares the reference's long orbit; the fall-off keeps the last steps'
// structure at any depth. The density d is a whole number (1..16), so sin(d arg z) = Im(u^d) with
// u = z/|z|: no trigonometry in the loop.
//
// A BLA step of l iterations (perturbation) skips z_(n+1..n+l-1): the step folds in its end point
// for all of them (S <- memory^l S + (1 - memory^l) t_(n+l)), and the weight those l - 1 stand-ins
// carry at the end is tracked. Where it exceeds kStripeApproxWeight the value may be off by that
// weight, and the pixel is stored marked (stripe_store): no silent error.
struct StripeSpec {
  int density = 0;        // d, 1..16; 0: no stripe average asked
  double memory = 0.0;    // the fall-off a step, in (0, 1)
  double log2_memory = 0.0;
};
constexpr double kStripeApproxWeight = 1.0 / 512.0;  // below an 8-bit colour step

// The spec of a render's options (density 0 unless kFieldStripe is asked).
inline StripeSpec stripe_spec(const RenderOptions& opt) {
  StripeSpec sp;
  if (!(opt.fields & kFieldStripe)) return sp;
  sp.density = opt.stripe_density;
  sp.memory = opt.stripe_memory;
  sp.log2_memory = std::log2(opt.stripe_memory);
  return sp;
}

struct StripeAcc {
  double cur = 0.5, prev = 0.5;  // S_n, S_(n-1)
  double approx = 0.0;           // the weight of stand-ins for skipped steps in S_n
  // Folds in z_n, the end of `len` steps (1: a plain step; a BLA step's length otherwise).
  DEEPSCOPE_HD void add(const StripeSpec& sp, double zr, double zi, uint64_t len) {
    const double r2 = zr * zr + zi * zi;
    double t = 0.5;
    if (r2 > 0.0) {  // z = 0 (a measure-zero landing) counts as the mean
      const double inv = 1.0 / ::sqrt(r2);
      double ur = zr * inv, ui = zi * inv, pr = 1.0, pi = 0.0;
      for (int d = sp.density; d != 0; d >>= 1) {  // u^d by squaring
        if (d & 1) {
          const double q = pr * ur - pi * ui;
          pi = pr * ui + pi * ur;
          pr = q;
        }
        const double q = ur * ur - ui * ui;
        ui = 2.0 * ur * ui;
        ur = q;
      }
      t = 0.5 + 0.5 * pi;
    }
    prev = cur;
    if (len == 1) {
      cur = sp.memory * cur + (1.0 - sp.memory) * t;
      approx *= sp.memory;
    } else {
      const double ml = exp2(static_cast<double>(len) * sp.log2_memory);
      cur = ml * cur + (1.0 - ml) * t;
      // the l - 1 stand-ins weigh (1 - m) (m + ... + m^(l-1)) = m - m^l
      approx = ml * approx + (sp.memory - ml);
    }
  }
  // The interpolated value for the last z (|z| > 2^8 after finish_fields's extra steps).
  DEEPSCOPE_HD float value(double r2) const {
    double w = 1.0 + log2(5.545177444479562 / (0.5 * log(r2)));  // ln 2^8 / ln|z|
    w = w < 0.0 ? 0.0 : w > 1.0 ? 1.0 : w;
    const double v = prev + w * (cur - prev);
    return static_cast<float>(v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v);
  }
};

// How a stripe average is stored: in [0, 1] where exact to kStripeApproxWeight, -1 - value (in
// [-2, -1]) where BLA's stand-ins weigh more (StripeAcc). stripe_value reads either.
DEEPSCOPE_HD float stripe_store(float value, bool approximate) { return approximate ? -1.0f - value : value; }
DEEPSCOPE_HD float stripe_value(float stored) { return stored >= 0.0f ? stored : -1.0f - stored; }
DEEPSCOPE_HD bool stripe_approximate(float stored) { return stored < 0.0f; }

DEEPSCOPE_HD FloatExp as_floatexp(double x) { return FloatExp(x); }
DEEPSCOPE_HD FloatExp as_floatexp(FloatExp x) { return x; }

DEEPSCOPE_HD float clamp_to_float(double x) {
  if (!(x == x)) return 0.0f;  // NaN: no estimate
  if (x > FLT_MAX) return FLT_MAX;
  if (x < -FLT_MAX) return -FLT_MAX;
  return static_cast<float>(x);
}

// The derivative J in the engines' loops, by the side type E. Binary64 (E = double) holds it as
// two doubles. For floatexp, four floatexp operations a step cost half as much again as the whole
// perturbation step (bench perturb --fields), so J is kept as two doubles with one shared exponent,
// J = (r + i i) 2^e, renormalised only when it leaves [2^-400, 2^400]: a step is four products and
// two exponent-aligned sums. Terms below 2^-1000 of the larger one are dropped (they are below
// binary64's resolution of the sum).
template <class E>
struct Deriv;

template <>
struct Deriv<double> {
  double r, i;
  DEEPSCOPE_HD explicit Deriv(double s) : r(s), i(0.0) {}
  // J <- 2 z J + s
  DEEPSCOPE_HD void square_step(double zr, double zi, double s) {
    const double t = 2.0 * (zr * r - zi * i) + s;
    i = 2.0 * (zr * i + zi * r);
    r = t;
  }
  // J <- A J + B s
  DEEPSCOPE_HD void linear_step(double ar, double ai, double br, double bi, double s) {
    const double t = ar * r - ai * i + br * s;
    i = ar * i + ai * r + bi * s;
    r = t;
  }
  DEEPSCOPE_HD double real() const { return r; }
  DEEPSCOPE_HD double imag() const { return i; }
};

// x 2^k for k <= 1023 (0 below 2^-1000 of x's scale: dropped as described above).
DEEPSCOPE_HD double scale_down(double x, int k) { return k < -1000 ? 0.0 : x * bits::pow2(k > 1023 ? 1023 : k); }

template <>
struct Deriv<FloatExp> {
  double r, i;
  int32_t e;
  DEEPSCOPE_HD explicit Deriv(FloatExp s) : r(s.m), i(0.0), e(s.e) {}
  // The exponent shared by a complex floatexp's parts (the larger; a zero part has no say).
  DEEPSCOPE_HD static int32_t top(FloatExp a, FloatExp b) {
    return a.m == 0 ? b.e : b.m == 0 ? a.e : (a.e > b.e ? a.e : b.e);
  }
  // (r, i) 2^e <- (a (r, i)) 2^e' + (x) , a and x complex floatexp, k a power-of-two factor of a.
  DEEPSCOPE_HD void mul_add(FloatExp ar, FloatExp ai, int k, FloatExp xr, FloatExp xi) {
    const int32_t ea = top(ar, ai);
    const double a = scale_down(ar.m, ar.e - ea), b = scale_down(ai.m, ai.e - ea);
    double pr = a * r - b * i, pi = a * i + b * r;
    int32_t pe = e + ea + k;
    const int32_t ex = top(xr, xi);
    if (xr.m != 0 || xi.m != 0) {
      const int32_t d = ex - pe;
      if (d > 60 || (pr == 0 && pi == 0)) {  // x dominates: the product is below its last bit
        pr = scale_down(xr.m, xr.e - ex);
        pi = scale_down(xi.m, xi.e - ex);
        pe = ex;
      } else {
        pr += scale_down(xr.m, xr.e - pe);
        pi += scale_down(xi.m, xi.e - pe);
      }
    }
    r = pr;
    i = pi;
    e = pe;
    const double m = (r < 0 ? -r : r) + (i < 0 ? -i : i);
    if (!(m < 0x1p400 && m > 0x1p-400) && m != 0 && m == m) {
      const FloatExp f(m);  // the exponent of m
      r *= bits::pow2(-f.e);
      i *= bits::pow2(-f.e);
      e += f.e;
    }
  }
  // J <- 2 z J + s. Where z is within binary64's range as a plain double (all but the steps of an
  // orbit's closest approaches to 0) and s is not far above J, this is four products and two sums
  // with no exponent work on J: z's exponent does not enter J's.
  DEEPSCOPE_HD void square_step(FloatExp zr, FloatExp zi, FloatExp s) {
    const int32_t d = s.e - e;
    if (zr.e > -900 && zr.e < 900 && zi.e > -900 && zi.e < 900 && d <= 60) {
      const double a = zr.m * bits::pow2(zr.e), b = zi.m * bits::pow2(zi.e);
      double pr = 2.0 * (a * r - b * i);
      const double pi = 2.0 * (a * i + b * r);
      if (d >= -1000) pr += s.m * bits::pow2(d);
      const double m = (pr < 0 ? -pr : pr) + (pi < 0 ? -pi : pi);
      if (m < 0x1p400 && m > 0x1p-400) {
        r = pr;
        i = pi;
        return;
      }
    }
    mul_add(zr, zi, 1, s, FloatExp(0.0));
  }
  DEEPSCOPE_HD void linear_step(FloatExp ar, FloatExp ai, FloatExp br, FloatExp bi, FloatExp s) {
    mul_add(ar, ai, 0, br * s, bi * s);
  }
  DEEPSCOPE_HD FloatExp real() const { return FloatExp::make(r, e); }
  DEEPSCOPE_HD FloatExp imag() const { return FloatExp::make(i, e); }
};

// z's parts scaled by a common power of two into binary64's range, for its direction (the stripe
// average at any depth: z near 0 at a minibrot's period steps is far below 2^-1022 there).
DEEPSCOPE_HD void direction_parts(double zr, double zi, double* a, double* b) {
  *a = zr;
  *b = zi;
}
DEEPSCOPE_HD void direction_parts(FloatExp zr, FloatExp zi, double* a, double* b) {
  const int32_t e = Deriv<FloatExp>::top(zr, zi);
  *a = scale_down(zr.m, zr.e - e);
  *b = scale_down(zi.m, zi.e - e);
}

// Kalles Fraktaler's square-root smoothing (KF 2.15 fraktal_sft.cpp, OutputIterationData,
// SmoothMethod_Sqrt, read and written again): KF escapes at the first m with |z_m| > R and takes
// trans = (|z_m| - R) / (|z_m| - |z_(m-1)|), the escape's place between the last two moduli, and
// the value m + 1 - trans. Our escape n is the first with |z_n| > 2 (|z_n|^2 > 4), so for R >= 2
// every earlier |z| is <= R and m is the first step from n on past R: z is carried on from z_n
// (in binary64, as smooth_tail does; |z| grows at least to |z|(|z| - 1) a step once past
// max(2, |c|), so a few steps reach any R <= 1e100). At m = n, |z_(n-1)|^2 = |z_n - c| exactly,
// so the escaped z_n and c give it without keeping z_(n-1). Returns (m - n) + 1 - trans (KF's
// value = count + it; in [0, 1] at R = 2). In binary64 |z_n - c| <= 4 carries an absolute error
// near 2^-50, so |z_(n-1)| stays within 2^-25 even where it is near 0, and the denominator is at
// least |z_m| - R > 0.
DEEPSCOPE_HD float sqrt_smooth_fraction(double zr, double zi, double cr, double ci, double radius) {
  double zn = ::sqrt(zr * zr + zi * zi);
  const double dr = zr - cr, di = zi - ci;
  double prev = ::sqrt(::sqrt(dr * dr + di * di));
  int extra = 0;
  for (; zn <= radius && extra < 64; ++extra) {
    const double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    prev = zn;
    zn = ::sqrt(zr * zr + zi * zi);
  }
  const double div = zn - prev;
  double trans = div > 0.0 ? (zn - radius) / div : 0.0;  // KF: 0 where the moduli are equal
  trans = trans < 0.0 ? 0.0 : trans > 1.0 ? 1.0 : trans;
  return static_cast<float>(extra + 1.0 - trans);
}

// The fields of a pixel that escaped with z = (zr, zi) (|z| > 2) and scaled derivative J = (jr, ji)
// (E: double or FloatExp), c = (cr, ci) in binary64, s the pixel spacing, `sqrt_radius` KF's
// escape radius for the square-root smoothing (sqrt_smooth_fraction). inv maps a c-plane vector
// in pixel spacings to image axes at this pixel (image_axes_inverse; per pixel for the exponential
// map). Like smooth_tail, z and J are carried on in binary64 (z) and E (J) until |z| > 2^8, where the
// estimate |z| ln|z| / |dz/dc| is close to its limit; the phase is that of the escaped z itself (the
// count's z, so binary decomposition follows the count bands). `stripe` holds the orbit's stripe
// average up to the escaped z (when sp.density != 0); the extra steps are folded into it.
template <class E>
DEEPSCOPE_HD FieldValues finish_fields(double zr, double zi, E jr, E ji, E s, double cr, double ci,
                                       const double* inv, const StripeSpec& sp, StripeAcc stripe,
                                       double sqrt_radius) {
  FieldValues f;
  constexpr double kTwoPi = 6.283185307179586;
  double ph = atan2(zi, zr) / kTwoPi;
  if (ph < 0.0) ph += 1.0;
  f.phase = ph >= 1.0 ? 0.0f : static_cast<float>(ph);
  if (f.phase >= 1.0f) f.phase = 0.0f;  // rounding up to 1 in float
  f.sqrt_smooth = sqrt_smooth_fraction(zr, zi, cr, ci, sqrt_radius);
  double r2 = zr * zr + zi * zi;
  for (int q = 0; q < 64 && r2 <= 65536.0; ++q) {
    const E tr = jr * (2.0 * zr) - ji * (2.0 * zi) + s;
    ji = jr * (2.0 * zi) + ji * (2.0 * zr);
    jr = tr;
    const double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    r2 = zr * zr + zi * zi;
    if (sp.density) stripe.add(sp, zr, zi, 1);
  }
  if (sp.density) f.stripe = stripe_store(stripe.value(r2), stripe.approx > kStripeApproxWeight);
  // v = z ln|z| / J in floatexp (no overflow for any J): the vector in pixel spacings, c-plane axes.
  const FloatExp fjr = as_floatexp(jr), fji = as_floatexp(ji);
  const FloatExp den = sqr(fjr) + sqr(fji);
  double vr, vi;
  if (!(den.m > 0)) {  // no derivative: as far from the set as a float says
    vr = FLT_MAX;
    vi = 0.0;
  } else {
    const double l = 0.5 * log(r2);
    const FloatExp nr(zr * l), ni(zi * l);
    vr = to_double((nr * fjr + ni * fji) / den);
    vi = to_double((ni * fjr - nr * fji) / den);
  }
  f.dex = clamp_to_float(inv[0] * vr + inv[1] * vi);
  f.dey = clamp_to_float(inv[2] * vr + inv[3] * vi);
  return f;
}

// The inverse of the 2x2 matrix a (row-major) into inv; a is non-singular (geometry() checks the map).
DEEPSCOPE_HD void invert_2x2(const double* a, double* inv) {
  const double det = a[0] * a[3] - a[1] * a[2];
  inv[0] = a[3] / det;
  inv[1] = -a[1] / det;
  inv[2] = -a[2] / det;
  inv[3] = a[0] / det;
}

// For a linear view: c - centre = s M p with p the pixel offset (y up), so a c-plane vector v (in
// spacings) is p = M^-1 v in pixels, and (p_x, -p_y) in image axes (y down).
DEEPSCOPE_HD void image_axes_inverse(const double* m, double* inv) {
  const double a[4] = {m[0], -m[1], m[2], -m[3]};  // M diag(1, -1): image axes to the c-plane
  invert_2x2(a, inv);
}

}  // namespace ds::mandel
