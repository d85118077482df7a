// Canvas (kernels/colour/canvas.h): band renders equal one render; composition takes finished rows from
// the canvas and the rest from the scaled preview, coloured exactly as colour_image colours them;
// device-resident output is refused off CUDA. The CUDA canvas is tested against the CPU one in
// tests/render (through CUDA-GL interop) and here (read back).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/colour/canvas.h"
#include "locations.h"
#include "oracle.h"

namespace ds::colour {
namespace {

using namespace mandel;
using test::make_view;

Colouring colouring(uint32_t max_iter) {
  Colouring c;
  c.palette = palette_by_name("classic");
  c.density = 2.5f;
  c.offset = 0.3f;
  c.max_iter = max_iter;
  return c;
}

// RGBA of colour_image for a whole render.
std::vector<uint8_t> reference_rgba(const RenderResult& r, const Colouring& c) {
  const std::vector<uint8_t> rgb = colour_image(r.counts, r.smooth, c);
  std::vector<uint8_t> rgba(r.counts.size() * 4);
  for (size_t k = 0; k < r.counts.size(); ++k) {
    rgba[4 * k] = rgb[3 * k];
    rgba[4 * k + 1] = rgb[3 * k + 1];
    rgba[4 * k + 2] = rgb[3 * k + 2];
    rgba[4 * k + 3] = 255;
  }
  return rgba;
}

TEST(Canvas, BandsEqualOneRenderAndComposeAsColourImage) {
  const View v = make_view("-0.7453", "0.1127", "100", 600, 96, 61);
  RenderOptions opt;
  opt.arith = Arith::kF64;
  opt.backend = Backend::kCpu;
  const RenderResult whole = render(v, opt);
  Canvas canvas(v.width, v.height, Backend::kCpu);
  uint64_t iterations = 0;
  for (int y = 0; y < v.height; y += 17) {
    const RenderResult band = canvas.render_rows(v, opt, y, std::min(v.height, y + 17));
    EXPECT_TRUE(band.counts.empty());  // the pixels are in the canvas
    iterations += band.iterations;
  }
  EXPECT_EQ(iterations, whole.iterations);
  std::vector<uint32_t> counts;
  std::vector<float> smooth;
  canvas.read(&counts, &smooth);
  EXPECT_EQ(counts, whole.counts);
  EXPECT_EQ(smooth, whole.smooth);
  const Colouring c = colouring(v.max_iter);
  std::vector<uint8_t> rgba(static_cast<size_t>(v.width) * v.height * 4);
  canvas.compose_rgba(c, v.height, nullptr, rgba.data());
  EXPECT_EQ(rgba, reference_rgba(whole, c));
  std::vector<uint8_t> host;
  canvas.compose_rgba_host(c, v.height, nullptr, &host);
  EXPECT_EQ(host, rgba);
}

// A view past 2^32 - 1 iterations (counts.h's wide form): the canvas keeps the high words, its
// bands equal one render, it colours as colour_image's wide path, and its planes for the shaders
// carry the high words (the window shows such views; issue #22).
TEST(Canvas, WideViewsKeepTheHighWords) {
  View v = make_view("-2.2", "1.2", "4", 100, 48, 31);  // every pixel escapes within a few steps
  v.max_iter = 5000000000ull;
  RenderOptions opt;
  opt.arith = Arith::kF64;
  opt.backend = Backend::kCpu;
  const RenderResult whole = render(v, opt);
  ASSERT_TRUE(whole.wide());
  Canvas canvas(v.width, v.height, Backend::kCpu), preview(12, 8, Backend::kCpu);
  View coarse = v;
  coarse.width = 12;
  coarse.height = 8;
  preview.render_rows(coarse, opt, 0, coarse.height);
  for (int y = 0; y < v.height; y += 10) canvas.render_rows(v, opt, y, std::min(v.height, y + 10));
  EXPECT_TRUE(canvas.wide());
  std::vector<uint32_t> counts, high;
  std::vector<float> smooth;
  canvas.read(&counts, &smooth, &high);
  EXPECT_EQ(counts, whole.counts);
  EXPECT_EQ(smooth, whole.smooth);
  EXPECT_EQ(high, whole.counts_high);
  Colouring c = colouring(100);
  c.max_iter = v.max_iter;
  const std::vector<uint8_t> rgb = colour_image(whole.counts, whole.smooth, c, whole.counts_high);
  std::vector<uint8_t> rgba;
  canvas.compose_rgba_host(c, v.height, nullptr, &rgba);
  for (size_t k = 0; k < whole.counts.size(); ++k)
    for (int ch = 0; ch < 3; ++ch) ASSERT_EQ(rgba[4 * k + ch], rgb[3 * k + ch]) << k;
  std::vector<uint32_t> pc, ph;
  std::vector<float> ps;
  std::vector<float> fields[kCanvasFields];
  canvas.compose_planes_host(v.height, nullptr, 0, v.max_iter, &pc, &ps, &ph, &fields);
  EXPECT_EQ(pc, whole.counts);
  EXPECT_EQ(ps, whole.smooth);
  EXPECT_EQ(ph, whole.counts_high);
  // Rows not rendered yet, with no preview: interior, max_iter in both words.
  Canvas empty(v.width, v.height, Backend::kCpu);
  empty.render_rows(v, opt, 0, 1);
  empty.compose_planes_host(1, nullptr, 0, v.max_iter, &pc, &ps, &ph, &fields);
  EXPECT_EQ((static_cast<uint64_t>(ph.back()) << 32) | pc.back(), v.max_iter);
  // A narrow view after a wide one: no high words.
  View narrow = v;
  narrow.max_iter = 1000;
  canvas.render_rows(narrow, opt, 0, v.height);
  EXPECT_FALSE(canvas.wide());
  canvas.read(&counts, &smooth, &high);
  EXPECT_TRUE(high.empty());
}

TEST(Canvas, UnfinishedRowsComeFromTheScaledPreview) {
  const View v = make_view("-0.5", "0", "1", 200, 40, 30);
  View coarse = v;
  coarse.width = 10;
  coarse.height = 7;
  RenderOptions opt;
  opt.arith = Arith::kF64;
  opt.backend = Backend::kCpu;
  Canvas full(v.width, v.height, Backend::kCpu), preview(coarse.width, coarse.height, Backend::kCpu);
  preview.render_rows(coarse, opt, 0, coarse.height);
  full.render_rows(v, opt, 0, 12);
  const Colouring c = colouring(v.max_iter);
  std::vector<uint8_t> rgba(static_cast<size_t>(v.width) * v.height * 4);
  full.compose_rgba(c, 12, &preview, rgba.data());
  const RenderResult want_full = render(v, opt), want_coarse = render(coarse, opt);
  for (int y = 0; y < v.height; ++y)
    for (int x = 0; x < v.width; ++x) {
      const bool done = y < 12;
      const size_t k = done ? static_cast<size_t>(y) * v.width + x
                            : static_cast<size_t>(y * coarse.height / v.height) * coarse.width + x * coarse.width / v.width;
      const RenderResult& src = done ? want_full : want_coarse;
      const Rgb8 px = colour_pixel(c, src.counts[k], src.smooth[k]);
      const uint8_t* got = &rgba[(static_cast<size_t>(y) * v.width + x) * 4];
      ASSERT_EQ(got[0], px.r) << x << "," << y;
      ASSERT_EQ(got[1], px.g) << x << "," << y;
      ASSERT_EQ(got[2], px.b) << x << "," << y;
      ASSERT_EQ(got[3], 255);
    }
  // Without a preview the unfinished rows are black.
  full.compose_rgba(c, 12, nullptr, rgba.data());
  const uint8_t* last = &rgba[(static_cast<size_t>(v.height - 1) * v.width) * 4];
  EXPECT_EQ(last[0] | last[1] | last[2], 0);
  EXPECT_EQ(last[3], 255);
}

// A pixel perturbation left undecided (count 0) is magenta under every palette and offset, so it
// stands apart from its neighbours' palette colours.
TEST(Canvas, UnresolvedPixelsAreMagenta) {
  for (const std::string& name : palette_names()) {
    Colouring c;
    c.palette = palette_by_name(name);
    c.max_iter = 1000;
    for (float offset : {0.0f, 0.37f}) {
      c.offset = offset;
      const Rgb8 px = colour_pixel(c, 0u, 0.0f);
      EXPECT_EQ(px.r, 255) << name;
      EXPECT_EQ(px.g, 0) << name;
      EXPECT_EQ(px.b, 255) << name;
    }
  }
}

TEST(Canvas, BadSizesBandsAndBackendsAreRefused) {
  EXPECT_THROW(Canvas(0, 10, Backend::kCpu), ViewError);
  EXPECT_THROW(Canvas(10, 40000, Backend::kCpu), ViewError);
  Canvas canvas(32, 20, Backend::kCpu);
  RenderOptions opt;
  opt.backend = Backend::kCpu;
  EXPECT_THROW(canvas.render_rows(make_view("-0.5", "0", "1", 100, 33, 20), opt, 0, 20), ViewError);
  EXPECT_THROW(canvas.render_rows(make_view("-0.5", "0", "1", 100, 32, 20), opt, 5, 5), ViewError);
  EXPECT_THROW(canvas.render_rows(make_view("-0.5", "0", "1", 100, 32, 20), opt, 0, 21), ViewError);
  // Device-resident output needs CUDA.
  uint32_t c = 0;
  float s = 0;
  opt.device_counts = &c;
  opt.device_smooth = &s;
  EXPECT_THROW(render(make_view("-0.5", "0", "1", 100, 32, 20), opt), BackendError);
}

// Device section: a CUDA canvas holds exactly what the CUDA render returns, in bands, for direct
// and perturbation methods (including perturbation's flagged pixels patched on the device).
// The fields a canvas holds (dex, dey, phase, stripe, sqrt_smooth), rendered in bands on `backend`,
// come back from compose_planes_host equal to one render's arrays on the CPU (the GPU's to the
// rounding of its log and atan2, 1e-6 relative).
void expect_fields_equal_one_render(Backend backend) {
  const View v = make_view("-0.7453", "0.1127", "100", 800, 64, 40);
  RenderOptions cpu;
  cpu.backend = Backend::kCpu;
  cpu.method = Method::kDirect;
  cpu.arith = Arith::kF64;
  cpu.fields = kAllFields;
  const RenderResult want = render(v, cpu);
  RenderOptions opt = cpu;
  opt.backend = backend;
  Canvas canvas(v.width, v.height, backend, 0);
  for (int y = 0; y < v.height; y += 13) canvas.render_rows(v, opt, y, std::min(v.height, y + 13));
  EXPECT_EQ(canvas.fields(), kAllFields);
  std::vector<uint32_t> pc, ph;
  std::vector<float> ps, fields[kCanvasFields];
  canvas.compose_planes_host(v.height, nullptr, kAllFields, v.max_iter, &pc, &ps, &ph, &fields);
  const std::vector<float>* from[kCanvasFields] = {&want.dex, &want.dey, &want.phase, &want.stripe,
                                                   &want.sqrt_smooth};
  for (int f = 0; f < kCanvasFields; ++f) {
    ASSERT_EQ(fields[f].size(), from[f]->size()) << "field " << f;
    size_t differ = 0;
    for (size_t k = 0; k < fields[f].size(); ++k) {
      const float a = fields[f][k], b = (*from[f])[k];
      differ += backend == Backend::kCpu ? a != b : std::fabs(a - b) > 1e-6f * std::max(1.0f, std::fabs(b));
    }
    EXPECT_EQ(differ, 0u) << "field " << f;
  }
  size_t escaped = 0;
  for (float x : fields[4]) escaped += x > 0.0f;
  EXPECT_GT(escaped, fields[4].size() / 4);  // the square-root fraction is there, not zeros
}

TEST(Canvas, FieldsInBandsEqualOneRender) { expect_fields_equal_one_render(Backend::kCpu); }

TEST(CanvasDevice, FieldsInBandsEqualOneRender) {
  DEEPSCOPE_REQUIRE_GPU();
  expect_fields_equal_one_render(Backend::kCuda);
}

TEST(CanvasDevice, BandsOnTheDeviceEqualHostRenders) {
  DEEPSCOPE_REQUIRE_GPU();
  struct Case {
    View v;
    Method method;
    std::optional<Arith> arith;
  };
  const std::vector<Case> cases = {
      {make_view("-0.7453", "0.1127", "100", 800, 130, 77), Method::kDirect, Arith::kF64},
      {make_view(test::kKf1e14Re, test::kKf1e14Im, "1e14", 4036, 64, 48),
       Method::kDirect, Arith::kF64x2},
      {make_view(test::kMisiurewiczRe, test::kMisiurewiczIm, "1e40", 3000, 96, 64), Method::kPerturb, std::nullopt},
      {make_view("-2.2", "1.2", "4", 100, 48, 31), Method::kDirect, Arith::kF64},  // made wide below
  };
  for (Case cs : cases) {
    if (cs.v.re == "-2.2") cs.v.max_iter = 5000000000ull;
    RenderOptions opt;
    opt.backend = Backend::kCuda;
    opt.method = cs.method;
    opt.arith = cs.arith;
    const RenderResult want = render(cs.v, opt);
    Canvas canvas(cs.v.width, cs.v.height, Backend::kCuda, 0);
    uint64_t iterations = 0, glitches = 0;
    for (int y = 0; y < cs.v.height; y += 23) {
      const RenderResult band = canvas.render_rows(cs.v, opt, y, std::min(cs.v.height, y + 23));
      EXPECT_TRUE(band.counts.empty());
      iterations += band.iterations;
      glitches += band.perturb.glitch_pixels;
    }
    EXPECT_EQ(glitches, want.perturb.glitch_pixels);
    std::vector<uint32_t> counts, high;
    std::vector<float> smooth;
    canvas.read(&counts, &smooth, &high);
    EXPECT_EQ(counts, want.counts) << format_label(want);
    EXPECT_EQ(high, want.counts_high) << format_label(want);
    EXPECT_EQ(smooth, want.smooth) << format_label(want);
    EXPECT_EQ(iterations, want.iterations) << format_label(want);
    const Colouring c = colouring(cs.v.max_iter);
    std::vector<uint8_t> rgba;
    canvas.compose_rgba_host(c, cs.v.height, nullptr, &rgba);
    if (want.wide()) {
      const std::vector<uint8_t> rgb = colour_image(want.counts, want.smooth, c, want.counts_high);
      for (size_t k = 0; k < want.counts.size(); ++k)
        for (int ch = 0; ch < 3; ++ch) ASSERT_EQ(rgba[4 * k + ch], rgb[3 * k + ch]) << k;
    } else {
      EXPECT_EQ(rgba, reference_rgba(want, c)) << format_label(want);
    }
  }
}

}  // namespace
}  // namespace ds::colour
