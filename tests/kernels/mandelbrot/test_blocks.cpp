// The hardware formats' blocked escape loop (pixel_run: steps without a test, one test per
// block, a failed block run again step by step) against testing every step: the same counts and
// the same final z, bit for bit, on grids, on random points near the boundary, and on the cases
// the block argument is about (c = -2 and its neighbours, |c| = 2, orbits that escape barely);
// with the error estimate, also the same undecided pixels and the same estimate.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "kernels/mandelbrot/mandelbrot.cuh"
#include "pixel_state.h"

namespace {

using namespace ds;
using namespace ds::mandel;

template <class F>
struct Outcome {
  uint32_t n;
  bool escaped;
  F x, y;
};

// Every step tested: the definition pixel_run must reproduce.
template <class F>
Outcome<F> stepwise(F cr, F ci, uint32_t max_iter) {
  Native<F> x, y, c_r, c_i;
  x.v = cr;
  y.v = ci;
  c_r.v = cr;
  c_i.v = ci;
  uint32_t n = 1;
  for (; n < max_iter; ++n)
    if (escape_or_step(x, y, c_r, c_i)) return {n, true, x.v, y.v};
  return {n, false, x.v, y.v};
}

template <class F>
Outcome<F> blocked(F cr, F ci, uint32_t max_iter, uint32_t budget) {
  MandelParams<Native<F>> p{};
  p.max_iter = max_iter;
  PixelState<Native<F>> s = test::started_pixel(Native<F>{cr}, Native<F>{ci});
  while (!pixel_run(p, s, budget)) {
  }
  return {static_cast<uint32_t>(s.n), s.escaped, s.x.v, s.y.v};  // max_iter < 2^32 here
}

template <class F>
bool same_bits(F a, F b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

template <class F>
void expect_same(F cr, F ci, uint32_t max_iter, uint32_t budget, int* escaped) {
  const Outcome<F> a = stepwise(cr, ci, max_iter);
  const Outcome<F> b = blocked(cr, ci, max_iter, budget);
  ASSERT_EQ(a.n, b.n) << "c = " << cr << " + " << ci << "i, budget " << budget;
  ASSERT_EQ(a.escaped, b.escaped) << "c = " << cr << " + " << ci << "i";
  ASSERT_TRUE(same_bits(a.x, b.x) && same_bits(a.y, b.y)) << "c = " << cr << " + " << ci << "i";
  *escaped += a.escaped;
}

// The c values: a grid over the set, random points in a thin annulus around the boundary of the
// main cardioid and the period-2 disc, the real axis next to -2, and points on and inside |c| = 2.
template <class F>
std::vector<std::pair<F, F>> points() {
  std::vector<std::pair<F, F>> c;
  for (int j = 0; j < 120; ++j)
    for (int i = 0; i < 160; ++i) c.push_back({F(-2.1 + 2.8 * i / 159), F(-1.2 + 2.4 * j / 119)});
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> t(0, 2 * M_PI), d(-1e-3, 1e-3);
  for (int k = 0; k < 3000; ++k) {
    const double th = t(rng);
    const double mr = 0.5 * std::cos(th) - 0.25 * std::cos(2 * th), mi = 0.5 * std::sin(th) - 0.25 * std::sin(2 * th);
    c.push_back({F(mr + d(rng)), F(mi + d(rng))});
    c.push_back({F(-1 + 0.25 * std::cos(th) + d(rng)), F(0.25 * std::sin(th) + d(rng))});
  }
  F r = F(-2);
  for (int k = 0; k < 200; ++k, r = std::nextafter(r, F(0))) {
    c.push_back({r, F(0)});
    c.push_back({r, std::nextafter(F(0), F(1)) * F(k)});
  }
  for (int k = 0; k < 400; ++k) {
    const double th = 2 * M_PI * k / 400;
    c.push_back({F(2 * std::cos(th)), F(2 * std::sin(th))});
    c.push_back({F(1.999 * std::cos(th)), F(1.999 * std::sin(th))});
  }
  return c;
}

// Returns how many of the points escaped (with the whole budget).
template <class F>
int check_all(uint32_t max_iter) {
  int escaped = 0, count = 0;
  for (const auto& [cr, ci] : points<F>()) {
    if (static_cast<double>(cr) * cr + static_cast<double>(ci) * ci > 4.0) continue;  // pixel_begin's pre-test
    int ignored = 0;
    expect_same(cr, ci, max_iter, max_iter, &escaped);
    for (uint32_t budget : {16u, 5u}) expect_same(cr, ci, max_iter, budget, &ignored);
    ++count;
  }
  EXPECT_GT(count, 20000);
  return escaped;
}

template <class F>
void check_varied() {
  const int escaped = check_all<F>(1000);
  EXPECT_GT(escaped, 5000);   // plenty of escapes, at every position in a block
  EXPECT_LT(escaped, 20000);  // and plenty of points that stay
}

// With the error estimate (mandelbrot.cuh, bounded_step): the blocked loop must give the same
// count, the same outcome (escaped, undecided or neither), the same z and the same estimate as
// testing every step with bounded_step. q and e1 as given: the format's own (make_params), and
// inflated so that many pixels become undecided, at every position in a block.
struct Bounded {
  uint64_t n;
  int state;  // kStepped (reached max_iter), kEscaped, kUndecided
  double x, y, e2;
};

template <class F>
Bounded bounded_stepwise(F cr, F ci, uint32_t max_iter, double q, double e1) {
  Native<F> x, y, c_r, c_i;
  x.v = cr;
  y.v = ci;
  c_r.v = cr;
  c_i.v = ci;
  double e2 = e1;
  uint32_t n = 1;
  for (; n < max_iter; ++n) {
    const int st = bounded_step(x, y, c_r, c_i, e2, q);
    if (st != kStepped) return {n, st, x.v, y.v, e2};
  }
  return {n, kStepped, x.v, y.v, e2};
}

template <class F>
Bounded bounded_blocked(F cr, F ci, uint32_t max_iter, uint32_t budget, double q, double e1) {
  MandelParams<Native<F>> p{};
  p.max_iter = max_iter;
  p.error_bound = true;
  p.bound_q = q;
  p.bound_e1 = e1;
  PixelState<Native<F>> s = test::started_pixel(Native<F>{cr}, Native<F>{ci}, e1);
  while (!pixel_run(p, s, budget)) {
  }
  EXPECT_FALSE(s.escaped && s.undecided);
  return {s.n, s.escaped ? kEscaped : s.undecided ? kUndecided : kStepped, s.x.v, s.y.v, s.e2};
}

// Returns {escaped, undecided} counts over the points.
template <class F>
std::pair<int, int> check_bounded(uint32_t max_iter, double q, double e1) {
  int escaped = 0, undecided = 0;
  for (const auto& [cr, ci] : points<F>()) {
    if (static_cast<double>(cr) * cr + static_cast<double>(ci) * ci > 4.0) continue;
    const Bounded a = bounded_stepwise(cr, ci, max_iter, q, e1);
    for (uint32_t budget : {max_iter, 16u, 5u}) {
      const Bounded b = bounded_blocked(cr, ci, max_iter, budget, q, e1);
      EXPECT_EQ(a.n, b.n) << "c = " << cr << " + " << ci << "i, budget " << budget;
      EXPECT_EQ(a.state, b.state) << "c = " << cr << " + " << ci << "i, budget " << budget;
      EXPECT_TRUE(same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.e2, b.e2))
          << "c = " << cr << " + " << ci << "i, budget " << budget;
      if (::testing::Test::HasFailure()) return {escaped, undecided};
    }
    escaped += a.state == kEscaped;
    undecided += a.state == kUndecided;
  }
  return {escaped, undecided};
}

template <class F>
void check_bounded_varied() {
  const double u = Native<F>::traits().eps;
  // The format's own estimate: few undecided pixels.
  const auto own = check_bounded<F>(1000, (24 * u) * (24 * u), (16 * u) * (16 * u));
  EXPECT_GT(own.first, 5000);
  std::cout << Native<F>::traits().name << ", own estimate: " << own.first << " escaped, " << own.second
            << " undecided\n";
  // Inflated (to sqrt(u) 2^-6: 2^20.5 u for f64, 2^6 u for f32): many undecided pixels, decided
  // within blocks and across them.
  const double big = std::sqrt(u) * 0x1p-6;
  const auto inflated = check_bounded<F>(1000, (24 * big) * (24 * big), (16 * big) * (16 * big));
  std::cout << "inflated: " << inflated.first << " escaped, " << inflated.second << " undecided\n";
  EXPECT_GT(inflated.second, 1000);
  EXPECT_GT(inflated.first, 1000);
}

TEST(MandelbrotBlocks, F64BlockedLoopWithTheErrorEstimateEqualsTestingEveryStep) {
  check_bounded_varied<double>();
}
TEST(MandelbrotBlocks, F32BlockedLoopWithTheErrorEstimateEqualsTestingEveryStep) {
  check_bounded_varied<float>();
}

TEST(MandelbrotBlocks, F64BlockedLoopEqualsTestingEveryStep) { check_varied<double>(); }
TEST(MandelbrotBlocks, F32BlockedLoopEqualsTestingEveryStep) { check_varied<float>(); }
TEST(MandelbrotBlocks, ShortRunsAndOddLimits) {
  for (uint32_t m : {2u, 3u, 9u, 17u, 33u}) {
    check_all<double>(m);
    check_all<float>(m);
  }
}

}  // namespace
