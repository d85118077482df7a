// The nucleus finder's precision schedule (kernels/perturb/finder_series.h, docs/finder.md Nucleus
// 5): an MPFR orbit whose z_m runs at fewer bits late in the orbit, from the products of 2 z_k of
// an orbit at a nearby c, against the same orbit at the full precision and at 256 bits above it.
// The stated bound: the schedule's roundings together move Newton's step z_p / z_p' by at most
// 2^-(b + 12) of |c| beyond the orbit at b throughout. Near c = i (a Misiurewicz point: z' grows by about
// 2^1.25 a step along its repelling 2-cycle), 1,500 steps at 3,000 bits, z' at 1,200 bits.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <iostream>
#include <vector>

#include "kernels/perturb/finder_detail.h"
#include "kernels/perturb/finder_series.h"

namespace {

using namespace ds::perturb::finder::detail;
using ds::FloatExp;
using ds::Mpfr;

// c = i + 2^-e1 (pi + i log 2) + 2^-e2 (1 - 2i) at c's precision (pi and log 2: every bit set,
// so that no step is exact).
void set_c(MpC& c, int e1, int e2) {
  mpfr_const_pi(c.re.v, MPFR_RNDN);
  mpfr_mul_2si(c.re.v, c.re.v, -e1, MPFR_RNDN);
  mpfr_const_log2(c.im.v, MPFR_RNDN);
  mpfr_mul_2si(c.im.v, c.im.v, -e1, MPFR_RNDN);
  mpfr_add_ui(c.im.v, c.im.v, 1, MPFR_RNDN);
  if (e2 > 0) {
    Mpfr t(64);
    mpfr_set_si_2exp(t.v, 1, -e2, MPFR_RNDN);
    mpfr_add(c.re.v, c.re.v, t.v, MPFR_RNDN);
    mpfr_set_si_2exp(t.v, -2, -e2, MPFR_RNDN);
    mpfr_add(c.im.v, c.im.v, t.v, MPFR_RNDN);
  }
}

// log2 |a - b| (complex) at high precision.
double log2_diff(const MpC& a, const MpC& b) {
  Mpfr x(9000), y(9000);
  mpfr_sub(x.v, a.re.v, b.re.v, MPFR_RNDN);
  mpfr_sub(y.v, a.im.v, b.im.v, MPFR_RNDN);
  mpfr_hypot(x.v, x.v, y.v, MPFR_RNDN);
  if (mpfr_zero_p(x.v)) return -INFINITY;
  long e = 0;
  const double m = mpfr_get_d_2exp(&e, x.v, MPFR_RNDN);
  return static_cast<double>(e) + std::log2(m);
}
double log2_abs(const MpC& a) {
  MpC zero(64);
  zero.zero();
  return log2_diff(a, zero);
}

TEST(FinderSchedule, ScheduledOrbitWithinItsBound) {
  const uint32_t p = 1500;
  const int b = 3000, bd = 1200;
  MpC c1(b + 256), c2(b + 256);
  set_c(c1, 2900, 0);
  set_c(c2, 2900, 2950);
  // The profile at c1 (an order-3 step records it).
  SeriesStep first(b);
  first.orbit(c1, p, 3, b, bd, 200, 64);
  const OrbitProfile prof = first.profile();
  ASSERT_EQ(prof.lz.size(), p);
  const FloatExp moved = mag(FloatExp::make(1.0, -2950), FloatExp::make(2.0, -2950));  // |c2 - c1|
  const std::vector<int> sched = precision_schedule(prof, moved, b, bd + 11 + 8, p);
  ASSERT_EQ(sched.size(), p + 1);
  std::cout << "log2 |z_p'| " << prof.ldp << "; z at " << sched[1] << " bits at step 1, " << sched[p / 2]
            << " at " << p / 2 << ", " << sched[p] << " at " << p << "\n";
  EXPECT_LT(sched[p], b - 1000);  // it does schedule fewer bits late in the orbit
  for (uint32_t m = 2; m <= p; ++m) EXPECT_LE(sched[m], sched[m - 1]);
  // The same orbit at c2: scheduled, at b throughout, and 256 bits above.
  SeriesStep s(b), full(b), ref(b + 256);
  s.orbit(c2, p, 2, b, bd, 64, 64, nullptr, &sched);
  full.orbit(c2, p, 2, b, bd, 64, 64);
  ref.orbit(c2, p, 2, b + 256, bd, 64, 64);
  const double ldp = log2_abs(ref.dz());
  const double e_sched = log2_diff(s.z(), ref.z()) - ldp, e_full = log2_diff(full.z(), ref.z()) - ldp;
  const double e_added = log2_diff(s.z(), full.z()) - ldp;
  std::cout << "z_p / z_p' off by 2^" << e_sched << " scheduled, 2^" << e_full << " at " << b
            << " bits throughout; the two 2^" << e_added << " apart (bound on the schedule's own roundings 2^"
            << -(b + 12) << ")\n";
  // The schedule's roundings (late in the orbit) within the bound, and the result as good as the
  // orbit at b throughout (whose early roundings are the same).
  EXPECT_LT(e_added, -(b + 12));
  EXPECT_LT(e_sched, e_full + 0.1);
  // Where c moved too far for the profile's products to hold, no schedule.
  EXPECT_TRUE(precision_schedule(prof, FloatExp::make(1.0, -1000), b, bd + 19, p).empty());
}

}  // namespace
