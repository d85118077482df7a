// `deepscope bench arith`: throughput of add, mul, sqr and one fused Hénon step for every format,
// on one CPU thread (beside QD's dd_real/qd_real and MPFR at matching precisions) and on the GPU.
// GPU rates become a share of the FP64/FP32 FMA ceilings once the FP instructions per operation,
// counted with Nsight Compute (docs/bench/arith_fp_counts.csv), are supplied with --fp-counts.
#include <mpfr.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "kernels/core/atomic_file.h"
#include "bench.h"
#include "app/cli/cli.h"
#include "kernels/arith_ops/arith_ops.h"
#include "kernels/core/device.h"
#include "version.h"

#ifdef DEEPSCOPE_HAVE_QD
#include <qd/dd_real.h>
#include <qd/qd_real.h>
#endif

namespace ds::app {
namespace {

constexpr double kFp64Ceiling = 1.67e13;  // measured DFMA/s on the H100
constexpr double kFp32Ceiling = 3.06e13;  // measured FFMA/s on the H100
const ArithOp kOps[] = {ArithOp::kAdd, ArithOp::kMul, ArithOp::kSqr, ArithOp::kHenon};

// Runs `run(steps)` with steps grown until one run takes at least `target` seconds; returns ops/s.
template <class Run>
double calibrated(Run run, double target, int64_t start_steps) {
  int64_t steps = start_steps;
  for (;;) {
    auto [sec, rate] = run(steps);
    if (sec >= target || steps > (int64_t(1) << 40)) return rate;
    double grow = sec > 0 ? target / sec * 1.2 : 16;
    steps = static_cast<int64_t>(static_cast<double>(steps) * std::min(std::max(grow, 2.0), 64.0));
  }
}

#ifdef DEEPSCOPE_HAVE_QD
double to_double_any(const dd_real& v) { return to_double(v); }
double to_double_any(const qd_real& v) { return to_double(v); }
#endif

// A chain benchmark of a host library type, 8 interleaved lanes like the CPU backend.
template <class V, class Step>
std::pair<double, double> host_lanes(int64_t steps, V one, Step step, double ops_per_step) {
  constexpr int kLanes = 8;
  V x[kLanes], y[kLanes];
  for (int l = 0; l < kLanes; ++l) { x[l] = one; y[l] = one; }
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t s = 0; s < steps; ++s)
    for (int l = 0; l < kLanes; ++l) step(x[l], y[l]);
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  volatile double sink = 0;
  for (int l = 0; l < kLanes; ++l) sink = sink + to_double_any(x[l]);
  return {sec, kLanes * steps * ops_per_step / sec};
}

#ifdef DEEPSCOPE_HAVE_QD

template <class Q>
std::map<ArithOp, double> bench_qd(double target) {
  std::map<ArithOp, double> r;
  volatile double v1 = 1.0, vhalf = 0.5, va = 1.4, vb = 0.3, v0 = 0.0;  // opaque to the optimiser
  Q one(v1), half(vhalf), a(va), b(vb), zero(v0);
  r[ArithOp::kAdd] = calibrated([&](int64_t n) {
    return host_lanes(n, one, [&](Q& x, Q&) { x = x + half; x = x - half; }, 2.0); }, target, 1 << 12);
  r[ArithOp::kMul] = calibrated([&](int64_t n) { return host_lanes(n, one, [](Q& x, Q& y) { x = x * y; }, 1.0); }, target, 1 << 12);
  r[ArithOp::kSqr] = calibrated([&](int64_t n) { return host_lanes(n, one, [](Q& x, Q&) { x = sqr(x); }, 1.0); }, target, 1 << 12);
  r[ArithOp::kHenon] = calibrated([&](int64_t n) {
    return host_lanes(n, zero, [&](Q& x, Q& y) { Q nx = (one + y) - a * sqr(x); y = b * x; x = nx; }, 1.0); }, target, 1 << 12);
  return r;
}
#endif

// MPFR chains (one lane: MPFR calls are far longer than any latency).
std::map<ArithOp, double> bench_mpfr(mpfr_prec_t prec, double target) {
  std::map<ArithOp, double> r;
  mpfr_t x, y, t, one, a, b;
  for (mpfr_ptr p : {x, y, t, one, a, b}) mpfr_init2(p, prec);
  mpfr_set_d(one, 1.0, MPFR_RNDN);
  mpfr_set_d(a, 1.4, MPFR_RNDN);
  mpfr_set_d(b, 0.3, MPFR_RNDN);
  auto timed = [&](std::function<void()> step, double ops_per_step, std::function<void()> init) {
    return calibrated([&](int64_t n) {
      init();
      auto t0 = std::chrono::steady_clock::now();
      for (int64_t s = 0; s < n; ++s) step();
      double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return std::pair<double, double>(sec, n * ops_per_step / sec);
    }, target, 1 << 14);
  };
  auto ones = [&] { mpfr_set_d(x, 1.0, MPFR_RNDN); mpfr_set_d(y, 0.5, MPFR_RNDN); };
  r[ArithOp::kAdd] = timed([&] { mpfr_add(x, x, y, MPFR_RNDN); mpfr_sub(x, x, y, MPFR_RNDN); }, 2.0, ones);
  r[ArithOp::kMul] = timed([&] { mpfr_mul(x, x, one, MPFR_RNDN); }, 1.0, ones);
  r[ArithOp::kSqr] = timed([&] { mpfr_sqr(x, x, MPFR_RNDN); }, 1.0, ones);
  r[ArithOp::kHenon] = timed([&] {
    mpfr_sqr(t, x, MPFR_RNDN); mpfr_mul(t, t, a, MPFR_RNDN); mpfr_sub(t, y, t, MPFR_RNDN);
    mpfr_add(t, t, one, MPFR_RNDN); mpfr_mul(y, x, b, MPFR_RNDN); mpfr_swap(x, t); }, 1.0,
    [&] { mpfr_set_zero(x, 1); mpfr_set_zero(y, 1); });
  for (mpfr_ptr p : {x, y, t, one, a, b}) mpfr_clear(p);
  return r;
}

std::string fmt_rate(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", r);
  return buf;
}

// "format,op,fp64_per_op,fp32_per_op" lines (Nsight Compute counts), keyed "format/op".
std::map<std::string, std::pair<double, double>> read_fp_counts(const std::string& path) {
  std::map<std::string, std::pair<double, double>> m;
  std::ifstream in(path);
  if (!in) throw IoError("cannot read --fp-counts file \"" + path + "\"");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("format,", 0) == 0) continue;
    std::stringstream ss(line);
    std::string f, op, d, s;
    std::getline(ss, f, ',');
    std::getline(ss, op, ',');
    std::getline(ss, d, ',');
    std::getline(ss, s, ',');
    m[f + "/" + op] = {std::stod(d), std::stod(s)};
  }
  return m;
}

}  // namespace

int bench_arith(const ArgList& args) {
  cli::Args a(args, {"out", "fp-counts", "formats", "steps", "chains"}, {"quick", "cpu-only", "gpu-only"});
  // --steps: one run of that many steps per measurement, no calibration (for Nsight Compute counts).
  const int64_t fixed_steps = a.get_int("steps", 0, 1, int64_t(1) << 40);
  const bool quick = a.flag("quick");
  const double target = quick ? 0.02 : 0.15;
  std::string out_path = a.get("out", "");
  if (!out_path.empty()) check_writable(out_path);
  std::map<std::string, std::pair<double, double>> counts;
  if (a.has("fp-counts")) counts = read_fp_counts(a.get("fp-counts", ""));
  std::vector<Arith> formats = all_ariths();
  if (a.has("formats")) {
    formats.clear();
    std::stringstream ss(a.get("formats", ""));
    std::string name;
    while (std::getline(ss, name, ',')) formats.push_back(parse_arith(name));
  }
  const bool do_cpu = !a.flag("gpu-only"), do_gpu = !a.flag("cpu-only") && cuda_device_count() > 0;

  std::ostringstream md;
  md << bench_preamble("arith", args);
  auto devs = cuda_devices();
  md << "- GPU: " << (devs.empty() ? std::string("none (") + cuda_unavailable_reason() + ")" : devs[0].name) << "\n";
  md << "- CPU: one thread, 8 interleaved independent chains per format (QD alike; MPFR one chain)\n\n";
  md << "Rates are operations per second (add counts the add and the sub of each step; henon counts one "
        "step (x, y) -> (1 + y - 1.4 x^2, 0.3 x)).\n\n";

  if (do_cpu) {
    std::fprintf(stderr, "CPU chains...\n");
    md << "## CPU (one thread)\n\n| format | add/s | mul/s | sqr/s | henon/s |\n|---|---|---|---|---|\n";
    for (Arith f : formats) {
      md << "| " << arith_name(f);
      for (ArithOp op : kOps) {
        double r = calibrated([&](int64_t n) {
          Throughput t = arith_throughput_cpu(f, op, 8, n);
          return std::pair<double, double>(t.seconds, t.ops_per_second); }, target, 1 << 10);
        md << " | " << fmt_rate(r);
      }
      md << " |\n";
      std::fprintf(stderr, "  %s done\n", arith_name(f));
    }
#ifdef DEEPSCOPE_HAVE_QD
    for (auto [name, r] : {std::pair<const char*, std::map<ArithOp, double>>{"QD dd_real", bench_qd<dd_real>(target)},
                           {"QD qd_real", bench_qd<qd_real>(target)}}) {
      md << "| " << name;
      for (ArithOp op : kOps) md << " | " << fmt_rate(r[op]);
      md << " |\n";
    }
#else
    md << "| QD | not built (libqd-dev not found) | | | |\n";
#endif
    for (int bits : {24, 53, 106, 128, 212, 424}) {
      auto r = bench_mpfr(bits, target);
      md << "| MPFR " << bits << " bits";
      for (ArithOp op : kOps) md << " | " << fmt_rate(r[op]);
      md << " |\n";
    }
    md << "\n";
  }

  if (do_gpu) {
    std::fprintf(stderr, "GPU chains...\n");
    const CudaDeviceInfo& d = devs[0];
    int64_t chains = a.get_int("chains", static_cast<int64_t>(d.sm_count) * 2048 * 2, 1, int64_t(1) << 30);
    md << "## GPU: " << d.name << " (" << d.sm_count << " SMs), " << chains << " chains, one per thread\n\n"
       << "FP64/FP32 per op: FP instructions per operation counted by Nsight Compute (dadd+dmul+dfma, "
          "fadd+fmul+ffma per thread); share = rate x count / ceiling (1.67e13 DFMA/s, 3.06e13 FFMA/s).\n\n"
       << "| format | op | ops/s | FP64/op | FP32/op | share of FP64 ceiling | share of FP32 ceiling |\n"
       << "|---|---|---|---|---|---|---|\n";
    for (Arith f : formats) {
      for (ArithOp op : kOps) {
        auto run = [&](int64_t n) {
          Throughput t = arith_throughput_cuda(f, op, chains, n);
          return std::pair<double, double>(t.seconds, t.ops_per_second); };
        double r = fixed_steps ? run(fixed_steps).second : calibrated(run, target, 64);
        md << "| " << arith_name(f) << " | " << arith_op_name(op) << " | " << fmt_rate(r);
        auto it = counts.find(std::string(arith_name(f)) + "/" + arith_op_name(op));
        if (it != counts.end()) {
          md << " | " << fmt_rate(it->second.first) << " | " << fmt_rate(it->second.second) << " | "
             << fmt_rate(r * it->second.first / kFp64Ceiling) << " | " << fmt_rate(r * it->second.second / kFp32Ceiling)
             << " |\n";
        } else {
          md << " | - | - | - | - |\n";
        }
      }
      std::fprintf(stderr, "  %s done\n", arith_name(f));
    }
  } else if (!a.flag("cpu-only")) {
    md << "## GPU\n\nnot run: " << cuda_unavailable_reason() << "\n";
  }

  std::string text = md.str();
  std::fputs(text.c_str(), stdout);
  if (!out_path.empty()) write_file_atomically(out_path, text);
  return 0;
}

}  // namespace ds::app
