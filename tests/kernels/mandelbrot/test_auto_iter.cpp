// KF's auto-iterations (kernels/mandelbrot/auto_iter.h): the period rule, the statistics of a frame's
// counts, and when a render's limit is raised.
#include <gtest/gtest.h>

#include "kernels/mandelbrot/auto_iter.h"
#include "kernels/mandelbrot/mandelbrot.h"

namespace ds::mandel {
namespace {

TEST(AutoIter, PeriodSetsSixtyFourPeriodsNeverLower) {
  EXPECT_EQ(auto_iterations_for_period(1000, 3), 1000u);
  EXPECT_EQ(auto_iterations_for_period(1000, 100), 6400u);
  EXPECT_EQ(auto_iterations_for_period(1000, 567135), 36296640u);
  EXPECT_EQ(auto_iterations_for_period(1000, 4000000000u), kAutoIterCap);
  EXPECT_EQ(auto_iterations_for_period(kAutoIterCap + 5, 4000000000u), kAutoIterCap + 5);  // never lowered
}

TEST(AutoIter, StatsCountTheLimitAndTheLateEscapes) {
  const std::vector<uint32_t> counts{5, 100, 100, 99, 7, 100, 88, 87};
  const IterationStats s = iteration_stats(counts, 100, 2, true);
  EXPECT_EQ(s.pixels, 8u);
  EXPECT_EQ(s.at_limit, 3u);
  EXPECT_EQ(s.interior, 2u);
  EXPECT_EQ(s.late, 2u);  // 99 and 88: [88, 100)
  // More interior claimed than pixels at the limit: clamped.
  EXPECT_EQ(iteration_stats(counts, 100, 10, true).interior, 3u);
}

TEST(AutoIter, InteriorKnownRaisesOnUnresolvedShare) {
  IterationStats s;
  s.pixels = 100000;
  s.interior = 40000;
  s.interior_known = true;
  s.at_limit = 40000 + 50;  // 50 of 60000 open pixels: under 0.1%
  s.late = 5000;            // not a reason where interior is proven
  EXPECT_EQ(auto_iterations_after_render(1000, s).max_iter, 1000u);
  EXPECT_TRUE(auto_iterations_after_render(1000, s).reason.empty());
  s.at_limit = 40000 + 61;  // over 0.1%
  const AutoIterDecision d = auto_iterations_after_render(1000, s);
  EXPECT_EQ(d.max_iter, 2000u);
  EXPECT_NE(d.reason.find("61 of 60000"), std::string::npos) << d.reason;
  EXPECT_EQ(auto_iterations_after_render(kAutoIterCap - 1, s).max_iter, kAutoIterCap);
  EXPECT_EQ(auto_iterations_after_render(kAutoIterCap, s).max_iter, kAutoIterCap);
}

TEST(AutoIter, InteriorUnknownRaisesOnLateEscapes) {
  IterationStats s;
  s.pixels = 100000;
  s.at_limit = 60000;  // may all be interior: not a reason by itself
  s.late = 100;        // 0.1%: not more than the share
  EXPECT_EQ(auto_iterations_after_render(1000, s).max_iter, 1000u);
  s.late = 101;
  const AutoIterDecision d = auto_iterations_after_render(1000, s);
  EXPECT_EQ(d.max_iter, 2000u);
  EXPECT_NE(d.reason.find("101 of 100000"), std::string::npos) << d.reason;
}

// The rule on real frames: the seahorse valley at 100 iterations has many escapes near the limit
// and is raised; the whole set at 1000 is not.
TEST(AutoIter, RealFrames) {
  View v;
  v.width = v.height = 64;
  v.re = "-0.743643887037151";
  v.im = "0.13182590420533";
  v.zoom = "100000";
  v.max_iter = 100;
  RenderResult r = render(v, RenderOptions{});
  EXPECT_EQ(
      auto_iterations_after_render(v.max_iter, iteration_stats(r.counts, v.max_iter, 0, false)).max_iter,
      200u);
  v.re = "-0.5";
  v.im = "0";
  v.zoom = "1";
  v.max_iter = 1000;
  r = render(v, RenderOptions{});
  const IterationStats s = iteration_stats(r.counts, v.max_iter, 0, false);
  EXPECT_GT(s.at_limit, 0u);
  EXPECT_EQ(auto_iterations_after_render(v.max_iter, s).max_iter, 1000u) << s.late;
}

}  // namespace
}  // namespace ds::mandel
