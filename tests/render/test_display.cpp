// The display paths of render/canvas_texture.h in a headless EGL context: what reaches the GL
// texture is exactly the frame the engine composed. CPU (Mesa's software EGL device in CI): host
// upload. Device section (an NVIDIA GPU with its EGL driver): the frame drawn through CUDA-GL
// interop equals the CPU-rendered frame and the copy through the host, byte for byte.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <optional>
#include <string>
#include <vector>

#include "headless_context.h"
#include "kernels/colour/canvas.h"
#include "kernels/core/device.h"
#include "kernels/henon/henon.h"
#include "kernels/colour/point_cloud.h"
#include "locations.h"
#include "oracle.h"
#include "render/canvas_shading.h"
#include "render/canvas_texture.h"
#include "render/colour_shader.h"
#include "render/headless_gl.h"

// Under the sanitizers (DEEPSCOPE_SANITIZE, docs/quality.md): Mesa's EGL driver leaks 128 bytes,
// and eglTerminate has unloaded it by the time LeakSanitizer reports, so no suppression can name
// it. Leak checking is off for this binary; ASan's other checks stay on.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace ds::render {
namespace {

using colour::Canvas;
using test::make_view;

DisplayPath last_path = DisplayPath::kHostUpload;  // the path of the last shaded_by_canvas

colour::Colouring colouring(uint32_t max_iter) {
  colour::Colouring c;
  c.palette = colour::palette_by_name("fire");
  c.density = 1.7f;
  c.offset = 0.1f;
  c.max_iter = max_iter;
  return c;
}

TEST(Display, HostUploadShowsTheComposedFrame) {
  auto gl = test::headless_context();
  if (!gl) return;
  std::cout << "GL: " << gl->description() << "\n";
  const mandel::View v = make_view("-0.7453", "0.1127", "100", 500, 75, 41);
  mandel::RenderOptions opt;
  opt.arith = Arith::kF64;
  Canvas canvas(v.width, v.height, Backend::kCpu), preview(19, 11, Backend::kCpu);
  mandel::View coarse = v;
  coarse.width = 19;
  coarse.height = 11;
  preview.render_rows(coarse, opt, 0, coarse.height);
  canvas.render_rows(v, opt, 0, 30);
  const colour::Colouring c = colouring(v.max_iter);
  CanvasTexture tex;
  EXPECT_EQ(tex.show(canvas, c, 30, &preview), DisplayPath::kHostUpload);
  std::vector<uint8_t> want;
  canvas.compose_rgba_host(c, 30, &preview, &want);
  EXPECT_EQ(tex.texture().width(), v.width);
  EXPECT_EQ(tex.texture().height(), v.height);
  EXPECT_EQ(tex.texture().read_rgba(), want);
  // A new palette recolours the same canvas without rendering.
  colour::Colouring gray = c;
  gray.palette = colour::palette_by_name("gray");
  tex.show(canvas, gray, 30, &preview);
  canvas.compose_rgba_host(gray, 30, &preview, &want);
  EXPECT_EQ(tex.texture().read_rgba(), want);
}

// The window's colouring path (CanvasShading) colours the frame a shader would colour from the
// engine's own arrays: the canvas's finished rows with their fields, and below them the preview's
// nearest pixels (here a whole render of the view, so every row must equal the one-shot render).
std::vector<uint8_t> shaded_by_canvas(ColourShader& sh, CanvasShading& shading, const Canvas& canvas,
                                      const Canvas* preview, int rows_done, const colour::Colouring& c) {
  Texture2D tex;
  tex.upload_rgba(nullptr, canvas.width(), canvas.height());
  last_path = shading.draw(sh, canvas, preview, rows_done, c, tex.id());
  const std::vector<uint8_t> rgba = tex.read_rgba();
  std::vector<uint8_t> rgb;
  for (std::size_t q = 0; q < rgba.size(); q += 4) rgb.insert(rgb.end(), rgba.begin() + q, rgba.begin() + q + 3);
  return rgb;
}

TEST(Display, CanvasShadingEqualsTheShaderOverTheEngineArrays) {
  auto gl = test::headless_context();
  if (!gl) return;
  mandel::View wide = make_view("-2.2", "1.2", "4", 100, 48, 31);  // counts' high words (max_iter >= 2^32)
  wide.max_iter = 5000000000ull;
  for (const mandel::View& v : {make_view("-0.7453", "0.1127", "300", 2000, 96, 54), wide})
  for (const char* name : {"palette", "slopes", "stripe", "decomposition"}) {
    SCOPED_TRACE(name + std::string(" ") + std::to_string(v.max_iter));
    colour::Colouring c = colouring(2000);
    c.max_iter = v.max_iter;
    ColourShader sh(builtin_shader_source(name), name);
    mandel::RenderOptions opt;
    opt.arith = Arith::kF64;
    opt.backend = Backend::kCpu;
    opt.fields = sh.fields();
    const mandel::RenderResult whole = mandel::render(v, opt);
    std::vector<uint8_t> want;
    sh.colour(shader_frame(whole), c, &want);
    Canvas canvas(v.width, v.height, Backend::kCpu), preview(v.width, v.height, Backend::kCpu);
    preview.render_rows(v, opt, 0, v.height);
    canvas.render_rows(v, opt, 0, 20);  // rows below 20 come from the preview
    CanvasShading shading;
    EXPECT_EQ(shaded_by_canvas(sh, shading, canvas, &preview, 20, c), want);
    EXPECT_EQ(last_path, DisplayPath::kHostUpload);
    canvas.render_rows(v, opt, 20, v.height);
    EXPECT_EQ(shaded_by_canvas(sh, shading, canvas, nullptr, v.height, c), want);
  }
}

TEST(InteropDevice, CanvasShadingThroughInteropEqualsTheHostPath) {
  DEEPSCOPE_REQUIRE_GPU();
  auto gl = test::headless_context(0);
  if (!gl) return;
  struct Case {
    mandel::View v;
    mandel::Method method;
  };
  const std::vector<Case> cases = {
      {make_view("-0.7453", "0.1127", "300", 2000, 320, 180), mandel::Method::kDirect},
      {make_view(test::kMisiurewiczRe, test::kMisiurewiczIm, "1e40", 3000, 128, 72), mandel::Method::kPerturb},
  };
  const colour::Colouring c = colouring(2000);
  for (const Case& cs : cases)
    for (const char* name : {"slopes", "stripe", "decomposition"}) {
      SCOPED_TRACE(name);
      ColourShader sh(builtin_shader_source(name), name);
      mandel::RenderOptions opt;
      opt.method = cs.method;
      opt.fields = sh.fields();
      Canvas gpu(cs.v.width, cs.v.height, Backend::kCuda, 0), cpu(cs.v.width, cs.v.height, Backend::kCpu);
      Canvas gpu_preview(cs.v.width / 4, cs.v.height / 4, Backend::kCuda, 0);
      mandel::View coarse = cs.v;
      coarse.width /= 4;
      coarse.height /= 4;
      gpu_preview.render_rows(coarse, opt, 0, coarse.height);
      gpu.render_rows(cs.v, opt, 0, cs.v.height / 2);
      CanvasShading interop(true), via_host(false);
      const std::vector<uint8_t> a = shaded_by_canvas(sh, interop, gpu, &gpu_preview, cs.v.height / 2, c);
      ASSERT_EQ(last_path, DisplayPath::kInterop) << interop.interop_note();
      const std::vector<uint8_t> b = shaded_by_canvas(sh, via_host, gpu, &gpu_preview, cs.v.height / 2, c);
      EXPECT_EQ(last_path, DisplayPath::kDeviceDownload);
      EXPECT_EQ(a, b) << "a band and the preview: interop differs from the copy through the host";
      gpu.render_rows(cs.v, opt, cs.v.height / 2, cs.v.height);
      cpu.render_rows(cs.v, opt, 0, cs.v.height);
      CanvasShading on_cpu;
      const std::vector<uint8_t> x = shaded_by_canvas(sh, interop, gpu, nullptr, cs.v.height, c);
      const std::vector<uint8_t> y = shaded_by_canvas(sh, on_cpu, cpu, nullptr, cs.v.height, c);
      std::size_t differ = 0;
      for (std::size_t k = 0; k < x.size(); ++k) differ += x[k] != y[k];
      std::cout << cs.v.zoom << " " << name << ": interop frame vs the CPU canvas: " << differ
                << " channel values differ\n";
      EXPECT_EQ(differ, 0u);
    }
}

TEST(InteropDevice, FrameEqualsTheCpuRenderedFrame) {
  DEEPSCOPE_REQUIRE_GPU();
  auto gl = test::headless_context(0);
  if (!gl) return;
  std::cout << "GL: " << gl->description() << "\n";
  struct Case {
    mandel::View v;
    mandel::Method method;
    std::optional<Arith> arith;
  };
  const std::vector<Case> cases = {
      {make_view("-0.7453", "0.1127", "100", 1000, 320, 180), mandel::Method::kDirect, Arith::kF64},
      {make_view("-0.5", "0", "1", 300, 257, 131), mandel::Method::kDirect, Arith::kF32},
      {make_view(test::kKf1e14Re, test::kKf1e14Im, "1e14", 4036, 128, 72),
       mandel::Method::kDirect, Arith::kF64x2},
      {make_view(test::kMisiurewiczRe, test::kMisiurewiczIm, "1e40", 3000, 128, 72), mandel::Method::kPerturb,
       std::nullopt},
  };
  for (const Case& cs : cases) {
    mandel::RenderOptions opt;
    opt.method = cs.method;
    opt.arith = cs.arith;
    Canvas gpu(cs.v.width, cs.v.height, Backend::kCuda, 0), cpu(cs.v.width, cs.v.height, Backend::kCpu);
    const mandel::RenderResult r = gpu.render_rows(cs.v, opt, 0, cs.v.height);
    cpu.render_rows(cs.v, opt, 0, cs.v.height);
    const std::string label = mandel::format_label(r);
    const colour::Colouring c = colouring(cs.v.max_iter);
    CanvasTexture interop(true), via_host(false), cpu_tex;
    ASSERT_EQ(interop.show(gpu, c, cs.v.height), DisplayPath::kInterop) << interop.interop_note();
    EXPECT_EQ(via_host.show(gpu, c, cs.v.height), DisplayPath::kDeviceDownload);
    EXPECT_EQ(cpu_tex.show(cpu, c, cs.v.height), DisplayPath::kHostUpload);
    const std::vector<uint8_t> a = interop.texture().read_rgba(), b = via_host.texture().read_rgba(),
                               d = cpu_tex.texture().read_rgba();
    EXPECT_EQ(a, b) << label << ": interop differs from the copy through the host";
    size_t differ = 0;
    for (size_t k = 0; k < a.size(); k += 4) differ += a[k] != d[k] || a[k + 1] != d[k + 1] || a[k + 2] != d[k + 2];
    EXPECT_EQ(differ, 0u) << label << ": pixels of the interop frame that differ from the CPU-rendered frame";
    std::cout << label << " " << cs.v.width << "x" << cs.v.height << ": interop frame "
              << (differ ? "DIFFERS from" : "equals") << " the CPU-rendered frame (" << differ << " pixels differ)\n";
  }
}

// What the window does: a worker renders bands into a CUDA canvas while this thread keeps showing
// the finished rows through interop (on the non-blocking display stream). Every frame shown has
// the finished rows of the final image and the preview below them; the last equals the CPU frame.
TEST(InteropDevice, ShowsBandsWhileAWorkerRenders) {
  DEEPSCOPE_REQUIRE_GPU();
  auto gl = test::headless_context(0);
  if (!gl) return;
  const mandel::View v = make_view("-0.7453", "0.1127", "100", 20000, 480, 270);
  mandel::View coarse = v;
  coarse.width = v.width / 4;
  coarse.height = v.height / 4;
  mandel::RenderOptions opt;
  opt.arith = Arith::kF64;
  Canvas full(v.width, v.height, Backend::kCuda, 0), preview(coarse.width, coarse.height, Backend::kCuda, 0);
  preview.render_rows(coarse, opt, 0, coarse.height);
  Canvas cpu(v.width, v.height, Backend::kCpu), cpu_preview(coarse.width, coarse.height, Backend::kCpu);
  cpu_preview.render_rows(coarse, opt, 0, coarse.height);
  cpu.render_rows(v, opt, 0, v.height);
  const colour::Colouring c = colouring(v.max_iter);

  std::atomic<int> rows_done{0};
  std::thread worker([&] {
    for (int y = 0; y < v.height; y += 10) {
      full.render_rows(v, opt, y, std::min(v.height, y + 10));
      rows_done.store(std::min(v.height, y + 10), std::memory_order_release);
    }
  });
  CanvasTexture tex;
  int shown = 0, frames = 0, checked = 0;
  std::vector<uint8_t> want;
  while (shown < v.height) {
    const int rows = rows_done.load(std::memory_order_acquire);
    ASSERT_EQ(tex.show(full, c, rows, &preview), DisplayPath::kInterop) << tex.interop_note();
    ++frames;
    if (rows != shown && checked < 4) {  // a few intermediate frames, checked in full
      cpu.compose_rgba_host(c, rows, &cpu_preview, &want);
      EXPECT_EQ(tex.texture().read_rgba(), want) << "rows done " << rows;
      ++checked;
    }
    shown = rows;
  }
  worker.join();
  cpu.compose_rgba_host(c, v.height, nullptr, &want);
  EXPECT_EQ(tex.texture().read_rgba(), want);
  std::cout << frames << " frames shown while the worker rendered " << v.height << " rows in bands of 10; "
            << checked << " intermediate frames checked\n";
  EXPECT_GT(frames, 1);
}

// The Hénon orbit plot: a point cloud drawn into the texture, through interop from a CUDA cloud,
// equals the CPU cloud's image uploaded from the host.
TEST(Display, PointCloudOnTheHost) {
  auto gl = test::headless_context();
  if (!gl) return;
  henon::OrbitParams op;
  op.n_points = 50000;
  const henon::OrbitResult o = henon::orbit(op);
  colour::PointCloud cloud(Backend::kCpu);
  cloud.set_points(o.xs, o.ys);
  colour::PlotFrame f;
  f.cx = 0.2;
  f.upp = 0.01;
  f.width = 333;
  f.height = 177;
  ImageTexture tex;
  std::vector<uint8_t> want;
  cloud.render_rgba_host(f, &want);
  EXPECT_EQ(tex.show(f.width, f.height, -1, nullptr, [&](std::vector<uint8_t>* v) { cloud.render_rgba_host(f, v); }),
            DisplayPath::kHostUpload);
  EXPECT_EQ(tex.texture().read_rgba(), want);
}

TEST(InteropDevice, PointCloudEqualsTheCpuCloud) {
  DEEPSCOPE_REQUIRE_GPU();
  auto gl = test::headless_context(0);
  if (!gl) return;
  henon::OrbitParams op;
  op.n_transient = 1000;
  op.n_points = 1000000;
  const henon::OrbitResult o = henon::orbit(op);
  colour::PointCloud cpu(Backend::kCpu), gpu(Backend::kCuda, 0);
  cpu.set_points(o.xs, o.ys);
  gpu.set_points(o.xs, o.ys);
  colour::PlotFrame f;
  f.cx = 0.0;
  f.upp = 0.0035;
  f.width = 1000;
  f.height = 420;
  ImageTexture tex;
  ASSERT_EQ(tex.show(
                f.width, f.height, 0, [&](uint8_t* p) { gpu.render_rgba(f, p); },
                [&](std::vector<uint8_t>* v) { gpu.render_rgba_host(f, v); }),
            DisplayPath::kInterop)
      << tex.interop_note();
  std::vector<uint8_t> want;
  cpu.render_rgba_host(f, &want);
  EXPECT_EQ(tex.texture().read_rgba(), want);
}

}  // namespace
}  // namespace ds::render
