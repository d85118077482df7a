// The Mandelbrot escape-time iteration for one pixel, templated on the number type: the one
// function that the CPU backend and the CUDA kernels both run (host + device).
//
// Contract (docs/mandelbrot.md, "Counts"): z_1 = c, z_{n+1} = z_n^2 + c; the count is the first
// n >= 1 with |z_n|^2 > 4, or max_iter when no n < max_iter escapes. The same bailout for every
// format, so counts compare across formats. The smooth count continues the escaped orbit in
// binary64 (the orbit is then dominated by z^2, so precision no longer matters) until |z| > 2^8
// and returns m + 1 - log2(log2 |z_m|) (radius-2 normalisation, so smooth ~ count + fraction).
#pragma once
#include <cmath>
#include <cstdint>

#include "arith/eft.h"
#include "arith/hd.h"
#include "arith/native.h"
#include "view.h"

namespace ds::mandel {

struct PixelResult {
  uint32_t count;
  float smooth;
};

// Everything the per-pixel function needs, built on the host by make_params.
template <class T>
struct MandelParams {
  T re, im;                        // the centre, parsed exactly (T::from_string)
  T half_step;                     // s/2, s the pixel spacing
  double re_d, im_d, half_step_d;  // nearest doubles: the |c| > 2 pre-test and the smooth tail only
  int width, height;               // the whole image (tiles index into it)
  uint32_t max_iter;
};

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

// Hardware formats: the same recurrence written with explicit FMAs (7 FP instructions per step:
// 1 mul, 3 fma, 2 add, 1 compare). FMA contraction is off project-wide, so these fmas are the only
// ones, and host (std::fma) and device (__fma_rn) round identically.
template <class F>
DEEPSCOPE_HD bool escape_or_step(Native<F>& x, Native<F>& y, const Native<F>& cr, const Native<F>& ci) {
  const F y2 = y.v * y.v;
  if (eft::fma_rn(x.v, x.v, y2) > F(4)) return true;
  const F xn = eft::fma_rn(x.v, x.v, cr.v - y2);
  y.v = eft::fma_rn(x.v + x.v, y.v, ci.v);
  x.v = xn;
  return false;
}

// Pixel centre offsets in units of s/2: 2i + 1 - width and 2j + 1 - height (exact integers).
DEEPSCOPE_HD double pixel_offset(int index, int extent) { return 2.0 * index + 1.0 - extent; }

// The smooth count for an orbit that escaped at count n with z_n = (zr, zi), in binary64.
DEEPSCOPE_HD float smooth_tail(uint32_t n, double zr, double zi, double cr, double ci) {
  double r2 = zr * zr + zi * zi;
  double m = n;
  for (int k = 0; k < 64 && r2 <= 65536.0; ++k) {
    double t = zr * zr - zi * zi + cr;
    zi = 2.0 * zr * zi + ci;
    zr = t;
    r2 = zr * zr + zi * zi;
    m += 1.0;
  }
  double mu = m + 1.0 - log2(0.5 * log2(r2));  // log2|z| = log2(r2)/2
  return static_cast<float>(mu > 0.0 ? mu : 0.0);
}

// The count and smooth count of pixel (i, j) of the image (j = 0 at the top).
template <class T>
DEEPSCOPE_HD PixelResult mandel_pixel(const MandelParams<T>& p, int i, int j) {
  const double kr = pixel_offset(i, p.width);
  const double ki = pixel_offset(j, p.height);
  const double cr_d = p.re_d + kr * p.half_step_d;
  const double ci_d = p.im_d - ki * p.half_step_d;
  // |c| > 2 escapes at n = 1; testing it in binary64 keeps every iterated |c| <= 2, so fixed-point
  // formats never square more than |z| <= 6.
  if (cr_d * cr_d + ci_d * ci_d > 4.0) return {1u, smooth_tail(1u, cr_d, ci_d, cr_d, ci_d)};
  const T cr = p.re + p.half_step * kr;
  const T ci = p.im - p.half_step * ki;
  T x = cr, y = ci;
  uint32_t n = 1;
  for (; n < p.max_iter; ++n)
    if (escape_or_step(x, y, cr, ci)) break;
  if (n >= p.max_iter) return {p.max_iter, static_cast<float>(p.max_iter)};
  return {n, smooth_tail(n, to_double(x), to_double(y), cr_d, ci_d)};
}

// Host: the parameters of a validated view in T (centre and s/2 rounded by T::from_string).
template <class T>
MandelParams<T> make_params(const Geometry& g, const View& v) {
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
  return p;
}

}  // namespace ds::mandel
