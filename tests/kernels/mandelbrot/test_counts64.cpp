// 64-bit iteration counts (kernels/mandelbrot/counts.h, docs/mandelbrot.md "Counts"): the parser of
// count text, the escape loop counting past 2^32 from a state placed just below it, the smooth count
// past 2^32, the split of wide counts into two words, and renders at max_iter = 5e9 of views whose
// pixels all escape early, which must equal the renders at max_iter = 1000 there.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/core/device.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
#include "kernels/mandelbrot/mandelbrot.h"

namespace {

using namespace ds;
using namespace ds::mandel;

TEST(IterationText, AcceptsExactIntegersUpTo2To63Minus1) {
  const struct {
    const char* text;
    uint64_t value;
  } good[] = {
      {"1", 1},
      {"1000", 1000},
      {"+7", 7},
      {"4294967295", 4294967295ull},
      {"4294967296", 4294967296ull},
      {"5000000000", 5000000000ull},
      {"5e9", 5000000000ull},
      {"5E9", 5000000000ull},
      {"5.8e9", 5800000000ull},
      {"1.5e3", 1500},
      {"5e13", 50000000000000ull},
      {"9223372036854775807", 9223372036854775807ull},
      {"9.223372036854775807e18", 9223372036854775807ull},
      {"0005", 5},
      {"50e-1", 5},
  };
  for (const auto& c : good) {
    uint64_t v = 0;
    EXPECT_TRUE(parse_iterations(c.text, &v)) << c.text;
    EXPECT_EQ(v, c.value) << c.text;
  }
  EXPECT_EQ(kMaxIterations, (uint64_t{1} << 63) - 1);
}

TEST(IterationText, RefusesWhatIsNotACountUpTo2To63Minus1) {
  for (const char* t : {"9223372036854775808", "9.223372036854775808e18", "1e19", "18446744073709551616",
                        "18446744073709551617", "99999999999999999999999", "0", "0e5", "-1", "-5000000000", "2.5",
                        "5e-1", "1e999999999999999", "abc", "", " 5", "5 ", "0x10", "1e", "1e+", "5e9x", ".", "e5",
                        "1..2", "nan", "inf"}) {
    uint64_t v = 12345;
    EXPECT_FALSE(parse_iterations(t, &v)) << '"' << t << '"';
    EXPECT_EQ(v, 12345u) << "left untouched on failure";
  }
}

TEST(CountStorage, WideCountsSplitIntoTwoWords) {
  EXPECT_FALSE(wide_counts(1000));
  EXPECT_FALSE(wide_counts(0xFFFFFFFFull));
  EXPECT_TRUE(wide_counts(0x100000000ull));
  EXPECT_TRUE(wide_counts(kMaxIterations));
  uint32_t lo[3] = {}, hi[3] = {};
  float sm[3] = {};
  store_pixel(lo, hi, sm, 1, 5000000000ull, 0.25f);
  EXPECT_EQ(lo[1], static_cast<uint32_t>(5000000000ull - 4294967296ull));
  EXPECT_EQ(hi[1], 1u);
  EXPECT_EQ(sm[1], 0.25f);
  EXPECT_EQ(load_count(lo, hi, 1), 5000000000ull);
  store_pixel(lo, hi, sm, 2, kMaxIterations, 0.0f);
  EXPECT_EQ(load_count(lo, hi, 2), kMaxIterations);
  store_pixel(lo, nullptr, sm, 0, 1000, 12.5f);
  EXPECT_EQ(load_count(lo, nullptr, 0), 1000u);
  EXPECT_EQ(smooth_at_limit(1000), 1000.0f);
  EXPECT_EQ(smooth_at_limit(5000000000ull), 0.0f);
}

// c = 1: z_1 = 1, z_2 = 2, z_3 = 5, so the orbit escapes at count 3. Started as if z = 1 were the
// (2^32 - 2)-th point, the loop must count to 2^32 exactly: a 32-bit counter would wrap to 0.
// Without the error estimate: |z_2|^2 = 4 exactly, which the estimate leaves undecided
// (test_error_bound.cpp); the counters are what this test is about.
template <class T>
void counts_past_2_to_32(const char* name) {
  View v;
  v.re = "1";
  v.im = "0";
  v.width = v.height = 1;
  v.max_iter = 5000000000ull;
  RenderOptions plain;
  plain.error_bound = false;
  const MandelParams<T> p = make_params<T>(geometry(v), v, plain);
  EXPECT_EQ(p.max_iter, 5000000000ull) << name;
  PixelState<T> s{};
  s.cr = T::from_string("1");
  s.ci = T::from_string("0");
  s.cr_d = 1.0;
  s.ci_d = 0.0;
  s.x = s.cr;
  s.y = s.ci;
  s.n = 4294967294ull;
  s.escaped = false;
  EXPECT_TRUE(pixel_run(p, s, p.max_iter)) << name;
  EXPECT_TRUE(s.escaped) << name;
  EXPECT_EQ(s.n, 4294967296ull) << name;
  const PixelResult r = pixel_end(p, s);
  EXPECT_EQ(r.count, 4294967296ull) << name;
  // Wide: the stored smooth value is smooth count - count, the same as at count 3 (c = 1 from the start).
  View small = v;
  small.max_iter = 1000;
  const MandelParams<T> q = make_params<T>(geometry(small), small, plain);
  const PixelResult at3 = mandel_pixel(q, 0, 0);
  ASSERT_EQ(at3.count, 3u) << name;
  EXPECT_NEAR(r.smooth, at3.smooth - 3.0, 1e-6) << name;

  // c = 0 never escapes: from 5 steps before max_iter = 2^32 + 3 the loop stops at max_iter, and a
  // budget of 3 stops 3 steps on.
  View zero = v;
  zero.re = "0";
  zero.max_iter = 4294967299ull;
  const MandelParams<T> z = make_params<T>(geometry(zero), zero);
  PixelState<T> t{};
  t.cr = t.ci = t.x = t.y = T::from_string("0");
  t.n = zero.max_iter - 5;
  t.escaped = false;
  EXPECT_FALSE(pixel_run(z, t, 3)) << name;
  EXPECT_EQ(t.n, zero.max_iter - 2) << name;
  EXPECT_TRUE(pixel_run(z, t, z.max_iter)) << name;
  EXPECT_FALSE(t.escaped) << name;
  const PixelResult end = pixel_end(z, t);
  EXPECT_EQ(end.count, 4294967299ull) << name;
  EXPECT_EQ(end.smooth, 0.0f) << name;
}

TEST(EscapeLoop, CountsPast2To32) {
  counts_past_2_to_32<F64>("f64");  // blocks of 8 steps, then the exact test
  counts_past_2_to_32<F32>("f32");  // blocks of 4
  counts_past_2_to_32<Expansion<2>>("f64x2");  // the generic loop
}

// The tail runs the same steps whatever n is, so the stored wide value at n = 4,300,000,123 is the
// narrow smooth count at n = 123 less 123; a float of the whole smooth count (spacing 512 at 4.3e9)
// could not hold its fraction at all.
TEST(SmoothCount, KeepsItsFractionPast2To32) {
  // |z| = 500 > 2^8: no tail steps, smooth count = n + 1 - log2(log2 500).
  const double want = 1.0 - std::log2(std::log2(500.0));
  const float wide = smooth_tail(4300000123ull, 300.0, 400.0, 0.25, -0.5, true);
  EXPECT_EQ(wide, static_cast<float>(want));
  EXPECT_NEAR(4300000123.0 + wide, 4300000123.0 + want, 1e-6);
  EXPECT_NEAR(smooth_tail(123, 300.0, 400.0, 0.25, -0.5) - 123.0, want, 1e-5);
  // |z| = 5: tail steps until |z| > 2^8, the same at n = 2 and at n = 2^32 + 2.
  const float narrow2 = smooth_tail(2, 3.0, 4.0, 0.25, -0.5);
  const float wide2 = smooth_tail(4294967298ull, 3.0, 4.0, 0.25, -0.5, true);
  EXPECT_NEAR(wide2, narrow2 - 2.0, 1e-6);
  // Narrow values are bit for bit the float of n + k + 1 - log2(log2 |z_{n+k}|) in double.
  EXPECT_EQ(smooth_tail(123, 300.0, 400.0, 0.25, -0.5), static_cast<float>(123.0 + 1.0 - std::log2(0.5 * std::log2(250000.0))));
}

// Views whose every pixel escapes within a few steps: right of M (Re c >= 0.66 > 0.48) and above it
// (Im c >= 1.5).
View early(const char* re, const char* im, uint64_t max_iter) {
  View v;
  v.re = re;
  v.im = im;
  v.zoom = "2";
  v.width = 32;
  v.height = 24;
  v.max_iter = max_iter;
  return v;
}

void expect_same_counts(const RenderResult& narrow, const RenderResult& wide, const std::string& what) {
  ASSERT_FALSE(narrow.wide()) << what;
  ASSERT_TRUE(wide.wide()) << what;
  ASSERT_EQ(narrow.counts.size(), wide.counts.size()) << what;
  ASSERT_EQ(wide.counts_high.size(), wide.counts.size()) << what;
  EXPECT_TRUE(narrow.counts_high.empty()) << what;
  EXPECT_EQ(narrow.counts, wide.counts) << what;
  for (std::size_t k = 0; k < wide.counts.size(); ++k) {
    ASSERT_EQ(wide.counts_high[k], 0u) << what;
    ASSERT_EQ(wide.count(k), narrow.count(k)) << what;
    ASSERT_LT(narrow.counts[k], 1000u) << what << ": every pixel escapes early";
    ASSERT_GT(narrow.counts[k], 0u) << what;
    EXPECT_NEAR(wide.smooth_count(k), narrow.smooth[k], 2e-6 * std::max(1.0f, narrow.smooth[k])) << what << " pixel " << k;
  }
  EXPECT_EQ(narrow.iterations, wide.iterations) << what;
}

void wide_equals_narrow(Backend backend) {
  for (Method method : {Method::kDirect, Method::kPerturb})
    for (const auto& at : {std::pair<const char*, const char*>{"2", "0"}, {"0", "2.5"}}) {
      RenderOptions o;
      o.backend = backend;
      o.method = method;
      const std::string what = std::string(method == Method::kDirect ? "direct" : "perturb") + " at " + at.first +
                               " + " + at.second + "i";
      const RenderResult narrow = render(early(at.first, at.second, 1000), o);
      const RenderResult wide = render(early(at.first, at.second, 5000000000ull), o);
      expect_same_counts(narrow, wide, what);
      EXPECT_EQ(wide.max_iter, 5000000000ull);
    }
}

TEST(WideRender, EqualsTheRenderAt1000WhereEveryPixelEscapesEarlyOnTheCpu) { wide_equals_narrow(Backend::kCpu); }

TEST(WideRender, EqualsTheRenderAt1000WhereEveryPixelEscapesEarlyOnCuda) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  wide_equals_narrow(Backend::kCuda);
}

TEST(WideRender, AskingPast2To63Minus1IsRefused) {
  View v = early("2", "0", kMaxIterations);
  EXPECT_NO_THROW(geometry(v));
  v.max_iter = kMaxIterations + 1;
  try {
    geometry(v);
    FAIL() << "max_iter 2^63 accepted";
  } catch (const ViewError& e) {
    EXPECT_NE(std::string(e.what()).find("9223372036854775808"), std::string::npos) << e.what();
  }
  // The memory a wide tile needs counts the high words.
  EXPECT_EQ(estimate_memory(Tile{0, 0, 10, 10}, Backend::kCpu, 1000).host_bytes, 800u);
  EXPECT_EQ(estimate_memory(Tile{0, 0, 10, 10}, Backend::kCpu, 5000000000ull).host_bytes, 1200u);
}

}  // namespace
