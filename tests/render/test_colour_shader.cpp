// GLSL colouring (render/colour_shader.h) in a headless EGL context (Mesa's llvmpipe in CI): every
// built-in shader compiles and runs; the built-in palette shader colours a rendered frame as the
// C++ colour_pixel does (to one level in a channel, counted), narrow, wide (counts past 2^32) and
// with a 1024-stop palette; distance, slopes and decomposition give the colours their formulas give
// at pixels whose distance estimate and phase are set by hand; a shader's parameters and the data it
// reads are found; drawing into a texture (the window) gives the readback's bytes; a user's file
// that does not compile is refused with its own line number; undecided pixels stay magenta.
#include <gtest/gtest.h>

#include <glad/gl.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "channel_diff.h"
#include "headless_context.h"
#include "kernels/colour/palette.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "locations.h"
#include "render/colour_shader.h"
#include "render/gl_texture.h"
#include "render/headless_gl.h"
#include "test_files.h"

// Mesa's EGL driver leaks at exit where LeakSanitizer cannot name it (as in test_display.cpp).
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace ds::render {
namespace {

struct Frame {
  int w = 0, h = 0;
  std::vector<uint32_t> counts;
  std::vector<float> smooth;
};

// The seahorse valley in f64 on the CPU, with one pixel marked undecided (count 0) as perturbation
// marks a pixel it could not decide.
Frame seahorse(colour::Colouring* c) {
  const mandel::View v = test::make_view("-0.7453", "0.1127", "100", 500, 320, 180);
  mandel::RenderOptions opt;
  opt.arith = Arith::kF64;
  opt.backend = Backend::kCpu;
  const mandel::RenderResult r = mandel::render(v, opt);
  Frame f{v.width, v.height, r.counts, r.smooth};
  f.counts[5 * 320 + 7] = 0;
  c->palette = colour::palette_by_name("classic");
  c->density = 1.7f;
  c->offset = 0.23f;
  c->max_iter = v.max_iter;
  return f;
}

TEST(ColourShader, BuiltInPaletteEqualsColourPixel) {
  auto gl = test::headless_context();
  if (!gl) return;
  std::printf("GL: %s\n", gl->description().c_str());
  colour::Colouring c;
  const Frame f = seahorse(&c);
  const std::vector<uint8_t> want = colour::colour_image(f.counts, f.smooth, c);
  ColourShader sh(builtin_shader_source("palette"), "palette");
  std::vector<uint8_t> got;
  sh.colour(f.w, f.h, f.counts.data(), f.smooth.data(), c, &got);
  ASSERT_EQ(got.size(), want.size());
  std::size_t exact = 0, off_by_one = 0, worse = 0, interior = 0;
  for (std::size_t q = 0; q < f.counts.size(); ++q) {
    int d = 0;
    for (int k = 0; k < 3; ++k) d = std::max(d, std::abs(got[3 * q + k] - want[3 * q + k]));
    (d == 0 ? exact : d == 1 ? off_by_one : worse) += 1;
    interior += f.counts[q] >= c.max_iter;
  }
  std::printf("%zu pixels: %zu exact, %zu one level apart, %zu more (interior %zu)\n", f.counts.size(), exact,
              off_by_one, worse, interior);
  EXPECT_EQ(worse, 0u);
  EXPECT_GE(exact, f.counts.size() * 999 / 1000);
  EXPECT_GT(interior, 100u);  // the frame holds both kinds of pixel
  const std::size_t u = 5 * 320 + 7;
  EXPECT_EQ(got[3 * u], 255);
  EXPECT_EQ(got[3 * u + 1], 0);
  EXPECT_EQ(got[3 * u + 2], 255);
}

TEST(ColourShader, EveryBuiltInCompilesAndRuns) {
  auto gl = test::headless_context();
  if (!gl) return;
  colour::Colouring c;
  const Frame f = seahorse(&c);
  ASSERT_FALSE(builtin_shader_names().empty());
  for (const std::string& name : builtin_shader_names()) {
    SCOPED_TRACE(name);
    ColourShader sh(builtin_shader_source(name), name);
    // Stand-ins for the engine's distance estimate and phase (until every engine fills them): a
    // vector growing away from the frame's centre, and the smooth count's fraction.
    std::vector<float> dex(f.counts.size()), dey(f.counts.size()), phase(f.counts.size()), stripe(f.counts.size());
    for (int y = 0; y < f.h; ++y)
      for (int x = 0; x < f.w; ++x) {
        const std::size_t q = static_cast<std::size_t>(y) * f.w + x;
        dex[q] = (x - f.w / 2) / 40.0f;
        dey[q] = (y - f.h / 2) / 40.0f;
        phase[q] = f.smooth[q] - std::floor(f.smooth[q]);
        stripe[q] = 0.5f + 0.5f * std::sin(0.3f * static_cast<float>(x + y));
      }
    ShaderFrame fr;
    fr.width = f.w;
    fr.height = f.h;
    fr.counts = f.counts.data();
    fr.smooth = f.smooth.data();
    fr.dex = dex.data();
    fr.dey = dey.data();
    fr.phase = phase.data();
    fr.stripe = stripe.data();
    std::vector<uint8_t> rgb;
    sh.colour(fr, c, &rgb);
    ASSERT_EQ(rgb.size(), static_cast<std::size_t>(f.w) * f.h * 3);
    std::size_t distinct = 0;
    for (std::size_t q = 1; q < f.counts.size(); ++q)
      distinct += rgb[3 * q] != rgb[0] || rgb[3 * q + 1] != rgb[1] || rgb[3 * q + 2] != rgb[2];
    EXPECT_GT(distinct, f.counts.size() / 5) << "the image is (nearly) one colour";
  }
  EXPECT_THROW(builtin_shader_source("sepia"), ShaderError);
  EXPECT_EQ(builtin_shader_names(),
            (std::vector<std::string>{"palette", "decomposition", "distance", "kf", "slopes", "stripe"}));
}

TEST(ColourShader, UserShadersCompileOrNameTheirLine) {
  auto gl = test::headless_context();
  if (!gl) return;
  colour::Colouring c;
  const Frame f = seahorse(&c);
  const std::string dir = test::make_tmpdir("shader");
  // A user's shader: red by the count's parity; the undecided pixel stays magenta.
  {
    std::FILE* out = std::fopen((dir + "/parity.glsl").c_str(), "w");
    ASSERT_NE(out, nullptr);
    std::fputs(
        "// parity\nvec3 colour() {\n  return (ds_count() & 1u) == 1u ? vec3(1.0, 0.0, 0.0) : "
        "vec3(0.0);\n}\n",
        out);
    std::fclose(out);
  }
  ColourShader sh(shader_source(dir + "/parity.glsl"), dir + "/parity.glsl");
  std::vector<uint8_t> rgb;
  sh.colour(f.w, f.h, f.counts.data(), f.smooth.data(), c, &rgb);
  for (std::size_t q = 0; q < f.counts.size(); ++q) {
    if (f.counts[q] == 0) {
      EXPECT_EQ(rgb[3 * q + 2], 255) << "undecided pixel " << q << " not magenta";
      continue;
    }
    ASSERT_EQ(rgb[3 * q], (f.counts[q] & 1u) ? 255 : 0) << q;
    ASSERT_EQ(rgb[3 * q + 2], 0) << q;
  }
  // Line 3 of the file uses a name that does not exist.
  const std::string bad =
      "vec3 colour() {\n  float t = ds_smooth_count();\n  return vec3(t, undefined_name, 0.0);\n}\n";
  try {
    ColourShader broken(bad, "bad.glsl");
    ADD_FAILURE() << "a shader with an unknown name compiled";
  } catch (const ShaderError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("bad.glsl"), std::string::npos) << m;
    EXPECT_NE(m.find("bad.glsl:3:"), std::string::npos) << m;  // the file's line 3, as FILE:LINE
    EXPECT_EQ(m.find("prelude"), std::string::npos) << m;      // no message about the prelude
  }
  EXPECT_THROW(shader_source(dir + "/missing.glsl"), ShaderError);
}

// Wide counts (max_iter >= 2^32; smooth holds smooth count - count): the shader's palette position
// is colour_pixel_wide's (the whole cycles dropped in double first), at counts near 2^33 and 2^40
// where a float position would have lost every bit of the fraction.
TEST(ColourShader, WideCountsColourAsColourPixelWide) {
  auto gl = test::headless_context();
  if (!gl) return;
  const int w = 256, h = 64;
  colour::Colouring c;
  c.palette = colour::palette_by_name("classic");
  c.density = 1.3f;
  c.offset = 0.1f;
  c.max_iter = (1ull << 41) + 12345;
  std::mt19937_64 rng(20261126);
  std::printf("seed 20261126\n");
  std::vector<uint32_t> lo(w * h), hi(w * h);
  std::vector<float> frac(w * h);
  std::vector<uint8_t> want(w * h * 3);
  for (int q = 0; q < w * h; ++q) {
    uint64_t n = (q % 3 == 0 ? (1ull << 33) : (1ull << 40)) + rng() % 1000000;
    if (q == 17) n = c.max_iter;  // interior
    lo[q] = static_cast<uint32_t>(n);
    hi[q] = static_cast<uint32_t>(n >> 32);
    frac[q] = std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    const colour::Rgb8 px = colour::colour_pixel_wide(c, n, frac[q]);
    want[3 * q] = px.r;
    want[3 * q + 1] = px.g;
    want[3 * q + 2] = px.b;
  }
  ColourShader sh(builtin_shader_source("palette"), "palette");
  ShaderFrame f;
  f.width = w;
  f.height = h;
  f.counts = lo.data();
  f.smooth = frac.data();
  f.counts_high = hi.data();
  std::vector<uint8_t> got;
  sh.colour(f, c, &got);
  test::expect_within_one_level(got, want, "wide");
  EXPECT_EQ(got[3 * 17] + got[3 * 17 + 1] + got[3 * 17 + 2], 0);
}

// A 1024-stop palette (a KF table's size) goes in as a texture and colours as colour_pixel does.
TEST(ColourShader, ThousandStopPaletteEqualsColourPixel) {
  auto gl = test::headless_context();
  if (!gl) return;
  colour::Colouring c;
  const Frame f = seahorse(&c);
  c.palette.stops = colour::kMaxPaletteStops;
  for (int k = 0; k < c.palette.stops; ++k)
    c.palette.stop[k] = {static_cast<uint8_t>(k * 37), static_cast<uint8_t>(255 - k / 4),
                         static_cast<uint8_t>(k * 11)};
  c.density = 0.05f;
  const std::vector<uint8_t> want = colour::colour_image(f.counts, f.smooth, c);
  ColourShader sh(builtin_shader_source("palette"), "palette");
  std::vector<uint8_t> got;
  sh.colour(f.w, f.h, f.counts.data(), f.smooth.data(), c, &got);
  test::expect_within_one_level(got, want, "1024 stops");
  // Unblended (KF's Smooth: 0): every exterior pixel is one of the stops, as colour_pixel says.
  c.blend = false;
  const std::vector<uint8_t> want_steps = colour::colour_image(f.counts, f.smooth, c);
  sh.colour(f.w, f.h, f.counts.data(), f.smooth.data(), c, &got);
  test::expect_within_one_level(got, want_steps, "1024 stops unblended");
  EXPECT_NE(want_steps, want);
}

// A 3 x 1 frame of escaped pixels (count 10, smooth 10.5) with hand-set distance estimates and
// phases, and one interior pixel; the palette colour there is colour_pixel's.
struct Tiny {
  int w = 4, h = 1;
  std::vector<uint32_t> counts{10, 10, 10, 100};
  std::vector<float> smooth{10.5f, 10.5f, 10.5f, 100.0f};
  std::vector<float> dex{0.5f, 3.0f, -0.25f, 0.0f}, dey{0.0f, 4.0f, 0.1f, 0.0f},
      phase{0.25f, 0.75f, 0.5f, 0.0f};
  // stripe averages as the engines store them: 1, 0.25, 0.5 marked approximate (-1 - 0.5), interior
  std::vector<float> stripe{1.0f, 0.25f, -1.5f, 0.0f};
  colour::Colouring c;
  colour::Rgb8 palette;
  Tiny() {
    c.palette = colour::palette_by_name("ocean");
    c.max_iter = 100;
    palette = colour::colour_pixel(c, 10, 10.5f);
  }
  ShaderFrame frame() const {
    ShaderFrame f;
    f.width = w;
    f.height = h;
    f.counts = counts.data();
    f.smooth = smooth.data();
    f.dex = dex.data();
    f.dey = dey.data();
    f.phase = phase.data();
    f.stripe = stripe.data();
    return f;
  }
};

int level(double x) { return static_cast<int>(std::lround(std::min(1.0, std::max(0.0, x)) * 255.0)); }

void expect_near(const std::vector<uint8_t>& rgb, int pixel, const int want[3], const char* what) {
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(rgb[3 * pixel + k], want[k], 1) << what << ": pixel " << pixel << " channel " << k;
}

TEST(ColourShader, DistanceShadesByTheDistanceEstimate) {
  auto gl = test::headless_context();
  if (!gl) return;
  Tiny t;
  ColourShader sh(builtin_shader_source("distance"), "distance");
  EXPECT_EQ(sh.fields(), static_cast<unsigned>(mandel::kFieldDistance));
  ASSERT_EQ(sh.params().size(), 1u);
  EXPECT_EQ(sh.params()[0].name, "de_pixels");
  EXPECT_FLOAT_EQ(sh.params()[0].default_value, 2.0f);
  std::vector<uint8_t> rgb;
  sh.colour(t.frame(), t.c, &rgb);
  const uint8_t p[3] = {t.palette.r, t.palette.g, t.palette.b};
  // |DE| 0.5 of 2 pixels: a quarter of the palette colour; |DE| 5: the palette colour.
  int quarter[3], full[3], zero[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    quarter[k] = level(p[k] / 255.0 * 0.25);
    full[k] = p[k];
  }
  expect_near(rgb, 0, quarter, "|DE| 0.5");
  expect_near(rgb, 1, full, "|DE| 5");
  expect_near(rgb, 3, zero, "interior");
  EXPECT_GT(p[0] + p[1] + p[2], 100);  // the palette colour is not dark itself
  // de_pixels 0.5: |DE| 0.5 is the full colour.
  sh.set_param("de_pixels", 0.5f);
  sh.colour(t.frame(), t.c, &rgb);
  expect_near(rgb, 0, full, "|DE| 0.5 of 0.5");
  EXPECT_THROW(sh.set_param("de_width", 1.0f), ShaderError);
}

// KF's Slopes (fraktal_sft.cpp), in double here: the gradient 1/DE against the light at the angle.
void kf_slopes(const uint8_t p[3], double dex, double dey, double power, double ratio, double angle,
               int width, int out[3]) {
  const double d2 = dex * dex + dey * dey;
  const double gx = dex / d2, gy = -dey / d2;
  const double a = angle * M_PI / 180;
  double diff = (gx * std::cos(a) + gy * std::sin(a)) * power * width / 640.0;
  const bool lit = diff < 0;
  diff = std::atan(std::fabs(diff)) / (M_PI / 2) * ratio / 100;
  for (int k = 0; k < 3; ++k) {
    const double s = p[k] / 255.0;
    out[k] = level(lit ? (1 - diff) * s + diff : (1 - diff) * s);
  }
}

TEST(ColourShader, SlopesLightAsKallesFraktaler) {
  auto gl = test::headless_context();
  if (!gl) return;
  Tiny t;
  ColourShader sh(builtin_shader_source("slopes"), "slopes");
  EXPECT_EQ(sh.fields(), static_cast<unsigned>(mandel::kFieldDistance));
  std::vector<std::string> names;
  for (const ShaderParam& p : sh.params()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"slope_angle", "slope_power", "slope_ratio"}));
  const uint8_t p[3] = {t.palette.r, t.palette.g, t.palette.b};
  for (double angle : {45.0, 200.0}) {
    sh.set_param("slope_angle", static_cast<float>(angle));
    sh.set_param("slope_power", 30.0f);
    sh.set_param("slope_ratio", 80.0f);
    std::vector<uint8_t> rgb;
    sh.colour(t.frame(), t.c, &rgb);
    for (int q = 0; q < 3; ++q) {
      int want[3];
      kf_slopes(p, t.dex[q], t.dey[q], 30, 80, angle, t.w, want);
      expect_near(rgb, q, want, angle == 45.0 ? "angle 45" : "angle 200");
    }
  }
  // KF's sign: a surface whose gradient 1/DE points along the angle is darkened, against it
  // lightened; pixel 0 (DE along +x) is lighter at 200 degrees than at 45.
  std::vector<uint8_t> a, b;
  sh.set_param("slope_angle", 200.0f);
  sh.colour(t.frame(), t.c, &a);
  sh.set_param("slope_angle", 45.0f);
  sh.colour(t.frame(), t.c, &b);
  EXPECT_GT(a[0] + a[1] + a[2], b[0] + b[1] + b[2]);
}

TEST(ColourShader, DecompositionSplitsByThePhase) {
  auto gl = test::headless_context();
  if (!gl) return;
  Tiny t;
  ColourShader sh(builtin_shader_source("decomposition"), "decomposition");
  EXPECT_EQ(sh.fields(), static_cast<unsigned>(mandel::kFieldPhase));
  std::vector<uint8_t> rgb;
  sh.colour(t.frame(), t.c, &rgb);
  const int white[3] = {255, 255, 255}, black[3] = {0, 0, 0};
  expect_near(rgb, 0, white, "phase 0.25");
  expect_near(rgb, 1, black, "phase 0.75");
  expect_near(rgb, 2, black, "phase 0.5");
  expect_near(rgb, 3, black, "interior");
  sh.set_param("decomposition_mix", 1.0f);
  sh.colour(t.frame(), t.c, &rgb);
  const int pal[3] = {t.palette.r, t.palette.g, t.palette.b};
  expect_near(rgb, 1, pal, "mix 1");
  // The palette shader reads neither.
  ColourShader palette(builtin_shader_source("palette"), "palette");
  EXPECT_EQ(palette.fields(), 0u);
  EXPECT_TRUE(palette.params().empty());
}

// The stripe average scales the palette colour by (1 - stripe_mix) + stripe_mix S, reading the
// engines' stored form (an approximate pixel's -1 - S is S), and show_approximate tints those.
TEST(ColourShader, StripeScalesThePaletteByTheStripeAverage) {
  auto gl = test::headless_context();
  if (!gl) return;
  Tiny t;
  ColourShader sh(builtin_shader_source("stripe"), "stripe");
  EXPECT_EQ(sh.fields(), static_cast<unsigned>(mandel::kFieldStripe));
  const uint8_t p[3] = {t.palette.r, t.palette.g, t.palette.b};
  std::vector<uint8_t> rgb;
  sh.colour(t.frame(), t.c, &rgb);
  const double s[3] = {1.0, 0.25, 0.5};
  for (int q = 0; q < 3; ++q) {
    int want[3];
    for (int k = 0; k < 3; ++k) want[k] = level(p[k] / 255.0 * (0.2 + 0.8 * s[q]));
    expect_near(rgb, q, want, "stripe_mix 0.8");
  }
  const int black[3] = {0, 0, 0};
  expect_near(rgb, 3, black, "interior");
  sh.set_param("show_approximate", 1.0f);
  std::vector<uint8_t> tinted;
  sh.colour(t.frame(), t.c, &tinted);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(tinted[k], rgb[k]) << "an exact pixel is not tinted";
  int want[3];
  for (int k = 0; k < 3; ++k) want[k] = level(0.5 * (p[k] / 255.0 * 0.6) + 0.5 * (k == 0 ? 0.0 : 1.0));
  expect_near(tinted, 2, want, "the approximate pixel, tinted");
}

// The window's path (draw into an RGBA8 texture, no readback) gives the batch readback's bytes.
TEST(ColourShader, DrawIntoATextureEqualsTheReadback) {
  auto gl = test::headless_context();
  if (!gl) return;
  colour::Colouring c;
  const Frame f = seahorse(&c);
  for (const std::string& name : builtin_shader_names()) {
    SCOPED_TRACE(name);
    ColourShader sh(builtin_shader_source(name), name);
    std::vector<uint8_t> rgb;
    sh.colour(f.w, f.h, f.counts.data(), f.smooth.data(), c, &rgb);
    Texture2D tex;
    tex.upload_rgba(nullptr, f.w, f.h);
    ShaderFrame fr;
    fr.width = f.w;
    fr.height = f.h;
    fr.counts = f.counts.data();
    fr.smooth = f.smooth.data();
    sh.draw(fr, c, tex.id());
    const std::vector<uint8_t> rgba = tex.read_rgba();
    ASSERT_EQ(rgba.size(), rgb.size() / 3 * 4);
    std::size_t differ = 0;
    for (std::size_t q = 0; q < rgb.size() / 3; ++q)
      for (int k = 0; k < 3; ++k) differ += rgba[4 * q + k] != rgb[3 * q + k];
    EXPECT_EQ(differ, 0u);
    // Another colouring drawn again over the same data (redraw: no upload) equals colouring
    // the frame afresh with it.
    colour::Colouring other = c;
    other.palette = colour::palette_by_name("rainbow");
    other.offset = 0.5f;
    std::vector<uint8_t> want;
    ColourShader fresh(builtin_shader_source(name), name);
    fresh.colour(f.w, f.h, f.counts.data(), f.smooth.data(), other, &want);
    ASSERT_TRUE(sh.redraw(f.w, f.h, other, tex.id()));
    const std::vector<uint8_t> again = tex.read_rgba();
    std::size_t redraw_differ = 0, changed = 0;
    for (std::size_t q = 0; q < want.size() / 3; ++q)
      for (int k = 0; k < 3; ++k) {
        redraw_differ += again[4 * q + k] != want[3 * q + k];
        changed += again[4 * q + k] != rgba[4 * q + k];
      }
    EXPECT_EQ(redraw_differ, 0u);
    // The new colouring shows (distance and decomposition draw no palette without the fields).
    if (name == "palette" || name == "slopes") {
      EXPECT_GT(changed, want.size() / 10);
    }
    EXPECT_FALSE(sh.redraw(f.w + 1, f.h, other, tex.id()));  // no frame of that size
    // Row 0 is the top: the undecided pixel (5, 7) is magenta in the texture.
    const std::size_t u = 4 * (5 * 320 + 7);
    EXPECT_EQ(rgba[u] + rgba[u + 1] + rgba[u + 2], 255 + 255);
  }
}

}  // namespace
}  // namespace ds::render
