// `deepscope render`: a Mandelbrot view (or a zoom sequence) to PNG with the location embedded,
// plus optional .npy count and smooth-count arrays. Everything is validated before rendering and
// every file is written whole or not at all.
#include <mpfr.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>

#include "kernels/atomic_file.h"
#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "image_io.h"
#include "kernels/mandelbrot.h"
#include "kernels/palette.h"
#include "location.h"
#include "view_png.h"

namespace ds::app {
namespace {

using mandel::Backend;
using mandel::LimbStrategy;

struct Job {
  mandel::View view;
  std::optional<Arith> arith;  // empty: auto

  mandel::Method method = mandel::Method::kAuto;  // kPerturb for --arith perturb
  mandel::RenderOptions opt;
  mandel::Colouring colouring;
  std::string palette_name;
  double density = 1, offset = 0;
  std::string out, counts, smooth;
  int frames = 1;
  std::string zoom_to;
  bool quiet = false;
};

Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::kAuto;
  if (s == "cpu") return Backend::kCpu;
  if (s == "cuda") return Backend::kCuda;
  throw cli::UsageError("--backend must be auto, cpu or cuda, got \"" + s + "\"");
}

LimbStrategy parse_strategy(const std::string& s) {
  if (s == "thread") return LimbStrategy::kThreadPerPixel;
  if (s == "coop") return LimbStrategy::kCooperative;
  throw cli::UsageError("--limb-strategy must be thread or coop, got \"" + s + "\"");
}

// Output name of frame k (1-based) of n: a printf pattern ("frame_%05d.png") gets k; otherwise
// "_%05d" goes before the extension. A single frame keeps the name as given (patterns get 1).
std::string frame_name(const std::string& path, int k, int n) {
  size_t pct = path.find('%');
  if (pct != std::string::npos) {
    size_t e = pct + 1;
    while (e < path.size() && std::isdigit(static_cast<unsigned char>(path[e]))) ++e;
    if (e >= path.size() || path[e] != 'd' || path.find('%', e) != std::string::npos)
      throw cli::UsageError("output pattern \"" + path +
                            "\" must contain exactly one %d (e.g. frame_%05d.png)");
    char buf[64];
    std::snprintf(buf, sizeof buf, path.substr(pct, e - pct + 1).c_str(), k);
    return path.substr(0, pct) + buf + path.substr(e + 1);
  }
  if (n == 1) return path;
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%05d", k);
  return path.substr(0, dot) + buf + path.substr(dot);
}

// Zooms of an n-frame sequence, geometric from z0 to z1 (both exact as given at the ends).
std::vector<std::string> frame_zooms(const std::string& z0, const std::string& z1, int n) {
  if (n == 1) return {z0};
  std::vector<std::string> out;
  mpfr_t a, b, t;
  mpfr_inits2(256, a, b, t, static_cast<mpfr_ptr>(nullptr));
  char* end = nullptr;
  mpfr_strtofr(a, z0.c_str(), &end, 10, MPFR_RNDN);  // both validated by geometry()
  mpfr_strtofr(b, z1.c_str(), &end, 10, MPFR_RNDN);
  mpfr_div(b, b, a, MPFR_RNDN);  // ratio
  mpfr_log(b, b, MPFR_RNDN);
  for (int k = 0; k < n; ++k) {
    if (k == 0) {
      out.push_back(z0);
      continue;
    }
    if (k == n - 1) {
      out.push_back(z1);
      continue;
    }
    mpfr_mul_d(t, b, static_cast<double>(k) / (n - 1), MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_mul(t, t, a, MPFR_RNDN);
    char* s = nullptr;
    mpfr_asprintf(&s, "%.40Re", t);
    out.push_back(s);
    mpfr_free_str(s);
  }
  mpfr_clears(a, b, t, static_cast<mpfr_ptr>(nullptr));
  return out;
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

Job parse_job(const ArgList& args) {
  cli::Args a(args,
              {"re", "im", "zoom", "iter", "size", "arith", "palette", "density", "offset", "out", "backend",
               "limb-strategy", "counts", "smooth", "location", "frames", "zoom-to", "device"},
              {"quiet", "no-bla"});
  if (!a.positional().empty())
    throw cli::UsageError("render takes no positional argument: \"" + a.positional()[0] + "\"");
  Job j;
  j.palette_name = "classic";
  if (a.has("location")) {
    const Location loc = read_location_file(a.get("location", ""));
    j.view.re = loc.re;
    j.view.im = loc.im;
    j.view.zoom = loc.zoom;
    if (loc.iterations) j.view.max_iter = *loc.iterations;
    if (loc.width && loc.height) {
      j.view.width = *loc.width;
      j.view.height = *loc.height;
    }
    if (loc.palette) j.palette_name = *loc.palette;
    if (loc.density) j.density = *loc.density;
    if (loc.offset) j.offset = *loc.offset;
  }
  j.view.re = a.get("re", j.view.re);
  j.view.im = a.get("im", j.view.im);
  j.view.zoom = a.get("zoom", j.view.zoom);
  j.view.max_iter = static_cast<uint32_t>(a.get_int("iter", j.view.max_iter, 1, 0xFFFFFFFELL));
  if (a.has("size")) cli::parse_size(a.get("size", ""), 1 << 20, &j.view.width, &j.view.height);
  const std::string arith = a.get("arith", "auto");
  if (arith == "perturb")
    j.method = mandel::Method::kPerturb;
  else if (arith != "auto")
    j.arith = parse_arith(arith);
  j.opt.bla = !a.flag("no-bla");
  j.palette_name = a.get("palette", j.palette_name);
  j.density = a.get_double("density", j.density);
  j.offset = a.get_double("offset", j.offset);
  if (!(j.density > 0)) throw cli::UsageError("--density must be positive");
  j.out = a.require("out");
  j.counts = a.get("counts", "");
  j.smooth = a.get("smooth", "");
  j.opt.backend = parse_backend(a.get("backend", "auto"));
  j.opt.limb_strategy = parse_strategy(a.get("limb-strategy", "thread"));
  j.opt.cuda_device = static_cast<int>(a.get_int("device", 0, 0, 1024));
  j.frames = static_cast<int>(a.get_int("frames", 1, 1, 1000000));
  j.zoom_to = a.get("zoom-to", "");
  if (j.frames > 1 && j.zoom_to.empty()) throw cli::UsageError("--frames needs --zoom-to");
  if (!j.zoom_to.empty() && j.frames < 2) throw cli::UsageError("--zoom-to needs --frames N with N >= 2");
  j.quiet = a.flag("quiet");

  j.colouring.palette = mandel::palette_by_name(j.palette_name);
  j.colouring.density = static_cast<float>(j.density);
  j.colouring.offset = static_cast<float>(j.offset);
  j.colouring.max_iter = j.view.max_iter;
  return j;
}

}  // namespace

int cmd_render(const ArgList& args) {
  Job job = parse_job(args);
  mandel::View& v = job.view;

  // Validate every frame's view and format before anything renders.
  mandel::geometry(v);
  if (!job.zoom_to.empty()) {
    mandel::View end = v;
    end.zoom = job.zoom_to;
    mandel::geometry(end);  // malformed or non-positive --zoom-to
  }
  const std::vector<std::string> zooms =
      frame_zooms(v.zoom, job.zoom_to.empty() ? v.zoom : job.zoom_to, job.frames);
  std::vector<Arith> formats;
  std::vector<mandel::Method> methods;
  for (const std::string& z : zooms) {
    mandel::View fv = v;
    fv.zoom = z;
    mandel::RenderOptions o = job.opt;
    o.arith = job.arith;
    o.method = job.method;
    const mandel::Geometry g = mandel::geometry(fv);
    methods.push_back(mandel::select_method(g, o));
    formats.push_back(methods.back() == mandel::Method::kDirect ? mandel::select_arith(g, o) : Arith::kF64);
  }

  // Memory: the engine's arrays, RGB, the PNG and .npy buffers (each about a copy of the pixels).
  const uint64_t pixels = static_cast<uint64_t>(v.width) * static_cast<uint64_t>(v.height);
  const uint64_t host_need =
      pixels * (8 + 3 + 8 + (job.counts.empty() ? 0 : 4) + (job.smooth.empty() ? 0 : 4));
  const uint64_t host_have = mandel::host_memory_bytes();
  if (host_have && host_need > host_have)
    throw cli::UsageError("a " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                          " render needs about " + gib(host_need) + " of memory; this machine has " +
                          gib(host_have));

  if (pixels * 3 > 0x7fffffffu)
    throw cli::UsageError("size " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                          " is beyond the PNG encoder's limit of 2 GiB of pixels");
  std::string note;
  const Backend backend = mandel::select_backend(job.opt.backend, &note);
  if (backend == Backend::kCuda) {
    const uint64_t dev_have = mandel::device_memory_bytes(job.opt.cuda_device);
    if (dev_have && pixels * 8 > dev_have)
      throw cli::UsageError("a " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                            " render needs " + gib(pixels * 8) + " of GPU memory; device " +
                            std::to_string(job.opt.cuda_device) + " has " + gib(dev_have));
  }
  if (!note.empty() && !job.quiet) std::cerr << "deepscope render: " << note << "\n";
  job.opt.backend = backend;

  // Output names, checked writable up front.
  struct Names {
    std::string png, counts, smooth;
  };
  std::vector<Names> names;
  for (int k = 1; k <= job.frames; ++k) {
    Names n{frame_name(job.out, k, job.frames),
            job.counts.empty() ? "" : frame_name(job.counts, k, job.frames),
            job.smooth.empty() ? "" : frame_name(job.smooth, k, job.frames)};
    for (const std::string* p : {&n.png, &n.counts, &n.smooth})
      if (!p->empty()) check_writable(*p);
    names.push_back(n);
  }

  install_cancel_handler();
  const bool tty = isatty(2) && !job.quiet;
  for (int f = 0; f < job.frames; ++f) {
    v.zoom = zooms[static_cast<size_t>(f)];
    mandel::RenderOptions o = job.opt;
    o.arith = formats[static_cast<size_t>(f)];
    o.method = methods[static_cast<size_t>(f)];
    o.check_resolution = false;  // checked above with the user's choice (auto or forced)
    o.cancel = &cancel_flag();
    const std::string label = job.frames > 1
                                  ? "frame " + std::to_string(f + 1) + "/" + std::to_string(job.frames)
                                  : std::string("render");
    std::mutex mu;
    if (tty)
      o.progress = [&](double x) {
        std::lock_guard<std::mutex> lock(mu);
        std::fprintf(stderr, "\r%s: %3.0f%%", label.c_str(), 100.0 * x);
        std::fflush(stderr);
      };
    const mandel::RenderResult r = mandel::render(v, o);
    if (tty) std::fprintf(stderr, "\r%*s\r", static_cast<int>(label.size()) + 6, "");
    if (r.cancelled) {
      std::cerr << "deepscope render: cancelled; " << names[static_cast<size_t>(f)].png << " not written"
                << (f > 0 ? " (earlier frames are complete)" : "") << "\n";
      return 130;
    }
    const std::string png = mandelbrot_png(v, r, job.palette_name, job.colouring);
    const Names& n = names[static_cast<size_t>(f)];
    if (!n.counts.empty()) write_file_atomically(n.counts, encode_npy(r.counts, r.height, r.width));
    if (!n.smooth.empty()) write_file_atomically(n.smooth, encode_npy(r.smooth, r.height, r.width));
    write_file_atomically(n.png, png);
    if (!job.quiet) {
      char line[256];
      std::snprintf(line, sizeof line, "%dx%d, %s on %s%s, %.3f s, %.3g iterations", r.width, r.height,
                    mandel::format_label(r).c_str(), mandel::backend_name(r.backend),
                    r.limb_strategy == LimbStrategy::kCooperative ? " (coop)" : "", r.seconds,
                    static_cast<double>(r.iterations));
      std::cerr << "deepscope render: wrote " << n.png << " (" << line << ")\n";
      if (r.method == mandel::Method::kPerturb) {
        const mandel::PerturbInfo& pi = r.perturb;
        std::snprintf(line, sizeof line,
                      "reference %u points at %d bits, %.3f s%s; BLA skipped %.3g iterations; %llu pixels "
                      "re-evaluated directly",
                      pi.reference_length, pi.reference_bits, pi.reference_seconds,
                      pi.reference_reused ? " (reused)" : "", static_cast<double>(pi.bla_skipped),
                      static_cast<unsigned long long>(pi.glitch_pixels));
        std::cerr << "deepscope render: " << line << "\n";
      }
    }
  }
  return 0;
}

}  // namespace ds::app
