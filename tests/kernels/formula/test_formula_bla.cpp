// kernels/formula/bla.h: every usable BLA entry of the formulas' tables holds its own promise: for
// deltas inside its radius (up to 0.999 of it, random directions, including the largest dc), the
// delta after its 2^l iterations, stepped opcode by opcode in long double (diffabs for abs) against
// the same stored reference states, lies within ea|d| + eb|dc| of A d + B dc; and states on a fold
// give radius 0. (The views are deep enough for BLA: with eps = 2^-53 no entry holds where |dc|
// is not well below 2^-53 |Z|, about zoom 1e16, as for z^2 + c.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "kernels/formula/bla.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/perturb.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
#include "kernels/mandelbrot/view.h"

namespace {

using namespace ds::formula;
using LD = long double;

LD diffabs_ld(LD X, LD x) {
  const LD s = X + x;
  if (X >= 0) return s >= 0 ? x : -(2 * X + x);
  return s > 0 ? 2 * X + x : -x;
}

// The delta after `steps` iterations from reference index m (no escape test, no rebase): the
// opcodes of perturb_step.h in long double against the stored states.
void step_ld(const Formula& f, const FormulaReference& ref, uint64_t m, uint64_t steps, LD dcr, LD dci, LD* x,
             LD* y) {
  const uint64_t P = static_cast<uint64_t>(f.phases);
  for (uint64_t n = 0; n < steps; ++n, ++m) {
    const uint64_t q = (m / P) * ref.period_states + ref.prefix[m % P];
    const Phase& ph = f.phase[m % P];
    LD sx = *x, sy = *y;
    uint64_t qs = q;
    for (int k = 0; k < ph.count; ++k) {
      const LD Wx = ref.wr[q + k], Wy = ref.wi[q + k];
      switch (ph.ops[k]) {
        case Op::kAbsX: *x = diffabs_ld(Wx, *x); break;
        case Op::kAbsY: *y = diffabs_ld(Wy, *y); break;
        case Op::kNegX: *x = -*x; break;
        case Op::kNegY: *y = -*y; break;
        case Op::kSqr: {
          const LD ax = 2 * Wx + *x, ay = 2 * Wy + *y;
          const LD nx = ax * *x - ay * *y, ny = ax * *y + ay * *x;
          *x = nx;
          *y = ny;
          break;
        }
        case Op::kStore:
          sx = *x;
          sy = *y;
          qs = q + k;
          break;
        case Op::kMul: {
          const LD Sx = ref.wr[qs], Sy = ref.wi[qs], bx = Sx + sx, by = Sy + sy;
          const LD nx = (Wx * sx - Wy * sy) + (*x * bx - *y * by);
          const LD ny = (Wx * sy + Wy * sx) + (*x * by + *y * bx);
          *x = nx;
          *y = ny;
          break;
        }
        case Op::kAdd:
          *x += dcr;
          *y += dci;
          break;
      }
    }
  }
}

struct Case {
  const char* name;
  const char* formula;
  const char* re;
  const char* im;
  const char* zoom;
  uint64_t iter;
};

class FormulaBla : public testing::TestWithParam<Case> {};

TEST_P(FormulaBla, EveryEntryBoundsWhatItDrops) {
  const Case& c = GetParam();
  const Formula f = parse_formula(c.formula);
  ds::mandel::View v;
  v.re = c.re;
  v.im = c.im;
  v.zoom = c.zoom;
  v.max_iter = c.iter;
  v.width = v.height = 64;
  const ds::mandel::Geometry g = ds::mandel::geometry(v);
  const FormulaReference ref = compute_formula_reference(f, g.re, g.im, formula_reference_bits(g), v.max_iter);
  const double h = g.half_step_d;
  const double dcmax = (std::fabs(ds::mandel::pixel_offset(0, v.width)) * 2) * h * (1.0 + 0x1p-40);
  const FormulaBlaTable t = build_formula_bla(f, ref, dcmax);
  ASSERT_GT(t.levels, 2);
  std::mt19937_64 rng(45);
  std::uniform_real_distribution<double> angle(0, 2 * M_PI), unit(0, 1);
  int checked = 0, worst_level = 0;
  double worst = 0;  // the largest |error| / bound seen
  for (int l = 2; l < t.levels; ++l) {
    const uint64_t len = uint64_t{1} << l;
    for (uint64_t k = 0; t.level_offset[l] + k < t.level_offset[l + 1]; ++k) {
      const FormulaBlaEntry& e = t.entries[t.level_offset[l] + k];
      if (!(e.r > 0)) continue;
      const uint64_t m = 1 + k * len;
      for (int trial = 0; trial < 4; ++trial) {
        const double rd = e.r * (trial == 0 ? 0.999 : unit(rng)), ad = angle(rng);
        const double rc = trial < 2 ? dcmax / (1.0 + 0x1p-40) / std::sqrt(2.0) : dcmax * unit(rng) / 2, ac = angle(rng);
        const double dx = rd * std::cos(ad), dy = rd * std::sin(ad), cx = rc * std::cos(ac), cy = rc * std::sin(ac);
        LD x = dx, y = dy;
        step_ld(f, ref, m, len, cx, cy, &x, &y);
        const LD px = (static_cast<LD>(e.a[0]) * dx + static_cast<LD>(e.a[1]) * dy) +
                      (static_cast<LD>(e.b[0]) * cx + static_cast<LD>(e.b[1]) * cy);
        const LD py = (static_cast<LD>(e.a[2]) * dx + static_cast<LD>(e.a[3]) * dy) +
                      (static_cast<LD>(e.b[2]) * cx + static_cast<LD>(e.b[3]) * cy);
        const double err = static_cast<double>(std::hypot(x - px, y - py));
        const double bound = e.ea * std::hypot(dx, dy) + e.eb * std::hypot(cx, cy);
        // long double's own roundings over 2^l steps: far below 2^-53 of the delta.
        const double slack = 0x1p-58 * static_cast<double>(len) * static_cast<double>(std::hypot(x, y));
        ASSERT_LE(err, bound + slack) << c.name << ": level " << l << " entry " << k << " (m = " << m
                                      << "), |d| = " << rd << " of r = " << e.r;
        if (bound > 0 && err / bound > worst) {
          worst = err / bound;
          worst_level = l;
        }
        ++checked;
      }
    }
  }
  std::printf("%s: %d levels, %llu of %zu entries usable, %d deltas checked; the largest error is %.3g of "
              "its bound (level %d)\n",
              c.name, t.levels, static_cast<unsigned long long>(t.usable), t.entries.size(), checked, worst,
              worst_level);
  EXPECT_GT(checked, 100) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Views, FormulaBla,
    testing::Values(
        Case{"BurningShip1e60", "burning-ship",
             "-0.52385650573873808264320817953931464697723557570940719796350161454708271638042874",
             "-0.905063012975098048484633103441542341595677940679102394986324177838949724014396055",
             "1.6069380442590071e60", 2000},
        Case{"Mandelbar1e30", "mandelbar", "0.310175907990264547510074843810928955381608532623691",
             "0.452451404255531058853404179332138283843885987485153", "1.2676506002282359e30", 32000},
        Case{"Celtic1e20", "celtic", "-0.77362395931434288945154822652948881053107",
             "0.47086562405041076453212307161421900403961", "2.9514790517935312e20", 8000},
        Case{"Hybrid1e20", "mandelbrot,burning-ship", "-0.8019282266674581821045894289848968111814",
             "-0.16507176432579787887486640532584239151177", "2.9514790517935312e20", 8000},
        Case{"Power3", "mandelbrot3", "-0.4", "0.6", "1e40", 4000},
        Case{"BurningShip3", "burning-ship3", "-0.5", "-0.5", "1e40", 4000}),
    [](const testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

// Burning Ship's real axis: Im W = 0 before absy at every step, so every entry's radius is 0.
TEST(FormulaBlaFold, StatesOnTheFoldHaveRadiusZero) {
  const Formula f = parse_formula("burning-ship");
  ds::mandel::View v;
  v.re = "-1.749738990540381325390293428499134907572197280083504";
  v.im = "0";
  v.zoom = "1.0141204801825892e31";
  v.max_iter = 2000;
  v.width = v.height = 32;
  const ds::mandel::Geometry g = ds::mandel::geometry(v);
  const FormulaReference ref = compute_formula_reference(f, g.re, g.im, formula_reference_bits(g), v.max_iter);
  const FormulaBlaTable t = build_formula_bla(f, ref, 64 * g.half_step_d);
  ASSERT_GT(t.entries.size(), 100u);
  EXPECT_EQ(t.usable, 0u);
  // Off the axis, the same zoom has usable entries (the check is not vacuous).
  v.im = "1e-25";
  const ds::mandel::Geometry g2 = ds::mandel::geometry(v);
  const FormulaReference ref2 = compute_formula_reference(f, g2.re, g2.im, formula_reference_bits(g2), v.max_iter);
  EXPECT_GT(build_formula_bla(f, ref2, 64 * g2.half_step_d).usable, 0u);
}

}  // namespace
