// The MD-drift workspace: LAMMPS melt's step-0 energies, energy conservation in double,
// bit-for-bit reproducibility, blow-up handling and bad input for the Lennard-Jones run; the
// summation suite's error orders (thesis Tables 2-5) and the do/undo drift (Figure 12); and
// (device section) CUDA against the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "kernels/drift/drift.h"
#include "kernels/drift/md.cuh"
#include "md_params.h"
#include "oracle.h"

namespace {

using namespace ds;
using namespace ds::drift;

MdParams small(Precision p, int64_t steps) { return ds::test::small_md(p, steps); }

// LAMMPS examples/melt (in.melt): lattice fcc 0.8442, region 0 10 0 10 0 10 (4000 atoms), pair
// lj/cut 2.5 (unshifted), velocity create 3.0. Its published log prints at step 0:
// Temp 3, E_pair -6.7733681, TotEng -2.2744931 (per atom). E_pair depends on the positions only.
TEST(DriftMd, LammpsMeltStepZero) {
  MdParams p;
  p.cells = 10;
  p.shift = false;
  p.precision = Precision::kDouble;
  p.steps = 1;
  p.sample_every = 1;
  const MdResult r = run_md(p);
  ASSERT_EQ(r.atoms, 4000);
  ASSERT_FALSE(r.samples.empty());
  const MdSample& s = r.samples[0];
  // Printed to 7 decimals: ours must round to the same digits.
  EXPECT_NEAR(s.pe, -6.7733681, 5e-8);
  // Independent check from the fcc shells inside 2.5: 12, 6, 24, 12 neighbours at a sqrt(k/2).
  const double a = std::cbrt(4.0 / 0.8442);
  const int count[4] = {12, 6, 24, 12};
  double shells = 0;
  for (int k = 1; k <= 4; ++k) {
    const double ir6 = std::pow(a * a * k / 2.0, -3);
    shells += 0.5 * count[k - 1] * 4.0 * (ir6 * ir6 - ir6);
  }
  EXPECT_NEAR(s.pe, shells, 1e-12);
  // LAMMPS: T = 2 KE / (3N - 3), TotEng = (KE + PE) / N. With T = 3 exactly,
  // KE / N = 1.5 (N - 1) / N T = 4.498875 and TotEng = -6.7733681 + 4.498875 = -2.2744931.
  EXPECT_NEAR(s.ke, 1.5 * 3999.0 / 4000.0 * 3.0, 1e-12);
  EXPECT_NEAR(s.total, -2.2744931, 5e-8 + 1e-12);
  const double temp = 2.0 * s.ke * 4000.0 / (3.0 * 4000.0 - 3.0);
  EXPECT_NEAR(temp, 3.0, 1e-12);
}

// Energy conservation in double over 200 steps (t = 1) of 500 atoms at T* = 3, shifted cutoff,
// starting from the fcc lattice. Velocity Verlet is symplectic: E(t) - E(0) is a bounded O(dt^2)
// fluctuation (the shadow Hamiltonian differs from H by O(dt^2)), largest while the lattice melts;
// round-off in double adds ~1e-13 per atom. Measured on x86-64/GCC: max |E(t) - E(0)| per atom
// 1.65e-3 at dt = 0.005 and 4.09e-4 at dt = 0.0025 (ratio 4.04 = 2^2). The bound is 4e-3, above
// the measurement with room for another libm's initial velocities (the dynamics is chaotic), and
// halving dt must shrink the deviation by a factor near 4 (2.5 to 6), which shows it is the
// integrator's dt^2 term and not a drift or a bug (a wrong force would not scale so).
TEST(DriftMd, DoubleConservesEnergy) {
  MdParams p = small(Precision::kDouble, 200);
  const MdResult r = run_md(p);
  ASSERT_FALSE(r.blew_up) << r.message;
  double dev = 0;
  for (const MdSample& s : r.samples) dev = std::max(dev, std::fabs(s.total - r.samples[0].total));
  std::printf("double, dt 0.005: max |E(t) - E(0)| per atom %.3e, slope %.3e\n", dev, r.fit.slope);
  EXPECT_LT(dev, 4e-3);
  p.dt = 0.0025;
  p.steps = 400;
  p.sample_every = 20;
  const MdResult h = run_md(p);
  double dev_h = 0;
  for (const MdSample& s : h.samples) dev_h = std::max(dev_h, std::fabs(s.total - h.samples[0].total));
  std::printf("double, dt 0.0025: max |E(t) - E(0)| per atom %.3e (ratio %.2f)\n", dev_h, dev / dev_h);
  EXPECT_GT(dev / dev_h, 2.5);
  EXPECT_LT(dev / dev_h, 6.0);
}

TEST(DriftMd, SameSeedSameTrajectoryToTheBit) {
  for (Precision pr : {Precision::kFloat, Precision::kComposite, Precision::kMixed}) {
    MdParams p = small(pr, 30);
    const MdResult a = run_md(p), b = run_md(p);
    EXPECT_EQ(a.state_hash, b.state_hash) << precision_name(pr);
    ASSERT_EQ(a.samples.size(), b.samples.size());
    for (std::size_t i = 0; i < a.samples.size(); ++i) EXPECT_EQ(a.samples[i].total, b.samples[i].total);
    p.seed += 1;
    EXPECT_NE(run_md(p).state_hash, a.state_hash) << "a different seed must give another trajectory";
  }
}

// A cell list too small for the lattice (2 slots per cell) overflows at once; the run grows it and
// redoes the interval, so the trajectory is the one a large enough list gives.
TEST(DriftMd, CellListGrowsWithoutChangingTheTrajectory) {
  MdParams p = small(Precision::kComposite, 20);
  const MdResult a = run_md(p);
  p.cell_capacity = 2;
  const MdResult b = run_md(p);
  ASSERT_FALSE(b.blew_up) << b.message;
  EXPECT_EQ(a.state_hash, b.state_hash);
  EXPECT_EQ(a.samples.back().total, b.samples.back().total);
}

TEST(DriftMd, EveryPrecisionRunsAndStaysNearDouble) {
  const MdResult d = run_md(small(Precision::kDouble, 40));
  for (Precision pr : all_precisions()) {
    const MdResult r = run_md(small(pr, 40));
    ASSERT_FALSE(r.blew_up) << precision_name(pr);
    ASSERT_EQ(r.samples.size(), d.samples.size());
    // Step 0 differs only by rounding the lattice and velocities to the state type (and the sum).
    EXPECT_NEAR(r.samples[0].total, d.samples[0].total, 1e-4) << precision_name(pr);
    EXPECT_NEAR(r.samples.back().total, d.samples.back().total, 5e-3) << precision_name(pr);
  }
}

TEST(DriftMd, BlowUpIsStoppedAtItsStep) {
  MdParams p = small(Precision::kDouble, 2000);
  p.temperature = 100;
  p.dt = 0.1;
  p.sample_every = 50;
  const MdResult r = run_md(p);
  ASSERT_TRUE(r.blew_up) << "expected this run to blow up";
  std::printf("blew up at step %lld: %s\n", static_cast<long long>(r.blowup_step), r.message.c_str());
  EXPECT_GT(r.blowup_step, 0);
  EXPECT_FALSE(r.message.empty());
  ASSERT_FALSE(r.samples.empty());
  EXPECT_LT(r.samples.back().step, r.blowup_step);
  for (const MdSample& s : r.samples) EXPECT_TRUE(std::isfinite(s.total));
}

// A position advanced a million times by small steps (x += dt v at |v| ~ 1, as in the MD loop):
// the thesis's composite addition alone lets the error word grow far past an ulp of the value
// word (the H100 run stopped at step 152,000 when it passed 0.05); renormalized after each
// update, as kick_drift_atom does, the error word stays within half an ulp and the value is the
// same to within the composite's precision.
TEST(DriftMd, CompositePositionsStayNormalized) {
  const Composite step(0.005 * 0.7314159);
  Composite raw(3.25), kept(3.25);
  double max_raw = 0, max_kept = 0;
  for (int i = 0; i < 1000000; ++i) {
    raw = raw + step;
    kept = kept + step;
    ds::drift::renormalize(kept);
    max_raw = std::max(max_raw, std::fabs(static_cast<double>(raw.e)));
    max_kept = std::max(max_kept, std::fabs(static_cast<double>(kept.e)) / std::ldexp(1.0, std::ilogb(kept.v) - 24));
  }
  EXPECT_LE(max_kept, 1.0) << "error word beyond half an ulp of the value word";
  EXPECT_GT(max_raw, 1e-3) << "the unrenormalized error word was expected to grow";
  const double exact = 3.25 + 1e6 * (static_cast<double>(step.v) + static_cast<double>(step.e));
  const double got = static_cast<double>(kept.v) + static_cast<double>(kept.e);
  EXPECT_LT(std::fabs(got - exact), 1e-6) << got << " vs " << exact;
  // Renormalizing keeps the pair's value exactly.
  Composite x;
  x.v = 1.0f;
  x.e = 0.75f;
  ds::drift::renormalize(x);
  EXPECT_EQ(static_cast<double>(x.v) + static_cast<double>(x.e), 1.75);
  EXPECT_LE(std::fabs(x.e), std::ldexp(1.0f, -24) * std::fabs(x.v));
}

// Two atoms r apart along x: the pair force and energy of force_atom against the formulas, for the
// potential shifted at the cutoff (the force jumps there) and for the shifted force (both vanish).
TEST(DriftMd, ShiftedForceIsContinuousAtTheCutoff) {
  const double rc = 2.5;
  const double uc = 4.0 * (std::pow(rc, -12) - std::pow(rc, -6));
  const double fc = 24.0 * (2.0 * std::pow(rc, -12) - std::pow(rc, -6)) / rc;
  auto pair = [&](double r, bool shifted_force, double* u, double* fx) {
    F64 x[3][2] = {{F64(1.0), F64(1.0 + r)}, {F64(1.0), F64(1.0)}, {F64(1.0), F64(1.0)}};
    F64 f[3][2] = {}, pe[2] = {};
    int count[27] = {}, atoms[27 * 2] = {};
    MdView<F64, double> m{};
    for (int k = 0; k < 3; ++k) {
      m.x[k] = x[k];
      m.f[k] = f[k];
    }
    m.pe = pe;
    m.ncell = 3;
    m.cap = 2;
    m.n = 2;
    m.box = F64(3 * rc);
    m.half_box = 1.5 * rc;
    m.rc2 = rc * rc;
    m.ecut = uc;
    m.fcut = shifted_force ? fc : 0.0;
    m.rc = rc;
    m.cell_scale = 3.0 / (3 * rc);
    for (int i = 0; i < 2; ++i) {
      const int c = cell_of(m, i);
      atoms[c * 2 + count[c]++] = i;
    }
    m.cell_count = count;
    m.cell_atoms = atoms;
    force_atom<F64, double, true>(m, 0);
    *u = 2.0 * to_double(pe[0]);  // pe holds half the pair energy
    *fx = to_double(f[0][0]);     // on atom 0, from atom 1 at +r: -F(r) along x
  };
  auto u_lj = [](double r) { return 4.0 * (std::pow(r, -12) - std::pow(r, -6)); };
  auto f_lj = [](double r) { return 24.0 * (2.0 * std::pow(r, -12) - std::pow(r, -6)) / r; };
  for (double r : {1.05, 1.3, 1.8, 2.2, 2.45}) {
    double u = 0, fx = 0, us = 0, fxs = 0;
    pair(r, false, &u, &fx);
    pair(r, true, &us, &fxs);
    EXPECT_NEAR(u, u_lj(r) - uc, 1e-12 * std::fabs(u_lj(r)) + 1e-15) << r;
    EXPECT_NEAR(-fx, f_lj(r), 1e-12 * std::fabs(f_lj(r)) + 1e-15) << r;
    EXPECT_NEAR(us, u_lj(r) - uc + (r - rc) * fc, 1e-12 * std::fabs(u_lj(r)) + 1e-15) << r;
    EXPECT_NEAR(-fxs, f_lj(r) - fc, 1e-12 * std::fabs(f_lj(r)) + 1e-15) << r;
    // The shifted-force pair is conservative: F = -du/dr (central difference).
    double up = 0, um = 0, unused = 0;
    pair(r + 1e-5, true, &up, &unused);
    pair(r - 1e-5, true, &um, &unused);
    EXPECT_NEAR(-fxs, -(up - um) / 2e-5, 1e-6 * std::fabs(fxs) + 1e-9) << r;
  }
  // Just inside the cutoff: the shifted potential's force jumps by F(rc) = -0.039, the shifted
  // force's energy and force both go to 0.
  double u = 0, fx = 0;
  pair(rc - 1e-9, false, &u, &fx);
  EXPECT_NEAR(-fx, fc, 1e-9);
  EXPECT_LT(fc, -0.03);
  pair(rc - 1e-9, true, &u, &fx);
  EXPECT_LT(std::fabs(u), 1e-12);
  EXPECT_LT(std::fabs(fx), 1e-9);
}

TEST(DriftMd, FitRecoversALine) {
  std::vector<MdSample> s(50);
  for (int i = 0; i < 50; ++i) {
    s[i].time = 0.5 * i;
    s[i].total = -2.0 + 3e-4 * s[i].time + ((i % 2) ? 1e-6 : -1e-6);
  }
  const DriftFit f = fit_drift(s);
  EXPECT_NEAR(f.slope, 3e-4, 1e-8);
  EXPECT_NEAR(f.intercept, -2.0, 1e-6);
  EXPECT_NEAR(f.rms, 1e-6, 1e-8);
}

TEST(DriftMd, BadInputIsRefused) {
  auto bad = [](auto edit) {
    MdParams p = small(Precision::kDouble, 10);
    edit(p);
    EXPECT_THROW(validate(p), std::invalid_argument);
    EXPECT_THROW(run_md(p), std::invalid_argument);
  };
  bad([](MdParams& p) { p.cells = 0; });
  bad([](MdParams& p) { p.cells = -3; });
  bad([](MdParams& p) { p.cells = 4; });  // box narrower than 3 cutoffs
  bad([](MdParams& p) { p.cells = 100000; });
  bad([](MdParams& p) { p.dt = 0; });
  bad([](MdParams& p) { p.dt = -0.001; });
  bad([](MdParams& p) { p.dt = 5; });
  bad([](MdParams& p) { p.dt = std::nan(""); });
  bad([](MdParams& p) { p.steps = 0; });
  bad([](MdParams& p) { p.steps = -5; });
  bad([](MdParams& p) { p.steps = 1'000'000'000'000LL; });
  bad([](MdParams& p) { p.sample_every = 0; });
  bad([](MdParams& p) { p.density = -1; });
  bad([](MdParams& p) { p.temperature = std::numeric_limits<double>::infinity(); });
  EXPECT_THROW(parse_precision("quad"), ArithError);
  EXPECT_EQ(parse_precision("mixed"), Precision::kMixed);
}

double mean_abs(const std::vector<SumRow>& rows, SumMethod m, int threads) {
  double s = 0;
  int n = 0;
  for (const SumRow& r : rows)
    if (r.threads == threads) s += std::fabs(r.result[static_cast<int>(m)]), ++n;
  return s / n;
}

// Thesis Tables 2-5: float errs around 1e0, float2 around 1e-5, double around 1e-9; the exact sum
// is 0. Composite must be at least 3 orders of magnitude below float, for every thread count.
TEST(DriftSum, CompositeIsThreeOrdersBelowFloat) {
  SumSuiteParams p;
  const std::vector<SumRow> rows = sum_suite(p);
  ASSERT_EQ(rows.size(), 4u * kSumOrders);
  for (int t : p.threads) {
    const double f = mean_abs(rows, SumMethod::kFloat, t), c = mean_abs(rows, SumMethod::kComposite, t),
                 d = mean_abs(rows, SumMethod::kDouble, t), ff = mean_abs(rows, SumMethod::kFF, t),
                 k = mean_abs(rows, SumMethod::kKahan, t);
    std::printf("threads %4d: mean |sum| float %.3e composite %.3e ff %.3e kahan %.3e double %.3e\n", t, f, c,
                ff, k, d);
    EXPECT_GT(f, 1e-2);  // float loses the small values entirely
    EXPECT_LT(f, 1e2);
    EXPECT_LE(c * 1e3, f) << t << " threads";
    EXPECT_LT(d, 1e-6);
    EXPECT_LT(ff, 1e-6);
  }
  const std::vector<double> data = sum_data(1000, 7);
  double exact = 0;
  for (std::size_t i = 0; i < data.size(); i += 2) EXPECT_EQ(data[i], -data[i + 1]);
  for (double x : data) exact += x;
  EXPECT_EQ(exact, 0.0);
}

TEST(DriftSum, OrdersAndBadInput) {
  const std::vector<double> d = sum_data(10, 3);
  const std::vector<double> up = sum_ordered(d, 0, 3), down = sum_ordered(d, 1, 3);
  for (std::size_t i = 1; i < up.size(); ++i) EXPECT_LE(up[i - 1], up[i]);
  for (std::size_t i = 1; i < down.size(); ++i) EXPECT_GE(down[i - 1], down[i]);
  EXPECT_NE(sum_ordered(d, 2, 3), sum_ordered(d, 3, 3));
  EXPECT_THROW(sum_data(7, 1), std::invalid_argument);
  EXPECT_THROW(sum_data(0, 1), std::invalid_argument);
  EXPECT_THROW(sum_array(SumMethod::kFloat, d, 0, Backend::kCpu), std::invalid_argument);
  EXPECT_THROW(sum_array(SumMethod::kFloat, d, 11, Backend::kCpu), std::invalid_argument);
  // One thread per element, partials added on the host in order: the same as one thread (thesis
  // Tables 2 and 3 are identical).
  const std::vector<double> big = sum_ordered(sum_data(1000, 11), 2, 11);
  for (SumMethod m : all_sum_methods())
    EXPECT_EQ(sum_array(m, big, 1, Backend::kCpu), sum_array(m, big, 1000, Backend::kCpu))
        << sum_method_name(m);
}

// Thesis Figure 12 reports float drifting linearly and composite correcting it. With IEEE binary32
// (correctly rounded * and /, as this project compiles: -prec-div=true, no contraction) each round
// errs by at most 2u in either direction, so float's drift is a random walk, ~u sqrt(k), not linear;
// and the thesis's composite division, as published, adds its Newton correction twice (see
// arith/composite.h), so composite drifts as much as or more than float here. The rigorous
// double-word ff stays near u^2 sqrt(k), and double near 2^-53 sqrt(k). Measured with 1e5 rounds:
// float 3e-7 to 1.5e-5, composite 5e-7 to 1.5e-5, ff 5e-11 to 7e-11, double below 3e-14.
TEST(DriftDoUndo, DriftOrdersPerArithmetic) {
  const double u = 0x1p-24;
  for (int trial = 1; trial <= kDoUndoTrials; ++trial) {
    for (bool div_first : {false, true}) {
      double end[4];
      const Arith ar[4] = {Arith::kF32, Arith::kComposite, Arith::kFF, Arith::kF64};
      for (int i = 0; i < 4; ++i) {
        DoUndoParams p;
        p.arith = ar[i];
        p.trial = trial;
        p.div_first = div_first;
        p.iterations = 100000;
        p.record_every = 1000;
        const DoUndoResult r = doundo(p);
        ASSERT_EQ(r.drift.size(), 100u);
        end[i] = std::fabs(r.drift.back());
      }
      std::printf("trial %d %s: |drift| float %.2e composite %.2e ff %.2e double %.2e\n", trial,
                  div_first ? "/*" : "*/", end[0], end[1], end[2], end[3]);
      const double walk = std::sqrt(100000.0);
      EXPECT_LT(end[0], 40 * u * walk);  // float: a random walk of steps <= 2u
      EXPECT_LT(end[1], 40 * u * walk);  // composite: no better than float's order
      EXPECT_GT(end[1], 100 * end[2]);   // and far from ff: the published div is binary32-accurate
      EXPECT_LT(end[2], 1e-9);           // ff: double-word, ~u^2 per round
      EXPECT_LT(end[3], 1e-12);          // double
    }
  }
  DoUndoParams p;
  p.arith = Arith::kLimb4;
  EXPECT_THROW(doundo(p), ArithError);
  p.arith = Arith::kF32;
  p.iterations = 0;
  EXPECT_THROW(doundo(p), std::invalid_argument);
}

// Device section: the same per-item functions on CUDA give the CPU's results to the bit.
TEST(DriftDevice, SumsMatchCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  const std::vector<double> d = sum_ordered(sum_data(1000, 5), 3, 5);
  for (SumMethod m : all_sum_methods())
    for (int t : {1, 10, 100, 1000})
      EXPECT_EQ(sum_array(m, d, t, Backend::kCuda), sum_array(m, d, t, Backend::kCpu)) << sum_method_name(m);
}

TEST(DriftDevice, DoUndoMatchesCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  for (Arith a : {Arith::kF32, Arith::kF64, Arith::kComposite, Arith::kFF}) {
    DoUndoParams p;
    p.arith = a;
    p.trial = 2;
    p.iterations = 20000;
    p.record_every = 100;
    const DoUndoResult c = doundo(p);
    p.backend = Backend::kCuda;
    const DoUndoResult g = doundo(p);
    EXPECT_EQ(c.final_x, g.final_x) << arith_name(a);
    EXPECT_EQ(c.drift, g.drift) << arith_name(a);
  }
}

TEST(DriftDevice, MdMatchesCpuAndIsDeterministic) {
  DEEPSCOPE_REQUIRE_GPU();
  for (Precision pr : all_precisions()) {
    MdParams p = small(pr, 40);
    const MdResult c = run_md(p);
    p.backend = Backend::kCuda;
    const MdResult g1 = run_md(p), g2 = run_md(p);
    EXPECT_EQ(g1.state_hash, g2.state_hash) << precision_name(pr);
    ASSERT_EQ(c.samples.size(), g1.samples.size());
    for (std::size_t i = 0; i < c.samples.size(); ++i) EXPECT_EQ(c.samples[i].total, g1.samples[i].total);
    EXPECT_EQ(c.state_hash, g1.state_hash) << precision_name(pr) << ": CUDA and CPU trajectories differ";
  }
  MdParams p;
  p.cells = 10;
  p.shift = false;
  p.steps = 1;
  p.sample_every = 1;
  p.backend = Backend::kCuda;
  EXPECT_NEAR(run_md(p).samples[0].pe, -6.7733681, 5e-8);
}

}  // namespace
