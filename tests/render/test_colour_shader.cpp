// GLSL colouring (render/colour_shader.h) in a headless EGL context (Mesa's llvmpipe in CI): every
// built-in shader compiles and runs; the built-in palette shader colours a rendered frame as the
// C++ colour_pixel does (to one level in a channel, counted); a user's file that does not compile
// is refused with its own line number; undecided pixels stay magenta whatever a shader returns.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

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

std::unique_ptr<HeadlessGl> context() {
  try {
    return std::make_unique<HeadlessGl>(-1);
  } catch (const GlUnavailable& e) {
    ADD_FAILURE() << "no headless OpenGL (./setup.sh installs libegl1 and libegl-mesa0): " << e.what();
    return nullptr;
  }
}

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
  auto gl = context();
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
  auto gl = context();
  if (!gl) return;
  colour::Colouring c;
  const Frame f = seahorse(&c);
  ASSERT_FALSE(builtin_shader_names().empty());
  for (const std::string& name : builtin_shader_names()) {
    SCOPED_TRACE(name);
    ColourShader sh(builtin_shader_source(name), name);
    std::vector<uint8_t> rgb;
    sh.colour(f.w, f.h, f.counts.data(), f.smooth.data(), c, &rgb);
    ASSERT_EQ(rgb.size(), static_cast<std::size_t>(f.w) * f.h * 3);
    std::size_t distinct = 0;
    for (std::size_t q = 1; q < f.counts.size(); ++q)
      distinct += rgb[3 * q] != rgb[0] || rgb[3 * q + 1] != rgb[1] || rgb[3 * q + 2] != rgb[2];
    EXPECT_GT(distinct, f.counts.size() / 2) << "the image is one colour";
  }
  EXPECT_THROW(builtin_shader_source("sepia"), ShaderError);
}

TEST(ColourShader, UserShadersCompileOrNameTheirLine) {
  auto gl = context();
  if (!gl) return;
  colour::Colouring c;
  const Frame f = seahorse(&c);
  const std::string dir = test::make_tmpdir("shader");
  // A user's shader: red by the count's parity; the undecided pixel stays magenta.
  {
    std::FILE* out = std::fopen((dir + "/parity.glsl").c_str(), "w");
    ASSERT_NE(out, nullptr);
    std::fputs("// parity\nvec3 colour() {\n  return (ds_count() & 1u) == 1u ? vec3(1.0, 0.0, 0.0) : vec3(0.0);\n}\n", out);
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
  const std::string bad = "vec3 colour() {\n  float t = ds_smooth_count();\n  return vec3(t, undefined_name, 0.0);\n}\n";
  try {
    ColourShader broken(bad, "bad.glsl");
    ADD_FAILURE() << "a shader with an unknown name compiled";
  } catch (const ShaderError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("bad.glsl"), std::string::npos) << m;
    EXPECT_TRUE(m.find("1:3") != std::string::npos || m.find("1(3)") != std::string::npos) << m;
  }
  EXPECT_THROW(shader_source(dir + "/missing.glsl"), ShaderError);
}

}  // namespace
}  // namespace ds::render
