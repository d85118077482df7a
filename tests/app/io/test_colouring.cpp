// The one colouring path: the batch PNG (mandelbrot_png: the shader in this thread's headless
// context) has the pixels the window's path gives for the same data (ColourShader::draw into a
// texture, in another context), for every built-in; the PNG records the shader.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <string>
#include <vector>

#include "app/io/colouring.h"
#include "app/io/image_io.h"
#include "app/io/view_png.h"
#include "kernels/mandelbrot/mandelbrot.h"
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
  mandel::RenderResult r = mandel::render(v, o);
  // Stand-ins for the distance estimate and phase where this engine leaves them empty.
  if (r.dex.empty()) {
    r.dex.resize(r.counts.size());
    r.dey.resize(r.counts.size());
    r.phase.resize(r.counts.size());
    for (std::size_t q = 0; q < r.counts.size(); ++q) {
      r.dex[q] = static_cast<float>(q % 200) / 50.0f - 2.0f;
      r.dey[q] = static_cast<float>(q / 200) / 30.0f - 2.0f;
      r.phase[q] = r.smooth[q] - static_cast<float>(static_cast<int>(r.smooth[q]));
    }
  }
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
    render::ShaderFrame f;
    f.width = r.width;
    f.height = r.height;
    f.counts = r.counts.data();
    f.smooth = r.smooth.data();
    f.dex = r.dex.data();
    f.dey = r.dey.data();
    f.phase = r.phase.data();
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

}  // namespace
}  // namespace ds::app
