// Expansion<N> (f64x2..f64x8) against MPFR: the error bounds stated in arith/expansion.h on fresh
// random inputs and on the adversarial cases (cancellation, carries, signs, zero, range ends),
// ulp-nonoverlap of every result, exact comparisons/to_double/mul_pow2, decimal round trips, and a
// device section comparing the GPU bit for bit with the host.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "arith/expansion.h"
#include "arith/format.h"
#include "kernels/arith_ops/arith_ops.h"
#include "oracle.h"

namespace {

using ds::Expansion;
using ds::test::Mp;

#ifndef DEEPSCOPE_EXPANSION_SAMPLES
#define DEEPSCOPE_EXPANSION_SAMPLES 100000  // a stress run builds with more
#endif
constexpr int kRandomPerOp = DEEPSCOPE_EXPANSION_SAMPLES;  // fresh random inputs per op and N
constexpr mpfr_prec_t kExact = 2200;  // every sum of a few doubles is a multiple of 2^-1074 below 2^1030
constexpr mpfr_prec_t kRef = 1200;    // rounded references: >= 2 x 53 x 8 bits

double ulp(double x) {
  if (x == 0) return 0;
  int e = std::ilogb(x);
  return std::ldexp(1.0, std::max(e - 52, -1074));
}

// The invariant: |t[i+1]| <= ulp(t[i]), zeros only at the end, all finite. Results of operations
// (strong) also satisfy |t[i+1]| <= (1 + 2^-38) 2^-53 |t[i]| where t[i] is normal.
template <int N>
::testing::AssertionResult valid(const Expansion<N>& x, bool strong = false) {
  for (int i = 0; i < N; ++i)
    if (!std::isfinite(x.t[i])) return ::testing::AssertionFailure() << "non-finite term " << i;
  for (int i = 0; i + 1 < N; ++i) {
    if (std::fabs(x.t[i + 1]) > ulp(x.t[i])) {
      ::testing::AssertionResult r = ::testing::AssertionFailure();
      r << "terms overlap at " << i << ":";
      for (int k = 0; k < N; ++k) r << " " << std::hexfloat << x.t[k];
      return r;
    }
    if (strong && N == 2 && x.t[0] + x.t[1] != x.t[0]) {
      return ::testing::AssertionFailure() << "f64x2 result not normalized: " << std::hexfloat << x.t[0]
                                           << " " << x.t[1];
    }
    if (strong && std::fabs(x.t[i]) >= 0x1p-1022 &&
        std::fabs(x.t[i + 1]) > (1 + 0x1p-38) * 0x1p-53 * std::fabs(x.t[i])) {
      ::testing::AssertionResult r = ::testing::AssertionFailure();
      r << "term " << i + 1 << " exceeds 2^-53 (1 + 2^-38) of the one above:";
      for (int k = 0; k < N; ++k) r << " " << std::hexfloat << x.t[k];
      return r;
    }
  }
  return ::testing::AssertionSuccess();
}

template <int N>
std::string hex(const Expansion<N>& x) {
  std::string s;
  char buf[64];
  for (int i = 0; i < N; ++i) {
    std::snprintf(buf, sizeof buf, "%s%a", i ? " " : "", x.t[i]);
    s += buf;
  }
  return s;
}

template <int N>
void set(mpfr_ptr out, const Expansion<N>& x) {
  ds::test::set_terms(out, x.t, N);
}

// Greedy nearest expansion of v (exact value, any precision): t_i = RN(v - t_0 - ... - t_{i-1}).
template <int N>
Expansion<N> greedy(mpfr_srcptr v) {
  Mp rem(kExact);
  mpfr_set(rem, v, MPFR_RNDN);
  Expansion<N> x;
  for (int i = 0; i < N; ++i) {
    x.t[i] = mpfr_get_d(rem, MPFR_RNDN);
    mpfr_sub_d(rem, rem, x.t[i], MPFR_RNDN);
  }
  return x;
}

// Random inputs: several families, all valid expansions; magnitudes 2^[emin, emax].
template <int N>
struct Gen {
  std::mt19937_64& rng;
  int emin, emax;

  int uniform(int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1)); }
  double unit() { return static_cast<double>(rng() >> 11) * 0x1p-53; }

  // A random real with 53 (N + 2) random bits (some families: fewer, or sparse), greedily rounded.
  Expansion<N> value() {
    Mp v(kExact), chunk(64);
    int kind = uniform(0, 9);
    int chunks = kind == 0 ? uniform(1, N) : N + 2;  // kind 0: short numbers, zeros at the tail
    int e = uniform(emin, emax);
    for (int k = 0; k < chunks; ++k) {
      if (kind == 1 && uniform(0, 2) == 0) continue;  // sparse: holes in the bit pattern
      uint64_t bits = rng() >> 11;
      if (k == 0) bits |= uint64_t(1) << 52;
      int shift = kind == 2 ? uniform(0, 70) : 0;  // gaps between the 53-bit chunks
      mpfr_set_d(chunk, static_cast<double>(bits), MPFR_RNDN);
      mpfr_mul_2si(chunk, chunk, e - 52 - 53 * k - shift, MPFR_RNDN);
      if (kind == 3 && (rng() & 1)) mpfr_neg(chunk, chunk, MPFR_RNDN);  // signs mixed inside
      mpfr_add(v, v, chunk, MPFR_RNDN);
    }
    if (rng() & 1) mpfr_neg(v, v, MPFR_RNDN);
    if (kind == 4) return extreme(e);
    return greedy<N>(v);
  }

  // Terms at the edge of the invariant: t[i+1] = +-ulp(t[i]) or +-ulp(t[i])/2, or random below it.
  Expansion<N> extreme(int e) {
    Expansion<N> x;
    x.t[0] = std::ldexp(1.0 + (uniform(0, 1) ? 0.0 : unit()), e) * (rng() & 1 ? -1 : 1);
    for (int i = 1; i < N; ++i) {
      double u = ulp(x.t[i - 1]);
      int c = uniform(0, 3);
      double m = c == 0 ? u : c == 1 ? u / 2 : c == 2 ? u * unit() : u * (1 - 0x1p-53);
      x.t[i] = (rng() & 1) ? -m : m;
      if (std::fabs(x.t[i]) > u) x.t[i] = 0;  // guard rounding
    }
    // f64x2's invariant is the double-word one, hi = RN(hi + lo): renormalize (exactly).
    if constexpr (N == 2) ds::eft::fast_two_sum(x.t[0], x.t[1], x.t[0], x.t[1]);
    return x;
  }

  // b close to -a (or to a): the sum/difference cancels by 0 .. 53N + 60 bits.
  Expansion<N> near(const Expansion<N>& a, bool negate) {
    Mp v(kExact), d(64);
    set(v, a);
    if (negate) mpfr_neg(v, v, MPFR_RNDN);
    if (mpfr_zero_p(v)) return a;
    int depth = uniform(0, 53 * N + 60);
    mpfr_set_d(d, (unit() - 0.5) * 2, MPFR_RNDN);
    mpfr_mul_2si(d, d, static_cast<long>(mpfr_get_exp(v)) - depth, MPFR_RNDN);
    mpfr_add(v, v, d, MPFR_RNDN);
    return greedy<N>(v);
  }
};

// Stated constants (arith/expansion.h), in units of traits().eps: relative parts, and the
// coefficient of eps (|a| + |b|) in the additions' bound.
// f64x2 uses the double-word algorithms (arith/expansion_dw.h), N >= 3 Algorithms 4/5.
// add_mul, add_sqr_mul (N >= 3): relative part add, coefficients add_mul_mix of
// eps (|y| + |c| + 2 |s| |d|) and add_sqr_mul_mix of eps (|y| + |c| + 2 x^2 |d|).
struct Bounds {
  double add, add_double, mix, mul, sqr, mul_double, div, sqrt, add_mul_mix, add_sqr_mul_mix;
};
template <int N>
constexpr Bounds bounds() {
  if constexpr (N == 2) return {3 + 13 * 0x1p-53, 2, 0, 4, 4 + 10 * 0x1p-53, 2, 8, 8, 0, 0};
  return {1 + 0x1p-30, 1 + 0x1p-30, 0x1p-32, 1 + 0x1p-14, 1 + 0x1p-14, 1 + 0x1p-14, 3, 3, 0x1p-24, 0x1p-14};
}

// Tracks the largest error / bound and the largest error in units of eps|exact|, per op name.
struct Stats {
  double worst_vs_bound = 0;
  double worst_rel_eps = 0;  // only where the bound is purely relative (cancellation < 10 bits)
  long count = 0;
};
std::map<std::string, Stats>& stats() {
  static std::map<std::string, Stats> s;
  return s;
}

// err / bound with bound = eps (c |exact| + k (|a| + |b|)) + floor, all in MPFR (no underflow).
double ratio(mpfr_srcptr got, mpfr_srcptr exact, double eps, double c, double k, double mix,
             double floor_abs) {
  Mp err(kExact), bound(128), t(128);
  mpfr_sub(err, got, exact, MPFR_RNDN);
  mpfr_abs(err, err, MPFR_RNDN);
  mpfr_abs(bound, exact, MPFR_RNDN);
  mpfr_mul_d(bound, bound, c, MPFR_RNDD);
  mpfr_set_d(t, mix, MPFR_RNDN);
  mpfr_mul_d(t, t, k, MPFR_RNDD);
  mpfr_add(bound, bound, t, MPFR_RNDD);
  mpfr_mul_d(bound, bound, eps, MPFR_RNDD);
  mpfr_add_d(bound, bound, floor_abs, MPFR_RNDD);
  if (mpfr_zero_p(bound)) return mpfr_zero_p(err) ? 0.0 : INFINITY;
  mpfr_div(err, err, bound, MPFR_RNDU);
  return mpfr_get_d(err, MPFR_RNDU);
}

// Checks one result against the stated bound. mix = |a| + |b| for additions (0 otherwise).
// k: the coefficient of eps mix (the additions' by default).
template <int N>
void check(const char* op, const Expansion<N>& got, mpfr_srcptr exact, double c, double mix,
           const std::string& what, double k = bounds<N>().mix) {
  const auto tr = Expansion<N>::traits();
  double mag = std::fabs(mpfr_get_d(exact, MPFR_RNDN));
  if (mag >= tr.max_abs / 2) return;  // overflow is outside every contract
  ASSERT_TRUE(valid(got, true)) << op << " " << what;
  Mp g(kExact);
  set(g, got);
  bool in_range = mag >= tr.min_abs;
  // Additions are exact down to the last term, so they keep an absolute 2^-1074 below min_abs.
  bool additive = mix > 0;
  if (!in_range && !additive) return;
  double r = ratio(g, exact, tr.eps, c, k, mix, additive ? 0x1p-1073 : 0.0);
  Stats& s = stats()[std::string(op) + " " + tr.name];
  ++s.count;
  s.worst_vs_bound = std::max(s.worst_vs_bound, r);
  if (in_range && (!additive || mix <= 1024 * mag)) {
    double rel = ds::test::rel_err(g, exact) / tr.eps;
    s.worst_rel_eps = std::max(s.worst_rel_eps, rel);
  }
  ASSERT_LE(r, 1.0) << op << " " << tr.name << " exceeds its bound: " << what << " -> " << hex(got);
}

template <class T>
class ExpansionTest : public ::testing::Test {};
using Types = ::testing::Types<Expansion<2>, Expansion<3>, Expansion<4>, Expansion<5>, Expansion<6>,
                               Expansion<7>, Expansion<8>>;
TYPED_TEST_SUITE(ExpansionTest, Types);

template <int N>
void check_binary(const Expansion<N>& a, const Expansion<N>& b, double d) {
  constexpr Bounds B = bounds<N>();
  Mp ea(kExact), eb(kExact), ex(kExact), ref(kRef);
  set(ea, a);
  set(eb, b);
  std::string what = "a = " + hex(a) + ", b = " + hex(b);
  double mix = std::fabs(to_double(a)) + std::fabs(to_double(b));
  mpfr_add(ex, ea, eb, MPFR_RNDN);
  check("add", a + b, ex, B.add, mix, what);
  mpfr_sub(ex, ea, eb, MPFR_RNDN);
  check("sub", a - b, ex, B.add, mix, what);
  mpfr_mul(ref, ea, eb, MPFR_RNDN);
  check("mul", a * b, ref, B.mul, 0, what);
  if (!mpfr_zero_p(eb) && std::isfinite(to_double(a) / to_double(b))) {
    mpfr_div(ref, ea, eb, MPFR_RNDN);
    check("div", a / b, ref, B.div, 0, what);
  }
  mpfr_sqr(ref, ea, MPFR_RNDN);
  check("sqr", sqr(a), ref, B.sqr, 0, what);
  Mp ab(kExact);
  mpfr_abs(ab, ea, MPFR_RNDN);
  mpfr_sqrt(ref, ab, MPFR_RNDN);
  check("sqrt", sqrt(abs(a)), ref, B.sqrt, 0, what);
  std::string whatd = "a = " + hex(a) + ", d = " + std::to_string(d);
  mpfr_add_d(ex, ea, d, MPFR_RNDN);
  check("add double", a + d, ex, B.add_double, std::fabs(to_double(a)) + std::fabs(d), whatd);
  mpfr_sub_d(ex, ea, d, MPFR_RNDN);
  check("sub double", a - d, ex, B.add_double, std::fabs(to_double(a)) + std::fabs(d), whatd);
  mpfr_mul_d(ref, ea, d, MPFR_RNDN);
  check("mul double", a * d, ref, B.mul_double, 0, whatd);
}

// add_mul(y, s, d, c) = y + s d + c and (kSquare) add_sqr_mul(y, s, d, c) = y + s^2 d + c
// (N >= 3) against the exact value (2200 bits hold it for the generators' ranges; beyond, MPFR's
// rounding is 2^-2200 relative, far below the bounds).
template <bool kSquare, int N>
void check_fused(const Expansion<N>& y, const Expansion<N>& s, double d, double c) {
  if constexpr (N >= 3) {
    Mp ey(kExact), es(kExact), ex(kExact);
    set(ey, y);
    set(es, s);
    if (kSquare) mpfr_sqr(es, es, MPFR_RNDN);
    mpfr_mul_d(es, es, d, MPFR_RNDN);
    mpfr_add(ex, ey, es, MPFR_RNDN);
    mpfr_add_d(ex, ex, c, MPFR_RNDN);
    const double s0 = std::fabs(to_double(s));
    const double mix = std::fabs(to_double(y)) + std::fabs(c) + 2 * (kSquare ? s0 * s0 : s0) * std::fabs(d);
    if (!std::isfinite(mix)) return;  // overflow is outside the contract
    char cd[80];
    std::snprintf(cd, sizeof cd, ", d = %a, c = %a", d, c);
    const std::string what = "y = " + hex(y) + (kSquare ? ", x = " : ", s = ") + hex(s) + cd;
    if constexpr (kSquare) {
      check("add_sqr_mul", ds::add_sqr_mul(y, s, d, c), ex, bounds<N>().add, mix, what, bounds<N>().add_sqr_mul_mix);
    } else {
      check("add_mul", ds::add_mul(y, s, d, c), ex, bounds<N>().add, mix, what, bounds<N>().add_mul_mix);
    }
  }
}

TYPED_TEST(ExpansionTest, Traits) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  constexpr auto tr = TypeParam::traits();
  EXPECT_EQ(std::string(tr.name), "f64x" + std::to_string(N));
  EXPECT_EQ(tr.bits, 53 * N);
  EXPECT_EQ(tr.eps, std::ldexp(1.0, -53 * N));
  EXPECT_FALSE(tr.fixed);
  EXPECT_EQ(tr.min_abs, std::ldexp(1.0, -1022 + 53 * N));
  EXPECT_TRUE(TypeParam::kHasDivSqrt);
  EXPECT_GT(tr.rel_cost, 1.0);
  static_assert(std::is_trivially_copyable_v<TypeParam> && std::is_standard_layout_v<TypeParam>);
}

// Fresh random operands over a wide exponent range, both signs, all input families.
TYPED_TEST(ExpansionTest, RandomAgainstMpfr) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng(std::string("expansion random f64x") + std::to_string(N));
  Gen<N> g{rng, -300, 300};
  for (int i = 0; i < kRandomPerOp; ++i) {
    TypeParam a = g.value(), b = g.value();
    ASSERT_TRUE(valid(a) && valid(b));
    double d = g.value().t[0];
    check_binary(a, b, d);
    check_fused<false>(a, b, d, g.value().t[0]);
    check_fused<true>(a, b, d, g.value().t[0]);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// add_mul and add_sqr_mul as the Hénon map uses them, 1 + y - a x^2: x and y near the attractor's
// scale, a near 1.4, and every depth of cancellation of the result (x^2 near (1+y)/a).
TYPED_TEST(ExpansionTest, AddMulHenonShapes) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  if constexpr (N >= 3) {
    auto rng = ds::test::seeded_rng(std::string("expansion add_mul f64x") + std::to_string(N));
    Gen<N> g{rng, -3, 1};
    for (int i = 0; i < kRandomPerOp / 4; ++i) {
      const double a = 1.4 + (g.unit() - 0.5) * 0.1;
      const TypeParam x = g.value(), y = g.value();
      check_fused<false>(y, sqr(x), -a, 1.0);
      check_fused<true>(y, x, -a, 1.0);
      // y chosen so that 1 + y - a x^2 cancels: y = near(a x^2 - 1).
      const TypeParam t = sqr(x) * a + (-1.0);
      const TypeParam yc = g.near(t, false);
      check_fused<false>(yc, sqr(x), -a, 1.0);
      check_fused<true>(yc, x, -a, 1.0);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// The one-carry passes of expansion_carry.h on their own (x * d and y + x^2 d + c, N >= 4): where
// their checks pass, the N + 1 terms renormalised meet the public operations' bounds against
// MPFR; the checks pass on a Hénon orbit (so the scans run the cheap path: docs/bench/henon.md)
// and fail, sending the operation to Algorithms 4/5, on an input with a gap of many bits.
// Returns whether both passes' checks held.
template <int N>
bool check_one_carry(const Expansion<N>& y, const Expansion<N>& x, double d, double c) {
  namespace ed = ds::expansion_detail;
  double r[N + 1], m[N + 1];
  const bool fused = ed::add_sqr_mul_carry_terms(y, x, d, c, r);
  const bool product = ed::mul_double_carry_terms(x, d, m);
  Mp ey(kExact), ex(kExact), e2(kExact);
  set(ey, y);
  set(ex, x);
  const std::string what = "y = " + hex(y) + ", x = " + hex(x) + ", d = " + std::to_string(d);
  if (fused) {
    mpfr_sqr(e2, ex, MPFR_RNDN);
    mpfr_mul_d(e2, e2, d, MPFR_RNDN);
    mpfr_add(e2, e2, ey, MPFR_RNDN);
    mpfr_add_d(e2, e2, c, MPFR_RNDN);
    const double x0 = std::fabs(x.t[0]);
    const double mix = std::fabs(y.t[0]) + std::fabs(c) + 2 * x0 * x0 * std::fabs(d);
    if (std::isfinite(mix)) {
      check("add_sqr_mul one carry", ed::renormalized<N>(r), e2, bounds<N>().add, mix, what,
            bounds<N>().add_sqr_mul_mix);
    }
  }
  if (product) {
    Mp ref(kRef);
    mpfr_mul_d(ref, ex, d, MPFR_RNDN);
    check("mul double one carry", ed::renormalized<N, true>(m), ref, bounds<N>().mul_double, 0, what);
  }
  return fused && product;
}

// The one-carry products (a * b, sqr) on their own against MPFR, where their checks pass; returns
// whether both passed.
template <int N>
bool check_one_carry_products(const Expansion<N>& a, const Expansion<N>& b) {
  namespace ed = ds::expansion_detail;
  double m[N + 1], q[N + 1];
  const bool product = ed::mul_carry_terms(a, b, m);
  const bool square = ed::square_carry_terms(a, q);
  Mp ea(kExact), eb(kExact), ref(kRef);
  set(ea, a);
  set(eb, b);
  const std::string what = "a = " + hex(a) + ", b = " + hex(b);
  if (product) {
    mpfr_mul(ref, ea, eb, MPFR_RNDN);
    check("mul one carry", ed::renormalized<N>(m), ref, bounds<N>().mul, 0, what);
  }
  if (square) {
    mpfr_sqr(ref, ea, MPFR_RNDN);
    check("sqr one carry", ed::renormalized<N>(q), ref, bounds<N>().sqr, 0, what);
  }
  return product && square;
}

TYPED_TEST(ExpansionTest, OneCarryPasses) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  if constexpr (ds::expansion_detail::kOneCarry<N>) {
    // The Hénon map at (a, b) = (1.4, 0.3) from (0, 0), as the scans step it.
    TypeParam x(0.0), y(0.0);
    int passed = 0;
    constexpr int kSteps = 4000;
    for (int i = 0; i < kSteps; ++i) {
      passed += check_one_carry(y, x, -1.4, 1.0) & check_one_carry_products(x, y);
      if (::testing::Test::HasFatalFailure()) return;
      const TypeParam nx = ds::add_sqr_mul(y, x, -1.4, 1.0);
      y = x * 0.3;
      x = nx;
    }
    // From the exact start (0, 0) the first steps have zero terms (1, then 1 - 1.4, ...), which the
    // checks send to Algorithms 4/5; after that every step takes the one-carry passes.
    EXPECT_GE(passed, kSteps - 12) << "one-carry checks failed on a Hénon orbit";
    EXPECT_LT(passed, kSteps) << "the start's zero terms should have failed a check";
    // Random operands of every family (gaps of up to 70 bits between chunks among them).
    auto rng = ds::test::seeded_rng(std::string("expansion one carry f64x") + std::to_string(N));
    Gen<N> g{rng, -40, 40};
    int ok = 0;
    for (int i = 0; i < kRandomPerOp / 4; ++i) {
      ok += check_one_carry(g.value(), g.value(), g.value().t[0], g.value().t[0]);
      check_one_carry_products(g.value(), g.value());
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(ok, 0);
    EXPECT_LT(ok, kRandomPerOp / 4) << "no random operand took the fallback";
    // A gap of 60 bits below x's second term: order 2's products then lie about 113 bits apart.
    TypeParam gap(1.0 + 0x1p-40);
    gap.t[1] = 0x1p-53 * 0x1p-3;
    gap.t[2] = 0x1p-53 * 0x1p-3 * 0x1p-113;
    double sq[N + 1];
    EXPECT_FALSE(ds::expansion_detail::square_carry_terms(gap, sq));
    gap.t[2] = 0x1p-53 * 0x1p-3 * 0x1p-60;  // 60 bits: close enough
    for (int i = 3; i < N; ++i) gap.t[i] = gap.t[i - 1] * 0x1p-53;
    EXPECT_TRUE(ds::expansion_detail::square_carry_terms(gap, sq));
    gap.t[2] = 0x1p-53 * 0x1p-3 * 0x1p-113;
    check_fused<true>(TypeParam(0.5), gap, -1.4, 1.0);  // the public operation: Algorithms 4/5
  }
}

// a + b with b near -a, a - b with b near a: every depth of cancellation, including exact zero.
TYPED_TEST(ExpansionTest, Cancellation) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng(std::string("expansion cancellation f64x") + std::to_string(N));
  Gen<N> g{rng, -60, 60};
  for (int i = 0; i < kRandomPerOp / 4; ++i) {
    TypeParam a = g.value();
    check_binary(a, g.near(a, true), g.near(a, false).t[0]);
    check_binary(a, g.near(a, false), -a.t[0]);
    // add_mul with y near -(s d + c).
    const TypeParam s = g.value();
    const double d = g.value().t[0], c = g.value().t[0];
    check_fused<false>(g.near(s * d + c, true), s, d, c);
    check_fused<true>(g.near(sqr(s) * d + c, true), s, d, c);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // a + (-a + tiny), computed in the format itself, and exact zeros.
  for (int i = 0; i < 2000; ++i) {
    TypeParam a = g.value();
    TypeParam tiny = mul_pow2(g.value(), -g.uniform(0, 53 * N + 40));
    TypeParam b = -a + tiny;
    check_binary(a, b, tiny.t[0]);
    TypeParam z = a - a;
    for (int k = 0; k < N; ++k) ASSERT_EQ(z.t[k], 0.0);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Carries through every term: 1 - 2^-k (a run of ones) plus 2^-k, and similar borrows.
TYPED_TEST(ExpansionTest, Carries) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  for (int k = 1; k <= 53 * N + 10; ++k) {
    Mp v(kExact);
    mpfr_set_ui_2exp(v, 1, -k, MPFR_RNDN);
    mpfr_ui_sub(v, 1, v, MPFR_RNDN);
    TypeParam ones = greedy<N>(v);
    TypeParam lsb(std::ldexp(1.0, -k));
    for (double s : {1.0, -1.0})
      for (double scale : {1.0, 0x1p700, 0x1p-700}) {
        TypeParam a = mul_pow2(ones, 0) * s * scale, b = lsb * s * scale;
        check_binary(a, b, b.t[0]);
        check_binary(b, a, -a.t[0]);
        if (::testing::Test::HasFatalFailure()) return;
      }
  }
}

// Signs, zero, and values near both ends of the range.
TYPED_TEST(ExpansionTest, SignsZeroAndRange) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng(std::string("expansion range f64x") + std::to_string(N));
  const auto tr = TypeParam::traits();
  TypeParam zero(0.0);
  Gen<N> g{rng, -4, 4};
  for (int i = 0; i < 2000; ++i) {
    TypeParam a = g.value();
    check_binary(zero, a, 0.0);
    check_binary(a, zero, 0.0);
    check_binary(-a, a, a.t[0]);
    check_binary(-a, -a, -a.t[0]);
    // near overflow: results stay below max_abs
    check_binary(mul_pow2(a, 1010), mul_pow2(g.value(), 1010), std::ldexp(g.unit() + 1, 1012));
    check_binary(mul_pow2(a, 500), mul_pow2(g.value(), 505), 0x1p500);
    // near underflow: operands at the bottom of the range where the bound still holds
    int lo = std::ilogb(tr.min_abs) + 8;
    check_binary(mul_pow2(a, lo + 600), mul_pow2(g.value(), -600), 0x1p-600);
    check_binary(mul_pow2(a, lo), mul_pow2(g.value(), lo), std::ldexp(1.0, lo));
    // below min_abs: only validity (and the additive bound)
    check_binary(mul_pow2(a, -1070), mul_pow2(g.value(), -1060), 0x1p-1070);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_EQ(to_double(sqrt(zero)), 0.0);
  EXPECT_TRUE(std::isnan(to_double(sqrt(TypeParam(-1.0)))));
  EXPECT_EQ(to_double(zero / TypeParam(3.0)), 0.0);
  EXPECT_TRUE(std::isinf(to_double(TypeParam(1.0) / zero)));
}

// ==, <, ... against mpfr_cmp, including equal values with different representations.
TYPED_TEST(ExpansionTest, ComparisonsAreExact) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng(std::string("expansion compare f64x") + std::to_string(N));
  Gen<N> g{rng, -50, 50};
  auto expect = [](const TypeParam& a, const TypeParam& b) {
    Mp ea(kExact), eb(kExact);
    set(ea, a);
    set(eb, b);
    int c = mpfr_cmp(ea, eb);
    std::string what = hex(a) + " vs " + hex(b);
    ASSERT_EQ(a < b, c < 0) << what;
    ASSERT_EQ(a > b, c > 0) << what;
    ASSERT_EQ(a <= b, c <= 0) << what;
    ASSERT_EQ(a >= b, c >= 0) << what;
    ASSERT_EQ(a == b, c == 0) << what;
    ASSERT_EQ(a != b, c != 0) << what;
  };
  for (int i = 0; i < kRandomPerOp / 10; ++i) {
    TypeParam a = g.value();
    TypeParam b = a;
    int k = g.uniform(0, N - 1);  // differ only in one term, by one ulp of it
    b.t[k] = std::nextafter(b.t[k], (rng() & 1) ? INFINITY : -INFINITY);
    if (!valid(b)) b = a;
    expect(a, b);
    expect(a, g.near(a, false));
    expect(a, g.value());
    // the same value written differently: t0 moved by one ulp toward t1, the difference in t1
    if (a.t[0] != 0) {
      TypeParam c = a;
      double step = a.t[1] > 0 ? ulp(a.t[0]) : -ulp(a.t[0]);
      c.t[0] = a.t[0] + step;
      c.t[1] = a.t[1] - step;
      if (c.t[0] - step == a.t[0] && c.t[1] + step == a.t[1] && valid(c)) expect(a, c);
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  TypeParam one(1.0), alt(1.0);
  alt.t[0] = 1.0 + 0x1p-52;
  alt.t[1] = -0x1p-52;  // the same value as one
  expect(one, alt);
  EXPECT_TRUE(one == alt);
  EXPECT_TRUE(TypeParam(0.0) == -TypeParam(0.0));
}

// to_double = RN of the exact value, including ties and near-ties at every depth.
TYPED_TEST(ExpansionTest, ToDoubleIsCorrectlyRounded) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng(std::string("expansion to_double f64x") + std::to_string(N));
  Gen<N> g{rng, -1000, 1000};
  auto expect = [](const TypeParam& a) {
    Mp ea(kExact);
    set(ea, a);
    ASSERT_EQ(to_double(a), mpfr_get_d(ea, MPFR_RNDN)) << hex(a);
  };
  for (int i = 0; i < kRandomPerOp / 5; ++i) {
    TypeParam a = g.value();
    expect(a);
    // a tie after the first term, broken (or not) by the deeper terms
    if (a.t[0] != 0 && N >= 2) {
      TypeParam t = a;
      t.t[1] = (rng() & 1 ? 0.5 : -0.5) * ulp(t.t[0]);
      for (int k = 2; k < N; ++k) t.t[k] = g.uniform(0, 2) == 0 ? 0.0 : a.t[k];
      if (valid(t)) expect(t);
      if (N >= 3) {
        TypeParam w = t;
        w.t[2] = (rng() & 1 ? 1 : -1) * ulp(w.t[1]);  // at the invariant's edge
        if (valid(w)) expect(w);
      }
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TYPED_TEST(ExpansionTest, MulPow2NegAbsAreExact) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng(std::string("expansion pow2 f64x") + std::to_string(N));
  Gen<N> g{rng, -100, 100};
  for (int i = 0; i < 5000; ++i) {
    TypeParam a = g.value();
    int k = g.uniform(-600, 600);
    bool normal = true;  // exact only while no term becomes subnormal
    for (double t : a.t) normal = normal && (t == 0 || std::ilogb(t) + k >= -1022);
    if (!normal) continue;
    Mp ea(kExact), ek(kExact), er(kExact);
    set(ea, a);
    mpfr_mul_2si(ek, ea, k, MPFR_RNDN);
    set(er, mul_pow2(a, k));
    ASSERT_EQ(mpfr_cmp(er, ek), 0) << hex(a) << " * 2^" << k;
    set(er, neg(a));
    mpfr_neg(ek, ea, MPFR_RNDN);
    ASSERT_EQ(mpfr_cmp(er, ek), 0);
    set(er, abs(a));
    mpfr_abs(ek, ea, MPFR_RNDN);
    ASSERT_EQ(mpfr_cmp(er, ek), 0);
  }
  EXPECT_EQ(to_double(mul_pow2(TypeParam(0x1p-1074), 2000)), 0x1p926);
  EXPECT_EQ(to_double(mul_pow2(TypeParam(0x1p1000), -2000)), 0x1p-1000);
  EXPECT_EQ(to_double(mul_pow2(TypeParam(3.25), 1500)), INFINITY);
}

// to_string is the exact decimal value; from_string of it gives the value back; long strings.
TYPED_TEST(ExpansionTest, DecimalRoundTrip) {
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng(std::string("expansion decimal f64x") + std::to_string(N));
  Gen<N> g{rng, -200, 200};
  for (int i = 0; i < 3000; ++i) {
    TypeParam a = g.value();
    std::string s = to_string(a);
    Mp ea(kExact), es(kExact);
    set(ea, a);
    ASSERT_EQ(mpfr_set_str(es, s.c_str(), 10, MPFR_RNDN), 0) << s;  // exact: inexact flag is 0
    ASSERT_EQ(mpfr_cmp(ea, es), 0) << s;
    TypeParam b = TypeParam::from_string(s);
    ASSERT_TRUE(valid(b));
    Mp eb(kExact);
    set(eb, b);
    ASSERT_EQ(mpfr_cmp(ea, eb), 0) << s << " -> " << hex(b);
    ASSERT_EQ(to_string(b), s);
    // a random decimal of any length: greedy nearest within the format's precision, idempotent
    std::string digits = (rng() & 1) ? "-" : "";
    digits += static_cast<char>('1' + rng() % 9);
    digits += '.';
    int len = g.uniform(0, 400);
    for (int k = 0; k < len; ++k) digits += static_cast<char>('0' + rng() % 10);
    digits += 'e' + std::to_string(g.uniform(-150, 250));
    TypeParam c = TypeParam::from_string(digits);
    ASSERT_TRUE(valid(c)) << digits;
    Mp ed(kExact), ec(kExact);
    mpfr_set_str(ed, digits.c_str(), 10, MPFR_RNDN);
    set(ec, c);
    if (!mpfr_zero_p(ed)) {
      ASSERT_LE(ds::test::rel_err(ec, ed), TypeParam::traits().eps) << digits;
    }
    ASSERT_EQ(to_string(TypeParam::from_string(to_string(c))), to_string(c));
  }
  EXPECT_EQ(to_string(TypeParam::from_string("0.1"), 20), "0.1");
  EXPECT_EQ(to_string(TypeParam::from_string("-37.5e-2")), "-0.375");
}

TYPED_TEST(ExpansionTest, BadInputThrows) {
  for (const char* s :
       {"", " ", "abc", "1..2", "1e", "--1", "1 2", "0x10", "nan", "inf", "-Infinity", "1e5000000", "1e400"})
    EXPECT_THROW(TypeParam::from_string(s), ds::ArithError) << '"' << s << '"';
  EXPECT_THROW(TypeParam::from_double(NAN), ds::ArithError);
  EXPECT_THROW(TypeParam::from_double(INFINITY), ds::ArithError);
  EXPECT_THROW(TypeParam::from_double(-INFINITY), ds::ArithError);
  EXPECT_EQ(TypeParam::from_double(-2.5).t[0], -2.5);
}

// The GPU computes bit-identical results (same instruction sequence, no contraction).
// settle() stops once the rest is at most half an ulp of the lead. Written as (1/2 + 2^-40) ulp, that
// bound rounds up to a whole ulp when ulp = 2^-1074 (the smallest subnormal), which let a lead and a
// rest of one full ulp through: (2^-1074, -2^-1074) for 0, (2^-1073, 2^-1074) for 3 2^-1074.
TEST(ExpansionSettle, StopsAtHalfAnUlpAlsoAtTheSmallestSubnormal) {
  double zero[2] = {0x1p-1074, -0x1p-1074};
  ds::expansion_detail::settle<2, 1>(zero);
  EXPECT_EQ(zero[0], 0.0);
  EXPECT_EQ(zero[1], 0.0);
  double three[3] = {0x1p-1073, 0x1p-1074, 0.0};
  ds::expansion_detail::settle<3, 2>(three);
  EXPECT_EQ(three[0], 3 * 0x1p-1074);
  EXPECT_EQ(three[1], 0.0);
  EXPECT_EQ(three[2], 0.0);
  double fine[2] = {0x1p-1000, 0x1p-1060};  // a rest well under half an ulp: left alone
  ds::expansion_detail::settle<2, 1>(fine);
  EXPECT_EQ(fine[0], 0x1p-1000);
  EXPECT_EQ(fine[1], 0x1p-1060);
}

TYPED_TEST(ExpansionTest, DeviceMatchesHost) {
  DEEPSCOPE_REQUIRE_GPU();
  constexpr int N = sizeof(TypeParam) / sizeof(double);
  auto rng = ds::test::seeded_rng(std::string("expansion device f64x") + std::to_string(N));
  Gen<N> g{rng, -100, 100};
  const std::size_t n = 4096;
  std::vector<TypeParam> x(n), y(n), host(n), dev(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = g.value();
    y[i] = i % 3 == 0 ? g.near(x[i], true) : g.value();
  }
  const ds::Arith arith = ds::parse_arith(TypeParam::traits().name);
  for (ds::ArithOp op : {ds::ArithOp::kAdd, ds::ArithOp::kSub, ds::ArithOp::kMul, ds::ArithOp::kSqr,
                         ds::ArithOp::kDiv, ds::ArithOp::kSqrt, ds::ArithOp::kHenon}) {
    std::vector<TypeParam> xs = x;
    if (op == ds::ArithOp::kSqrt)
      for (auto& v : xs) v = abs(v);
    ds::arith_ops_cpu(arith, op, xs.data(), y.data(), host.data(), n);
    ds::arith_ops_cuda(arith, op, xs.data(), y.data(), dev.data(), n);
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < N; ++k)
        ASSERT_EQ(std::memcmp(&host[i].t[k], &dev[i].t[k], sizeof(double)), 0)
            << ds::arith_op_name(op) << " " << hex(xs[i]) << ", " << hex(y[i]);
  }
}

// Prints the measured maxima (used in docs/arith/expansion.md).
class Report : public ::testing::Environment {
 public:
  void TearDown() override {
    std::printf("\n%-18s %10s %16s %14s\n", "op", "checked", "max err/bound", "max err/eps");
    for (auto& [name, s] : stats())
      std::printf("%-18s %10ld %16.3g %14.3g\n", name.c_str(), s.count, s.worst_vs_bound, s.worst_rel_eps);
  }
};
const auto* const kReport = ::testing::AddGlobalTestEnvironment(new Report);

}  // namespace
