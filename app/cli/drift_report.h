// The MD-drift workspace's reports, shared by `deepscope drift` and `deepscope bench drift`: the
// summation tables (thesis Tables 2-5), the do/undo runs with their curves and timings (Figure 12,
// Table 6), and the Lennard-Jones runs' CSV, plots and drift table.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/drift/drift.h"

namespace ds::app {

std::string sum_tables_md(const std::vector<drift::SumRow>& rows, const drift::SumSuiteParams& p);
std::string sum_csv(const std::vector<drift::SumRow>& rows, const drift::SumSuiteParams& p);

struct DoUndoRun {
  int64_t iterations = 1'000'000, every = 1000;
  uint64_t seed = 2010;
  int repeat = 1;  // timed runs per case (the curve is from the first; they are identical)
  drift::Backend backend = drift::Backend::kCpu;
  std::vector<Arith> ariths = {Arith::kF32, Arith::kF64, Arith::kComposite, Arith::kFF};
  std::vector<int> trials;
  const std::atomic<bool>* cancel = nullptr;  // checked between runs
  std::function<void(const std::string&)> progress;
};
struct DoUndoOutput {
  std::string csv;                                        // trial,ops,arith,iteration,drift
  std::vector<std::pair<std::string, std::string>> pngs;  // file name, PNG bytes
  std::string table_md;                                   // Table 6 layout: mean and stdev of seconds
  bool cancelled = false;
};
DoUndoOutput run_doundo(const DoUndoRun& run);

struct MdRun {
  drift::Precision precision = drift::Precision::kDouble;
  uint64_t seed = 0;  // the initial velocities' seed
  drift::MdResult result;
};
// One row per sample: precision,seed,step,time,ke,pe,total (reduced units, per atom).
std::string md_csv(const std::vector<MdRun>& runs);
// The drift of each run in reduced units and in kT/ns/dof (argon), then per precision the mean and
// standard error over the seeds that finished (PREFIX_drift.csv).
std::string md_drift_csv(const std::vector<MdRun>& runs, const drift::MdParams& p);
// The same with the parameters and the unit mapping, as JSON (PREFIX.json).
std::string md_json(const std::vector<MdRun>& runs, const drift::MdParams& p);
// E(t) - E(0) per atom, one line per precision.
std::string md_drift_png(const std::vector<MdRun>& runs, const drift::MdParams& p);
// Potential energy per atom, one line per precision.
std::string md_pe_png(const std::vector<MdRun>& runs, const drift::MdParams& p);
// Resume support for `deepscope drift md`: finished runs are stored as text under a fingerprint of
// every parameter but the precision; loading returns only runs stored under the same fingerprint.
std::string md_fingerprint(const drift::MdParams& p);
std::string md_runs_text(const std::string& fingerprint, const std::vector<MdRun>& finished);
std::vector<MdRun> md_runs_load(const std::string& text, const std::string& fingerprint);

// precision | seed | steps/s | drift slope | kT/ns/dof | mean T | residual | E(0) | E(end) | status, and
// with several seeds a table of their mean and standard error per precision.
std::string md_table_md(const std::vector<MdRun>& runs, const drift::MdParams& p);

}  // namespace ds::app
