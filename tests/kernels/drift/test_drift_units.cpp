// Drift in kT per ns per degree of freedom (drift.h): argon's unit of time, the degrees of freedom
// against the initial temperature, the conversion of a synthetic series with a known slope, and
// the mean and standard error over seeds.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/drift/drift.h"

namespace {

using namespace ds::drift;

// tau = sigma sqrt(m / epsilon) = 3.405e-10 m * sqrt(39.948 u / (119.8 K kB)) = 2.15635 ps.
TEST(DriftUnits, ArgonTau) { EXPECT_NEAR(argon_tau_ps(), 2.15635, 5e-5); }

// 3N - 3: the initial velocities have zero total momentum and are scaled to T0 with that count,
// so the step-0 kinetic temperature of a real run is T0 to rounding.
TEST(DriftUnits, DegreesOfFreedom) {
  EXPECT_EQ(degrees_of_freedom(500), 1497);
  EXPECT_EQ(degrees_of_freedom(32000), 95997);
  MdParams p;
  p.cells = 5;
  p.temperature = 1.7;
  p.steps = 1;
  p.sample_every = 1;
  const MdResult r = run_md(p);
  ASSERT_EQ(r.atoms, 500);
  ASSERT_FALSE(r.samples.empty());
  const std::vector<MdSample> first = {r.samples[0]};
  EXPECT_NEAR(mean_temperature(first, r.atoms), 1.7, 1e-12);
  // With 3N instead the temperature would be 1.7 * 1497 / 1500 (off by 3.4e-3).
}

// A noise-free line E/N = e0 + s t with a constant kinetic temperature T*: the fit recovers s and
// the conversion gives N s / (T* (3N - 3) tau_ns), here by hand: 4000 * 1e-5 / (2 * 11997 *
// 2.15635e-3) = 7.7311e-4 kT/ns/dof.
TEST(DriftUnits, SyntheticSlopeConverts) {
  MdResult r;
  r.atoms = 4000;
  const double t_star = 2.0, slope = 1e-5;
  const double ke = t_star * 11997.0 / (2.0 * 4000.0);
  for (int k = 0; k <= 100; ++k) {
    MdSample q;
    q.step = 10 * k;
    q.time = 0.05 * k;
    q.ke = ke;
    q.pe = -5.0 + slope * q.time;
    q.total = q.ke + q.pe;
    r.samples.push_back(q);
  }
  r.fit = fit_drift(r.samples);
  const DriftUnits u = drift_units(r);
  EXPECT_EQ(u.dof, 11997);
  EXPECT_NEAR(u.mean_t, t_star, 1e-12);
  EXPECT_NEAR(u.mean_t_kelvin, 239.6, 1e-9);
  EXPECT_NEAR(u.slope, slope, 1e-15);
  EXPECT_NEAR(u.kt_ns_dof, 7.7311e-4, 1e-8);
  // Doubling the temperature halves it; a twice larger slope doubles it.
  EXPECT_NEAR(kt_per_ns_per_dof(slope, 4000, 2 * t_star), 0.5 * u.kt_ns_dof, 1e-15);
  EXPECT_NEAR(kt_per_ns_per_dof(2 * slope, 4000, t_star), 2 * u.kt_ns_dof, 1e-15);
  // No temperature, no conversion.
  EXPECT_TRUE(std::isnan(kt_per_ns_per_dof(slope, 4000, 0.0)));
  MdResult one;
  one.atoms = 4000;
  one.samples.push_back(r.samples[0]);
  EXPECT_TRUE(std::isnan(drift_units(one).kt_ns_dof));
}

TEST(DriftUnits, SeedSpread) {
  const SeedSpread s = seed_spread({1.0, 2.0, 3.0, 4.0});
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.stderr_mean, std::sqrt(5.0 / 3.0) / 2.0, 1e-15);  // sd 1.29099 / sqrt(4)
  const SeedSpread one = seed_spread({3.0, NAN});
  EXPECT_EQ(one.n, 1);
  EXPECT_DOUBLE_EQ(one.mean, 3.0);
  EXPECT_TRUE(std::isnan(one.stderr_mean));
  EXPECT_EQ(seed_spread({}).n, 0);
}

}  // namespace
