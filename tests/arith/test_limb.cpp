// limbN (N = 4 ... 32) against MPFR: exact signed add/sub with canonical zero, the (2N-3) eps
// bound of the truncated mul and sqr, shifts, correctly rounded conversions, carries, range ends.
#include <gmp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

#include "arith/limb.h"
#include "oracle.h"

namespace {

using ds::test::Mp;

// Random cases per operation and type: 1e5 each, the budget that keeps the whole file near 30 s
// on one core with N up to 32.
constexpr int kSamples = 100000;

template <class T>
struct LimbTest : ::testing::Test {
  static constexpr int kN = T::kWords;
  static constexpr int kFrac = T::kFracBits;
  static constexpr mpfr_prec_t kPrec = 64 * kN + 64;  // every product and difference exactly
  // Stated bound of mul and sqr (arith/limb.h), in units of traits().eps: |error| < 2N - 3.
  static constexpr int kMulBound = 2 * kN - 3;

  mpz_t z;
  LimbTest() { mpz_init2(z, 64 * kN); }
  ~LimbTest() override { mpz_clear(z); }

  static T zero() {
    T r;
    for (uint32_t& x : r.w) x = 0;
    r.neg = 0;
    return r;
  }
  static T eps() {
    T r = zero();
    r.w[kN - 1] = 1;
    return r;
  }
  static T integer(uint32_t v, bool negative = false) {
    T r = zero();
    r.w[0] = v;
    r.neg = negative && v ? 1 : 0;
    return r;
  }

  // Exact value in MPFR through one mpz import (the oracle's word-by-word set_sign_magnitude,
  // checked against this in MpfrValueMatchesOracle, costs 2N MPFR operations per value).
  void set(mpfr_ptr out, const T& a) {
    mpz_import(z, kN, 1, sizeof(uint32_t), 0, 0, a.w);
    if (a.neg) mpz_neg(z, z);
    mpfr_set_z_2exp(out, z, -kFrac, MPFR_RNDN);
  }
  // (got - exact) / eps, exactly.
  static void err_in_eps(mpfr_ptr out, mpfr_srcptr got, mpfr_srcptr exact) {
    mpfr_sub(out, got, exact, MPFR_RNDN);
    mpfr_div_d(out, out, T::traits().eps, MPFR_RNDN);
  }

  static std::string show(const T& a) {
    std::string s = a.neg ? "-[" : "+[";
    char buf[16];
    for (int k = 0; k < kN; ++k) {
      std::snprintf(buf, sizeof buf, k ? " %08x" : "%08x", a.w[k]);
      s += buf;
    }
    return s + "] = " + ds::to_string(a, 30);
  }

  // A random value with |x| < 2^int_bits: a random bit length (tiny and near-range magnitudes),
  // words from 0, ~0 and random patterns (long carry/borrow runs), a random sign, canonical zero.
  static T random(std::mt19937_64& rng, int int_bits) {
    T r;
    for (uint32_t& x : r.w) {
      const unsigned kind = rng() % 4;
      x = kind == 0 ? 0u : kind == 1 ? ~0u : static_cast<uint32_t>(rng());
    }
    const int len = static_cast<int>(rng() % static_cast<uint64_t>(kFrac + int_bits + 1));
    for (int k = 0; k < kN; ++k) {  // keep bits 0..len-1 of the magnitude (word N-1 = bits 0..31)
      const int lo_bit = 32 * (kN - 1 - k);
      if (len <= lo_bit)
        r.w[k] = 0;
      else if (len < lo_bit + 32)
        r.w[k] &= (1u << (len - lo_bit)) - 1u;
    }
    r.neg = rng() & 1;
    bool any = false;
    for (uint32_t x : r.w) any |= x != 0;
    if (!any) r.neg = 0;
    return r;
  }

  static bool same(const T& a, const T& b) {
    if (a.neg != b.neg) return false;
    for (int k = 0; k < kN; ++k)
      if (a.w[k] != b.w[k]) return false;
    return true;
  }
  static bool canonical(const T& a) {
    bool any = false;
    for (uint32_t x : a.w) any |= x != 0;
    return (a.neg == 0 || a.neg == 1) && (any || a.neg == 0);
  }
};

int sgn(mpfr_srcptr x) { return mpfr_sgn(x); }

struct ErrRange {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(mpfr_srcptr e) {
    const double d = mpfr_get_d(e, MPFR_RNDN);
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  void print(const char* name, const char* what) const {
    std::printf("[measured] %s %s: error in [%.6f, %.6f] eps\n", name, what, lo, hi);
  }
};

using LimbTypes = ::testing::Types<ds::Limb<4>, ds::Limb<6>, ds::Limb<8>, ds::Limb<12>, ds::Limb<16>,
                                   ds::Limb<24>, ds::Limb<32>>;
TYPED_TEST_SUITE(LimbTest, LimbTypes);

#define LIMB_ALIASES                         \
  using T = TypeParam;                       \
  using F = LimbTest<T>;                     \
  constexpr int N = F::kN;                   \
  constexpr mpfr_prec_t P = F::kPrec;        \
  const std::string name = T::traits().name; \
  (void)N;                                   \
  (void)P

TYPED_TEST(LimbTest, TraitsAndLayout) {
  LIMB_ALIASES;
  static_assert(std::is_trivially_copyable<T>::value && std::is_trivial<T>::value, "POD");
  static_assert(sizeof(T) == 4 * (N + 1), "N words and a sign word");
  static_assert(!T::kHasDivSqrt, "no division or square root");
  constexpr ds::FormatTraits t = T::traits();
  EXPECT_EQ(name, "limb" + std::to_string(N));
  EXPECT_EQ(t.bits, 32 * (N - 1));
  EXPECT_EQ(t.eps, std::ldexp(1.0, -32 * (N - 1)));
  EXPECT_TRUE(t.fixed);
  EXPECT_EQ(t.max_abs, std::ldexp(1.0, 32));
  EXPECT_EQ(t.min_abs, t.eps);
  EXPECT_GT(t.rel_cost, 1.0);
  // +3.5 as in the big-limb paper's figure 2.
  const T x = T::from_string("3.5");
  EXPECT_EQ(x.w[0], 3u);
  EXPECT_EQ(x.w[1], 0x80000000u);
  EXPECT_EQ(x.neg, 0u);
}

TYPED_TEST(LimbTest, MpfrValueMatchesOracle) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".MpfrValueMatchesOracle");
  Mp a(P), b(P);
  for (int n = 0; n < 200; ++n) {
    const T x = F::random(rng, 32);
    this->set(a, x);
    ds::test::set_sign_magnitude(b, x.neg != 0, x.w, N, F::kFrac);
    ASSERT_TRUE(mpfr_equal_p(a, b)) << F::show(x);
  }
}

TYPED_TEST(LimbTest, AddSubNegAbsExact) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".AddSubNegAbsExact");
  Mp va(P), vb(P), got(P), exact(P);
  for (int n = 0; n < kSamples; ++n) {
    const T a = F::random(rng, 31);
    T b = F::random(rng, 31);
    if (n % 8 == 0) b = a;                                            // exact cancellation
    if (n % 8 == 1) b = (rng() & 1) ? a + F::eps() : a - F::eps();    // near cancellation
    if (n % 8 == 2) b.neg ^= 1, b = F::canonical(b) ? b : F::zero();  // opposite signs
    this->set(va, a);
    this->set(vb, b);
    const T s = a + b, d = a - b, m = -a, x = abs(a);
    mpfr_add(exact, va, vb, MPFR_RNDN);
    this->set(got, s);
    ASSERT_TRUE(mpfr_equal_p(got, exact) && F::canonical(s))
        << F::show(a) << " + " << F::show(b) << " = " << F::show(s);
    mpfr_sub(exact, va, vb, MPFR_RNDN);
    this->set(got, d);
    ASSERT_TRUE(mpfr_equal_p(got, exact) && F::canonical(d))
        << F::show(a) << " - " << F::show(b) << " = " << F::show(d);
    mpfr_neg(exact, va, MPFR_RNDN);
    this->set(got, m);
    ASSERT_TRUE(mpfr_equal_p(got, exact) && F::canonical(m)) << "-" << F::show(a);
    ASSERT_TRUE(F::same(neg(a), m));
    mpfr_abs(exact, va, MPFR_RNDN);
    this->set(got, x);
    ASSERT_TRUE(mpfr_equal_p(got, exact) && F::canonical(x)) << "abs " << F::show(a);
  }
}

TYPED_TEST(LimbTest, MulWithinStatedBound) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".MulWithinStatedBound");
  Mp va(P), vb(P), got(P), exact(P), e(P);
  ErrRange range;
  for (int n = 0; n < kSamples; ++n) {
    const int ia = static_cast<int>(rng() % 32);  // |a b| < 2^31
    const T a = F::random(rng, ia), b = F::random(rng, 31 - ia);
    this->set(va, a);
    this->set(vb, b);
    mpfr_mul(exact, va, vb, MPFR_RNDN);
    const T p = a * b;
    this->set(got, p);
    F::err_in_eps(e, got, exact);
    range.add(e);
    // |error| < 2N-3 and the magnitude is truncated toward zero: the error has the sign of -ab.
    const int s = sgn(exact);
    ASSERT_TRUE(mpfr_cmpabs_ui(e, F::kMulBound) < 0 && (s == 0 ? mpfr_zero_p(e) : sgn(e) * s <= 0) &&
                F::canonical(p))
        << F::show(a) << " * " << F::show(b) << ": error " << mpfr_get_d(e, MPFR_RNDN) << " eps";
  }
  range.print(name.c_str(), "mul (random)");
}

TYPED_TEST(LimbTest, SqrWithinStatedBound) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".SqrWithinStatedBound");
  Mp va(P), got(P), exact(P), e(P);
  ErrRange range;
  for (int n = 0; n < kSamples; ++n) {
    const T a = F::random(rng, 15);
    this->set(va, a);
    mpfr_sqr(exact, va, MPFR_RNDN);
    const T s = sqr(a);
    this->set(got, s);
    F::err_in_eps(e, got, exact);
    range.add(e);
    ASSERT_TRUE(mpfr_cmpabs_ui(e, F::kMulBound) < 0 && sgn(e) <= 0 && s.neg == 0)
        << "sqr " << F::show(a) << ": error " << mpfr_get_d(e, MPFR_RNDN) << " eps";
  }
  range.print(name.c_str(), "sqr (random)");
}

// All-ones words maximise every discarded product and low half: the error approaches the bound.
TYPED_TEST(LimbTest, MulWorstCaseTruncation) {
  LIMB_ALIASES;
  Mp va(P), vb(P), got(P), exact(P), e(P);
  ErrRange range;
  T ones = F::zero(), ones_hi = F::zero(), worst_lo = F::zero(), worst_hi = F::zero();
  for (int k = 1; k < N; ++k) ones.w[k] = ~0u;
  ones_hi = ones;
  ones_hi.w[0] = 0xFFFF;
  // Low halves of 2^32 - 1 in column N: words 1 and ~0 pair up; (2^32 - 65537)(2^32 - 65535)
  // is -1 mod 2^32 in the middle; the rest are all ones so column N+1 stays near its maximum.
  for (int k = 1; k < N; ++k) worst_lo.w[k] = worst_hi.w[k] = ~0u;
  worst_lo.w[1] = worst_hi.w[1] = 1;
  for (int k = 2; k < N - 1; ++k) {
    worst_lo.w[k] = 0xFFFEFFFFu;
    worst_hi.w[k] = 0xFFFF0001u;
  }
  const T cases[] = {ones,     ones_hi,   worst_lo,
                     worst_hi, -worst_lo, F::integer(1),
                     F::eps(), F::zero(), F::integer(0xFFFF, true)};
  for (const T& a : cases) {
    for (const T& b : cases) {
      this->set(va, a);
      this->set(vb, b);
      mpfr_mul(exact, va, vb, MPFR_RNDN);
      if (mpfr_cmpabs_ui(exact, 0xFFFFFFFFu) >= 0) continue;
      this->set(got, a * b);
      F::err_in_eps(e, got, exact);
      range.add(e);
      EXPECT_TRUE(mpfr_cmpabs_ui(e, F::kMulBound) < 0) << F::show(a) << " * " << F::show(b);
    }
    this->set(va, a);
    mpfr_sqr(exact, va, MPFR_RNDN);
    if (mpfr_cmpabs_ui(exact, 0xFFFFFFFFu) >= 0) continue;
    this->set(got, sqr(a));
    F::err_in_eps(e, got, exact);
    range.add(e);
    EXPECT_TRUE(mpfr_cmpabs_ui(e, F::kMulBound) < 0) << "sqr " << F::show(a);
  }
  range.print(name.c_str(), "mul/sqr (adversarial)");
  // Products that fit the grid are exact, and zero products are +0.
  EXPECT_TRUE(F::same(T(1.5) * T(-0.25), T(-0.375)));
  EXPECT_TRUE(F::same(F::integer(1) * worst_lo, worst_lo));
  EXPECT_TRUE(F::same(-worst_lo * F::zero(), F::zero()));
  EXPECT_TRUE(F::same(F::eps() * -F::eps(), F::zero()));  // eps^2 truncates to +0
}

TYPED_TEST(LimbTest, MulByWordExact) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".MulByWordExact");
  Mp va(P), got(P), exact(P);
  for (int n = 0; n < kSamples; ++n) {
    const int kb = static_cast<int>(rng() % 32);
    const uint32_t k = static_cast<uint32_t>(rng()) & static_cast<uint32_t>((uint64_t(1) << kb) - 1);
    const T a = F::random(rng, 31 - kb);
    this->set(va, a);
    mpfr_mul_ui(exact, va, k, MPFR_RNDN);
    const T p = mul_u32(a, k);
    this->set(got, p);
    ASSERT_TRUE(mpfr_equal_p(got, exact) && F::canonical(p)) << F::show(a) << " * " << k;
    const int32_t ks = (rng() & 1) ? -static_cast<int32_t>(k >> 1) : static_cast<int32_t>(k >> 1);
    mpfr_mul_si(exact, va, ks, MPFR_RNDN);
    const T q = mul_i32(a, ks);
    this->set(got, q);
    ASSERT_TRUE(mpfr_equal_p(got, exact) && F::canonical(q)) << F::show(a) << " * " << ks;
  }
  EXPECT_TRUE(F::same(mul_i32(T(-0.125), -2147483647 - 1), T(268435456.0)));
}

TYPED_TEST(LimbTest, MulPow2) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".MulPow2");
  Mp va(P), got(P), exact(P), e(P);
  for (int n = 0; n < kSamples; ++n) {
    const T a = F::random(rng, 31);
    const int k = static_cast<int>(rng() % static_cast<uint64_t>(32 * N + 40)) - 32 * N - 8;
    if (k >= 0) {
      // Left shift: exact while in range; shift a value that stays below 2^32.
      const T small = mul_pow2(a, -k);
      this->set(va, small);
      mpfr_mul_2si(exact, va, k, MPFR_RNDN);
      this->set(got, mul_pow2(small, k));
      ASSERT_TRUE(mpfr_equal_p(got, exact)) << F::show(small) << " * 2^" << k;
    } else {
      // Right shift: magnitude truncated, |error| < 1 eps toward zero; zero results are +0.
      this->set(va, a);
      mpfr_mul_2si(exact, va, k, MPFR_RNDN);
      const T r = mul_pow2(a, k);
      this->set(got, r);
      F::err_in_eps(e, got, exact);
      ASSERT_TRUE(mpfr_cmpabs_ui(e, 1) < 0 && sgn(e) * sgn(va) <= 0 && F::canonical(r))
          << F::show(a) << " * 2^" << k;
      mpfr_mul_2si(va, va, k + F::kFrac, MPFR_RNDN);  // exact / eps, truncated, must be the result
      mpfr_trunc(va, va);
      mpfr_mul_2si(va, va, -F::kFrac, MPFR_RNDN);
      ASSERT_TRUE(mpfr_equal_p(got, va)) << F::show(a) << " * 2^" << k;
    }
  }
  EXPECT_TRUE(F::same(mul_pow2(T(-1.0), -32 * N), F::zero()));
  EXPECT_TRUE(F::same(mul_pow2(T(-1.0), -1 - 32 * N * 4), F::zero()));
  EXPECT_TRUE(F::same(mul_pow2(T(1.0), 32), F::zero()));  // overflow: bits leave the integer word
  EXPECT_TRUE(F::same(mul_pow2(T(-0.75), 1), T(-1.5)));
  EXPECT_TRUE(F::same(mul_pow2(F::eps(), 32 * (N - 1)), F::integer(1)));
}

TYPED_TEST(LimbTest, Comparisons) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".Comparisons");
  Mp va(P), vb(P);
  for (int n = 0; n < kSamples; ++n) {
    const T a = F::random(rng, 31);
    T b = F::random(rng, 31);
    switch (rng() % 5) {
      case 0:
        b = a;
        break;
      case 1:
        b = a + F::eps();
        break;
      case 2:
        b.w[0] = a.w[0], b.neg = a.neg, b = F::canonical(b) ? b : F::zero();
        break;
      case 3:
        b = -a;
        break;
      default:
        break;
    }
    this->set(va, a);
    this->set(vb, b);
    const int c = mpfr_cmp(va, vb);
    ASSERT_EQ(a < b, c < 0) << F::show(a) << " vs " << F::show(b);
    ASSERT_EQ(a > b, c > 0);
    ASSERT_EQ(a <= b, c <= 0);
    ASSERT_EQ(a >= b, c >= 0);
    ASSERT_EQ(a == b, c == 0);
    ASSERT_EQ(a != b, c != 0);
  }
}

TYPED_TEST(LimbTest, ToDoubleCorrectlyRounded) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".ToDoubleCorrectlyRounded");
  Mp va(P);
  const int total = 32 * N;
  for (int n = 0; n < kSamples; ++n) {
    T a = F::random(rng, 32);
    if (n % 4 == 0) {  // 2^len eps plus exactly half an ulp, odd or even last bit, maybe sticky
      const int len = 53 + static_cast<int>(rng() % static_cast<uint64_t>(total - 53));
      const T e = F::eps();
      a = mul_pow2(e, len) + mul_pow2(e, len - 53);
      if (rng() & 1) a = a + mul_pow2(e, len - 52);
      if (rng() & 1) a = a + mul_pow2(e, static_cast<int>(rng() % static_cast<uint64_t>(len - 52)));
      if (rng() & 1) a = -a;
    }
    this->set(va, a);
    ASSERT_EQ(to_double(a), mpfr_get_d(va, MPFR_RNDN)) << F::show(a);
  }
  T top = F::zero();
  for (uint32_t& x : top.w) x = ~0u;
  EXPECT_EQ(to_double(top), 0x1p32);  // 2^32 - eps rounds up
  EXPECT_EQ(to_double(-top), -0x1p32);
  EXPECT_EQ(to_double(F::eps()), T::traits().eps);
  T stray = F::zero();
  stray.neg = 1;
  EXPECT_EQ(std::signbit(to_double(stray)), false);
}

TYPED_TEST(LimbTest, FromDoubleRoundsToNearestEven) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".FromDoubleRoundsToNearestEven");
  Mp vd(P), got(P);
  for (int n = 0; n < kSamples; ++n) {
    const double mant = static_cast<double>(rng() >> 11);
    // |d| < 2^32, down to well below eps so that rounding (and flushing to +0) is exercised.
    const int ex = -21 - static_cast<int>(rng() % static_cast<uint64_t>(32 * (N - 1) + 40));
    double d = std::ldexp(mant, ex);
    if (rng() & 1) d = -d;
    mpfr_set_d(vd, d, MPFR_RNDN);
    mpfr_mul_2si(vd, vd, F::kFrac, MPFR_RNDN);
    mpfr_rint(vd, vd, MPFR_RNDN);
    mpfr_mul_2si(vd, vd, -F::kFrac, MPFR_RNDN);
    const T a = T::from_double(d);
    this->set(got, a);
    ASSERT_TRUE(mpfr_equal_p(got, vd) && F::canonical(a)) << d << " -> " << F::show(a);
    ASSERT_TRUE(F::same(a, T(d)));
    if (n % 64 == 0) {
      double dd = d;
      ASSERT_TRUE(F::same(T::from_string(ds::decimal::from_expansion(&dd, 1, 0)), a)) << d;
    }
  }
  const double e = T::traits().eps;
  EXPECT_TRUE(F::same(T(e / 2), F::zero()));   // tie to even: 0
  EXPECT_TRUE(F::same(T(-e / 2), F::zero()));  // and the canonical +0
  EXPECT_TRUE(F::same(T(1.5 * e), F::eps() + F::eps()));
  EXPECT_TRUE(F::same(T(-0.0), F::zero()));
}

TYPED_TEST(LimbTest, MixedWithDouble) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".MixedWithDouble");
  for (int n = 0; n < kSamples / 10; ++n) {
    const T a = F::random(rng, 10);
    const double d = std::ldexp(static_cast<double>(rng() >> 11), -53 + static_cast<int>(rng() % 20)) *
                     ((rng() & 1) ? -1.0 : 1.0);
    ASSERT_TRUE(F::same(a + d, a + T(d)));
    ASSERT_TRUE(F::same(a - d, a - T(d)));
    ASSERT_TRUE(F::same(a * d, a * T(d)));
  }
}

TYPED_TEST(LimbTest, CarriesBorrowsSignsAndZero) {
  LIMB_ALIASES;
  const T e = F::eps(), one = F::integer(1), zero = F::zero();
  T below_one = zero;
  for (int k = 1; k < N; ++k) below_one.w[k] = ~0u;
  EXPECT_TRUE(F::same(below_one + e, one));  // carry through every word
  EXPECT_TRUE(F::same(one - e, below_one));  // borrow through every word
  EXPECT_TRUE(F::same(-below_one - e, -one));
  EXPECT_TRUE(F::same(e - one, -below_one));  // sign change with a full borrow
  EXPECT_TRUE(F::same(-e + one, below_one));
  EXPECT_TRUE(F::same(zero - e, -e));
  for (const T& a : {one, below_one, -one, -below_one, T(12345.5), T(-1e-20)}) {
    EXPECT_TRUE(F::same(a - a, zero)) << F::show(a - a);  // +0, never -0
    EXPECT_TRUE(F::same(a + (-a), zero));
    EXPECT_TRUE(F::same((-a) + a, zero));
    EXPECT_TRUE(F::same(a - (a + e), -e));
    EXPECT_TRUE(F::same((a + e) - a, e));
    EXPECT_TRUE(F::same(a - (a - e), e));
  }
  // A stray -0 (not produced by any operation) behaves as 0.
  T mzero = zero;
  mzero.neg = 1;
  EXPECT_TRUE(mzero == zero);
  EXPECT_FALSE(mzero < zero);
  EXPECT_FALSE(zero < mzero);
  EXPECT_TRUE(F::same(mzero + zero, zero));
  EXPECT_TRUE(F::same(mzero - zero, zero));
  EXPECT_TRUE(F::same(mzero + mzero, zero));
  EXPECT_TRUE(F::same(-mzero, zero));
  EXPECT_TRUE(F::same(-zero, zero));
  EXPECT_TRUE(F::same(mzero + e, e));
  EXPECT_TRUE(F::same(mzero - e, -e));
  EXPECT_TRUE(F::same(mzero * one, zero));
  EXPECT_TRUE(F::same(mul_pow2(mzero, 3), zero));
  EXPECT_TRUE(F::same(mul_u32(mzero, 7), zero));
  EXPECT_TRUE(F::same(T::from_string("-0"), zero));
  EXPECT_TRUE(F::same(T::from_string("-0.0000"), zero));
  EXPECT_TRUE(-e < zero && zero < e && -e < mzero);
}

// The paper's GPU addition (one-step carries, sign from two words) stays available by name only:
// it agrees on typical operands and fails exactly where the default operators must not.
TYPED_TEST(LimbTest, PaperShortcutOnlyOnRequest) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".PaperShortcutOnlyOnRequest");
  for (int n = 0; n < kSamples / 10; ++n) {
    T a, b;  // full-length random words: long carry runs and equal leading words are negligible
    for (int k = 0; k < N; ++k) {
      a.w[k] = static_cast<uint32_t>(rng());
      b.w[k] = static_cast<uint32_t>(rng());
    }
    a.w[0] >>= 2;
    b.w[0] >>= 2;
    a.neg = rng() & 1;
    b.neg = rng() & 1;
    ASSERT_TRUE(F::same(add_paper_shortcut(a, b), a + b)) << F::show(a) << " + " << F::show(b);
  }
  const T e = F::eps(), one = F::integer(1);
  T below_one = F::zero();
  for (int k = 1; k < N; ++k) below_one.w[k] = ~0u;
  EXPECT_FALSE(F::same(add_paper_shortcut(below_one, e), one));  // the carry stops after a word
  const T x = one + e, y = -(one + e + e);                       // leading two words tie
  EXPECT_TRUE(F::same(x + y, -e));
  EXPECT_FALSE(F::same(add_paper_shortcut(x, y), -e));
}

TYPED_TEST(LimbTest, RangeEnds) {
  LIMB_ALIASES;
  T top = F::zero();
  for (uint32_t& x : top.w) x = ~0u;
  EXPECT_TRUE(-top < top && -top < F::zero() && F::zero() < top);
  EXPECT_TRUE(F::same(T::from_string(ds::to_string(top)), top));
  EXPECT_TRUE(F::same(T::from_string(ds::to_string(-top)), -top));
  EXPECT_TRUE(F::same(top - top, F::zero()));
  EXPECT_TRUE(F::same(-top + F::eps(), -(top - F::eps())));
  EXPECT_EQ(ds::to_string(F::integer(0xFFFFFFFFu, true)), "-4294967295");
  EXPECT_TRUE(F::same(T::from_double(-4294967295.5), -(F::integer(0xFFFFFFFFu) + T(0.5))));
  // Products just inside the range, both signs.
  Mp va(P), got(P), exact(P), e(P);
  const T r = T::from_string("65535.999992370605");  // r^2 just below 2^32
  for (const T& a : {r, -r}) {
    this->set(va, a);
    mpfr_sqr(exact, va, MPFR_RNDN);
    ASSERT_LT(mpfr_cmp_d(exact, 0x1p32), 0);
    this->set(got, sqr(a));
    F::err_in_eps(e, got, exact);
    EXPECT_TRUE(mpfr_cmpabs_ui(e, F::kMulBound) < 0);
    this->set(got, a * r);
    mpfr_mul(exact, va, va, MPFR_RNDN);
    if (a.neg) mpfr_neg(exact, exact, MPFR_RNDN);
    F::err_in_eps(e, got, exact);
    EXPECT_TRUE(mpfr_cmpabs_ui(e, F::kMulBound) < 0);
  }
  // Documented wraparound of the magnitude (overflow is the caller's).
  EXPECT_TRUE(F::same(top + F::eps(), F::zero()));
}

TYPED_TEST(LimbTest, DecimalRoundTrips) {
  LIMB_ALIASES;
  auto rng = ds::test::seeded_rng(name + ".DecimalRoundTrips");
  for (int n = 0; n < 2000; ++n) {
    const T a = F::random(rng, 32);
    ASSERT_TRUE(F::same(T::from_string(ds::to_string(a)), a)) << F::show(a);
  }
  Mp v(12000), got(P);
  for (int n = 0; n < 300; ++n) {
    std::string s = (rng() & 1) ? "-" : "";
    s += std::to_string(rng() % 4294967296u) + ".";
    const int digits = 10 * N + static_cast<int>(rng() % 200);
    for (int i = 0; i < digits; ++i) s += static_cast<char>('0' + rng() % 10);
    const T a = T::from_string(s);
    mpfr_set_str(v, s.c_str(), 10, MPFR_RNDN);
    mpfr_mul_2si(v, v, F::kFrac, MPFR_RNDN);
    mpfr_rint(v, v, MPFR_RNDN);
    mpfr_mul_2si(v, v, -F::kFrac, MPFR_RNDN);
    if (mpfr_cmpabs_ui(v, 0xFFFFFFFFu) > 0) continue;
    this->set(got, a);
    ASSERT_TRUE(mpfr_equal_p(got, v) && F::canonical(a)) << s;
    ASSERT_TRUE(F::same(T::from_string(ds::to_string(a)), a));
  }
  const std::string pi = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899";
  EXPECT_EQ(ds::to_string(T::from_string(pi), 20), "3.1415926535897932385");
}

TYPED_TEST(LimbTest, MalformedAndOutOfRangeInputsThrow) {
  LIMB_ALIASES;
  for (const char* s : {"1.2.3", "", "nan", "abc", "inf", "-", "1e", "0x10", "1 2"})
    EXPECT_THROW(T::from_string(s), ds::ArithError) << '"' << s << '"';
  for (const char* s : {"5e9", "-5e9", "4294967296", "-4294967296", "1e40"})
    EXPECT_THROW(T::from_string(s), ds::ArithError) << s;
  for (double d : {std::nan(""), HUGE_VAL, -HUGE_VAL, 1e12, -1e12, 0x1p32, -0x1p32})
    EXPECT_THROW(T::from_double(d), ds::ArithError) << d;
  EXPECT_NO_THROW(T::from_double(0x1p32 - 0x1p-20));
  EXPECT_NO_THROW(T::from_string("4294967295.99"));
  EXPECT_NO_THROW(T::from_string("-4294967295"));
}

}  // namespace
