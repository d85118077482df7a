// The nucleus finder's perturbed Newton orbits (finder_nucleus.cpp): the seed's orbit, and the
// orbit of C + dc against it with 53- or 106-bit deltas (in floatexp, or in plain double and f64x2
// where they fit) with the derivatives, size estimate and atom domain along it. Private to the
// finder (finder.h is the host API).
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "arith/bits.h"
#include "arith/expansion.h"
#include "arith/floatexp2.h"
#include "kernels/perturb/finder_detail.h"

namespace ds::perturb::finder::detail {

// The complex floatexp2 arithmetic of the perturbation steps.
struct C2 {
  FloatExp2 re, im;
};

// The perturbation steps' deltas: 53 bits for the first Newton steps, 106 for the last; each
// width in floatexp (any depth) and in plain doubles (double, f64x2) where no delta falls below
// kPlainFloor (below).
template <class T>
struct CT {
  T re, im;
};
using DW = Expansion<2>;

// The plain types' floor: a value at or above 2^-900 loses nothing to underflow in double or
// f64x2 (f64x2's low word is then above 2^-1008, still normal), and the absolute error of a value
// flushed to zero or a subnormal (2^-1075) is 2^-175 of anything at the floor: below both
// widths' rounding. A delta below it (none at views shallower than 2^-900 in practice) sends
// that orbit back to floatexp.
constexpr double kPlainFloor = 0x1p-900;

// The seed's orbit Z_0 .. Z_last in floatexp2, and as complex doubles and f64x2 where every Z_n
// is 0 or has a coordinate at least kPlainFloor (`plain`; add_plain fills them).
struct SeedOrbit {
  std::vector<C2> fe2;
  std::vector<CT<double>> d;
  std::vector<CT<DW>> dw;
  bool plain = false;
};
// to_double(x) (the same value: one rounding of the exact scaling), without std::ldexp where the
// exponent is in double's normal range: ldexp's cost doubled the seed's orbit at 482 bits.
inline double scaled(double m, int32_t e) {
  return e >= -1022 && e <= 1023 ? m * bits::pow2(e) : std::ldexp(m, e);
}
inline double plain_double(FloatExp2 x) { return x.hi == 0 ? 0.0 : scaled(x.hi + x.lo, x.e); }

// What an orbit of p steps gives Newton's method, in floatexp: f = z_p, g = dz_p/dc,
// h = d2z_p/dc2 (for K = |h / 2g|, the constant of the quadratic convergence), t = d3z_p/dc3 (for
// the third-order step's constant), and with `side` the size estimate 1 / (b l^2) (finder.h) and
// the atom domain's |z_q|, |dz_q/dc|.
struct OrbitFacts {
  CFe f{FloatExp(0.0), FloatExp(0.0)}, g = f, h = f, t = f, size = f;
  FloatExp zq{0.0}, dq{0.0};
  bool underflow = false;  // a plain delta fell below kPlainFloor: redo in floatexp
};

// The deltas' width: 53 bits (FloatExp, or double) or 106 (FloatExp2, or f64x2).
enum class DeltaWidth { k53, k106 };

// k53: sets s->plain where every Z_n is 0 or at least kPlainFloor, and fills s->d; k106: fills
// s->dw where plain (only when a 106-bit stage runs: building it cost as much as a plain step).
void add_plain(SeedOrbit* s, DeltaWidth w);

// The facts of the orbit of C + dc (C: the seed), p steps: in plain doubles where the seed's orbit
// and the deltas allow (the same rounding per operation, several times cheaper), else in floatexp.
OrbitFacts orbit_facts(const SeedOrbit& Z, uint32_t p, C2 dc, bool side, DeltaWidth w);

}  // namespace ds::perturb::finder::detail
