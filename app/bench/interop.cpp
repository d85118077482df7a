// `deepscope bench interop`: frame time at 1920x1080 for each format at named views, the display
// step by CUDA-GL interop against the copy through the host, in a headless EGL context
// (render/headless_gl.h). A frame is what the window does for a view: render into a Canvas, then
// show it (render/canvas_texture.h). Writes a markdown report (docs/bench/interop.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <iostream>
#include <string>
#include <vector>

#include "bench.h"
#include "app/cli/cli.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/device.h"

#if DEEPSCOPE_WITH_GL
#include <glad/gl.h>

#include "kernels/colour/canvas.h"
#include "kernels/colour/palette.h"
#include "render/canvas_texture.h"
#include "render/headless_gl.h"
#include "kernels/mandelbrot/locations.h"
#endif

namespace ds::app {

#if DEEPSCOPE_WITH_GL
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct NamedView {
  const char* name;
  const char* re;
  const char* im;
  const char* zoom;
  uint32_t iter;
  std::vector<std::string> formats;  // arith names; "perturb" for perturbation
};

std::vector<NamedView> named_views(bool quick) {
  using namespace mandel::locations;
  const char *kf_re = kKf1e14Re, *kf_im = kKf1e14Im, *mis_re = kMisiurewiczRe, *mis_im = kMisiurewiczIm;
  if (quick) return {{"whole-set", "-0.5", "0", "1", 500, {"f32", "f64"}}, {"kf-1e14", kf_re, kf_im, "1e14", 4036, {"f64x2"}}};
  return {
      {"whole-set", "-0.5", "0", "1", 1000, {"f32", "f64"}},
      {"seahorse", "-0.7453", "0.1127", "100", 1000, {"f32", "f64", "composite", "ff"}},
      // Half the pixels interior at 1800 iterations: about 2e9 iterations per frame.
      {"seahorse-2e9", "-0.7453", "0.1127", "100", 1800, {"f64"}},
      {"kf-1e14", kf_re, kf_im, "1e14", 4036, {"f64x2", "f64x3", "fx128", "limb4", "limb8", "perturb"}},
      {"misiurewicz-1e57", mis_re, mis_im, "1e57", 2000, {"f64x4", "f64x6", "f64x8", "limb8", "limb32", "perturb"}},
  };
}

struct Row {
  std::string view, format, backend;
  uint64_t iterations = 0;
  double render_s = 0, interop_s = 0, download_s = 0, host_s = 0;
  bool identical = false;
  std::string used;
};

// Median of `n` timed calls of f (each ended by glFinish, so GL's copy is inside the time).
template <class F>
double median_time(int n, F&& f) {
  std::vector<double> t;
  for (int k = 0; k < n; ++k) {
    const auto t0 = Clock::now();
    f();
    glFinish();
    t.push_back(since(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace
#endif

int bench_interop(const ArgList& args) {
  cli::Args a(args, {"out", "size", "repeat"}, {"quick"});
  if (!a.positional().empty()) throw cli::UsageError("unexpected argument \"" + a.positional()[0] + "\"");
  const bool quick = a.flag("quick");
  int w = 1920, h = 1080;
  if (a.has("size")) cli::parse_size(a.get("size", ""), 16384, &w, &h);
  const int repeat = static_cast<int>(a.get_int("repeat", quick ? 5 : 20, 1, 1000));
  const std::string out = a.get("out", "");
  if (!out.empty()) check_writable(out);
#if !DEEPSCOPE_WITH_GL
  (void)repeat;
  std::cerr << "deepscope: this build has no OpenGL loader (python3-glad was missing at configure time), "
               "so there is no display path to time\n";
  return 1;
#else
  const bool gpu = cuda_device_count() > 0;
  std::unique_ptr<render::HeadlessGl> gl;
  try {
    gl = std::make_unique<render::HeadlessGl>(gpu ? 0 : -1);
  } catch (const render::GlUnavailable& e) {
    std::cerr << "deepscope: no headless OpenGL context: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "GL: " << gl->description() << "\n";

  colour::Colouring col;
  col.palette = colour::palette_by_name("classic");
  std::vector<Row> rows;
  std::string interop_note;
  for (const NamedView& nv : named_views(quick)) {
    mandel::View v;
    v.re = nv.re;
    v.im = nv.im;
    v.zoom = nv.zoom;
    v.max_iter = nv.iter;
    v.width = w;
    v.height = h;
    col.max_iter = nv.iter;
    for (const std::string& f : nv.formats) {
      mandel::RenderOptions opt;
      opt.single_launch = true;
      if (f == "perturb")
        opt.method = mandel::Method::kPerturb;
      else
        opt.arith = parse_arith(f);
      const Backend backend = gpu ? Backend::kCuda : Backend::kCpu;
      Row r;
      r.view = nv.name;
      r.format = f;
      r.backend = backend_name(backend);
      colour::Canvas canvas(w, h, backend, 0);
      // Warm-up (perturbation: the reference orbit and BLA table are cached, as in the window
      // when only the palette or a neighbouring view changes), then the timed render.
      mandel::RenderResult res = canvas.render_rows(v, opt, 0, h);
      // The median of three timed renders (one where a render takes over 0.1 s).
      std::vector<double> times;
      for (int k = 0; k < (res.seconds > 0.1 ? 1 : 3); ++k) {
        const auto t0 = Clock::now();
        res = canvas.render_rows(v, opt, 0, h);
        times.push_back(since(t0));
      }
      std::sort(times.begin(), times.end());
      r.render_s = times[times.size() / 2];
      r.iterations = res.iterations;
      r.used = mandel::format_label(res);
      std::cerr << "  " << nv.name << " " << f << ": render " << r.render_s * 1e3 << " ms\n";

      render::CanvasTexture interop(true), download(false);
      std::vector<uint8_t> a_px, b_px;
      if (backend == Backend::kCuda) {
        render::DisplayPath p = render::DisplayPath::kHostUpload;
        r.interop_s = median_time(repeat, [&] { p = interop.show(canvas, col, h); });
        if (p != render::DisplayPath::kInterop) {
          interop_note = interop.interop_note();
          r.interop_s = -1;
        }
        r.download_s = median_time(repeat, [&] { download.show(canvas, col, h); });
        a_px = interop.texture().read_rgba();
        b_px = download.texture().read_rgba();
        r.identical = a_px == b_px;
      } else {
        r.host_s = median_time(repeat, [&] { download.show(canvas, col, h); });
        r.identical = true;
      }
      rows.push_back(r);
    }
  }

  std::string md = bench_preamble("interop", args);
  md += "- device: " + (gpu ? cuda_devices()[0].name : std::string("no CUDA device (") + cuda_unavailable_reason() + ")") + "\n- GL: " + gl->description() +
        "\n- frame: " + std::to_string(w) + "x" + std::to_string(h) +
        "; render = one launch for the whole frame into a Canvas, wall time, median of 3 after a warm-up "
        "render (so perturbation's reference and BLA table are cached, as when the window re-renders); display = colour the canvas and fill the "
        "texture, median of " +
        std::to_string(repeat) + " (glFinish included)\n";
  if (!interop_note.empty()) md += "- interop unavailable: " + interop_note + "\n";
  md += "\n| view | format | used | iterations | render ms | display: interop ms | display: via host ms | "
        "frame ms (interop) | frames/s | interop = via host |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    const double disp = r.interop_s >= 0 && r.backend == "cuda" ? r.interop_s : (r.backend == "cuda" ? r.download_s : r.host_s);
    const double frame = r.render_s + disp;
    md += "| " + r.view + " | " + r.format + " | " + r.used + " | " + fmt("%.3g", static_cast<double>(r.iterations)) +
          " | " + fmt("%.2f", r.render_s * 1e3) + " | " +
          (r.backend == "cuda" && r.interop_s >= 0 ? fmt("%.3f", r.interop_s * 1e3) : std::string("-")) + " | " +
          fmt("%.3f", (r.backend == "cuda" ? r.download_s : r.host_s) * 1e3) + " | " + fmt("%.2f", frame * 1e3) +
          " | " + fmt("%.1f", 1.0 / frame) + " | " + (r.identical ? "yes" : "NO") + " |\n";
  }
  std::cout << md;
  if (!out.empty()) write_file_atomically(out, md);
  bool all_identical = true;
  for (const Row& r : rows) all_identical &= r.identical;
  return all_identical ? 0 : 1;
#endif
}

}  // namespace ds::app
