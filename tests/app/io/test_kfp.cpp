// Kalles Fraktaler palettes (app/io/kfp.h): a good file's colours and keys, KF's 1024-entry table
// (fraktal_sft.cpp UpdateColorTable's eased bytes, computed by hand here), the cycle KF walks
// (entry floor(N / IterDiv + ColorOffset) mod 1024, blended to the next) under our density and
// offset, and malformed files refused with the line named.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "app/io/kfp.h"
#include "kernels/core/atomic_file.h"
#include "test_files.h"

namespace ds::app {
namespace {

TEST(Kfp, ParsesColoursAndKeys) {
  const KfPalette p = parse_kfp(
      "Colors: 0,0,0,255,255,255,10,20,30,\r\nIterDiv: 2.5\nColorOffset: 100\nSmooth: 0\n"
      "Slopes: 1\nSlopePower: 40\nSlopeRatio: 60\nSlopeAngle: 30\nMultiColor: 0\n\n",
      "t.kfp");
  ASSERT_EQ(p.colors.size(), 3u);
  EXPECT_EQ(p.colors[2].r, 10);
  EXPECT_EQ(p.colors[2].b, 30);
  EXPECT_DOUBLE_EQ(p.iter_div, 2.5);
  EXPECT_DOUBLE_EQ(p.color_offset, 100);
  EXPECT_FALSE(p.smooth);
  EXPECT_DOUBLE_EQ(*p.slope_power, 40);
  EXPECT_DOUBLE_EQ(*p.slope_angle, 30);
}

TEST(Kfp, TableIsKfsEasedTable) {
  KfPalette p;
  p.colors = {{0, 0, 0}, {255, 255, 255}};
  const colour::Palette t = kf_table(p);
  ASSERT_EQ(t.stops, 1024);
  EXPECT_EQ(t.stop[0].r, 0);      // key 0
  EXPECT_EQ(t.stop[256].r, 127);  // halfway: sin(0) / 2 + 1/2 of 255, truncated
  EXPECT_EQ(t.stop[512].g, 255);  // key 1
  EXPECT_EQ(t.stop[768].b, 127);  // halfway back (255 -> 0: 127.5 truncated)
  // Eased, not linear: a quarter of the way between keys is sin(-pi/4) / 2 + 1/2 = 0.146 of 255.
  EXPECT_EQ(t.stop[128].r, static_cast<int>((std::sin(-0.25 * 3.14159265) / 2 + .5) * 255));
  EXPECT_LT(t.stop[128].r, 64);
}

// KF colours iteration N by entry floor(N / IterDiv + ColorOffset) mod 1024, blended linearly to the
// next by the fraction: our colour_pixel with apply_kf_palette's density and offset does the same.
TEST(Kfp, CyclesAsKf) {
  KfPalette p;
  p.colors = {{200, 0, 0}, {0, 200, 0}, {0, 0, 200}, {90, 90, 90}, {250, 250, 10}};
  p.iter_div = 2;
  p.color_offset = 100;
  colour::Colouring c;
  apply_kf_palette(p, &c);
  c.max_iter = 1u << 30;
  const colour::Palette t = kf_table(p);
  int checked = 0;
  for (double n : {301.0, 302.5, 2000.25, 4097.0, 123456.75}) {
    const double e = n / p.iter_div + p.color_offset;
    const int k = static_cast<int>(std::floor(e)) % 1024, k1 = (k + 1) % 1024;
    const double f = e - std::floor(e);
    const colour::Rgb8 got = colour::colour_pixel(c, static_cast<uint64_t>(n), static_cast<float>(n));
    const double want[3] = {t.stop[k].r + (t.stop[k1].r - t.stop[k].r) * f,
                            t.stop[k].g + (t.stop[k1].g - t.stop[k].g) * f,
                            t.stop[k].b + (t.stop[k1].b - t.stop[k].b) * f};
    EXPECT_NEAR(got.r, want[0], 1.0) << n;
    EXPECT_NEAR(got.g, want[1], 1.0) << n;
    EXPECT_NEAR(got.b, want[2], 1.0) << n;
    ++checked;
  }
  EXPECT_EQ(checked, 5);
  // Only ColorOffset mod 1024 matters (KF's index is mod 1024): -1 and 1e300 stay in [0, 1).
  p.color_offset = -1;
  apply_kf_palette(p, &c);
  EXPECT_FLOAT_EQ(c.offset, 1023.0f / 1024.0f);
  p.color_offset = 1e300;
  apply_kf_palette(p, &c);
  EXPECT_TRUE(c.offset >= 0 && c.offset < 1) << c.offset;
  p.color_offset = 100;
  apply_kf_palette(p, &c);
  // Smooth: 0 takes entry k itself, unblended (KF's m_bTrans off).
  p.smooth = false;
  apply_kf_palette(p, &c);
  EXPECT_FALSE(c.blend);
  {
    const double e = 302.5 / p.iter_div + p.color_offset;
    const int k = static_cast<int>(std::floor(e)) % 1024;
    const colour::Rgb8 got = colour::colour_pixel(c, 302, 302.5f);
    EXPECT_EQ(got.r, t.stop[k].r);
    EXPECT_EQ(got.g, t.stop[k].g);
    EXPECT_EQ(got.b, t.stop[k].b);
  }
  p.smooth = true;
  apply_kf_palette(p, &c);
  // One whole cycle is 1024 * IterDiv iterations.
  const colour::Rgb8 a = colour::colour_pixel(c, 1000, 1000.0f), b = colour::colour_pixel(c, 3048, 3048.0f);
  EXPECT_NEAR(a.r, b.r, 1);
  EXPECT_NEAR(a.g, b.g, 1);
}

void expect_refused(const std::string& text, const std::string& where, const std::string& what) {
  try {
    parse_kfp(text, "bad.kfp");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const IoError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(where), std::string::npos) << m;
    EXPECT_NE(m.find(what), std::string::npos) << m;
  }
}

TEST(Kfp, MalformedFilesNameTheLine) {
  expect_refused("IterDiv: 1\nColors: 1,2,3,4,5\n", "bad.kfp:2", "triples");
  expect_refused("Colors: 1,2,3\nIterDiv: fast\n", "bad.kfp:2", "IterDiv");
  expect_refused("Colors: 1,2,3\n\nthis is not a key\n", "bad.kfp:3", "Key: value");
  expect_refused("Colors: 1,2,300\n", "bad.kfp:1", "0..255");
  expect_refused("Colors: 1,,3\n", "bad.kfp:1", "empty");
  expect_refused("IterDiv: 0\nColors: 1,2,3\n", "bad.kfp:1", "positive");
  expect_refused("Colors: 1,2,3\nIterDiv: 1e-320\n", "bad.kfp:2", "too small");
  expect_refused("Colors: 1,2,3\nColorOffset: 1e400\n", "bad.kfp:2", "out of range");
  expect_refused("IterDiv: 1\n", "bad.kfp", "no Colors");
  std::string many = "Colors: ";
  for (int k = 0; k < 1025; ++k) many += "1,2,3,";
  expect_refused(many + "\n", "bad.kfp:1", "1024");
  EXPECT_THROW(read_kfp("/nonexistent/p.kfp"), IoError);
}

// KF's own files: the colouring keys of a KF benchmark location (.kfr) read as a palette.
TEST(Kfp, ReadsKfBenchmarkLocation) {
  const std::string path = test::source_path("../shared/locations/kf-benchmarks/1e14.kfr");
  std::ifstream probe(path);
  if (!probe) GTEST_SKIP() << "no " << path;
  const KfPalette p = read_kfp(path);
  EXPECT_EQ(p.colors.size(), 128u);
  EXPECT_DOUBLE_EQ(p.iter_div, 1);
  EXPECT_EQ(p.colors[1].r, 41);
  EXPECT_EQ(p.colors[1].b, 190);
}

// A .kfr's colour method keys, as KF's SetColor reads them, and the kf shader's parameters.
TEST(Kfp, ReadsKfColourMethodKeys) {
  const KfPalette p = read_kfp(test::source_path("tests/data/kf-benchmarks/5e113.kfr"));
  EXPECT_EQ(p.colors.size(), 128u);
  EXPECT_TRUE(p.has_method);
  EXPECT_EQ(p.color_method, 7);  // distance log
  EXPECT_EQ(p.differences, 3);   // diagonal 2x2
  EXPECT_DOUBLE_EQ(p.iter_div, 0.5);
  EXPECT_DOUBLE_EQ(p.escape_radius, 10000);  // SmoothMethod 0: KF's high radius
  EXPECT_FALSE(p.sqrt_smoothing);
  EXPECT_TRUE(kf_not_reproduced(p).empty());
  bool method = false, diffs = false;
  for (const auto& kv : kf_shader_params(p)) {
    if (kv.first == "color_method") method = kv.second == 7.0f;
    if (kv.first == "differences") diffs = kv.second == 3.0f;
  }
  EXPECT_TRUE(method);
  EXPECT_TRUE(diffs);
  // 4e533 has no ColorMethod line: KF's default (standard) applies.
  const KfPalette q = read_kfp(test::source_path("tests/data/kf-benchmarks/4e533.kfr"));
  EXPECT_FALSE(q.has_method);
  EXPECT_EQ(q.color_method, 0);
  EXPECT_EQ(q.colors.size(), 32u);

  const KfPalette r = parse_kfp(
      "Colors: 1,2,3,\nColorMethod: 4\nSmoothingMethod: 1\nBailoutRadiusPreset: 3\n"
      "BailoutRadiusCustom: 64\nInteriorColor: 10,20,30\nFlat: 1\nColorPhaseStrength: 40\n",
      "m.kfr");
  EXPECT_DOUBLE_EQ(r.escape_radius, 64);
  EXPECT_EQ(r.interior.g, 20);
  EXPECT_TRUE(r.flat);
  EXPECT_DOUBLE_EQ(r.phase_strength, 40);
  EXPECT_EQ(kf_not_reproduced(r).find("ColorMethod"), std::string::npos);  // 4 is reproduced
  // Square-root smoothing at radius 64 is reproduced (the engines carry z on from 2 to R); below 2
  // it is not, and says so.
  EXPECT_TRUE(kf_not_reproduced(r).empty()) << kf_not_reproduced(r);
  const KfPalette low = parse_kfp(
      "Colors: 1,2,3,\nSmoothingMethod: 1\nBailoutRadiusPreset: 3\nBailoutRadiusCustom: 1.5\n", "low.kfr");
  EXPECT_NE(kf_not_reproduced(low).find("square-root smoothing with escape radius 1.5"), std::string::npos)
      << kf_not_reproduced(low);
  // Square-root smoothing at radius 2 (KF's SmoothMethod 1 and 2 for power 2) is reproduced: the
  // shader reads the engine's fraction.
  for (const char* text : {"Colors: 1,2,3,\nSmoothMethod: 1\n", "Colors: 1,2,3,\nSmoothMethod: 2\n",
                           "Colors: 1,2,3,\nSmoothingMethod: 1\nBailoutRadiusPreset: 1\n"}) {
    const KfPalette q2 = parse_kfp(text, "q.kfr");
    EXPECT_TRUE(q2.sqrt_smoothing) << text;
    EXPECT_DOUBLE_EQ(q2.escape_radius, 2) << text;
    EXPECT_TRUE(kf_not_reproduced(q2).empty()) << text;
    bool on = false;
    for (const auto& kv : kf_shader_params(q2)) on |= kv.first == "sqrt_smoothing" && kv.second == 1.0f;
    EXPECT_TRUE(on) << text;
  }
  expect_refused("Colors: 1,2,3,\nColorMethod: 12\n", "bad.kfp:2", "ColorMethod");
  expect_refused("Colors: 1,2,3,\nDifferences: 2.5\n", "bad.kfp:2", "Differences");
  expect_refused("Colors: 1,2,3,\nInteriorColor: 1,2\n", "bad.kfp:2", "InteriorColor");
  expect_refused("Colors: 1,2,3,\nBailoutRadiusPreset: 3\n", "bad.kfp", "BailoutRadiusCustom");
}

}  // namespace
}  // namespace ds::app
