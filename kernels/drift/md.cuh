// Per-atom math of the Lennard-Jones NVE run, shared by the CPU engine (md_cpu.cpp) and the
// CUDA engine (md.cu): the precision modes' types and their one dispatch, the cell of an
// atom, the pair force, the force on one atom from the 27 surrounding cells, and the two halves of
// a velocity-Verlet step.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "arith/format.h"
#include "arith/hd.h"
#include "drift.h"

namespace ds::drift {

// A precision mode: S holds positions and velocities, R computes pairs, and A sums each atom's
// pair forces and energy (S itself, or Fixed64 for the fixed-point mode).
template <class S, class R, class A = S>
struct MdTypes {
  using State = S;
  using Pair = R;
  using Acc = A;
};

// Fixed-point accumulation (AMBER's SPFP, Le Grand, Goetz and Walker, Comput. Phys. Commun. 184
// (2013) 374): each pair term y (a float) is scaled by 2^k (MdParams::fixed_bits), rounded to the
// nearest integer (ties to even) and added as a 64-bit integer. The integers are added modulo 2^64
// (unsigned, so an intermediate wrap is defined and undone by later terms), which is associative:
// the sum is the same to the bit in any order, on any number of threads or devices. The sum is
// exact whenever the true sum fits in int64; force_atom checks that per atom (see kFixedHeadroom).
struct Fixed64 {
  uint64_t bits = 0;
};
template <class A>
struct IsFixed {
  static constexpr bool kValue = false;
};
template <>
struct IsFixed<Fixed64> {
  static constexpr bool kValue = true;
};
// An atom's sums are known not to overflow when (number of terms) x max |term| x 2^k < 2^62: the
// rounded terms add up to at most that plus one per term, below 2^63. Past it the step is flagged.
constexpr double kFixedHeadroom = 4611686018427387904.0;  // 2^62

// y 2^k rounded to the nearest int64, ties to even, on both backends (y 2^k is exact in double: a
// float times a power of two). Outside (-2^62, 2^62) it gives 0; the range check flags such a term.
DEEPSCOPE_HD int64_t to_fixed(float y, double scale) {
  const double s = static_cast<double>(y) * scale;
  if (!(s > -kFixedHeadroom && s < kFixedHeadroom)) return 0;
#ifdef __CUDA_ARCH__
  return __double2ll_rn(s);
#else
  return static_cast<int64_t>(std::nearbyint(s));
#endif
}

// The one dispatch of the MD precision modes (see Precision in drift.h). f returns void.
template <class F>
void dispatch_precision(Precision p, F&& f) {
  switch (p) {
    case Precision::kFloat:
      return f(MdTypes<F32, float>{});
    case Precision::kDouble:
      return f(MdTypes<F64, double>{});
    case Precision::kComposite:
      return f(MdTypes<Composite, float>{});
    case Precision::kFF:
      return f(MdTypes<FloatFloat, float>{});
    case Precision::kMixed:
      return f(MdTypes<F64, float>{});
    case Precision::kFixed:
      return f(MdTypes<F64, float, Fixed64>{});
  }
  throw ArithError("unknown MD precision " + std::to_string(static_cast<int>(p)));
}

// The pair type's value of a - b + s * box (s in {-1, 0, 1}): for the two-word states the words
// are subtracted separately (the high-word difference of nearby atoms is exact or nearly so) and
// the two differences added in R, one rounding of the displacement plus u^2 terms.
template <class R>
DEEPSCOPE_HD R pair_diff(const F32& a, const F32& b, int s, const F32& box) {
  return static_cast<R>((a.v - b.v) + static_cast<float>(s) * box.v);
}
template <class R>
DEEPSCOPE_HD R pair_diff(const F64& a, const F64& b, int s, const F64& box) {
  return static_cast<R>((a.v - b.v) + static_cast<double>(s) * box.v);
}
template <class R>
DEEPSCOPE_HD R pair_diff(const Composite& a, const Composite& b, int s, const Composite& box) {
  const float fs = static_cast<float>(s);
  return ((a.v - b.v) + fs * box.v) + ((a.e - b.e) + fs * box.e);
}
template <class R>
DEEPSCOPE_HD R pair_diff(const FloatFloat& a, const FloatFloat& b, int s, const FloatFloat& box) {
  const float fs = static_cast<float>(s);
  return ((a.hi - b.hi) + fs * box.hi) + ((a.lo - b.lo) + fs * box.lo);
}

// The same for s = 0 (no periodic image), without the box terms.
template <class R>
DEEPSCOPE_HD R pair_diff0(const F32& a, const F32& b) {
  return static_cast<R>(a.v - b.v);
}
template <class R>
DEEPSCOPE_HD R pair_diff0(const F64& a, const F64& b) {
  return static_cast<R>(a.v - b.v);
}
template <class R>
DEEPSCOPE_HD R pair_diff0(const Composite& a, const Composite& b) {
  return (a.v - b.v) + (a.e - b.e);
}
template <class R>
DEEPSCOPE_HD R pair_diff0(const FloatFloat& a, const FloatFloat& b) {
  return (a.hi - b.hi) + (a.lo - b.lo);
}

// acc += one pair term computed in R, in the state's arithmetic.
DEEPSCOPE_HD void add_pair(F32& acc, float y) { acc.v = acc.v + y; }
DEEPSCOPE_HD void add_pair(F64& acc, float y) { acc.v = acc.v + static_cast<double>(y); }
DEEPSCOPE_HD void add_pair(F64& acc, double y) { acc.v = acc.v + y; }
// Thesis Figure 6 with y2 = (y, 0): the zero error word's addition left out (it changes no result
// other than the sign of a zero).
DEEPSCOPE_HD void add_pair(Composite& acc, float y) {
  const float zv = acc.v + y;
  const float t = zv - acc.v;
  acc.e = acc.v - (zv - t) + (y - t) + acc.e;
  acc.v = zv;
}
// DWPlusFP (JMP Algorithm 4), as FloatFloat + float.
DEEPSCOPE_HD void add_pair(FloatFloat& acc, float y) { acc = ff_detail::plus_fp(acc, y); }

// The high and low words of the two-word states, for the pair screening in force_atom.
template <class S>
struct TwoWord {
  static constexpr bool kIs = false;
};
template <>
struct TwoWord<Composite> {
  static constexpr bool kIs = true;
  DEEPSCOPE_HD static float hi(const Composite& x) { return x.v; }
  DEEPSCOPE_HD static float lo(const Composite& x) { return x.e; }
};
template <>
struct TwoWord<FloatFloat> {
  static constexpr bool kIs = true;
  DEEPSCOPE_HD static float hi(const FloatFloat& x) { return x.hi; }
  DEEPSCOPE_HD static float lo(const FloatFloat& x) { return x.lo; }
};
// Screening: a pair whose high-word distance is at least rc + kScreenMargin is skipped before the
// exact displacement is formed. While every position's low word stays within kMaxLowWord (checked
// at each drift; ff keeps |lo| <= 2^-24 |hi| anyway), the high-word displacement errs by at most
// 2 kMaxLowWord per axis, sqrt(3) * 0.1 = 0.17 < kScreenMargin in distance, so no pair within the
// cutoff is ever skipped and the forces are exactly those without screening.
constexpr float kScreenMargin = 0.25f;
constexpr float kMaxLowWord = 0.05f;

// The arrays and constants of one system, in device or host memory. Coordinates are stored as
// three arrays (x, y, z) of n atoms each.
template <class S, class R, class A = S>
struct MdView {
  S* x[3];
  S* v[3];
  S* f[3];
  S* pe;  // per atom: half the sum of its pair energies
  S* ke;  // per atom: v^2 / 2
  int* cell_count;
  int* cell_atoms;  // cap slots per cell, atoms in increasing index order
  int n, ncell, cap;
  S box, dt, half_dt;
  R half_box, rc2, ecut;
  R fcut, rc;  // shifted force (MdParams::shifted_force): F(rc) and rc; fcut == 0 otherwise
  double cell_scale;                   // ncell / box
  float box_hi, half_box_hi, screen2;  // two-word states: high word of box, (rc + margin)^2
  double fixed_scale, fixed_inv;       // fixed-point accumulation: 2^k and 2^-k
};

// The cell coordinate of a position along one axis, clamped (a position outside the box or not a
// number lands in an edge cell: only a blown-up system has such positions).
template <class S>
DEEPSCOPE_HD int cell_coord(const S& x, double scale, int ncell) {
  const double d = to_double(x) * scale;
  if (!(d >= 0.0)) return 0;
  if (d >= static_cast<double>(ncell)) return ncell - 1;
  return static_cast<int>(d);
}
template <class S, class R, class A>
DEEPSCOPE_HD int cell_of(const MdView<S, R, A>& m, int i) {
  const int cx = cell_coord(m.x[0][i], m.cell_scale, m.ncell);
  const int cy = cell_coord(m.x[1][i], m.cell_scale, m.ncell);
  const int cz = cell_coord(m.x[2][i], m.cell_scale, m.ncell);
  return cx + m.ncell * (cy + m.ncell * cz);
}

// Minimum-image displacement xi - xj along one axis, in R.
template <class S, class R, class A>
DEEPSCOPE_HD R min_image(const MdView<S, R, A>& m, const S& xi, const S& xj) {
  R d = pair_diff0<R>(xi, xj);
  if (d > m.half_box)
    d = pair_diff<R>(xi, xj, -1, m.box);
  else if (d < -m.half_box)
    d = pair_diff<R>(xi, xj, 1, m.box);
  return d;
}

// The force on atom i (and, with E, its potential energy) from every atom within the cutoff, in
// the 27 cells around its own, in cell order and then atom order, so the sum's order is fixed.
// Pair: u(r) = 4 (r^-12 - r^-6) - ecut, F = 24 (2 r^-12 - r^-6) / r^2 * d; with a shifted force
// (fcut != 0) F - fcut / r * d and u + (r - rc) fcut, r = sqrt(r2) correctly rounded on both sides.
// The sums are kept in A: the state type, or Fixed64, whose sums do not depend on the order. Returns
// true when a fixed-point sum could have left int64 (the forces of this step are then not exact).
template <class S, class R, bool E, class A = S>
DEEPSCOPE_HD bool force_atom(const MdView<S, R, A>& m, int i) {
  const int nc = m.ncell;
  const int cx = cell_coord(m.x[0][i], m.cell_scale, nc);
  const int cy = cell_coord(m.x[1][i], m.cell_scale, nc);
  const int cz = cell_coord(m.x[2][i], m.cell_scale, nc);
  constexpr bool kFixed = IsFixed<A>::kValue;
  A f0{}, f1{}, f2{}, pe{};
  if constexpr (!kFixed) f0 = f1 = f2 = pe = S(0.0);
  float amax = 0.0f;  // fixed point: the largest |term| and the number of pairs, for the range check
  int terms = 0;
  auto add = [&](A& acc, R y) {
    if constexpr (kFixed) {
      acc.bits += static_cast<uint64_t>(to_fixed(y, m.fixed_scale));
      const float a = y < 0 ? -y : y;
      amax = a > amax || a != a ? a : amax;  // a NaN term stays (and fails the check)
    } else {
      add_pair(acc, y);
    }
  };
  // Atom i's coordinates, and each candidate's, are loaded once: the screening and the exact
  // displacement below read the same values.
  const S xi[3] = {m.x[0][i], m.x[1][i], m.x[2][i]};
  float h[3] = {0.0f, 0.0f, 0.0f};
  if constexpr (TwoWord<S>::kIs)
    for (int k = 0; k < 3; ++k) h[k] = TwoWord<S>::hi(xi[k]);
  for (int dz = -1; dz <= 1; ++dz) {
    const int z = (cz + dz + nc) % nc;
    for (int dy = -1; dy <= 1; ++dy) {
      const int y = (cy + dy + nc) % nc;
      for (int dx = -1; dx <= 1; ++dx) {
        const int c = (cx + dx + nc) % nc + nc * (y + nc * z);
        int cnt = m.cell_count[c];
        cnt = cnt < m.cap ? cnt : m.cap;
        const int* atoms = m.cell_atoms + static_cast<int64_t>(c) * m.cap;
        for (int q = 0; q < cnt; ++q) {
          const int j = atoms[q];
          if (j == i) continue;
          const S xj[3] = {m.x[0][j], m.x[1][j], m.x[2][j]};
          if constexpr (TwoWord<S>::kIs) {
            float q2 = 0.0f;
            for (int k = 0; k < 3; ++k) {
              float q = h[k] - TwoWord<S>::hi(xj[k]);
              if (q > m.half_box_hi)
                q -= m.box_hi;
              else if (q < -m.half_box_hi)
                q += m.box_hi;
              q2 += q * q;
            }
            if (!(q2 < m.screen2)) continue;
          }
          const R d0 = min_image(m, xi[0], xj[0]), d1 = min_image(m, xi[1], xj[1]), d2 = min_image(m, xi[2], xj[2]);
          const R r2 = d0 * d0 + d1 * d1 + d2 * d2;
          if (!(r2 < m.rc2)) continue;
          const R ir2 = R(1) / r2;
          const R ir6 = ir2 * ir2 * ir2;
          R fr = R(24) * ir6 * (R(2) * ir6 - R(1)) * ir2;
          R u_extra = R(0);
          if (m.fcut != R(0)) {
            using std::sqrt;
            const R r = sqrt(r2);
            fr = fr - m.fcut / r;
            u_extra = (r - m.rc) * m.fcut;
          }
          add(f0, fr * d0);
          add(f1, fr * d1);
          add(f2, fr * d2);
          if (E) add(pe, R(4) * ir6 * (ir6 - R(1)) - m.ecut + u_extra);
          ++terms;
        }
      }
    }
  }
  if constexpr (kFixed) {
    auto value = [&](const Fixed64& a) { return static_cast<double>(static_cast<int64_t>(a.bits)) * m.fixed_inv; };
    m.f[0][i] = S(value(f0));
    m.f[1][i] = S(value(f1));
    m.f[2][i] = S(value(f2));
    if (E) m.pe[i] = S(0.5 * value(pe));
    const double bound = static_cast<double>(amax) * m.fixed_scale * static_cast<double>(terms);
    return !(bound < kFixedHeadroom);
  } else {
    m.f[0][i] = f0;
    m.f[1][i] = f1;
    m.f[2][i] = f2;
    if (E) m.pe[i] = mul_pow2(pe, -1);
    return false;
  }
}

// The thesis's composite addition never folds the error word into the value word, so over a long
// run a position's error word grows until the value word no longer tracks the position (on the
// H100 it passed 0.05 after 152,000 steps of 4,000 atoms). Positions and velocities are therefore
// renormalized after each update with 2Sum, which keeps the pair's value exactly and leaves
// |e| <= ulp(v) / 2. The other states are unchanged (ff stays normalized by its own operations).
template <class S>
DEEPSCOPE_HD void renormalize(S&) {}
template <>
DEEPSCOPE_HD void renormalize(Composite& x) {
  const FloatFloat r = composite_detail::normalized(x);
  x.v = r.hi;
  x.e = r.lo;
}

// First half of velocity Verlet (m = 1): v += dt/2 f, x += dt v, x wrapped once into [0, box).
// Returns true when a two-word position's low word left kMaxLowWord (the screening's premise).
template <class S, class R, class A>
DEEPSCOPE_HD bool kick_drift_atom(const MdView<S, R, A>& m, int i) {
  bool fault = false;
  for (int k = 0; k < 3; ++k) {
    S v = m.v[k][i] + m.half_dt * m.f[k][i];
    renormalize(v);
    S x = m.x[k][i] + m.dt * v;
    if (x >= m.box)
      x = x - m.box;
    else if (x < S(0.0))
      x = x + m.box;
    renormalize(x);
    m.v[k][i] = v;
    m.x[k][i] = x;
    if constexpr (TwoWord<S>::kIs)
      fault = fault || !(TwoWord<S>::lo(x) <= kMaxLowWord && TwoWord<S>::lo(x) >= -kMaxLowWord);
  }
  return fault;
}

// Second half: v += dt/2 f with the new forces; with E, the kinetic energy v^2 / 2.
template <class S, class R, bool E, class A = S>
DEEPSCOPE_HD void kick_atom(const MdView<S, R, A>& m, int i) {
  S v0 = m.v[0][i] + m.half_dt * m.f[0][i];
  S v1 = m.v[1][i] + m.half_dt * m.f[1][i];
  S v2 = m.v[2][i] + m.half_dt * m.f[2][i];
  renormalize(v0);
  renormalize(v1);
  renormalize(v2);
  m.v[0][i] = v0;
  m.v[1][i] = v1;
  m.v[2][i] = v2;
  if (E) m.ke[i] = mul_pow2(v0 * v0 + v1 * v1 + v2 * v2, -1);
}

// The kinetic energy v^2 / 2 of atom i (the same expression as kick_atom's).
template <class S, class R, class A>
DEEPSCOPE_HD void kinetic_atom(const MdView<S, R, A>& m, int i) {
  const S v0 = m.v[0][i], v1 = m.v[1][i], v2 = m.v[2][i];
  m.ke[i] = mul_pow2(v0 * v0 + v1 * v1 + v2 * v2, -1);
}

}  // namespace ds::drift
