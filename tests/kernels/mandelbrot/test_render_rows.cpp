// Row ranges of the Mandelbrot engine (RenderOptions::row_begin/row_end), the strips that
// `deepscope render` hands to its workers: strips stacked equal the whole render bit for bit, for
// direct f64, a limb format at 1e60 and perturbation (BLA, rebasing, MPFR re-evaluation of flagged
// pixels), also when strips render concurrently; bad ranges are refused. Device section: the
// same on CUDA (thread per pixel, tiles, cooperative limbs, perturbation) and concurrent
// perturbation renders of different views sharing a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "kernels/core/cpu_parallel.h"
#include "kernels/core/device.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "oracle.h"

namespace {

using namespace ds;
using namespace ds::mandel;

// test_mandelbrot's 1e60 Misiurewicz point (preperiod 11, period 3).
const char* kDeepRe = ds::test::kMisiurewiczRe;
const char* kDeepIm = ds::test::kMisiurewiczIm;

using ds::test::make_view;

// The point refined to 1300 bits: deep enough for 1e320 (f64 deltas underflow: every pixel flagged).
void deep_point(std::string* re, std::string* im) {
  static std::string r, i;
  if (r.empty()) perturb::misiurewicz_point(kDeepRe, kDeepIm, 11, 3, 1300, 400, &r, &i);
  *re = r;
  *im = i;
}

// Renders rows [cuts[k], cuts[k+1]) for each k and stacks them; checks each strip's shape.
RenderResult stacked(const View& v, RenderOptions o, const std::vector<int>& cuts) {
  RenderResult all;
  for (size_t k = 0; k + 1 < cuts.size(); ++k) {
    o.row_begin = cuts[k];
    o.row_end = cuts[k + 1];
    const RenderResult s = render(v, o);
    EXPECT_FALSE(s.cancelled);
    EXPECT_EQ(s.width, v.width);
    EXPECT_EQ(s.height, cuts[k + 1] - cuts[k]);
    all.counts.insert(all.counts.end(), s.counts.begin(), s.counts.end());
    all.smooth.insert(all.smooth.end(), s.smooth.begin(), s.smooth.end());
    all.iterations += s.iterations;
    all.perturb.glitch_pixels += s.perturb.glitch_pixels;
  }
  return all;
}

void expect_strips_equal_whole(const View& v, const RenderOptions& o, const std::vector<int>& cuts,
                               const char* what) {
  const RenderResult whole = render(v, o);
  ASSERT_FALSE(whole.cancelled);
  ASSERT_EQ(whole.height, v.height);
  const RenderResult s = stacked(v, o, cuts);
  EXPECT_EQ(s.counts, whole.counts) << what;  // std::vector<float> ==: every value bit for bit
  EXPECT_EQ(s.smooth, whole.smooth) << what;
  EXPECT_EQ(s.iterations, whole.iterations) << what;
  EXPECT_EQ(s.perturb.glitch_pixels, whole.perturb.glitch_pixels) << what;
  const auto mm = std::minmax_element(whole.counts.begin(), whole.counts.end());
  EXPECT_LT(*mm.first, *mm.second) << what << ": the view is flat, the test proves little";
}

TEST(RenderRows, DirectF64StripsStackToTheWholeImage) {
  const View v = make_view("-0.7453", "0.1127", "100", 600, 61, 37);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.arith = Arith::kF64;
  expect_strips_equal_whole(v, o, {0, 1, 10, 11, 30, 37}, "f64");
}

TEST(RenderRows, LimbStripsAt1e60StackToTheWholeImage) {
  const View v = make_view(kDeepRe, kDeepIm, "1e60", 2000, 24, 18);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.arith = Arith::kLimb8;
  expect_strips_equal_whole(v, o, {0, 7, 8, 18}, "limb8");
}

TEST(RenderRows, PerturbationStripsStackToTheWholeImage) {
  std::string re, im;
  deep_point(&re, &im);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  // floatexp deltas with BLA and rebasing at 1e300.
  const View v = make_view(re, im, "2e300", 6000, 20, 16);
  perturb::clear_reference_cache();
  expect_strips_equal_whole(v, o, {0, 5, 6, 16}, "perturb 1e300");
  o.bla = false;
  expect_strips_equal_whole(v, o, {0, 9, 16}, "perturb 1e300 without BLA");
  // f64 deltas where they underflow: every pixel is flagged and re-evaluated in MPFR, at its own
  // place in the view.
  o.bla = true;
  o.delta = DeltaFormat::kF64;
  const View g = make_view(re, im, "1e320", 6000, 5, 6);
  const RenderResult strip = [&] {
    RenderOptions s = o;
    s.row_begin = 2;
    s.row_end = 4;
    return render(g, s);
  }();
  EXPECT_EQ(strip.perturb.glitch_pixels, 10u);
  expect_strips_equal_whole(g, o, {0, 2, 4, 6}, "perturb 1e320 flagged");
}

// Strips rendered at once from several threads (the workers of one process share the reference
// and table caches) equal the whole render.
TEST(RenderRows, ConcurrentPerturbationStripsEqualTheWholeImage) {
  std::string re, im;
  deep_point(&re, &im);
  const View v = make_view(re, im, "1e100", 4000, 24, 12);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.cpu_threads = 1;
  perturb::clear_reference_cache();
  const RenderResult whole = render(v, o);
  perturb::clear_reference_cache();
  std::vector<RenderResult> parts(4);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&, k] {
      RenderOptions s = o;
      s.row_begin = 3 * k;
      s.row_end = 3 * k + 3;
      parts[static_cast<size_t>(k)] = render(v, s);
      ds::release_thread_caches();  // as every thread of the program's own does
    });
  for (std::thread& t : threads) t.join();
  std::vector<uint32_t> counts;
  std::vector<float> smooth;
  for (const RenderResult& p : parts) {
    counts.insert(counts.end(), p.counts.begin(), p.counts.end());
    smooth.insert(smooth.end(), p.smooth.begin(), p.smooth.end());
  }
  EXPECT_EQ(counts, whole.counts);
  EXPECT_EQ(smooth, whole.smooth);
}

TEST(RenderRows, RangeMeetsTheTileAndBadRangesAreRefused) {
  const View v = make_view("-0.7453", "0.1127", "100", 300, 20, 10);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.arith = Arith::kF64;
  const RenderResult whole = render(v, o);
  o.row_begin = 4;
  o.row_end = 9;
  const RenderResult r = render(v, o, Tile{3, 2, 10, 5});  // rows 4..6 of the tile's 2..6
  ASSERT_EQ(r.width, 10);
  ASSERT_EQ(r.height, 3);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 10; ++i)
      EXPECT_EQ(r.counts[static_cast<size_t>(j * 10 + i)],
                whole.counts[static_cast<size_t>((j + 4) * 20 + i + 3)]);
  for (auto [b, e] : {std::pair{-1, 3}, {3, 3}, {5, 2}, {0, 11}, {10, -1}}) {
    o.row_begin = b;
    o.row_end = e;
    EXPECT_THROW(render(v, o), ViewError) << b << " " << e;
  }
  o.row_begin = 0;
  o.row_end = 2;
  EXPECT_THROW(render(v, o, Tile{0, 5, 0, 0}), ViewError);  // the range misses the tile
}

TEST(RenderRowsDevice, CudaStripsStackToTheWholeImage) {
  DEEPSCOPE_REQUIRE_GPU();
  const View shallow = make_view("-0.7453", "0.1127", "100", 600, 300, 200);
  RenderOptions o;
  o.backend = Backend::kCuda;
  o.arith = Arith::kF64;
  expect_strips_equal_whole(shallow, o, {0, 1, 77, 200}, "cuda f64 refill");
  o.gpu_schedule = GpuSchedule::kTiles;
  expect_strips_equal_whole(shallow, o, {0, 1, 77, 200}, "cuda f64 tiles");
  const View deep = make_view(kDeepRe, kDeepIm, "1e60", 2000, 96, 40);
  o.arith = Arith::kLimb8;
  o.gpu_schedule = GpuSchedule::kRefill;
  expect_strips_equal_whole(deep, o, {0, 13, 14, 40}, "cuda limb8 thread");
  o.limb_strategy = LimbStrategy::kCooperative;
  expect_strips_equal_whole(deep, o, {0, 13, 14, 40}, "cuda limb8 coop");
  // The CPU's strips equal the GPU's (same per-pixel function).
  RenderOptions c = o;
  c.backend = Backend::kCpu;
  c.row_begin = 13;
  c.row_end = 14;
  o.row_begin = 13;
  o.row_end = 14;
  EXPECT_EQ(render(deep, c).counts, render(deep, o).counts);
}

TEST(RenderRowsDevice, CudaPerturbationStripsAndConcurrentViews) {
  DEEPSCOPE_REQUIRE_GPU();
  std::string re, im;
  deep_point(&re, &im);
  RenderOptions o;
  o.backend = Backend::kCuda;
  o.method = Method::kPerturb;
  const View v = make_view(re, im, "2e300", 6000, 96, 64);
  expect_strips_equal_whole(v, o, {0, 10, 11, 64}, "cuda perturb 1e300");
  o.delta = DeltaFormat::kF64;
  expect_strips_equal_whole(make_view(re, im, "1e320", 6000, 5, 6), o, {0, 3, 6}, "cuda perturb flagged");
  o.delta = DeltaFormat::kAuto;
  // Two views with different tables rendered at once on device 0 from two threads (a GPU split
  // into two logical devices) and on the last device: each equals its render alone. b first, so
  // both views use b's reference (more bits) throughout.
  perturb::clear_reference_cache();
  const View a = make_view(re, im, "1e60", 4000, 96, 64), b = make_view(re, im, "1e200", 4000, 96, 64);
  const RenderResult rb = render(b, o), ra = render(a, o);
  ASSERT_TRUE(ra.perturb.reference_reused);
  const int devices = cuda_device_count();
  RenderResult ca, cb;
  for (int round = 0; round < 3; ++round) {
    std::thread ta([&] {
      RenderOptions s = o;
      s.cuda_device = 0;
      ca = render(a, s);
      ds::release_thread_caches();
    });
    std::thread tb([&] {
      RenderOptions s = o;
      s.cuda_device = devices > 1 && round > 0 ? devices - 1 : 0;
      cb = render(b, s);
      ds::release_thread_caches();
    });
    ta.join();
    tb.join();
    EXPECT_EQ(ca.counts, ra.counts) << round;
    EXPECT_EQ(ca.smooth, ra.smooth) << round;
    EXPECT_EQ(cb.counts, rb.counts) << round;
    EXPECT_EQ(cb.smooth, rb.smooth) << round;
  }
}

}  // namespace
