// `deepscope henon orbit|period|scan`: the Hénon workspace in batch mode, over kernels/henon.h.
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

#include "atomic_file.h"
#include "bench.h"
#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "kernels/device.h"
#include "kernels/henon.h"
#include "kernels/backend.h"
#include "version.h"

namespace ds::app {
namespace {

using henon::Backend;

Backend parse_backend(const std::string& s) {
  if (s == "auto") return Backend::kAuto;
  if (s == "cpu") return Backend::kCpu;
  if (s == "cuda") return Backend::kCuda;
  throw cli::UsageError("--backend must be auto, cpu or cuda, got \"" + s + "\"");
}

// A count written as an integer or in scientific notation ("1e10"), exact and within [lo, hi].
int64_t get_count(const cli::Args& args, const std::string& name, int64_t fallback, int64_t lo, int64_t hi) {
  if (!args.has(name)) return fallback;
  const std::string s = args.get(name, "");
  const double v = cli::parse_double("--" + name, s);
  if (!(v == std::floor(v)) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw cli::UsageError("--" + name + " must be an integer in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "], got \"" + s + "\"");
  return static_cast<int64_t>(v);
}

henon::MapInput map_input(const cli::Args& args) {
  henon::MapInput m;
  m.arith = parse_arith(args.get("arith", "f64"));
  m.a = args.get("a", m.a);
  m.b = args.get("b", m.b);
  m.x0 = args.get("x0", m.x0);
  m.y0 = args.get("y0", m.y0);
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
  p.n_transient = get_count(args, "transient", 0, 0, henon::kMaxTransient);
  p.n_points = get_count(args, "points", 10000, 1, henon::kMaxPoints);
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
  p.n_transient = get_count(args, "transient", p.n_transient, 0, henon::kMaxTransient);
  p.p_max = static_cast<int32_t>(get_count(args, "pmax", p.p_max, 1, henon::kMaxPeriod));
  p.tol = args.get("tol", p.tol);
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

void parse_box(const std::string& s, double* box) {
  std::istringstream in(s);
  std::string part;
  int n = 0;
  while (std::getline(in, part, ',')) {
    if (n == 4) throw cli::UsageError("--box expects x_lo,x_hi,y_lo,y_hi");
    box[n++] = cli::parse_double("--box", part);
  }
  if (n != 4) throw cli::UsageError("--box expects x_lo,x_hi,y_lo,y_hi");
}

std::string mib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
  return buf;
}

int henon_scan(const ArgList& argv) {
  cli::Args args(argv,
                 {"a-min", "a-step", "na", "b-min", "b-step", "nb", "init", "box", "transient", "pmax", "tol",
                  "bound", "arith", "backend", "chunk", "chunk-file", "csv", "json"},
                 {"quiet", "estimate"});
  henon::ScanParams p;
  p.arith = parse_arith(args.get("arith", "f64"));
  p.a_min = args.get("a-min", p.a_min);
  p.a_step = args.get("a-step", p.a_step);
  p.na = get_count(args, "na", 1, 1, 100'000'000);
  p.b_min = args.get("b-min", p.b_min);
  p.b_step = args.get("b-step", p.b_step);
  p.nb = get_count(args, "nb", 1, 1, 100'000'000);
  p.n_init = get_count(args, "init", p.n_init, 1, 1'000'000);
  if (args.has("box")) parse_box(args.get("box", ""), p.init_box);
  p.n_transient = get_count(args, "transient", p.n_transient, 0, henon::kMaxTransient);
  p.p_max = static_cast<int32_t>(get_count(args, "pmax", p.p_max, 1, henon::kMaxPeriod));
  p.tol = args.get("tol", p.tol);
  p.bound = args.get_double("bound", p.bound);
  p.chunk_params = get_count(args, "chunk", 0, 0, 100'000'000);
  p.backend = parse_backend(args.get("backend", "auto"));
  const bool estimate_only = args.flag("estimate");
  const std::string csv = estimate_only ? args.get("csv", "") : args.require("csv");
  // scan.csv -> scan.json beside it, unless --json says otherwise.
  const bool dot_csv = csv.size() > 4 && csv.compare(csv.size() - 4, 4, ".csv") == 0;
  const std::string json =
      args.get("json", csv.empty() ? "" : (dot_csv ? csv.substr(0, csv.size() - 4) : csv) + ".json");
  p.chunk_file = args.get("chunk-file", csv.empty() ? "" : csv + ".chunks");
  const bool quiet = args.flag("quiet");

  const Backend be = henon::select_backend(p.backend);
  const henon::ScanEstimate e = as_usage([&] { return henon::estimate_scan(p, be); });
  std::cerr << "henon scan: " << p.na << " x " << p.nb << " parameters, " << p.n_init
            << " start points each, " << e.items << " orbits in " << e.chunks << " chunks of "
            << e.chunk_params << " parameters; " << arith_name(p.arith) << " on " << henon::backend_name(be)
            << "\n"
            << "estimate: host memory " << mib(e.host_bytes) << ", device memory " << mib(e.device_bytes)
            << ", at most " << e.steps << " map steps, roughly " << e.seconds << " s\n";
  const uint64_t host = host_memory_bytes();
  if (host && e.host_bytes > host)
    throw cli::UsageError("the scan needs " + mib(e.host_bytes) + " of memory; this machine has " +
                          mib(host));
  if (be == Backend::kCuda) {
    const uint64_t dev = device_memory_bytes(0);
    if (dev && e.device_bytes > dev)
      throw cli::UsageError("a chunk needs " + mib(e.device_bytes) + " of GPU memory; the device has " +
                            mib(dev) + " (use a smaller --chunk)");
  }
  if (estimate_only) return 0;
  check_writable(csv);
  if (!json.empty()) check_writable(json);
  install_cancel_handler();
  p.cancel = &cancel_flag();
  p.backend = be;
  const auto t0 = std::chrono::steady_clock::now();
  if (!quiet)
    p.progress = [&](double f) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "\r%6.2f%%  %.0f s", 100 * f, s);
      std::fflush(stderr);
    };
  const henon::ScanResult r = as_usage([&] { return henon::scan(p); });
  if (!quiet) std::fprintf(stderr, "\n");
  if (r.cancelled) {
    std::cerr << "interrupted after " << r.chunks_loaded + r.chunks_run << " of " << r.chunks
              << " chunks; finished chunks are kept in " << p.chunk_file
              << ": run the same command again to resume\n";
    return 130;
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
    std::cout << r.chunks_run << " chunks computed, " << r.chunks_loaded << " resumed, in " << r.seconds
              << " s; " << sinks << " parameters with a sink; wrote " << csv
              << (json.empty() ? "" : " and " + json) << "\n";
  return 0;
}

}  // namespace

// `deepscope bench henon`: the paper's Table 1 metric, orbits per second at 1e6 iterations per orbit,
// for every format: the scan's transient loop timed at --steps steps per orbit (default 1e6 on the
// GPU, 1e5 on the CPU), reported as steps/s / 1e6.
int bench_henon(const ArgList& argv) {
  cli::Args args(argv, {"out", "formats", "steps", "orbits"}, {"quick", "cpu-only", "gpu-only"});
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
  const auto devs = cuda_devices();
  const bool do_cpu = !args.flag("gpu-only"), do_gpu = !args.flag("cpu-only") && !devs.empty();
  std::ostringstream md;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  md << "# deepscope bench henon\n\n- date: " << date << "\n- commit: " << DEEPSCOPE_GIT_COMMIT
     << "\n- command: `deepscope bench henon";
  for (const auto& a : argv) md << " " << a;
  md << "`\n- GPU: " << (devs.empty() ? "none (" + cuda_unavailable_reason() + ")" : devs[0].name)
     << "\n\nOrbits/s at 1e6 iterations per orbit (paper, Table 1) = map steps/s / 1e6, timed on the scan's "
        "transient loop (escape test every step) at (a, b) = (1.4, 0.3).\n\n";
  auto run = [&](const char* title, henon::Backend be, int64_t orbits, int64_t steps) {
    md << "## " << title << ": " << orbits << " orbits x " << steps << " steps\n\n"
       << "| format | seconds | steps/s | orbits/s at 1e6 iterations |\n|---|---|---|---|\n";
    for (Arith f : formats) {
      const double cost = std::max(1.0, arith_traits(f).rel_cost);
      const int64_t n =
          std::max<int64_t>(1000, static_cast<int64_t>(static_cast<double>(steps) / (quick ? cost : 1.0)));
      const henon::OrbitRate r = henon::orbit_rate(f, be, orbits, n);
      char line[160];
      std::snprintf(line, sizeof line, "| %s | %.3f | %.4g | %.4g |\n", arith_name(f), r.seconds,
                    r.steps_per_second, r.steps_per_second / 1e6);
      md << line;
      std::fprintf(stderr, "  %s %s done\n", title, arith_name(f));
    }
    md << "\n";
  };
  if (do_cpu) {
    const int64_t orbits =
        get_count(args, "orbits", 8 * std::max(1u, std::thread::hardware_concurrency()), 1, 100'000'000);
    run("CPU (all cores)", henon::Backend::kCpu, orbits,
        get_count(args, "steps", quick ? 10000 : 100000, 1, henon::kMaxTransient));
  }
  if (do_gpu) {
    const int64_t orbits =
        get_count(args, "orbits", static_cast<int64_t>(devs[0].sm_count) * 1024, 1, 100'000'000);
    run("GPU", henon::Backend::kCuda, orbits,
        get_count(args, "steps", quick ? 10000 : 1000000, 1, henon::kMaxTransient));
  } else if (!args.flag("cpu-only")) {
    md << "## GPU\n\nnot run: " << cuda_unavailable_reason() << "\n";
  }
  const std::string text = md.str();
  std::fputs(text.c_str(), stdout);
  if (!out_path.empty()) write_file_atomically(out_path, text);
  return 0;
}

int cmd_henon(const ArgList& args) {
  if (args.empty()) throw cli::UsageError("henon needs a command: orbit, period or scan");
  ArgList rest(args.begin() + 1, args.end());
  if (args[0] == "orbit") return henon_orbit(rest);
  if (args[0] == "period") return henon_period(rest);
  if (args[0] == "scan") return henon_scan(rest);
  throw cli::UsageError("unknown henon command \"" + args[0] + "\" (orbit, period, scan)");
}

}  // namespace ds::app
