// ds::FloatExpN<N> (arith/floatexpn.h, perturbation's wide delta tiers) against MPFR: + - * sqr sqrt
// on random N-term operands (N = 3, 4, 8) over a wide exponent range, with exponent gaps around the
// add's cut-off and near cancellation, each result within its stated bound of MPFR's exact value and
// normalised; comparisons exact.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "arith/floatexpn.h"
#include "oracle.h"

namespace {

using ds::Expansion;
using ds::FloatExp2;
using ds::FloatExp3;
using ds::FloatExpN;
using ds::test::Mp;
using Rng = std::mt19937_64;

const double kU = FloatExp3::kUnitRoundoff;  // 2 * 2^-159

template <int N>
void set_exact(mpfr_ptr out, const FloatExpN<N>& x) {
  mpfr_set_d(out, x.m.t[0], MPFR_RNDN);
  for (int i = 1; i < N; ++i) mpfr_add_d(out, out, x.m.t[i], MPFR_RNDN);  // exact at 1400 bits
  mpfr_mul_2si(out, out, x.e, MPFR_RNDN);
}

template <int N>
bool normalised(const FloatExpN<N>& x) {
  if (x.m.t[0] == 0) {
    for (int i = 1; i < N; ++i)
      if (x.m.t[i] != 0) return false;
    return x.e == 0;
  }
  const double a = std::fabs(x.m.t[0]);
  if (!(a >= 1.0 && a < 2.0)) return false;
  for (int i = 1; i < N; ++i)
    if (!(std::fabs(x.m.t[i]) <= 0x1p-52 * std::fabs(x.m.t[i - 1]))) return false;
  return true;
}

template <int N>
std::string show(const FloatExpN<N>& x) {
  std::string out = "(";
  char b[40];
  for (int i = 0; i < N; ++i) {
    std::snprintf(b, sizeof b, "%s%a", i ? " + " : "", x.m.t[i]);
    out += b;
  }
  return out + ")*2^" + std::to_string(x.e);
}

// A random value with a full 53N-bit significand in [1, 2), a random sign and exponent.
template <int N>
FloatExpN<N> random_fen(Rng& rng, int max_exp) {
  std::uniform_real_distribution<double> m(1.0, 2.0), t(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-max_exp, max_exp);
  Expansion<N> s(m(rng));
  for (int i = 1; i < N; ++i) s = s + std::ldexp(t(rng), -53 * i);
  if (rng() & 1) s = -s;
  return FloatExpN<N>::normalise(s, e(rng));
}
FloatExp3 random_fe3(Rng& rng, int max_exp) { return random_fen<3>(rng, max_exp); }

template <int N>
::testing::AssertionResult within(const FloatExpN<N>& got, mpfr_srcptr exact, double bound) {
  if (!normalised(got)) return ::testing::AssertionFailure() << "not normalised: " << show(got);
  Mp g(1400);
  set_exact(g, got);
  const double rel = ds::test::rel_err(g, exact);
  if (!(rel <= bound))
    return ::testing::AssertionFailure() << show(got) << " relative error " << rel << " > " << bound;
  return ::testing::AssertionSuccess();
}

template <int N>
void random_ops(const char* name, int count) {
  Rng rng = ds::test::seeded_rng(name);
  Mp a(1400), b(1400), want(2800);
  const double kU = FloatExpN<N>::kUnitRoundoff;
  for (int i = 0; i < count; ++i) {
    // Exponent gaps around the add's cut-off (53 N + 3) half the time, the full range otherwise.
    const FloatExpN<N> x = random_fen<N>(rng, i % 2 ? 30 * N : 100000);
    const FloatExpN<N> y = random_fen<N>(rng, i % 2 ? 30 * N : 100000);
    set_exact(a, x);
    set_exact(b, y);
    mpfr_add(want, a, b, MPFR_RNDN);
    ASSERT_TRUE(within(x + y, want, kU)) << show(x) << " + " << show(y);
    mpfr_sub(want, a, b, MPFR_RNDN);
    ASSERT_TRUE(within(x - y, want, kU)) << show(x) << " - " << show(y);
    mpfr_mul(want, a, b, MPFR_RNDN);
    ASSERT_TRUE(within(x * y, want, kU)) << show(x) << " * " << show(y);
    mpfr_sqr(want, a, MPFR_RNDN);
    ASSERT_TRUE(within(sqr(x), want, kU)) << "sqr " << show(x);
    mpfr_abs(want, a, MPFR_RNDN);
    mpfr_sqrt(want, want, MPFR_RNDN);
    ASSERT_TRUE(within(sqrt(abs(x)), want, 4 * kU)) << "sqrt " << show(x);
    const int c = mpfr_cmp(a, b);
    EXPECT_EQ(x < y, c < 0);
    EXPECT_EQ(x > y, c > 0);
    EXPECT_EQ(x <= y, c <= 0);
  }
}

TEST(FloatExp3, RandomOpsAgainstMpfr) { random_ops<3>("FloatExp3.RandomOpsAgainstMpfr", 50000); }
TEST(FloatExp4, RandomOpsAgainstMpfr) { random_ops<4>("FloatExp4.RandomOpsAgainstMpfr", 30000); }
TEST(FloatExp8, RandomOpsAgainstMpfr) { random_ops<8>("FloatExp8.RandomOpsAgainstMpfr", 10000); }

// a + b with b = -a + tiny: the low terms carry the answer; the bound is then relative to the
// operands (the 2^-32 eps (|a| + |b|) term), which kUnitRoundoff covers.
TEST(FloatExp3, CancellationKeepsTheLowTerms) {
  Rng rng = ds::test::seeded_rng("FloatExp3.CancellationKeepsTheLowTerms");
  Mp a(700), b(700), want(1400), mag(1400);
  for (int i = 0; i < 20000; ++i) {
    const FloatExp3 x = random_fe3(rng, 300);
    std::uniform_int_distribution<int> k(1, 200);
    const FloatExp3 d = FloatExp3::normalise(Expansion<3>(1.0 + std::ldexp(static_cast<double>(rng() >> 12), -52)),
                                             x.e - k(rng));
    const FloatExp3 y = -x + d;
    set_exact(a, x);
    set_exact(b, y);
    mpfr_add(want, a, b, MPFR_RNDN);
    const FloatExp3 got = x + y;
    ASSERT_TRUE(normalised(got)) << show(got);
    Mp g(1400), err(1400);
    set_exact(g, got);
    mpfr_sub(err, g, want, MPFR_RNDN);
    mpfr_abs(err, err, MPFR_RNDN);
    mpfr_abs(mag, a, MPFR_RNDN);
    mpfr_mul_2si(mag, mag, 1, MPFR_RNDN);  // |a| + |b| <= 2 |a| (1 + 2^-1)
    mpfr_mul_d(mag, mag, kU, MPFR_RNDN);
    ASSERT_LE(mpfr_cmp(err, mag), 0) << show(x) << " + " << show(y);
  }
  const FloatExp3 one(1.0);
  EXPECT_EQ((one - one).m.t[0], 0.0);
  EXPECT_TRUE(normalised(one - one));
}

TEST(FloatExp3, ZerosSignsAndConversions) {
  const FloatExp3 z(0.0), one(1.0), m3(-3.0);
  EXPECT_TRUE(normalised(z));
  EXPECT_EQ(to_double(z + z), 0.0);
  EXPECT_EQ(to_double(z * m3), 0.0);
  EXPECT_EQ(to_double(one + m3), -2.0);
  EXPECT_EQ(to_double(m3 * m3), 9.0);
  EXPECT_EQ(to_double(abs(m3)), 3.0);
  EXPECT_EQ(to_double(mul_pow2(m3, -3)), -0.375);
  EXPECT_EQ(to_double(sqrt(FloatExp3(2.25))), 1.5);
  EXPECT_TRUE(m3 < z && z < one && !(one < one) && one <= one);
  // A third term beyond floatexp2: 1 + 2^-140 compares above 1 and subtracts to 2^-140.
  Expansion<3> s(1.0);
  s = s + 0x1p-140;
  const FloatExp3 t = FloatExp3::normalise(s, 0);
  EXPECT_TRUE(one < t);
  EXPECT_EQ(to_double(t - one), 0x1p-140);
  // From floatexp2, exactly; far beyond double's range.
  const FloatExp2 w = FloatExp2::from_parts(ds::FloatExp::make(1.5, -5000), 0x1p-60);
  const FloatExp3 v = FloatExp3::of(w);
  EXPECT_EQ(v.e, -5000);
  EXPECT_EQ(to_floatexp2(v).lo, w.lo);
  EXPECT_EQ((v * v).e, -10000 + 1);
}

}  // namespace
