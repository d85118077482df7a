// `deepscope bench colour`: the colour pass of one frame (default 1920x1080) through each colouring
// shader (render/colour_shader.h) in a headless EGL context: batch = data upload, draw and readback
// (ColourShader::colour, what `render` does); window = data upload and draw into a texture
// (ColourShader::draw); canvas = the window's own path from its canvas (render/canvas_shading.h:
// the data planes composed on the canvas's device into a GL buffer by CUDA-GL interop, or through
// host memory), then the draw; recolour = the draw again without the upload (ColourShader::redraw);
// median of --repeat after a warm-up. The frame is the seahorse valley in f64.
// Writes a markdown report (docs/bench/colour.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "bench.h"
#include "kernels/core/atomic_file.h"
#include "kernels/mandelbrot/mandelbrot.h"

#if DEEPSCOPE_WITH_GL
#include <glad/gl.h>

#include "kernels/colour/canvas.h"
#include "kernels/core/backend.h"
#include "render/canvas_shading.h"
#include "render/colour_shader.h"
#include "render/gl_texture.h"
#include "render/headless_gl.h"
#endif

namespace ds::app {

int bench_colour(const ArgList& args) {
  cli::Args a(args, {"out", "size", "repeat", "shader"}, {});
  if (!a.positional().empty()) throw cli::UsageError("unexpected argument \"" + a.positional()[0] + "\"");
  int w = 1920, h = 1080;
  if (a.has("size")) cli::parse_size(a.get("size", ""), 16384, &w, &h);
  const int repeat = static_cast<int>(a.get_int("repeat", 11, 1, 1000));
  const std::string out = a.get("out", "");
  if (!out.empty()) check_writable(out);
#if !DEEPSCOPE_WITH_GL
  (void)repeat;
  std::cerr << "deepscope: this build has no OpenGL loader, so there is no colouring shader to time\n";
  return 1;
#else
  using Clock = std::chrono::steady_clock;
  std::vector<std::string> shaders = render::builtin_shader_names();
  if (a.has("shader")) shaders = {a.get("shader", "")};
  // On a GPU machine the context runs on CUDA device 0 (the NVIDIA driver's EGL), so the canvas
  // path can share buffers with CUDA; elsewhere Mesa's.
  std::string why_cpu;
  const Backend backend = mandel::select_backend(Backend::kAuto, &why_cpu);
  render::HeadlessGl gl(backend == Backend::kCuda ? 0 : -1);
  mandel::View v;
  v.re = "-0.7453";
  v.im = "0.1127";
  v.zoom = "100";
  v.max_iter = 1000;
  v.width = w;
  v.height = h;
  mandel::RenderOptions o;
  o.arith = Arith::kF64;
  o.fields = mandel::kAllFields;
  const auto t0 = Clock::now();
  mandel::RenderResult r = mandel::render(v, o);
  const double render_s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::string data_note = "engine";
  if (r.dex.size() != r.counts.size() || r.phase.size() != r.counts.size() || r.stripe.size() != r.counts.size()) {
    // The engine does not fill them yet: stand-ins of the same size (the timing does not depend on them).
    data_note = "stand-ins (the engine gave none)";
    r.dex.assign(r.counts.size(), 0.5f);
    r.dey.assign(r.counts.size(), 0.25f);
    r.phase.assign(r.counts.size(), 0.3f);
    r.stripe.assign(r.counts.size(), 0.6f);
  }
  // The window's canvas on the render's backend, with every field.
  colour::Canvas canvas(w, h, backend);
  {
    mandel::RenderOptions co = o;
    co.backend = backend;
    canvas.render_rows(v, co, 0, h);
  }
  colour::Colouring c;
  c.palette = colour::palette_by_name("classic");
  c.max_iter = v.max_iter;
  render::ShaderFrame f;
  f.width = w;
  f.height = h;
  f.counts = r.counts.data();
  f.smooth = r.smooth.data();
  f.dex = r.dex.data();
  f.dey = r.dey.data();
  f.phase = r.phase.data();
  f.stripe = r.stripe.data();
  auto median = [&](auto&& fn) {
    fn();  // warm-up: textures allocated, shader compiled by the driver
    glFinish();
    std::vector<double> t;
    for (int k = 0; k < repeat; ++k) {
      const auto s = Clock::now();
      fn();
      glFinish();
      t.push_back(std::chrono::duration<double>(Clock::now() - s).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  std::string md = bench_preamble("colour", args);
  md += "- GL: " + gl.description() + "\n- frame: " + std::to_string(w) + "x" + std::to_string(h) +
        ", seahorse valley (-0.7453 + 0.1127i, zoom 100, 1000 iterations, f64; rendered in " +
        fmt("%.2f", render_s) + " s); distance estimate and phase: " + data_note + "\n- times: median of " +
        std::to_string(repeat) +
        " after a warm-up, glFinish included; batch = upload the frame's data, draw, read back RGB "
        "(ColourShader::colour); window = upload the frame's host arrays and draw into an RGBA8 texture "
        "(ColourShader::draw); canvas = the window's path from its " +
        std::string(backend == Backend::kCuda ? "CUDA" : "CPU") +
        " canvas (CanvasShading::draw: compose the data planes, then upload and draw), through CUDA-GL "
        "interop and through host memory; recolour = draw again with another offset, the data as "
        "uploaded (ColourShader::redraw: a palette or slider change in the window)\n\n"
        "| shader | reads | batch ms | window ms | canvas, interop ms | canvas, via host ms | recolour ms |\n"
        "|---|---|---|---|---|---|---|\n";
  std::string interop_note;
  for (const std::string& name : shaders) {
    render::ColourShader sh(render::shader_source(name), name);
    std::vector<uint8_t> rgb;
    render::Texture2D tex;
    tex.upload_rgba(nullptr, w, h);
    const double batch = median([&] { sh.colour(f, c, &rgb); });
    const double window = median([&] { sh.draw(f, c, tex.id()); });
    render::CanvasShading interop(true), via_host(false);
    std::string interop_ms = "-";
    if (backend == Backend::kCuda) {
      render::DisplayPath p = render::DisplayPath::kHostUpload;
      const double t = median([&] { p = interop.draw(sh, canvas, nullptr, h, c, tex.id()); });
      if (p == render::DisplayPath::kInterop)
        interop_ms = fmt("%.2f", t * 1e3);
      else
        interop_note = interop.interop_note();
    }
    const double host_path = median([&] { via_host.draw(sh, canvas, nullptr, h, c, tex.id()); });
    colour::Colouring other = c;
    int step = 0;
    const double recolour = median([&] {
      other.offset = 0.01f * static_cast<float>(++step % 100);
      sh.redraw(w, h, other, tex.id());
    });
    std::string reads = "counts, smooth";
    if (sh.fields() & mandel::kFieldDistance) reads += ", DE";
    if (sh.fields() & mandel::kFieldPhase) reads += ", phase";
    if (sh.fields() & mandel::kFieldStripe) reads += ", stripe";
    md += "| " + name + " | " + reads + " | " + fmt("%.1f", batch * 1e3) + " | " + fmt("%.1f", window * 1e3) +
          " | " + interop_ms + " | " + fmt("%.2f", host_path * 1e3) + " | " + fmt("%.2f", recolour * 1e3) + " |\n";
  }
  if (backend != Backend::kCuda)
    md += "\nNo CUDA device (" + why_cpu + "): the canvas is a CPU one, so there is no interop column.\n";
  else if (!interop_note.empty())
    md += "\nInterop was not available: " + interop_note + "\n";
  std::cout << md;
  if (!out.empty()) write_file_atomically(out, md);
  return 0;
#endif
}

}  // namespace ds::app
