// The per-item math of formulas (host + device): one opcode, one phase, one pixel's escape-time
// iteration, templated on the number type (binary64 today; any type with + - * and abs_of / a
// comparison later). The CPU render (direct.cpp) runs exactly these functions.
#pragma once
#include <cmath>
#include <cstdint>

#include "arith/hd.h"
#include "formula.h"
#include "kernels/mandelbrot/counts.h"

namespace ds::formula {

DEEPSCOPE_HD double abs_of(double v) { return ::fabs(v); }

// One opcode on (x, y) with the stored value (sx, sy) and c = (cr, ci). The square is
// (x^2 - y^2, 2xy) and the product (x sx - y sy, x sy + y sx), each operation rounded once in T.
template <class T>
DEEPSCOPE_HD void apply_op(Op op, T& x, T& y, T& sx, T& sy, const T& cr, const T& ci) {
  switch (op) {
    case Op::kAbsX:
      x = abs_of(x);
      break;
    case Op::kAbsY:
      y = abs_of(y);
      break;
    case Op::kNegX:
      x = -x;
      break;
    case Op::kNegY:
      y = -y;
      break;
    case Op::kSqr: {
      const T xx = x * x, yy = y * y, xy = x * y;
      x = xx - yy;
      y = xy + xy;
      break;
    }
    case Op::kStore:
      sx = x;
      sy = y;
      break;
    case Op::kMul: {
      const T re = x * sx - y * sy, im = x * sy + y * sx;
      x = re;
      y = im;
      break;
    }
    case Op::kAdd:
      x = x + cr;
      y = y + ci;
      break;
  }
}

// z <- phase p of f applied to z (the stored value starts as z, as in Fraktaler-3).
template <class T>
DEEPSCOPE_HD void phase_step(const Phase& p, T& x, T& y, const T& cr, const T& ci) {
  T sx = x, sy = y;
  for (int k = 0; k < p.count; ++k) apply_op(p.ops[k], x, y, sx, sy, cr, ci);
}

// The step from z_n to z_{n+1}: phase n mod phases (formula.h).
template <class T>
DEEPSCOPE_HD void formula_step(const Formula& f, uint64_t n, T& x, T& y, const T& cr, const T& ci) {
  phase_step(f.phase[n % static_cast<uint64_t>(f.phases)], x, y, cr, ci);
}

// The smooth count of an orbit that escaped at count n with z_n = (zr, zi), continued in binary64
// with the formula's own phases until |z| > 2^8: mu = m + 1 - log_d(log2 |z_m|), d the mean degree
// (mandelbrot.cuh's smooth_tail for d = 2), stored as counts.h says (wide: mu - n).
DEEPSCOPE_HD float formula_smooth(const Formula& f, double log_degree, uint64_t n, double zr, double zi,
                                  double cr, double ci, bool wide) {
  double r2 = zr * zr + zi * zi;
  double k = 0.0;
  uint64_t m = n;
  for (int q = 0; q < 64 && r2 <= 65536.0; ++q) {
    formula_step(f, m, zr, zi, cr, ci);
    ++m;
    r2 = zr * zr + zi * zi;
    k += 1.0;
  }
  const double loglog = ::log(0.5 * ::log2(r2)) / log_degree;
  if (wide) {
    const double excess = k + 1.0 - loglog;
    const double floor = -static_cast<double>(n);
    return static_cast<float>(excess > floor ? excess : floor);
  }
  const double mu = static_cast<double>(n) + k + 1.0 - loglog;
  return static_cast<float>(mu > 0.0 ? mu : 0.0);
}

// phase_step in binary64 with a running bound r >= |z~ - z| (z~ the computed orbit, z the exact
// orbit of the exact c, |c~ - c| <= ec). Per opcode, u = 2^-53 (formula.h's ops on z~):
//   abs, neg: r (|.| is 1-Lipschitz, exact in binary64)
//   sqr:  r (2|z~| + r) + 3u|z~|^2      (|z^2 - z~^2| <= r |z + z~|; rounding of x^2 - y^2 and 2xy)
//   mul:  r|s~| + r_s|z~| + r r_s + 4u|z~||s~|   (s the stored value, r_s its bound)
//   add:  r + ec + 2u|z~ + c~|
// The bound is in the Euclidean norm, so abs and neg of one component keep it.
DEEPSCOPE_HD void phase_step_bounded(const Phase& p, double& x, double& y, double cr, double ci, double& r,
                                     double ec) {
  constexpr double u = 0x1p-53;
  double sx = x, sy = y, rs = r;
  for (int k = 0; k < p.count; ++k) {
    const Op op = p.ops[k];
    const double az = ::sqrt(x * x + y * y);
    if (op == Op::kSqr) {
      r = r * (2.0 * az + r) + 3.0 * u * az * az;
    } else if (op == Op::kStore) {
      rs = r;
    } else if (op == Op::kMul) {
      const double as = ::sqrt(sx * sx + sy * sy);
      r = r * as + rs * az + r * rs + 4.0 * u * az * as;
    }
    apply_op(op, x, y, sx, sy, cr, ci);
    if (op == Op::kAdd) r = r + ec + 2.0 * u * ::sqrt(x * x + y * y);
  }
}

// One pixel at c = (cr, ci) (the caller computes c; cr_d, ci_d its nearest doubles): the first
// n >= 1 with |z_n|^2 > 4, or max_iter (mandelbrot.cuh's contract). |c| > 2 escapes at n = 1.
// Escape radius 2 holds for every phase of degree >= 2 while |c| <= 2 (parse_formula checks it).
template <class T>
DEEPSCOPE_HD mandel::PixelResult formula_pixel(const Formula& f, double log_degree, uint64_t max_iter,
                                               const T& cr, const T& ci, double cr_d, double ci_d) {
  const bool wide = mandel::wide_counts(max_iter);
  if (cr_d * cr_d + ci_d * ci_d > 4.0)
    return {1u, formula_smooth(f, log_degree, 1u, cr_d, ci_d, cr_d, ci_d, wide)};
  T x = cr, y = ci;
  for (uint64_t n = 1; n < max_iter; ++n) {
    const double xd = static_cast<double>(x), yd = static_cast<double>(y);
    if (xd * xd + yd * yd > 4.0) return {n, formula_smooth(f, log_degree, n, xd, yd, cr_d, ci_d, wide)};
    formula_step(f, n, x, y, cr, ci);
  }
  return {max_iter, mandel::smooth_at_limit(max_iter)};
}

// The orbit from z_1 = (zr, zi) (|z~_1 - z_1| <= ez) with c = (cr, ci) (|c~ - c| <= ec) in binary64
// with the bound of phase_step_bounded: the count contract of formula_pixel, and *certified = true
// when every escape test up to the count was decided by the bound (|z~| - r > 2 at the escape,
// |z~| + r <= 2 before it), so the count is the exact orbit's. The parameter plane starts at z_1 = c
// (formula_pixel_certified); a Julia set at z_1 = the pixel (julia.h). slack >= 1 covers the
// bound's own roundings (three a step: (1 + u)^(3 max_iter)).
DEEPSCOPE_HD mandel::PixelResult formula_orbit_certified(const Formula& f, double log_degree, uint64_t max_iter,
                                                         double zr, double zi, double ez, double cr, double ci,
                                                         double ec, double slack, bool* certified) {
  const bool wide = mandel::wide_counts(max_iter);
  *certified = true;
  double x = zr, y = zi, r = ez;
  bool tracking = true;
  for (uint64_t n = 1; n < max_iter; ++n) {
    const double r2 = x * x + y * y;
    if (tracking) {
      const double az = ::sqrt(r2), rs = r * slack;
      const double lo = az * (1.0 - 0x1p-50) - rs, hi = az * (1.0 + 0x1p-50) + rs;
      const bool out = r2 > 4.0;
      if (out ? !(lo > 2.0) : !(hi <= 2.0)) {  // the disc straddles |z| = 2: undecided
        *certified = false;
        tracking = false;
      }
    }
    if (r2 > 4.0) return {n, formula_smooth(f, log_degree, n, x, y, cr, ci, wide)};
    if (tracking)
      phase_step_bounded(f.phase[n % static_cast<uint64_t>(f.phases)], x, y, cr, ci, r, ec);
    else
      formula_step(f, n, x, y, cr, ci);
  }
  return {max_iter, mandel::smooth_at_limit(max_iter)};
}

// The parameter plane's pixel at c (|c~ - c| <= ec): formula_orbit_certified from z_1 = c.
DEEPSCOPE_HD mandel::PixelResult formula_pixel_certified(const Formula& f, double log_degree,
                                                         uint64_t max_iter, double cr, double ci, double ec,
                                                         double slack, bool* certified) {
  return formula_orbit_certified(f, log_degree, max_iter, cr, ci, ec, cr, ci, ec, slack, certified);
}

}  // namespace ds::formula
