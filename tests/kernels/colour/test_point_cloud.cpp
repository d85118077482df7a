// PointCloud (kernels/colour/point_cloud.h): points land in the pixels plot_pixel names, each pixel is
// coloured from its count, points outside the frame (and NaN) are dropped, and the CUDA rasteriser
// gives the CPU's bytes on a Hénon orbit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/henon/henon.h"
#include "kernels/colour/point_cloud.h"
#include "oracle.h"

namespace ds::colour {
namespace {

std::vector<uint8_t> expected(const PlotFrame& f, const std::vector<uint32_t>& counts) {
  std::vector<uint8_t> rgba(counts.size() * 4);
  for (size_t p = 0; p < counts.size(); ++p) density_rgba(counts[p], &rgba[4 * p]);
  return rgba;
}

TEST(PointCloud, PointsLandInTheirPixelsAndCountsSetTheColour) {
  PlotFrame f;
  f.cx = 0.0;
  f.cy = 0.0;
  f.upp = 0.25;  // 4 pixels per unit
  f.width = 8;
  f.height = 6;
  // x = -1 is the left edge (column 0), y = 0.75 the top edge (row 0); y grows upwards.
  std::vector<double> xs = {-1.0, -0.9, 0.99, 0.0, 0.0, 0.0, 0.0, 5.0, std::nan(""), -1.0000001};
  std::vector<double> ys = {0.75, 0.6, -0.74, 0.0, 0.01, 0.2, 0.1, 0.0, 0.0, 0.0};
  PointCloud cloud(Backend::kCpu);
  cloud.set_points(xs, ys);
  EXPECT_EQ(cloud.size(), xs.size());
  std::vector<uint8_t> got;
  cloud.render_rgba_host(f, &got);
  std::vector<uint32_t> counts(48, 0);
  counts[0 * 8 + 0] = 2;  // (-1, 0.75) and (-0.9, 0.6)
  counts[5 * 8 + 7] = 1;  // (0.99, -0.74)
  counts[3 * 8 + 4] = 1;  // (0, 0): v = 3
  counts[2 * 8 + 4] = 3;  // (0, 0.01), (0, 0.2), (0, 0.1): v = 2.96, 2.2, 2.6
  EXPECT_EQ(got, expected(f, counts));
  // Intensity rises with floor(log2 n) and saturates at 16 points.
  uint8_t a[4], b[4], c[4], d[4], e[4];
  density_rgba(0, a);
  density_rgba(1, b);
  density_rgba(3, c);
  density_rgba(16, d);
  density_rgba(1000, e);
  EXPECT_EQ(a[0], 12);
  EXPECT_LT(b[2], c[2]);
  EXPECT_LT(c[2], d[2]);
  EXPECT_EQ(d[2], 255);
  EXPECT_EQ(std::vector<uint8_t>(d, d + 4), std::vector<uint8_t>(e, e + 4));
}

TEST(PointCloud, BadInputIsRefused) {
  PointCloud cloud(Backend::kCpu);
  EXPECT_THROW(cloud.set_points({1.0, 2.0}, {1.0}), std::invalid_argument);
  std::vector<uint8_t> out;
  PlotFrame f;
  f.width = 0;
  EXPECT_THROW(cloud.render_rgba_host(f, &out), std::invalid_argument);
  f.width = 10;
  f.upp = 0;
  EXPECT_THROW(cloud.render_rgba_host(f, &out), std::invalid_argument);
}

TEST(PointCloudDevice, CudaImageEqualsTheCpuImage) {
  DEEPSCOPE_REQUIRE_GPU();
  henon::OrbitParams op;
  op.n_transient = 1000;
  op.n_points = 200000;
  const henon::OrbitResult o = henon::orbit(op);
  ASSERT_EQ(o.xs.size(), 200000u);
  PointCloud cpu(Backend::kCpu), gpu(Backend::kCuda, 0);
  cpu.set_points(o.xs, o.ys);
  gpu.set_points(o.xs, o.ys);
  for (double upp : {0.004, 0.0005}) {
    PlotFrame f;
    f.cx = 0.3;
    f.cy = 0.05;
    f.upp = upp;
    f.width = 640;
    f.height = 400;
    std::vector<uint8_t> a, b;
    cpu.render_rgba_host(f, &a);
    gpu.render_rgba_host(f, &b);
    EXPECT_EQ(a, b) << "units per pixel " << upp;
  }
}

}  // namespace
}  // namespace ds::colour
