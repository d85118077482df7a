// ds::FloatExp (arith/floatexp.h) against MPFR: every operation on random operands over the whole
// exponent range and on adversarial cases (exponents near +-2^30, exact and near cancellation,
// exponent gaps around the 60-bit cut-off, zeros and signs), compared with MPFR's correctly rounded
// 53-bit result; strings exact both ways. The GPU runs the same code in test_perturb's device
// section (CPU and CUDA perturbation renders agree pixel for pixel).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <random>
#include <string>

#include "arith/floatexp.h"
#include "oracle.h"

namespace {

using ds::ArithError;
using ds::FloatExp;
using ds::test::Mp;
using Rng = std::mt19937_64;

const double kU = FloatExp::traits().eps;  // 2^-53
const int kRandom = 100000;

FloatExp fe(double m, int64_t e) { return FloatExp::make(m, e); }

void set_exact(mpfr_ptr out, FloatExp x) {
  mpfr_set_d(out, x.m, MPFR_RNDN);  // exact: out has >= 53 bits
  mpfr_mul_2si(out, out, x.e, MPFR_RNDN);
}

// The FloatExp nearest to an MPFR value (MPFR rounds to 53 bits first).
FloatExp from_mpfr(mpfr_srcptr v) {
  Mp r(53);
  mpfr_set(r, v, MPFR_RNDN);
  if (mpfr_zero_p(r)) return fe(0, 0);
  long e = 0;
  double m = mpfr_get_d_2exp(&e, r, MPFR_RNDN);
  return fe(2 * m, e - 1);
}

bool canonical(FloatExp x) {
  if (x.m == 0) return x.e == 0;
  const double a = std::fabs(x.m);
  return a >= 1.0 && a < 2.0;
}

std::string show(FloatExp x) {
  char b[64];
  std::snprintf(b, sizeof b, "%a*2^%d", x.m, x.e);
  return b;
}

FloatExp random_fe(Rng& rng, int max_exp) {
  std::uniform_real_distribution<double> m(1.0, 2.0);
  std::uniform_int_distribution<int> e(-max_exp, max_exp);
  double v = m(rng);
  if (rng() & 1) v = -v;
  return fe(v, e(rng));
}

// Checks r against MPFR's RN(op(a, b)) at 53 bits: bit-identical when `exact`, else within u.
template <class Op, class MpOp>
void check(const char* what, FloatExp a, FloatExp b, Op op, MpOp mp_op, bool exact = true) {
  Mp x(64), y(64), z(200);
  set_exact(x, a);
  set_exact(y, b);
  mp_op(z.v, x.v, y.v);
  const FloatExp want = from_mpfr(z);
  const FloatExp got = op(a, b);
  ASSERT_TRUE(canonical(got)) << what << " " << show(a) << " " << show(b) << " -> " << show(got);
  if (exact) {
    ASSERT_EQ(got, want) << what << " " << show(a) << " " << show(b) << ": " << show(got) << " vs "
                         << show(want);
  } else {
    Mp g(64);
    set_exact(g, got);
    ASSERT_LE(ds::test::rel_err(g, z), kU) << what << " " << show(a) << " " << show(b);
  }
}

void mp_add(mpfr_ptr z, mpfr_srcptr x, mpfr_srcptr y) { mpfr_add(z, x, y, MPFR_RNDN); }
void mp_sub(mpfr_ptr z, mpfr_srcptr x, mpfr_srcptr y) { mpfr_sub(z, x, y, MPFR_RNDN); }
void mp_mul(mpfr_ptr z, mpfr_srcptr x, mpfr_srcptr y) { mpfr_mul(z, x, y, MPFR_RNDN); }
void mp_div(mpfr_ptr z, mpfr_srcptr x, mpfr_srcptr y) { mpfr_div(z, x, y, MPFR_RNDN); }

void add_and_sub(FloatExp a, FloatExp b) {
  const int64_t gap = std::llabs(static_cast<int64_t>(a.e) - b.e);
  const bool exact = gap <= 60 || a.m == 0 || b.m == 0;
  check(
      "add", a, b, [](FloatExp p, FloatExp q) { return p + q; }, mp_add, exact);
  check(
      "sub", a, b, [](FloatExp p, FloatExp q) { return p - q; }, mp_sub, exact);
}

TEST(FloatExp, TraitsAndLayout) {
  EXPECT_STREQ(FloatExp::traits().name, "floatexp");
  EXPECT_EQ(FloatExp::traits().bits, 53);
  EXPECT_EQ(kU, std::ldexp(1.0, -53));
  EXPECT_FALSE(FloatExp::traits().fixed);
  EXPECT_EQ(sizeof(FloatExp), 16u);
}

TEST(FloatExp, RandomOpsAgainstMpfr) {
  Rng rng = ds::test::seeded_rng("FloatExp.RandomOpsAgainstMpfr");
  std::uniform_int_distribution<int> gap(-70, 70);
  for (int i = 0; i < kRandom; ++i) {
    const FloatExp a = random_fe(rng, 1 << 29);
    FloatExp b = random_fe(rng, 1 << 29);
    if (i % 2) b.e = a.e + gap(rng);  // close exponents: the interesting additions
    add_and_sub(a, b);
    if (std::abs(a.e) < (1 << 28) && std::abs(b.e) < (1 << 28)) {
      check(
          "mul", a, b, [](FloatExp p, FloatExp q) { return p * q; }, mp_mul);
      check(
          "div", a, b, [](FloatExp p, FloatExp q) { return p / q; }, mp_div);
    }
    check(
        "sqr", a, a, [](FloatExp p, FloatExp) { return sqr(p); }, mp_mul);
    const FloatExp aa = abs(a);
    check(
        "sqrt", aa, aa, [](FloatExp p, FloatExp) { return sqrt(p); },
        [](mpfr_ptr z, mpfr_srcptr x, mpfr_srcptr) { mpfr_sqrt(z, x, MPFR_RNDN); });
    const double d = std::ldexp(std::uniform_real_distribution<double>(-2, 2)(rng), gap(rng) * 14);
    check(
        "mul double", a, FloatExp(d), [d](FloatExp p, FloatExp) { return p * d; }, mp_mul);
  }
}

TEST(FloatExp, Cancellation) {
  Rng rng = ds::test::seeded_rng("FloatExp.Cancellation");
  std::uniform_int_distribution<int> bits(1, 52);
  for (int i = 0; i < 20000; ++i) {
    const FloatExp a = random_fe(rng, 1 << 29);
    // b agrees with -a in the leading `k` bits: the difference is exact and much smaller.
    const int k = bits(rng);
    FloatExp b = a;
    b.m = -(a.m + std::ldexp(static_cast<double>(rng() % 1000), -k - 10) * (a.m > 0 ? 1 : -1));
    b = FloatExp::make(b.m, b.e);
    add_and_sub(a, b);
    EXPECT_EQ((a - a).m, 0.0);
    EXPECT_EQ((a - a).e, 0);
  }
  // Exponent gaps across the 60-bit cut-off, both signs, and the rounding at a tie.
  for (int g = 50; g <= 70; ++g)
    for (double s : {1.0, -1.0}) {
      add_and_sub(fe(1.0, 100), fe(s * 1.5, 100 - g));
      add_and_sub(fe(-1.0, -100), fe(s * 1.999, -100 - g));
    }
  check(
      "tie", fe(1.0, 0), fe(1.0, -53), [](FloatExp p, FloatExp q) { return p + q; }, mp_add);
}

TEST(FloatExp, ExtremeExponentsAndZeros) {
  const int big = (1 << 30) - 2;
  const FloatExp hi = fe(1.75, big / 2), lo = fe(-1.25, -big / 2);
  check(
      "mul extreme", hi, lo, [](FloatExp p, FloatExp q) { return p * q; }, mp_mul);
  const FloatExp hq = fe(1.75, big / 4), lq = fe(-1.25, -big / 4);  // squares within MPFR's range
  check(
      "sqr huge", hq, hq, [](FloatExp p, FloatExp) { return sqr(p); }, mp_mul);
  check(
      "sqr tiny", lq, lq, [](FloatExp p, FloatExp) { return sqr(p); }, mp_mul);
  add_and_sub(hi, lo);
  const FloatExp zero(0.0);
  EXPECT_EQ(zero.m, 0.0);
  EXPECT_EQ(zero.e, 0);
  EXPECT_EQ(hi + zero, hi);
  EXPECT_EQ(zero + lo, lo);
  EXPECT_EQ((hi * zero).e, 0);
  EXPECT_EQ((zero / hi).m, 0.0);
  EXPECT_EQ(sqrt(zero).m, 0.0);
  EXPECT_EQ(mul_pow2(zero, 77).e, 0);
  EXPECT_EQ(mul_pow2(hi, -5).e, hi.e - 5);
  // Subnormal doubles are renormalised exactly.
  const double sub = std::numeric_limits<double>::denorm_min() * 3;
  const FloatExp s(sub);
  EXPECT_EQ(s.m, 1.5);
  EXPECT_EQ(s.e, -1074 + 1);
  EXPECT_EQ(to_double(s), sub);
}

TEST(FloatExp, ComparisonsAndToDouble) {
  Rng rng = ds::test::seeded_rng("FloatExp.ComparisonsAndToDouble");
  for (int i = 0; i < 20000; ++i) {
    const FloatExp a = random_fe(rng, 2000), b = random_fe(rng, 2000);
    Mp x(64), y(64);
    set_exact(x, a);
    set_exact(y, b);
    const int c = mpfr_cmp(x, y);
    ASSERT_EQ(a < b, c < 0) << show(a) << " " << show(b);
    ASSERT_EQ(a > b, c > 0);
    ASSERT_EQ(a <= b, c <= 0);
    ASSERT_EQ(a >= b, c >= 0);
    ASSERT_EQ(a == b, c == 0);
    ASSERT_EQ(to_double(a), mpfr_get_d(x, MPFR_RNDN)) << show(a);
    ASSERT_EQ(to_double(neg(a)), -to_double(a));
  }
  EXPECT_LT(FloatExp(0.0), fe(1, -900000));
  EXPECT_GT(FloatExp(0.0), fe(-1, -900000));
  EXPECT_LT(fe(-1, 5), fe(-1.5, 4));
  EXPECT_EQ(to_double(fe(1, 5000)), std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_double(fe(-1, -5000)), 0.0);
}

TEST(FloatExp, StringRoundTrips) {
  Rng rng = ds::test::seeded_rng("FloatExp.StringRoundTrips");
  for (int i = 0; i < 300; ++i) {
    const FloatExp a = random_fe(rng, 20000);
    // Exact: the decimal string holds the exact value, so parsing returns the same number.
    const std::string s = to_string(a);
    ASSERT_EQ(FloatExp::from_string(s), a) << s;
    // 17 significant digits identify a 53-bit significand.
    ASSERT_EQ(FloatExp::from_string(to_string(a, 17)), a) << to_string(a, 17);
  }
  // Far beyond double: parsing rounds to nearest like MPFR.
  for (const char* s :
       {"1e-1000", "-3.14159265358979323846264338327950288e-300000", "7e123456", "0", "-0.0", "2.5e-323"}) {
    Mp x(53);
    mpfr_set_str(x, s, 10, MPFR_RNDN);
    EXPECT_EQ(FloatExp::from_string(s), from_mpfr(x)) << s;
  }
  EXPECT_EQ(to_string(fe(1.5, -1)), "0.75");
  EXPECT_EQ(to_string(fe(-1, 100), 5), "-1.2677e30");
  EXPECT_THROW(FloatExp::from_string("1e1000001"), ArithError);
  EXPECT_THROW(FloatExp::from_string("nan"), ArithError);
  EXPECT_THROW(FloatExp::from_string("1.2.3"), ArithError);
  EXPECT_THROW(FloatExp::from_double(std::numeric_limits<double>::infinity()), ArithError);
}

}  // namespace
