// The one colouring path: the batch PNG (mandelbrot_png: the shader in this thread's headless
// context) has the pixels the window's path gives for the same data (ColourShader::draw into a
// texture, in another context), for every built-in; the PNG records the shader.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/io/colouring.h"
#include "app/io/image_io.h"
#include "app/io/view_png.h"
#include "kernels/core/atomic_file.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/mandelbrot/view.h"
#include "locations.h"
#include "render/colour_shader.h"
#include "render/gl_texture.h"
#include "render/headless_gl.h"

extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace ds::app {
namespace {

TEST(Colouring, BatchPngEqualsTheWindowsPath) {
  if (!headless_gl_unavailable().empty()) GTEST_FAIL() << "no headless OpenGL: " << headless_gl_unavailable();
  const mandel::View v = test::make_view("-0.7453", "0.1127", "100", 500, 200, 120);
  mandel::RenderOptions o;
  o.arith = Arith::kF64;
  o.backend = Backend::kCpu;
  o.fields = mandel::kAllFields;  // every field, whichever a shader reads
  const mandel::RenderResult r = mandel::render(v, o);
  ASSERT_EQ(r.stripe.size(), r.counts.size());
  colour::Colouring c;
  c.palette = colour::palette_by_name("fire");
  c.density = 2.0f;
  c.max_iter = v.max_iter;
  // The window's context (one for the whole test: ending a context terminates the EGL display that
  // the batch path's context shares).
  render::HeadlessGl gl(-1);
  for (const std::string& name : render::builtin_shader_names()) {
    SCOPED_TRACE(name);
    const ShaderSpec spec = load_shader(name);
    std::string note;
    const std::string png = mandelbrot_png(v, r, "fire", c, {}, spec, &note);
    EXPECT_TRUE(note.empty()) << note;
    std::string record;
    ASSERT_TRUE(png_find_text(png, kPngColourKey, &record));
    EXPECT_NE(record.find("shader = " + name + "\n"), std::string::npos) << record;
    EXPECT_NE(record.find("coloured_by = GLSL"), std::string::npos) << record;
    int w = 0, h = 0, comp = 0;
    unsigned char* px = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                              static_cast<int>(png.size()), &w, &h, &comp, 3);
    ASSERT_NE(px, nullptr);
    ASSERT_EQ(w, v.width);
    ASSERT_EQ(h, v.height);
    const std::vector<uint8_t> batch(px, px + w * h * 3);
    stbi_image_free(px);

    // The window's path, in its own context.
    gl.make_current();
    render::ColourShader sh(spec.source, name);
    const render::ShaderFrame f = render::shader_frame(r);
    render::Texture2D tex;
    tex.upload_rgba(nullptr, w, h);
    sh.draw(f, c, tex.id());
    const std::vector<uint8_t> rgba = tex.read_rgba();
    std::size_t differ = 0;
    for (int q = 0; q < w * h; ++q)
      for (int k = 0; k < 3; ++k) differ += rgba[4 * q + k] != batch[3 * q + k];
    EXPECT_EQ(differ, 0u);
  }
}

// A reference for the fields the engines are to fill, at a shallow view in double: the distance
// estimate's vector v = z ln|z| / (dz/dc) in pixels (x right, y down) and the final z's phase in
// turns, from an orbit run to |z| > 1000 (identity pixel map, square pixels).
void reference_fields(const mandel::View& v, std::vector<float>* dex, std::vector<float>* dey,
                      std::vector<float>* phase) {
  const mandel::Geometry g = mandel::geometry(v);
  const double s = 2 * g.half_step_d;
  const std::size_t n = static_cast<std::size_t>(v.width) * v.height;
  dex->assign(n, 0.0f);
  dey->assign(n, 0.0f);
  phase->assign(n, 0.0f);
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      const std::complex<double> c(g.re_d + g.half_step_d * (2 * i + 1 - v.width),
                                   g.im_d - g.half_step_d * (2 * j + 1 - v.height));
      std::complex<double> z = 0, dz = 0;
      uint64_t k = 0;
      for (; k < v.max_iter && std::norm(z) < 1e6; ++k) {
        dz = 2.0 * z * dz + 1.0;
        z = z * z + c;
      }
      if (std::norm(z) < 1e6) continue;
      const std::complex<double> de = z * std::log(std::abs(z)) / dz / s;
      const std::size_t q = static_cast<std::size_t>(j) * v.width + i;
      (*dex)[q] = static_cast<float>(de.real());
      (*dey)[q] = static_cast<float>(-de.imag());
      double t = std::arg(z) / (2 * M_PI);
      (*phase)[q] = static_cast<float>(t < 0 ? t + 1 : t);
    }
}

// The built-in shaders on a rendered frame with reference fields: distance leaves pixels at least
// de_pixels from the boundary as the palette colours them and darkens those within half a pixel to
// a quarter at most; decomposition is white exactly where the phase is below a half. With
// DEEPSCOPE_DOC_IMAGES=DIR set, the PNGs of docs/colouring.md are written there.
TEST(Colouring, BuiltInsOnAFrameWithReferenceFields) {
  if (!headless_gl_unavailable().empty()) GTEST_FAIL() << "no headless OpenGL: " << headless_gl_unavailable();
  const mandel::View v = test::make_view("-0.7453", "0.1127", "100", 1000, 480, 270);
  mandel::RenderOptions o;
  o.arith = Arith::kF64;
  o.backend = Backend::kCpu;
  mandel::RenderResult r = mandel::render(v, o);
  reference_fields(v, &r.dex, &r.dey, &r.phase);
  colour::Colouring c;
  c.palette = colour::palette_by_name("classic");
  c.density = 1.0f;
  c.max_iter = v.max_iter;
  auto pixels = [&](const std::string& shader, std::vector<std::pair<std::string, float>> params = {}) {
    const std::string png = mandelbrot_png(v, r, "classic", c, {}, load_shader(shader, params));
    const char* dir = std::getenv("DEEPSCOPE_DOC_IMAGES");
    if (dir) write_file_atomically(std::string(dir) + "/colour-" + shader + ".png", png);
    int w = 0, h = 0, comp = 0;
    unsigned char* px = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                              static_cast<int>(png.size()), &w, &h, &comp, 3);
    std::vector<uint8_t> out(px, px + w * h * 3);
    stbi_image_free(px);
    return out;
  };
  const std::vector<uint8_t> palette = pixels("palette"), distance = pixels("distance"),
                             decomposition = pixels("decomposition");
  pixels("slopes");
  std::size_t far = 0, far_equal = 0, near = 0, near_dark = 0, exterior = 0, split_right = 0;
  for (std::size_t q = 0; q < r.counts.size(); ++q) {
    if (r.counts[q] >= c.max_iter) continue;
    ++exterior;
    const double d = std::hypot(r.dex[q], r.dey[q]);
    const uint8_t* p = &palette[3 * q];
    const uint8_t* t = &distance[3 * q];
    if (d >= 2.0) {
      ++far;
      far_equal += p[0] == t[0] && p[1] == t[1] && p[2] == t[2];
    } else if (d < 0.5) {
      ++near;
      bool dark = true;
      for (int k = 0; k < 3; ++k) dark &= t[k] <= p[k] / 4 + 1;
      near_dark += dark;
    }
    const bool white = decomposition[3 * q] == 255 && decomposition[3 * q + 1] == 255;
    const bool black = decomposition[3 * q] == 0 && decomposition[3 * q + 1] == 0;
    split_right += r.phase[q] < 0.5f ? white : black;
  }
  std::printf("%zu exterior pixels: %zu at >= 2 px (%zu as the palette), %zu within 0.5 px (%zu darkened)\n",
              exterior, far, far_equal, near, near_dark);
  EXPECT_GT(far, exterior / 4);
  EXPECT_GT(near, 1000u);
  EXPECT_EQ(far_equal, far);
  EXPECT_EQ(near_dark, near);
  EXPECT_EQ(split_right, exterior);
}

}  // namespace
}  // namespace ds::app
