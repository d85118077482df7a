// kernels/henon/interval.h against MPFR: every result interval contains the exact result of the
// operation at its end points and at random points inside, for random intervals near 0, across
// sign changes, at subnormals, and at large magnitudes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernels/henon/interval.h"
#include "oracle.h"

namespace {

using ds::henon::iv::Interval;
namespace iv = ds::henon::iv;

// A random double of random sign and magnitude 2^e, e uniform in [emin, emax], sometimes 0 or a
// subnormal.
double random_double(std::mt19937_64& rng, int emin, int emax) {
  std::uniform_int_distribution<int> kind(0, 19);
  const int k = kind(rng);
  if (k == 0) return 0.0;
  std::uniform_real_distribution<double> m(1.0, 2.0);
  const double s = (rng() & 1) ? -1.0 : 1.0;
  if (k == 1) return s * std::numeric_limits<double>::denorm_min() * double(1 + rng() % 1000);
  std::uniform_int_distribution<int> e(emin, emax);
  return s * std::ldexp(m(rng), e(rng));
}

Interval random_interval(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> kind(0, 3);
  double a, b;
  switch (kind(rng)) {
    case 0:  // near 0, often straddling it
      a = random_double(rng, -60, -1);
      b = random_double(rng, -60, -1);
      break;
    case 1:  // a narrow interval around a random point
      a = random_double(rng, -30, 30);
      b = a + a * std::ldexp(1.0, -int(rng() % 50)) * ((rng() & 1) ? 1 : -1);
      break;
    case 2:  // large magnitudes
      a = random_double(rng, 100, 500);
      b = random_double(rng, 100, 500);
      break;
    default:
      a = random_double(rng, -1074, 1000);
      b = random_double(rng, -1074, 1000);
  }
  return {std::min(a, b), std::max(a, b)};
}

// A point of x: an end point, or a random double between them.
double point_in(std::mt19937_64& rng, Interval x) {
  const int k = int(rng() % 4);
  if (k == 0) return x.lo;
  if (k == 1) return x.hi;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double v = x.lo + (x.hi - x.lo) * u(rng);
  return std::isfinite(v) ? std::clamp(v, x.lo, x.hi) : x.mid();
}

// lo <= exact <= hi, exact given by MPFR values below and above it (equal when exact).
::testing::AssertionResult encloses(Interval r, mpfr_srcptr below, mpfr_srcptr above, const char* op,
                                    double a, double b) {
  if (mpfr_cmp_d(below, r.lo) >= 0 && mpfr_cmp_d(above, r.hi) <= 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << op << " at a = " << a << ", b = " << b << ": [" << r.lo << ", "
                                       << r.hi << "] misses " << mpfr_get_d(below, MPFR_RNDN);
}

TEST(HenonInterval, NextUpDown) {
  EXPECT_EQ(iv::next_up(0.0), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(iv::next_down(0.0), -std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(iv::next_up(1.0), std::nextafter(1.0, 2.0));
  EXPECT_EQ(iv::next_up(-1.0), std::nextafter(-1.0, 0.0));
  EXPECT_EQ(iv::next_down(-1.0), std::nextafter(-1.0, -2.0));
  EXPECT_EQ(iv::next_up(std::numeric_limits<double>::max()), std::numeric_limits<double>::infinity());
  EXPECT_EQ(iv::next_down(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::max());
  EXPECT_EQ(iv::next_up(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
  EXPECT_EQ(iv::next_up(-std::numeric_limits<double>::denorm_min()), -0.0);
}

TEST(HenonInterval, OperationsEncloseMpfr) {
  auto rng = ds::test::seeded_rng("HenonInterval.OperationsEncloseMpfr");
  ds::test::Mp ex, lo(300), hi(300), xa, xb;
  int checked = 0;
  for (int it = 0; it < 200000; ++it) {
    const Interval A = random_interval(rng), B = random_interval(rng);
    const double a = point_in(rng, A), b = point_in(rng, B);
    mpfr_set_d(xa, a, MPFR_RNDN);  // exact: 4400 bits
    mpfr_set_d(xb, b, MPFR_RNDN);
    mpfr_add(ex, xa, xb, MPFR_RNDN);  // exact
    ASSERT_TRUE(encloses(A + B, ex, ex, "+", a, b));
    mpfr_sub(ex, xa, xb, MPFR_RNDN);
    ASSERT_TRUE(encloses(A - B, ex, ex, "-", a, b));
    mpfr_mul(ex, xa, xb, MPFR_RNDN);  // exact: 106 bits suffice
    ASSERT_TRUE(encloses(A * B, ex, ex, "*", a, b));
    ASSERT_TRUE(encloses(a * B, ex, ex, "point *", a, b));
    mpfr_mul(ex, xa, xa, MPFR_RNDN);
    ASSERT_TRUE(encloses(iv::sqr(A), ex, ex, "sqr", a, a));
    mpfr_neg(ex, xa, MPFR_RNDN);
    ASSERT_TRUE(encloses(-A, ex, ex, "neg", a, a));
    if (!B.contains_zero()) {
      mpfr_div(lo, xa, xb, MPFR_RNDD);
      mpfr_div(hi, xa, xb, MPFR_RNDU);
      ASSERT_TRUE(encloses(A / B, lo, hi, "/", a, b));
    }
    ++checked;
  }
  EXPECT_EQ(checked, 200000);
}

// sqr of an interval that straddles 0 starts at 0; of one that does not, at the smaller square.
TEST(HenonInterval, SqrTightAndSound) {
  const Interval s = iv::sqr(Interval(-1.0, 2.0));
  EXPECT_EQ(s.lo, 0.0);
  EXPECT_GE(s.hi, 4.0);
  const Interval t = iv::sqr(Interval(-3.0, -2.0));
  EXPECT_LE(t.lo, 4.0);
  EXPECT_GT(t.lo, 3.9999);
  EXPECT_GE(t.hi, 9.0);
  // Widening is one ulp per end point: the width of [1,1] + [1,1] is two ulps of 2.
  const Interval u = Interval(1.0) + Interval(1.0);
  EXPECT_EQ(u.lo, std::nextafter(2.0, 0.0));
  EXPECT_EQ(u.hi, std::nextafter(2.0, 3.0));
}

// The Hénon step's interval image, h(x, y) = (1 + y - a x^2, b x), encloses the MPFR image of
// random points of random small boxes (the graph's edges rest on this).
TEST(HenonInterval, HenonImageEnclosesMpfr) {
  auto rng = ds::test::seeded_rng("HenonInterval.HenonImageEnclosesMpfr");
  std::uniform_real_distribution<double> ux(-1.5, 1.5), uy(-0.5, 0.5), uw(0.0, 0.01);
  const double a = 1.4, b = 0.3;
  ds::test::Mp ma, mb, px, py, t, nx, ny;
  mpfr_set_d(ma, a, MPFR_RNDN);
  mpfr_set_d(mb, b, MPFR_RNDN);
  for (int it = 0; it < 20000; ++it) {
    const double x0 = ux(rng), y0 = uy(rng);
    const Interval X(x0, x0 + uw(rng)), Y(y0, y0 + uw(rng));
    const Interval NX = Interval(1.0) + Y - a * iv::sqr(X), NY = b * X;
    for (int k = 0; k < 4; ++k) {
      const double x = point_in(rng, X), y = point_in(rng, Y);
      mpfr_set_d(px, x, MPFR_RNDN);
      mpfr_set_d(py, y, MPFR_RNDN);
      mpfr_mul(t, px, px, MPFR_RNDN);
      mpfr_mul(t, t, ma, MPFR_RNDN);
      mpfr_add_ui(nx, py, 1, MPFR_RNDN);
      mpfr_sub(nx, nx, t, MPFR_RNDN);
      mpfr_mul(ny, px, mb, MPFR_RNDN);
      ASSERT_TRUE(encloses(NX, nx, nx, "h_x", x, y));
      ASSERT_TRUE(encloses(NY, ny, ny, "h_y", x, y));
    }
  }
}

}  // namespace
