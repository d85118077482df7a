// Perturbation of a formula's orbit against a reference orbit (host + device): one function for
// every formula, driven by its opcodes, with a running error bound on the delta that decides each
// escape test or says it cannot. docs/perturbation/formulas.md.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "arith/floatexp.h"
#include "arith/hd.h"
#include "formula.h"
#include "kernels/mandelbrot/counts.h"
#include "kernels/perturb/bla.h"
#include "step.h"

namespace ds::formula {

// One BLA step of a formula (bla.h, docs/perturbation/formulas.md "BLA for formulas"): from reference index
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
  // FloatExp deltas: the same states and err[m] with an exponent (perturb.h's FormulaReference::
  // wr_fe ...), where the reference kept them; else the binary64 ones with their absolute floor.
  const FloatExp* wr_fe = nullptr;
  const FloatExp* wi_fe = nullptr;
  const FloatExp* err_fe = nullptr;
};

DEEPSCOPE_HD uint64_t state_index(const PerturbParams& p, uint64_t m) {
  const uint64_t ph = static_cast<uint64_t>(p.f.phases);
  return (m / ph) * p.period_states + p.prefix[m % ph];
}

// The delta types: binary64, and FloatExp (arith/floatexp.h: binary64's significand with a wide
// exponent) for views past binary64's range (s/2 below 2^-900). These helpers let one pixel
// function take either: magnitude, square root, the sign (of the significand: a FloatExp far below
// binary64's range keeps it), to binary64 rounded upwards in magnitude (for the escape test's
// slack), and the absolute floor the bound's own arithmetic needs (binary64's subnormals; none
// for FloatExp, which does not underflow in its range).
DEEPSCOPE_HD double delta_abs(double a) { return ::fabs(a); }
DEEPSCOPE_HD FloatExp delta_abs(FloatExp a) { return abs(a); }
DEEPSCOPE_HD double delta_sqrt(double a) { return ::sqrt(a); }
DEEPSCOPE_HD FloatExp delta_sqrt(FloatExp a) { return sqrt(a); }
DEEPSCOPE_HD double delta_sign(double a) { return a; }
DEEPSCOPE_HD double delta_sign(FloatExp a) { return a.m; }
DEEPSCOPE_HD double delta_up(double a) { return a; }
DEEPSCOPE_HD double delta_up(FloatExp a) { return ::fabs(to_double(a)) * (1.0 + 0x1p-51) + 0x1p-1074; }
DEEPSCOPE_HD double delta_value(double a) { return a; }
DEEPSCOPE_HD double delta_value(FloatExp a) { return to_double(a); }
template <class T>
DEEPSCOPE_HD constexpr double delta_eta() {
  return 0x1p-1070;
}
template <>
DEEPSCOPE_HD constexpr double delta_eta<FloatExp>() {
  return 0.0;
}

// The reference's state at index q, and its error at m (>= |W~ - W| beyond the rounding to the
// stored format), in the delta's type (the last argument picks it): binary64's with its absolute
// floor eta for binary64 deltas; for FloatExp deltas the states with an exponent where the
// reference kept them (an orbit that comes back closer to 0 than binary64 holds, as fractalshades'
// deep Julia view does at step 35,012 past zoom 1e1000, keeps its digits), else binary64's.
DEEPSCOPE_HD double ref_state(const double* d, const FloatExp*, uint64_t q, double) { return d[q]; }
DEEPSCOPE_HD FloatExp ref_state(const double* d, const FloatExp* fe, uint64_t q, FloatExp) {
  return fe ? fe[q] : FloatExp(d[q]);
}
DEEPSCOPE_HD double ref_error(const PerturbParams& p, uint64_t m, double) { return p.err[m] + 0x1p-1070; }
DEEPSCOPE_HD FloatExp ref_error(const PerturbParams& p, uint64_t m, FloatExp) {
  return p.err_fe ? p.err_fe[m] : FloatExp(p.err[m] + 0x1p-1070);
}

// |X + x| - |X| taken piecewise (KF's and Fraktaler-3's diffabs): exact where X + x keeps X's
// sign (then it is x or -x), one rounding (of 2X + x) where it crosses. The branch is taken on
// the sign of the rounded X + x, which is the sign of the exact sum.
template <class T, class W>
DEEPSCOPE_HD T diffabs(W X, T x) {
  const double s = delta_sign(x + X);
  if (delta_sign(X) >= 0) return s >= 0 ? x : -(x + X * 2.0);
  return s > 0 ? x + X * 2.0 : -x;
}

// The delta of |X + x| with its bound r >= |x~ - x| (Euclidean, of the whole delta): unchanged
// where both the exact and the computed sums provably keep X's sign (|X~ + x~| beyond the bound
// of the sum, |X~| beyond X's own error dX); else r + 2 dX (+ the rounding of 2X + x), since
// |.| is 1-Lipschitz: ||X~ + x~| - |X~| - (|X + x| - |X|)| <= |x~ - x| + 2|X~ - X|.
template <class T, class W>
DEEPSCOPE_HD void diffabs_bounded(W X, T& x, T& r, W dX, double slack) {
  constexpr double u = 0x1p-53;
  const T s = x + X;
  const double sg = delta_sign(s);
  const bool crossed = delta_sign(X) >= 0 ? sg < 0 : sg > 0;
  const bool sure = !crossed && delta_abs(s) * (1.0 - 2.0 * u) > (r + dX) * slack && delta_abs(X) > dX;
  if (!sure) r = r + dX * 2.0 + (crossed ? delta_abs(x + X * 2.0) * u : T(0.0)) + delta_eta<T>();
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
// in a Julia set the first such index >= 1, Z_1 the view's centre), or where the reference ends,
// the delta becomes z - Z_m0 and m = m0: exact algebra against the
// same orbit, its roundings added to r. A pixel that must rebase where no such index is left is
// undecided. BLA (p.bla): at m = 1 + k 2^l the longest entry (level <= l, at least 2) whose radius
// holds the delta (|x| + |y| + r < R, |d~| + r bounding the exact delta) and that ends by max_iter
// replaces its 2^l iterations: d' = A d~ + B dc~, r' = |A| r + |B| ec + ea (|d~| + r) +
// eb (|dc~| + ec) + the roundings of A d + B dc; the escape tests inside an entry's steps are
// decided "not escaped" by its construction (bla.cpp). *skipped (when given) adds the iterations
// BLA replaced.
// T = FloatExp (views past binary64's range): the same operations on FloatExp deltas (each
// rounded once at 2^-53 like binary64's, with no underflow: no absolute floor in the delta's bound),
// z~ = Z~ + x~ formed in binary64 for the escape test (one more rounding, u|x~|, in its slack),
// the sum for rebasing in FloatExp; BLA from the binary64 table (its entries' A, B, ea, eb are
// relative, valid for any delta below the radius), skipping entries with radius below 2^-1000.
// The reference's states and their errors are FloatExp too (ref_state, ref_error) where the
// reference kept them (FormulaReference::wr_fe, up to kFloatExpStatesMaxBits): an orbit that comes
// back closer to 0 than binary64 holds keeps its digits, and the rebase's roundings are taken in
// FloatExp. Read as binary64 instead (the floor eta on dW), every pixel past zoom ~1e1050 at
// fractalshades' deep Julia view was left undecided from the reference's step 35,012 on.
template <class T>
DEEPSCOPE_HD mandel::PixelResult formula_perturb_pixel(const PerturbParams& p, T dcr, T dci, T ec, bool* decided,
                                                       uint64_t* skipped = nullptr) {
  constexpr double u = 0x1p-53, uz = 1.0 + 0x1p-50, eta = 0x1p-1070;
  constexpr double teta = delta_eta<T>();
  const bool wide = mandel::wide_counts(p.max_iter);
  const uint64_t P = static_cast<uint64_t>(p.f.phases);
  T x = dcr, y = dci, r = ec;
  // What each add (and BLA's B) takes: dc in the parameter plane, nothing in a Julia set.
  const T zero(0.0);
  const T acr = p.julia ? zero : dcr, aci = p.julia ? zero : dci, aec = p.julia ? zero : ec;
  const double tail_cr = p.julia ? p.cr_d : p.re_d + delta_value(dcr);
  const double tail_ci = p.julia ? p.ci_d : p.im_d + delta_value(dci);
  uint64_t m = 1;
  bool tracking = true;
  *decided = true;
  for (uint64_t n = 1; n < p.max_iter; ++n) {
    uint64_t q = state_index(p, m);
    const double xd = delta_value(x), yd = delta_value(y);
    const double zx = p.wr[q] + xd, zy = p.wi[q] + yd;
    const double r2 = zx * zx + zy * zy, az = ::sqrt(r2);
    const double dz = u * uz * ::sqrt(p.wr[q] * p.wr[q] + p.wi[q] * p.wi[q]) + p.err[m] + eta;
    if (tracking) {
      // For FloatExp, x~ rounded to binary64 before the sum: u|x~| more (|x~| <= |z~| + |Z~| + ...).
      const double round_x = (std::is_same<T, double>::value ? 0.0 : u * uz * (::fabs(xd) + ::fabs(yd)));
      const double e = (delta_up(r) + dz + u * az + round_x) * p.slack + az * 0x1p-50;
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
      // z - Z_m0 = (Z_m + x) - Z_m0: in T, so that a delta far below binary64's range keeps its digits.
      const T Wr = ref_state(p.wr, p.wr_fe, q, x), Wi = ref_state(p.wi, p.wi_fe, q, x);
      const T W0r = ref_state(p.wr, p.wr_fe, q0, x), W0i = ref_state(p.wi, p.wi_fe, q0, x);
      const T wx = (x + Wr) - W0r, wy = (y + Wi) - W0i;
      if (at_end || delta_abs(wx) + delta_abs(wy) < delta_abs(x) + delta_abs(y)) {
        if (m0 + 1 >= p.length) {  // the reference ends before the pixel's phase comes round
          *decided = false;
          return {n, 0.0f};
        }
        if (tracking) {
          if constexpr (std::is_same<T, double>::value) {
            const double d0 = u * uz * ::sqrt(p.wr[q0] * p.wr[q0] + p.wi[q0] * p.wi[q0]) + p.err[m0] + eta;
            // The two sums' roundings: u|Z~ + x~| and u|w~| (and the reference's errors at m and m0).
            r = r + dz + u * az + d0 + delta_sqrt(wx * wx + wy * wy) * u + teta;
          } else {
            // The same terms in FloatExp: where the pixel rebases, its z and the states may be far
            // below binary64's range (dz, az above are binary64's, floored for the escape test).
            const T zr = x + Wr, zi = y + Wi;
            const T dq = delta_sqrt(Wr * Wr + Wi * Wi) * (u * uz) + ref_error(p, m, x);
            const T d0 = delta_sqrt(W0r * W0r + W0i * W0i) * (u * uz) + ref_error(p, m0, x);
            r = r + dq + delta_sqrt(zr * zr + zi * zi) * u + d0 + delta_sqrt(wx * wx + wy * wy) * u;
          }
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
      const T ad = delta_abs(x) + delta_abs(y);
      bool stepped = false;
      for (; l >= 2; --l) {
        const uint64_t idx = p.bla_offset[l] + (k >> l);
        if (idx >= p.bla_offset[l + 1]) continue;  // no entry this close to the reference's end
        const uint64_t len = uint64_t{1} << l;
        if (p.max_iter - n < len) continue;
        const FormulaBlaEntry& e = p.bla[idx];
        // FloatExp deltas take no entry whose radius is near binary64's subnormals (its rounding
        // there is absolute, not relative: the radius's margin would not cover it).
        if (!std::is_same<T, double>::value && !(e.r >= 0x1p-1000)) continue;
        if (!((tracking ? ad + r : ad) < T(e.r))) continue;
        const T nx = (x * e.a[0] + y * e.a[1]) + (acr * e.b[0] + aci * e.b[1]);
        const T ny = (x * e.a[2] + y * e.a[3]) + (acr * e.b[2] + aci * e.b[3]);
        if (tracking) {
          // Each component is four products summed (gamma_4 < 6u over the rows' norms).
          const T ac = delta_abs(acr) + delta_abs(aci);
          r = (r * e.an + aec * e.bn + (ad + r) * e.ea + (ac + aec) * e.eb + (ad * e.an + ac * e.bn) * (6.0 * u)) *
                  (1.0 + 0x1p-48) +
              teta;
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
    const T em = ref_error(p, m, x);
    T sx = x, sy = y, rs = r;
    uint64_t qs = q;
    for (int k = 0; k < ph.count; ++k) {
      const T Wx = ref_state(p.wr, p.wr_fe, q + k, x), Wy = ref_state(p.wi, p.wi_fe, q + k, x);
      switch (ph.ops[k]) {
        case Op::kAbsX:
          if (tracking)
            diffabs_bounded(Wx, x, r, delta_abs(Wx) * (u * uz) + em, p.slack);
          else
            x = diffabs(Wx, x);
          break;
        case Op::kAbsY:
          if (tracking)
            diffabs_bounded(Wy, y, r, delta_abs(Wy) * (u * uz) + em, p.slack);
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
          const T ax = x + Wx * 2.0, ay = y + Wy * 2.0;
          const T nx = ax * x - ay * y, ny = ax * y + ay * x;
          if (tracking) {
            const T dW = delta_sqrt(Wx * Wx + Wy * Wy) * (u * uz) + em;
            const T fx = x + Wx, fy = y + Wy, zf = delta_sqrt(fx * fx + fy * fy);
            const T ad = delta_sqrt(x * x + y * y), aa = delta_sqrt(ax * ax + ay * ay);
            // (The order of the old binary64 expression, so that its roundings stay the same.)
            r = ad * (dW * 2.0) + ((zf * 2.0 + dW * 2.0) + r) * r + (aa * (4.0 * u)) * ad + teta;
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
          const T Sx = ref_state(p.wr, p.wr_fe, qs, x), Sy = ref_state(p.wi, p.wi_fe, qs, x);
          const T bx = sx + Sx, by = sy + Sy;
          const T nx = (sx * Wx - sy * Wy) + (x * bx - y * by);
          const T ny = (sy * Wx + sx * Wy) + (x * by + y * bx);
          if (tracking) {
            const T aW = delta_sqrt(Wx * Wx + Wy * Wy), dW = aW * (u * uz) + em;
            const T dS = delta_sqrt(Sx * Sx + Sy * Sy) * (u * uz) + em;
            const T as = delta_sqrt(sx * sx + sy * sy), ab = delta_sqrt(bx * bx + by * by);
            const T ad = delta_sqrt(x * x + y * y);
            const T fx = x + Wx, fy = y + Wy, zf = delta_sqrt(fx * fx + fy * fy);
            r = as * dW + r * ab + (ad + r) * dS + ((zf + dW) + r) * rs + (as * aW + ab * ad) * (6.0 * u) + teta;
          }
          x = nx;
          y = ny;
          break;
        }
        case Op::kAdd:
          if (p.julia) break;  // the pixel's c is the reference's: its delta is 0
          x = x + dcr;
          y = y + dci;
          if (tracking) r = r + ec + delta_sqrt(x * x + y * y) * u + teta;
          break;
      }
    }
    ++m;
  }
  return {p.max_iter, mandel::smooth_at_limit(p.max_iter)};
}

}  // namespace ds::formula
