// The direct formats' error estimate (mandelbrot.cuh; docs/mandelbrot.md, "Undecided pixels"): the
// views where f64 gave silently wrong counts (tests/data/mandelbrot/direct-undecided.txt, MPFR
// oracle counts), the wider-format ladder, and a pixel that no format decides.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/core/device.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/mandelbrot/recheck.h"
#include "locations.h"

namespace {

using namespace ds;
using namespace ds::mandel;

struct OracleView {
  std::string seed;
  View view;
  std::vector<uint64_t> mpfr;  // row-major, 32x32
};

std::vector<OracleView> oracle_views() {
  std::ifstream in(std::string(DEEPSCOPE_TEST_DATA) + "/mandelbrot/direct-undecided.txt");
  EXPECT_TRUE(in.good()) << "no tests/data/mandelbrot/direct-undecided.txt";
  std::vector<OracleView> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '%') continue;
    std::istringstream s(line);
    if (line.rfind("view ", 0) == 0) {
      OracleView o;
      std::string word;
      s >> word >> o.seed >> o.view.re >> o.view.im >> o.view.zoom >> o.view.max_iter;
      o.view.width = o.view.height = 32;
      out.push_back(o);
      continue;
    }
    for (uint64_t c; s >> c;) out.back().mpfr.push_back(c);
  }
  for (const OracleView& o : out) EXPECT_EQ(o.mpfr.size(), 1024u) << "view " << o.seed;
  return out;
}

RenderResult render_f64(const View& v, bool bound, unsigned fields = 0) {
  RenderOptions o;
  o.arith = Arith::kF64;
  o.backend = Backend::kCpu;
  o.error_bound = bound;
  o.fields = fields;
  return render(v, o);
}

// Without the estimate, f64 gets pixels wrong by more than one (the failure the file records);
// with it, those pixels are undecided in f64, decided in a wider format, and every pixel of the
// image equals MPFR's count.
TEST(ErrorBound, F64PixelsThatWereSilentlyWrongEqualMpfr) {
  const std::vector<OracleView> views = oracle_views();
  ASSERT_EQ(views.size(), 3u);
  for (const OracleView& o : views) {
    const RenderResult plain = render_f64(o.view, false);
    int wrong = 0;
    for (std::size_t k = 0; k < 1024; ++k) {
      const uint64_t c = plain.count(k), m = o.mpfr[k];
      wrong += (c > m ? c - m : m - c) > 1;
    }
    EXPECT_GE(wrong, 1) << "seed " << o.seed << ": f64 without the estimate is no longer wrong here";
    EXPECT_EQ(plain.perturb.glitch_pixels, 0u);

    const RenderResult r = render_f64(o.view, true);
    EXPECT_EQ(r.arith, Arith::kF64);
    int differ = 0;
    for (std::size_t k = 0; k < 1024; ++k) {
      EXPECT_EQ(r.count(k), o.mpfr[k]) << "seed " << o.seed << " pixel (" << k % 32 << ", " << k / 32 << ")";
      differ += r.count(k) != plain.count(k);
    }
    EXPECT_GE(r.perturb.glitch_pixels, static_cast<uint64_t>(wrong)) << "seed " << o.seed;
    EXPECT_EQ(r.perturb.glitch_corrected, r.perturb.glitch_pixels) << "seed " << o.seed;
    EXPECT_EQ(r.perturb.glitch_unresolved, 0u);
    EXPECT_FALSE(r.recheck.empty());
    // Only undecided pixels may change: the estimate does not move the orbit.
    EXPECT_LE(static_cast<uint64_t>(differ), r.perturb.glitch_pixels);
    std::cout << "seed " << o.seed << ": " << wrong << " pixels wrong without the estimate; with it "
              << r.perturb.glitch_pixels << " undecided, decided in " << r.recheck << "\n";

    // The fields' path (field_pixel) decides the same pixels the same way.
    const RenderResult f = render_f64(o.view, true, kFieldDistance);
    for (std::size_t k = 0; k < 1024; ++k)
      ASSERT_EQ(f.count(k), r.count(k)) << "seed " << o.seed << " k " << k;
    EXPECT_EQ(f.perturb.glitch_pixels, r.perturb.glitch_pixels);
  }
}

RenderResult render_point(const std::string& re, uint64_t max_iter, bool bound = true) {
  View v;
  v.re = re;
  v.im = "0";
  v.zoom = "1e6";
  v.width = v.height = 1;
  v.max_iter = max_iter;
  RenderOptions o;
  o.arith = Arith::kF64;
  o.backend = Backend::kCpu;
  o.error_bound = bound;
  return render(v, o);
}

// c = -2 exactly (a 1x1 view centred there): z_n = 2 from n = 2 on, so |z|^2 = 4 at every step, which
// no estimate can call on either side of 4; c = 1: |z_2|^2 = 4 exactly, then z_3 = 5. Every format
// leaves them undecided, and the exact orbit's rung (no operation rounds) decides them: MPFR's
// counts, max_iter and 3.
TEST(ErrorBound, ExactOrbitsAreDecidedExactly) {
  const RenderResult a = render_point("-2", 100);
  EXPECT_EQ(a.count(0), 100u);
  EXPECT_EQ(a.perturb.glitch_pixels, 1u);
  EXPECT_EQ(a.perturb.glitch_corrected, 1u);
  EXPECT_EQ(a.perturb.glitch_unresolved, 0u);
  EXPECT_EQ(a.recheck, "exact orbit 1");
  const RenderResult b = render_point("1", 100);
  EXPECT_EQ(b.count(0), 3u);
  EXPECT_EQ(b.perturb.glitch_pixels, 1u);
  EXPECT_EQ(b.recheck, "exact orbit 1");
  EXPECT_EQ(b.smooth[0], render_point("1", 100, false).smooth[0]);
}

// c = -(2 + 10^-401): |c| > 2, so the count is 1, but every format rounds c to -2 (limb32 resolves
// 2^-992, about 10^-299) and the exact rung cannot hold c in 1024 bits: the pixel stays undecided,
// count 0, counted as unresolved, never a count.
TEST(ErrorBound, APixelNoFormatDecidesStaysUnresolved) {
  const std::string re = "-2." + std::string(400, '0') + "1";
  const RenderResult r = render_point(re, 100);
  EXPECT_EQ(r.count(0), 0u);
  EXPECT_EQ(r.perturb.glitch_pixels, 1u);
  EXPECT_EQ(r.perturb.glitch_corrected, 0u);
  EXPECT_EQ(r.perturb.glitch_unresolved, 1u);
  EXPECT_EQ(r.iterations, 0u);
  // Without the estimate, the count that f64 computes (c rounds to -2: |z|^2 = 4 is not > 4).
  EXPECT_EQ(render_point(re, 100, false).count(0), 100u);
}

// The ladder: twice the precision, cheapest first; none beyond the most precise format.
TEST(ErrorBound, WiderFormatsDoubleThePrecision) {
  const View v = ds::test::make_view("-0.75", "0.1", "100", 1000, 64, 64);  // View's default max_iter
  const Geometry g = geometry(v);
  std::vector<Arith> ladder;
  for (std::optional<Arith> a = Arith::kF32; a; a = detail::wider_arith(*a, g)) ladder.push_back(*a);
  ASSERT_GE(ladder.size(), 5u);
  EXPECT_EQ(ladder[1], Arith::kF64);
  EXPECT_EQ(ladder[2], Arith::kF64x2);
  for (std::size_t k = 1; k < ladder.size(); ++k) {
    const FormatTraits a = arith_traits(ladder[k - 1]), b = arith_traits(ladder[k]);
    EXPECT_LT(b.eps, a.eps) << b.name;
  }
  std::string names;
  for (Arith a : ladder) names += std::string(arith_name(a)) + " ";
  std::cout << "ladder: " << names << "\n";
}

// Default options on a plain view (auto: f64): few pixels undecided (0.46% here: orbits that linger
// near the boundary until their estimate reaches the escape test), all decided by f64x2, and only
// they may change; the others keep f64's count and smooth count bit for bit.
TEST(ErrorBound, PlainViewChangesOnlyItsUndecidedPixels) {
  const View v = ds::test::make_view("-0.75", "0.1", "100", 1000, 64, 64);
  RenderOptions o;
  o.backend = Backend::kCpu;
  const RenderResult r = render(v, o);
  EXPECT_EQ(r.method, Method::kDirect);
  EXPECT_EQ(r.arith, Arith::kF64);
  EXPECT_GT(r.perturb.glitch_pixels, 0u);
  EXPECT_LT(r.perturb.glitch_pixels, 64u * 64u / 100u);
  EXPECT_EQ(r.perturb.glitch_unresolved, 0u);
  o.error_bound = false;
  const RenderResult plain = render(v, o);
  uint64_t changed = 0;
  for (std::size_t k = 0; k < plain.counts.size(); ++k)
    changed += r.count(k) != plain.count(k) || r.smooth[k] != plain.smooth[k];
  EXPECT_LE(changed, r.perturb.glitch_pixels);
  std::cout << r.perturb.glitch_pixels << " undecided (" << r.recheck << "), " << changed << " changed\n";
}

// auto's margin grows with the iteration limit: a view f64 resolves with 24 guard bits goes to a
// wider format or perturbation once the limit asks for more.
TEST(ErrorBound, AutoConsidersTheIterationLimit) {
  EXPECT_EQ(iteration_guard_bits(0), 0);
  EXPECT_EQ(iteration_guard_bits(1), 0);
  EXPECT_EQ(iteration_guard_bits(1000), 5);
  EXPECT_EQ(iteration_guard_bits(100000), 9);
  EXPECT_EQ(iteration_guard_bits(10000000), 12);
  View v;
  v.re = "-0.75";
  v.im = "0.1";
  v.width = v.height = 32;
  // f64's limit at height 32 with 24 guard bits: zoom 2^25 = 3.4e7; with 24 + 9 bits (1e5
  // iterations) 2^16 = 6.6e4.
  v.zoom = "1e6";
  const Geometry g = geometry(v);
  RenderOptions o;
  EXPECT_EQ(select_arith(g, o), Arith::kF64);
  EXPECT_EQ(select_method(g, o, 0), Method::kDirect);
  EXPECT_NE(select_arith(g, o, 100000), Arith::kF64);
  EXPECT_EQ(select_method(g, o, 100000), Method::kPerturb);
  v.zoom = "1e4";
  EXPECT_EQ(select_arith(geometry(v), o, 100000), Arith::kF64);
  EXPECT_EQ(select_method(geometry(v), o, 100000), Method::kDirect);
}

// Device section: CUDA runs the same per-pixel estimate (mandel_pixel, the refill loop, the
// fields' kernel, coop.cuh for limb formats), so it leaves the same pixels undecided and render()
// re-decides them the same way: counts, smooth counts and the counters equal the CPU's, in f64
// and f32 (blocks), f64x2 (the generic loop) and limb4 (thread per pixel and cooperative).
TEST(ErrorBoundDevice, CudaFlagsAndDecidesTheCpusPixels) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the device section is skipped";
  std::vector<View> views;
  for (const OracleView& o : oracle_views()) views.push_back(o.view);
  View plain;
  plain.re = "-0.75";
  plain.im = "0.1";
  plain.zoom = "100";
  plain.width = plain.height = 128;
  views.push_back(plain);
  for (const View& v : views)
    for (Arith a : {Arith::kF64, Arith::kF32, Arith::kF64x2, Arith::kLimb4})
      for (LimbStrategy ls : {LimbStrategy::kThreadPerPixel, LimbStrategy::kCooperative}) {
        if (ls == LimbStrategy::kCooperative && a != Arith::kLimb4) continue;
        RenderOptions o;
        o.arith = a;
        o.check_resolution = false;
        o.backend = Backend::kCpu;
        const RenderResult cpu = render(v, o);
        o.backend = Backend::kCuda;
        o.limb_strategy = ls;
        const RenderResult gpu = render(v, o);
        const std::string what = std::string(arith_name(a)) + " " + limb_strategy_name(ls) + " at " + v.re;
        EXPECT_EQ(gpu.counts, cpu.counts) << what;
        EXPECT_EQ(gpu.perturb.glitch_pixels, cpu.perturb.glitch_pixels) << what;
        EXPECT_EQ(gpu.perturb.glitch_corrected, cpu.perturb.glitch_corrected) << what;
        EXPECT_EQ(gpu.perturb.glitch_unresolved, cpu.perturb.glitch_unresolved) << what;
        EXPECT_EQ(gpu.recheck, cpu.recheck) << what;
        for (std::size_t k = 0; k < cpu.smooth.size(); ++k)
          ASSERT_NEAR(gpu.smooth[k], cpu.smooth[k], 1e-3) << what << " pixel " << k;
      }
}

}  // namespace
