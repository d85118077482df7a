// `deepscope render`: a Mandelbrot view (or a zoom sequence) to PNG with the location embedded,
// plus optional .npy count and smooth-count arrays and Kalles Fraktaler's EXR channels, optionally
// antialiased; `deepscope video` is the same over eased frames (cmd_video.cpp). Everything is
// validated before rendering and every file is written whole or not at all.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <random>
#include <set>

#include "app/io/colouring.h"
#include "app/io/exr_io.h"
#include "app/io/image_io.h"
#include "app/io/kfp.h"
#include "app/io/location.h"
#include "app/io/view_png.h"
#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "kernels/colour/palette.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/work.h"
#include "kernels/mandelbrot/auto_iter.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "progress_line.h"
#include "render_command.h"
#include "render_formula.h"
#include "render_work.h"
#include "zoom_frames.h"

namespace ds::app {
namespace {

using mandel::Backend;
using mandel::LimbStrategy;

struct Job {
  mandel::View view;
  std::optional<Arith> arith;  // empty: auto

  mandel::Method method = mandel::Method::kAuto;  // kPerturb for --arith perturb
  mandel::RenderOptions opt;
  colour::Colouring colouring;
  std::string palette_name;
  double density = 1, offset = 0;
  std::string out, counts, smooth, exr;
  int aa = 1;  // --aa N
  int frames = 1;
  std::string zoom_to;
  bool quiet = false;
  std::string devices;        // --devices LIST ("" every visible device)
  bool one_device = false;    // --device K (CUDA only; ignored on the CPU, as before --devices)
  std::string shard = "0/1";  // --shard i/n
  int tile_rows = 0;          // --tile-rows R (0: strips only when several workers)
  VerifyPlan verify;          // --verify N [--verify-seed S]
  bool auto_iter = false;     // --auto-iter: render again with a raised limit (auto_iter.h)
  std::vector<std::string> location_warnings;  // fields of --location FILE not reproduced
  ShaderSpec shader;                           // --shader NAME|FILE, --shader-param NAME=VALUE
  // --formula NAME, or the location's: what is iterated on `view` (conjugated where a mirrored
  // location was folded, apply_to_view); plain z^2 + c goes to the Mandelbrot engines.
  formula::Formula formula = formula::parse_formula("mandelbrot");
  formula::JuliaSeed julia;        // --julia-re/--julia-im, or the location's: a Julia set (julia.h)
  FormulaRequest formula_request;  // what of the request formulas cannot do yet (render_formula.h)
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

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

Job parse_job(const ArgList& args, VideoSettings* video) {
  // clang-format off
  std::set<std::string> valued = {
      "re", "im", "zoom", "iter", "size", "arith", "palette", "density", "offset", "out", "backend",
      "limb-strategy", "counts", "smooth", "location", "frames", "zoom-to", "device", "devices", "shard",
      "tile-rows", "verify", "verify-seed", "delta", "max-references", "reference-cache", "reference-memory", "reference", "reference-at", "exr", "aa",
      "shader", "shader-param", "stripe-density", "stripe-memory", "formula", "scale", "julia-re", "julia-im"};
  // clang-format on
  if (video) valued.insert({"easing", "mp4", "fps", "crf"});
  cli::Args a(args, valued,
              {"quiet", "no-bla", "no-period-map", "period-map-always", "no-interior", "no-refine", "no-dw-tier", "no-wide-tiers", "no-error-bound", "auto-iter",
               "no-auto-iter", "expmap"},
              {"shader-param"});
  const char* command = video ? "video" : "render";
  if (!a.positional().empty())
    throw cli::UsageError(std::string(command) + " takes no positional argument: \"" + a.positional()[0] +
                          "\"");
  Job j;
  j.palette_name = "classic";
  bool location_kf = false;  // the location is a .kfr with its own colouring
  if (a.has("location")) {
    const Location loc = read_location_file(a.get("location", ""));
    apply_to_view(loc, &j.view, true, &j.formula, &j.julia);
    const bool folded = loc.pixel_map[0] * loc.pixel_map[3] - loc.pixel_map[1] * loc.pixel_map[2] < 0;
    if (a.has("formula")) {  // the user's formula on the location's view, mirrored like the location's
      const formula::Formula f = formula::parse_formula(a.get("formula", ""));
      j.formula = folded && !formula::conjugation_symmetric(f) ? formula::conjugated(f) : f;
    }
    if (a.has("julia-re") || a.has("julia-im")) {  // the user's seed, mirrored like the location's
      const formula::JuliaSeed s =
          formula::parse_julia(a.get("julia-re", ""), a.get("julia-im", ""), "--julia-re", "--julia-im");
      j.julia = folded ? formula::conjugated(s) : s;
    }
    j.location_warnings = loc.warnings;
    if (loc.palette) j.palette_name = *loc.palette;
    // A .kfr's own palette and colour method by default (drawn by the kf shader below).
    if (loc.kf_colouring && !loc.palette && is_kf_palette_file(a.get("location", ""))) {
      location_kf = true;
      j.palette_name = a.get("location", "");
      if (a.has("palette"))
        j.location_warnings.push_back(a.get("location", "") +
                                      ": its KF colouring (Colors, ColorMethod, ...) is not used: --palette given");
      else if (a.has("shader") && a.get("shader", "") != "kf")
        j.location_warnings.push_back(a.get("location", "") +
                                      ": its palette is used, its ColorMethod, Differences and Slopes are not: "
                                      "--shader given");
    }
    if (loc.density) j.density = *loc.density;
    if (loc.offset) j.offset = *loc.offset;
  }
  if (a.has("formula") && !a.has("location")) j.formula = formula::parse_formula(a.get("formula", ""));
  if ((a.has("julia-re") || a.has("julia-im")) && !a.has("location"))
    j.julia = formula::parse_julia(a.get("julia-re", ""), a.get("julia-im", ""), "--julia-re", "--julia-im");
  j.view.re = a.get("re", j.view.re);
  j.view.im = a.get("im", j.view.im);
  j.view.zoom = a.get("zoom", j.view.zoom);
  j.view.max_iter = a.get_iterations("iter", j.view.max_iter);
  if (a.flag("expmap")) j.view.exp_map = true;
  if (a.has("size")) cli::parse_size(a.get("size", ""), 1 << 20, &j.view.width, &j.view.height);
  const std::string arith = a.get("arith", "auto");
  if (arith == "perturb")
    j.method = mandel::Method::kPerturb;
  else if (arith != "auto")
    j.arith = parse_arith(arith);
  j.opt.bla = !a.flag("no-bla");
  j.opt.period_map = !a.flag("no-period-map");
  j.opt.period_map_always = a.flag("period-map-always");
  j.palette_name = a.get("palette", j.palette_name);
  j.density = a.get_double("density", j.density);
  j.offset = a.get_double("offset", j.offset);
  if (!(j.density > 0)) throw cli::UsageError("--density must be positive");
  j.out = a.require("out");
  j.counts = a.get("counts", "");
  j.smooth = a.get("smooth", "");
  j.exr = a.get("exr", "");
  if (a.has("exr") && j.exr.empty()) throw cli::UsageError("--exr needs a file name");
  // Never a PNG in place of the EXR asked for.
  if (!j.exr.empty() && !exr_supported())
    throw cli::UsageError(
        "--exr: this build has no OpenEXR (install libopenexr-dev and configure again with "
        "-DDEEPSCOPE_OPENEXR=ON)");
  j.aa = static_cast<int>(a.get_int("aa", 1, 1, 16));
  j.opt.stripe_density = static_cast<int>(a.get_int("stripe-density", j.opt.stripe_density, 1, 16));
  j.opt.stripe_memory = a.get_double("stripe-memory", j.opt.stripe_memory);
  if (!(j.opt.stripe_memory > 0.0 && j.opt.stripe_memory < 1.0))
    throw cli::UsageError("--stripe-memory must lie strictly between 0 and 1");
  j.opt.backend = parse_backend(a.get("backend", "auto"));
  j.opt.limb_strategy = parse_strategy(a.get("limb-strategy", "thread"));
  j.opt.cuda_device = static_cast<int>(a.get_int("device", 0, 0, 1024));
  if (a.has("device") && a.has("devices"))
    throw cli::UsageError("give --device K or --devices LIST, not both");
  j.one_device = a.has("device");
  j.devices = a.get("devices", "");
  j.shard = a.get("shard", j.shard);
  j.tile_rows = static_cast<int>(a.get_int("tile-rows", 0, 1, 1 << 20));
  j.frames = static_cast<int>(a.get_int("frames", 1, 1, 1000000));
  j.zoom_to = a.get("zoom-to", "");
  if (j.frames > 1 && j.zoom_to.empty()) throw cli::UsageError("--frames needs --zoom-to");
  if (!j.zoom_to.empty() && j.frames < 2) throw cli::UsageError("--zoom-to needs --frames N with N >= 2");
  j.quiet = a.flag("quiet");
  if (video) {
    if (j.frames < 2 || j.zoom_to.empty())
      throw cli::UsageError("video needs --frames N (N >= 2) and --zoom-to Z2");
    video->easing = parse_easing(a.get("easing", "linear"));
    video->mp4 = a.get("mp4", "");
    video->fps = a.get_double("fps", 30);
    if (!(video->fps >= 1 && video->fps <= 240)) throw cli::UsageError("--fps must be within [1, 240]");
    video->crf = static_cast<int>(a.get_int("crf", 18, 0, 51));
    video->quiet = a.flag("quiet");
    if (!video->mp4.empty() && a.has("shard"))
      throw cli::UsageError("--mp4 needs every frame: make it in a run without --shard");
    if (!video->mp4.empty()) check_outputs({video->mp4, video->mp4 + ".part"});  // ffmpeg writes .part
  }
  j.verify.samples = static_cast<int>(a.get_int("verify", 0, 1, 1 << 20));
  const std::string delta = a.get("delta", "auto");
  if (delta == "auto")
    j.opt.delta = mandel::DeltaFormat::kAuto;
  else if (delta == "f64")
    j.opt.delta = mandel::DeltaFormat::kF64;
  else if (delta == "floatexp")
    j.opt.delta = mandel::DeltaFormat::kFloatExp;
  else if (delta == "f64-scaled")
    j.opt.delta = mandel::DeltaFormat::kF64Scaled;
  else
    throw cli::UsageError("--delta must be auto, f64, f64-scaled or floatexp, got \"" + delta + "\"");
  j.opt.interior = !a.flag("no-interior");
  j.opt.refine = !a.flag("no-refine");
  j.opt.refine_dw = !a.flag("no-dw-tier");
  j.opt.wide_tiers = !a.flag("no-wide-tiers");
  j.opt.error_bound = !a.flag("no-error-bound");
  j.opt.max_secondary_references = static_cast<int>(a.get_int("max-references", 10000, 0, 1 << 20));
  const std::string reference = a.get("reference", "auto");
  if (reference == "auto")
    j.opt.reference_path = mandel::ReferencePath::kAuto;
  else if (reference == "mpfr")
    j.opt.reference_path = mandel::ReferencePath::kMpfr;
  else if (reference == "gpu")
    j.opt.reference_path = mandel::ReferencePath::kGpu;
  else
    throw cli::UsageError("--reference must be auto, mpfr or gpu, got \"" + reference + "\"");
  const std::string at = a.get("reference-at", "auto");
  if (at != "auto" && at != "centre" && at != "center")
    throw cli::UsageError("--reference-at must be auto or centre, got \"" + at + "\"");
  j.opt.reference_at_nucleus = at == "auto";
  j.opt.reference_memory = a.get_bytes("reference-memory", 0);
  if (a.has("reference-cache")) {
    j.opt.reference_cache = a.get("reference-cache", "");
    // A folder that cannot take a file fails now, not after a long reference.
    try {
      check_writable(j.opt.reference_cache + "/.deepscope-probe");
    } catch (const IoError& e) {
      throw cli::UsageError(std::string("--reference-cache: ") + e.what());
    }
  }
  if (a.has("verify-seed") && !a.has("verify")) throw cli::UsageError("--verify-seed needs --verify N");
  // A seed of its own unless replayed: the random samples differ from run to run. 63 bits, so
  // that --verify-seed takes back any seed printed.
  j.verify.seed = a.has("verify-seed")
                      ? static_cast<uint64_t>(a.get_int("verify-seed", 0, 0, INT64_MAX))
                      : ((static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()) >> 1;
  if (j.verify.samples > 0 && j.frames > 1)
    throw cli::UsageError("--verify checks one image; verify the frames of a sequence one at a time");
  if (a.flag("auto-iter") && a.flag("no-auto-iter"))
    throw cli::UsageError("--auto-iter and --no-auto-iter contradict each other");
  // A video's frames deepen by orders of magnitude: auto iterations are on by default there (each
  // frame rendered again at a raised limit while its counts say so), unless --no-auto-iter or --aa.
  j.auto_iter = a.flag("auto-iter") || (video && !a.flag("no-auto-iter") && j.aa <= 1);
  if (video && !a.flag("no-auto-iter") && j.aa > 1 && !j.quiet)
    std::cerr << std::string(command) << ": note: auto iterations are off with --aa; every frame has "
              << j.view.max_iter << " iterations\n";
  j.opt.prove_interior_always = j.auto_iter;  // auto iterations tell interior pixels from the limit
  if (j.auto_iter && j.tile_rows)
    throw cli::UsageError("--auto-iter renders one image again with a raised limit: not with --tile-rows");
  if (j.tile_rows && j.frames > 1)
    throw cli::UsageError(
        "--tile-rows splits one image; the frames of a sequence are already split one per worker");
  if (j.aa > 1 && (j.auto_iter || j.verify.samples > 0))
    throw cli::UsageError("--aa renders shifted samples of the view: not with --auto-iter or --verify");

  // --shader-param NAME=VALUE, repeatable; checked against the shader's parameters when it compiles.
  std::vector<std::pair<std::string, float>> params;
  for (const std::string& p : a.get_all("shader-param")) {
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw cli::UsageError("--shader-param takes NAME=VALUE, got \"" + p + "\"");
    const std::string name = p.substr(0, eq);
    params.emplace_back(name, static_cast<float>(cli::parse_double("--shader-param " + name, p.substr(eq + 1))));
  }
  if (is_kf_palette_file(j.palette_name)) {
    // A KF palette: its table, and IterDiv / ColorOffset as density and offset unless given; with
    // a colour method (a .kfr) and no other --shader, the kf shader with the file's method,
    // Differences, ... (--shader-param after them wins).
    const KfPalette kp = read_kfp(j.palette_name);
    const bool kf_method = (kp.has_method || location_kf) && a.get("shader", "kf") == "kf";
    const std::string no_gl = kf_method ? headless_gl_unavailable() : std::string();
    if (kf_method && !no_gl.empty()) {
      // The kf shader needs OpenGL; without it the palette's C++ reference draws the table alone.
      j.location_warnings.push_back(j.palette_name + ": KF's ColorMethod, Differences and Slopes are not "
                                    "reproduced: no OpenGL context (" + no_gl + "); the palette alone");
      j.shader = load_shader("palette", params);
    } else if (kf_method) {
      std::vector<std::pair<std::string, float>> kf = kf_shader_params(kp);
      kf.insert(kf.end(), params.begin(), params.end());
      j.shader = load_shader("kf", kf);
      const std::string missing = kf_not_reproduced(kp);
      if (!missing.empty() && !location_kf)
        j.location_warnings.push_back(j.palette_name + ": not reproduced: " + missing);
    } else {
      j.shader = load_shader(a.get("shader", "palette"), params);
    }
    apply_kf_palette(kp, &j.colouring);
    if (a.has("density")) j.colouring.density = static_cast<float>(j.density);
    if (a.has("offset")) j.colouring.offset = static_cast<float>(j.offset);
    j.density = j.colouring.density;
    j.offset = j.colouring.offset;
  } else {
    j.shader = load_shader(a.get("shader", "palette"), params);
    j.colouring.palette = colour::palette_by_name(j.palette_name);
    j.colouring.density = static_cast<float>(j.density);
    j.colouring.offset = static_cast<float>(j.offset);
  }
  // The count's scale: log above the frame's lowest count unless the palette is KF's (whose IterDiv
  // counts iterations linearly), so that deep views colour smoothly (kernels/colour/palette.h).
  const std::string scale = a.get("scale", is_kf_palette_file(j.palette_name) ? "linear" : "log");
  if (scale == "log")
    j.colouring.scale = colour::CountScale::kLog;
  else if (scale == "linear")
    j.colouring.scale = colour::CountScale::kLinear;
  else
    throw cli::UsageError("--scale must be log or linear, got \"" + scale + "\"");
  j.colouring.max_iter = j.view.max_iter;
  FormulaRequest& fr = j.formula_request;
  fr.perturb = j.method == mandel::Method::kPerturb;
  fr.arith = arith;
  fr.frames = j.frames;
  fr.aa = j.aa;
  fr.verify = j.verify.samples > 0;
  fr.exr = !j.exr.empty();
  fr.tile_rows = j.tile_rows > 0;
  fr.auto_iter = j.auto_iter;
  fr.cuda = j.opt.backend == Backend::kCuda;
  fr.julia = j.julia;
  fr.max_fallback = static_cast<uint64_t>(j.opt.max_secondary_references);
  return j;
}

}  // namespace

int cmd_render(const ArgList& args) { return render_command(args, nullptr); }

int render_command(const ArgList& args, VideoSettings* video) {
  Job job = parse_job(args, video);
  mandel::View& v = job.view;
  if (!job.quiet && work::is_writer())
    for (const std::string& w : job.location_warnings) std::cerr << "deepscope render: warning: " << w << "\n";

  // Validate every frame's view and format before anything renders.
  mandel::geometry(v);
  // Formulas other than z^2 + c, and Julia sets of any formula: render_formula.h, on the CPU, one image.
  if (!formula::is_mandelbrot(job.formula) || job.julia.on()) {
    job.formula_request.fields = shader_fields(job.shader);
    job.formula_request.strips = !job.devices.empty() || work::size() > 1;
    job.formula_request.bla = job.opt.bla;
    check_formula_request(job.formula, job.formula_request, v);
    RenderTarget t;
    t.view = v;
    t.png = job.out;
    t.counts = job.counts;
    t.smooth = job.smooth;
    if (work::is_writer()) check_outputs({t.png, t.counts, t.smooth});
    RenderPlan plan;
    plan.palette_name = job.palette_name;
    plan.colouring = job.colouring;
    plan.shader = job.shader;
    plan.quiet = job.quiet;
    plan.verify = job.verify;
    install_cancel_handler();
    return work::is_writer() ? render_formula(t, job.formula, plan, job.formula_request) : 0;
  }
  if (!job.zoom_to.empty()) {
    mandel::View end = v;
    end.zoom = job.zoom_to;
    mandel::geometry(end);  // malformed or non-positive --zoom-to
  }
  const std::vector<std::string> zooms = frame_zooms(v.zoom, job.zoom_to.empty() ? v.zoom : job.zoom_to,
                                                     job.frames, video ? video->easing : Easing::kLinear);
  std::vector<Arith> formats;
  std::vector<mandel::Method> methods;
  for (const std::string& z : zooms) {
    mandel::View fv = v;
    fv.zoom = z;
    mandel::RenderOptions o = job.opt;
    o.arith = job.arith;
    o.method = job.method;
    const mandel::Geometry g = mandel::geometry(fv);
    methods.push_back(mandel::select_method(g, o, fv.max_iter));
    formats.push_back(methods.back() == mandel::Method::kDirect ? mandel::select_arith(g, o, fv.max_iter)
                                                                : Arith::kF64);
  }

  // Memory: the engine's arrays, RGB, the PNG and .npy buffers (each about a copy of the pixels).
  const uint64_t pixels = static_cast<uint64_t>(v.width) * static_cast<uint64_t>(v.height);
  const uint64_t host_need =
      pixels * (8 + 3 + 8 + (mandel::wide_counts(v.max_iter) ? 4 : 0) +
                (job.counts.empty()                ? 0
                 : mandel::wide_counts(v.max_iter) ? 8
                                                   : 4) +
                (job.smooth.empty()                ? 0
                 : mandel::wide_counts(v.max_iter) ? 8
                                                   : 4) +
                // EXR: the three fields, N, N1, NF, linear and half RGB, the encoded file
                (job.exr.empty() ? 0 : 12 + 12 + 12 + 6 + 16) + (job.aa > 1 ? 12 + 1 + 3 : 0));
  const uint64_t host_have = mandel::host_memory_bytes();
  if (host_have && host_need > host_have)
    throw cli::UsageError("a " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                          " render needs about " + gib(host_need) + " of memory; this machine has " +
                          gib(host_have));

  if (pixels * 3 > 0x7fffffffu)
    throw cli::UsageError("size " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                          " is beyond the PNG encoder's limit of 2 GiB of pixels");
  // The shader compiles before anything renders (exit 2 with its log), and says what data it reads.
  job.opt.fields = shader_fields(job.shader);
  job.opt.sqrt_smooth_radius = sqrt_smooth_radius(job.shader);
  {
    const std::string why = headless_gl_unavailable();
    if (!why.empty() && !job.quiet && work::is_writer())
      std::cerr << "deepscope render: note: no OpenGL context (" << why
                << "); colouring with the C++ colour_pixel (the palette shader's reference)\n";
  }
  std::string note;
  const Backend backend = mandel::select_backend(job.opt.backend, &note);
  job.opt.backend = backend;
  RenderPlan plan;
  plan.palette_name = job.palette_name;
  plan.colouring = job.colouring;
  plan.shader = job.shader;
  plan.quiet = job.quiet;
  plan.verify = job.verify;
  plan.aa = job.aa;
  plan.auto_iter = job.auto_iter && job.frames > 1;  // one image: the loop below
  // --device K means --devices K on CUDA and is ignored on the CPU (as before --devices existed);
  // a --devices list on the CPU is refused by workers().
  const std::string devices =
      job.one_device ? (backend == Backend::kCuda ? std::to_string(job.opt.cuda_device) : "") : job.devices;
  try {
    plan.workers = work::workers(backend, devices);
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(e.what());
  }
  try {
    plan.shard = work::parse_shard(job.shard);
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(e.what());
  }
  // One image: strips when several workers or ranks share it, or when asked; a sequence: frames.
  const bool strips = job.frames == 1 && (job.tile_rows > 0 || plan.workers.size() > 1 || work::size() > 1);
  if (job.frames == 1 && !plan.shard.whole())
    throw cli::UsageError(
        "--shard splits the frames of a sequence (--frames N); one image cannot be sharded: "
        "render its strips on several devices (--devices) or under mpirun instead");
  const int strip_rows = job.tile_rows > 0 ? job.tile_rows : std::max(1, (v.height + 63) / 64);
  const uint64_t device_pixels = strips ? static_cast<uint64_t>(strip_rows) * v.width : pixels;
  for (const work::Worker& w : plan.workers) {
    if (w.backend != Backend::kCuda) continue;
    const uint64_t dev_have = mandel::device_memory_bytes(w.device);
    if (dev_have && device_pixels * 8 > dev_have)
      throw cli::UsageError(
          "a " + std::to_string(v.width) + "x" +
          std::to_string(strips ? std::min(strip_rows, v.height) : v.height) +
          (strips ? " strip" : " render") + " needs " + gib(device_pixels * 8) + " of GPU memory; device " +
          std::to_string(w.device) + " has " + gib(dev_have) +
          (strips ? " (use a smaller --tile-rows)" : " (render it in strips with --tile-rows)"));
  }
  const bool writer = work::is_writer();
  if (!note.empty() && !job.quiet && writer) std::cerr << "deepscope render: " << note << "\n";

  // Every frame's target; output names checked writable up front (by the writer, which writes).
  std::vector<RenderTarget> targets;
  for (int k = 1; k <= job.frames; ++k) {
    RenderTarget t;
    t.view = v;
    t.view.zoom = zooms[static_cast<size_t>(k - 1)];
    t.opt = job.opt;
    t.opt.arith = formats[static_cast<size_t>(k - 1)];
    t.opt.method = methods[static_cast<size_t>(k - 1)];
    t.opt.check_resolution = false;  // checked above with the user's choice (auto or forced)
    t.png = frame_name(job.out, k, job.frames);
    t.counts = job.counts.empty() ? "" : frame_name(job.counts, k, job.frames);
    t.smooth = job.smooth.empty() ? "" : frame_name(job.smooth, k, job.frames);
    t.exr = job.exr.empty() ? "" : frame_name(job.exr, k, job.frames);
    if (video) video->pngs.push_back(t.png);
    if (writer && plan.shard.owns(k - 1)) check_outputs({t.png, t.counts, t.smooth, t.exr});
    targets.push_back(std::move(t));
  }

  install_cancel_handler();
  if (job.frames > 1) return render_frames(targets, plan);
  if (strips && job.auto_iter)
    throw cli::UsageError(
        "--auto-iter renders one image on one worker; this one is split among " +
        std::to_string(std::max<size_t>(plan.workers.size(), static_cast<size_t>(work::size()))) +
        " (use --devices K)");
  if (strips && (job.aa > 1 || !job.exr.empty()))
    throw cli::UsageError(
        "--aa and --exr render one image on one worker; this one would be split into strips among " +
        std::to_string(std::max<size_t>(plan.workers.size(), static_cast<size_t>(work::size()))) +
        " workers (use --devices K, and no --tile-rows)");
  if (strips) return render_strips(targets[0], strip_rows, plan);

  // One image on one worker: one render (with --auto-iter, again at a raised limit while the
  // counts say so: kernels/mandelbrot/auto_iter.h).
  RenderTarget& t = targets[0];
  mandel::RenderOptions o = t.opt;
  o.backend = plan.workers[0].backend;
  if (o.backend == Backend::kCuda) o.cuda_device = plan.workers[0].device;
  o.cancel = &cancel_flag();
  ProgressLine line;  // the stage, the share, the time so far and left (terminal only)
  line.start(!job.quiet);
  line.label = "render";
  o.progress = line.callback();
  o.stage = line.stage_callback();
  if (!t.exr.empty()) o.fields |= mandel::kFieldDistance | mandel::kFieldPhase;  // DEX, DEY, T
  if (job.aa > 1) {  // (no --auto-iter or --verify with --aa: refused above)
    TargetFiles files;
    const bool done = render_target(t, o, plan, &files);
    line.clear();
    if (!done) {
      std::cerr << "deepscope render: cancelled; " << t.png << " not written\n";
      return 130;
    }
    write_target(t, files);
    if (!job.quiet) std::cerr << wrote_lines(t.png, files.summary);
    return unresolved_exit(files.unresolved, t.png, job.quiet);
  }
  mandel::RenderResult r = mandel::render(t.view, o);
  for (int round = 0; job.auto_iter && !r.cancelled && round < 8; ++round) {
    const mandel::AutoIterDecision d = mandel::auto_iterations_after_render(
        t.view.max_iter, mandel::iteration_stats(r.counts, t.view.max_iter, r.perturb.interior_pixels,
                                                 r.method == mandel::Method::kPerturb && o.interior,
                                                 r.counts_high));
    if (d.max_iter <= t.view.max_iter) break;
    if (!job.quiet)
      std::cerr << "\rdeepscope render: --auto-iter: " << d.max_iter << " iterations (" << d.reason << ")\n";
    t.view.max_iter = d.max_iter;
    job.colouring.max_iter = d.max_iter;
    r = mandel::render(t.view, o);
  }
  line.clear();
  if (r.cancelled) {
    std::cerr << "deepscope render: cancelled; " << t.png << " not written\n";
    if (!r.perturb.reference_cache.empty())  // a checkpoint of the reference: a rerun resumes it
      std::cerr << "deepscope render: reference: " << r.perturb.reference_cache << "\n";
    return 130;
  }
  std::vector<std::pair<std::string, std::string>> text;
  bool wrong = false;
  if (job.verify.samples > 0 && !verify_image(t.view, r, job.verify, job.quiet, &text, &wrong)) {
    std::cerr << "deepscope render: cancelled; " << t.png << " not written\n";
    return 130;
  }
  plan.colouring = job.colouring;  // --auto-iter may have raised max_iter
  const TargetFiles files = encode_target(t, r, plan, text);
  if (!files.note.empty() && !job.quiet && files.note.find("C++ colour_pixel") == std::string::npos)
    std::cerr << "deepscope render: warning: " << files.note << "\n";
  write_target(t, files);
  if (!job.quiet) std::cerr << wrote_lines(t.png, files.summary);
  const int code = unresolved_exit(r.perturb.glitch_unresolved, t.png, job.quiet);
  return wrong ? 1 : code;
}

}  // namespace ds::app
