// The error estimate's escape test without its square root (perturb.cuh, clearly_below_threshold):
// wherever it says "clear", the stated test 16 quad(a, b) down >= d must say "not flagged".
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "kernels/perturb/perturb.cuh"

namespace {

using ds::perturb::clearly_below_threshold;
using ds::perturb::quad;

// The stated test, as perturb_pixel<double> writes it: e = unscaled(quad(a, b)) = quad(a, b) * down.
bool flagged(double a, double b, double d, double down) { return 16.0 * (quad(a, b) * down) >= d; }

// Checks the implication and returns whether the shortcut applied.
bool check(double a, double b, double d, double down) {
  const bool clear = clearly_below_threshold(a, b, d, 1.0 / down);
  if (clear) {
    EXPECT_FALSE(flagged(a, b, d, down)) << std::hexfloat << "a=" << a << " b=" << b << " d=" << d
                                         << " down=" << down;
  }
  return clear;
}

TEST(ErrorBoundEscapeTest, NeverClearWhereTheStatedTestFlags) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(1.0, 2.0), unit(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-1074, 1023), small_ex(-60, 10);
  const double downs[] = {1.0, std::ldexp(1.0, -500)};
  uint64_t clear = 0, total = 0, tight = 0;
  for (int it = 0; it < 2000000; ++it) {
    const double down = downs[it & 1];
    const double a = std::ldexp(mant(rng), ex(rng));
    const double b = it % 3 == 0 ? 0.0 : std::ldexp(mant(rng), ex(rng));
    // d right at the boundary 16 e (within a few hundred ulps either side), and anywhere.
    const double e16 = 16.0 * quad(a, b) * down;
    const double near = e16 * (1.0 + unit(rng) * std::ldexp(1.0, -44));
    const double far = std::ldexp(mant(rng), small_ex(rng));
    const double q = quad(a, b);
    for (double d : {near, std::nextafter(e16, 0.0), e16, std::nextafter(e16, INFINITY), far}) {
      if (!(d >= 0.0) || std::isinf(d)) continue;
      const bool c = check(a, b, d, down);
      clear += c;
      ++total;
      // And it is tight: away from overflow and underflow, a margin of 1e-12 is enough.
      if (q > 1e-140 && q < 1e140 && d > 1e-100 && d < 1e4 && d >= e16 * (1.0 + 1e-12)) {
        EXPECT_TRUE(c) << std::hexfloat << "a=" << a << " b=" << b << " d=" << d << " down=" << down;
        ++tight;
      }
    }
  }
  std::printf("%llu of %llu cases decided without the square root (%llu where it must)\n",
              static_cast<unsigned long long>(clear), static_cast<unsigned long long>(total),
              static_cast<unsigned long long>(tight));
  EXPECT_GT(tight, 100000u);
}

TEST(ErrorBoundEscapeTest, EdgeCases) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double tiny = std::numeric_limits<double>::denorm_min(), huge = std::numeric_limits<double>::max();
  const double down = std::ldexp(1.0, -500);
  for (double dn : {1.0, down}) {
    EXPECT_FALSE(clearly_below_threshold(nan, 0.0, 1.0, 1.0 / dn));
    EXPECT_FALSE(clearly_below_threshold(inf, 0.0, 1.0, 1.0 / dn));
    EXPECT_FALSE(clearly_below_threshold(huge, huge, 1.0, 1.0 / dn));
    EXPECT_FALSE(clearly_below_threshold(0.0, 0.0, 0.0, 1.0 / dn));  // |z| = 2 exactly: flagged
    EXPECT_FALSE(clearly_below_threshold(0.0, 0.0, 1e-300, 1.0 / dn));  // below the range it decides
    for (double a : {0.0, tiny, 1e-310, 1e-160, 1e-150, 1.0, 1e150, 1e300})
      for (double b : {0.0, tiny, 1e-200, 1e-16})
        for (double d : {1e-289, 1e-200, 1e-100, 1e-30, 1e-8, 0.5, 4.0, 60.0}) check(a, b, d, dn);
  }
  // The common case: an estimate far below |z|^2 - 4 is decided without the square root.
  EXPECT_TRUE(clearly_below_threshold(1e-20, 1e-17, 0.5, 1.0));
  EXPECT_TRUE(clearly_below_threshold(1e-20 / down, 1e-17 / down, 0.5, 1.0 / down));
}

}  // namespace
