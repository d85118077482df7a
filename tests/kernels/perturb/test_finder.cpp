// The feature finder (kernels/perturb/finder.h): known nuclei (periods 2, 3, 4 and the rabbit) from
// nearby seeds; nuclei found at locations other programs made (KF's 5e113, rust-fractal's 1e1000
// and 1e1200) whose orbits return to 0 after p steps, within the working precision, in an
// independent MPFR check at higher precision; the size estimate against the measured extent of
// the rendered minibrot; Misiurewicz points.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>

#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/finder.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "oracle.h"
#include "period_oracle.h"
#include "test_files.h"

namespace {

using namespace ds;
using namespace ds::mandel;
using namespace ds::perturb;
using ds::test::Mp;

// |a - b| for two decimals, in MPFR at 400 bits.
double decimal_gap(const std::string& a, const std::string& b) {
  Mp x(400), y(400);
  mpfr_set_str(x, a.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(y, b.c_str(), 10, MPFR_RNDN);
  mpfr_sub(x, x, y, MPFR_RNDN);
  return std::fabs(mpfr_get_d(x, MPFR_RNDN));
}

// The test's own MPFR orbit of c at `bits`: log2 of |z_p| / |dz_p/dc| (the Newton distance to the
// nucleus of period p).
double log2_newton_distance(const std::string& re, const std::string& im, uint32_t p, int bits) {
  const ds::test::OracleOrbit o = ds::test::oracle_orbit(re, im, p, bits);  // period_oracle.h
  return o.escaped ? 1e9 : o.log2_newton[p];
}

double log2_of(FloatExp x) { return x.e + std::log2(std::fabs(x.m)); }

struct Known {
  const char* seed_re;
  const char* seed_im;
  uint32_t period;
  const char* re;
  const char* im;
};

// Nuclei of periods 2, 3 (the real one and the rabbit: roots of c^3 + 2c^2 + c + 1) and 4 (the
// real one of the period-doubling cascade), to 30 digits and more (published values, e.g. OEIS
// A118453 for -1.7548776662...).
const Known kKnown[] = {
    {"-0.99", "0.01", 2, "-1", "0"},
    {"-1.75", "0.001", 3, "-1.754877666246692760049508896358528691894", "0"},
    {"-1.31", "0.001", 4, "-1.310702641336832883563570797412180800648", "0"},
    {"-0.12", "0.74", 3, "-0.1225611668766536199752455518207356166376",
     "0.7448617666197442365931704286043923407167"},
};

TEST(Finder, PeriodsAndNucleiOfKnownComponents) {
  for (const Known& k : kKnown) {
    SCOPED_TRACE(k.re);
    const finder::PeriodResult p = finder::find_period(k.seed_re, k.seed_im, FloatExp(0.02), 100, 160);
    EXPECT_EQ(p.period, k.period);
    const finder::Nucleus n = finder::find_nucleus(k.seed_re, k.seed_im, k.period, 160, FloatExp(0.05));
    ASSERT_TRUE(n.converged) << n.message;
    EXPECT_LT(decimal_gap(n.re, k.re), 1e-30) << n.re;
    EXPECT_LT(decimal_gap(n.im, k.im), 1e-30) << n.im;
    // To the working precision (160 + 32 bits): the test's own orbit at 400 bits returns to 0.
    EXPECT_LT(log2_newton_distance(n.re, n.im, k.period, 400), -170.0);
  }
  // Sizes: the main cardioid's is 1 by definition, period 2's 0.5, the period-3 island's 0.019.
  EXPECT_NEAR(to_double(finder::find_nucleus("-1.75", "0", 3, 160, FloatExp(0.05)).size), 0.0190, 5e-4);
  EXPECT_NEAR(to_double(finder::find_nucleus("-0.99", "0", 2, 160, FloatExp(0.05)).size), 0.5, 1e-12);
}

TEST(Finder, NoPeriodAndDivergenceAreReported) {
  // A disk far outside the set escapes as a whole.
  const finder::PeriodResult p = finder::find_period("1.5", "1.5", FloatExp(0.01), 100, 128);
  EXPECT_EQ(p.period, 0u);
  EXPECT_GT(p.escaped_at, 0u);
  // A tiny disk in the exterior near the set: no component within 50 steps, and it has not escaped.
  const finder::PeriodResult q = finder::find_period("0.2500001", "0.0", FloatExp(1e-12), 50, 128);
  EXPECT_EQ(q.period, 0u);
  // Newton for period 3 from far away, with a small search region: reported, not converged.
  const finder::Nucleus n = finder::find_nucleus("0.3", "0.6", 3, 128, FloatExp(1e-9));
  EXPECT_FALSE(n.converged);
  EXPECT_FALSE(n.message.empty());
}

// A location file's centre and zoom (KF's "Re: x" or our "re = x" lines) at 1024x1024, the ball
// radius of 4 pixels and the bits. (KF's downward imaginary axis is not applied: the conjugate
// view holds the conjugate nuclei.)
struct Place {
  View v;
  Geometry g;
  int bits;
  FloatExp radius;
};
Place place_of(const std::string& rel) {
  const std::string text = ds::test::slurp(std::string(DEEPSCOPE_TEST_DATA) + "/" + rel);
  Place s;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t k = line.find_first_of(":=");
    if (k == std::string::npos || line[0] == '#') continue;
    std::string key = line.substr(0, k), value = line.substr(k + 1);
    auto trim = [](std::string& x) {
      while (!x.empty() && (x.back() == ' ' || x.back() == '\r')) x.pop_back();
      while (!x.empty() && x.front() == ' ') x.erase(0, 1);
    };
    trim(key);
    trim(value);
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (key == "re") s.v.re = value;
    if (key == "im") s.v.im = value;
    if (key == "zoom") s.v.zoom = value;
  }
  s.v.width = s.v.height = 1024;
  s.g = geometry(s.v);
  s.bits = perturb::view_bits(s.g) + 32;
  s.radius = perturb::pixel_step(s.g) * 4.0;
  return s;
}

void expect_nucleus_at(const std::string& file, uint32_t want_period) {
  SCOPED_TRACE(file);
  const Place s = place_of(file);
  const finder::PeriodResult p = finder::find_period(s.v.re, s.v.im, s.radius, 1000000, s.bits);
  EXPECT_EQ(p.period, want_period);
  const finder::Nucleus n = finder::find_nucleus(s.v.re, s.v.im, p.period, s.bits, s.radius);
  ASSERT_TRUE(n.converged) << n.message;
  // The independent check, 256 bits above the finder's: z_p returns to within 2^-60 of the
  // minibrot's size of the nucleus (Newton distance), and the nucleus is within the search region.
  const double ld = log2_newton_distance(n.re, n.im, p.period, n.bits + 256);
  std::cout << file << ": period " << p.period << ", size 2^" << log2_of(n.size) << ", Newton distance 2^"
            << ld << " (MPFR at " << n.bits + 256 << " bits), " << n.seconds << " s\n";
  EXPECT_LT(ld, log2_of(n.size) - 60);
  // And within the finder's working precision: 2^-(bits - 16) of max(|c|, size) (|c| ~ 1 here).
  const double cmag = std::hypot(std::stod(n.re), std::stod(n.im));
  EXPECT_LT(ld, std::log2(std::max(cmag, to_double(n.size))) - (n.bits - 16));
}

TEST(Finder, NucleiAtKf5e113AndRustFractal1e1000) {
  expect_nucleus_at("kf-benchmarks/5e113.kfr", 11380);
  expect_nucleus_at("locations/rf-e1000.loc", 4498);
}

// rust-fractal's e1200 (period 19,143, 7,509 bits): the last MPFR step is a third-order one whose
// predicted error ends the search without a check orbit (finder_nucleus.cpp); the test's own orbit
// at 256 more bits measures the result.
// The ball method's centre orbit runs in fixed point up to kFixedOrbitMaxLimbs (20 limbs, 1,269
// bits) and in MPFR above: at three views of other programs (KF's 5e113, rust-fractal's line and
// mitosis), the fixed-point search at the view's bits gives the same period after the same number
// of steps as an MPFR search at least 700 bits wider.
TEST(Finder, BallMethodInFixedPointAgreesWithMpfr) {
  for (const char* file : {"kf-benchmarks/5e113.kfr", "locations/rf-line.loc", "locations/rf-mitosis.loc"}) {
    SCOPED_TRACE(file);
    const Place s = place_of(file);
    ASSERT_LE((s.bits + 11 + 63) / 64, 20);  // the fixed-point path
    const finder::PeriodResult fixed = finder::find_period(s.v.re, s.v.im, s.radius, 1000000, s.bits);
    const int wide = 64 * 21 + 100;  // past 20 limbs: MPFR
    const finder::PeriodResult mpfr =
        finder::find_period(s.v.re, s.v.im, s.radius, 1000000, std::max(wide, s.bits + 700));
    EXPECT_GT(fixed.period, 0u);
    EXPECT_EQ(fixed.period, mpfr.period);
    EXPECT_EQ(fixed.iterations, mpfr.iterations);
  }
}

TEST(Finder, NucleusAtRustFractal1e1200ByAThirdOrderStep) {
  expect_nucleus_at("locations/rf-e1200.loc", 19143);
}

// The size estimate against the rendered minibrot: at the nucleus of KF 5e113's period-11380
// minibrot, the pixels proven interior span (farthest apart) between 1.2 and 2.5 times |size|
// (the whole set's interior spans 1.5 to 2.3 of its own scale, depending on direction).
TEST(Finder, SizeEstimateMatchesTheRenderedMinibrot) {
  const Place s = place_of("kf-benchmarks/5e113.kfr");
  const finder::Nucleus n = finder::find_nucleus(s.v.re, s.v.im, 11380, s.bits, s.radius);
  ASSERT_TRUE(n.converged) << n.message;
  View v;
  v.re = n.re;
  v.im = n.im;
  v.zoom = to_string(FloatExp(4.0 / 4.0) / n.size, 17);  // the view is 4 |size| high
  v.width = v.height = 64;
  v.max_iter = 64 * 11380;
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  const RenderResult r = render(v, o);
  // The minibrot is there (at 64 periods of iterations its pixels are not proven interior: the
  // proof would cost more than their orbits, docs/perturbation/errors.md "Interior").
  ASSERT_GT(std::count(r.counts.begin(), r.counts.end(), static_cast<uint32_t>(v.max_iter)), 20);
  double extent = 0;  // in pixels
  for (int a = 0; a < 64 * 64; ++a)
    for (int b = a + 1; b < 64 * 64; ++b)
      if (r.counts[a] == v.max_iter && r.counts[b] == v.max_iter)
        extent = std::max(extent, std::hypot(a % 64 - b % 64, a / 64 - b / 64));
  const double ratio = extent * 4.0 / 64.0;  // in units of |size|
  std::cout << "interior extent " << extent << " pixels = " << ratio << " |size|\n";
  EXPECT_GT(ratio, 1.2);
  EXPECT_LT(ratio, 2.5);
}

TEST(Finder, MisiurewiczPointsFromNearbySeeds) {
  // c = i: preperiod 2, period 2 (0 -> i -> -1 + i -> -i -> -1 + i ...).
  const finder::MisiurewiczGuess g = finder::guess_misiurewicz("0.001", "1.001", 8, 8, 128);
  EXPECT_EQ(g.preperiod, 2);
  EXPECT_EQ(g.period, 2);
  const finder::Misiurewicz m = finder::find_misiurewicz("0.001", "1.001", 2, 2, 128, FloatExp(0.1));
  ASSERT_TRUE(m.converged) << m.message;
  EXPECT_LT(decimal_gap(m.re, "0"), 1e-35);
  EXPECT_LT(decimal_gap(m.im, "1"), 1e-35);
  // The project's preperiod-11, period-3 point (kernels/locations.h, 100 digits), from a seed cut
  // to 40 digits, at 400 bits.
  const std::string re = ds::test::kMisiurewiczRe, im = ds::test::kMisiurewiczIm;
  const finder::Misiurewicz d =
      finder::find_misiurewicz(re.substr(0, 42), im.substr(0, 41), 11, 3, 400, FloatExp(1e-30));
  ASSERT_TRUE(d.converged) << d.message;
  const finder::MisiurewiczGuess dg =
      finder::guess_misiurewicz(re.substr(0, 42), im.substr(0, 41), 32, 16, 400);
  EXPECT_EQ(dg.preperiod, 11);
  EXPECT_EQ(dg.period, 3);
  EXPECT_LT(decimal_gap(d.re, re), 1e-98);
  EXPECT_LT(decimal_gap(d.im, im), 1e-98);
}

}  // namespace
