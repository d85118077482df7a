// Brent's periodicity check in the hardware formats (mandelbrot.cuh, MandelParams::periodicity):
// an orbit whose computed z repeats exactly at two block ends is stopped with count max_iter, the
// result iterating to the limit gives, since the computed orbit then cycles forever. Interior
// pixels of 10^12 iterations finish in a few thousand steps; images equal those without the check.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "kernels/mandelbrot/mandelbrot.cuh"
#include "kernels/mandelbrot/mandelbrot.h"
#include "locations.h"
#include "pixel_state.h"

namespace {

using namespace ds;
using namespace ds::mandel;

// Starts pixel (c) and runs at most `budget` steps; true when it finished.
template <class F>
bool finishes_within(F cr, F ci, uint64_t max_iter, uint64_t budget, bool periodicity, PixelResult* out) {
  MandelParams<Native<F>> p{};
  p.max_iter = max_iter;
  p.periodicity = periodicity;
  PixelState<Native<F>> s = ds::test::started_pixel(Native<F>{cr}, Native<F>{ci});
  const bool done = pixel_run(p, s, budget);
  *out = pixel_end(p, s);
  return done;
}

template <class F>
void interior_points_stop_early() {
  // The main cardioid, the period-2 and period-3 bulbs, a point near a cardioid cusp of the
  // period-3 minibrot: attracting cycles of period 1, 2, 3 and 3.
  const std::vector<std::pair<double, double>> cs = {{-0.1, 0.1}, {-1.0, 0.05}, {-0.12, 0.74}, {-1.754, 0.0}};
  for (const auto& c : cs) {
    PixelResult r;
    EXPECT_TRUE(finishes_within<F>(F(c.first), F(c.second), uint64_t{1} << 40, 1000000, true, &r))
        << c.first << " " << c.second;
    EXPECT_EQ(r.count, uint64_t{1} << 40);
    // Without the check the same budget leaves the pixel unfinished.
    EXPECT_FALSE(finishes_within<F>(F(c.first), F(c.second), uint64_t{1} << 40, 1000000, false, &r));
  }
  // An escaping point is untouched by the check: the same count either way.
  PixelResult a, b;
  ASSERT_TRUE(finishes_within<F>(F(-0.75), F(0.05), 1000000, 1000000, true, &a));
  ASSERT_TRUE(finishes_within<F>(F(-0.75), F(0.05), 1000000, 1000000, false, &b));
  EXPECT_EQ(a.count, b.count);
  EXPECT_LT(a.count, 1000000u);
}

TEST(Periodicity, F64InteriorPixelsStopEarly) { interior_points_stop_early<double>(); }
TEST(Periodicity, F32InteriorPixelsStopEarly) { interior_points_stop_early<float>(); }

// Whole images (the seahorse valley and the period-2 bulb's edge, 10^6 iterations) in f32 and
// f64: counts and smooth counts equal those of the render without the check (--no-interior).
TEST(Periodicity, ImagesEqualTheRenderWithoutTheCheck) {
  for (const Arith a : {Arith::kF64, Arith::kF32}) {
    for (const auto& c : {std::pair<const char*, const char*>{"-0.7453", "0.1127"}, {"-1.0", "0.245"}}) {
      const char* re = c.first;
      const View v = ds::test::make_view(re, c.second, a == Arith::kF32 ? "30" : "300", 1000000, 48, 32);
      RenderOptions o;
      o.backend = Backend::kCpu;
      o.arith = a;
      const RenderResult with = render(v, o);
      o.interior = false;
      const RenderResult without = render(v, o);
      EXPECT_EQ(with.counts, without.counts) << arith_name(a) << " " << re;
      EXPECT_EQ(with.smooth, without.smooth) << arith_name(a) << " " << re;
    }
  }
}

}  // namespace
