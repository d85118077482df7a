// Exact decimal conversion (arith/decimal.h) and the native f32/f64 formats against MPFR.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "arith/decimal.h"
#include "arith/native.h"
#include "oracle.h"

namespace {

using ds::ArithError;
namespace dec = ds::decimal;

TEST(Decimal, RejectsMalformedStrings) {
  for (const char* bad : {"", " ", "1.2.3", "abc", "1e", "1e+", "--1", "+-1", "1x", "nan", "inf", "-Infinity",
                          ".", "e5", "1 2", "0x10", "1e9999999"}) {
    EXPECT_THROW(dec::validate(bad), ArithError) << "\"" << bad << "\"";
  }
  for (const char* good : {"0", "-0", "+1", "1.", ".5", "-0.000", "1e-300", "  12.5e+3  ", "7E2"}) {
    EXPECT_NO_THROW(dec::validate(good)) << good;
  }
}

TEST(Decimal, ExpansionIsGreedyNearest) {
  double t[3];
  dec::to_expansion("0.1", t, 3);
  EXPECT_EQ(t[0], 0.1);
  // The second term is the nearest double to 0.1 - RN(0.1), exactly.
  ds::test::Mp exact(2000), got(2000);
  mpfr_set_str(exact, "0.1", 10, MPFR_RNDN);
  ds::test::set_terms(got, t, 3);
  EXPECT_LT(ds::test::rel_err(got, exact), std::ldexp(1.0, -150));
  EXPECT_LE(std::fabs(t[1]), std::ldexp(std::fabs(t[0]), -53));
  // Ties round to even: 1 + 2^-53 is a tie between 1 and 1 + 2^-52.
  dec::to_expansion("1.00000000000000011102230246251565404236316680908203125", t, 2);
  EXPECT_EQ(t[0], 1.0);
  EXPECT_EQ(t[1], std::ldexp(1.0, -53));
  EXPECT_THROW(dec::to_expansion("1e309", t, 1), ArithError);
  // Subnormal results are honoured, not flushed.
  dec::to_expansion("4.9406564584124654e-324", t, 1);
  EXPECT_EQ(t[0], std::numeric_limits<double>::denorm_min());
}

TEST(Decimal, FixedPointRoundsHalfEvenAndChecksRange) {
  uint32_t w[2];
  dec::to_twos_complement("-2.5", 32, w, 2);
  EXPECT_EQ(w[0], 0xFFFFFFFDu);
  EXPECT_EQ(w[1], 0x80000000u);
  dec::to_twos_complement("0.5e-32", 32, w, 2);  // below half an ulp: rounds to 0
  EXPECT_EQ(w[0] | w[1], 0u);
  EXPECT_THROW(dec::to_twos_complement("2147483648", 32, w, 2), ArithError);
  EXPECT_NO_THROW(dec::to_twos_complement("-2147483648", 32, w, 2));
  bool neg = dec::to_sign_magnitude("-3.25", 32, w, 2);
  EXPECT_TRUE(neg);
  EXPECT_EQ(w[0], 3u);
  EXPECT_EQ(w[1], 0x40000000u);
  EXPECT_THROW(dec::to_sign_magnitude("4294967296", 32, w, 2), ArithError);
}

TEST(Decimal, ExactRoundTrips) {
  auto rng = ds::test::seeded_rng("Decimal.ExactRoundTrips");
  std::uniform_int_distribution<uint32_t> word;
  for (int k = 0; k < 2000; ++k) {
    uint32_t w[4] = {word(rng), word(rng), word(rng), word(rng)}, back[4];
    std::string s = dec::from_twos_complement(w, 4, 96, 0);
    dec::to_twos_complement(s, 96, back, 4);
    EXPECT_EQ(std::memcmp(w, back, sizeof w), 0) << s;
    double d[2] = {std::ldexp(static_cast<double>(word(rng)) + 0.5, static_cast<int>(word(rng) % 200) - 100), 0};
    d[1] = std::ldexp(d[0], -60);
    double e[2];
    dec::to_expansion(dec::from_expansion(d, 2, 0), e, 2);
    EXPECT_EQ(d[0], e[0]);
    EXPECT_EQ(d[1], e[1]);
  }
  EXPECT_EQ(dec::from_twos_complement(std::array<uint32_t, 2>{0xFFFFFFFDu, 0x80000000u}.data(), 2, 32, 0), "-2.5");
  double x = 0.1;
  EXPECT_EQ(dec::from_expansion(&x, 1, 0), "0.1000000000000000055511151231257827021181583404541015625");
  EXPECT_EQ(dec::from_expansion(&x, 1, 5), "0.1");
  double big = 1e300;
  EXPECT_EQ(dec::from_expansion(&big, 1, 3), "1e300");
}

template <class T>
class NativeTest : public ::testing::Test {};
using NativeTypes = ::testing::Types<ds::F32, ds::F64>;
TYPED_TEST_SUITE(NativeTest, NativeTypes);

// Each operation is correctly rounded: |err| <= u |exact| (traits().eps = u).
TYPED_TEST(NativeTest, CorrectlyRoundedAgainstMpfr) {
  using T = TypeParam;
  const double u = T::traits().eps;
  auto rng = ds::test::seeded_rng(T::traits().name);
  std::uniform_real_distribution<double> mant(-1.0, 1.0);
  std::uniform_int_distribution<int> ex(-30, 30);
  ds::test::Mp a(300), b(300), r(300), g(300);
  double worst = 0;
  for (int k = 0; k < 100000; ++k) {
    T x(std::ldexp(mant(rng), ex(rng))), y(std::ldexp(mant(rng), ex(rng)));
    if (to_double(y) == 0) continue;
    mpfr_set_d(a, to_double(x), MPFR_RNDN);
    mpfr_set_d(b, to_double(y), MPFR_RNDN);
    auto check = [&](T got, int (*op)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t)) {
      op(r, a, b, MPFR_RNDN);
      mpfr_set_d(g, to_double(got), MPFR_RNDN);
      double e = ds::test::rel_err(g, r);
      worst = std::max(worst, e / u);
      EXPECT_LE(e, u);
    };
    check(x + y, mpfr_add);
    check(x - y, mpfr_sub);
    check(x * y, mpfr_mul);
    check(x / y, mpfr_div);
    check(sqr(x), [](mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr, mpfr_rnd_t m) { return mpfr_sqr(r, a, m); });
    T ax = abs(x);
    mpfr_set_d(a, to_double(ax), MPFR_RNDN);
    check(sqrt(ax), [](mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr, mpfr_rnd_t m) { return mpfr_sqrt(r, a, m); });
  }
  std::cout << T::traits().name << ": max error " << worst << " u\n";
}

TYPED_TEST(NativeTest, BadInputThrows) {
  using T = TypeParam;
  EXPECT_THROW(T::from_string("1.2.3"), ArithError);
  EXPECT_THROW(T::from_double(std::nan("")), ArithError);
  EXPECT_THROW(T::from_double(INFINITY), ArithError);
  EXPECT_THROW(T::from_string("1e400"), ArithError);
  EXPECT_EQ(to_double(T::from_string("-0.75")), -0.75);
  EXPECT_EQ(to_string(T::from_string("-0.75")), "-0.75");
  EXPECT_EQ(to_double(mul_pow2(T(3.0), -2)), 0.75);
  EXPECT_EQ(to_double(abs(T(-2.0))), 2.0);
  EXPECT_TRUE(T(1.0) < T(2.0));
}

}  // namespace
