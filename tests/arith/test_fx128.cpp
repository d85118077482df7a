// fx128 against MPFR: exact add/sub/neg/shifts/word products, the (-2, +3] eps bound of the
// compensated truncated mul and sqr, correctly rounded conversions, carries and range ends.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "arith/fx128.h"
#include "oracle.h"

namespace {

using ds::Fx128;
using ds::test::Mp;

constexpr int kSamples = 100000;
constexpr mpfr_prec_t kPrec = 512;  // holds every value, product and difference below exactly
// Stated bounds (arith/fx128.h), in units of traits().eps: error of mul and sqr in (lo, hi].
constexpr int kMulErrLo = -2;
constexpr int kMulErrHi = 3;
const double kEps = Fx128::traits().eps;

Fx128 words(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return Fx128::from_words(a, b, c, d); }

void set_fx(mpfr_ptr out, const Fx128& a) { ds::test::set_twos_complement(out, a.w, 4, Fx128::kFracBits); }

std::string show(const Fx128& a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "[%08x %08x %08x %08x] = ", a.w[0], a.w[1], a.w[2], a.w[3]);
  return buf + ds::to_string(a);
}

// (got - exact) / eps, exactly (kPrec bits suffice for every difference in these tests).
void err_in_eps(mpfr_ptr out, mpfr_srcptr got, mpfr_srcptr exact) {
  mpfr_sub(out, got, exact, MPFR_RNDN);
  mpfr_div_d(out, out, kEps, MPFR_RNDN);  // eps is a power of two: exact
}

// Running extremes of a signed error, for the measured columns of docs/arith/fixed.md.
struct ErrRange {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(mpfr_srcptr e) {
    const double d = mpfr_get_d(e, MPFR_RNDN);
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  void print(const char* what) const {
    std::printf("[measured] fx128 %s: error in [%.6f, %.6f] eps\n", what, lo, hi);
  }
};

// A random value with |x| < 2^int_bits: a random bit length (so tiny and near-range magnitudes
// both occur), words drawn from 0, ~0 and random patterns (long carry and borrow runs), random sign.
Fx128 random_fx(std::mt19937_64& rng, int int_bits) {
  uint32_t m[4];
  for (uint32_t& x : m) {
    const unsigned kind = rng() % 4;
    x = kind == 0 ? 0u : kind == 1 ? ~0u : static_cast<uint32_t>(rng());
  }
  const int len = static_cast<int>(rng() % static_cast<uint64_t>(Fx128::kFracBits + int_bits + 1));
  for (int k = 0; k < 4; ++k) {  // keep bits 0..len-1 of the 128-bit magnitude (word 3 = bits 0..31)
    const int lo_bit = 32 * (3 - k);
    if (len <= lo_bit)
      m[k] = 0;
    else if (len < lo_bit + 32)
      m[k] &= (1u << (len - lo_bit)) - 1u;
  }
  Fx128 r = words(m[0], m[1], m[2], m[3]);
  return (rng() & 1) ? -r : r;
}

// Operands whose product has |ab| < 2^30: a random split of the integer bits.
void random_product_operands(std::mt19937_64& rng, Fx128& a, Fx128& b) {
  const int ia = static_cast<int>(rng() % 31);
  a = random_fx(rng, ia);
  b = random_fx(rng, 30 - ia);
}

TEST(Fx128, TraitsAndLayout) {
  static_assert(std::is_trivially_copyable<Fx128>::value && std::is_trivial<Fx128>::value, "POD");
  static_assert(sizeof(Fx128) == 16, "four words");
  static_assert(!Fx128::kHasDivSqrt, "no division or square root");
  constexpr ds::FormatTraits t = Fx128::traits();
  EXPECT_STREQ(t.name, "fx128");
  EXPECT_EQ(t.bits, 96);
  EXPECT_EQ(t.eps, std::ldexp(1.0, -96));
  EXPECT_TRUE(t.fixed);
  EXPECT_EQ(t.max_abs, std::ldexp(1.0, 31));
  EXPECT_EQ(t.min_abs, t.eps);
  EXPECT_GT(t.rel_cost, 1.0);
  // 2.5 and -2.5 as in the fp128 paper's example.
  const Fx128 x = Fx128::from_string("2.5");
  EXPECT_TRUE(x == words(2, 0x80000000u, 0, 0));
  EXPECT_TRUE(-x == words(0xFFFFFFFDu, 0x80000000u, 0, 0));
}

TEST(Fx128, MpfrValueMatchesWords) {
  Mp v(kPrec);
  set_fx(v, words(0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu));
  EXPECT_EQ(mpfr_get_d(v, MPFR_RNDN), -kEps);
  set_fx(v, words(0x80000000u, 0, 0, 0));
  EXPECT_EQ(mpfr_get_d(v, MPFR_RNDN), -std::ldexp(1.0, 31));
}

TEST(Fx128, AddSubNegAbsExact) {
  auto rng = ds::test::seeded_rng("Fx128.AddSubNegAbsExact");
  Mp va(kPrec), vb(kPrec), got(kPrec), exact(kPrec);
  for (int n = 0; n < kSamples; ++n) {
    const Fx128 a = random_fx(rng, 30), b = random_fx(rng, 30);
    set_fx(va, a);
    set_fx(vb, b);
    mpfr_add(exact, va, vb, MPFR_RNDN);
    set_fx(got, a + b);
    ASSERT_TRUE(mpfr_equal_p(got, exact)) << show(a) << " + " << show(b);
    mpfr_sub(exact, va, vb, MPFR_RNDN);
    set_fx(got, a - b);
    ASSERT_TRUE(mpfr_equal_p(got, exact)) << show(a) << " - " << show(b);
    mpfr_neg(exact, va, MPFR_RNDN);
    set_fx(got, -a);
    ASSERT_TRUE(mpfr_equal_p(got, exact)) << "-" << show(a);
    ASSERT_TRUE(neg(a) == -a);
    mpfr_abs(exact, va, MPFR_RNDN);
    set_fx(got, abs(a));
    ASSERT_TRUE(mpfr_equal_p(got, exact)) << "abs " << show(a);
  }
}

TEST(Fx128, MulWithinStatedBound) {
  auto rng = ds::test::seeded_rng("Fx128.MulWithinStatedBound");
  Mp va(kPrec), vb(kPrec), got(kPrec), exact(kPrec), e(kPrec);
  ErrRange range;
  for (int n = 0; n < kSamples; ++n) {
    Fx128 a, b;
    random_product_operands(rng, a, b);
    set_fx(va, a);
    set_fx(vb, b);
    mpfr_mul(exact, va, vb, MPFR_RNDN);
    set_fx(got, a * b);
    err_in_eps(e, got, exact);
    range.add(e);
    ASSERT_TRUE(mpfr_cmp_si(e, kMulErrLo) > 0 && mpfr_cmp_si(e, kMulErrHi) <= 0)
        << show(a) << " * " << show(b) << ": error " << mpfr_get_d(e, MPFR_RNDN) << " eps";
  }
  range.print("mul (random)");
}

TEST(Fx128, SqrWithinStatedBound) {
  auto rng = ds::test::seeded_rng("Fx128.SqrWithinStatedBound");
  Mp va(kPrec), got(kPrec), exact(kPrec), e(kPrec);
  ErrRange range;
  for (int n = 0; n < kSamples; ++n) {
    const Fx128 a = random_fx(rng, 15);
    set_fx(va, a);
    mpfr_sqr(exact, va, MPFR_RNDN);
    const Fx128 s = sqr(a);
    set_fx(got, s);
    err_in_eps(e, got, exact);
    range.add(e);
    ASSERT_TRUE(mpfr_cmp_si(e, kMulErrLo) > 0 && mpfr_cmp_si(e, kMulErrHi) <= 0)
        << "sqr " << show(a) << ": error " << mpfr_get_d(e, MPFR_RNDN) << " eps";
    ASSERT_FALSE(s < Fx128(0.0)) << "sqr " << show(a);
  }
  range.print("sqr (random)");
}

// The largest discarded part comes with all-ones fraction words: D close to 5, error close to -2.
TEST(Fx128, MulWorstCaseTruncation) {
  Mp va(kPrec), vb(kPrec), got(kPrec), exact(kPrec), e(kPrec);
  ErrRange range;
  // Words chosen so that every discarded low half is 2^32 - 1 (x1 y3 = 1 * (2^32 - 1), and
  // (2^32 - 65537)(2^32 - 65535) = 2^32 - 1 mod 2^32) and x2 y3, x3 y2 are close to 2^64: D ~ 5.
  const Fx128 worst_a = words(0, 1, 0xFFFEFFFFu, ~0u), worst_b = words(0, 1, 0xFFFF0001u, ~0u);
  // For the square: 2 lo(m1 m3) = 2 (2^32 - 1), lo(m2^2) = 2^32 - 2^17 + 1, 2 m2 m3 ~ 2^65.
  const Fx128 worst_sq = words(0, 1, 0xFFFF0001u, ~0u);
  const Fx128 cases[] = {worst_a,
                         worst_b,
                         worst_sq,
                         -worst_a,
                         -worst_b,
                         words(0, ~0u, ~0u, ~0u),
                         words(1, ~0u, ~0u, ~0u),
                         words(0x7FFF, ~0u, ~0u, ~0u),
                         words(~0u, ~0u, ~0u, ~0u),
                         words(~0u, 0, 0, 1),
                         words(0xFFFF8000u, 0, 0, 1),
                         words(0, 0, 0, 1),
                         words(0, 0, 1, 0),
                         words(1, 0, 0, 0),
                         words(0, 0, 0, 0)};
  for (const Fx128& a : cases) {
    for (const Fx128& b : cases) {
      set_fx(va, a);
      set_fx(vb, b);
      mpfr_mul(exact, va, vb, MPFR_RNDN);
      if (mpfr_cmpabs_ui(exact, 1u << 30) >= 0) continue;  // out of range by construction
      set_fx(got, a * b);
      err_in_eps(e, got, exact);
      range.add(e);
      EXPECT_TRUE(mpfr_cmp_si(e, kMulErrLo) > 0 && mpfr_cmp_si(e, kMulErrHi) <= 0)
          << show(a) << " * " << show(b) << ": error " << mpfr_get_d(e, MPFR_RNDN) << " eps";
    }
    set_fx(va, a);
    mpfr_sqr(exact, va, MPFR_RNDN);
    if (mpfr_cmpabs_ui(exact, 1u << 30) >= 0) continue;
    set_fx(got, sqr(a));
    err_in_eps(e, got, exact);
    range.add(e);
    EXPECT_TRUE(mpfr_cmp_si(e, kMulErrLo) > 0 && mpfr_cmp_si(e, kMulErrHi) <= 0)
        << "sqr " << show(a) << ": error " << mpfr_get_d(e, MPFR_RNDN) << " eps";
  }
  range.print("mul/sqr (adversarial)");
  // Exact products come out exactly kMulCompensation eps high.
  EXPECT_TRUE(Fx128(1.5) * Fx128(-0.25) == Fx128(-0.375) + words(0, 0, 0, Fx128::kMulCompensation));
}

TEST(Fx128, MulByWordExact) {
  auto rng = ds::test::seeded_rng("Fx128.MulByWordExact");
  Mp va(kPrec), got(kPrec), exact(kPrec);
  for (int n = 0; n < kSamples; ++n) {
    const int kb = static_cast<int>(rng() % 31);  // |k| < 2^kb, |a| < 2^(30 - kb)
    const uint32_t k = static_cast<uint32_t>(rng()) & static_cast<uint32_t>((uint64_t(1) << kb) - 1);
    const Fx128 a = random_fx(rng, 30 - kb);
    set_fx(va, a);
    mpfr_mul_ui(exact, va, k, MPFR_RNDN);
    set_fx(got, mul_u32(a, k));
    ASSERT_TRUE(mpfr_equal_p(got, exact)) << show(a) << " * " << k;
    const int32_t ks = (rng() & 1) ? -static_cast<int32_t>(k) : static_cast<int32_t>(k);
    mpfr_mul_si(exact, va, ks, MPFR_RNDN);
    set_fx(got, mul_i32(a, ks));
    ASSERT_TRUE(mpfr_equal_p(got, exact)) << show(a) << " * " << ks;
  }
  // The fp128 paper's use: a pixel coordinate left + i * step.
  EXPECT_TRUE(mul_u32(Fx128(0.125), 1000) == Fx128(125.0));
  EXPECT_TRUE(mul_i32(Fx128(-0.125), -2147483647 - 1) == Fx128(268435456.0));
}

TEST(Fx128, MulPow2) {
  auto rng = ds::test::seeded_rng("Fx128.MulPow2");
  Mp va(kPrec), got(kPrec), exact(kPrec), e(kPrec);
  for (int n = 0; n < kSamples; ++n) {
    const Fx128 a = random_fx(rng, 30);
    const int k = static_cast<int>(rng() % 160) - 130;  // -130 .. 29
    set_fx(va, a);
    mpfr_mul_2si(exact, va, k, MPFR_RNDN);
    if (k >= 0) {
      // Left shift: exact while in range; shift a value that stays below 2^31.
      const Fx128 small = shr(a, k);
      set_fx(va, small);
      mpfr_mul_2si(exact, va, k, MPFR_RNDN);
      set_fx(got, mul_pow2(small, k));
      ASSERT_TRUE(mpfr_equal_p(got, exact)) << show(small) << " * 2^" << k;
      ASSERT_TRUE(shl(small, k) == mul_pow2(small, k));
    } else {
      // Right shift: floor onto the grid, error in (-1, 0] eps.
      set_fx(got, mul_pow2(a, k));
      err_in_eps(e, got, exact);
      ASSERT_TRUE(mpfr_cmp_si(e, -1) > 0 && mpfr_cmp_si(e, 0) <= 0) << show(a) << " * 2^" << k;
      mpfr_floor(e, e);  // the result is floor(exact / eps) eps exactly
      ASSERT_TRUE(mpfr_zero_p(e) || mpfr_cmp_si(e, -1) == 0);
    }
  }
  EXPECT_TRUE(mul_pow2(Fx128(-1.0), -200) == words(~0u, ~0u, ~0u, ~0u));  // sign fill: -eps
  EXPECT_TRUE(mul_pow2(Fx128(1.0), -200) == Fx128(0.0));
  EXPECT_TRUE(shl(Fx128(1.0), 128) == Fx128(0.0));
  EXPECT_TRUE(mul_pow2(Fx128(0.75), 1) == Fx128(1.5));
}

TEST(Fx128, Comparisons) {
  auto rng = ds::test::seeded_rng("Fx128.Comparisons");
  Mp va(kPrec), vb(kPrec);
  for (int n = 0; n < kSamples; ++n) {
    const Fx128 a = random_fx(rng, 31);
    Fx128 b = random_fx(rng, 31);
    switch (rng() % 4) {  // equal values and neighbours, not only random pairs
      case 0:
        b = a;
        break;
      case 1:
        b = a + words(0, 0, 0, 1);
        break;
      case 2:
        b = words(a.w[0], b.w[1], b.w[2], b.w[3]);
        break;
      default:
        break;
    }
    set_fx(va, a);
    set_fx(vb, b);
    const int c = mpfr_cmp(va, vb);
    ASSERT_EQ(a < b, c < 0) << show(a) << " vs " << show(b);
    ASSERT_EQ(a > b, c > 0);
    ASSERT_EQ(a <= b, c <= 0);
    ASSERT_EQ(a >= b, c >= 0);
    ASSERT_EQ(a == b, c == 0);
    ASSERT_EQ(a != b, c != 0);
  }
}

TEST(Fx128, ToDoubleCorrectlyRounded) {
  auto rng = ds::test::seeded_rng("Fx128.ToDoubleCorrectlyRounded");
  Mp va(kPrec);
  for (int n = 0; n < kSamples; ++n) {
    Fx128 a = random_fx(rng, 31);
    if (n % 4 == 0) {  // 2^len eps plus exactly half an ulp, with an odd or even last bit, and
                       // sometimes a sticky bit below: the rounding cases of the conversion
      const int len = 53 + static_cast<int>(rng() % 74);
      const Fx128 eps = words(0, 0, 0, 1);
      a = shl(eps, len) + shl(eps, len - 53);
      if (rng() & 1) a = a + shl(eps, len - 52);
      if (rng() & 1) a = a + shl(eps, static_cast<int>(rng() % static_cast<uint64_t>(len - 52)));
      if (rng() & 1) a = -a;
    }
    set_fx(va, a);
    const double want = mpfr_get_d(va, MPFR_RNDN);
    ASSERT_EQ(to_double(a), want) << show(a);
  }
  EXPECT_EQ(to_double(words(0x80000000u, 0, 0, 0)), -0x1p31);
  EXPECT_EQ(to_double(words(0x7FFFFFFFu, ~0u, ~0u, ~0u)), 0x1p31);  // rounds up to 2^31
  EXPECT_EQ(to_double(words(0, 0, 0, 1)), kEps);
  EXPECT_EQ(to_double(words(~0u, ~0u, ~0u, ~0u)), -kEps);
  EXPECT_EQ(to_double(Fx128(0.0)), 0.0);
}

TEST(Fx128, FromDoubleRoundsToNearestEven) {
  auto rng = ds::test::seeded_rng("Fx128.FromDoubleRoundsToNearestEven");
  Mp vd(kPrec), got(kPrec);
  for (int n = 0; n < kSamples; ++n) {
    const double mant = static_cast<double>(rng() >> 11);  // 53 random bits
    const int ex = -22 - static_cast<int>(rng() % 200);    // |d| < 2^31, down to ~2^-221
    double d = std::ldexp(mant, ex);
    if (!(d < 0x1p31)) d = 0x1p31 - 0x1p-22;
    if (rng() & 1) d = -d;
    // Expected: round half even of d * 2^96, in MPFR.
    mpfr_set_d(vd, d, MPFR_RNDN);
    mpfr_mul_2si(vd, vd, Fx128::kFracBits, MPFR_RNDN);
    mpfr_rint(vd, vd, MPFR_RNDN);
    mpfr_mul_2si(vd, vd, -Fx128::kFracBits, MPFR_RNDN);
    const Fx128 a = Fx128::from_double(d);
    set_fx(got, a);
    ASSERT_TRUE(mpfr_equal_p(got, vd)) << d << " -> " << show(a);
    ASSERT_TRUE(a == Fx128(d));
    if (n % 16 == 0) {  // the string path rounds the same way
      double dd = d;
      ASSERT_TRUE(Fx128::from_string(ds::decimal::from_expansion(&dd, 1, 0)) == a) << d;
    }
  }
  // Ties at half an eps go to the even neighbour.
  EXPECT_TRUE(Fx128(0x1p-97) == Fx128(0.0));
  EXPECT_TRUE(Fx128(0x1p-96 + 0x1p-97) == words(0, 0, 0, 2));
  EXPECT_TRUE(Fx128(-0x1p-96 - 0x1p-97) == -words(0, 0, 0, 2));
  EXPECT_TRUE(Fx128(-0.0) == Fx128(0.0));
}

TEST(Fx128, MixedWithDouble) {
  auto rng = ds::test::seeded_rng("Fx128.MixedWithDouble");
  for (int n = 0; n < kSamples; ++n) {
    const Fx128 a = random_fx(rng, 10);  // |a d| < 2^29
    const double d = std::ldexp(static_cast<double>(rng() >> 11), -53 + static_cast<int>(rng() % 20)) *
                     ((rng() & 1) ? -1.0 : 1.0);
    ASSERT_TRUE(a + d == a + Fx128(d));
    ASSERT_TRUE(a - d == a - Fx128(d));
    ASSERT_TRUE(a * d == a * Fx128(d));
  }
}

TEST(Fx128, CarriesBorrowsAndSignChanges) {
  const Fx128 eps = words(0, 0, 0, 1), one = words(1, 0, 0, 0), zero = words(0, 0, 0, 0);
  const Fx128 below_one = words(0, ~0u, ~0u, ~0u);
  EXPECT_TRUE(below_one + eps == one);  // carry through every word
  EXPECT_TRUE(one - eps == below_one);  // borrow through every word
  EXPECT_TRUE(zero - eps == words(~0u, ~0u, ~0u, ~0u));
  EXPECT_TRUE(words(~0u, ~0u, ~0u, ~0u) + eps == zero);
  EXPECT_TRUE(-zero == zero);
  EXPECT_TRUE(Fx128::from_string("-0") == zero);
  // a - b with a close to b, either sign and either order.
  for (const Fx128& a : {one, below_one, -one, -below_one, words(12345, 0x80000000u, 0, 0)}) {
    EXPECT_TRUE(a - a == zero);
    EXPECT_TRUE(a - (a + eps) == -eps);
    EXPECT_TRUE((a + eps) - a == eps);
    EXPECT_TRUE(a + (-a) == zero);
  }
  EXPECT_TRUE(Fx128(-0.5) - (Fx128(-0.5) + eps) == -eps);
  EXPECT_TRUE(Fx128(0.25) - Fx128(0.75) == Fx128(-0.5));
}

TEST(Fx128, RangeEnds) {
  const Fx128 lowest = words(0x80000000u, 0, 0, 0), highest = words(0x7FFFFFFFu, ~0u, ~0u, ~0u);
  const Fx128 eps = words(0, 0, 0, 1);
  EXPECT_TRUE(lowest < highest);
  EXPECT_TRUE(lowest < -highest && -highest == lowest + eps);
  EXPECT_EQ(ds::to_string(lowest), "-2147483648");
  EXPECT_TRUE(Fx128::from_string("-2147483648") == lowest);
  EXPECT_TRUE(Fx128::from_double(-0x1p31) == lowest);
  EXPECT_TRUE(Fx128::from_string(ds::to_string(highest)) == highest);
  // Documented wraparound (overflow is the caller's): -lowest, abs(lowest), highest + eps.
  EXPECT_TRUE(-lowest == lowest);
  EXPECT_TRUE(abs(lowest) == lowest);
  EXPECT_TRUE(highest + eps == lowest);
  EXPECT_TRUE(mul_pow2(lowest, -1) == Fx128(-0x1p30));
  EXPECT_TRUE(mul_pow2(highest, -31) == words(0, ~0u, ~0u, ~0u));
  // Products just inside the range.
  Mp va(kPrec), vb(kPrec), got(kPrec), exact(kPrec), e(kPrec);
  const Fx128 near_sqrt = Fx128::from_string("-46340.950001051");  // (.)^2 just below 2^31
  for (const Fx128& a : {near_sqrt, -near_sqrt}) {
    set_fx(va, a);
    mpfr_sqr(exact, va, MPFR_RNDN);
    ASSERT_LT(mpfr_cmp_d(exact, 0x1p31), 0);
    set_fx(got, sqr(a));
    err_in_eps(e, got, exact);
    EXPECT_TRUE(mpfr_cmp_si(e, kMulErrLo) > 0 && mpfr_cmp_si(e, kMulErrHi) <= 0);
    set_fx(got, a * near_sqrt);
    mpfr_mul(exact, va, va, MPFR_RNDN);
    if (a.w[0] != near_sqrt.w[0]) mpfr_neg(exact, exact, MPFR_RNDN);
    err_in_eps(e, got, exact);
    EXPECT_TRUE(mpfr_cmp_si(e, kMulErrLo) > 0 && mpfr_cmp_si(e, kMulErrHi) <= 0);
  }
  set_fx(va, lowest);
  set_fx(got, lowest * Fx128(1.0));
  err_in_eps(e, got, va);
  EXPECT_TRUE(mpfr_cmp_si(e, kMulErrLo) > 0 && mpfr_cmp_si(e, kMulErrHi) <= 0);
}

TEST(Fx128, DecimalRoundTrips) {
  auto rng = ds::test::seeded_rng("Fx128.DecimalRoundTrips");
  for (int n = 0; n < 20000; ++n) {
    const Fx128 a = random_fx(rng, 31);
    const std::string s = ds::to_string(a);
    ASSERT_TRUE(Fx128::from_string(s) == a) << s;
  }
  // Long decimal strings round half-even onto the grid, as MPFR says.
  Mp v(8000), got(kPrec);
  for (int n = 0; n < 2000; ++n) {
    std::string s = (rng() & 1) ? "-" : "";
    s += std::to_string(rng() % 2147483648u) + ".";
    const int digits = 40 + static_cast<int>(rng() % 100);
    for (int i = 0; i < digits; ++i) s += static_cast<char>('0' + rng() % 10);
    const Fx128 a = Fx128::from_string(s);
    mpfr_set_str(v, s.c_str(), 10, MPFR_RNDN);
    mpfr_mul_2si(v, v, Fx128::kFracBits, MPFR_RNDN);
    mpfr_rint(v, v, MPFR_RNDN);
    mpfr_mul_2si(v, v, -Fx128::kFracBits, MPFR_RNDN);
    if (mpfr_cmp_d(v, 0x1p31) >= 0) continue;
    set_fx(got, a);
    ASSERT_TRUE(mpfr_equal_p(got, v)) << s;
    ASSERT_TRUE(Fx128::from_string(ds::to_string(a)) == a);
  }
  const std::string pi = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899";
  const Fx128 p = Fx128::from_string(pi);
  EXPECT_EQ(ds::to_string(p, 28), "3.141592653589793238462643383");
  EXPECT_TRUE(Fx128::from_string(ds::to_string(p)) == p);
  EXPECT_TRUE(Fx128::from_string("1e-40") == Fx128(0.0));  // below eps/2
}

TEST(Fx128, MalformedAndOutOfRangeInputsThrow) {
  for (const char* s : {"1.2.3", "", "nan", "abc", "inf", "-", "1e", "0x10", "1 2"})
    EXPECT_THROW(Fx128::from_string(s), ds::ArithError) << '"' << s << '"';
  for (const char* s : {"5e9", "2147483648", "-2147483649", "1e30", "-5e9"})
    EXPECT_THROW(Fx128::from_string(s), ds::ArithError) << s;
  for (double d : {std::nan(""), HUGE_VAL, -HUGE_VAL, 1e12, -1e12, 0x1p31, -0x1p31 - 1.0})
    EXPECT_THROW(Fx128::from_double(d), ds::ArithError) << d;
  EXPECT_NO_THROW(Fx128::from_double(-0x1p31));
  EXPECT_NO_THROW(Fx128::from_double(0x1p31 - 0x1p-22));
  EXPECT_NO_THROW(Fx128::from_string("2147483647.9999999999"));
}

}  // namespace
