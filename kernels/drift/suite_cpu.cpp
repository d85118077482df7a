// The synthetic suite's host side: name tables, the thesis's data and orders, the summation and
// do/undo runs on the CPU, and the hand-off to CUDA (drift.cu) for the GPU backend.
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "kernels/core/cpu_parallel.h"
#include "drift.h"
#include "suite.cuh"

namespace ds::drift {

namespace {

const char* const kSumNames[] = {"float", "double", "composite", "ff", "kahan"};

void check(bool ok, const std::string& msg) {
  if (!ok) throw std::invalid_argument(msg);
}

}  // namespace

const std::vector<SumMethod>& all_sum_methods() {
  static const std::vector<SumMethod> v = {SumMethod::kFloat, SumMethod::kDouble, SumMethod::kComposite,
                                           SumMethod::kFF, SumMethod::kKahan};
  return v;
}

const char* sum_method_name(SumMethod m) {
  const int i = static_cast<int>(m);
  if (i < 0 || i > 4) throw ArithError("unknown sum method " + std::to_string(i));
  return kSumNames[i];
}

SumMethod parse_sum_method(const std::string& name) {
  for (SumMethod m : all_sum_methods())
    if (name == sum_method_name(m)) return m;
  throw ArithError("unknown sum method \"" + name + "\" (float, double, composite, ff, kahan)");
}

std::vector<double> sum_data(int n, uint64_t seed) {
  check(n >= 2 && n % 2 == 0 && n <= 100'000'000, "the summation array size must be even, in [2, 1e8]");
  std::vector<double> d(static_cast<std::size_t>(n));
  for (int i = 0; i < n / 2; ++i) {
    const bool large = uniform01(seed, 3 * static_cast<uint64_t>(i)) < 0.5;
    const double v = large ? uniform_f32(seed, 3 * static_cast<uint64_t>(i) + 1, 1.0, 1e6)
                           : uniform_f32(seed, 3 * static_cast<uint64_t>(i) + 2, 1e-6, 1e-5);
    d[2 * i] = v;
    d[2 * i + 1] = -v;
  }
  return d;
}

const char* sum_order_name(int order) {
  static const char* const names[] = {"ascending",    "descending",   "shuffled (1)",
                                      "shuffled (2)", "shuffled (3)", "shuffled (4)"};
  check(order >= 0 && order < kSumOrders, "sum order must be in [0, 5]");
  return names[order];
}

std::vector<double> sum_ordered(const std::vector<double>& data, int order, uint64_t seed) {
  check(order >= 0 && order < kSumOrders, "sum order must be in [0, 5]");
  std::vector<double> d = data;
  if (order == 0) std::sort(d.begin(), d.end());
  if (order == 1) std::sort(d.begin(), d.end(), [](double a, double b) { return a > b; });
  if (order >= 2) {  // Fisher-Yates from a stream of its own per trial
    const uint64_t s = splitmix64(seed + 1000003ULL * static_cast<uint64_t>(order));
    for (std::size_t i = d.size(); i > 1; --i) {
      const std::size_t j = static_cast<std::size_t>(uniform01(s, i) * static_cast<double>(i));
      std::swap(d[i - 1], d[std::min(j, i - 1)]);
    }
  }
  return d;
}

double sum_array(SumMethod m, const std::vector<double>& data, int threads, Backend backend) {
  const int n = static_cast<int>(data.size());
  check(n >= 1, "nothing to sum");
  check(threads >= 1 && threads <= n && threads <= 1'000'000,
        "threads must be in [1, array size], got " + std::to_string(threads));
  const Backend be = select_backend(backend);
  std::vector<double> words(2 * static_cast<std::size_t>(threads));
  double result = 0;
  dispatch_suite(m, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (be == Backend::kCuda) {
      detail::sum_partials_cuda(m, data.data(), n, threads, words.data());
    } else {
      ParallelOptions opt;
      opt.threads = static_cast<unsigned>(std::min(threads, 64));
      parallel_for(
          static_cast<std::size_t>(threads), 1,
          [&](std::size_t b, std::size_t e) {
            for (std::size_t t = b; t < e; ++t)
              sum_block<T>(data.data(), n, threads, static_cast<int>(t), words.data());
          },
          opt);
    }
    // The partial sums are added on the host in thread order (the thesis's scheme), in T.
    T s = Words<T>::get(words.data());
    for (int t = 1; t < threads; ++t) Summer<T>::add_partial(s, Words<T>::get(words.data() + 2 * t));
    result = Summer<T>::value(s);
  });
  return result;
}

std::vector<SumRow> sum_suite(const SumSuiteParams& p) {
  const std::vector<double> data = sum_data(p.n, p.seed);
  for (int t : p.threads) check(t >= 1 && t <= p.n, "thread counts must be in [1, array size]");
  std::vector<SumRow> rows;
  for (int t : p.threads) {
    for (int o = 0; o < kSumOrders; ++o) {
      const std::vector<double> d = sum_ordered(data, o, p.seed);
      SumRow r;
      r.order = o;
      r.threads = t;
      for (SumMethod m : all_sum_methods()) r.result[static_cast<int>(m)] = sum_array(m, d, t, p.backend);
      rows.push_back(r);
    }
  }
  return rows;
}

void doundo_ranges(int trial, double* x_lo, double* x_hi, double* y_lo, double* y_hi) {
  check(trial >= 1 && trial <= kDoUndoTrials, "do/undo trial must be 1, 2 or 3");
  static const double r[3][4] = {{1, 100, 1, 100}, {1e5, 1e6, 1e-6, 1e-5}, {1e-6, 1e-5, 1e5, 1e6}};
  *x_lo = r[trial - 1][0];
  *x_hi = r[trial - 1][1];
  *y_lo = r[trial - 1][2];
  *y_hi = r[trial - 1][3];
}

bool doundo_arith_supported(Arith a) {
  return a == Arith::kF32 || a == Arith::kF64 || a == Arith::kComposite || a == Arith::kFF;
}

DoUndoResult doundo(const DoUndoParams& p) {
  check(p.iterations >= 1 && p.iterations <= 10'000'000'000LL, "do/undo iterations must be in [1, 1e10]");
  check(p.record_every >= 1 && p.record_every <= p.iterations,
        "do/undo record interval must be in [1, iterations]");
  check(p.iterations / p.record_every <= 10'000'000, "do/undo would record more than 1e7 points");
  double xl, xh, yl, yh;
  doundo_ranges(p.trial, &xl, &xh, &yl, &yh);
  DoUndoResult r;
  r.x0 = uniform_f32(p.seed, 0, xl, xh);
  const int64_t n_rec = p.iterations / p.record_every;
  r.drift.assign(static_cast<std::size_t>(n_rec), 0.0);
  const Backend be = select_backend(p.backend);
  dispatch_doundo(p.arith, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (be == Backend::kCuda) {
      detail::doundo_cuda(p, r.x0, r.drift.data(), n_rec, &r.final_x, &r.seconds);
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const T x = doundo_loop<T>(T(r.x0), r.x0, p.div_first, p.seed, p.iterations, p.record_every, yl, yh,
                               r.drift.data(), n_rec);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.final_x = to_double(x);
  });
  return r;
}

}  // namespace ds::drift
