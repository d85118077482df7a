// Mandelbrot engine: view geometry and the precision rule, agreement between formats, escape
// counts against an MPFR reference at KF's 1e14 benchmark and at 1e25 and 1e60, tiles,
// cancellation, progress, and (device section) CUDA against the CPU for every format.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>

#include "kernels/core/cpu_parallel.h"
#include "kernels/core/device.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "locations.h"
#include "oracle.h"

namespace {

using namespace ds;
using namespace ds::mandel;

// Kalles Fraktaler's 1e14 benchmark location (benchmarks/1e14.kfr in KF 2).
const char* kKfRe = ds::test::kKf1e14Re;
const char* kKfIm = ds::test::kKf1e14Im;
// Misiurewicz points (preperiod 11, period 3), found by Newton's method on z_14(c) = z_11(c):
// spirals whose neighbourhoods show varied escape counts at every depth.
const char* kDeep25Re =
    "0.2823560273109689373814607764486151945157831646850324362800484942687758370107871190246002748863414995";
const char* kDeep25Im =
    "0.6233192452012511707909953725327419983115195518040906316401891582532840775425880209057717331780333133";
const char* kDeep60Re = ds::test::kMisiurewiczRe;
const char* kDeep60Im = ds::test::kMisiurewiczIm;

using ds::test::make_view;

View shallow_view() { return make_view("-0.7453", "0.1127", "100", 600); }
View kf_view() { return make_view(kKfRe, kKfIm, "1e14", 4036); }
View deep25_view() { return make_view(kDeep25Re, kDeep25Im, "1e25", 2000); }
View deep60_view() { return make_view(kDeep60Re, kDeep60Im, "1e60", 2000); }

RenderResult render_cpu(const View& v, Arith a, bool check = true) {
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.arith = a;
  o.check_resolution = check;
  return render(v, o);
}

int mismatches(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  EXPECT_EQ(a.size(), b.size());
  int n = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) n += a[i] != b[i];
  return n;
}

// The escape counts of the view's pixels in MPFR at `prec` bits, with the engine's definition:
// c exact from the decimal centre and s/2 = 2/(zoom height); z_1 = c; the first n >= 1 with
// |z_n|^2 > 4, or max_iter.
std::vector<uint32_t> mpfr_counts(const View& v, mpfr_prec_t prec) {
  std::vector<uint32_t> out(static_cast<size_t>(v.width) * v.height);
  ds::parallel_for(static_cast<size_t>(v.height), 1, [&](size_t r0, size_t r1) {
    mpfr_t re, im, hs, cr, ci, x, y, x2, y2, t;
    mpfr_inits2(prec, re, im, hs, cr, ci, x, y, x2, y2, t, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_str(re, v.re.c_str(), 10, MPFR_RNDN);
    mpfr_set_str(im, v.im.c_str(), 10, MPFR_RNDN);
    mpfr_set_str(hs, v.zoom.c_str(), 10, MPFR_RNDN);
    mpfr_mul_ui(hs, hs, static_cast<unsigned long>(v.height), MPFR_RNDN);
    mpfr_ui_div(hs, 2, hs, MPFR_RNDN);
    for (size_t j = r0; j < r1; ++j) {
      for (int i = 0; i < v.width; ++i) {
        mpfr_mul_si(cr, hs, 2L * i + 1 - v.width, MPFR_RNDN);
        mpfr_add(cr, cr, re, MPFR_RNDN);
        mpfr_mul_si(ci, hs, 2L * static_cast<long>(j) + 1 - v.height, MPFR_RNDN);
        mpfr_sub(ci, im, ci, MPFR_RNDN);
        mpfr_set(x, cr, MPFR_RNDN);
        mpfr_set(y, ci, MPFR_RNDN);
        uint32_t n = 1;
        for (; n < v.max_iter; ++n) {
          mpfr_sqr(x2, x, MPFR_RNDN);
          mpfr_sqr(y2, y, MPFR_RNDN);
          mpfr_add(t, x2, y2, MPFR_RNDN);
          if (mpfr_cmp_ui(t, 4) > 0) break;
          mpfr_mul(t, x, y, MPFR_RNDN);
          mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
          mpfr_add(y, t, ci, MPFR_RNDN);
          mpfr_sub(x, x2, y2, MPFR_RNDN);
          mpfr_add(x, x, cr, MPFR_RNDN);
        }
        out[j * static_cast<size_t>(v.width) + static_cast<size_t>(i)] = n;
      }
    }
    mpfr_clears(re, im, hs, cr, ci, x, y, x2, y2, t, static_cast<mpfr_ptr>(nullptr));
  });
  return out;
}

// A count image worth testing: many distinct counts, none covering most of the image.
void expect_varied(const std::vector<uint32_t>& counts, const char* what) {
  std::map<uint32_t, int> h;
  for (uint32_t c : counts) ++h[c];
  int top = 0;
  for (const auto& kv : h) top = std::max(top, kv.second);
  EXPECT_GE(h.size(), 20u) << what << ": too few distinct counts";
  EXPECT_LT(top, static_cast<int>(counts.size()) / 2) << what << ": one count covers half the image";
}

// Every format `auto` accepts at the view matches the MPFR reference on >= 99.9% of pixels.
void check_against_reference(const View& v, mpfr_prec_t prec, int min_formats) {
  const Geometry g = geometry(v);
  const std::vector<uint32_t> ref = mpfr_counts(v, prec);
  expect_varied(ref, "reference");
  const int allowed = static_cast<int>(ref.size() / 1000);
  int tested = 0;
  for (Arith a : all_ariths()) {
    if (!resolves(a, g)) continue;
    ++tested;
    const RenderResult r = render_cpu(v, a);
    const int bad = mismatches(r.counts, ref);
    EXPECT_LE(bad, allowed) << arith_name(a) << ": " << bad << " of " << ref.size() << " pixels differ";
    std::cout << "  " << arith_name(a) << ": " << bad << " mismatches, " << r.seconds << " s\n";
  }
  EXPECT_GE(tested, min_formats);
}

TEST(MandelbrotView, GeometryOfTheDefaultView) {
  View v;
  v.width = 4;
  v.height = 2;
  const Geometry g = geometry(v);
  EXPECT_DOUBLE_EQ(g.half_step_d, 1.0);  // s = 4 / (1 * 2)
  EXPECT_DOUBLE_EQ(g.log2_step, 1.0);
  EXPECT_DOUBLE_EQ(g.log2_zoom, 0.0);
  EXPECT_DOUBLE_EQ(g.max_coord, 4.5);  // |-0.5| + 4
  EXPECT_EQ(F64::from_string(g.half_step).v, 1.0);
}

TEST(MandelbrotView, HugeZoomKeepsExactStep) {
  View v = make_view("0", "0", "3e300", 100, 64, 3);
  const Geometry g = geometry(v);
  // s/2 = 2 / (3e300 * 3) = 2.222...e-301, carried as a decimal string to every format.
  EXPECT_EQ(g.half_step.substr(0, 12), "0.2222222222");
  EXPECT_NEAR(g.log2_zoom, std::log2(3.0) + 300 * std::log2(10.0), 1e-9);
}

TEST(MandelbrotView, RejectsBadViews) {
  View v;
  v.zoom = "0";
  EXPECT_THROW(geometry(v), ViewError);
  v.zoom = "-1e5";
  EXPECT_THROW(geometry(v), ViewError);
  v.zoom = "1e5x";
  EXPECT_THROW(geometry(v), ViewError);
  v = View();
  v.re = "abc";
  EXPECT_THROW(geometry(v), ViewError);
  v = View();
  v.im = "nan";
  EXPECT_THROW(geometry(v), ViewError);
  v = View();
  v.width = 0;
  EXPECT_THROW(geometry(v), ViewError);
  v = View();
  v.max_iter = 0;
  EXPECT_THROW(geometry(v), ViewError);
  v = View();
  v.zoom = "1e-20";  // reaches |c| = 1e20
  EXPECT_THROW(geometry(v), ViewError);
  EXPECT_THROW(clip_tile(View(), Tile{10, 10, 2000, 10}), ViewError);
}

TEST(MandelbrotView, F64IsRefusedAtKf1e14) {
  const Geometry g = geometry(kf_view());
  EXPECT_FALSE(resolves(Arith::kF64, g, kForcedGuardBits));
  EXPECT_FALSE(resolves(Arith::kF64, g));
  try {
    require_resolves(Arith::kF64, g);
    FAIL() << "f64 accepted at zoom 1e14";
  } catch (const ViewError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("f64 resolves pixels only up to zoom"), std::string::npos) << m;
    EXPECT_NE(m.find(arith_name(choose_arith(g))), std::string::npos) << m;
  }
  RenderOptions o;
  o.arith = Arith::kF64;
  o.backend = Backend::kCpu;
  EXPECT_THROW(render(kf_view(), o), ViewError);
  const FormatTraits chosen = arith_traits(choose_arith(g));
  EXPECT_LT(chosen.eps, 1e-25);
}

TEST(MandelbrotView, AutoTakesTheCheapestResolvingFormat) {
  View v;
  EXPECT_EQ(choose_arith(geometry(v)), Arith::kF64);
  for (const char* zoom : {"1e3", "1e9", "1e20", "1e40", "1e100", "1e200"}) {
    v.zoom = zoom;
    const Geometry g = geometry(v);
    const Arith a = choose_arith(g);
    EXPECT_TRUE(resolves(a, g)) << zoom;
    for (Arith b : all_ariths())
      if (resolves(b, g)) {
        EXPECT_GE(arith_traits(b).rel_cost, arith_traits(a).rel_cost) << zoom;
      }
  }
  v.zoom = "1e400";
  try {
    choose_arith(geometry(v));
    FAIL() << "a format was chosen at zoom 1e400";
  } catch (const ViewError& e) {
    EXPECT_NE(std::string(e.what()).find("limb32"), std::string::npos) << e.what();
  }
}

TEST(MandelbrotView, ZoomLimitsGrowWithPrecision) {
  const Geometry g = geometry(View());
  const Arith limbs[] = {Arith::kLimb4,  Arith::kLimb6,  Arith::kLimb8, Arith::kLimb12,
                         Arith::kLimb16, Arith::kLimb24, Arith::kLimb32};
  for (size_t i = 1; i < std::size(limbs); ++i)
    EXPECT_GT(log2_zoom_limit(limbs[i], g), log2_zoom_limit(limbs[i - 1], g) + 60);
  EXPECT_GT(log2_zoom_limit(Arith::kF64, g), log2_zoom_limit(Arith::kF32, g) + 28);
  // A forced format gets 20 bits more room than auto.
  EXPECT_DOUBLE_EQ(log2_zoom_limit(Arith::kF64, g, kForcedGuardBits),
                   log2_zoom_limit(Arith::kF64, g, kGuardBits) + (kGuardBits - kForcedGuardBits));
}

TEST(MandelbrotRender, ShallowViewAgreesAcrossFormats) {
  const View v = shallow_view();
  const Geometry g = geometry(v);
  ASSERT_TRUE(resolves(Arith::kF64, g));
  const RenderResult ref = render_cpu(v, Arith::kF64);
  expect_varied(ref.counts, "f64");
  const double f64_eps = F64::traits().eps;
  int tested = 0;
  for (Arith a : all_ariths()) {
    if (a == Arith::kF64 || arith_traits(a).eps > f64_eps) continue;  // only formats at least as precise
    ++tested;
    const int bad = mismatches(render_cpu(v, a).counts, ref.counts);
    EXPECT_LE(bad, static_cast<int>(ref.counts.size() / 1000)) << arith_name(a) << " vs f64: " << bad;
  }
  EXPECT_EQ(tested, 15);  // f64x2..f64x8, fx128, limb4..limb32
}

TEST(MandelbrotRender, Kf1e14MatchesMpfr) { check_against_reference(kf_view(), 320, 15); }
TEST(MandelbrotRender, Deep1e25MatchesMpfr) { check_against_reference(deep25_view(), 400, 12); }
TEST(MandelbrotRender, Deep1e60MatchesMpfr) { check_against_reference(deep60_view(), 640, 8); }

TEST(MandelbrotRender, CountsAndSmoothAreConsistent) {
  const RenderResult r = render_cpu(shallow_view(), Arith::kF64);
  for (size_t k = 0; k < r.counts.size(); ++k) {
    if (r.counts[k] == 600u) {
      EXPECT_EQ(r.smooth[k], 600.0f);
    } else {
      // Radius-2 normalisation: smooth lies close to (count, count + 1].
      EXPECT_GT(r.smooth[k], r.counts[k] - 0.5f) << k;
      EXPECT_LT(r.smooth[k], r.counts[k] + 1.5f) << k;
    }
  }
  uint64_t sum = 0;
  for (uint32_t c : r.counts) sum += c - 1;
  EXPECT_EQ(r.iterations, sum);
}

TEST(MandelbrotRender, TileIsTheSubRectangle) {
  View v = kf_view();
  v.width = 40;
  v.height = 24;
  v.max_iter = 800;
  const RenderResult full = render_cpu(v, Arith::kLimb4);
  const Tile t{7, 5, 20, 11};
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.arith = Arith::kLimb4;
  const RenderResult part = render(v, o, t);
  ASSERT_EQ(part.width, 20);
  ASSERT_EQ(part.height, 11);
  for (int r = 0; r < t.height; ++r)
    for (int c = 0; c < t.width; ++c) {
      const size_t a = static_cast<size_t>(r) * t.width + c;
      const size_t b = static_cast<size_t>(r + t.y0) * v.width + (c + t.x0);
      EXPECT_EQ(part.counts[a], full.counts[b]);
      EXPECT_EQ(part.smooth[a], full.smooth[b]);
    }
}

TEST(MandelbrotRender, OddSizesAndOneThreadGiveTheSameImage) {
  View v = shallow_view();
  v.width = 33;
  v.height = 17;
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.arith = Arith::kF64x2;
  const RenderResult a = render(v, o);
  o.cpu_threads = 1;
  const RenderResult b = render(v, o);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.smooth, b.smooth);
  // The middle column of an odd-width image lies on the centre's real coordinate.
  View one = v;
  one.width = 1;
  one.height = 1;
  one.re = "-2.5";  // outside the set: escapes at once
  EXPECT_EQ(render(one, o).counts[0], 1u);
}

TEST(MandelbrotRender, CancelFlagStopsTheRender) {
  std::atomic<bool> cancel{true};
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.cancel = &cancel;
  const RenderResult r = render(kf_view(), o);
  EXPECT_TRUE(r.cancelled);
}

TEST(MandelbrotRender, ProgressEndsAtOne) {
  RenderOptions o;
  o.backend = Backend::kCpu;
  std::atomic<int> calls{0};
  double last = -1;
  std::mutex mu;
  o.progress = [&](double x) {
    std::lock_guard<std::mutex> lock(mu);
    ++calls;
    EXPECT_GE(x, 0.0);
    EXPECT_LE(x, 1.0);
    last = x;
  };
  View v = shallow_view();
  render(v, o);
  EXPECT_GE(calls.load(), 1);
  EXPECT_EQ(last, 1.0);
}

TEST(MandelbrotRender, BackendSelection) {
  std::string note;
  EXPECT_EQ(select_backend(Backend::kCpu, &note), Backend::kCpu);
  if (cuda_device_count() == 0) {
    EXPECT_THROW(select_backend(Backend::kCuda, &note), BackendError);
    EXPECT_EQ(select_backend(Backend::kAuto, &note), Backend::kCpu);
    EXPECT_FALSE(note.empty());
  } else {
    EXPECT_EQ(select_backend(Backend::kAuto, &note), Backend::kCuda);
  }
}

TEST(MandelbrotRender, MemoryEstimate) {
  const MemoryEstimate m = estimate_memory(Tile{0, 0, 1000, 500}, Backend::kCuda);
  EXPECT_EQ(m.host_bytes, 4000000u);
  EXPECT_EQ(m.device_bytes, 4000000u);
  EXPECT_GT(host_memory_bytes(), 0u);
  View v;
  v.width = 1 << 20;
  v.height = 1 << 20;  // 8 TiB of counts
  RenderOptions o;
  o.backend = Backend::kCpu;
  EXPECT_THROW(render(v, o), BackendError);
}

TEST(ParallelFor, CoversEveryItemOnceAndRethrows) {
  std::vector<std::atomic<int>> hits(1000);
  EXPECT_TRUE(ds::parallel_for(hits.size(), 7, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) ++hits[i];
  }));
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_THROW(ds::parallel_for(100, 1,
                                [](size_t b, size_t) {
                                  if (b == 42) throw std::runtime_error("x");
                                }),
               std::runtime_error);
  std::atomic<bool> cancel{true};
  ParallelOptions po;
  po.cancel = &cancel;
  EXPECT_FALSE(ds::parallel_for(
      100, 1, [](size_t, size_t) {}, po));
}

// ---- Device section: CUDA against the CPU, bit for bit in the counts ----

TEST(MandelbrotCuda, EveryFormatMatchesTheCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  // A view every format can iterate (forced formats skip the resolution check); f32 and f64 get
  // the shallow view, the others KF's location with fewer iterations.
  for (Arith a : all_ariths()) {
    const bool shallow = arith_traits(a).eps > 1e-20;
    View v = shallow ? shallow_view() : kf_view();
    v.width = 96;
    v.height = 64;
    if (!shallow) v.max_iter = 1500;
    RenderOptions o;
    o.arith = a;
    o.check_resolution = false;
    o.backend = Backend::kCpu;
    const RenderResult cpu = render(v, o);
    o.backend = Backend::kCuda;
    struct Variant {
      LimbStrategy strategy;
      GpuSchedule schedule;
      const char* name;
    };
    std::vector<Variant> variants = {{LimbStrategy::kThreadPerPixel, GpuSchedule::kRefill, "refill"},
                                     {LimbStrategy::kThreadPerPixel, GpuSchedule::kTiles, "tiles"}};
    if (limb_words(a) > 0) variants.push_back({LimbStrategy::kCooperative, GpuSchedule::kRefill, "coop"});
    for (const Variant& var : variants) {
      o.limb_strategy = var.strategy;
      o.gpu_schedule = var.schedule;
      const RenderResult gpu = render(v, o);
      EXPECT_EQ(gpu.backend, Backend::kCuda);
      EXPECT_EQ(gpu.limb_strategy, var.strategy);
      EXPECT_EQ(mismatches(gpu.counts, cpu.counts), 0) << arith_name(a) << " " << var.name;
      float worst = 0;
      for (size_t k = 0; k < cpu.smooth.size(); ++k)
        worst = std::max(worst, std::fabs(gpu.smooth[k] - cpu.smooth[k]));
      EXPECT_LT(worst, 1e-3f) << arith_name(a) << " " << var.name << " smooth";  // log2: last-ulp differences
    }
  }
}

TEST(MandelbrotCuda, CooperativeEqualsThreadPerPixelOnALargeTile) {
  DEEPSCOPE_REQUIRE_GPU();
  View v = deep60_view();
  v.width = 200;  // not a multiple of 32: partial blocks
  v.height = 70;
  for (Arith a : {Arith::kLimb8, Arith::kLimb12, Arith::kLimb32}) {
    RenderOptions o;
    o.arith = a;
    o.backend = Backend::kCuda;
    const RenderResult t = render(v, o);
    o.limb_strategy = LimbStrategy::kCooperative;
    const RenderResult c = render(v, o);
    EXPECT_EQ(t.counts, c.counts) << arith_name(a);
    EXPECT_EQ(t.smooth, c.smooth) << arith_name(a);
  }
}

TEST(MandelbrotCuda, TilesAndBandsMatchTheWholeImage) {
  DEEPSCOPE_REQUIRE_GPU();
  View v = shallow_view();
  v.width = 300;
  v.height = 500;  // several bands of 64K pixels and more
  RenderOptions o;
  o.arith = Arith::kF64;
  o.backend = Backend::kCuda;
  const RenderResult banded = render(v, o);
  o.single_launch = true;
  const RenderResult whole = render(v, o);
  EXPECT_EQ(banded.counts, whole.counts);
  o.gpu_schedule = GpuSchedule::kTiles;
  EXPECT_EQ(render(v, o).counts, whole.counts);
  o.gpu_schedule = GpuSchedule::kRefill;
  const RenderResult tile = render(v, o, Tile{10, 20, 100, 50});
  for (int r = 0; r < 50; ++r)
    for (int c = 0; c < 100; ++c)
      EXPECT_EQ(tile.counts[static_cast<size_t>(r) * 100 + c],
                whole.counts[static_cast<size_t>(r + 20) * 300 + c + 10]);
}

}  // namespace
