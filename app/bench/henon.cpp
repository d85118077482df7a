// `deepscope bench henon`: the Hénon-sinks paper's Table 1 metric, orbits per second at 1e6
// iterations per orbit, for every format: the scan's transient loop (kernels/henon/advance.cuh advance)
// timed at --steps steps per orbit (default 1e6 on the GPU, 1e5 on the CPU), as steps/s / 1e6.
// With --fp-counts (docs/bench/henon_fp_counts.py over Nsight Compute) it adds the FP64
// instructions per step and the share of the H100's FP64 ceiling they imply, and it sets the GPU
// rows beside the paper's C2075 figures and CAMPARY's on the same H100 (issue #6).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <thread>
#include <vector>

#include "arith/error.h"
#include "bench.h"
#include "henon_libs.h"
#include "app/cli/cli.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/device.h"
#include "kernels/henon/henon.h"
#include "version.h"

namespace ds::app {
namespace {

constexpr double kFp64Ceiling = 1.67e13, kFp32Ceiling = 3.06e13;  // measured FMA/s, H100

// The paper's Table 1 (Tesla C2075, Mprec) and CAMPARY's multi_prec<N> loop on the H100, orbits/s
// at 1e6 iterations per orbit; for f64 the plain double loop's 5.07e12 iterations/s.
const std::map<std::string, double> kPaperC2075 = {{"f64", 102398}, {"f64x2", 7608}, {"f64x3", 5200},
                                                   {"f64x4", 1788}, {"f64x5", 758},  {"f64x6", 374},
                                                   {"f64x7", 205},  {"f64x8", 122}};
// CAMPARY's figures are its best launch configuration (block sizes 32 to 512, with and without
// --maxrregcount 255, a and b doubles), as issue #25 measured them; the earlier ones (one
// configuration) were 79213, 12035, 8808, 7133, 6082, 5015 and 3488 for N = 2 .. 8.
const std::map<std::string, double> kReferenceH100 = {{"f64", 5.07e6}, {"f64x2", 78399}, {"f64x3", 11653},
                                                      {"f64x4", 9241}, {"f64x5", 7524},  {"f64x6", 6541},
                                                      {"f64x7", 6346}, {"f64x8", 4998}};

struct FpPerStep {
  double fp64 = 0, fp32 = 0;
};

// "format,fp64_per_step,fp32_per_step" lines.
std::map<std::string, FpPerStep> read_fp_counts(const std::string& path) {
  std::map<std::string, FpPerStep> m;
  std::ifstream in(path);
  if (!in) throw IoError("cannot read --fp-counts file \"" + path + "\"");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("format,", 0) == 0) continue;
    std::stringstream ss(line);
    std::string f, d, s;
    std::getline(ss, f, ',');
    std::getline(ss, d, ',');
    std::getline(ss, s, ',');
    try {
      m[f] = {std::stod(d), std::stod(s)};
    } catch (const std::exception&) {
      throw IoError("--fp-counts: malformed line \"" + line + "\" (want format,fp64_per_step,fp32_per_step)");
    }
  }
  return m;
}

std::string num(double v, const char* fmt = "%.4g") {
  char buf[40];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// The paper's Table 2 (Mprec against MPFR, both on 8 OpenMP threads of an i7-3820, orbits/s at
// 1e6 iterations/orbit) on this machine: our CPU rows beside MPFR at the same number of bits and
// QD's dd_real/qd_real, every library on all cores, in this run.
void table2(std::ostringstream& md, int64_t steps) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  md << "## CPU: the paper's Table 2 here (one orbit of " << steps << " steps per thread, " << threads
     << " threads, every library alike)\n\n"
     << "Orbits/s at 1e6 iterations per orbit. deepscope's f64xN loop (the scan's, escape test included); "
        "MPFR at 53 N bits, rounding to nearest in every operation; QD's dd_real (2 doubles) and qd_real "
        "(4). Paper (i7-3820, 8 OpenMP threads): Mprec against MPFR.\n\n"
     << "| doubles | bits | deepscope f64xN | MPFR | QD | deepscope / MPFR | deepscope / QD | paper Mprec | "
        "paper MPFR |\n|---|---|---|---|---|---|---|---|---|\n";
  const std::map<int, std::pair<double, double>> paper = {
      {2, {227, 11.8}}, {3, {76, 10.6}}, {4, {37, 10.1}}, {6, {15, 8.9}}, {8, {8, 7.9}}};
  for (int n = 2; n <= 8; ++n) {
    const Arith f = parse_arith("f64x" + std::to_string(n));
    const double o = henon::orbit_rate(f, Backend::kCpu, threads, steps).steps_per_second / 1e6;
    const double m = mpfr_henon_steps_per_second(53L * n, steps) / 1e6;
    const double q = qd_henon_steps_per_second(n, steps) / 1e6;
    const auto p = paper.find(n);
    md << "| " << n << " | " << 53 * n << " | " << num(o) << " | " << num(m) << " | " << (q > 0 ? num(q) : "")
       << " | " << num(o / m, "%.1f") << " | " << (q > 0 ? num(o / q, "%.2f") : "") << " | "
       << (p == paper.end() ? "" : num(p->second.first)) << " | "
       << (p == paper.end() ? "" : num(p->second.second)) << " |\n";
    std::fprintf(stderr, "  Table 2: %d doubles done\n", n);
  }
  md << "\n";
}

}  // namespace

int bench_henon(const ArgList& argv) {
  cli::Args args(argv, {"out", "formats", "steps", "orbits", "fp-counts", "params"}, {"quick", "cpu-only", "gpu-only"});
  // format: a and b in each format (parsed from "1.4" and "0.3"); double: the doubles nearest them,
  // as the paper's Figure 6 (and CAMPARY's loop) take them; both: f64xN rows in both forms.
  const std::string params = args.get("params", "both");
  if (params != "format" && params != "double" && params != "both")
    throw cli::UsageError("--params must be format, double or both, got \"" + params + "\"");
  const bool quick = args.flag("quick");
  const std::string out_path = args.get("out", "");
  if (!out_path.empty()) check_writable(out_path);
  std::vector<Arith> formats = all_ariths();
  if (args.has("formats")) {
    formats.clear();
    std::stringstream ss(args.get("formats", ""));
    std::string name;
    while (std::getline(ss, name, ',')) formats.push_back(parse_arith(name));
  }
  std::map<std::string, FpPerStep> counts;
  if (args.has("fp-counts")) counts = read_fp_counts(args.get("fp-counts", ""));
  const auto devs = cuda_devices();
  const bool do_cpu = !args.flag("gpu-only"), do_gpu = !args.flag("cpu-only") && !devs.empty();
  std::ostringstream md;
  md << bench_preamble("henon", argv);
  md << "- GPU: " << (devs.empty() ? "none (" + cuda_unavailable_reason() + ")" : devs[0].name)
     << "\n\nOrbits/s at 1e6 iterations per orbit (paper, Table 1) = map steps/s / 1e6 of the scan's "
        "transient loop (the exact escape test's result at every step) at (a, b) = (1.4, 0.3). On the GPU "
        "the loop is timed by CUDA events around its launches (the rates below, the FP share and the "
        "ratios use it); \"scan seconds\" is the whole scan call as a user runs it: buffers, start points, "
        "transient, period test and the results' copy back.\n\n";
  auto run = [&](const char* title, Backend be, int64_t orbits, int64_t steps) {
    const bool gpu = be == Backend::kCuda;
    md << "## " << title << ": " << orbits << " orbits"
       << (gpu && !args.has("orbits") ? " or more (whole waves of each row's kernel)" : "")
       << " x " << steps << " steps\n\n"
       << "| format |" << (gpu ? " orbits |" : "") << " steps per orbit |"
       << (gpu ? " scan seconds | loop seconds |" : " seconds |")
       << " steps/s | orbits/s at 1e6 iterations |";
    if (gpu) md << " FP64 instr/step | FP share of ceiling | x paper (C2075) | x CAMPARY (H100) |";
    md << "\n|---|---|---|---|---|" << (gpu ? "---|---|---|---|---|---|" : "") << "\n";
    for (Arith f : formats) {
      // By default formats dearer than four f64 steps run proportionally fewer steps (a rate needs
      // no more), so that the whole GPU table takes minutes; an explicit --steps runs every row at
      // that count (the instruction counts need it); --quick shortens every row by its cost.
      const double cost = std::max(1.0, arith_traits(f).rel_cost);
      const double shorten = quick ? cost : args.has("steps") ? 1.0 : std::max(1.0, cost / 4);
      const int64_t n = std::max<int64_t>(std::min<int64_t>(steps, 1000),
                                          static_cast<int64_t>(static_cast<double>(steps) / shorten));
      const bool expansion = std::string(arith_name(f)).rfind("f64x", 0) == 0;
      const bool native = f == Arith::kF32 || f == Arith::kF64;
      // Row kinds: 0 the format's a and b, 1 a and b doubles (f64xN), 2 f32/f64 and 3 f64xN with a
      // and b doubles, the orbits split over kSeveral parameters (a scan's chunk: a and b per
      // thread, not kernel arguments).
      constexpr int64_t kSeveral = 512;
      for (const int kind : {0, 1, 3, 2}) {
        const bool dbl = kind == 1 || kind == 3, several = kind == 2 || kind == 3;
        if (kind == 0 && expansion && params == "double") continue;
        if (dbl && (!expansion || params == "format")) continue;  // only f64xN multiply by a double
        if (several && (!gpu || orbits % kSeveral != 0)) continue;
        if (kind == 2 && !native) continue;
        // On the GPU a row runs a whole number of its kernel's waves (at least `orbits`), so that
        // no SM idles at the end: the peak rate, as the paper's Table 1 reports. (Nsight Compute's
        // counts, docs/bench/henon_fp_counts.py, pass --orbits: every row runs exactly that.)
        int64_t row_orbits = orbits;
        if (gpu && !args.has("orbits")) {  // an explicit --orbits runs exactly that many
          const int64_t per = std::lcm(henon::detail::cuda_wave_items(f, dbl, several ? kSeveral : 1),
                                       several ? kSeveral : int64_t{1});
          row_orbits = (orbits + per - 1) / per * per;
        }
        const henon::OrbitRate r = henon::orbit_rate(f, be, row_orbits, n, dbl, several ? kSeveral : 1);
        const std::string name = std::string(arith_name(f)) + (dbl ? "+d" : "");
        const double orbits_s = r.loop_steps_per_second / 1e6;
        const std::string mark = kind == 1   ? " (a, b doubles)"
                                 : kind == 3 ? " (a, b doubles, " + std::to_string(kSeveral) + " parameters)"
                                 : kind == 2 ? " (" + std::to_string(kSeveral) + " parameters)"
                                             : "";
        md << "| " << arith_name(f) << mark << " | " << (gpu ? std::to_string(row_orbits) + " | " : "") << n << " | "
           << num(r.seconds, "%.3f") << " | " << (gpu ? num(r.loop_seconds, "%.3f") + " | " : "")
           << num(r.loop_steps_per_second) << " | " << num(orbits_s) << " |";
        if (gpu) {
          const auto c = several ? counts.end() : counts.find(name);
          if (c == counts.end()) {
            md << " | |";
          } else {
            const double share =
                r.loop_steps_per_second * (c->second.fp64 / kFp64Ceiling + c->second.fp32 / kFp32Ceiling);
            md << " " << num(c->second.fp64, "%.1f")
               << (c->second.fp32 > 0 ? " (+" + num(c->second.fp32, "%.1f") + " FP32)" : "") << " | "
               << num(100 * share, "%.1f") << "% |";
          }
          const auto p = kPaperC2075.find(arith_name(f)), h = kReferenceH100.find(arith_name(f));
          md << " " << (p == kPaperC2075.end() ? "" : num(orbits_s / p->second, "%.1f")) << " | "
             << (h == kReferenceH100.end() ? "" : num(orbits_s / h->second, "%.2f")) << " |";
        }
        md << "\n";
        std::fprintf(stderr, "  %s %s done\n", title, name.c_str());
      }
    }
    md << "\n";
    if (gpu)
      md << "FP share of ceiling = steps/s x (FP64 instr/step / " << kFp64Ceiling << " + FP32 instr/step / "
         << kFp32Ceiling
         << "), the H100's measured FMA rates; instructions per step counted by Nsight Compute over every "
            "launch "
            "(docs/bench/henon_fp_counts.py), so the escape pre-test and the loop are included. x CAMPARY: "
            "CAMPARY's multi_prec<N> Hénon loop (paper, Figure 6, which takes a and b as doubles) on the same "
            "H100, to be read against the rows marked (a, b doubles); for f64 the reference is a plain double "
            "loop's 5.07e12 iterations/s. Rows without the mark take a and b to the format's precision.\n\n";
  };
  if (do_cpu) {
    const int64_t orbits =
        args.get_count("orbits", 8 * std::max(1u, std::thread::hardware_concurrency()), 1, 100'000'000);
    const int64_t steps = args.get_count("steps", quick ? 10000 : 100000, 1, henon::kMaxTransient);
    run("CPU (all cores)", Backend::kCpu, orbits, steps);
    table2(md, quick ? 20000 : 200000);
  }
  if (do_gpu) {
    const int64_t orbits =
        args.get_count("orbits", static_cast<int64_t>(devs[0].sm_count) * 4096, 1, 100'000'000);
    run("GPU", Backend::kCuda, orbits,
        args.get_count("steps", quick ? 10000 : 1000000, 1, henon::kMaxTransient));
  } else if (!args.flag("cpu-only")) {
    md << "## GPU\n\nnot run: " << cuda_unavailable_reason() << "\n";
  }
  const std::string text = md.str();
  std::fputs(text.c_str(), stdout);
  if (!out_path.empty()) write_file_atomically(out_path, text);
  return 0;
}

}  // namespace ds::app
