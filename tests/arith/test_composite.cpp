// ds::Composite (arith/composite.h) against an MPFR oracle: the thesis's add, sub, mul and div
// (checked bit for bit against a transcription of Figures 6-8) on fresh random normalized operands
// and on adversarial cases, with tolerances from traits() and the bounds derived in composite.h.
// Host and GPU bit-identity is checked for every format by test_device_ops.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>

#include "arith/composite.h"
#include "oracle.h"

namespace {

using ds::ArithError;
using ds::Composite;
using ds::test::Mp;
using Rng = std::mt19937_64;

// u = traits().eps; the bounds of composite.h.
const double kU = Composite::traits().eps;
const double kU2 = kU * kU;
const double kAddBound = 4 * kU2 + 7 * kU2 * kU;  // times (|x| + |y|)
const double kMulBound = kU + 9 * kU2;
const double kDivBound = 7 * kU + 9 * kU2;
const double kSqrtBound = 25.0 / 8.0 * kU2;
const int kMinExp = std::ilogb(Composite::traits().min_abs);  // -78
const int kMaxExp = std::ilogb(Composite::traits().max_abs);  // 127
const int kRandom = 100000;
constexpr mpfr_prec_t kPairPrec = 320, kResultPrec = 704;

Composite cp(float v, float e) {
  Composite r;
  r.v = v;
  r.e = e;
  return r;
}
bool normalized(Composite x) {
  float s, t;
  ds::eft::two_sum(x.v, x.e, s, t);
  return s == x.v && t == x.e;
}
bool same_bits(Composite a, Composite b) { return std::memcmp(&a, &b, sizeof a) == 0; }
// Equal words, +0 and -0 alike.
bool same_words(Composite a, Composite b) { return a.v == b.v && a.e == b.e; }
std::string show(Composite x) {
  char b[64];
  std::snprintf(b, sizeof b, "(%a, %a)", x.v, x.e);
  return b;
}
void set_exact(mpfr_ptr out, Composite x) {
  float w[2] = {x.v, x.e};
  ds::test::set_terms(out, w, 2);
}
int uniform(Rng& rng, int lo, int hi) {
  return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1));
}
float random_float_at(Rng& rng, int e) {
  float x = std::ldexp(static_cast<float>((1u << 23) | static_cast<uint32_t>(rng() & 0x7fffff)), e - 23);
  return (rng() & 1) ? -x : x;
}
// A normalized pair (|e| <= ulp(v)/2), v's exponent uniform in [emin, emax]: mostly full 48-bit,
// sometimes e = 0, a gap of up to 40 bits, or e at exactly half an ulp of v.
Composite random_cp(Rng& rng, int emin, int emax) {
  for (;;) {
    int ex = uniform(rng, emin, emax), kind = uniform(rng, 0, 15);
    float v = random_float_at(rng, ex), e;
    if (kind == 0)
      e = 0.0f;
    else if (kind == 1)
      e = std::ldexp((rng() & 1) ? 1.0f : -1.0f, ex - 24);
    else
      e = random_float_at(rng, ex - 25 - (kind < 10 ? 0 : uniform(rng, 1, 40)));
    Composite x = cp(v, e);
    if (normalized(x)) return x;
  }
}

using Pair = std::pair<Composite, Composite>;
using Oracle = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);
// What an error is measured against: the exact result (relative error) or |x| + |y| (the add bound).
enum class Scale { kResult, kOperandSum };

// Runs op on n operand pairs from gen; |result - exact| / scale must stay <= bound. Prints and
// returns the largest ratio in units of `unit` (u or u^2).
template <class Gen, class Op>
double check_op(const char* what, int n, Gen gen, Op op, Oracle oracle, double bound, Scale scale,
                double unit, const char* unit_name) {
  Mp x(kPairPrec), y(kPairPrec), want(kResultPrec), got(kPairPrec), sum(kResultPrec), ay(kPairPrec);
  double worst = 0;
  int failures = 0;
  for (int i = 0; i < n; ++i) {
    Pair p = gen();
    set_exact(x, p.first);
    set_exact(y, p.second);
    oracle(want, x, y, MPFR_RNDN);
    Composite r = op(p.first, p.second);
    set_exact(got, r);
    double err;
    if (scale == Scale::kResult) {
      err = ds::test::rel_err(got, want);
    } else {
      mpfr_abs(sum, x, MPFR_RNDN);
      mpfr_abs(ay, y, MPFR_RNDN);
      mpfr_add(sum, sum, ay, MPFR_RNDN);  // |x| + |y|, exact; rounded down below so as not to inflate it
      err = mpfr_zero_p(sum) ? (mpfr_zero_p(got) ? 0.0 : INFINITY)
                             : ds::test::abs_err(got, want) / mpfr_get_d(sum, MPFR_RNDD);
    }
    if (err < INFINITY && err > worst) worst = err;
    if (!(err <= bound) && ++failures <= 5)
      ADD_FAILURE() << what << ": " << show(p.first) << ", " << show(p.second) << " -> " << show(r)
                    << ", error " << err / unit << " " << unit_name;
  }
  EXPECT_EQ(failures, 0) << what;
  std::cout << "[max] composite " << what << ": " << worst / unit << " " << unit_name << " (bound "
            << bound / unit << " " << unit_name << (scale == Scale::kOperandSum ? " x (|x|+|y|)" : "") << ", "
            << n << " cases)" << std::endl;
  return worst;
}
template <class Gen, class Op>
void check_rel_u(const char* what, int n, Gen gen, Op op, Oracle oracle, double bound) {
  check_op(what, n, gen, op, oracle, bound, Scale::kResult, kU, "u");
}
int sqrt_oracle(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr, mpfr_rnd_t rnd) { return mpfr_sqrt(r, x, rnd); }
int sqr_oracle(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr, mpfr_rnd_t rnd) { return mpfr_sqr(r, x, rnd); }
Composite add(Composite a, Composite b) { return a + b; }
Composite sub(Composite a, Composite b) { return a - b; }
Composite mul(Composite a, Composite b) { return a * b; }
Composite div(Composite a, Composite b) { return a / b; }
Composite square(Composite a, Composite) { return sqr(a); }
Composite root(Composite a, Composite) { return sqrt(a); }

// Figures 6-8 transcribed statement by statement on CUDA's float2 layout, as the golden reference
// that composite.h must match bit for bit (the MD-drift workspace relies on the published form).
struct Float2 {
  float x, y;
};
Float2 fig6_add(Float2 x2, Float2 y2) {
  Float2 z2;
  float t;
  z2.x = x2.x + y2.x;
  t = z2.x - x2.x;
  z2.y = x2.x - (z2.x - t) + (y2.x - t) + x2.y + y2.y;
  return z2;
}
Float2 fig7_mul(Float2 x2, Float2 y2) {
  Float2 z2;
  z2.x = x2.x * y2.x;
  z2.y = x2.x * y2.y + x2.y * y2.x + x2.y * y2.y;
  return z2;
}
Float2 fig8_div(Float2 x2, Float2 y2) {
  Float2 z2;
  float t, s, diff;
  t = (1 / y2.x);
  s = t * x2.x;
  diff = x2.x - (s * y2.x);
  z2.x = s + t * diff;
  z2.y = t * diff;
  return z2;
}

TEST(Composite, TraitsAndLayout) {
  static_assert(std::is_trivially_copyable<Composite>::value && std::is_standard_layout<Composite>::value);
  static_assert(sizeof(Composite) == 2 * sizeof(float) && Composite::kHasDivSqrt);
  constexpr ds::FormatTraits t = Composite::traits();
  EXPECT_STREQ(t.name, "composite");
  EXPECT_EQ(t.bits, 24);
  EXPECT_EQ(t.eps, std::ldexp(1.0, -24));
  EXPECT_FALSE(t.fixed);
  EXPECT_EQ(kMinExp, -78);
  EXPECT_EQ(kMaxExp, 127);
}

TEST(Composite, MatchesThesisFigures) {
  Rng rng = ds::test::seeded_rng("Composite.MatchesThesisFigures");
  for (int i = 0; i < kRandom; ++i) {
    // Unnormalized operands too: the words as they come out of earlier operations.
    Composite a = random_cp(rng, -30, 30), b = random_cp(rng, -30, 30);
    if (i % 2) a = a + random_cp(rng, -30, 30);
    Float2 fa{a.v, a.e}, fb{b.v, b.e};
    Float2 s = fig6_add(fa, fb), d = fig6_add(fa, Float2{-fb.x, -fb.y}), m = fig7_mul(fa, fb),
           q = fig8_div(fa, fb);
    ASSERT_TRUE(same_bits(a + b, cp(s.x, s.y))) << show(a) << show(b);
    ASSERT_TRUE(same_bits(a - b, cp(d.x, d.y))) << show(a) << show(b);
    ASSERT_TRUE(same_bits(a * b, cp(m.x, m.y))) << show(a) << show(b);
    ASSERT_TRUE(same_bits(a / b, cp(q.x, q.y))) << show(a) << show(b);
  }
  // The published forms' properties that the bounds account for:
  EXPECT_TRUE(same_bits(cp(1, 0x1p-25f) + cp(-1, 0x1p-25f), cp(0, 0x1p-24f)));  // no renormalization
  EXPECT_TRUE(same_bits(cp(1, 0) + cp(0x1p-30f, 0), cp(1, 0x1p-30f)));          // the 2Sum error is kept
  Composite p = cp(1 + 0x1p-23f, 0) * cp(1 + 0x1p-23f, 0);                      // 2^-46 is dropped
  EXPECT_TRUE(same_bits(p, cp(1 + 0x1p-22f, 0)));
  EXPECT_TRUE(same_bits(cp(1, 0x1p-25f) / cp(3, 0x1p-23f), cp(1, 0) / cp(3, 0)));  // error words ignored
}

TEST(Composite, AddSubRandom) {
  Rng rng = ds::test::seeded_rng("Composite.AddSubRandom");
  auto gen = [&] {
    Composite a = random_cp(rng, -60, 60);
    int ea = std::ilogb(a.v);
    return Pair(a, (rng() & 1) ? random_cp(rng, -60, 60) : random_cp(rng, ea - 3, ea + 3));
  };
  check_op("add", kRandom, gen, add, mpfr_add, kAddBound, Scale::kOperandSum, kU2, "u^2");
  check_op("sub", kRandom, gen, sub, mpfr_sub, kAddBound, Scale::kOperandSum, kU2, "u^2");
  // Equal signs: the same bound is a relative one.
  auto same_sign = [&] {
    Composite a = abs(random_cp(rng, -60, 60)), b = abs(random_cp(rng, -60, 60));
    return (rng() & 1) ? Pair(a, b) : Pair(-a, -b);
  };
  check_op("add (equal signs, relative)", kRandom, same_sign, add, mpfr_add, kAddBound, Scale::kResult, kU2,
           "u^2");
}

TEST(Composite, MulSqrDivSqrtRandom) {
  Rng rng = ds::test::seeded_rng("Composite.MulSqrDivSqrtRandom");
  auto gen = [&] { return Pair(random_cp(rng, -38, 38), random_cp(rng, -38, 38)); };
  check_rel_u("mul", kRandom, gen, mul, mpfr_mul, kMulBound);
  check_rel_u("sqr", kRandom, gen, square, sqr_oracle, kMulBound);
  check_rel_u("div", kRandom, gen, div, mpfr_div, kDivBound);
  // sqrt of normalized and of unnormalized operands (sums straight out of the published add).
  auto positive = [&] {
    Composite a = random_cp(rng, kMinExp + 2, kMaxExp - 2);
    if (rng() & 1) a = a + random_cp(rng, std::ilogb(a.v) - 2, std::ilogb(a.v));
    return Pair(abs(a), Composite(0.0));
  };
  check_op("sqrt", kRandom, positive, root, sqrt_oracle, kSqrtBound, Scale::kResult, kU2, "u^2");
}

TEST(Composite, OpsWithDouble) {
  Rng rng = ds::test::seeded_rng("Composite.OpsWithDouble");
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  double d = 0;
  // The oracle sees Composite(d); op takes the double d itself.
  auto gen = [&] {
    d = std::ldexp((rng() & 1) ? -mant(rng) : mant(rng), uniform(rng, -40, 40));
    if (rng() & 1) d = static_cast<float>(d);
    return Pair(random_cp(rng, -40, 40), Composite(d));
  };
  auto plus = [&](Composite a, Composite) { return a + d; };
  auto minus = [&](Composite a, Composite) { return a - d; };
  auto times = [&](Composite a, Composite) { return a * d; };
  check_op("+ double", kRandom, gen, plus, mpfr_add, kAddBound, Scale::kOperandSum, kU2, "u^2");
  check_op("- double", kRandom, gen, minus, mpfr_sub, kAddBound, Scale::kOperandSum, kU2, "u^2");
  check_rel_u("* double", kRandom, gen, times, mpfr_mul, kMulBound);
}

TEST(Composite, CatastrophicCancellation) {
  Rng rng = ds::test::seeded_rng("Composite.CatastrophicCancellation");
  auto gen = [&] {
    for (;;) {
      Composite a = random_cp(rng, -60, 60), b = random_cp(rng, std::ilogb(a.v), std::ilogb(a.v));
      b.v = -a.v;
      int step = uniform(rng, -1, 1);
      if (step) b.v = std::nextafter(b.v, step > 0 ? INFINITY : -INFINITY);
      if (normalized(b)) return Pair(a, b);
    }
  };
  // The absolute bound holds; the relative error is unbounded (reported for the record).
  check_op("add (cancellation)", kRandom, gen, add, mpfr_add, kAddBound, Scale::kOperandSum, kU2, "u^2");
  check_op("add (cancellation, relative)", kRandom / 10, gen, add, mpfr_add, INFINITY, Scale::kResult, kU2,
           "u^2");
  Composite x = random_cp(rng, -10, 10);
  EXPECT_EQ(to_double(x - x), 0.0);
}

TEST(Composite, SubnormalErrorWordsAndRangeLimits) {
  Rng rng = ds::test::seeded_rng("Composite.SubnormalErrorWordsAndRangeLimits");
  const int n = kRandom / 10;
  auto tiny_e = [&] {
    return cp(random_float_at(rng, uniform(rng, -2, 2)), random_float_at(rng, uniform(rng, -149, -127)));
  };
  auto gen = [&] { return Pair(tiny_e(), tiny_e()); };
  check_op("add (subnormal e)", n, gen, add, mpfr_add, kAddBound, Scale::kOperandSum, kU2, "u^2");
  check_rel_u("mul (subnormal e)", n, gen, mul, mpfr_mul, kMulBound);
  check_rel_u("div (subnormal e)", n, gen, div, mpfr_div, kDivBound);
  auto big_diff = [&] {
    return Pair(abs(random_cp(rng, kMaxExp - 1, kMaxExp - 1)),
                -abs(random_cp(rng, kMaxExp - 30, kMaxExp - 1)));
  };
  check_op("add (near max_abs)", n, big_diff, add, mpfr_add, kAddBound, Scale::kOperandSum, kU2, "u^2");
  auto big_prod = [&] {
    int e = uniform(rng, 40, 86);
    return Pair(random_cp(rng, e, e), random_cp(rng, kMaxExp - 2 - e, kMaxExp - 2 - e));
  };
  check_rel_u("mul (near max_abs)", n, big_prod, mul, mpfr_mul, kMulBound);
  // The published div needs |v2| < 2^126 (1/v2 normal).
  auto big_quot = [&] { return Pair(random_cp(rng, kMaxExp - 1, kMaxExp - 1), random_cp(rng, 0, 0)); };
  check_rel_u("div (near max_abs)", n, big_quot, div, mpfr_div, kDivBound);
  auto big_divisor = [&] { return Pair(random_cp(rng, 60, 120), random_cp(rng, 124, 124)); };
  check_rel_u("div (divisor near 2^125)", n, big_divisor, div, mpfr_div, kDivBound);
  auto small_prod = [&] {
    int e = uniform(rng, -60, -18);
    return Pair(random_cp(rng, e, e), random_cp(rng, kMinExp - e, kMinExp + 2 - e));
  };
  check_rel_u("mul (near min_abs)", n, small_prod, mul, mpfr_mul, kMulBound);
  auto small_quot = [&] {
    int e = uniform(rng, kMinExp + 1, kMinExp + 41);
    return Pair(random_cp(rng, e, e), random_cp(rng, e - kMinExp - 2, e - kMinExp - 2));
  };
  check_rel_u("div (near min_abs)", n, small_quot, div, mpfr_div, kDivBound);
  auto edge_root = [&] {
    int e = (rng() & 1) ? uniform(rng, kMinExp, kMinExp + 3) : uniform(rng, kMaxExp - 3, kMaxExp - 1);
    return Pair(abs(random_cp(rng, e, e)), Composite(0.0));
  };
  check_op("sqrt (near the range limits)", n, edge_root, root, sqrt_oracle, kSqrtBound, Scale::kResult, kU2,
           "u^2");
  Composite big = Composite::from_double(std::ldexp(1.0, kMaxExp));
  EXPECT_FALSE(std::isfinite(to_double(big * Composite(4.0))));
  EXPECT_FALSE(std::isfinite(to_double(big + big)));
}

TEST(Composite, ZerosSignsAndAbs) {
  Rng rng = ds::test::seeded_rng("Composite.ZerosSignsAndAbs");
  const Composite zero(0.0);
  for (int i = 0; i < kRandom; ++i) {
    Composite x = random_cp(rng, -38, 38), y = random_cp(rng, -38, 38);
    ASSERT_TRUE(same_words(-(x + y), (-x) + (-y))) << show(x) << show(y);
    ASSERT_TRUE(same_words(-(x * y), (-x) * y)) << show(x) << show(y);
    ASSERT_TRUE(same_words(-(x / y), (-x) / y)) << show(x) << show(y);
    ASSERT_EQ(x + zero, x);
    ASSERT_EQ(to_double(x * zero), 0.0);
    ASSERT_EQ(to_double(zero / x), 0.0);
    Composite s = x + y;  // possibly unnormalized: the sign is that of v + e
    ASSERT_GE(to_double(abs(s)), 0.0) << show(s);
    ASSERT_EQ(abs(s), to_double(s) < 0 ? -s : s) << show(s);
  }
  EXPECT_EQ(sqrt(zero), zero);
  EXPECT_TRUE(std::isnan(to_double(sqrt(Composite(-1.0)))));
  EXPECT_FALSE(std::isfinite(to_double(Composite(1.0) / zero)));  // Figure 8: 1 - inf * 0 is NaN
  // e outweighs v with the opposite sign: the value 2^-24 - 3 2^-25 is negative.
  Composite w = cp(0x1p-24f, -0x1.8p-24f);
  EXPECT_LT(w, zero);
  EXPECT_TRUE(same_bits(abs(w), cp(-0x1p-24f, 0x1.8p-24f)));
}

TEST(Composite, ComparisonsMulPow2AndToDoubleAreExact) {
  Rng rng = ds::test::seeded_rng("Composite.ComparisonsMulPow2AndToDoubleAreExact");
  Mp x(kPairPrec), y(kPairPrec);
  for (int i = 0; i < kRandom; ++i) {
    // Unnormalized values from the published add, compared by value, not by words.
    Composite a = random_cp(rng, -20, 20) + random_cp(rng, -20, 20), b;
    switch (i % 3) {
      case 0:
        b = random_cp(rng, -20, 20);
        break;
      case 1: {  // the same value in other words
        float s, t;
        ds::eft::two_sum(a.v, a.e, s, t);
        b = cp(s, t);
        break;
      }
      default:
        b = cp(a.v, std::nextafter(a.e, (rng() & 1) ? INFINITY : -INFINITY));
        break;
    }
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
    int k = uniform(rng, -40, 40);
    set_exact(y, mul_pow2(a, k));
    mpfr_mul_2si(x, x, k, MPFR_RNDN);
    ASSERT_EQ(mpfr_cmp(x, y), 0) << show(a) << " * 2^" << k;
  }
}

TEST(Composite, StringsAndCheckedConversions) {
  Rng rng = ds::test::seeded_rng("Composite.StringsAndCheckedConversions");
  Mp x(kPairPrec), got(kPairPrec);
  for (int i = 0; i < kRandom; ++i) {
    Composite a = random_cp(rng, -100, 125);
    if (i % 4 == 0) a = a + random_cp(rng, -100, 100);  // unnormalized: the value round-trips
    Composite b = Composite::from_string(to_string(a));
    ASSERT_TRUE(normalized(a) ? same_words(a, b) : a == b) << show(a) << " " << to_string(a);
    if (i % 10 == 0) {
      std::string s20 = to_string(a, 20);
      set_exact(x, a);
      set_exact(got, Composite::from_string(s20));
      ASSERT_LE(ds::test::rel_err(got, x), 0.5e-19 + kU2) << s20;
    }
  }
  // Greedy nearest: v = RN(0.1), e = RN(0.1 - v).
  Composite t = Composite::from_string("0.1");
  EXPECT_EQ(t.v, 0.1f);
  mpfr_set_str(x, "0.1", 10, MPFR_RNDN);
  mpfr_sub_d(x, x, t.v, MPFR_RNDN);
  EXPECT_EQ(t.e, mpfr_get_flt(x, MPFR_RNDN));
  for (const char* bad : {"1.2.3", "", "nan", "1e", "abc", "inf", "1e39", "3e38"}) {
    EXPECT_THROW(Composite::from_string(bad), ArithError) << "\"" << bad << "\"";
  }
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL, 0x1.0000000000001p127}) {
    EXPECT_THROW(Composite::from_double(bad), ArithError) << bad;
  }
  Composite third = Composite::from_double(1.0 / 3.0);
  EXPECT_EQ(third.v, static_cast<float>(1.0 / 3.0));
  EXPECT_EQ(third.e, static_cast<float>(1.0 / 3.0 - third.v));
  EXPECT_EQ(to_string(Composite(0.375)), "0.375");
}

}  // namespace
