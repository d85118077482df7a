// The TMD workspace's CPU backend: the per-input evaluation of tmd.cuh on all cores, and the
// small helpers around it (names, the dd value for tests, the evaluation rate for the bench).
#include <chrono>
#include <cstring>
#include <mutex>

#include "kernels/core/cpu_parallel.h"
#include "tmd.cuh"
#include "tmd.h"

namespace ds::tmd {

const char* func_name(Func f) {
  switch (f) {
    case Func::kExp:
      return "exp";
    case Func::kExp2:
      return "exp2";
    case Func::kLog:
      return "log";
    case Func::kLog2:
      return "log2";
    case Func::kSin:
      return "sin";
    case Func::kCos:
      return "cos";
  }
  return "?";
}

const char* mode_name(Mode m) { return m == Mode::kNearest ? "nearest" : "directed"; }

std::vector<Func> all_funcs() {
  return {Func::kExp, Func::kExp2, Func::kLog, Func::kLog2, Func::kSin, Func::kCos};
}

Func parse_func(const std::string& s) {
  for (Func f : all_funcs())
    if (s == func_name(f)) return f;
  throw std::invalid_argument("unsupported function \"" + s + "\" (exp, exp2, log, log2, sin, cos)");
}

Mode parse_mode(const std::string& s) {
  if (s == "nearest" || s == "rn") return Mode::kNearest;
  if (s == "directed" || s == "rd" || s == "ru" || s == "rz") return Mode::kDirected;
  throw std::invalid_argument("unsupported rounding mode \"" + s + "\" (nearest, directed)");
}

DdDistance dd_distance(Func f, Mode m, int precision, uint32_t x) {
  const dev::Eval e = dev::evaluate(f, m, precision, x);
  return DdDistance{e.status, e.dist};
}

bool dd_value(Func f, float x, double* hi, double* lo) {
  bool ok, force;
  const dev::DD v = dev::eval_dd(f, x, &ok, &force);
  *hi = v.hi;
  *lo = v.lo;
  return ok && v.hi != 0.0;
}

namespace detail {

int64_t filter_cpu(Func f, Mode m, int p, int k, uint64_t first, int64_t n, uint32_t* out, int64_t cap,
                   int64_t* evaluated, const std::atomic<bool>* cancel, bool* cancelled) {
  const double thr = dev::candidate_threshold(p, k);
  std::atomic<int64_t> count{0}, evals{0};
  ParallelOptions opt;
  opt.cancel = cancel;
  const bool complete = parallel_for(
      static_cast<std::size_t>(n), 1 << 14,
      [&](std::size_t b, std::size_t e) {
        int64_t local_evals = 0;
        for (std::size_t i = b; i < e; ++i) {
          const uint32_t bits = static_cast<uint32_t>(first + i);
          const dev::Eval ev = dev::evaluate(f, m, p, bits);
          if (ev.status != dev::kEvalSkip) ++local_evals;
          if (dev::is_candidate(ev, thr)) {
            const int64_t slot = count.fetch_add(1, std::memory_order_relaxed);
            if (slot < cap) out[slot] = bits;
          }
        }
        evals.fetch_add(local_evals, std::memory_order_relaxed);
      },
      opt);
  if (cancelled) *cancelled = !complete;
  if (evaluated) *evaluated = evals.load();
  return count.load();
}

}  // namespace detail

EvalRate eval_rate(Func f, Mode m, int precision, int k, uint32_t lo, int64_t n, Backend backend) {
  if (n <= 0 || static_cast<uint64_t>(lo) + static_cast<uint64_t>(n) > (uint64_t{1} << 32))
    throw std::invalid_argument("eval_rate: range outside the binary32 bit patterns");
  std::vector<uint32_t> out(1 << 16);
  int64_t evaluated = 0;
  const auto t0 = std::chrono::steady_clock::now();
  EvalRate r;
  if (backend == Backend::kCuda)
    r.candidates = detail::filter_cuda(f, m, precision, k, lo, n, out.data(),
                                       static_cast<int64_t>(out.size()), &evaluated);
  else
    r.candidates = detail::filter_cpu(f, m, precision, k, lo, n, out.data(), static_cast<int64_t>(out.size()),
                                      &evaluated, nullptr, nullptr);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.inputs_per_second = static_cast<double>(n) / r.seconds;
  r.evaluated = evaluated;
  r.evaluated_per_second = static_cast<double>(evaluated) / r.seconds;
  return r;
}

}  // namespace ds::tmd
