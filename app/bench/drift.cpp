// `deepscope bench drift`: Lennard-Jones steps/s per precision for 4k, 32k and 256k atoms (thesis
// Table 7's float : double : composite ratios as the anchor), the drift slopes of a longer 4k run,
// the summation tables (Tables 2-5) and the do/undo timings (Table 6), as one markdown report.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "kernels/core/atomic_file.h"
#include "bench.h"
#include "app/cli/cli.h"
#include "app/cli/drift_report.h"
#include "kernels/core/device.h"
#include "kernels/drift/drift.h"
#include "version.h"

namespace ds::app {
namespace {

// H100 SXM ceilings (FMA/s), as the other benches quote them.
constexpr double kFp64Ceiling = 1.67e13, kFp32Ceiling = 3.06e13;

drift::MdParams md_params(int cells, int64_t steps, drift::Precision pr, drift::Backend be) {
  drift::MdParams p;
  p.cells = cells;
  p.steps = steps;
  p.sample_every = steps;  // energies at the start and the end only: the timing is the stepping
  p.precision = pr;
  p.backend = be;
  return p;
}

// Candidate pairs examined per step: each atom scans 27 cells of mean occupancy n / ncell^3.
double candidates_per_step(int cells) {
  drift::MdParams p;
  p.cells = cells;
  const double box = drift::box_length(p);
  const int nc = static_cast<int>(std::floor(box / p.cutoff));
  const double n = 4.0 * cells * cells * cells;
  return n * 27.0 * n / (static_cast<double>(nc) * nc * nc);
}

void speed_section(std::ostringstream& md, const char* title, drift::Backend be,
                   const std::vector<std::pair<int, int64_t>>& sizes) {
  md << "## Steps/s, " << title << "\n\n"
     << "| atoms | precision | steps | seconds | steps/s | time / float's | candidate pairs/s | "
        "distance-test "
        "share of peak |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  std::map<int, std::map<drift::Precision, double>> sps;
  for (const auto& sz : sizes) {
    for (drift::Precision pr : drift::all_precisions()) {
      const drift::MdResult r = drift::run_md(md_params(sz.first, sz.second, pr, be));
      sps[sz.first][pr] = r.steps_per_second;
      const double ratio = sps[sz.first][drift::Precision::kFloat] / r.steps_per_second;
      md << "| " << r.atoms << " | " << drift::precision_name(pr) << " | " << r.steps_done << " | "
         << fmt("%.3f", r.seconds) << " | " << fmt("%.4g", r.steps_per_second) << " | " << fmt("%.2f", ratio)
         << " | " << fmt("%.3g", r.steps_per_second * candidates_per_step(sz.first)) << " | "
         << (be == drift::Backend::kCuda
                 ? fmt("%.2g", r.steps_per_second * candidates_per_step(sz.first) * 8.0 /
                                   (pr == drift::Precision::kDouble ? kFp64Ceiling : kFp32Ceiling))
                 : std::string("(GPU only)"))
         << " |\n";
      std::fprintf(stderr, "  %s %lld atoms %s: %.4g steps/s\n", title, static_cast<long long>(r.atoms),
                   drift::precision_name(pr), r.steps_per_second);
    }
  }
  md << "\nTime ratios against float (thesis Table 7: 3000 atoms double 10.97, composite 3.60; 11135 atoms "
        "double 7.90, composite 3.04; our goal: composite <= 1.5):\n\n"
     << "| atoms | double / float | composite / float | ff / float | mixed / float | fixed / float | composite "
        "goal met | fixed goal met (<= 1.5) |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  for (auto& s : sps) {
    auto& m = s.second;
    const double f = m[drift::Precision::kFloat];
    const double c = f / m[drift::Precision::kComposite];
    md << "| " << 4LL * s.first * s.first * s.first << " | " << fmt("%.2f", f / m[drift::Precision::kDouble])
       << " | " << fmt("%.2f", c) << " | " << fmt("%.2f", f / m[drift::Precision::kFF]) << " | "
       << fmt("%.2f", f / m[drift::Precision::kMixed]) << " | " << fmt("%.2f", f / m[drift::Precision::kFixed])
       << " | " << (c <= 1.5 ? "yes" : "no") << " | " << (f / m[drift::Precision::kFixed] <= 1.5 ? "yes" : "no")
       << " |\n";
  }
  md << "\n";
}

}  // namespace

int bench_drift(const ArgList& argv) {
  cli::Args args(argv, {"out"}, {"quick", "cpu-only", "gpu-only"});
  const bool quick = args.flag("quick");
  const std::string out_path = args.get("out", "");
  if (!out_path.empty()) check_writable(out_path);
  const auto devs = cuda_devices();
  const bool do_cpu = !args.flag("gpu-only"), do_gpu = !args.flag("cpu-only") && !devs.empty();
  const drift::Backend main_be = do_gpu ? drift::Backend::kCuda : drift::Backend::kCpu;
  std::ostringstream md;
  md << bench_preamble("drift", argv);
  md << "- GPU: " << (devs.empty() ? "none (" + cuda_unavailable_reason() + ")" : devs[0].name)
     << "\n- CPU threads: " << std::max(1u, std::thread::hardware_concurrency())
     << "\n\nLennard-Jones NVE (fcc, density 0.8442, T0 3.0, cutoff 2.5 shifted, dt 0.005, cell list rebuilt "
        "every step). Steps/s exclude setup and the two energy evaluations; candidate pairs/s counts the "
        "pairs each atom examines (27 cells x mean occupancy), of which about a seventh lie inside the "
        "cutoff. "
        "Distance-test share of peak: candidate pairs/s x 8 operations (3 differences, 3 squares, 2 "
        "additions "
        "in the pair type) / the H100's FMA ceiling in that type (FP32 3.06e13/s; FP64 1.67e13/s for "
        "double), "
        "a lower bound on the arithmetic the step needs, not a measured flop count.\n\n";
  const int64_t k = quick ? 10 : 1;
  if (do_gpu)
    speed_section(md, "GPU", drift::Backend::kCuda, {{10, 4000 / k}, {20, 1000 / k}, {40, 200 / k}});
  if (do_cpu) speed_section(md, "CPU (all cores)", drift::Backend::kCpu, {{10, quick ? 5 : 40}});

  // Drift slopes.
  {
    const int64_t steps = do_gpu ? (quick ? 5000 : 50000) : (quick ? 200 : 2000);
    md << "## Drift, 4000 atoms, " << steps << " steps of dt 0.005 on " << backend_name(main_be) << "\n\n"
       << "Slope of a least-squares line through E(t) per atom (energy per atom per unit time), sampled "
          "every "
       << std::max<int64_t>(1, steps / 500) << " steps. Goal: composite's drift within 2x of double's.\n\n";
    std::vector<MdRun> runs;
    for (drift::Precision pr : drift::all_precisions()) {
      drift::MdParams p = md_params(10, steps, pr, main_be);
      p.sample_every = std::max<int64_t>(1, steps / 500);
      p.equilibration = steps / 10;
      MdRun r;
      r.precision = pr;
      r.seed = p.seed;
      r.result = drift::run_md(p);
      std::fprintf(stderr, "  drift %s: slope %.3e\n", drift::precision_name(pr), r.result.fit.slope);
      runs.push_back(std::move(r));
    }
    md << md_table_md(runs, md_params(10, steps, drift::Precision::kDouble, main_be));
    const double d = std::fabs(runs[1].result.fit.slope), c = std::fabs(runs[2].result.fit.slope);
    md << "|composite slope| / |double slope| = " << fmt("%.3g", c / d)
       << " (goal <= 2: " << (c <= 2 * d ? "met" : "not met")
       << "); |fixed slope| / |double slope| = " << fmt("%.3g", std::fabs(runs[5].result.fit.slope) / d)
       << "; |float slope| / |double slope| = " << fmt("%.3g", std::fabs(runs[0].result.fit.slope) / d)
       << "\n\n";
  }

  // Summation suite.
  {
    drift::SumSuiteParams sp;
    sp.backend = main_be;
    md << "## Global summation (thesis Tables 2-5)\n" << sum_tables_md(drift::sum_suite(sp), sp);
  }

  // Do/undo timings.
  for (drift::Backend be : {drift::Backend::kCuda, drift::Backend::kCpu}) {
    if ((be == drift::Backend::kCuda && !do_gpu) || (be == drift::Backend::kCpu && !do_cpu)) continue;
    DoUndoRun run;
    run.iterations = quick ? 100000 : 1000000;
    run.every = run.iterations / 100;
    run.repeat = 3;
    run.backend = be;
    run.trials = {1, 2, 3};
    md << "## Do/undo (thesis Table 6: single 15.4 s, double 44.2 s, composite 16.7 s on a Tesla S1070)\n\n"
       << run_doundo(run).table_md;
    std::fprintf(stderr, "  do/undo on %s done\n", backend_name(be));
  }
  const std::string text = md.str();
  std::fputs(text.c_str(), stdout);
  if (!out_path.empty()) write_file_atomically(out_path, text);
  return 0;
}

}  // namespace ds::app
