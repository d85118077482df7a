// The MPFR oracle (kernels/perturb/oracle.h): agreement with plain binary64 iteration where binary64
// suffices, escalation and untrusted pixels where the precision is capped too low, View::pixel_map,
// and the check of rendered images (a doctored render must fail).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "kernels/mandelbrot/mandelbrot.cuh"
#include "kernels/perturb/perturb.h"
#include "kernels/perturb/oracle.h"
#include "locations.h"

namespace {

using namespace ds;
using namespace ds::mandel;
namespace orc = ds::perturb::oracle;

// Pixel (i, j) iterated in binary64 with mandelbrot.cuh's count and smooth definitions: c from the
// nearest doubles of the centre and s/2.
PixelResult double_pixel(const Geometry& g, const View& v, int i, int j) {
  const double cr = g.re_d + pixel_offset(i, v.width) * g.half_step_d;
  const double ci = g.im_d - pixel_offset(j, v.height) * g.half_step_d;
  double x = cr, y = ci;
  for (uint32_t n = 1; n < v.max_iter; ++n) {
    if (x * x + y * y > 4.0) return {n, smooth_tail(n, x, y, cr, ci)};
    const double t = x * x - y * y + cr;
    y = 2 * x * y + ci;
    x = t;
  }
  return {v.max_iter, static_cast<float>(v.max_iter)};
}

// The seahorse valley at zoom 300: binary64 holds 40 bits below the pixel spacing, so its counts are
// the exact ones (up to the bailout test at |z| = 2 itself).
TEST(Oracle, AgreesWithBinary64AtAShallowView) {
  const View v = test::make_view("-0.7453", "0.1127", "300", 1000, 64, 48);
  const Geometry g = geometry(v);
  const orc::OracleGrid grid = orc::oracle_grid(g, v, 12, {});
  ASSERT_FALSE(grid.cancelled);
  int escaped = 0;
  for (size_t k = 0; k < grid.pixels.size(); ++k) {
    const orc::OraclePixel& p = grid.pixels[k];
    const orc::PixelIndex at = grid.where[k];
    const PixelResult d = double_pixel(g, v, at.i, at.j);
    ASSERT_TRUE(p.trusted()) << at.i << "," << at.j << ": " << orc::status_name(p.status);
    EXPECT_EQ(p.count, d.count) << at.i << "," << at.j;
    EXPECT_NEAR(p.smooth, d.smooth, 1e-3 * (1 + d.smooth)) << at.i << "," << at.j;
    EXPECT_EQ(p.bits, orc::start_bits(g, v));  // nothing to escalate here
    EXPECT_EQ(p.confirm_bits, orc::next_bits(p.bits));
    escaped += p.count < v.max_iter;
  }
  EXPECT_GT(escaped, 20);
  EXPECT_LT(escaped, static_cast<int>(grid.pixels.size()));  // some interior pixels too
}

// The same pixels by the engine's MPFR fallback at generous precision: the oracle's trusted counts.
TEST(Oracle, TrustedCountsMatchGenerousMpfr) {
  const View v = test::make_view(test::kMisiurewiczRe, test::kMisiurewiczIm, "1e20", 3000, 64, 64);
  const Geometry g = geometry(v);
  const orc::OracleGrid grid = orc::oracle_grid(g, v, 4, {});
  for (size_t k = 0; k < grid.pixels.size(); ++k) {
    const orc::OraclePixel& p = grid.pixels[k];
    ASSERT_TRUE(p.trusted()) << orc::status_name(p.status);
    uint64_t count = 0;
    float smooth = 0;
    perturb::direct_pixel(g, v, grid.where[k].i, grid.where[k].j, 600, &count, &smooth);
    EXPECT_EQ(p.count, count);
    EXPECT_NEAR(p.smooth, smooth, 1e-4 * smooth);
  }
}

// 53 bits cannot tell the pixels of a 1e20 view apart: the bound must say so, never return a count.
TEST(Oracle, CappedPrecisionLeavesPixelsUntrusted) {
  const View v = test::make_view(test::kMisiurewiczRe, test::kMisiurewiczIm, "1e20", 3000, 64, 64);
  const Geometry g = geometry(v);
  orc::OracleOptions capped;
  capped.start_bits = 53;
  capped.max_bits = 53;
  for (const orc::PixelIndex at : orc::grid_pixels(v, 3)) {
    const orc::OraclePixel p = orc::oracle_pixel(g, v, at.i, at.j, capped);
    EXPECT_EQ(p.status, orc::Status::kUncertain) << at.i << "," << at.j;
    EXPECT_FALSE(p.trusted());
    EXPECT_EQ(p.runs, 1);
    EXPECT_EQ(p.top_bits, 53);
    EXPECT_GT(p.lost_at, 0u);
    EXPECT_EQ(p.count, 0u);
  }
  // A cap just high enough to certify leaves nothing above it to confirm with.
  orc::OracleOptions at_cap;
  at_cap.start_bits = at_cap.max_bits = orc::start_bits(g, v);
  const orc::OraclePixel q = orc::oracle_pixel(g, v, 32, 32, at_cap);
  EXPECT_EQ(q.status, orc::Status::kUnconfirmed);
  EXPECT_GT(q.count, 0u);
}

// Started too low, the ladder climbs until a run certifies, then confirms one rung higher.
TEST(Oracle, EscalatesFromTooFewBits) {
  const View v = test::make_view(test::kMisiurewiczRe, test::kMisiurewiczIm, "1e20", 3000, 64, 64);
  const Geometry g = geometry(v);
  orc::OracleOptions low;
  low.start_bits = 53;
  const orc::OraclePixel p = orc::oracle_pixel(g, v, 10, 50, low);
  ASSERT_TRUE(p.trusted()) << orc::status_name(p.status);
  EXPECT_GT(p.bits, 53);
  EXPECT_GE(p.runs, 3);  // 53 (uncertain), ..., certified, confirmed
  EXPECT_EQ(p.confirm_bits, orc::next_bits(p.bits));
  const orc::OraclePixel d = orc::oracle_pixel(g, v, 10, 50, {});
  EXPECT_EQ(p.count, d.count);
  // No escalation allowed: uncertain after the one run.
  low.max_escalations = 0;
  EXPECT_EQ(orc::oracle_pixel(g, v, 10, 50, low).status, orc::Status::kUncertain);
}

// A 90-degree rotation of the pixel plane, m = (0, -1, 1, 0): pixel (i, j) of the rotated view is
// pixel (j, W-1-i) of the plain one; centred on the real axis (the set is symmetric under
// conjugation) with W = H = n * odd (the sample grid symmetric), the rotated grid is the transpose.
TEST(Oracle, PixelMapRotationTransposesASymmetricView) {
  View v = test::make_view("-1.768", "0", "40", 400, 40, 40);
  View rot = v;
  const double quarter[4] = {0.0, -1.0, 1.0, 0.0};
  std::copy(quarter, quarter + 4, rot.pixel_map);
  const int n = 8;
  const orc::OracleGrid a = orc::oracle_grid(geometry(v), v, n, {});
  const orc::OracleGrid b = orc::oracle_grid(geometry(rot), rot, n, {});
  int differ = 0;
  for (int l = 0; l < n; ++l)
    for (int k = 0; k < n; ++k) {
      const orc::OraclePixel& p = a.pixels[static_cast<size_t>(l) * n + k];
      const orc::OraclePixel& q = b.pixels[static_cast<size_t>(k) * n + l];
      ASSERT_TRUE(p.trusted() && q.trusted());
      EXPECT_EQ(p.count, q.count) << k << "," << l;
      EXPECT_EQ(p.smooth, q.smooth) << k << "," << l;
      differ += p.count != b.pixels[static_cast<size_t>(l) * n + k].count;
    }
  EXPECT_GT(differ, 10) << "the rotation changed nothing: the test would not see a missing pixel_map";

  // Off the axis: rotated (i, j) is plain (j, W-1-i), pixel for pixel.
  View off = test::make_view("-0.7453", "0.1127", "300", 600, 24, 24);
  View off_rot = off;
  std::copy(quarter, quarter + 4, off_rot.pixel_map);
  const Geometry go = geometry(off), gr = geometry(off_rot);
  for (const orc::PixelIndex at : orc::grid_pixels(off, 4)) {
    const orc::OraclePixel p = orc::oracle_pixel(gr, off_rot, at.i, at.j, {});
    const orc::OraclePixel q = orc::oracle_pixel(go, off, at.j, off.width - 1 - at.i, {});
    EXPECT_EQ(p.count, q.count);
    EXPECT_EQ(p.smooth, q.smooth);
  }
}

TEST(Oracle, RefusesPixelsAndGridsOutsideTheImage) {
  const View v = test::make_view("-0.5", "0", "1", 50, 16, 8);
  const Geometry g = geometry(v);
  EXPECT_THROW(orc::oracle_pixel(g, v, 16, 0, {}), ViewError);
  EXPECT_THROW(orc::oracle_pixel(g, v, 0, -1, {}), ViewError);
  EXPECT_THROW(orc::oracle_grid(g, v, 9, {}), ViewError);
  EXPECT_THROW(orc::oracle_grid(g, v, 0, {}), ViewError);
  EXPECT_EQ(orc::grid_index(0, 4, 16), 2);
  EXPECT_EQ(orc::grid_index(3, 4, 16), 14);
}

TEST(Oracle, CancelStopsAtOnce) {
  const View v = test::make_view("-0.1", "0", "1", 100000000, 16, 16);  // interior: 1e8 steps
  std::atomic<bool> stop{true};
  orc::OracleOptions o;
  o.cancel = &stop;
  const orc::OraclePixel p = orc::oracle_pixel(geometry(v), v, 8, 8, o);
  EXPECT_EQ(p.status, orc::Status::kCancelled);
}

// verify_render: a direct render passes; the same render with counts changed by 2 fails, by 1 is
// "within one".
TEST(Oracle, VerifyCatchesADoctoredRender) {
  const View v = test::make_view("-0.7453", "0.1127", "300", 1000, 48, 32);
  RenderOptions ro;
  ro.backend = Backend::kCpu;
  ro.arith = Arith::kF64;
  RenderResult r = render(v, ro);
  orc::VerifyOptions o;
  o.samples = 11;  // a 3x3 grid and 2 random pixels
  o.seed = 12345;
  const orc::VerifyReport ok = orc::verify_render(v, r, o);
  EXPECT_EQ(ok.samples, 11);
  EXPECT_EQ(ok.grid, 3);
  EXPECT_EQ(ok.agree + ok.within_one + ok.untrusted, 11);
  EXPECT_FALSE(ok.failed());
  EXPECT_NE(ok.summary().find("/11 sampled pixels agree with MPFR"), std::string::npos) << ok.summary();

  const std::vector<orc::PixelIndex> where = orc::verify_pixels(v, 11, 12345);
  ASSERT_EQ(where.size(), 11u);
  EXPECT_EQ(where[9].i, orc::verify_pixels(v, 11, 12345)[9].i);  // the seed replays
  r.counts[static_cast<size_t>(where[4].j) * v.width + where[4].i] += 2;
  r.counts[static_cast<size_t>(where[0].j) * v.width + where[0].i] += 1;
  const orc::VerifyReport bad = orc::verify_render(v, r, o);
  EXPECT_TRUE(bad.failed());
  EXPECT_EQ(bad.wrong, 1);
  EXPECT_GE(bad.within_one, 1);
  EXPECT_NE(bad.summary().find("differ by more than 1"), std::string::npos);
  EXPECT_NE(bad.metadata().find("result = wrong"), std::string::npos);

  RenderResult part = r;
  part.counts.clear();
  EXPECT_THROW(orc::verify_render(v, part, o), std::invalid_argument);
}

}  // namespace
