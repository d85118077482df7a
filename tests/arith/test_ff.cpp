// ds::FloatFloat (arith/ff.h) against an MPFR oracle: every operation on fresh random normalized pairs
// and on adversarial cases (cancellation, subnormal low words, range limits, zeros, signs, strings),
// with tolerances from traits() and the bounds stated in ff.h. Host and GPU bit-identity is checked
// for every format by test_device_ops.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>

#include "arith/ff.h"
#include "oracle.h"

namespace {

using ds::ArithError;
using ds::FloatFloat;
using ds::test::Mp;
using Rng = std::mt19937_64;

// u^2 = traits().eps; the bounds of ff.h as relative errors.
const double kU2 = FloatFloat::traits().eps;
const double kU = std::sqrt(kU2);  // 2^-24, exact
const double kAddBound = 3 * kU2 + 13 * kU2 * kU;
const double kMulBound = 5 * kU2;
const double kDivBound = 9.8 * kU2;
const double kSqrtBound = 25.0 / 8.0 * kU2;
const double kFpBound = 2 * kU2;                               // DWPlusFP and DWTimesFP3
const int kMinExp = std::ilogb(FloatFloat::traits().min_abs);  // -78
const int kMaxExp = std::ilogb(FloatFloat::traits().max_abs);  // 127
const int kRandom = 100000;
// Exact values: a pair spans < 280 bits, a product of two pairs < 560.
constexpr mpfr_prec_t kPairPrec = 320, kResultPrec = 704;

FloatFloat ff(float hi, float lo) {
  FloatFloat r;
  r.hi = hi;
  r.lo = lo;
  return r;
}
bool normalized(FloatFloat x) {
  float s, e;
  ds::eft::two_sum(x.hi, x.lo, s, e);
  return s == x.hi && e == x.lo;
}
std::string show(FloatFloat x) {
  char b[64];
  std::snprintf(b, sizeof b, "(%a, %a)", x.hi, x.lo);
  return b;
}
void set_exact(mpfr_ptr out, FloatFloat x) {
  float w[2] = {x.hi, x.lo};
  ds::test::set_terms(out, w, 2);
}
int uniform(Rng& rng, int lo, int hi) {
  return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

// A float with binary exponent e (|x| in [2^e, 2^(e+1)) when normal), random sign and significand.
float random_float_at(Rng& rng, int e) {
  float x = std::ldexp(static_cast<float>((1u << 23) | static_cast<uint32_t>(rng() & 0x7fffff)), e - 23);
  return (rng() & 1) ? -x : x;
}
// A normalized pair, hi's exponent uniform in [emin, emax]: mostly a full 48-bit pair, sometimes
// lo = 0, a gap of up to 40 bits between the words, or lo at exactly half an ulp of hi (a tie).
FloatFloat random_ff(Rng& rng, int emin, int emax) {
  for (;;) {
    int e = uniform(rng, emin, emax), kind = uniform(rng, 0, 15);
    float hi = random_float_at(rng, e), lo;
    if (kind == 0)
      lo = 0.0f;
    else if (kind == 1)
      lo = std::ldexp((rng() & 1) ? 1.0f : -1.0f, e - 24);
    else
      lo = random_float_at(rng, e - 25 - (kind < 10 ? 0 : uniform(rng, 1, 40)));
    FloatFloat x = ff(hi, lo);
    if (normalized(x)) return x;
  }
}

using Pair = std::pair<FloatFloat, FloatFloat>;
using Oracle = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

// Runs op on n operand pairs from gen; every result must be normalized and within rel_bound of the
// MPFR value (plus abs_slack). Prints and returns the largest relative error.
template <class Gen, class Op>
double check_op(const char* what, int n, Gen gen, Op op, Oracle oracle, double rel_bound,
                double abs_slack = 0.0) {
  Mp x(kPairPrec), y(kPairPrec), want(kResultPrec), got(kPairPrec);
  double worst = 0;
  int failures = 0;
  for (int i = 0; i < n; ++i) {
    Pair p = gen();
    set_exact(x, p.first);
    set_exact(y, p.second);
    oracle(want, x, y, MPFR_RNDN);
    FloatFloat r = op(p.first, p.second);
    set_exact(got, r);
    double rel = ds::test::rel_err(got, want), abs_err = ds::test::abs_err(got, want);
    if (rel < INFINITY && rel > worst) worst = rel;
    bool ok = normalized(r) &&
              (rel <= rel_bound ||
               (abs_slack > 0 && abs_err <= rel_bound * std::fabs(mpfr_get_d(want, MPFR_RNDA)) + abs_slack));
    if (!ok && ++failures <= 5)
      ADD_FAILURE() << what << ": " << show(p.first) << ", " << show(p.second) << " -> " << show(r)
                    << ", relative error " << rel / kU2 << " u^2";
  }
  EXPECT_EQ(failures, 0) << what;
  std::cout << "[max] ff " << what << ": " << worst / kU2 << " u^2 (bound " << rel_bound / kU2 << " u^2";
  if (abs_slack > 0) std::cout << " + " << abs_slack << " absolute";
  std::cout << ", " << n << " cases)" << std::endl;
  return worst;
}
int sqrt_oracle(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr, mpfr_rnd_t rnd) { return mpfr_sqrt(r, x, rnd); }

FloatFloat add(FloatFloat a, FloatFloat b) { return a + b; }
FloatFloat sub(FloatFloat a, FloatFloat b) { return a - b; }
FloatFloat mul(FloatFloat a, FloatFloat b) { return a * b; }
FloatFloat div(FloatFloat a, FloatFloat b) { return a / b; }
FloatFloat square(FloatFloat a, FloatFloat) { return sqr(a); }
FloatFloat root(FloatFloat a, FloatFloat) { return sqrt(a); }
int sqr_oracle(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr, mpfr_rnd_t rnd) { return mpfr_sqr(r, x, rnd); }

TEST(FloatFloat, TraitsAndLayout) {
  static_assert(std::is_trivially_copyable<FloatFloat>::value && std::is_standard_layout<FloatFloat>::value);
  static_assert(sizeof(FloatFloat) == 2 * sizeof(float) && FloatFloat::kHasDivSqrt);
  constexpr ds::FormatTraits t = FloatFloat::traits();
  EXPECT_STREQ(t.name, "ff");
  EXPECT_EQ(t.bits, 48);
  EXPECT_EQ(t.eps, std::ldexp(1.0, -48));
  EXPECT_FALSE(t.fixed);
  EXPECT_EQ(kMinExp, -78);
  EXPECT_EQ(kMaxExp, 127);
}

TEST(FloatFloat, AddSubRandom) {
  Rng rng = ds::test::seeded_rng("FloatFloat.AddSubRandom");
  // Half the pairs with independent exponents, half within 3 binades (carries and cancellation).
  auto gen = [&] {
    FloatFloat a = random_ff(rng, -60, 60);
    int ea = std::ilogb(a.hi);
    FloatFloat b = (rng() & 1) ? random_ff(rng, -60, 60) : random_ff(rng, ea - 3, ea + 3);
    return Pair(a, b);
  };
  check_op("add", kRandom, gen, add, mpfr_add, kAddBound);
  check_op("sub", kRandom, gen, sub, mpfr_sub, kAddBound);
}

TEST(FloatFloat, MulSqrDivSqrtRandom) {
  Rng rng = ds::test::seeded_rng("FloatFloat.MulSqrDivSqrtRandom");
  auto gen = [&] { return Pair(random_ff(rng, -38, 38), random_ff(rng, -38, 38)); };
  check_op("mul", kRandom, gen, mul, mpfr_mul, kMulBound);
  check_op("sqr", kRandom, gen, square, sqr_oracle, kMulBound);
  check_op("div", kRandom, gen, div, mpfr_div, kDivBound);
  // Division with operands across the whole range, quotients in [min_abs, max_abs / 2).
  auto wide = [&] {
    for (;;) {
      int eq = uniform(rng, kMinExp, kMaxExp - 2), ey = uniform(rng, -126, kMaxExp - 1);
      if (eq + ey >= -126 && eq + ey <= kMaxExp - 1) {
        FloatFloat y = random_ff(rng, ey, ey);
        return Pair(random_ff(rng, eq + ey, eq + ey), y);
      }
    }
  };
  check_op("div (wide exponents)", kRandom, wide, div, mpfr_div, kDivBound);
  auto positive = [&] { return Pair(abs(random_ff(rng, kMinExp, kMaxExp - 1)), FloatFloat(0.0)); };
  check_op("sqrt", kRandom, positive, root, sqrt_oracle, kSqrtBound);
}

// FloatFloat(d) is exact when d - RN_float(d) is a float, else within u^2 |d|; the op then uses the
// DW-op-FP algorithm (lo == 0) or the DW-op-DW one, each checked against its bound.
TEST(FloatFloat, OpsWithDouble) {
  Rng rng = ds::test::seeded_rng("FloatFloat.OpsWithDouble");
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  Mp d_exact(kPairPrec), conv(kPairPrec);
  double worst_conv = 0;
  double d = 0;
  auto gen = [&] {
    FloatFloat a = random_ff(rng, -40, 40);
    int e = uniform(rng, -40, 40);
    d = std::ldexp((rng() & 1) ? -mant(rng) : mant(rng), e);
    if (rng() & 1) d = static_cast<float>(d);  // the DW-op-FP path
    FloatFloat c(d);
    EXPECT_TRUE(normalized(c));
    mpfr_set_d(d_exact, d, MPFR_RNDN);
    set_exact(conv, c);
    double err = ds::test::rel_err(conv, d_exact);
    worst_conv = std::max(worst_conv, err);
    EXPECT_LE(err, kU2) << d;
    return Pair(a, c);
  };
  // The oracle sees FloatFloat(d) (second of the pair); op takes the double d itself (check_op calls
  // gen, then op, so d is the current one).
  auto plus = [&](FloatFloat a, FloatFloat) { return a + d; };
  auto minus = [&](FloatFloat a, FloatFloat) { return a - d; };
  auto times = [&](FloatFloat a, FloatFloat) { return a * d; };
  check_op("+ double", kRandom, gen, plus, mpfr_add, kAddBound);
  check_op("- double", kRandom, gen, minus, mpfr_sub, kAddBound);
  check_op("* double", kRandom, gen, times, mpfr_mul, kMulBound);
  std::cout << "[max] ff FloatFloat(double) conversion: " << worst_conv / kU2 << " u^2" << std::endl;
  // A float operand takes DWPlusFP / DWTimesFP3, with their tighter bounds.
  auto gen_fp = [&] {
    d = random_float_at(rng, uniform(rng, -40, 40));
    return Pair(random_ff(rng, -40, 40), FloatFloat(d));
  };
  check_op("+ float-valued double (DWPlusFP)", kRandom, gen_fp, plus, mpfr_add, kFpBound);
  check_op("* float-valued double (DWTimesFP3)", kRandom, gen_fp, times, mpfr_mul, kFpBound);
}

TEST(FloatFloat, CatastrophicCancellation) {
  Rng rng = ds::test::seeded_rng("FloatFloat.CatastrophicCancellation");
  // y.hi = -x.hi, or one ulp away, with fresh low words: the result is all low-order bits.
  auto gen = [&] {
    for (;;) {
      FloatFloat a = random_ff(rng, -60, 60), b = random_ff(rng, std::ilogb(a.hi), std::ilogb(a.hi));
      b.hi = -a.hi;
      int step = uniform(rng, -1, 1);
      if (step) b.hi = std::nextafter(b.hi, step > 0 ? INFINITY : -INFINITY);
      if (normalized(b)) return Pair(a, b);
    }
  };
  check_op("add (cancellation)", kRandom, gen, add, mpfr_add, kAddBound);
  FloatFloat x = random_ff(rng, -10, 10);
  EXPECT_EQ(to_double(x - x), 0.0);
  EXPECT_EQ(to_double(x + (-x)), 0.0);
}

TEST(FloatFloat, SubnormalLowWords) {
  Rng rng = ds::test::seeded_rng("FloatFloat.SubnormalLowWords");
  // hi near 1 with a subnormal lo: valid pairs well inside the range.
  auto tiny_lo = [&] {
    FloatFloat x =
        ff(random_float_at(rng, uniform(rng, -2, 2)), random_float_at(rng, uniform(rng, -149, -127)));
    return x;
  };
  auto gen = [&] { return Pair(tiny_lo(), tiny_lo()); };
  check_op("add (subnormal lo)", kRandom / 10, gen, add, mpfr_add, kAddBound);
  check_op("mul (subnormal lo)", kRandom / 10, gen, mul, mpfr_mul, kMulBound);
  check_op("div (subnormal lo)", kRandom / 10, gen, div, mpfr_div, kDivBound);
  // Below min_abs the low word itself is subnormal: additions stay within the bound (sums that
  // underflow are exact); products lose at most a few half-ulps of the subnormal grid.
  const double slack = 4.0 * std::numeric_limits<float>::denorm_min();
  auto low = [&] { return Pair(random_ff(rng, -110, kMinExp - 1), random_ff(rng, -110, kMinExp - 1)); };
  check_op("add (below min_abs)", kRandom / 10, low, add, mpfr_add, kAddBound);
  auto low_times_one = [&] { return Pair(random_ff(rng, -110, kMinExp - 1), random_ff(rng, -1, 1)); };
  check_op("mul (below min_abs, absolute slack)", kRandom / 10, low_times_one, mul, mpfr_mul, kMulBound,
           slack);
}

TEST(FloatFloat, RangeLimits) {
  Rng rng = ds::test::seeded_rng("FloatFloat.RangeLimits");
  const int n = kRandom / 10;
  // Near max_abs: opposite-sign sums, products and quotients just below 2^127, roots of huge values.
  auto big_diff = [&] {
    FloatFloat a = abs(random_ff(rng, kMaxExp - 1, kMaxExp - 1));
    return Pair(a, -abs(random_ff(rng, kMaxExp - 30, kMaxExp - 1)));
  };
  check_op("add (near max_abs)", n, big_diff, add, mpfr_add, kAddBound);
  auto big_prod = [&] {
    int e = uniform(rng, 40, 86);
    return Pair(random_ff(rng, e, e), random_ff(rng, kMaxExp - 2 - e, kMaxExp - 2 - e));
  };
  check_op("mul (near max_abs)", n, big_prod, mul, mpfr_mul, kMulBound);
  auto big_quot = [&] { return Pair(random_ff(rng, kMaxExp - 1, kMaxExp - 1), random_ff(rng, 0, 0)); };
  check_op("div (near max_abs)", n, big_quot, div, mpfr_div, kDivBound);
  auto big_root = [&] { return Pair(abs(random_ff(rng, kMaxExp - 4, kMaxExp - 1)), FloatFloat(0.0)); };
  check_op("sqrt (near max_abs)", n, big_root, root, sqrt_oracle, kSqrtBound);
  // Near min_abs: results in [2^-78, 2^-74).
  auto small_prod = [&] {
    int e = uniform(rng, -60, -18);
    return Pair(random_ff(rng, e, e), random_ff(rng, kMinExp - e, kMinExp + 2 - e));
  };
  check_op("mul (near min_abs)", n, small_prod, mul, mpfr_mul, kMulBound);
  auto small_quot = [&] {
    int e = uniform(rng, kMinExp + 1, kMinExp + 41);
    return Pair(random_ff(rng, e, e), random_ff(rng, e - kMinExp - 2, e - kMinExp - 2));
  };
  check_op("div (near min_abs)", n, small_quot, div, mpfr_div, kDivBound);
  auto small_root = [&] { return Pair(abs(random_ff(rng, kMinExp, kMinExp + 3)), FloatFloat(0.0)); };
  check_op("sqrt (near min_abs)", n, small_root, root, sqrt_oracle, kSqrtBound);
  // Beyond max_abs results are not finite; nothing throws or hangs.
  FloatFloat big = FloatFloat::from_double(std::ldexp(1.0, kMaxExp));
  EXPECT_FALSE(std::isfinite(to_double(big * FloatFloat(4.0))));
  EXPECT_FALSE(std::isfinite(to_double(mul_pow2(big, 2))));
  EXPECT_FALSE(std::isfinite(to_double(big / FloatFloat(0x1p-10))));
}

TEST(FloatFloat, ZerosAndSigns) {
  Rng rng = ds::test::seeded_rng("FloatFloat.ZerosAndSigns");
  const FloatFloat zero(0.0);
  for (int i = 0; i < kRandom; ++i) {
    FloatFloat x = random_ff(rng, -38, 38), y = random_ff(rng, -38, 38);
    // RN is symmetric, so every algorithm commutes with negation bit for bit.
    ASSERT_EQ(-(x + y), (-x) + (-y)) << show(x) << show(y);
    ASSERT_EQ(-(x * y), (-x) * y) << show(x) << show(y);
    ASSERT_EQ(-(x / y), (-x) / y) << show(x) << show(y);
    ASSERT_EQ(x + zero, x);
    ASSERT_EQ(x * FloatFloat(1.0), x);
    ASSERT_EQ(to_double(x * zero), 0.0);
    ASSERT_EQ(to_double(zero / x), 0.0);
    ASSERT_EQ(abs(x), x.hi < 0 ? -x : x);
    ASSERT_EQ(neg(x), -x);
  }
  EXPECT_EQ(sqrt(zero), zero);
  EXPECT_TRUE(std::isnan(to_double(sqrt(FloatFloat(-1.0)))));
  EXPECT_TRUE(std::isinf(to_double(FloatFloat(1.0) / zero)));
  EXPECT_TRUE(std::isnan(to_double(zero / zero)));
  EXPECT_EQ(FloatFloat(-0.0), zero);
  EXPECT_FALSE(FloatFloat(-0.0) < zero);
  EXPECT_EQ(abs(FloatFloat(-2.5)), FloatFloat(2.5));
}

TEST(FloatFloat, MulPow2IsExact) {
  Rng rng = ds::test::seeded_rng("FloatFloat.MulPow2IsExact");
  // The float scaling is RN(x * 2^k) for every k, subnormal results included (binary64 reference).
  for (int i = 0; i < kRandom; ++i) {
    float x = random_float_at(rng, uniform(rng, -149, 127));
    int k = uniform(rng, -320, 320);
    float want = static_cast<float>(std::ldexp(static_cast<double>(x), k));
    ASSERT_EQ(ds::ff_detail::scale_pow2(x, k), want) << std::hexfloat << x << " * 2^" << k;
  }
  Mp x(kPairPrec), got(kPairPrec);
  for (int i = 0; i < kRandom; ++i) {
    FloatFloat a = random_ff(rng, -60, 60);
    int k = uniform(rng, kMinExp + 1 - std::ilogb(a.hi), kMaxExp - 1 - std::ilogb(a.hi));
    FloatFloat r = mul_pow2(a, k);
    set_exact(x, a);
    mpfr_mul_2si(x, x, k, MPFR_RNDN);
    set_exact(got, r);
    // Exact unless the low word went below the subnormal grid.
    ASSERT_TRUE(normalized(r)) << show(a) << " * 2^" << k;
    ASSERT_LE(ds::test::abs_err(got, x), 0.5 * std::numeric_limits<float>::denorm_min())
        << show(a) << " * 2^" << k;
    if (std::fabs(std::ldexp(a.lo, k)) >= std::numeric_limits<float>::min() || a.lo == 0) {
      ASSERT_EQ(mpfr_cmp(got, x), 0);
    }
  }
  // Scaling into the subnormal range keeps the pair normalized.
  for (int i = 0; i < kRandom / 10; ++i) {
    FloatFloat a = random_ff(rng, -1, 1);
    ASSERT_TRUE(normalized(mul_pow2(a, uniform(rng, -150, -100)))) << show(a);
  }
}

TEST(FloatFloat, ComparisonsAndToDouble) {
  Rng rng = ds::test::seeded_rng("FloatFloat.ComparisonsAndToDouble");
  Mp x(kPairPrec), y(kPairPrec);
  for (int i = 0; i < kRandom; ++i) {
    FloatFloat a = random_ff(rng, -20, 20), b;
    switch (i % 4) {
      case 0:
        b = random_ff(rng, -20, 20);
        break;
      case 1:
        b = a;
        break;
      case 2:
        b = ff(a.hi, std::nextafter(a.lo, (rng() & 1) ? INFINITY : -INFINITY));
        break;
      default:
        b = ff(std::nextafter(a.hi, (rng() & 1) ? INFINITY : -INFINITY), 0.0f);
        break;
    }
    if (!normalized(b)) b = a;
    set_exact(x, a);
    set_exact(y, b);
    int c = mpfr_cmp(x, y);
    ASSERT_EQ(a < b, c < 0) << show(a) << show(b);
    ASSERT_EQ(a > b, c > 0) << show(a) << show(b);
    ASSERT_EQ(a <= b, c <= 0) << show(a) << show(b);
    ASSERT_EQ(a >= b, c >= 0) << show(a) << show(b);
    ASSERT_EQ(a == b, c == 0) << show(a) << show(b);
    ASSERT_EQ(a != b, c != 0) << show(a) << show(b);
    ASSERT_EQ(to_double(a), mpfr_get_d(x, MPFR_RNDN)) << show(a);
  }
}

TEST(FloatFloat, StringRoundTrips) {
  Rng rng = ds::test::seeded_rng("FloatFloat.StringRoundTrips");
  Mp x(kPairPrec), got(kPairPrec), dec(kPairPrec);
  // 20 significant digits, re-parsed: within half a unit of the 20th digit, plus u^2.
  const double digits20 = 0.5e-19 + kU2;
  for (int i = 0; i < kRandom; ++i) {
    FloatFloat a = random_ff(rng, -100, 126);
    std::string s = to_string(a);
    FloatFloat b = FloatFloat::from_string(s);
    ASSERT_EQ(b.hi, a.hi) << s;
    ASSERT_EQ(b.lo, a.lo) << s;
    if (i % 10 == 0) {
      std::string s20 = to_string(a, 20);
      set_exact(x, a);
      set_exact(got, FloatFloat::from_string(s20));
      ASSERT_LE(ds::test::rel_err(got, x), digits20) << s20;
    }
  }
  // Greedy nearest: hi = RN(x), lo = RN(x - hi).
  FloatFloat t = FloatFloat::from_string("0.1");
  EXPECT_EQ(t.hi, 0.1f);
  mpfr_set_str(dec, "0.1", 10, MPFR_RNDN);
  set_exact(got, t);
  EXPECT_LE(ds::test::rel_err(got, dec), kU2);
  mpfr_sub_d(dec, dec, t.hi, MPFR_RNDN);
  EXPECT_EQ(t.lo, mpfr_get_flt(dec, MPFR_RNDN));
  EXPECT_EQ(FloatFloat::from_string("-0").hi, 0.0f);
  EXPECT_EQ(FloatFloat::from_string("1e-45").hi, std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(to_string(FloatFloat(0.375)), "0.375");
  EXPECT_EQ(to_string(FloatFloat(1.0) + FloatFloat(0x1p-40), 5), "1");
}

TEST(FloatFloat, CheckedConversionsThrow) {
  for (const char* bad : {"1.2.3", "", "nan", "1e", "abc", "inf", "-inf", "1e39", "3e38"}) {
    EXPECT_THROW(FloatFloat::from_string(bad), ArithError) << "\"" << bad << "\"";
  }
  EXPECT_NO_THROW(FloatFloat::from_string("1.7014118346046923e38"));  // 2^127
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL, 0x1.0000000000001p127, -1e300}) {
    EXPECT_THROW(FloatFloat::from_double(bad), ArithError) << bad;
  }
  EXPECT_EQ(FloatFloat::from_double(0x1p127).hi, 0x1p127f);
  FloatFloat third = FloatFloat::from_double(1.0 / 3.0);
  EXPECT_EQ(third, FloatFloat(1.0 / 3.0));
  EXPECT_EQ(third.hi, static_cast<float>(1.0 / 3.0));
  EXPECT_EQ(third.lo, static_cast<float>(1.0 / 3.0 - third.hi));
}

}  // namespace
