// `deepscope henon orbit|period|scan`: the Hénon workspace in batch mode, over kernels/henon.h
// (plane and basin images: cmd_henon_image.cpp).
// Input errors exit 2 before any work; a scan is resumable from its chunk file and writes its
// CSV/JSON whole or not at all.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "app/bench/bench.h"
#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "henon_cli.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/backend.h"
#include "kernels/core/device.h"
#include "kernels/henon/henon.h"
#include "kernels/core/work.h"
#include "version.h"

namespace ds::app {

henon::Backend parse_henon_backend(const std::string& s) {
  if (s == "auto") return henon::Backend::kAuto;
  if (s == "cpu") return henon::Backend::kCpu;
  if (s == "cuda") return henon::Backend::kCuda;
  throw cli::UsageError("--backend must be auto, cpu or cuda, got \"" + s + "\"");
}

void parse_henon_box(const std::string& s, double* box) {
  std::istringstream in(s);
  std::string part;
  int n = 0;
  while (std::getline(in, part, ',')) {
    if (n == 4) throw cli::UsageError("--box expects x_lo,x_hi,y_lo,y_hi");
    box[n++] = cli::parse_double("--box", part);
  }
  if (n != 4) throw cli::UsageError("--box expects x_lo,x_hi,y_lo,y_hi");
}

namespace {

using henon::Backend;

Backend parse_backend(const std::string& s) { return parse_henon_backend(s); }

henon::MapInput map_input(const cli::Args& args) {
  henon::MapInput m;
  m.arith = parse_arith(args.get("arith", "f64"));
  m.a = args.get_finite_text("a", m.a);
  m.b = args.get_finite_text("b", m.b);
  m.x0 = args.get_finite_text("x0", m.x0);
  m.y0 = args.get_finite_text("y0", m.y0);
  m.bound = args.get_double("bound", m.bound);
  if (!(m.bound >= 1 && m.bound <= 1e6)) throw cli::UsageError("--bound must be in [1, 1e6]");
  return m;
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

const std::set<std::string> kMapOptions = {"a", "b", "x0", "y0", "arith", "bound", "transient"};

std::set<std::string> with(std::set<std::string> s, std::initializer_list<const char*> more) {
  for (const char* m : more) s.insert(m);
  return s;
}

int henon_orbit(const ArgList& argv) {
  cli::Args args(argv, with(kMapOptions, {"points", "backend", "out"}), {"quiet"});
  henon::OrbitParams p;
  p.map = map_input(args);
  p.n_transient = args.get_count("transient", 0, 0, henon::kMaxTransient);
  p.n_points = args.get_count("points", 10000, 1, henon::kMaxPoints);
  p.backend = parse_backend(args.get("backend", "cpu"));
  const std::string out = args.require("out");
  check_writable(out);
  install_cancel_handler();
  p.cancel = &cancel_flag();
  const henon::OrbitResult r = as_usage([&] { return henon::orbit(p); });
  if (r.cancelled) {
    std::cerr << "interrupted: nothing written\n";
    return 130;
  }
  std::string csv = "x,y\n";
  char buf[80];
  for (std::size_t i = 0; i < r.xs.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g,%.17g\n", r.xs[i], r.ys[i]);
    csv += buf;
  }
  write_file_atomically(out, csv);
  if (!args.flag("quiet")) {
    std::cout << r.xs.size() << " points written to " << out << "\n";
    if (r.escaped)
      std::cout << "the orbit escapes |x|, |y| <= " << p.map.bound << " at step " << r.escape_step << "\n";
  }
  return 0;
}

int henon_period(const ArgList& argv) {
  cli::Args args(argv, with(kMapOptions, {"pmax", "tol"}), {});
  henon::PeriodParams p;
  p.map = map_input(args);
  p.n_transient = args.get_count("transient", p.n_transient, 0, henon::kMaxTransient);
  p.p_max = static_cast<int32_t>(args.get_count("pmax", p.p_max, 1, henon::kMaxPeriod));
  p.tol = args.get_finite_text("tol", p.tol);
  install_cancel_handler();
  p.cancel = &cancel_flag();
  const henon::PeriodResult r = as_usage([&] { return henon::detect_period(p); });
  if (r.cancelled) {
    std::cerr << "interrupted\n";
    return 130;
  }
  std::cout << "arith: " << arith_name(p.map.arith) << "\n";
  if (r.escaped) {
    std::cout << "escaped: the orbit leaves |x|, |y| <= " << p.map.bound << "\n";
    return 0;
  }
  if (r.period == 0) {
    std::cout << "period: none found (p_max " << p.p_max << ", tol " << p.tol << ")\n";
    return 0;
  }
  std::cout << "period: " << r.period << "\ncycle:\n";
  for (const auto& pt : r.cycle) std::cout << "  " << pt.first << "  " << pt.second << "\n";
  std::cout << "jacobian product: trace " << r.trace.text << ", det " << r.det.text << "\n";
  if (r.complex) {
    std::cout << "eigenvalues: " << r.l1_re.text << " +- " << r.l1_im.text << " i, |l| = " << r.l1_abs.text
              << "\n";
  } else {
    std::cout << "eigenvalues: " << r.l1_re.text << ", " << r.l2_re.text << "\n";
  }
  std::cout << "sink: " << (r.is_sink ? "yes" : "no") << "\n";
  if (!r.note.empty()) std::cout << "note: " << r.note << "\n";
  return 0;
}

void parse_box(const std::string& s, double* box) { parse_henon_box(s, box); }

std::string mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

void refuse_scan_over_memory(const henon::ScanEstimate& e, henon::Backend be, const std::string& options) {
  const uint64_t host = host_memory_bytes();
  if (host && e.host_bytes > host)
    throw cli::UsageError("the scan needs " + mib(e.host_bytes) + " of memory; this machine has " + mib(host) +
                          " (use a smaller " + options + ")");
  if (be == Backend::kCuda) {
    const uint64_t dev = device_memory_bytes(0);
    if (dev && e.device_bytes > dev)
      throw cli::UsageError("a chunk needs " + mib(e.device_bytes) + " of GPU memory; the device has " +
                            mib(dev) + " (use a smaller --chunk)");
  }
}

namespace {

int henon_scan(const ArgList& argv) {
  cli::Args args(argv, {"a-min", "a-step",     "na",   "b-min", "b-step",  "nb",    "init",
                        "box",   "transient",  "pmax", "tol",   "bound",   "arith", "backend",
                        "chunk", "chunk-file", "csv",  "json",  "devices", "shard"},
                 {"quiet", "estimate"});
  henon::ScanParams p;
  p.arith = parse_arith(args.get("arith", "f64"));
  p.a_min = args.get_finite_text("a-min", p.a_min);
  p.a_step = args.get_finite_text("a-step", p.a_step);
  p.na = args.get_count("na", 1, 1, 100'000'000);
  p.b_min = args.get_finite_text("b-min", p.b_min);
  p.b_step = args.get_finite_text("b-step", p.b_step);
  p.nb = args.get_count("nb", 1, 1, 100'000'000);
  p.n_init = args.get_count("init", p.n_init, 1, 1'000'000);
  if (args.has("box")) parse_box(args.get("box", ""), p.init_box);
  p.n_transient = args.get_count("transient", p.n_transient, 0, henon::kMaxTransient);
  p.p_max = static_cast<int32_t>(args.get_count("pmax", p.p_max, 1, henon::kMaxPeriod));
  p.tol = args.get_finite_text("tol", p.tol);
  p.bound = args.get_double("bound", p.bound);
  p.chunk_params = args.get_count("chunk", 0, 0, 100'000'000);
  p.backend = parse_backend(args.get("backend", "auto"));
  const bool estimate_only = args.flag("estimate");
  const std::string csv = estimate_only ? args.get("csv", "") : args.require("csv");
  // scan.csv -> scan.json beside it, unless --json says otherwise.
  const bool dot_csv = csv.size() > 4 && csv.compare(csv.size() - 4, 4, ".csv") == 0;
  const std::string json =
      args.get("json", csv.empty() ? "" : (dot_csv ? csv.substr(0, csv.size() - 4) : csv) + ".json");
  if (args.has("shard"))
    p.placement.shard = as_usage([&] { return work::parse_shard(args.get("shard", "")); });
  const bool sharded = !p.placement.shard.whole();
  p.chunk_file =
      args.get("chunk-file", csv.empty() ? "" : work::shard_chunk_file(csv + ".chunks", p.placement.shard));
  if (sharded && p.chunk_file.empty())
    throw cli::UsageError("--shard needs a chunk file (--csv or --chunk-file)");
  // Under mpirun only rank 0 reports and writes; the other ranks compute the chunks it hands out.
  const bool writer = work::is_writer();
  const bool quiet = args.flag("quiet") || !writer;

  const Backend be = henon::select_backend(p.backend);
  p.placement.devices = args.get("devices", "");
  const std::vector<work::Worker> workers = as_usage([&] { return work::workers(be, p.placement.devices); });
  const henon::ScanEstimate e = as_usage([&] { return henon::estimate_scan(p, be); });
  // Every input is checked before anything is printed or written: the memory, every file this run
  // writes (before the chunk file is created) and the chunk file's job.
  refuse_scan_over_memory(e, be, "--na, --nb or --init");
  if (writer && !estimate_only) {
    check_outputs({sharded ? "" : csv, sharded ? "" : json, p.chunk_file});  // the --csv given first
    work::check_chunk_file(p.chunk_file, henon::scan_chunk_header(p));
  }
  if (writer) {
    std::string where;
    for (const work::Worker& w : workers) where += (where.empty() ? "" : ",") + w.label();
    std::cerr << "henon scan: " << p.na << " x " << p.nb << " parameters, " << p.n_init
              << " start points each, " << e.items << " orbits in " << e.chunks << " chunks of "
              << e.chunk_params << " parameters; " << arith_name(p.arith) << " on " << where
              << (work::size() > 1 ? " (rank 0 of " + std::to_string(work::size()) + ")" : "")
              << (sharded ? "; shard " + std::to_string(p.placement.shard.index) + "/" +
                                std::to_string(p.placement.shard.count)
                          : "")
              << "\n"
              << "estimate: host memory " << mib(e.host_bytes) << ", device memory " << mib(e.device_bytes)
              << ", at most " << e.steps << " map steps, roughly "
              << e.seconds / static_cast<double>(workers.size()) << " s\n";
  }
  if (estimate_only) return 0;
  install_cancel_handler();
  p.cancel = &cancel_flag();
  p.backend = be;
  if (!quiet) p.progress = stderr_progress();
  const henon::ScanResult r = as_usage([&] { return henon::scan(p); });
  if (!quiet) std::fprintf(stderr, "\n");
  if (!writer) return r.cancelled ? 130 : 0;
  if (r.cancelled)
    return report_interrupted(r.chunks_loaded + r.chunks_run, r.chunks_owned, "chunks", p.chunk_file);
  std::string per;
  for (const auto& w : r.per_worker)
    per += (per.empty() ? "" : ", ") + w.first + " " + std::to_string(w.second);
  if (sharded) {
    if (!quiet)
      std::cout << "shard " << p.placement.shard.index << "/" << p.placement.shard.count << ": "
                << r.chunks_run << " chunks computed, " << r.chunks_loaded << " resumed, of "
                << r.chunks_owned << " in this shard, in " << r.seconds << " s"
                << (per.empty() ? "" : " (" + per + ")") << "; results in " << p.chunk_file
                << ". When every shard is done: deepscope merge --out " << csv
                << ".chunks <the shards' chunk files>, "
                << "then rerun this command without --shard to write " << csv << "\n";
    return 0;
  }
  write_file_atomically(csv, henon::scan_csv(r));
  if (!json.empty()) write_file_atomically(json, henon::scan_json(p, r));
  int64_t sinks = 0;
  for (const auto& x : r.params) {
    bool s = false;
    for (const auto& c : x.cycles) s = s || c.sink;
    sinks += s ? 1 : 0;
  }
  if (!quiet)
    std::cout << r.chunks_run << " chunks computed" << (per.empty() ? "" : " (" + per + ")") << ", "
              << r.chunks_loaded << " resumed, in " << r.seconds << " s; " << sinks
              << " parameters with a sink; wrote " << csv << (json.empty() ? "" : " and " + json) << "\n";
  return 0;
}

}  // namespace

int cmd_henon(const ArgList& args) {
  if (args.empty()) throw cli::UsageError("henon needs a command: orbit, period, scan, plane, basin or orbits");
  ArgList rest(args.begin() + 1, args.end());
  if (args[0] == "orbit") return henon_orbit(rest);
  if (args[0] == "period") return henon_period(rest);
  if (args[0] == "scan") return henon_scan(rest);
  if (args[0] == "plane") return henon_plane(rest);
  if (args[0] == "basin") return henon_basin(rest);
  if (args[0] == "orbits") return henon_orbits(rest);
  throw cli::UsageError("unknown henon command \"" + args[0] + "\" (orbit, period, scan, plane, basin, orbits)");
}

}  // namespace ds::app
