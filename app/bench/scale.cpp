// `deepscope bench scale`: scaling of the batch searches over the CUDA devices of this host
// (kernels/core/work.h): the Hénon sink scan at the paper's per-parameter size and a TMD regular
// search, each on 1, 2, 4, ... devices and on device 0 split into two logical devices. Efficiency
// is T(1) / (n T(n)).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>
#include <thread>

#include "bench.h"
#include "app/cli/cli.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/device.h"
#include "kernels/henon/henon.h"
#include "kernels/tmd/lefevre.h"
#include "version.h"

namespace ds::app {
namespace {

struct Config {
  std::string devices;  // as --devices takes it
  int gpus;             // physical devices used
  int per_device;       // workers per device
};

// 1, 2, 4, ... devices (and all of them), with `per_device` workers on each: "0,1,0,1".
std::vector<Config> configs(int n, int per_device) {
  std::vector<int> counts;
  for (int k = 1; k <= n; k *= 2) counts.push_back(k);
  if (counts.back() != n) counts.push_back(n);
  std::vector<Config> out;
  for (int k : counts) {
    std::string d;
    for (int w = 0; w < per_device; ++w)
      for (int i = 0; i < k; ++i) d += (d.empty() ? "" : ",") + std::to_string(i);
    out.push_back({d, k, per_device});
  }
  return out;
}

struct Timing {
  Config cfg;
  double seconds = 0;
  std::string per_worker;
  std::string check;  // a digest of the result, the same for every configuration
};

std::string per_worker_text(const std::vector<std::pair<std::string, int64_t>>& pw) {
  std::string s;
  for (const auto& w : pw) s += (s.empty() ? "" : ", ") + w.first + " " + std::to_string(w.second);
  return s;
}

void table(std::ostringstream& md, const std::vector<Timing>& ts, const std::string& unit, double work) {
  md << "| devices | GPUs | workers per GPU | seconds | " << unit
     << " | efficiency T(1) / (n T(n)) | chunks per worker | result |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  for (const Timing& t : ts) {
    double t1 = t.seconds;  // the one-GPU row with as many workers per GPU
    for (const Timing& u : ts)
      if (u.cfg.gpus == 1 && u.cfg.per_device == t.cfg.per_device) t1 = u.seconds;
    md << "| " << t.cfg.devices << " | " << t.cfg.gpus << " | " << t.cfg.per_device << " | "
       << fmt("%.2f", t.seconds) << " | " << fmt("%.3g", work / t.seconds) << " | "
       << fmt("%.1f %%", 100.0 * t1 / (t.cfg.gpus * t.seconds)) << " | " << t.per_worker << " | " << t.check
       << " |\n";
  }
  md << "\n";
}

Timing henon_run(const Config& c, int64_t na, int64_t transient) {
  henon::ScanParams p;
  p.a_min = "1.3999";
  p.a_step = fmt("%.17g", 0.0002 / static_cast<double>(na));
  p.na = na;
  p.b_min = "0.3";
  p.n_init = 1024;
  p.n_transient = transient;
  p.p_max = 1000;
  p.backend = Backend::kCuda;
  p.placement.devices = c.devices;
  const auto t0 = std::chrono::steady_clock::now();
  const henon::ScanResult r = henon::scan(p);
  Timing t;
  t.cfg = c;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.per_worker = per_worker_text(r.per_worker);
  int64_t sinks = 0;
  for (const auto& x : r.params) {
    bool s = false;
    for (const auto& cy : x.cycles) s = s || cy.sink;
    sinks += s;
  }
  const std::string csv = henon::scan_csv(r);
  t.check = std::to_string(sinks) + " sinks, CSV hash " +
            fmt("%.0f", static_cast<double>(std::hash<std::string>()(csv) % 1000000007));
  std::fprintf(stderr, "  henon %s: %.2f s\n", c.devices.c_str(), t.seconds);
  return t;
}

// 2^(53 - w) precision-54 arguments of [1, 1 + 2^-w), with the paper's Table 1 parameters.
Timing tmd_run(const Config& c, int w) {
  tmd::LefevreParams p;
  p.func = tmd::Func::kExp;
  p.mode = tmd::Mode::kDirected;
  p.precision = 54;
  p.k = 32;
  p.x_lo = "1";
  // 1 + 2^-w in hex: digit 2^(3 - (w - 1) % 4) after (w - 1) / 4 zeros.
  p.x_hi = "0x1." + std::string(static_cast<std::size_t>((w - 1) / 4), '0') +
           std::to_string(1 << (3 - (w - 1) % 4)) + "p+0";
  p.log2_n = 15;
  p.split = 8;
  p.search = tmd::Search::kRegular;
  p.backend = Backend::kCuda;
  p.div_threshold = 3;
  p.placement.devices = c.devices;
  const auto t0 = std::chrono::steady_clock::now();
  const tmd::LefevreResult r = tmd::lefevre_search(p);
  Timing t;
  t.cfg = c;
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.per_worker = per_worker_text(r.per_worker);
  t.check =
      std::to_string(r.cases.size()) + " HR-cases, " + std::to_string(r.phase3) + " phase-3 sub-intervals";
  std::fprintf(stderr, "  tmd %s: %.2f s\n", c.devices.c_str(), t.seconds);
  return t;
}

}  // namespace

int bench_scale(const ArgList& argv) {
  cli::Args args(argv, {"out", "henon-params", "henon-transient", "tmd-width", "only"}, {"quick"});
  const bool quick = args.flag("quick");
  const std::string out_path = args.get("out", "");
  if (!out_path.empty()) check_writable(out_path);
  const auto devs = cuda_devices();
  if (devs.empty())
    throw cli::UsageError("bench scale needs CUDA devices (" + cuda_unavailable_reason() + ")");
  const int64_t na = args.get_count("henon-params", quick ? 2048 : 65536, 1, 10'000'000);
  const int64_t nt = args.get_count("henon-transient", quick ? 100000 : 1000000, 1, 1'000'000'000);
  const int width = static_cast<int>(args.get_int("tmd-width", quick ? 14 : 10, 1, 20));
  const std::string only = args.get("only", "henon,tmd");
  const bool do_henon = only.find("henon") != std::string::npos,
             do_tmd = only.find("tmd") != std::string::npos;
  if (!do_henon && !do_tmd) throw cli::UsageError("--only takes henon, tmd or henon,tmd");

  std::ostringstream md;
  md << bench_preamble("scale", argv);
  md << "- GPUs: " << devs.size() << " x " << devs[0].name << " (" << devs[0].sm_count << " SMs)"
     << "\n- CPU threads: " << std::max(1u, std::thread::hardware_concurrency())
     << "\n\nOne process, one worker thread per device (kernels/core/work.h), chunks handed out dynamically. "
        "Two workers per GPU (`0,0`: one GPU split into two logical devices) let one worker's host "
        "work overlap the other's kernels. Efficiency compares each row with the one-GPU row of as many "
        "workers per GPU. The result column must be the same on every row.\n\n";

  const int n = static_cast<int>(devs.size());
  if (do_henon) {
    std::vector<Timing> ts;
    for (int w : {1, 2})
      for (const Config& c : configs(n, w)) ts.push_back(henon_run(c, na, nt));
    const double orbits = static_cast<double>(na) * 1024.0;
    md << "## Hénon sink scan (paper section 4 sizes per parameter)\n\n"
       << na << " parameters a in [1.3999, 1.4001], b = 0.3, 1024 start points each, " << nt
       << " transient steps, p_max 1000, f64, chunks of 256 parameters. The paper's whole scan (1e6 "
          "parameters, 1e6 steps) took 2.94 h on two Tesla C2075.\n\n";
    table(md, ts, "orbits/s", orbits);
  }
  if (do_tmd) {
    std::vector<Timing> ts;
    for (int w : {1, 2})
      for (const Config& c : configs(n, w)) ts.push_back(tmd_run(c, width));
    md << "## TMD regular search (paper Table 1 parameters, a wider interval)\n\n"
       << "exp on [1, 1 + 2^-" << width << "), precision-54 arguments and results (2^" << (53 - width)
       << " arguments), directed, k = 32, N = 2^15, 8 sub-intervals, division threshold 3, hierarchical "
          "polynomials, blocks of 2^18 intervals ("
       << (int64_t{1} << (53 - width - 15 - 18))
       << " chunks). Polynomials (MPFR) and the candidates' MPFR checks run on the host's cores, which "
          "the devices' workers share.\n\n";
    table(md, ts, "arguments/s", std::ldexp(1.0, 53 - width));
  }
  const std::string text = md.str();
  std::fputs(text.c_str(), stdout);
  if (!out_path.empty()) write_file_atomically(out_path, text);
  return 0;
}

}  // namespace ds::app
