// The log count scale (colour::CountScale::kLog, kernels/colour/palette.h) in a headless EGL context:
// the GL's lowest-count pass (render/frame_stats.h) finds the base colour::log_base_of finds, narrow
// and wide, past undecided and interior pixels; the palette shader colours as colour_pixel does with
// that base; and at counts in the millions that change by hundreds a pixel (a deep view's, as at
// FractalShark's view 5) neighbouring pixels get neighbouring colours, where the linear scale's are
// unrelated.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "channel_diff.h"
#include "headless_context.h"
#include "kernels/colour/palette.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "locations.h"
#include "render/colour_shader.h"
#include "render/headless_gl.h"
#include "test_files.h"

// Mesa's EGL driver leaks at exit where LeakSanitizer cannot name it (as in test_display.cpp).
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace ds::render {
namespace {

colour::Colouring log_colouring(uint64_t max_iter) {
  colour::Colouring c;
  c.palette = colour::palette_by_name("classic");
  c.max_iter = max_iter;
  c.scale = colour::CountScale::kLog;
  return c;
}

// Over pixel pairs side by side, the largest channel difference: its mean, its median, the share of
// pairs where it passes 64 levels (a jump the eye sees as an edge) and the share within 16 (smooth).
struct Neighbours {
  double mean = 0, jumps = 0, median = 0, smooth = 0;
};
Neighbours neighbour_difference(const std::vector<uint8_t>& rgb, int w, int h) {
  double sum = 0;
  int n = 0, jumps = 0, smooth = 0;
  std::vector<int> all;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x + 1 < w; ++x) {
      const uint8_t* a = &rgb[3 * (y * w + x)];
      int m = 0;
      for (int k = 0; k < 3; ++k) m = std::max(m, std::abs(a[k] - a[3 + k]));
      sum += m;
      jumps += m > 64;
      smooth += m <= 16;
      all.push_back(m);
      ++n;
    }
  std::nth_element(all.begin(), all.begin() + n / 2, all.end());
  return {sum / n, static_cast<double>(jumps) / n, static_cast<double>(all[n / 2]),
          static_cast<double>(smooth) / n};
}

// With s = 64: the position is the offset at the base, rises by density * 2 / 64 a count there, by
// density * 2 a factor e far above it, and never falls.
TEST(LogScale, PositionsFollowTheLogOfTheCountAboveTheBase) {
  colour::Colouring c = log_colouring(100000000);
  c.density = 1.5f;
  c.offset = 0.25f;
  c.log_base = 3000000;
  c.log_base_fraction = 0.5f;
  c.log_scale = 64.0f;
  EXPECT_FLOAT_EQ(colour::log_position(c, 3000000, 0.5f), 0.25f);
  EXPECT_NEAR(colour::log_position(c, 3000001, 0.5f) - 0.25f, 1.5f * 2.0f / 64.0f, 1.5f / 32.0f * 0.01f);
  EXPECT_FLOAT_EQ(colour::log_position(c, 2999000, 0.0f), 0.25f);  // below the base: clamped
  const float far = colour::log_position(c, 3000000 + 64 * 10000, 0.5f);
  const float farther =
      colour::log_position(c, 3000000 + static_cast<uint64_t>(64 * 10000 * std::exp(1.0)), 0.5f);
  EXPECT_NEAR(farther - far, 1.5f * 2.0f, 0.01f);
  float last = -1;
  for (uint64_t n = 3000000; n < 3000000 + 100000; n += 997) {
    const float p = colour::log_position(c, n, 0.3f);
    EXPECT_GE(p, last);
    last = p;
  }
}

// The GL's pass and the host's loop find the same base: the lowest escaped count, not an undecided
// (0) or interior pixel's, in blocks of 16 and the frame's ragged last block; narrow and wide.
TEST(LogScale, GlFindsTheHostsBase) {
  auto gl = test::headless_context();
  if (!gl) return;
  std::printf("GL: %s\n", gl->description().c_str());
  std::mt19937_64 rng(20261129);
  std::printf("seed 20261129\n");
  const int w = 173, h = 61;  // not multiples of the 16-pixel block
  for (const bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "wide" : "narrow");
    const uint64_t max_iter = wide ? (1ull << 40) : 5000000;
    const uint64_t low = wide ? (1ull << 33) + 12345 : 3000000;
    std::vector<uint32_t> lo(w * h), hi(w * h);
    std::vector<float> sm(w * h);
    for (int q = 0; q < w * h; ++q) {
      const uint64_t n = low + 50 + rng() % 100000;
      const float f = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
      lo[q] = static_cast<uint32_t>(n);
      hi[q] = static_cast<uint32_t>(n >> 32);
      sm[q] = wide ? f : static_cast<float>(n) + f;
    }
    const int at = 60 * w + 172;  // the lowest, in the last row and column (partial blocks)
    lo[at] = static_cast<uint32_t>(low);
    hi[at] = static_cast<uint32_t>(low >> 32);
    sm[at] = wide ? 0.75f : static_cast<float>(low) + 0.75f;
    lo[5] = 0, hi[5] = 0;                                                                    // undecided
    lo[7] = static_cast<uint32_t>(max_iter), hi[7] = static_cast<uint32_t>(max_iter >> 32);  // interior
    const colour::LogBase want =
        colour::log_base_of(lo, sm, w, max_iter, wide ? hi : std::vector<uint32_t>{});
    EXPECT_EQ(want.count, low);
    ColourShader sh(builtin_shader_source("palette"), "palette");
    ShaderFrame f;
    f.width = w;
    f.height = h;
    f.counts = lo.data();
    f.smooth = sm.data();
    f.counts_high = wide ? hi.data() : nullptr;
    std::vector<uint8_t> rgb;
    sh.colour(f, log_colouring(max_iter), &rgb);
    EXPECT_EQ(sh.log_base().count, want.count);
    EXPECT_EQ(sh.log_base().fraction, want.fraction);
    EXPECT_EQ(sh.log_base().scale, want.scale);
    // The blocks' lowest counts lie about 50 to 50 + 100000 / 256 above the base: their median too.
    EXPECT_GT(want.scale, 50.0f);
    EXPECT_LT(want.scale, 50.0f + 100000.0f / 64);
    // The base pixel takes the palette's position 0 (offset 0): the first stop.
    const colour::Rgb8 s0 = colour::palette_by_name("classic").stop[0];
    EXPECT_NEAR(rgb[3 * at], s0.r, 1);
    EXPECT_NEAR(rgb[3 * at + 1], s0.g, 1);
    EXPECT_NEAR(rgb[3 * at + 2], s0.b, 1);
  }
}

// The palette shader with the log scale colours a rendered frame (the seahorse valley in f64) as
// colour_image does (its own base), to one level in a channel at a few pixels (GLSL's log and the
// C library's logf may differ in the last bit).
TEST(LogScale, ShaderEqualsColourPixel) {
  auto gl = test::headless_context();
  if (!gl) return;
  const mandel::View v = test::make_view("-0.7453", "0.1127", "100", 500, 320, 180);
  mandel::RenderOptions opt;
  opt.arith = Arith::kF64;
  opt.backend = Backend::kCpu;
  const mandel::RenderResult r = mandel::render(v, opt);
  colour::Colouring c = log_colouring(v.max_iter);
  c.density = 1.7f;
  c.offset = 0.23f;
  const std::vector<uint8_t> want = colour::colour_image(r.counts, r.smooth, c, {}, v.width);
  ColourShader sh(builtin_shader_source("palette"), "palette");
  std::vector<uint8_t> got;
  sh.colour(v.width, v.height, r.counts.data(), r.smooth.data(), c, &got);
  test::expect_within_one_level(got, want, "seahorse, log scale");
}

// Counts near a million that rise smoothly by 180 to 500 a pixel (a deep view's, as FractalShark's
// view 5): the linear scale cycles the palette 6 to 16 times from one pixel to the next (colour
// noise), the log scale moves it by a small step. Measured: the largest channel difference of
// pixels side by side (mean, and the share past 64 levels).
TEST(LogScale, NeighbouringPixelsAtMillionsOfIterations) {
  auto gl = test::headless_context();
  if (!gl) return;
  const int w = 200, h = 120;
  const uint64_t max_iter = 4718592;
  std::vector<uint32_t> counts(w * h);
  std::vector<float> smooth(w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      // A smooth field: 1.0e6 at the top left corner, rising by 180 to 500 a pixel to the right.
      const double mu = 1000000.0 + 180.0 * x + 80.0 * x * x * x / (w * w) + 150.0 * y + 0.37 * x * y;
      counts[y * w + x] = static_cast<uint32_t>(mu);
      smooth[y * w + x] = static_cast<float>(mu);
    }
  ColourShader sh(builtin_shader_source("palette"), "palette");
  colour::Colouring c = log_colouring(max_iter);
  std::vector<uint8_t> log_rgb, linear_rgb;
  sh.colour(w, h, counts.data(), smooth.data(), c, &log_rgb);
  c.scale = colour::CountScale::kLinear;
  sh.colour(w, h, counts.data(), smooth.data(), c, &linear_rgb);
  const Neighbours dlog = neighbour_difference(log_rgb, w, h), dlin = neighbour_difference(linear_rgb, w, h);
  std::printf("neighbouring pixels: log scale mean %.2f levels, %.2f%% past 64; linear %.2f, %.2f%%\n",
              dlog.mean, 100 * dlog.jumps, dlin.mean, 100 * dlin.jumps);
  EXPECT_LT(dlog.mean, 15.0);
  EXPECT_LT(dlog.jumps, 0.001);
  EXPECT_GT(dlin.mean, 60.0);
  EXPECT_GT(dlin.jumps, 0.3);
  // The log scale still bands the frame: its pixels span more than one palette cycle's colours.
  int reds = 0, blues = 0;
  for (std::size_t q = 0; q < log_rgb.size(); q += 3) {
    reds += log_rgb[q] > 200 && log_rgb[q + 2] < 100;  // the classic palette's orange
    blues += log_rgb[q + 2] > 150 && log_rgb[q] < 80;  // and its blues
  }
  EXPECT_GT(reds, w * h / 50);
  EXPECT_GT(blues, w * h / 50);
}

// FractalShark's view 5 (assets/locations/fractalshark/view05.loc: zoom 8.9e44, 4,718,592
// iterations, counts from about 78,000 to millions) rendered by perturbation on the CPU at 96x54 (7 s
// here): the linear scale's colours are noise (docs/img/race-deepscope-view05.png), the log scale's
// follow the rings around the minibrot (docs/img/scale-view05-log.png): neighbouring exterior
// pixels close in colour.
TEST(LogScale, FractalSharkView5ShowsItsRings) {
  auto gl = test::headless_context();
  if (!gl) return;
  std::map<std::string, std::string> key;
  std::istringstream in(
      test::slurp(std::string(DEEPSCOPE_SOURCE_DIR) + "/assets/locations/fractalshark/view05.loc"));
  for (std::string line; std::getline(in, line);) {
    const std::size_t eq = line.find(" = ");
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    key[line.substr(0, eq)] = line.substr(eq + 3);
  }
  ASSERT_EQ(key["iterations"], "4718592");
  const int w = 96, h = 54;
  const mandel::View v = test::make_view(key["re"], key["im"], key["zoom"], 4718592, w, h);
  mandel::RenderOptions opt;
  opt.method = mandel::Method::kPerturb;
  opt.backend = Backend::kCpu;
  const mandel::RenderResult r = mandel::render(v, opt);
  ASSERT_EQ(r.perturb.glitch_unresolved, 0u);
  ColourShader sh(builtin_shader_source("palette"), "palette");
  colour::Colouring c = log_colouring(v.max_iter);
  std::vector<uint8_t> log_rgb, linear_rgb;
  sh.colour(w, h, r.counts.data(), r.smooth.data(), c, &log_rgb);
  const colour::LogBase base = sh.log_base();
  c.scale = colour::CountScale::kLinear;
  sh.colour(w, h, r.counts.data(), r.smooth.data(), c, &linear_rgb);
  const Neighbours dlog = neighbour_difference(log_rgb, w, h), dlin = neighbour_difference(linear_rgb, w, h);
  std::printf(
      "view 5 at %dx%d: base %llu%+.3f, scale %.1f; neighbouring pixels' largest channel difference:\n"
      "  log scale: mean %.2f, median %.0f levels, %.2f%% within 16, %.2f%% past 64\n"
      "  linear:    mean %.2f, median %.0f levels, %.2f%% within 16, %.2f%% past 64\n",
      w, h, static_cast<unsigned long long>(base.count), base.fraction, base.scale, dlog.mean, dlog.median,
      100 * dlog.smooth, 100 * dlog.jumps, dlin.mean, dlin.median, 100 * dlin.smooth, 100 * dlin.jumps);
  EXPECT_GT(base.count, 10000u);
  EXPECT_LT(dlog.median, dlin.median / 2);
  EXPECT_GT(dlog.smooth, 3 * dlin.smooth);
}

}  // namespace
}  // namespace ds::render
