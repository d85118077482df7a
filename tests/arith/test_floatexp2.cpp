// ds::FloatExp2 (arith/floatexp2.h) against MPFR: + - * sqr sqrt on random double-word operands
// over a wide exponent range and on adversarial cases (near cancellation, exponent gaps around the
// 107-bit cut-off, zeros and signs), each result within its stated bound of MPFR's exact value and
// canonical; comparisons exact; to_double correctly rounded for in-range values. The GPU runs the
// same code in test_perturb's device section (CPU and CUDA perturbation renders agree).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "arith/floatexp2.h"
#include "oracle.h"

namespace {

using ds::FloatExp;
using ds::FloatExp2;
using ds::test::Mp;
using Rng = std::mt19937_64;

const double kU2 = FloatExp2::traits().eps;  // 5u^2, the largest operation bound
const int kRandom = 100000;

void set_exact(mpfr_ptr out, FloatExp2 x) {
  Mp t(200);
  mpfr_set_d(out, x.hi, MPFR_RNDN);
  mpfr_set_d(t, x.lo, MPFR_RNDN);
  mpfr_add(out, out, t, MPFR_RNDN);  // exact for canonical values: hi + lo spans < 160 bits
  mpfr_mul_2si(out, out, x.e, MPFR_RNDN);
}

bool canonical(FloatExp2 x) {
  if (x.hi == 0) return x.lo == 0 && x.e == 0;
  const double a = std::fabs(x.hi);
  return a >= 1.0 && a < 2.0 && x.hi + x.lo == x.hi;
}

std::string show(FloatExp2 x) {
  char b[96];
  std::snprintf(b, sizeof b, "(%a + %a)*2^%d", x.hi, x.lo, x.e);
  return b;
}

// A random canonical value: hi in [1, 2) with a random sign, a full 53-bit tail, exponent in range.
FloatExp2 random_fe2(Rng& rng, int max_exp) {
  std::uniform_real_distribution<double> m(1.0, 2.0), t(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-max_exp, max_exp);
  const double hi = (rng() & 1) ? -m(rng) : m(rng);
  const double lo = t(rng) * 0x1p-53 * std::fabs(hi);
  return FloatExp2::normalise(hi, lo, e(rng));
}

// |got - exact| <= bound |exact| (both in MPFR, exact), with got canonical.
::testing::AssertionResult within(FloatExp2 got, mpfr_srcptr exact, double bound) {
  if (!canonical(got)) return ::testing::AssertionFailure() << "not canonical: " << show(got);
  Mp g(400);
  set_exact(g, got);
  const double rel = ds::test::rel_err(g, exact);
  if (!(rel <= bound))
    return ::testing::AssertionFailure() << show(got) << " relative error " << rel << " > " << bound;
  return ::testing::AssertionSuccess();
}

TEST(FloatExp2, Traits) {
  EXPECT_STREQ(FloatExp2::traits().name, "floatexp2");
  EXPECT_EQ(FloatExp2::traits().bits, 106);
  EXPECT_NEAR(kU2, 5 * std::ldexp(1.0, -106), 1e-40);
}

TEST(FloatExp2, RandomOpsAgainstMpfr) {
  Rng rng = ds::test::seeded_rng("FloatExp2.RandomOpsAgainstMpfr");
  Mp a(400), b(400), want(800);
  for (int i = 0; i < kRandom; ++i) {
    // Exponent gaps up to ~130 half the time (the add's cut-off at 107), the full range otherwise.
    const FloatExp2 x = random_fe2(rng, i % 2 ? 70 : 100000);
    const FloatExp2 y = random_fe2(rng, i % 2 ? 70 : 100000);
    set_exact(a, x);
    set_exact(b, y);
    mpfr_add(want, a, b, MPFR_RNDN);
    ASSERT_TRUE(within(x + y, want, 3 * 0x1p-106 + 0x1p-105)) << show(x) << " + " << show(y);
    mpfr_sub(want, a, b, MPFR_RNDN);
    ASSERT_TRUE(within(x - y, want, 3 * 0x1p-106 + 0x1p-105)) << show(x) << " - " << show(y);
    mpfr_mul(want, a, b, MPFR_RNDN);
    ASSERT_TRUE(within(x * y, want, kU2)) << show(x) << " * " << show(y);
    mpfr_sqr(want, a, MPFR_RNDN);
    ASSERT_TRUE(within(sqr(x), want, kU2)) << "sqr " << show(x);
    mpfr_abs(want, a, MPFR_RNDN);
    mpfr_sqrt(want, want, MPFR_RNDN);
    ASSERT_TRUE(within(sqrt(abs(x)), want, 0x1p-100)) << "sqrt " << show(x);
    const int c = mpfr_cmp(a, b);
    EXPECT_EQ(x < y, c < 0);
    EXPECT_EQ(x > y, c > 0);
    EXPECT_EQ(x <= y, c <= 0);
  }
}

// a + b with b = -a + tiny: the tail carries the answer (exact cancellation of the heads).
TEST(FloatExp2, CancellationKeepsTheTail) {
  Rng rng = ds::test::seeded_rng("FloatExp2.CancellationKeepsTheTail");
  Mp a(400), b(400), want(800);
  for (int i = 0; i < 20000; ++i) {
    const FloatExp2 x = random_fe2(rng, 300);
    std::uniform_int_distribution<int> k(1, 150);
    const FloatExp2 d = FloatExp2::normalise(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52), 0.0,
                                             x.e - k(rng));
    const FloatExp2 y = -x + d;
    set_exact(a, x);
    set_exact(b, y);
    mpfr_add(want, a, b, MPFR_RNDN);
    ASSERT_TRUE(within(x + y, want, 3 * 0x1p-106 + 0x1p-105)) << show(x) << " + " << show(y);
  }
  const FloatExp2 one(1.0);
  EXPECT_EQ((one - one).hi, 0.0);
  EXPECT_TRUE(canonical(one - one));
}

TEST(FloatExp2, ZerosSignsAndConversions) {
  const FloatExp2 z(0.0), one(1.0), m3(-3.0);
  EXPECT_TRUE(canonical(z));
  EXPECT_EQ(to_double(z + z), 0.0);
  EXPECT_EQ(to_double(z * m3), 0.0);
  EXPECT_EQ(to_double(one + m3), -2.0);
  EXPECT_EQ(to_double(m3 * m3), 9.0);
  EXPECT_EQ(to_double(abs(m3)), 3.0);
  EXPECT_EQ(to_double(mul_pow2(m3, -3)), -0.375);
  EXPECT_EQ(to_double(sqrt(FloatExp2(2.25))), 1.5);
  EXPECT_TRUE(m3 < z && z < one && !(one < one) && one <= one);
  // A tail beyond binary64: 1 + 2^-80 survives the round trip through from_parts and compares.
  const FloatExp2 t = FloatExp2::from_parts(FloatExp::make(1.0, 0), 0x1p-80);
  EXPECT_TRUE(one < t);
  EXPECT_EQ(to_double(t - one), 0x1p-80);
  // Far beyond double's range: 2^-5000 squared.
  const FloatExp2 tiny = FloatExp2::from_parts(FloatExp::make(1.5, -5000), 0x1p-60);
  const FloatExp2 s = tiny * tiny;
  EXPECT_EQ(s.e, -10000 + 1);  // 2.25 -> 1.125 * 2
  EXPECT_EQ(to_double(tiny), 0.0);
  EXPECT_EQ(to_floatexp(s).e, s.e);
}

}  // namespace
