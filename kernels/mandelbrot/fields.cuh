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

#include "arith/floatexp.h"
#include "arith/hd.h"

namespace ds::mandel {

struct FieldValues {
  float dex = 0.0f, dey = 0.0f;  // the distance estimate's vector in pixels (image axes: x right, y down)
  float phase = 0.0f;            // arg(z) / 2 pi of the escaped z, in [0, 1)
};

// Where a render's fields go (row-major like the counts); a null pointer: not asked.
struct FieldPtrs {
  float* dex = nullptr;
  float* dey = nullptr;
  float* phase = nullptr;
  DEEPSCOPE_HD bool any() const { return dex || phase; }
  DEEPSCOPE_HD void store(std::size_t k, const FieldValues& f) const {
    if (dex) {
      dex[k] = f.dex;
      dey[k] = f.dey;
    }
    if (phase) phase[k] = f.phase;
  }
};

DEEPSCOPE_HD FloatExp as_floatexp(double x) { return FloatExp(x); }
DEEPSCOPE_HD FloatExp as_floatexp(FloatExp x) { return x; }

DEEPSCOPE_HD float clamp_to_float(double x) {
  if (!(x == x)) return 0.0f;  // NaN: no estimate
  if (x > FLT_MAX) return FLT_MAX;
  if (x < -FLT_MAX) return -FLT_MAX;
  return static_cast<float>(x);
}

// The fields of a pixel that escaped with z = (zr, zi) (|z| > 2) and scaled derivative J = (jr, ji)
// (E: double or FloatExp), c = (cr, ci) in binary64, s the pixel spacing. inv maps a c-plane vector
// in pixel spacings to image axes at this pixel (image_axes_inverse; per pixel for the exponential
// map). Like smooth_tail, z and J are carried on in binary64 (z) and E (J) until |z| > 2^8, where the
// estimate |z| ln|z| / |dz/dc| is close to its limit; the phase is that of the escaped z itself (the
// count's z, so binary decomposition follows the count bands).
template <class E>
DEEPSCOPE_HD FieldValues finish_fields(double zr, double zi, E jr, E ji, E s, double cr, double ci,
                                       const double* inv) {
  FieldValues f;
  constexpr double kTwoPi = 6.283185307179586;
  double ph = atan2(zi, zr) / kTwoPi;
  if (ph < 0.0) ph += 1.0;
  f.phase = ph >= 1.0 ? 0.0f : static_cast<float>(ph);
  if (f.phase >= 1.0f) f.phase = 0.0f;  // rounding up to 1 in float
  double r2 = zr * zr + zi * zi;
  for (int q = 0; q < 64 && r2 <= 65536.0; ++q) {
    const E tr = jr * (2.0 * zr) - ji * (2.0 * zi) + s;
    ji = jr * (2.0 * zi) + ji * (2.0 * zr);
    jr = tr;
    const double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    r2 = zr * zr + zi * zi;
  }
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
