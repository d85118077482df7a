// The CPU's lockstep pixel loops, binary64's and the double word's (kernels/perturb/cpu_simd.h),
// against the scalar loop: at KF's benchmark files that render in binary64 (1e14, 1e50, 5e113, 5e227, and two of them forced
// to scaled binary64), AVX2 and AVX-512 give the scalar loop's counts, smooth counts, flagged
// pixels and statistics exactly; the lanes hand passes to the scalar loop (every pixel's last pass,
// rebases, the interior test's events); and the path's choice (DEEPSCOPE_CPU_SIMD, fallback).
// A width this CPU lacks is skipped with a message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "kernels/perturb/cpu_detail.h"
#include "kernels/perturb/cpu_simd.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"

namespace {

using namespace ds;
using namespace ds::mandel;
using ds::perturb::cpu_detail::simd_path;
using ds::perturb::cpu_detail::simd_supported;

struct Case {
  const char* file;
  int size;
  DeltaFormat delta;
};

RenderResult render_with(const View& v, CpuSimd simd, DeltaFormat delta, bool first_pass_only,
                         bool interior = true, bool error_bound = true) {
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.delta = delta;
  o.cpu_simd = simd;
  o.interior = interior;
  o.error_bound = error_bound;
  if (first_pass_only) {  // the first pass's flags stay in the result (no tier, no secondary reference)
    o.refine = false;
    o.max_secondary_references = 0;
  }
  return render(v, o);
}

// The two renders agree pixel for pixel, bit for bit, and in the first pass's statistics.
void expect_same(const RenderResult& scalar, const RenderResult& lanes) {
  ASSERT_EQ(scalar.counts.size(), lanes.counts.size());
  std::size_t counts = 0, smooth = 0;
  for (std::size_t k = 0; k < scalar.counts.size(); ++k) {
    counts += scalar.count(k) != lanes.count(k);
    smooth += std::memcmp(&scalar.smooth[k], &lanes.smooth[k], sizeof(float)) != 0;
  }
  EXPECT_EQ(counts, 0u);
  EXPECT_EQ(smooth, 0u);
  EXPECT_EQ(scalar.iterations, lanes.iterations);
  EXPECT_EQ(scalar.perturb.glitch_pixels, lanes.perturb.glitch_pixels);
  EXPECT_EQ(scalar.perturb.glitch_unresolved, lanes.perturb.glitch_unresolved);
  EXPECT_EQ(scalar.perturb.bla_skipped, lanes.perturb.bla_skipped);
  EXPECT_EQ(scalar.perturb.rebases, lanes.perturb.rebases);
  EXPECT_EQ(scalar.perturb.interior_pixels, lanes.perturb.interior_pixels);
}

// The view's reference orbit (as render() makes it; null where it could not) and the view centre's
// offset from it.
struct ViewReference {
  Geometry g;
  std::shared_ptr<const perturb::Reference> ref;
  FloatExp off_re{0.0}, off_im{0.0};
};
ViewReference view_reference(const View& v) {
  ViewReference r;
  r.g = geometry(v);
  bool reused = false;
  r.ref = perturb::reference_for(r.g, v, nullptr, {}, &reused);
  if (r.ref) perturb::centre_offset(*r.ref, r.g, &r.off_re, &r.off_im);
  return r;
}

std::vector<CpuSimd> widths_here() {
  std::vector<CpuSimd> w;
  const CpuSimd have = simd_supported();
  if (have == CpuSimd::kAvx2 || have == CpuSimd::kAvx512) w.push_back(CpuSimd::kAvx2);
  if (have == CpuSimd::kAvx512) w.push_back(CpuSimd::kAvx512);
  if (w.size() < 2)
    std::cout << "[ SKIPPED  ] " << (w.empty() ? "AVX2 and AVX-512" : "AVX-512")
              << ": not on this CPU (or not a GCC x86-64 build); only the scalar path runs here\n";
  return w;
}

TEST(CpuSimd, KfBenchmarksGiveTheScalarCountsAndFlags) {
  const std::vector<CpuSimd> widths = widths_here();
  if (widths.empty()) GTEST_SKIP() << "no vector path on this CPU";
  const Case cases[] = {
      {"1e14.kfr", 64, DeltaFormat::kAuto},          {"5e113.kfr", 64, DeltaFormat::kAuto},
      {"1e50.kfr", 32, DeltaFormat::kAuto},          {"5e227.kfr", 40, DeltaFormat::kAuto},
      {"5e227.kfr", 40, DeltaFormat::kF64Scaled},    {"5e113.kfr", 48, DeltaFormat::kF64Scaled},
  };
  for (const Case& c : cases) {
    for (const bool first_pass_only : {true, false}) {
      SCOPED_TRACE(std::string(c.file) + (c.delta == DeltaFormat::kF64Scaled ? " scaled" : "") +
                   (first_pass_only ? " first pass" : " corrected"));
      const View v = ds::test::kfr_view(c.file, c.size, c.size);
      const RenderResult scalar = render_with(v, CpuSimd::kScalar, c.delta, first_pass_only);
      ASSERT_EQ(scalar.perturb.cpu_simd, CpuSimd::kScalar);
      ASSERT_EQ(scalar.perturb.delta, c.delta == DeltaFormat::kF64Scaled ? DeltaFormat::kF64Scaled : DeltaFormat::kF64);
      for (const CpuSimd w : widths) {
        SCOPED_TRACE(w == CpuSimd::kAvx2 ? "avx2" : "avx512");
        const RenderResult lanes = render_with(v, w, c.delta, first_pass_only);
        ASSERT_EQ(lanes.perturb.cpu_simd, w);
        expect_same(scalar, lanes);
        // Every pixel that enters the loop ends in pixel_step (its escape, limit, flag or proof).
        std::size_t looped = 0;
        for (std::size_t k = 0; k < lanes.counts.size(); ++k) looped += lanes.count(k) >= 2;
        EXPECT_GE(lanes.perturb.lane_scalar_steps, looped);
        EXPECT_GT(lanes.perturb.lane_steps, lanes.perturb.lane_scalar_steps);
        if (first_pass_only && w == widths.back())
          std::cout << c.file << (c.delta == DeltaFormat::kF64Scaled ? " scaled" : "") << " " << c.size << "x"
                    << c.size << ": " << scalar.perturb.glitch_pixels << " flagged, "
                    << scalar.perturb.interior_pixels << " interior, " << scalar.perturb.rebases << " rebases; "
                    << lanes.perturb.lane_steps << " lane steps, " << lanes.perturb.lane_scalar_steps
                    << " passes in pixel_step\n";
      }
    }
  }
}

// The interior test and the error estimate off (each has its own branches in the lanes).
TEST(CpuSimd, WithoutInteriorTestOrErrorBound) {
  const std::vector<CpuSimd> widths = widths_here();
  if (widths.empty()) GTEST_SKIP() << "no vector path on this CPU";
  const View v = ds::test::kfr_view("5e113.kfr", 48, 48);
  for (const bool interior : {false, true})
    for (const bool bound : {false, true}) {
      SCOPED_TRACE(std::string("interior ") + (interior ? "on" : "off") + ", error bound " + (bound ? "on" : "off"));
      const RenderResult scalar = render_with(v, CpuSimd::kScalar, DeltaFormat::kAuto, true, interior, bound);
      for (const CpuSimd w : widths) expect_same(scalar, render_with(v, w, DeltaFormat::kAuto, true, interior, bound));
    }
}

// The interior test proves pixels inside (its windows without BLA: exact_windows) and a periodic
// reference's suffix entries (bla.h) serve the lanes, at test_perturb's period-135 minibrot near
// 1e50 (the view holds its interior and boundary), with and without prove_interior_always.
TEST(CpuSimd, InteriorProofsAndSuffixEntriesAsByTheScalarLoop) {
  const std::vector<CpuSimd> widths = widths_here();
  if (widths.empty()) GTEST_SKIP() << "no vector path on this CPU";
  const View v = ds::test::make_view(
      "-0.484395956262377591912828656474685238049864177911741926079999402043058848843181343925466199",
      "0.641892409913951884435415149631949404987297663004783532052451370814162802443102775516871075", "4e50",
      20000, 32, 32);
  for (const bool always : {false, true}) {
    SCOPED_TRACE(always ? "prove_interior_always" : "default");
    RenderOptions o;
    o.backend = Backend::kCpu;
    o.method = Method::kPerturb;
    o.prove_interior_always = always;
    o.cpu_simd = CpuSimd::kScalar;
    const RenderResult scalar = render(v, o);
    ASSERT_TRUE(scalar.perturb.reference_periodic || scalar.perturb.reference_stop == "ball period (wraps)")
        << scalar.perturb.reference_stop;
    if (always) {
      EXPECT_GT(scalar.perturb.interior_pixels, 0u);
    }
    for (const CpuSimd w : widths) {
      o.cpu_simd = w;
      const RenderResult lanes = render(v, o);
      ASSERT_EQ(lanes.perturb.cpu_simd, w);
      expect_same(scalar, lanes);
    }
    std::cout << "minibrot 1e50" << (always ? " (prove always)" : "") << ": " << scalar.perturb.interior_pixels
              << " interior pixels, reference stopped: " << scalar.perturb.reference_stop << "\n";
  }
}

// Pixel by pixel, below render(): perturb_pixel<double> gives the same with bla_pick climbing from
// the lowest level (p.bla_nested, the renders' order) as from the top down, and perturb_lanes hands
// back for every pixel what perturb_pixel<double> gives (count, smooth bits, BLA-skipped iterations, rebases, interior), with
// the BLA search from the lowest level up (nested radii, what the renders use) and from the top
// down (the order for a table whose radii are not nested), at 5e227 (flags), 5e113 and 1e14 (whose
// reference escapes early: every pixel rebases many times).
TEST(CpuSimd, EveryPixelAsPerturbPixelWithEitherBlaSearch) {
  using namespace ds::perturb;
  using namespace ds::perturb::cpu_detail;
  const std::vector<CpuSimd> widths = widths_here();
  if (widths.empty()) GTEST_SKIP() << "no vector path on this CPU";
  for (const char* file : {"5e227.kfr", "5e113.kfr", "1e14.kfr"}) {
    SCOPED_TRACE(file);
    const View v = ds::test::kfr_view(file, 24, 24);
    const ViewReference vr = view_reference(v);
    ASSERT_TRUE(vr.ref);
    const Geometry& g = vr.g;
    const auto& ref = vr.ref;
    const FloatExp off_re = vr.off_re, off_im = vr.off_im;
    const auto prep = prepared<double>(ref, view_dcmax(v, g, *ref), true);
    EXPECT_TRUE(prep->bla.radii_nested);
    RenderOptions o;
    const PerturbParams<double> p = params_for(v, g, o, *ref, prep->zr.data(), prep->zi.data(), prep->bla, off_re,
                                               off_im, FloatExp::from_string(g.half_step), true);
    EXPECT_TRUE(p.bla_nested);
    PerturbParams<double> from_top = p;  // bla_pick's search from the top level down
    from_top.bla_nested = false;
    const std::size_t n = static_cast<std::size_t>(v.width) * v.height;
    std::vector<PerturbPixel> want(n);
    std::size_t flagged = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const int i = static_cast<int>(k % v.width), j = static_cast<int>(k / v.width);
      want[k] = perturb_pixel<double, kNoFields>(from_top, i, j);
      flagged += want[k].count == 0;
      // bla_pick climbing from the lowest level (the renders' order on a nested table): the same pixel.
      const PerturbPixel up = perturb_pixel<double, kNoFields>(p, i, j);
      EXPECT_EQ(up.count, want[k].count) << k;
      EXPECT_EQ(up.skipped, want[k].skipped) << k;
      EXPECT_EQ(up.rebases, want[k].rebases) << k;
      EXPECT_EQ(std::memcmp(&up.smooth, &want[k].smooth, sizeof up.smooth), 0) << k;
    }
    for (const CpuSimd w : widths)
      for (const bool nested : {true, false}) {
        SCOPED_TRACE(std::string(w == CpuSimd::kAvx2 ? "avx2" : "avx512") + (nested ? " from below" : " from the top"));
        std::vector<PerturbPixel> got(n);
        std::vector<int> seen(n, 0);
        LaneStats stats;
        // Two calls over disjoint ranges, as parallel_for hands out rows.
        for (const auto& range : {std::pair<std::size_t, std::size_t>{0, n / 3}, {n / 3, n}})
          ASSERT_TRUE(perturb_lanes(w, p, 0, 0, static_cast<std::size_t>(v.width), range.first, range.second,
                                    [&](std::size_t k, const PerturbPixel& px) {
                                      got[k] = px;
                                      ++seen[k];
                                    },
                                    nested, &stats));
        std::size_t bad = 0;
        for (std::size_t k = 0; k < n; ++k)
          bad += seen[k] != 1 || got[k].count != want[k].count ||
                 std::memcmp(&got[k].smooth, &want[k].smooth, sizeof(float)) != 0 || got[k].skipped != want[k].skipped ||
                 got[k].rebases != want[k].rebases || got[k].interior != want[k].interior;
        EXPECT_EQ(bad, 0u);
        EXPECT_GT(stats.lane_steps, 0u);
      }
    uint64_t rebases = 0;
    for (const PerturbPixel& w : want) rebases += w.rebases;
    // 1e14's reference escapes after 557 steps: its pixels rebase, several times each.
    if (std::string(file) == "1e14.kfr") {
      EXPECT_GT(rebases, n);
    }
    std::cout << file << " 24x24: " << flagged << " pixels flagged by the first pass, " << rebases << " rebases\n";
  }
}

// The double word's lanes (perturb_lanes_dw, the 106-bit tier's pass on the CPU) against
// perturb_pixel<DwDelta>, pixel by pixel over every pixel of KF's 5e227 at 16x16 (not only the
// flagged ones: more paths), with the tier's coarse (2^-70) and fine (2^-106) tables, the BLA search
// from below (the tables' nested radii) and from the top, and from states part-way through their
// loop (as a CUDA list launch hands them back): count, smooth bits, BLA-skipped iterations,
// rebases and the interior flag.
TEST(CpuSimd, TheDoubleWordsPixelsAsPerturbPixel) {
  using namespace ds::perturb;
  using namespace ds::perturb::cpu_detail;
  const std::vector<CpuSimd> widths = widths_here();
  if (widths.empty()) GTEST_SKIP() << "no vector path on this CPU";
  const View v = ds::test::kfr_view("5e227.kfr", 16, 16);
  const ViewReference vr = view_reference(v);
  ASSERT_TRUE(vr.ref);
  const Geometry& g = vr.g;
  const auto& ref = vr.ref;
  const FloatExp off_re = vr.off_re, off_im = vr.off_im;
  const auto prep = prepared<DwDelta>(ref, view_dcmax(v, g, *ref), true);
  ASSERT_TRUE(prep->in_range);
  ASSERT_TRUE(prep->coarse);
  const std::size_t n = static_cast<std::size_t>(v.width) * v.height;
  struct Config {
    bool fine, nested;
    uint32_t ahead;  // passes run by pixel_step before the lanes take the state
  };
  for (const Config c :
       {Config{false, true, 0}, Config{false, false, 0}, Config{true, true, 0}, Config{false, true, 37}}) {
    const bool fine = c.fine, nested = c.nested;
    const uint32_t ahead = c.ahead;
    const BlaTable<DwDelta>& table = fine ? prep->fine_bla() : prep->bla;
    EXPECT_TRUE(table.radii_nested);
    RenderOptions o;
    PerturbParams<DwDelta> p =
        params_for(v, g, o, *ref, prep->zr.data(), prep->zi.data(), table, FloatExp(0.0), FloatExp(0.0),
                   FloatExp(0.0), /*check_underflow=*/true);
    p.off_re = from_fe<DwDelta>(off_re);
    p.off_im = from_fe<DwDelta>(off_im);
    p.half_step = from_fe<DwDelta>(FloatExp::from_string(g.half_step));
    p.bla_nested = nested;
    SCOPED_TRACE(std::string(fine ? "fine table" : "coarse table") +
                 (nested ? ", from below" : ", from the top") + (ahead ? ", handed over part-way" : ""));
    std::vector<ds::perturb::PixelState<DwDelta, kNoFields>> start(n);
    std::vector<uint8_t> done(n, 0);
    std::vector<PerturbPixel> want(n);
    for (std::size_t k = 0; k < n; ++k) {
      const int i = static_cast<int>(k % v.width), j = static_cast<int>(k / v.width);
      auto& s = start[k];
      done[k] = pixel_begin(p, i, j, s);
      for (uint32_t a = 0; a < ahead && !done[k]; ++a) done[k] = pixel_step(p, s);
      auto w = s;
      if (!done[k])
        while (!pixel_step(p, w)) {
        }
      want[k] = w.out;
      if (!ahead && k % 7 == 0) {  // the state's loop is perturb_pixel's
        const PerturbPixel whole = perturb_pixel<DwDelta, kNoFields>(p, i, j);
        ASSERT_EQ(whole.count, want[k].count) << k;
      }
    }
    for (const CpuSimd w : widths) {
      SCOPED_TRACE(w == CpuSimd::kAvx2 ? "avx2" : "avx512");
      std::vector<PerturbPixel> got(n);
      std::vector<int> seen(n, 0);
      LaneStats stats;
      ASSERT_TRUE(perturb_lanes_dw(
          w, p, n,
          [&](std::size_t k, ds::perturb::PixelState<DwDelta, kNoFields>& s) {
            s = start[k];
            return done[k] != 0;
          },
          [&](std::size_t k, const PerturbPixel& px) {
            got[k] = px;
            ++seen[k];
          },
          &stats));
      std::size_t bad = 0, flagged = 0;
      for (std::size_t k = 0; k < n; ++k) {
        bad += seen[k] != 1 || got[k].count != want[k].count ||
               std::memcmp(&got[k].smooth, &want[k].smooth, sizeof(float)) != 0 ||
               got[k].skipped != want[k].skipped || got[k].rebases != want[k].rebases ||
               got[k].interior != want[k].interior;
        flagged += want[k].count == 0;
      }
      EXPECT_EQ(bad, 0u);
      EXPECT_GT(stats.lane_steps, stats.scalar_steps);
      if (w == widths.back() && nested && !ahead)
        std::cout << "5e227 16x16, double words, " << (fine ? "fine" : "coarse") << " table: " << flagged
                  << " flagged; " << stats.lane_steps << " lane steps, " << stats.scalar_steps
                  << " passes in pixel_step\n";
    }
  }
}

TEST(CpuSimd, PathChoice) {
  const CpuSimd have = simd_supported();
  unsetenv("DEEPSCOPE_CPU_SIMD");
  EXPECT_EQ(simd_path(CpuSimd::kAuto), have);
  EXPECT_EQ(simd_path(CpuSimd::kScalar), CpuSimd::kScalar);
  // A width the CPU lacks falls back to the next.
  EXPECT_EQ(simd_path(CpuSimd::kAvx512), have);
  EXPECT_EQ(simd_path(CpuSimd::kAvx2), have == CpuSimd::kScalar ? CpuSimd::kScalar : CpuSimd::kAvx2);
  setenv("DEEPSCOPE_CPU_SIMD", "scalar", 1);
  EXPECT_EQ(simd_path(CpuSimd::kAuto), CpuSimd::kScalar);
  EXPECT_EQ(simd_path(CpuSimd::kAvx2), have == CpuSimd::kScalar ? CpuSimd::kScalar : CpuSimd::kAvx2);  // asked wins
  setenv("DEEPSCOPE_CPU_SIMD", "avx2", 1);
  EXPECT_EQ(simd_path(CpuSimd::kAuto), have == CpuSimd::kScalar ? CpuSimd::kScalar : CpuSimd::kAvx2);
  setenv("DEEPSCOPE_CPU_SIMD", "sse9", 1);
  EXPECT_THROW(simd_path(CpuSimd::kAuto), std::invalid_argument);
  unsetenv("DEEPSCOPE_CPU_SIMD");
  // A render with fields runs the scalar loop (the lanes carry no derivative).
  const View v = ds::test::kfr_view("1e14.kfr", 16, 16);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.fields = kFieldDistance;
  EXPECT_EQ(render(v, o).perturb.cpu_simd, CpuSimd::kScalar);
}

}  // namespace
