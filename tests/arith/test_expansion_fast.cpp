// The fast paths of Expansion<N> (arith/expansion_fast.h), N = 3..8: how often they are taken
// (Hénon orbits with double parameters, random full-precision operands: at least 99 %), that inputs
// with gaps between their terms are sent to the slow path when the exactness check cannot prove the
// carries exact, and, on operands whose gaps straddle the check's limit, that every result (fast or
// slow) is a valid expansion within the bound stated in arith/expansion.h, against MPFR.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "arith/expansion.h"
#include "oracle.h"

namespace {

using ds::Expansion;
using ds::test::Mp;
namespace ed = ds::expansion_detail;

constexpr mpfr_prec_t kExact = 2200;

// Which path each operation takes (what the operators do, without the result).
template <int N>
bool fast_add(const Expansion<N>& a, const Expansion<N>& b) {
  double r[N + 1], o[N];
  return ed::add_fast_terms<N>(a.t, b.t, r) & ed::renorm_fast<N>(r, o);
}
template <int N>
bool fast_mul(const Expansion<N>& a, const Expansion<N>& b) {
  double r[N + 1], o[N];
  return ed::mul_fast_terms<N, false>(a.t, b.t, r) & ed::renorm_fast<N>(r, o);
}
template <int N>
bool fast_sqr(const Expansion<N>& a) {
  double a2[N], r[N + 1], o[N];
  a2[0] = a.t[0];
  for (int i = 1; i < N; ++i) a2[i] = 2 * a.t[i];
  return ed::mul_fast_terms<N, true>(a.t, a2, r) & ed::renorm_fast<N>(r, o);
}
template <int N>
bool fast_mul_double(const Expansion<N>& a, double d) {
  double r[N + 1], o[N];
  return ed::mul_double_fast_terms<N>(a.t, d, r) & ed::renorm_fast<N>(r, o);
}
template <int N>
bool fast_add_double(const Expansion<N>& a, double d) {
  double r[N + 1], o[N], c;
  ds::eft::two_sum(a.t[0], d, r[0], c);
  for (int n = 1; n < N; ++n) ds::eft::two_sum(c, a.t[n], r[n], c);
  r[N] = c;
  return ed::renorm_fast<N>(r, o);
}

double ulp(double x) { return x == 0 ? 0 : std::ldexp(1.0, std::max(std::ilogb(x) - 52, -1074)); }

// Results: |t[i+1]| <= (1 + 2^-38) 2^-53 |t[i]| (normal range), zeros only at the end.
template <int N>
::testing::AssertionResult valid_result(const Expansion<N>& x) {
  for (int i = 0; i + 1 < N; ++i) {
    bool ok = std::isfinite(x.t[i + 1]) && std::fabs(x.t[i + 1]) <= ulp(x.t[i]) &&
              (std::fabs(x.t[i]) < 0x1p-1022 ||
               std::fabs(x.t[i + 1]) <= (1 + 0x1p-38) * 0x1p-53 * std::fabs(x.t[i]));
    if (!ok) return ::testing::AssertionFailure() << "term " << i + 1 << " breaks the invariant";
  }
  return ::testing::AssertionSuccess();
}

// |got - exact| <= eps (c |exact| + k mix), in MPFR.
template <int N>
::testing::AssertionResult within(const Expansion<N>& got, mpfr_srcptr exact, double c, double k,
                                  double mix) {
  Mp g(kExact), err(kExact), bound(128), t(128);
  ds::test::set_terms(g, got.t, N);
  mpfr_sub(err, g, exact, MPFR_RNDN);
  mpfr_abs(err, err, MPFR_RNDN);
  mpfr_abs(bound, exact, MPFR_RNDN);
  mpfr_mul_d(bound, bound, c, MPFR_RNDD);
  mpfr_set_d(t, mix * k, MPFR_RNDD);
  mpfr_add(bound, bound, t, MPFR_RNDD);
  mpfr_mul_d(bound, bound, Expansion<N>::traits().eps, MPFR_RNDD);
  if (mpfr_cmp(err, bound) <= 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "error " << mpfr_get_d(err, MPFR_RNDU) << " above bound " << mpfr_get_d(bound, MPFR_RNDU);
}

constexpr double kMul = 1 + 0x1p-14, kAdd = 1 + 0x1p-30, kMix = 0x1p-32;

// A valid expansion with random 53-bit terms and a random gap of 0 .. max_gap extra bits below
// each term (gap 0: the next term starts right below the previous one's last bit).
template <int N>
Expansion<N> gapped(std::mt19937_64& rng, int e0, int max_gap) {
  Expansion<N> x;
  double prev_ulp = 0;
  for (int i = 0; i < N; ++i) {
    double m = 1 + static_cast<double>(rng() >> 12) * 0x1p-52;  // [1, 2), 53 bits
    int e = i == 0 ? e0 : std::ilogb(prev_ulp) - 1 - static_cast<int>(rng() % (max_gap + 1));
    x.t[i] = std::ldexp(m, e) * ((rng() & 1) ? -1 : 1);
    if (i > 0 && std::fabs(x.t[i]) > prev_ulp) x.t[i] = 0;  // cannot happen; keeps it valid
    prev_ulp = ulp(x.t[i]);
    if (x.t[i] == 0) {
      for (int k = i; k < N; ++k) x.t[k] = 0;
      break;
    }
  }
  return x;
}

template <class T>
class ExpansionFastTest : public ::testing::Test {};
using Types =
    ::testing::Types<Expansion<3>, Expansion<4>, Expansion<5>, Expansion<6>, Expansion<7>, Expansion<8>>;
TYPED_TEST_SUITE(ExpansionFastTest, Types);

// Hénon orbits as in the benchmark (a = 1.4, b = 0.3 as doubles): every operation of every step
// checked against MPFR and for the invariant, and the fast path counted per operation.
TYPED_TEST(ExpansionFastTest, HenonOrbitsTakeTheFastPath) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  const double a = 1.4, b = 0.3;
  long steps = 0, slow[4] = {0, 0, 0, 0};
  for (int start = 1; start <= 4; ++start) {
    TypeParam x(0.001 * start), y(0.0);
    for (int k = 0; k < 1500; ++k) {
      TypeParam y1 = y + 1.0, s = sqr(x), as = s * a, nx = y1 - as, ny = x * b;
      if (k >= 50) {  // after the transient, where short values with zero tails are exact
        ++steps;
        slow[0] += !fast_add_double(y, 1.0);
        slow[1] += !fast_sqr(x);
        slow[2] += !fast_mul_double(s, a) + !fast_mul_double(x, b);
        slow[3] += !fast_add(y1, -as);
      }
      Mp ex(kExact), ey(kExact), r(kExact);
      ds::test::set_terms(ex, x.t, N);
      ds::test::set_terms(ey, y.t, N);
      mpfr_sqr(r, ex, MPFR_RNDN);
      ASSERT_TRUE(valid_result(s));
      ASSERT_TRUE(within(s, r, kMul, 0, 0)) << "sqr at step " << k;
      ds::test::set_terms(r, s.t, N);
      mpfr_mul_d(r, r, a, MPFR_RNDN);
      ASSERT_TRUE(valid_result(as));
      ASSERT_TRUE(within(as, r, kMul, 0, 0)) << "mul double at step " << k;
      mpfr_add_d(r, ey, 1.0, MPFR_RNDN);
      ASSERT_TRUE(within(y1, r, kAdd, kMix, std::fabs(y.t[0]) + 1)) << "add double at step " << k;
      Mp e1(kExact), e2(kExact);
      ds::test::set_terms(e1, y1.t, N);
      ds::test::set_terms(e2, as.t, N);
      mpfr_sub(r, e1, e2, MPFR_RNDN);
      ASSERT_TRUE(valid_result(nx));
      ASSERT_TRUE(within(nx, r, kAdd, kMix, std::fabs(y1.t[0]) + std::fabs(as.t[0]))) << "sub at step " << k;
      mpfr_mul_d(r, ex, b, MPFR_RNDN);
      ASSERT_TRUE(within(ny, r, kMul, 0, 0)) << "mul double at step " << k;
      x = nx;
      y = ny;
    }
  }
  std::printf(
      "f64x%d Henon: %ld steps, slow paths: add double %ld, sqr %ld, mul double %ld (of %ld), sub %ld\n", N,
      steps, slow[0], slow[1], slow[2], 2 * steps, slow[3]);
  EXPECT_LE(slow[0], steps / 100);
  EXPECT_LE(slow[1], steps / 100);
  EXPECT_LE(slow[2], 2 * steps / 100);
  EXPECT_LE(slow[3], steps / 100);
}

// Full-precision random operands of similar magnitude (gaps of at most 2 extra bits): the fast path
// is the rule.
TYPED_TEST(ExpansionFastTest, RandomOperandsTakeTheFastPath) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng("expansion fast rate f64x" + std::to_string(N));
  const int n = 20000;
  long slow_add = 0, slow_mul = 0, slow_sqr = 0, slow_md = 0;
  for (int i = 0; i < n; ++i) {
    TypeParam a = gapped<N>(rng, static_cast<int>(rng() % 8) - 4, 2);
    TypeParam b = gapped<N>(rng, static_cast<int>(rng() % 8) - 4, 2);
    slow_add += !fast_add(a, b);
    slow_mul += !fast_mul(a, b);
    slow_sqr += !fast_sqr(a);
    slow_md += !fast_mul_double(a, b.t[0]);
  }
  std::printf("f64x%d random: slow paths of %d: add %ld, mul %ld, sqr %ld, mul double %ld\n", N, n, slow_add,
              slow_mul, slow_sqr, slow_md);
  EXPECT_LE(slow_add, n / 100);
  EXPECT_LE(slow_mul, n / 100);
  EXPECT_LE(slow_sqr, n / 100);
  EXPECT_LE(slow_md, n / 100);
}

// Gaps of 0 .. 12 or 0 .. 120 bits between terms: both paths are taken, and every result is valid and within
// the bound. A gap beyond what the check allows must go to the slow path.
TYPED_TEST(ExpansionFastTest, GapsStraddlingTheCheck) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng("expansion fast gaps f64x" + std::to_string(N));
  long fast = 0, slow = 0;
  for (int i = 0; i < 4000; ++i) {
    int max_gap = static_cast<int>(rng() % 4) == 0 ? 120 : 12;
    TypeParam a = gapped<N>(rng, static_cast<int>(rng() % 40) - 20, max_gap);
    TypeParam b = gapped<N>(rng, static_cast<int>(rng() % 40) - 20, max_gap);
    double d = gapped<N>(rng, static_cast<int>(rng() % 40) - 20, 0).t[0];
    bool f = fast_mul(a, b);
    fast += f;
    slow += !f;
    Mp ea(kExact), eb(kExact), r(kExact);
    ds::test::set_terms(ea, a.t, N);
    ds::test::set_terms(eb, b.t, N);
    std::string what = "case " + std::to_string(i);
    mpfr_mul(r, ea, eb, MPFR_RNDN);
    TypeParam m = a * b;
    ASSERT_TRUE(valid_result(m)) << what;
    ASSERT_TRUE(within(m, r, kMul, 0, 0)) << "mul " << what;
    mpfr_sqr(r, ea, MPFR_RNDN);
    TypeParam s = sqr(a);
    ASSERT_TRUE(valid_result(s)) << what;
    ASSERT_TRUE(within(s, r, kMul, 0, 0)) << "sqr " << what;
    mpfr_mul_d(r, ea, d, MPFR_RNDN);
    TypeParam md = a * d;
    ASSERT_TRUE(valid_result(md)) << what;
    ASSERT_TRUE(within(md, r, kMul, 0, 0)) << "mul double " << what;
    double mix = std::fabs(a.t[0]) + std::fabs(b.t[0]);
    mpfr_add(r, ea, eb, MPFR_RNDN);
    TypeParam sum = a + b;
    ASSERT_TRUE(valid_result(sum)) << what;
    ASSERT_TRUE(within(sum, r, kAdd, kMix, mix)) << "add " << what;
    mpfr_sub(r, ea, eb, MPFR_RNDN);
    TypeParam diff = a - b;
    ASSERT_TRUE(valid_result(diff)) << what;
    ASSERT_TRUE(within(diff, r, kAdd, kMix, mix)) << "sub " << what;
  }
  std::printf("f64x%d gapped operands: fast path %ld, slow path %ld (a * b)\n", N, fast, slow);
  EXPECT_GT(fast, 100);
  EXPECT_GT(slow, 100);
  // A gap of 100 bits after the first term: the carries of order 1 cannot be proved exact.
  TypeParam g(1.0);
  g.t[1] = 0x1p-160;
  TypeParam h = gapped<N>(rng, 0, 0);
  EXPECT_FALSE(fast_mul(g, h));
  EXPECT_FALSE(fast_add(g, h));
  EXPECT_TRUE(fast_mul(h, h));
}

// Zeros, negative zeros and short values with zero tails (exact small integers and dyadics): the
// renormalisation's order compares see equal magnitudes and zeros; results must be exact where the
// value is representable, valid, and on the fast path where nothing cancels.
TYPED_TEST(ExpansionFastTest, ZerosAndZeroTails) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  const double vals[] = {0.0, -0.0, 1.0, -1.0, 1.5, -3.0, 0x1p-60, 0x1p-400, 0x1p500, 0.375};
  for (double x : vals)
    for (double y : vals) {
      TypeParam a(x), b(y);
      std::string what = std::to_string(x) + ", " + std::to_string(y);
      Mp ea(kExact), eb(kExact), r(kExact), g(kExact);
      ds::test::set_terms(ea, a.t, N);
      ds::test::set_terms(eb, b.t, N);
      const TypeParam results[] = {a + b, a - b, a * b, sqr(a), a * y, a + y};
      mpfr_add(r, ea, eb, MPFR_RNDN);
      ds::test::set_terms(g, results[0].t, N);
      EXPECT_EQ(mpfr_cmp(g, r), 0) << "add " << what;
      mpfr_sub(r, ea, eb, MPFR_RNDN);
      ds::test::set_terms(g, results[1].t, N);
      EXPECT_EQ(mpfr_cmp(g, r), 0) << "sub " << what;
      mpfr_mul(r, ea, eb, MPFR_RNDN);
      ds::test::set_terms(g, results[2].t, N);
      EXPECT_EQ(mpfr_cmp(g, r), 0) << "mul " << what;
      ds::test::set_terms(g, results[4].t, N);
      EXPECT_EQ(mpfr_cmp(g, r), 0) << "mul double " << what;
      mpfr_sqr(r, ea, MPFR_RNDN);
      ds::test::set_terms(g, results[3].t, N);
      EXPECT_EQ(mpfr_cmp(g, r), 0) << "sqr " << what;
      mpfr_add(r, ea, eb, MPFR_RNDN);
      ds::test::set_terms(g, results[5].t, N);
      EXPECT_EQ(mpfr_cmp(g, r), 0) << "add double " << what;
      for (const TypeParam& v : results) EXPECT_TRUE(valid_result(v)) << what;
    }
  // -0 + -0 and -0 * x are zero (the sign of a zero result is not specified).
  EXPECT_EQ((TypeParam(-0.0) + TypeParam(-0.0)).t[0], 0.0);
  EXPECT_EQ((TypeParam(-0.0) * TypeParam(2.0)).t[0], 0.0);
  // A value with a full tail times one with a zero tail: the fast path. (1/3 times 3 would not be:
  // its low orders cancel, and the renormalisation's order check sends it to the slow path.)
  TypeParam pi = TypeParam::from_string(
      "3."
      "1415926535897932384626433832795028841971693993751058209749445923078164062862089986280348253421170679"
      "8");
  EXPECT_TRUE(fast_mul(pi, TypeParam(3.0)));
  EXPECT_TRUE(fast_mul_double(pi, 3.0));
  EXPECT_TRUE(fast_sqr(pi));
  EXPECT_TRUE(fast_add_double(pi, 1.0));
}

}  // namespace
