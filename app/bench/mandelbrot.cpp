// `deepscope bench mandelbrot`: iterations/s and Mpixel/s of every format at fixed views, on the
// CPU (all cores) and the GPU (thread per pixel, and the cooperative layout for limb formats),
// as a share of the H100's FP64/FP32 FMA ceilings where the FP instructions per iteration are
// known (docs/mandelbrot.md, "Benchmark").
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "kernels/core/atomic_file.h"
#include "bench.h"
#include "app/cli/cli.h"
#include "kernels/core/device.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "version.h"
#include "kernels/mandelbrot/locations.h"

namespace ds::app {
namespace {

using mandel::Backend;
using mandel::LimbStrategy;

constexpr double kFp64Ceiling = 1.67e13;  // DFMA/s, H100
constexpr double kFp32Ceiling = 3.06e13;  // FFMA/s, H100

struct BenchView {
  const char* name;
  const char* re;
  const char* im;
  const char* zoom;
  uint32_t iter;
  int gpu_w, gpu_h;  // the GPU renders the full size
  int cpu_div;       // the CPU renders width/div x height/div
  std::vector<Arith> formats;
};

std::vector<BenchView> views(bool quick) {
  std::vector<BenchView> v = {
      {"seahorse",
       "-0.7453",
       "0.1127",
       "100",
       1000,
       1920,
       1080,
       4,
       {Arith::kF32, Arith::kF64, Arith::kComposite, Arith::kFF}},
      {"kf-1e14",
       mandel::locations::kKf1e14Re,
       mandel::locations::kKf1e14Im,
       "1e14",
       4036,
       1024,
       1024,
       8,
       {Arith::kF64x2, Arith::kF64x3, Arith::kFx128, Arith::kLimb4, Arith::kLimb6, Arith::kLimb8,
        Arith::kLimb12, Arith::kLimb16, Arith::kLimb24, Arith::kLimb32}},
      // A Misiurewicz point (preperiod 11, period 3) at 1e57: f64x4 still resolves pixels there.
      {"misiurewicz-1e57",
       mandel::locations::kMisiurewiczRe,
       mandel::locations::kMisiurewiczIm,
       "1e57",
       2000,
       1024,
       1024,
       16,
       {Arith::kF64x4, Arith::kF64x5, Arith::kF64x6, Arith::kF64x7, Arith::kF64x8, Arith::kLimb8,
        Arith::kLimb12, Arith::kLimb16, Arith::kLimb24, Arith::kLimb32}},
  };
  if (quick) {
    v[0].gpu_w = 480;
    v[0].gpu_h = 270;
    v[0].cpu_div = 8;
    v[0].formats = {Arith::kF32, Arith::kF64};
    v[1].gpu_w = v[1].gpu_h = 256;
    v[1].cpu_div = 8;
    v[1].formats = {Arith::kF64x2, Arith::kFx128, Arith::kLimb4};
    v[2].gpu_w = v[2].gpu_h = 128;
    v[2].cpu_div = 8;
    v[2].formats = {Arith::kF64x4, Arith::kLimb8};
  }
  return v;
}

// FP instructions per iteration (FADD/FMUL/FFMA and DADD/DMUL/DFMA; compares and conversions
// not counted): built in where the compiled loop is straight-line code (counted in its PTX for
// sm_90, without per-pixel setup), else from --fp-counts (Nsight Compute over whole launches,
// docs/bench/mandelbrot_fp_counts.py). Keys: "view/format/strategy", "*" for any view.
struct FpCount {
  double fp64 = 0, fp32 = 0;
  std::string source;
};

std::map<std::string, FpCount> builtin_counts() {
  // f64: 4 a step (DFMA, DFMA, DADD, DFMA) and 2 per block of 8 (the test's DMUL, DFMA); f32
  // the same in FP32 with blocks of 4 (mandelbrot.cuh, pixel_run).
  return {{"*/f64/*", {4.25, 0, "PTX"}},
          {"*/f32/*", {0, 4.5, "PTX"}},
          {"*/composite/*", {3, 48, "PTX"}},
          {"*/ff/*", {3, 107, "PTX"}}};
}

void read_fp_counts(const std::string& path, std::map<std::string, FpCount>* m) {
  std::ifstream in(path);
  if (!in) throw IoError("cannot read --fp-counts file \"" + path + "\"");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("view,", 0) == 0) continue;
    std::stringstream ss(line);
    std::string view, f, s, d, x;
    std::getline(ss, view, ',');
    std::getline(ss, f, ',');
    std::getline(ss, s, ',');
    std::getline(ss, d, ',');
    std::getline(ss, x, ',');
    try {
      (*m)[view + "/" + f + "/" + s] = {std::stod(d), std::stod(x), "ncu"};
    } catch (const std::exception&) {
      throw IoError("--fp-counts: malformed line \"" + line + "\" (want view,format,strategy,fp64,fp32)");
    }
  }
}

// GPU rows: launches are timed until their kernel times add up to this, up to kMaxLaunches.
constexpr double kGpuSeconds = 0.25;
constexpr int kMaxLaunches = 1000;

struct Row {
  std::string view, format, backend, strategy;
  int w = 0, h = 0;
  uint64_t max_iter = 0;
  double seconds = 0;  // GPU: median kernel time of the timed launches; CPU: wall time, best of the repeats
  double best = 0;     // GPU: the fastest launch
  double spread = 0;   // GPU: (90th - 10th percentile) / median of the launches' times
  int launches = 0;    // GPU: launches timed
  uint64_t iterations = 0;
  std::string fp;     // "fp64+fp32 (source)" or "-"
  double share = -1;  // share of the FMA ceilings, -1 when unknown
};

}  // namespace

int bench_mandelbrot(const ArgList& args) {
  cli::Args a(args, {"out", "fp-counts", "formats", "repeat", "iterations-csv"},
              {"quick", "cpu-only", "gpu-only", "single-run"});
  if (!a.positional().empty())
    throw cli::UsageError("bench mandelbrot: unexpected \"" + a.positional()[0] + "\"");
  const bool quick = a.flag("quick");
  const int repeat = a.flag("single-run") ? 1 : static_cast<int>(a.get_int("repeat", quick ? 1 : 3, 1, 100));
  std::vector<Arith> only;
  if (a.has("formats")) {
    std::stringstream ss(a.get("formats", ""));
    std::string f;
    while (std::getline(ss, f, ',')) only.push_back(parse_arith(f));
  }
  std::map<std::string, FpCount> counts = builtin_counts();
  if (a.has("fp-counts")) read_fp_counts(a.get("fp-counts", ""), &counts);
  const std::string out = a.get("out", ""), iters_csv = a.get("iterations-csv", "");
  if (!out.empty()) check_writable(out);
  if (!iters_csv.empty()) check_writable(iters_csv);
  const bool gpu = !a.flag("cpu-only") && cuda_device_count() > 0;
  const bool cpu = !a.flag("gpu-only");
  if (a.flag("gpu-only") && !gpu)
    throw mandel::BackendError("bench mandelbrot --gpu-only: no usable CUDA device");

  std::vector<Row> rows;
  std::ostringstream iters;
  iters << "view,format,strategy,iterations\n";
  for (const BenchView& bv : views(quick)) {
    for (Arith f : bv.formats) {
      if (!only.empty() && std::find(only.begin(), only.end(), f) == only.end()) continue;
      struct Run {
        Backend backend;
        LimbStrategy strategy;
        mandel::GpuSchedule schedule;
        const char* name;  // refill, tiles, coop (GPU); threads (CPU)
      };
      std::vector<Run> runs;
      if (gpu) {
        runs.push_back(
            {Backend::kCuda, LimbStrategy::kThreadPerPixel, mandel::GpuSchedule::kRefill, "refill"});
        runs.push_back({Backend::kCuda, LimbStrategy::kThreadPerPixel, mandel::GpuSchedule::kTiles, "tiles"});
        if (mandel::limb_words(f) > 0)
          runs.push_back({Backend::kCuda, LimbStrategy::kCooperative, mandel::GpuSchedule::kRefill, "coop"});
      }
      if (cpu)
        runs.push_back(
            {Backend::kCpu, LimbStrategy::kThreadPerPixel, mandel::GpuSchedule::kRefill, "threads"});
      for (const Run& run : runs) {
        mandel::View v;
        v.re = bv.re;
        v.im = bv.im;
        v.zoom = bv.zoom;
        v.max_iter = bv.iter;
        const bool on_gpu = run.backend == Backend::kCuda;
        v.width = on_gpu ? bv.gpu_w : std::max(16, bv.gpu_w / bv.cpu_div);
        v.height = on_gpu ? bv.gpu_h : std::max(16, bv.gpu_h / bv.cpu_div);
        mandel::RenderOptions o;
        o.arith = f;
        o.check_resolution = false;  // a throughput benchmark: every format runs every view
        o.backend = run.backend;
        o.limb_strategy = run.strategy;
        o.gpu_schedule = run.schedule;
        o.single_launch = true;
        if (on_gpu && repeat > 1) mandel::render(v, o);  // warm-up: module load, clocks
        Row r;
        r.view = bv.name;
        r.format = arith_name(f);
        r.backend = mandel::backend_name(run.backend);
        r.strategy = run.name;
        r.w = v.width;
        r.h = v.height;
        r.max_iter = v.max_iter;
        r.seconds = 1e300;
        if (on_gpu) {
          // A launch of a fast image lasts well under a millisecond, where clocks and the start of a
          // launch move one timing by 20 % or more; so launches are repeated until they add up to
          // kGpuSeconds (at least `repeat`, at most kMaxLaunches) and the median is what counts.
          std::vector<double> t;
          double sum = 0;
          while (static_cast<int>(t.size()) < repeat ||
                 (sum < kGpuSeconds && static_cast<int>(t.size()) < kMaxLaunches && repeat > 1)) {
            const mandel::RenderResult res = mandel::render(v, o);
            t.push_back(res.kernel_seconds);
            sum += res.kernel_seconds;
            r.iterations = res.iterations;
          }
          std::sort(t.begin(), t.end());
          const auto at = [&](double q) { return t[static_cast<std::size_t>(q * static_cast<double>(t.size() - 1) + 0.5)]; };
          r.seconds = at(0.5);
          r.best = t.front();
          r.spread = (at(0.9) - at(0.1)) / r.seconds;
          r.launches = static_cast<int>(t.size());
        } else {
          for (int k = 0; k < repeat; ++k) {
            const mandel::RenderResult res = mandel::render(v, o);
            r.seconds = std::min(r.seconds, res.kernel_seconds);
            r.iterations = res.iterations;
          }
        }
        const double it_per_s = static_cast<double>(r.iterations) / r.seconds;
        auto c = counts.find(r.view + "/" + r.format + "/" + r.strategy);
        if (c == counts.end()) c = counts.find("*/" + r.format + "/*");
        if (c != counts.end() && on_gpu) {
          r.fp = fmt("%.1f", c->second.fp64) + " + " + fmt("%.1f", c->second.fp32) + " (" + c->second.source +
                 ")";
          r.share = it_per_s * (c->second.fp64 / kFp64Ceiling + c->second.fp32 / kFp32Ceiling);
        } else {
          r.fp = "-";
        }
        if (on_gpu) iters << bv.name << "," << r.format << "," << r.strategy << "," << r.iterations << "\n";
        std::fprintf(stderr, "%-18s %-9s %-4s %-6s %5dx%-5d %8.4g s %10.3f Giter/s %s\n", r.view.c_str(),
                     r.format.c_str(), r.backend.c_str(), r.strategy.c_str(), r.w, r.h, r.seconds,
                     it_per_s / 1e9,
                     r.launches ? ("(median of " + std::to_string(r.launches) + ", spread " + fmt("%.1f%%)", 100 * r.spread)).c_str()
                                : "");
        rows.push_back(r);
      }
    }
  }

  char date[64];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::string device = cpu_name() + " (" + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " threads)";
  if (gpu) {
    const auto d = cuda_devices();
    device = d[0].name + ", " + std::to_string(d[0].sm_count) + " SMs; CPU rows: " + device;
  }
  std::string command = "deepscope bench mandelbrot";
  for (const auto& s : args) command += " " + s;
  std::ostringstream md;
  md << "# deepscope bench mandelbrot\n\n"
     << "- date: " << date << "\n- device: " << device << "\n- commit: " << DEEPSCOPE_GIT_COMMIT
     << "\n- command: `" << command << "`\n\n"
     << "GPU time is kernel time (CUDA events, one launch per image): the median of launches repeated "
        "until they add up to "
     << kGpuSeconds << " s (at least " << repeat << ", at most " << kMaxLaunches
     << "), with the fastest launch and the spread (90th - 10th percentile over the median) beside it"
        "; CPU time is wall time on all cores, at a smaller size (throughput per pixel is what "
        "compares). Iterations are z -> z^2 + c steps done (the sum of count - 1). FP ops per "
        "iteration are FP64 + FP32 instructions (PTX of the straight-line loop, or Nsight Compute "
        "with --fp-counts); the share is iterations/s x (FP64/1.67e13 + FP32/3.06e13), the H100's "
        "DFMA and FFMA rates. Formats run every view unchecked (a forced format may not resolve "
        "the pixels there; docs/mandelbrot.md).\n\n"
     << "| view | format | backend | strategy | size | max iter | time (s) | launches: best (s), spread | "
        "Mpixel/s | Giter/s | FP "
        "ops/iter "
        "| share of FMA ceiling |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    const double px = static_cast<double>(r.w) * r.h;
    md << "| " << r.view << " | " << r.format << " | " << r.backend << " | " << r.strategy << " | " << r.w
       << "x" << r.h << " | " << r.max_iter << " | " << fmt("%.4g", r.seconds) << " | "
       << (r.launches ? std::to_string(r.launches) + ": " + fmt("%.4g, ", r.best) + fmt("%.1f%%", 100 * r.spread)
                      : std::string("-"))
       << " | "
       << fmt("%.4g", px / r.seconds / 1e6) << " | "
       << fmt("%.4g", static_cast<double>(r.iterations) / r.seconds / 1e9) << " | " << r.fp << " | "
       << (r.share >= 0 ? fmt("%.1f%%", 100 * r.share) : std::string("-")) << " |\n";
  }
  std::cout << md.str();
  if (!out.empty()) write_file_atomically(out, md.str());
  if (!iters_csv.empty()) write_file_atomically(iters_csv, iters.str());
  return 0;
}

}  // namespace ds::app
