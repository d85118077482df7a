// `deepscope drift sum|doundo|md`: the MD-drift workspace in batch mode, over kernels/drift.h.
// Input errors exit 2 before any work; outputs are written whole (atomic_file.h); Ctrl-C stops a
// run between samples and writes what was computed so far.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "kernels/core/atomic_file.h"
#include "kernels/core/comm.h"
#include "kernels/core/input_file.h"
#include "kernels/core/work.h"
#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "drift_report.h"
#include "kernels/drift/drift.h"
#include "kernels/drift/md_checkpoint.h"
#include "app/io/plot_png.h"

namespace ds::app {
namespace {

using drift::Backend;

Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::kAuto;
  if (s == "cpu") return Backend::kCpu;
  if (s == "cuda") return Backend::kCuda;
  throw cli::UsageError("--backend must be auto, cpu or cuda, got \"" + s + "\"");
}

// A count written as an integer or in scientific notation ("1e6"), exact and within [lo, hi].
int64_t get_count(const cli::Args& args, const std::string& name, int64_t fallback, int64_t lo, int64_t hi) {
  if (!args.has(name)) return fallback;
  const std::string s = args.get(name, "");
  const double v = cli::parse_double("--" + name, s);
  if (!(v == std::floor(v)) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw cli::UsageError("--" + name + " must be an integer in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "], got \"" + s + "\"");
  return static_cast<int64_t>(v);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ','))
    if (!part.empty()) out.push_back(part);
  if (out.empty()) throw cli::UsageError("empty list \"" + s + "\"");
  return out;
}

// Library range checks (std::invalid_argument) are input errors: exit 2.
template <class F>
auto as_usage(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(e.what());
  }
}

int drift_sum(const ArgList& argv) {
  cli::Args args(argv, {"n", "seed", "threads", "backend", "out"}, {"quiet"});
  drift::SumSuiteParams p;
  p.n = static_cast<int>(get_count(args, "n", 1000, 2, 10'000'000));
  p.seed = static_cast<uint64_t>(get_count(args, "seed", static_cast<int64_t>(p.seed), 0, INT64_MAX));
  if (args.has("threads")) {
    p.threads.clear();
    for (const std::string& t : split(args.get("threads", ""))) {
      // Checked before the cast to int: --threads 4294967297 wrapped to 1 thread.
      const int64_t v = cli::parse_int("--threads", t);
      if (v < 1 || v > p.n)
        throw cli::UsageError("--threads takes counts in [1, --n = " + std::to_string(p.n) + "], got " + t);
      p.threads.push_back(static_cast<int>(v));
    }
  }
  p.backend = select_backend(parse_backend(args.get("backend", "auto")));
  const std::string out = args.get("out", "");
  if (!out.empty()) check_writable(out);
  const std::vector<drift::SumRow> rows = as_usage([&] { return drift::sum_suite(p); });
  if (!args.flag("quiet")) std::cout << sum_tables_md(rows, p);
  if (!out.empty()) write_file_atomically(out, sum_csv(rows, p));
  return 0;
}

int drift_doundo(const ArgList& argv) {
  cli::Args args(argv, {"iterations", "every", "seed", "arith", "trials", "backend", "repeat", "out-dir"},
                 {"quiet"});
  DoUndoRun run;
  run.iterations = get_count(args, "iterations", 1'000'000, 1, 10'000'000'000LL);
  run.every = get_count(args, "every", std::max<int64_t>(1, run.iterations / 1000), 1, run.iterations);
  run.seed = static_cast<uint64_t>(get_count(args, "seed", 2010, 0, INT64_MAX));
  run.repeat = static_cast<int>(get_count(args, "repeat", 1, 1, 100));
  run.backend = select_backend(parse_backend(args.get("backend", "auto")));
  run.ariths.clear();
  for (const std::string& a : split(args.get("arith", "f32,f64,composite,ff"))) {
    const Arith ar = parse_arith(a);
    if (!drift::doundo_arith_supported(ar))
      throw cli::UsageError("do/undo runs in f32, f64, composite or ff");
    run.ariths.push_back(ar);
  }
  for (const std::string& t : split(args.get("trials", "1,2,3"))) {
    const int64_t v = cli::parse_int("--trials", t);
    if (v < 1 || v > drift::kDoUndoTrials) throw cli::UsageError("--trials takes 1, 2 and 3");
    run.trials.push_back(static_cast<int>(v));
  }
  const std::string dir = args.require("out-dir");
  // Every file the run may write, checked before it starts: the CSV and two plots a trial (a
  // directory at doundo_trial1_divmul.png used to be found only after the runs, the CSV written).
  std::vector<std::string> outputs = {dir + "/doundo.csv"};
  for (int trial : run.trials)
    for (const char* order : {"_divmul.png", "_muldiv.png"})
      outputs.push_back(dir + "/doundo_trial" + std::to_string(trial) + order);
  check_outputs(outputs);
  install_cancel_handler();
  run.cancel = &cancel_flag();
  const bool quiet = args.flag("quiet");
  if (!quiet) run.progress = [](const std::string& what) { std::fprintf(stderr, "  %s\n", what.c_str()); };
  const DoUndoOutput o = as_usage([&] { return run_doundo(run); });
  write_file_atomically(dir + "/doundo.csv", o.csv);
  for (const auto& png : o.pngs) write_file_atomically(dir + "/" + png.first, png.second);
  if (!quiet) std::cout << o.table_md << "wrote " << dir << "/doundo.csv and " << o.pngs.size() << " plots\n";
  if (o.cancelled) {
    std::cerr << "interrupted: the runs finished so far are written\n";
    return 130;
  }
  return 0;
}

// PREFIX.ckpt (docs/drift.md, "Checkpoints"): the state of the one run that was cut part-way. It is
// used only by a run with the same fingerprint, precision and seed that is still to be done; any
// other checkpoint, or a damaged one, is refused before any work (never silently mixed or dropped).
drift::MdCheckpointFile load_checkpoint(const std::string& path, const std::string& text, drift::MdParams p,
                                        const std::string& fingerprint,
                                        const std::vector<std::pair<drift::Precision, uint64_t>>& to_do) {
  drift::MdCheckpointFile f;
  try {
    f = drift::parse_checkpoint_file(text);
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(path + ": " + e.what() + "; remove it to start that run over");
  }
  if (f.fingerprint != fingerprint)
    throw cli::UsageError(path + " holds a checkpoint of other parameters (\"" + f.fingerprint +
                          "\"); this command's are \"" + fingerprint +
                          "\": run it with those parameters, or remove it to start over");
  const std::string run = std::string(drift::precision_name(f.precision)) + " seed " + std::to_string(f.seed);
  if (std::find(to_do.begin(), to_do.end(), std::make_pair(f.precision, f.seed)) == to_do.end())
    throw cli::UsageError(path + " holds a checkpoint of " + run +
                          ", which this command does not run (or PREFIX.resume holds it finished): "
                          "give that precision and seed, or remove it");
  p.precision = f.precision;
  p.seed = f.seed;
  try {
    drift::validate_checkpoint(p, f.state);
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(path + " (" + run + "): " + e.what() + "; remove it to start that run over");
  }
  return f;
}

int drift_md(const ArgList& argv) {
  cli::Args args(argv,
                 {"cells", "atoms", "precision", "steps", "dt", "every", "temp", "density", "cutoff", "seed",
                  "seeds", "backend", "out", "equilibrate", "fixed-bits", "checkpoint-every"},
                 {"unshifted", "shifted-force", "quiet"});
  drift::MdParams p;
  if (args.has("cells") && args.has("atoms")) throw cli::UsageError("give --cells or --atoms, not both");
  // The ranges are MdParams's (md_host.cpp: validate), so that a value far outside them is named with
  // them (--atoms 4e9 said "[-1000000000, 1000000000]").
  constexpr int64_t kMaxAtoms = 4LL * drift::kMaxCells * drift::kMaxCells * drift::kMaxCells;
  constexpr int64_t kMinAtoms = 4LL * drift::kMinCells * drift::kMinCells * drift::kMinCells;
  p.cells = static_cast<int>(get_count(args, "cells", 10, drift::kMinCells, drift::kMaxCells));
  if (args.has("atoms")) {
    const int64_t n = get_count(args, "atoms", 4000, kMinAtoms, kMaxAtoms);
    const int c = static_cast<int>(std::lround(std::cbrt(static_cast<double>(n) / 4.0)));
    if (n <= 0 || 4LL * c * c * c != n)
      throw cli::UsageError("--atoms must be 4 n^3 for an fcc lattice (500, 4000, 32000, 256000, ...), got " +
                            std::to_string(n));
    p.cells = c;
  }
  p.steps = get_count(args, "steps", 1000, 1, drift::kMaxSteps);
  p.sample_every = get_count(args, "every", std::max<int64_t>(1, p.steps / 200), 1, p.steps);
  p.equilibration = get_count(args, "equilibrate", 0, 0, drift::kMaxSteps);
  p.dt = args.get_double("dt", p.dt);
  p.temperature = args.get_double("temp", p.temperature);
  p.density = args.get_double("density", p.density);
  p.cutoff = args.get_double("cutoff", p.cutoff);
  p.shift = !args.flag("unshifted");
  p.shifted_force = args.flag("shifted-force");
  if (p.shifted_force && !p.shift) throw cli::UsageError("--shifted-force and --unshifted cannot be combined");
  p.seed = static_cast<uint64_t>(get_count(args, "seed", static_cast<int64_t>(p.seed), 0, INT64_MAX));
  // Several seeds: each precision runs once per seed, and kT/ns/dof is given as the mean over the
  // seeds with its standard error.
  std::vector<uint64_t> seeds = {p.seed};
  if (args.has("seeds")) {
    if (args.has("seed")) throw cli::UsageError("give --seed or --seeds, not both");
    seeds.clear();
    for (const std::string& t : split(args.get("seeds", ""))) {
      const int64_t v = cli::parse_int("--seeds", t);
      if (v < 0) throw cli::UsageError("--seeds takes non-negative integers, got \"" + t + "\"");
      if (std::find(seeds.begin(), seeds.end(), static_cast<uint64_t>(v)) != seeds.end())
        throw cli::UsageError("--seeds lists " + t + " twice");
      seeds.push_back(static_cast<uint64_t>(v));
    }
    if (seeds.size() > 100) throw cli::UsageError("--seeds takes at most 100 seeds");
  }
  p.checkpoint_seconds = args.get_double("checkpoint-every", p.checkpoint_seconds);
  if (!(std::isfinite(p.checkpoint_seconds) && p.checkpoint_seconds >= 0 && p.checkpoint_seconds <= 1e6))
    throw cli::UsageError("--checkpoint-every must be a number of seconds in [0, 1e6], got \"" +
                          args.get("checkpoint-every", "") + "\"");
  p.fixed_bits = static_cast<int>(get_count(args, "fixed-bits", drift::kDefaultFixedBits, drift::kMinFixedBits, drift::kMaxFixedBits));
  // --backend cuda where there is no device: a report can still be made from a resume file that
  // holds every run (runs made on a GPU host, their tables and plots written elsewhere); where a run
  // is missing, the device's absence is the error, before any work.
  const Backend asked = parse_backend(args.get("backend", "auto"));
  // Under mpirun with several ranks the run is split into slabs over the ranks (docs/drift.md,
  // "Ranks"), on the CPU engine: --backend auto means cpu there, and cuda is refused by validate.
  const int ranks = work::size();
  const bool writer = work::is_writer();
  if (ranks > 1) {
    p.comm = &work::world_comm();
    // The host's cores shared by its ranks (Open MPI names the ranks on this host).
    const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const unsigned on_host = local ? static_cast<unsigned>(std::max(1, std::atoi(local))) : static_cast<unsigned>(ranks);
    p.cpu_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency() / on_host));
  }
  std::string no_device;
  try {
    p.backend = ranks > 1 && asked == Backend::kAuto ? Backend::kCpu : select_backend(asked);
  } catch (const BackendError& e) {
    if (asked != Backend::kCuda) throw;
    p.backend = Backend::kCuda;
    no_device = e.what();
  }
  std::vector<drift::Precision> precs;
  for (const std::string& s : split(args.get("precision", "float,double,composite,ff,mixed,fixed")))
    precs.push_back(drift::parse_precision(s));
  // Every precision is checked before any work (the fixed-point range depends on the precision).
  as_usage([&] {
    for (drift::Precision pr : precs) {
      p.precision = pr;
      drift::validate(p);
    }
    return 0;
  });
  const std::string prefix = args.require("out");
  // PREFIX names files (PREFIX.csv, PREFIX_pe.png, ...): one ending in '/' would write hidden files
  // (".csv") into that folder.
  if (prefix.empty() || prefix.back() == '/')
    throw cli::UsageError("--out PREFIX \"" + prefix +
                          "\" must end in a file name (PREFIX.csv, PREFIX_drift.csv, ... are written), not '/'");
  // Every output and the resume file, checked before any run: a directory at PREFIX_pe.png used to
  // be found after the runs, the other four files written; a FIFO at PREFIX.resume hung the read.
  const std::string resume_path = prefix + ".resume";
  const std::string ckpt_path = prefix + ".ckpt";
  // Under mpirun only rank 0 writes (its host needs the paths), and the others follow its verdict.
  // Rank 0 reads the resume file and sends its text to every rank, so that all skip the same runs.
  std::string resume_text;  // "1" and the file's text, or "0" where there is none
  std::string ckpt_text;    // "1" and PREFIX.ckpt's bytes, or "0" where there is none
  bool outputs_ok = true;
  if (writer) {
    try {
      check_outputs({prefix + ".csv", prefix + "_drift.csv", prefix + ".json", prefix + "_drift.png",
                     prefix + "_pe.png", resume_path, ckpt_path});
      resume_text = access(resume_path.c_str(), F_OK) == 0
                        ? "1" + read_input_file(resume_path, "resume file", kNoInputLimit)
                        : "0";
      ckpt_text = access(ckpt_path.c_str(), F_OK) == 0
                      ? "1" + read_input_file(ckpt_path, "checkpoint file", kNoInputLimit)
                      : "0";
    } catch (...) {
      outputs_ok = false;
      if (ranks > 1) work::any_rank(*p.comm, true);
      throw;
    }
  }
  if (ranks > 1) {
    if (work::any_rank(*p.comm, !outputs_ok)) return 2;  // rank 0 reports it
    const work::Bytes b = work::broadcast_from_root(*p.comm, work::Bytes(resume_text.begin(), resume_text.end()));
    resume_text.assign(b.begin(), b.end());
    const work::Bytes c = work::broadcast_from_root(*p.comm, work::Bytes(ckpt_text.begin(), ckpt_text.end()));
    ckpt_text.assign(c.begin(), c.end());
  }
  const bool quiet = args.flag("quiet") || !writer;
  install_cancel_handler();
  p.cancel = &cancel_flag();
  // Finished precisions are kept in PREFIX.resume as they complete; a rerun with the same
  // parameters loads them instead of running them again.
  const std::string fingerprint = md_fingerprint(p);
  std::vector<MdRun> stored;
  if (resume_text[0] == '1') stored = md_runs_load(resume_text.substr(1), fingerprint);
  if (!no_device.empty())
    for (drift::Precision pr : precs)
      for (uint64_t seed : seeds)
        if (std::none_of(stored.begin(), stored.end(),
                         [&](const MdRun& r) { return r.precision == pr && r.seed == seed; }))
          throw BackendError(no_device + "; " + resume_path + " does not hold the run of " +
                             drift::precision_name(pr) + " seed " + std::to_string(seed));
  // Every rank reads the same checkpoint and takes the same verdict; rank 0 reports a refusal.
  drift::MdCheckpointFile ckpt;
  const bool have_ckpt = ckpt_text[0] == '1';
  if (have_ckpt) {
    std::vector<std::pair<drift::Precision, uint64_t>> to_do;
    for (uint64_t seed : seeds)
      for (drift::Precision pr : precs)
        if (std::none_of(stored.begin(), stored.end(),
                         [&](const MdRun& r) { return r.precision == pr && r.seed == seed; }))
          to_do.emplace_back(pr, seed);
    try {
      ckpt = load_checkpoint(ckpt_path, ckpt_text.substr(1), p, fingerprint, to_do);
    } catch (const cli::UsageError&) {
      if (writer) throw;
      return 2;
    }
  }
  std::vector<MdRun> runs, finished = stored;
  bool stop = false;
  const std::size_t total = precs.size() * seeds.size();
  for (std::size_t si = 0; si < seeds.size() && !stop; ++si)
    for (std::size_t k = 0; k < precs.size() && !stop; ++k) {
      p.precision = precs[k];
      p.seed = seeds[si];
      const std::string label = std::string(drift::precision_name(precs[k])) +
                                (seeds.size() > 1 ? " seed " + std::to_string(seeds[si]) : std::string());
      bool resumed = false;
      for (const MdRun& s : stored)
        if (s.precision == precs[k] && s.seed == seeds[si]) {
          runs.push_back(s);
          resumed = true;
        }
      if (resumed) {
        if (!quiet) std::fprintf(stderr, "%-10s resumed from %s\n", label.c_str(), resume_path.c_str());
        continue;
      }
      const std::size_t done = si * precs.size() + k + 1;
      if (!quiet) {
        auto last = std::make_shared<std::chrono::steady_clock::time_point>();
        p.progress = [&, done, label, last](double f) {
          const auto now = std::chrono::steady_clock::now();
          if (f < 1.0 && now - *last < std::chrono::milliseconds(200)) return;
          *last = now;
          std::fprintf(stderr, "\r%-10s %6.2f%%  (%zu of %zu)", label.c_str(), 100 * f, done, total);
          std::fflush(stderr);
        };
      }
      MdRun r;
      r.precision = precs[k];
      r.seed = seeds[si];
      // The state of this run, at most every --checkpoint-every seconds and at Ctrl-C (under ranks
      // every rank takes it, gathered, and rank 0 writes it).
      p.resume = nullptr;
      if (have_ckpt && ckpt.precision == r.precision && ckpt.seed == r.seed) {
        p.resume = &ckpt.state;
        if (!quiet)
          std::fprintf(
              stderr, "%-10s resumed from %s at %s step %lld\n", label.c_str(), ckpt_path.c_str(),
              ckpt.state.sampling ? "sampling" : "equilibration",
              static_cast<long long>(ckpt.state.sampling ? ckpt.state.step : ckpt.state.equilibrated));
      }
      p.on_checkpoint = [&](const drift::MdCheckpoint& c) {
        if (!writer) return;
        drift::MdCheckpointFile f;
        f.fingerprint = fingerprint;
        f.precision = r.precision;
        f.seed = r.seed;
        f.state = c;
        write_file_atomically(ckpt_path, drift::checkpoint_file_bytes(f));
      };
      r.result = as_usage([&] { return drift::run_md(p); });
      if (!quiet) std::fprintf(stderr, "\n");
      stop = r.result.cancelled;
      if (r.result.blew_up && writer) std::cerr << label << ": " << r.result.message << "\n";
      if (!stop && writer) {
        finished.push_back(r);
        write_file_atomically(resume_path, md_runs_text(fingerprint, finished));
        // The run is kept whole in PREFIX.resume: its checkpoint (this run's or one it resumed
        // from) is spent.
        if (access(ckpt_path.c_str(), F_OK) == 0 && std::remove(ckpt_path.c_str()) != 0)
          throw IoError("cannot remove " + ckpt_path + " after its run finished");
      }
      runs.push_back(std::move(r));
    }
  if (writer) {
    write_file_atomically(prefix + ".csv", md_csv(runs));
    write_file_atomically(prefix + "_drift.csv", md_drift_csv(runs, p));
    write_file_atomically(prefix + ".json", md_json(runs, p));
    write_file_atomically(prefix + "_drift.png", md_drift_png(runs, p));
    write_file_atomically(prefix + "_pe.png", md_pe_png(runs, p));
  }
  // The other ranks wait for rank 0's files: a nonzero exit ends the whole job (work::finish).
  if (ranks > 1) work::any_rank(*p.comm, false);
  if (!quiet) {
    std::cout << md_table_md(runs, p) << "wrote " << prefix << ".csv, " << prefix << "_drift.csv, " << prefix
              << ".json, " << prefix << "_drift.png, " << prefix << "_pe.png\n";
  }
  if (!runs.empty() && runs.back().result.cancelled) {
    if (writer)
      std::cerr << "interrupted: the samples taken so far are written; finished precisions are kept in "
                << resume_path << " and the unfinished run's state in " + ckpt_path
                << ": run the same command again to resume\n";
    return 130;
  }
  // A fixed-point range exceeded during a run is the scale's fault (--fixed-bits): exit 2, as for a
  // scale refused before the run; the samples before it are written (they are exact).
  for (const MdRun& r : runs)
    if (r.result.range_fault) return 2;
  for (const MdRun& r : runs)
    if (r.result.blew_up) return 1;
  return 0;
}

}  // namespace

int cmd_drift(const ArgList& args) {
  if (args.empty()) throw cli::UsageError("drift needs a command: sum, doundo or md");
  ArgList rest(args.begin() + 1, args.end());
  if (args[0] == "sum") return drift_sum(rest);
  if (args[0] == "doundo") return drift_doundo(rest);
  if (args[0] == "md") return drift_md(rest);
  throw cli::UsageError("unknown drift command \"" + args[0] + "\" (sum, doundo, md)");
}

}  // namespace ds::app
