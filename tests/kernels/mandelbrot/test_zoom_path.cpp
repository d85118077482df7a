// pixel_of (point_at's inverse) and zoom_path, the animated zoom's views (kernels/mandelbrot/navigate.h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/mandelbrot/navigate.h"

namespace ds::mandel {
namespace {

View view(const std::string& re, const std::string& im, const std::string& zoom) {
  View v;
  v.re = re;
  v.im = im;
  v.zoom = zoom;
  v.width = 800;
  v.height = 600;
  v.max_iter = 500;
  return v;
}

TEST(PixelOf, InvertsPointAtShallowAndDeep) {
  for (const View& v : {view("-0.75", "0.1", "3"), view("-1.76877883427286", "0.0017396718570", "1e300")}) {
    for (auto [x, y] : {std::pair<double, double>{400, 300}, {13.25, 590.5}, {799, 0}}) {
      std::string re, im;
      point_at(v, x, y, &re, &im);
      double px = 0, py = 0;
      ASSERT_TRUE(pixel_of(v, re, im, &px, &py)) << v.zoom;
      EXPECT_NEAR(px, x, 1e-6) << v.zoom;
      EXPECT_NEAR(py, y, 1e-6) << v.zoom;
    }
  }
}

TEST(PixelOf, RejectsFarAndMalformed) {
  const View v = view("0", "0", "1e30");
  double x, y;
  EXPECT_FALSE(pixel_of(v, "1", "0", &x, &y));  // 1e30 * 600 / 4 pixels away
  EXPECT_FALSE(pixel_of(v, "0.x", "0", &x, &y));
  EXPECT_FALSE(pixel_of(v, "", "0", &x, &y));
}

// The path: log zoom moves linearly, the target moves linearly on the screen to the centre, and the
// last view is the target itself.
TEST(ZoomPath, LinearInLogZoomAndScreenPlace) {
  const View from = view("-0.75", "0", "1");
  std::string re, im;
  point_at(from, 600, 150, &re, &im);
  View to = view(re, im, "1e12");
  to.max_iter = 9000;
  const int n = 12;
  const std::vector<View> path = zoom_path(from, to, n);
  ASSERT_EQ(path.size(), static_cast<size_t>(n));
  EXPECT_EQ(path.back().re, to.re);
  EXPECT_EQ(path.back().zoom, to.zoom);
  EXPECT_EQ(path.back().max_iter, 9000u);
  for (int i = 1; i < n; ++i) {
    const View& v = path[static_cast<size_t>(i - 1)];
    EXPECT_NEAR(std::log10(std::stod(v.zoom)), 12.0 * i / n, 1e-9) << i;
    EXPECT_EQ(v.max_iter, 500u);
    double x = 0, y = 0;
    ASSERT_TRUE(pixel_of(v, to.re, to.im, &x, &y)) << i;
    EXPECT_NEAR(x, 400 + 200.0 * (n - i) / n, 1e-3) << i;
    EXPECT_NEAR(y, 300 - 150.0 * (n - i) / n, 1e-3) << i;
  }
}

TEST(ZoomPath, HugeRatiosTakeMoreFrames) {
  const View from = view("-1.5", "0", "1");
  const View to = view("-1.5", "0", "1e1000");  // 3322 octaves: 7 frames of at most 2^512
  const std::vector<View> path = zoom_path(from, to, 4);
  EXPECT_EQ(path.size(), 7u);
  EXPECT_THROW(zoom_path(view("0", "0", "1e30"), view("1", "0", "1e31"), 4), ViewError);
}

}  // namespace
}  // namespace ds::mandel
