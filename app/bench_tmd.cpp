// `deepscope bench tmd`: throughput of the TMD exhaustive search (dd evaluation + 2^-k filter,
// arguments per second) for every function on the CPU and the GPU, and optionally the headline run:
// all 2^32 binary32 arguments of exp2 rounded to nearest, with its hardest cases.
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>

#include "atomic_file.h"
#include "bench.h"
#include "cancel.h"
#include "cli.h"
#include "kernels/device.h"
#include "kernels/tmd.h"
#include "version.h"

namespace ds::app {

int bench_tmd(const ArgList& argv) {
  cli::Args args(argv, {"out", "full-exp2", "k"}, {"quick", "cpu-only", "gpu-only"});
  const bool quick = args.flag("quick");
  const std::string out_path = args.get("out", "");
  if (!out_path.empty()) check_writable(out_path);
  const std::string full_dir = args.get("full-exp2", "");
  const int k_full = static_cast<int>(args.get_int("k", 20, tmd::kMinK, tmd::kMaxK));
  if (!full_dir.empty()) check_writable(full_dir + "/exp2-nearest.csv");
  const auto devs = cuda_devices();
  const bool do_cpu = !args.flag("gpu-only"), do_gpu = !args.flag("cpu-only") && !devs.empty();
  if (!full_dir.empty() && !do_gpu)
    throw cli::UsageError("--full-exp2 runs on the GPU, and none is usable here");
  std::ostringstream md;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  md << "# deepscope bench tmd\n\n- date: " << date << "\n- commit: " << DEEPSCOPE_GIT_COMMIT
     << "\n- command: `deepscope bench tmd";
  for (const auto& a : argv) md << " " << a;
  md << "`\n- CPU threads: " << std::thread::hardware_concurrency()
     << "\n- GPU: " << (devs.empty() ? "none (" + cuda_unavailable_reason() + ")" : devs[0].name)
     << "\n\nExhaustive search, evaluation and filter only (f(x) in double-double, distance to the nearest "
        "breakpoint, 2^-20 threshold, nearest; MPFR confirmation excluded): binary32 arguments per second "
        "over "
        "consecutive bit patterns starting at 1.0 (0x3f800000; log and log2 from 3.0).\n\n"
     << "| function | CPU args | CPU s | CPU args/s | GPU args | GPU s | GPU args/s "
        "|\n|---|---|---|---|---|---|---|\n";
  const int64_t n_cpu = quick ? (1 << 16) : (1 << 20), n_gpu = quick ? (1 << 24) : (1 << 28);
  for (tmd::Func f : tmd::all_funcs()) {
    const uint32_t lo = (f == tmd::Func::kLog || f == tmd::Func::kLog2) ? 0x40400000u : 0x3f800000u;
    char line[256];
    std::string cpu_cells = "| – | – | – ", gpu_cells = "| – | – | – ";
    if (do_cpu) {
      const tmd::EvalRate r = tmd::eval_rate(f, tmd::Mode::kNearest, 24, 20, lo, n_cpu, Backend::kCpu);
      std::snprintf(line, sizeof line, "| %lld | %.3f | %.3g ", static_cast<long long>(n_cpu), r.seconds,
                    r.inputs_per_second);
      cpu_cells = line;
    }
    if (do_gpu) {
      tmd::eval_rate(f, tmd::Mode::kNearest, 24, 20, lo, 1 << 20, Backend::kCuda);  // warm-up
      const tmd::EvalRate r = tmd::eval_rate(f, tmd::Mode::kNearest, 24, 20, lo, n_gpu, Backend::kCuda);
      std::snprintf(line, sizeof line, "| %lld | %.3f | %.3g ", static_cast<long long>(n_gpu), r.seconds,
                    r.inputs_per_second);
      gpu_cells = line;
    }
    md << "| " << tmd::func_name(f) << " " << cpu_cells << gpu_cells << "|\n";
    std::fprintf(stderr, "  %s done\n", tmd::func_name(f));
  }
  if (!do_gpu && !args.flag("cpu-only")) md << "\nGPU not run: " << cuda_unavailable_reason() << "\n";
  if (!full_dir.empty()) {
    install_cancel_handler();
    tmd::ExhaustiveParams p;
    p.func = tmd::Func::kExp2;
    p.mode = tmd::Mode::kNearest;
    p.k = k_full;
    p.lo = 0;
    p.hi = 0xffffffffu;
    p.backend = Backend::kCuda;
    p.chunk_inputs = int64_t{1} << 28;
    p.cancel = &cancel_flag();
    const tmd::ExhaustiveResult r = tmd::exhaustive(p);
    if (r.cancelled) throw std::runtime_error("interrupted");
    const std::string csv = full_dir + "/exp2-nearest.csv";
    write_file_atomically(csv, tmd::cases_csv(p, r));
    write_file_atomically(full_dir + "/exp2-nearest.json", tmd::cases_json(p, r));
    bool found[3] = {false, false, false};
    const uint32_t special[3] = {0x3b429d37u, 0xbcf3a937u, 0xb8d3d026u};
    for (const tmd::Case& c : r.cases)
      for (int i = 0; i < 3; ++i) found[i] = found[i] || c.x == special[i];
    char line[512];
    std::snprintf(line, sizeof line,
                  "\n## All 2^32 binary32 arguments of exp2, rounded to nearest, k = %d (GPU)\n\n"
                  "- bit patterns: %lld; arguments evaluated (normal results): %lld\n"
                  "- candidates checked with MPFR: %lld; hard-to-round cases: %zu\n"
                  "- time: %.2f s (evaluation + filter on the GPU %.2f s, MPFR on the CPU %.2f s)\n"
                  "- CORE-MATH exp2f exceptions found: 0x3b429d37 %s, 0xbcf3a937 %s, 0xb8d3d026 %s\n\n"
                  "Hardest cases (run = identical bits after the rounding bit):\n\n"
                  "| x | run | -log2(dist/ulp) | exp2(x) (MPFR, 256 bits) |\n|---|---|---|---|\n",
                  k_full, static_cast<long long>(r.inputs), static_cast<long long>(r.evaluated),
                  static_cast<long long>(r.candidates), r.cases.size(), r.seconds, r.eval_seconds,
                  r.mpfr_seconds, found[0] ? "yes" : "NO", found[1] ? "yes" : "NO", found[2] ? "yes" : "NO");
    md << line;
    for (const tmd::Case& c : tmd::hardest(r.cases, 10)) {
      std::snprintf(line, sizeof line, "| 0x%08x | %d | %.3f | %s |\n", c.x, c.run, c.log2_dist,
                    c.fx.c_str());
      md << line;
    }
  }
  const std::string text = md.str();
  std::fputs(text.c_str(), stdout);
  if (!out_path.empty()) write_file_atomically(out_path, text);
  return 0;
}

}  // namespace ds::app
