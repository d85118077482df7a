// Perturbation of a formula's orbit against a reference orbit (host + device): one function for
// every formula, driven by its opcodes, with a running error bound on the delta that decides each
// escape test or says it cannot. docs/perturbation.md, "Formulas: diffabs and the bound".
#pragma once
#include <cmath>
#include <cstdint>

#include "arith/hd.h"
#include "formula.h"
#include "kernels/mandelbrot/counts.h"
#include "kernels/perturb/bla.h"
#include "step.h"

namespace ds::formula {

// One BLA step of a formula (bla.h, docs/perturbation.md "BLA for formulas"): from reference index
// m, the delta d (exact: against the exact reference and c) becomes after 2^l iterations
//   A d + B dc + e,  |e| <= ea |d| + eb |dc|,  for every |d| < r and |dc| <= the table's dcmax,
// with A and B real 2x2 matrices (row-major: x' = a[0] x + a[1] y, y' = a[2] x + a[3] y), since
// abs and neg are not complex-linear. e holds what BLA drops (the squares and products of deltas,
// kept below 2^-53 of the linear terms by r), the reference's own error and the coefficients'
// roundings. r = 0: never used (a fold too close, an escape test inside the steps the bound cannot
// decide, or coefficients out of binary64's range).
struct FormulaBlaEntry {
  double a[4] = {}, b[4] = {};
  double r = 0;
  double an = 0, bn = 0;  // >= the spectral norms of A and B
  double ea = 0, eb = 0;
};

// The reference as the pixels read it (perturb.h's FormulaReference, flattened): for each index
// m < length - 1 the states W_{m,k} of its orbit before opcode k of phase m mod phases (W_{m,0} =
// Z_m), each rounded to binary64 from MPFR; for m = length - 1 only Z_m. err[m] >= the MPFR
// orbit's own error at every state of m (before rounding to binary64).
struct PerturbParams {
  Formula f;
  const double* wr = nullptr;
  const double* wi = nullptr;
  const double* err = nullptr;
  uint64_t length = 0;                      // Z_0 .. Z_{length-1}
  uint64_t period_states = 0;               // states over one period of the phases
  uint32_t prefix[kFormulaMaxPhases] = {};  // states before phase p within a period
  uint64_t max_iter = 0;
  double log_degree = 0;      // log of the mean degree (smooth counts)
  double slack = 1;           // covers the bound's own roundings
  double re_d = 0, im_d = 0;  // the reference's centre (smooth tail's c)
  // A Julia set (julia.h): the reference starts at Z_1 = the view's centre with c the seed (cr_d,
  // ci_d: the smooth tail's c), Z_0 does not exist (rebasing goes to the first index >= 1 with the
  // pixel's phase), and the delta recurrence has no + dc: the pixel's start dz is the first delta.
  bool julia = false;
  double cr_d = 0, ci_d = 0;
  // BLA (bla.h's FormulaBlaTable): level l's entries at bla + bla_offset[l], the entry k of level l
  // starting at m = 1 + k 2^l; bla_levels 0: none. Every pixel's |dc~| + ec <= the table's dcmax.
  const FormulaBlaEntry* bla = nullptr;
  uint64_t bla_offset[perturb::kMaxBlaLevels + 1] = {};
  int bla_levels = 0;
};

DEEPSCOPE_HD uint64_t state_index(const PerturbParams& p, uint64_t m) {
  const uint64_t ph = static_cast<uint64_t>(p.f.phases);
  return (m / ph) * p.period_states + p.prefix[m % ph];
}

// |X + x| - |X| taken piecewise (KF's and Fraktaler-3's diffabs): exact where X + x keeps X's
// sign (then it is x or -x), one rounding (of 2X + x) where it crosses. The branch is taken on
// the sign of the rounded X + x, which is the sign of the exact sum.
DEEPSCOPE_HD double diffabs(double X, double x) {
  const double s = X + x;
  if (X >= 0) return s >= 0 ? x : -(2.0 * X + x);
  return s > 0 ? 2.0 * X + x : -x;
}

// The delta of |X + x| with its bound r >= |x~ - x| (Euclidean, of the whole delta): unchanged
// where both the exact and the computed sums provably keep X's sign (|X~ + x~| beyond the bound
// of the sum, |X~| beyond X's own error dX); else r + 2 dX (+ the rounding of 2X + x), since
// |.| is 1-Lipschitz: ||X~ + x~| - |X~| - (|X + x| - |X|)| <= |x~ - x| + 2|X~ - X|.
DEEPSCOPE_HD void diffabs_bounded(double X, double& x, double& r, double dX, double slack) {
  constexpr double u = 0x1p-53;
  const double s = X + x;
  const bool crossed = X >= 0 ? s < 0 : s > 0;
  const bool sure = !crossed && ::fabs(s) * (1.0 - 2.0 * u) > (r + dX) * slack && ::fabs(X) > dX;
  if (!sure) r = r + 2.0 * dX + (crossed ? u * ::fabs(2.0 * X + x) : 0.0) + 0x1p-1070;
  x = diffabs(X, x);
}

// One pixel at c = C + dc (C the reference's centre; ec >= |dc~ - dc|), from z_1 = Z_1 + dc; in a
// Julia set (p.julia) the pixel z_1 = Z_1 + dc with c the reference's own, so no add takes dc. The
// count contract of formula_pixel (step.h). Per opcode of the pixel's phase, with W the
// reference's state, x the delta, s its stored value (S the reference's), r its bound and dW >=
// |W~ - W| (u|W~| from the rounding to binary64, err[m] from MPFR's):
//   absx, absy: diffabs_bounded;  negx, negy: exact;  store: s = x;  add: x + dc (r + ec + u|x'|);
//   sqr: x' = (2W + x) x,   r' = 2 dW|x| + (2|W + x| + 2 dW + r) r + 4u|2W + x||x|;
//   mul: x' = W s + x (S + s),
//        r' = dW|s| + r|S + s| + (|x| + r) dS + (|W + x| + dW + r) rs + 6u(|W||s| + |S + s||x|).
// (First-order terms in the moduli of the pixel's own z and s, so the bound grows as the pixel's
// orbit's derivative does; the dW terms are the reference's rounding, relative to the delta.)
// The escape test |z|^2 > 4 on z~ = Z~_m + x~ is decided when |z~| is farther from 2 than
// r + dZ + u|z~| (times slack); once a test is not, *decided = false and the count continues
// untracked (the caller re-decides it). Rebasing (Zhuoran): where |z - Z_m0| < |x| (L1) for m0 =
// n mod phases, the first index with the pixel's next phase (m0 = 0 for one phase: Z_0 = 0, exact;
// in a Julia set the first such index >= 1, Z_1 the view's centre), or where the reference ends, the delta becomes z - Z_m0 and m = m0: exact algebra against the
// same orbit, its roundings added to r. A pixel that must rebase where no such index is left is
// undecided. BLA (p.bla): at m = 1 + k 2^l the longest entry (level <= l, at least 2) whose radius
// holds the delta (|x| + |y| + r < R, |d~| + r bounding the exact delta) and that ends by max_iter
// replaces its 2^l iterations: d' = A d~ + B dc~, r' = |A| r + |B| ec + ea (|d~| + r) +
// eb (|dc~| + ec) + the roundings of A d + B dc; the escape tests inside an entry's steps are
// decided "not escaped" by its construction (bla.cpp). *skipped (when given) adds the iterations
// BLA replaced.
DEEPSCOPE_HD mandel::PixelResult formula_perturb_pixel(const PerturbParams& p, double dcr, double dci,
                                                       double ec, bool* decided, uint64_t* skipped = nullptr) {
  constexpr double u = 0x1p-53, uz = 1.0 + 0x1p-50, eta = 0x1p-1070;
  const bool wide = mandel::wide_counts(p.max_iter);
  const uint64_t P = static_cast<uint64_t>(p.f.phases);
  double x = dcr, y = dci, r = ec;
  // What each add (and BLA's B) takes: dc in the parameter plane, nothing in a Julia set.
  const double acr = p.julia ? 0.0 : dcr, aci = p.julia ? 0.0 : dci, aec = p.julia ? 0.0 : ec;
  const double tail_cr = p.julia ? p.cr_d : p.re_d + dcr, tail_ci = p.julia ? p.ci_d : p.im_d + dci;
  uint64_t m = 1;
  bool tracking = true;
  *decided = true;
  for (uint64_t n = 1; n < p.max_iter; ++n) {
    uint64_t q = state_index(p, m);
    const double zx = p.wr[q] + x, zy = p.wi[q] + y;
    const double r2 = zx * zx + zy * zy, az = ::sqrt(r2);
    const double dz = u * uz * ::sqrt(p.wr[q] * p.wr[q] + p.wi[q] * p.wi[q]) + p.err[m] + eta;
    if (tracking) {
      const double e = (r + dz + u * az) * p.slack + az * 0x1p-50;
      if (r2 > 4.0 ? !(az - e > 2.0) : !(az + e <= 2.0)) {
        *decided = false;
        tracking = false;
      }
    }
    if (r2 > 4.0) return {n, formula_smooth(p.f, p.log_degree, n, zx, zy, tail_cr, tail_ci, wide)};
    uint64_t m0 = n % P;
    if (p.julia && m0 == 0) m0 = P;  // a Julia reference has no Z_0
    const bool at_end = m + 1 >= p.length;
    if (at_end || m != m0) {
      const uint64_t q0 = state_index(p, m0);
      const double wx = zx - p.wr[q0], wy = zy - p.wi[q0];
      if (at_end || ::fabs(wx) + ::fabs(wy) < ::fabs(x) + ::fabs(y)) {
        if (m0 + 1 >= p.length) {  // the reference ends before the pixel's phase comes round
          *decided = false;
          return {n, 0.0f};
        }
        if (tracking) {
          const double d0 = u * uz * ::sqrt(p.wr[q0] * p.wr[q0] + p.wi[q0] * p.wi[q0]) + p.err[m0] + eta;
          r = r + dz + u * az + d0 + u * ::sqrt(wx * wx + wy * wy) + eta;
        }
        x = wx;
        y = wy;
        m = m0;
        q = q0;
      }
    }
    if (m > 0 && p.bla_levels > 2) {  // levels 0 and 1 are empty (kernels/perturb/bla_levels.h)
      const uint64_t k = m - 1;
      int l = p.bla_levels - 1;
      if (k != 0) {
        int t = 0;
        while (((k >> t) & 1) == 0) ++t;
        if (t < l) l = t;
      }
      const double ad = ::fabs(x) + ::fabs(y);
      bool stepped = false;
      for (; l >= 2; --l) {
        const uint64_t idx = p.bla_offset[l] + (k >> l);
        if (idx >= p.bla_offset[l + 1]) continue;  // no entry this close to the reference's end
        const uint64_t len = uint64_t{1} << l;
        if (p.max_iter - n < len) continue;
        const FormulaBlaEntry& e = p.bla[idx];
        if (!((tracking ? ad + r : ad) < e.r)) continue;
        const double nx = (e.a[0] * x + e.a[1] * y) + (e.b[0] * acr + e.b[1] * aci);
        const double ny = (e.a[2] * x + e.a[3] * y) + (e.b[2] * acr + e.b[3] * aci);
        if (tracking) {
          // Each component is four products summed (gamma_4 < 6u over the rows' norms).
          const double ac = ::fabs(acr) + ::fabs(aci);
          r = (e.an * r + e.bn * aec + e.ea * (ad + r) + e.eb * (ac + aec) + 6.0 * u * (e.an * ad + e.bn * ac)) *
                  (1.0 + 0x1p-48) +
              eta;
        }
        x = nx;
        y = ny;
        m += len;
        n += len - 1;  // the loop adds the last one
        if (skipped) *skipped += len;
        stepped = true;
        break;
      }
      if (stepped) continue;
    }
    const Phase& ph = p.f.phase[m % P];
    const double em = p.err[m] + eta;
    double sx = x, sy = y, rs = r;
    uint64_t qs = q;
    for (int k = 0; k < ph.count; ++k) {
      const double Wx = p.wr[q + k], Wy = p.wi[q + k];
      switch (ph.ops[k]) {
        case Op::kAbsX:
          if (tracking)
            diffabs_bounded(Wx, x, r, u * uz * ::fabs(Wx) + em, p.slack);
          else
            x = diffabs(Wx, x);
          break;
        case Op::kAbsY:
          if (tracking)
            diffabs_bounded(Wy, y, r, u * uz * ::fabs(Wy) + em, p.slack);
          else
            y = diffabs(Wy, y);
          break;
        case Op::kNegX:
          x = -x;
          break;
        case Op::kNegY:
          y = -y;
          break;
        case Op::kSqr: {
          const double ax = 2.0 * Wx + x, ay = 2.0 * Wy + y;
          const double nx = ax * x - ay * y, ny = ax * y + ay * x;
          if (tracking) {
            const double dW = u * uz * ::sqrt(Wx * Wx + Wy * Wy) + em;
            const double fx = Wx + x, fy = Wy + y, zf = ::sqrt(fx * fx + fy * fy);
            const double ad = ::sqrt(x * x + y * y), aa = ::sqrt(ax * ax + ay * ay);
            r = 2.0 * dW * ad + (2.0 * zf + 2.0 * dW + r) * r + 4.0 * u * aa * ad + eta;
          }
          x = nx;
          y = ny;
          break;
        }
        case Op::kStore:
          sx = x;
          sy = y;
          rs = r;
          qs = q + k;
          break;
        case Op::kMul: {
          const double Sx = p.wr[qs], Sy = p.wi[qs];
          const double bx = Sx + sx, by = Sy + sy;
          const double nx = (Wx * sx - Wy * sy) + (x * bx - y * by);
          const double ny = (Wx * sy + Wy * sx) + (x * by + y * bx);
          if (tracking) {
            const double aW = ::sqrt(Wx * Wx + Wy * Wy), dW = u * uz * aW + em;
            const double dS = u * uz * ::sqrt(Sx * Sx + Sy * Sy) + em;
            const double as = ::sqrt(sx * sx + sy * sy), ab = ::sqrt(bx * bx + by * by);
            const double ad = ::sqrt(x * x + y * y);
            const double fx = Wx + x, fy = Wy + y, zf = ::sqrt(fx * fx + fy * fy);
            r = dW * as + r * ab + (ad + r) * dS + (zf + dW + r) * rs + 6.0 * u * (aW * as + ab * ad) + eta;
          }
          x = nx;
          y = ny;
          break;
        }
        case Op::kAdd:
          if (p.julia) break;  // the pixel's c is the reference's: its delta is 0
          x = x + dcr;
          y = y + dci;
          if (tracking) r = r + ec + u * ::sqrt(x * x + y * y) + eta;
          break;
      }
    }
    ++m;
  }
  return {p.max_iter, mandel::smooth_at_limit(p.max_iter)};
}

}  // namespace ds::formula
