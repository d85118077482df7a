// The built-in "kf" shader (shaders/kf.glsl) against Kalles Fraktaler 2's formulas, written out
// again here in double (KF 2.15 fraktal_sft.cpp, CFraktalSFT::SetColor; KF's value of a pixel is
// count + 1 - trans, ours + log2(log2 R)): for every colour method (4, stretched, over the frame's
// count range) and every kind of differences,
// the palette entry a pixel gets is the one KF's formula gives. The palette's 1024 entries are all
// different and Smooth is off, so each pixel's colour names its entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "headless_context.h"
#include "kernels/colour/palette.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "render/colour_shader.h"
#include "render/headless_gl.h"

extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace ds::render {
namespace {

constexpr int kW = 640, kH = 4;  // 640 wide: KF's distance scale W / 640 is 1
constexpr uint64_t kMaxIter = 100000;

// Entry k: red k mod 256, green 60 * (k / 256): every entry differs.
colour::Colouring entries(double iter_div, double color_offset) {
  colour::Colouring c;
  c.palette.stops = 1024;
  for (int k = 0; k < 1024; ++k)
    c.palette.stop[k] = {static_cast<uint8_t>(k & 255), static_cast<uint8_t>(60 * (k >> 8)), 9};
  c.blend = false;
  c.density = static_cast<float>(32.0 / (1024.0 * iter_div));
  c.offset = static_cast<float>(color_offset / 1024.0);
  c.max_iter = kMaxIter;
  return c;
}
int entry_of(const std::vector<uint8_t>& rgb, int x, int y) {
  const uint8_t* p = &rgb[3 * (static_cast<std::size_t>(y) * kW + x)];
  return p[0] + 256 * (p[1] / 60);
}

// A smooth field with curvature, so that every stencil sees a different gradient; one interior
// pixel and one undecided pixel (count 0) among them.
struct Field {
  std::vector<uint32_t> counts;
  std::vector<float> smooth, dex, dey, phase;
  // KF's square-root smoothing fraction (kFieldSqrtSmooth), read in place of the logarithmic one
  // where sqrt_mode is set.
  std::vector<float> sqrt_frac;
  bool sqrt_mode = false;
  Field() {
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        const double mu = 1234.0 + 0.37 * x + 0.9 * y + 0.0031 * x * x + 0.05 * x * y;
        counts.push_back(static_cast<uint32_t>(std::floor(mu)));
        smooth.push_back(static_cast<float>(mu));
        dex.push_back(static_cast<float>(0.02 + 0.001 * x));
        dey.push_back(static_cast<float>(0.03 - 0.0005 * y));
        phase.push_back(static_cast<float>((x % 17) / 17.0));
        sqrt_frac.push_back(static_cast<float>(0.5 + 0.45 * std::sin(0.013 * x + 0.7 * y)));
      }
    counts[at(100, 1)] = kMaxIter;
    smooth[at(100, 1)] = kMaxIter;
    counts[at(200, 2)] = 0;
  }
  static std::size_t at(int x, int y) { return static_cast<std::size_t>(y) * kW + x; }
  ShaderFrame frame() const {
    ShaderFrame f;
    f.width = kW;
    f.height = kH;
    f.counts = counts.data();
    f.smooth = smooth.data();
    f.dex = dex.data();
    f.dey = dey.data();
    f.phase = phase.data();
    f.sqrt_smooth = sqrt_frac.data();
    return f;
  }
  // KF's value count + 1 - trans of an escaped pixel.
  double value(std::size_t k) const;
};

const double kShift = std::log2(std::log2(10000.0));  // KF's SMOOTH_BAILOUT

double Field::value(std::size_t k) const {
  return sqrt_mode ? static_cast<double>(counts[k]) + sqrt_frac[k] : static_cast<double>(smooth[k]) + kShift;
}

// KF's p at (x, y): count + 1 - trans = our smooth count + shift; interior max_iter + 1; NAN where
// KF has no value (outside, undecided).
double kf_p(const Field& f, int x, int y) {
  if (x < 0 || y < 0 || x >= kW || y >= kH) return NAN;
  const std::size_t k = Field::at(x, y);
  if (f.counts[k] == 0) return NAN;
  if (f.counts[k] >= kMaxIter) return kMaxIter + 1.0;
  return f.value(k);
}

double sq(double v) { return v * v; }

// KF's SetColor differencing for one pixel (w = h = 1, no jitter).
double kf_gradient(const Field& f, int x, int y, int diffs) {
  if (diffs == 7) return 1 / std::hypot(f.dex[Field::at(x, y)], f.dey[Field::at(x, y)]);
  // KF's stencil: +infinity where there is no value, then each missing entry in turn (00, 01, 02,
  // 10, 12, 20, 21, 22) set to 2 p[1][1] minus its opposite entry as it stands then.
  const double inf = 1.0 / 0.0;
  double q[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      q[i][j] = kf_p(f, x + i - 1, y + j - 1);
      if (std::isnan(q[i][j])) q[i][j] = inf;
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if ((i != 1 || j != 1) && q[i][j] == inf) q[i][j] = 2 * q[1][1] - q[2 - i][2 - j];
  const double k = 2.8284271247461903;
  switch (diffs) {
    case 1: {
      double g = sq(q[0][1] - q[1][1]) + sq(q[2][1] - q[1][1]) + sq(q[1][0] - q[1][1]) + sq(q[1][2] - q[1][1]) +
                 sq(q[0][0] - q[1][1]) / 2 + sq(q[2][2] - q[1][1]) / 2 + sq(q[2][0] - q[1][1]) / 2 +
                 sq(q[0][2] - q[1][1]) / 2;
      return std::sqrt(0.25 * g) * k;
    }
    case 2: {
      double g = sq(q[2][1] - q[0][1]) / 4 + sq(q[1][2] - q[1][0]) / 4 + sq(q[2][2] - q[0][0]) / 8 +
                 sq(q[0][2] - q[2][0]) / 8;
      return std::sqrt(0.5 * g) * k;
    }
    case 3:
      return std::sqrt(sq(q[0][0] - q[1][1]) / 2 + sq(q[0][1] - q[1][0]) / 2) * k;
    case 4: {  // least squares over the 2x2 block at (+-1/2, +-1/2): the mean-free plane fit
      double gx = 0.5 * (q[1][0] + q[1][1] - q[0][0] - q[0][1]);
      double gy = 0.5 * (q[0][1] + q[1][1] - q[0][0] - q[1][0]);
      return std::hypot(gx, gy) * k;
    }
    case 5: {  // least squares over the 8 neighbours: A^T A = 6 I on the grid
      double gx = 0, gy = 0;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          gx += (i - 1) * (q[i][j] - q[1][1]) / 6;
          gy += (j - 1) * (q[i][j] - q[1][1]) / 6;
        }
      return std::hypot(gx, gy) * k;
    }
    case 6: {
      double l = (q[0][0] + 4 * q[0][1] + q[0][2] + 4 * q[1][0] - 20 * q[1][1] + 4 * q[1][2] + q[2][0] +
                  4 * q[2][1] + q[2][2]) /
                 6;
      return std::sqrt(std::fabs(l * 1.4426950408889634)) * k;
    }
    default:
      return std::fabs((q[0][1] - q[1][1]) * 1.414) + std::fabs((q[1][0] - q[1][1]) * 1.414) +
             std::fabs((q[0][0] - q[1][1]) * 1.414 / std::sqrt(2.0)) +
             std::fabs((q[0][2] - q[1][1]) * 1.414 / std::sqrt(2.0));
  }
}

// KF's palette entry for the pixel: the method's transfer, / IterDiv, + ColorOffset, mod 1024.
double kf_iter(const Field& f, int x, int y, int method, int diffs, double iter_div, bool flat) {
  const std::size_t k = Field::at(x, y);
  double iter = flat ? static_cast<double>(f.counts[k]) : f.value(k);
  switch (method) {
    case 1: iter = std::sqrt(std::fmax(0, iter)); break;
    case 2: iter = std::pow(std::fmax(0, iter), 1.0 / 3); break;
    case 3: iter = std::log(std::fmax(1, iter)); break;
    case 9: iter = std::log(1 + std::log(1 + iter)); break;
    case 10: iter = std::atan(iter); break;
    case 11: iter = std::sqrt(std::sqrt(std::fmax(0, iter))); break;
    case 4: {  // stretched: KF's GetIterations(nMin, nMax, ..., TRUE) over counts below max_iter - 1
      uint32_t lo = 0, hi = 0;
      bool any = false;
      for (uint32_t n : f.counts) {
        if (n == 0 || n >= kMaxIter - 1) continue;  // undecided (KF: unevaluated), interior
        lo = any ? std::min(lo, n) : n;
        hi = any ? std::max(hi, n) : n;
        any = true;
      }
      iter = 1024.0 * (iter - lo) / (static_cast<double>(hi) - lo);
      break;
    }
    case 5: case 6: case 7: case 8: {
      double d = kf_gradient(f, x, y, diffs) * kW / 640.0;
      if (method == 8 || method == 6) d = std::sqrt(std::fmax(0, d));
      if (method == 7) d = std::log(std::fmax(1, d + 1));
      if (d > 1024) d = 1024;  // KF's clamp (NaN, from inf - inf at a corner, passes it)
      if (!(method == 6 && d > iter_div)) iter = d;
      break;
    }
    default: break;
  }
  return iter / iter_div;
}

// Pixels checked: inside, at the frame's corners and edges (KF's reflection), and beside the
// interior and undecided pixels.
const int kPixels[][2] = {{1, 1}, {320, 2}, {0, 0}, {639, 3}, {639, 0}, {101, 1}, {200, 1}, {201, 2}, {50, 3}};

// Checks every pixel's entry; an entry whose KF value lies within 1e-3 of a boundary may go either
// way (float in the shader), and is counted apart.
void check(const std::vector<uint8_t>& rgb, const Field& f, int method, int diffs, double iter_div,
           double offset, bool flat) {
  int near_boundary = 0;
  for (const auto& px : kPixels) {
    const double v = kf_iter(f, px[0], px[1], method, diffs, iter_div, flat) + offset;
    // KF's own value is NaN here (+inf - inf in its corner reflection): no entry to compare with.
    if (std::isnan(v)) continue;
    const double frac = v - std::floor(v);
    const int want = static_cast<int>(((static_cast<int64_t>(std::floor(v)) % 1024) + 1024) % 1024);
    const int got = entry_of(rgb, px[0], px[1]);
    if (!flat && ((frac > 0 && frac < 1e-3) || frac > 1 - 1e-3)) {
      ++near_boundary;
      EXPECT_LE(std::abs(got - want) % 1023, 1) << "pixel " << px[0] << "," << px[1];
      continue;
    }
    EXPECT_EQ(got, want) << "method " << method << " differences " << diffs << " pixel " << px[0] << ","
                         << px[1] << ": KF's value " << v;
  }
  EXPECT_LE(near_boundary, 1);
}

TEST(KfShader, EveryMethodGivesKfsPaletteEntry) {
  auto gl = test::headless_context();
  if (!gl) return;
  const Field f;
  ColourShader sh(builtin_shader_source("kf"), "kf");
  std::vector<uint8_t> rgb;
  for (int method : {0, 1, 2, 3, 4, 9, 10, 11}) {
    for (double iter_div : {1.0, 0.5, 18.0}) {
      SCOPED_TRACE("method " + std::to_string(method) + ", IterDiv " + std::to_string(iter_div));
      const colour::Colouring c = entries(iter_div, 37);
      sh.set_param("color_method", static_cast<float>(method));
      sh.colour(f.frame(), c, &rgb);
      check(rgb, f, method, 0, iter_div, 37, false);
    }
  }
  // Flat: whole iterations, without KF's smoothing or its shift.
  sh.set_param("color_method", 0);
  sh.set_param("flat_colour", 1);
  sh.colour(f.frame(), entries(1, 0), &rgb);
  check(rgb, f, 0, 0, 1, 0, true);
  EXPECT_EQ(entry_of(rgb, 1, 1), static_cast<int>(f.counts[Field::at(1, 1)] % 1024));
  // Stretched and flat: the whole counts' range over the 1024 entries; the frame's lowest count
  // takes entry 0, its highest (bottom right, the field rises to the right and down) entry 1024
  // = 0 again, the one just below it 1023 or less.
  sh.set_param("color_method", 4);
  sh.colour(f.frame(), entries(1, 0), &rgb);
  check(rgb, f, 4, 0, 1, 0, true);
  EXPECT_EQ(entry_of(rgb, 0, 0), 0);
}

TEST(KfShader, EveryDifferencesGivesKfsPaletteEntry) {
  auto gl = test::headless_context();
  if (!gl) return;
  const Field f;
  ColourShader sh(builtin_shader_source("kf"), "kf");
  std::vector<uint8_t> rgb;
  for (int method : {5, 6, 7, 8}) {
    for (int diffs = 0; diffs <= 7; ++diffs) {
      SCOPED_TRACE("method " + std::to_string(method) + ", differences " + std::to_string(diffs));
      sh.set_param("color_method", static_cast<float>(method));
      sh.set_param("differences", static_cast<float>(diffs));
      // IterDiv 0.01: the distance values (a few units) spread over many entries.
      sh.colour(f.frame(), entries(0.01, 5), &rgb);
      check(rgb, f, method, diffs, 0.01, 5, false);
    }
  }
}

// KF's square-root smoothing (SmoothingMethod 1): the value is count + the engine's fraction
// (kFieldSqrtSmooth), for the plain and the distance methods alike, and the shader asks for that
// field only while the parameter is on.
TEST(KfShader, SquareRootSmoothingTakesTheEnginesFraction) {
  auto gl = test::headless_context();
  if (!gl) return;
  Field f;
  f.sqrt_mode = true;
  ColourShader sh(builtin_shader_source("kf"), "kf");
  EXPECT_EQ(sh.fields() & mandel::kFieldSqrtSmooth, 0u);
  sh.set_param("sqrt_smoothing", 1);
  EXPECT_EQ(sh.fields(), static_cast<unsigned>(mandel::kFieldSqrtSmooth));
  std::vector<uint8_t> rgb;
  for (int method : {0, 1, 3, 5, 8}) {
    SCOPED_TRACE("method " + std::to_string(method));
    sh.set_param("color_method", static_cast<float>(method));
    const double iter_div = method >= 5 ? 0.01 : 0.25;
    sh.colour(f.frame(), entries(iter_div, 11), &rgb);
    check(rgb, f, method, 0, iter_div, 11, false);
  }
  // Not the logarithmic fraction: at pixel (1, 1) the two values name different entries.
  sh.set_param("color_method", 0);
  sh.colour(f.frame(), entries(0.25, 0), &rgb);
  Field g;
  EXPECT_NE(entry_of(rgb, 1, 1), static_cast<int>(std::floor(kf_iter(g, 1, 1, 0, 0, 0.25, false))) % 1024);
  sh.set_param("sqrt_smoothing", 0);
  EXPECT_EQ(sh.fields() & mandel::kFieldSqrtSmooth, 0u);
}

TEST(KfShader, InteriorColourAndReadsOnlyWhatItNeeds) {
  auto gl = test::headless_context();
  if (!gl) return;
  const Field f;
  ColourShader sh(builtin_shader_source("kf"), "kf");
  // Standard colouring reads counts and smooth counts only; analytic differences the distance
  // estimate; a phase strength the phase.
  EXPECT_EQ(sh.fields(), 0u);
  sh.set_param("differences", 7);
  EXPECT_EQ(sh.fields(), static_cast<unsigned>(mandel::kFieldDistance));
  sh.set_param("phase_strength", 50);
  EXPECT_EQ(sh.fields(), static_cast<unsigned>(mandel::kFieldDistance | mandel::kFieldPhase));
  sh.set_param("differences", 0);
  sh.set_param("phase_strength", 0);
  sh.set_param("interior_red", 200);
  sh.set_param("interior_green", 10);
  sh.set_param("interior_blue", 30);
  std::vector<uint8_t> rgb;
  sh.colour(f.frame(), entries(1, 0), &rgb);
  const uint8_t* in = &rgb[3 * Field::at(100, 1)];
  EXPECT_EQ(in[0], 200);
  EXPECT_EQ(in[1], 10);
  EXPECT_EQ(in[2], 30);
  const uint8_t* undecided = &rgb[3 * Field::at(200, 2)];
  EXPECT_EQ(undecided[0], 255);
  EXPECT_EQ(undecided[1], 0);
  EXPECT_EQ(undecided[2], 255);
  // The phase strength moves the entry by strength / 100 * 1024 * phase (KF's m_nPhase).
  sh.set_param("phase_strength", 25);
  sh.colour(f.frame(), entries(1, 0), &rgb);
  const int x = 5, y = 1;
  const double v = kf_iter(f, x, y, 0, 0, 1, false) + 0.25 * 1024 * f.phase[Field::at(x, y)];
  EXPECT_EQ(entry_of(rgb, x, y), static_cast<int>(std::floor(v)) % 1024);
}

TEST(KfShader, ParametersHaveReadableNamesAndKinds) {
  auto gl = test::headless_context();
  if (!gl) return;
  ColourShader sh(builtin_shader_source("kf"), "kf");
  int checked = 0;
  for (const ShaderParam& p : sh.params()) {
    EXPECT_FALSE(p.label.empty());
    EXPECT_EQ(p.label.find('_'), std::string::npos) << p.name << " has no readable label";
    EXPECT_FALSE(p.help.empty()) << p.name << " has no tooltip";
    if (p.name == "color_method") {
      EXPECT_EQ(p.kind, ShaderParam::Kind::kChoice);
      ASSERT_EQ(p.choices.size(), 12u);
      EXPECT_EQ(p.choices[7], "distance log");
      ++checked;
    }
    if (p.name == "differences") {
      EXPECT_EQ(p.kind, ShaderParam::Kind::kChoice);
      ASSERT_EQ(p.choices.size(), 8u);
      EXPECT_EQ(p.choices[3], "diagonal 2x2");
      ++checked;
    }
    if (p.name == "slopes" || p.name == "flat_colour") {
      EXPECT_EQ(p.kind, ShaderParam::Kind::kBool);
      ++checked;
    }
    if (p.name == "interior_red") {
      EXPECT_EQ(p.kind, ShaderParam::Kind::kInt);
      EXPECT_EQ(p.min, 0);
      EXPECT_EQ(p.max, 255);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5);
  // The stripe shader's show_approximate is a checkbox too.
  ColourShader stripe(builtin_shader_source("stripe"), "stripe");
  bool found = false;
  for (const ShaderParam& p : stripe.params())
    if (p.name == "show_approximate") {
      found = true;
      EXPECT_EQ(p.kind, ShaderParam::Kind::kBool);
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ds::render
