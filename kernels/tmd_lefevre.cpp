// The TMD workspace's Lefèvre and regular searches on the CPU: degree-2 Taylor coefficients per
// interval from MPFR, phase 1 and 2 lower-bound tests (tmd_lefevre.cuh), phase 3 tabulated
// differences, MPFR on every candidate, and the per-warp loop statistics (NMDM).
#include "tmd_lefevre.h"

#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "cpu_parallel.h"
#include "tmd_lefevre.cuh"
#include "tmd_lefevre_internal.h"

namespace ds::tmd {
namespace {

using Clock = std::chrono::steady_clock;
using namespace lefevre_detail;

// Iteration statistics accumulated over blocks (each block a whole number of warps).
struct IterAcc {
  double sum = 0, nmdm_sum = 0;
  int64_t count = 0;
  void add(const std::vector<uint32_t>& it, IterStats* st) {
    if (it.empty()) return;
    const uint32_t mn = *std::min_element(it.begin(), it.end()), mx = *std::max_element(it.begin(), it.end());
    st->min = count == 0 ? mn : std::min(st->min, mn);
    st->max = std::max(st->max, mx);
    for (uint32_t x : it) sum += x;
    count += static_cast<int64_t>(it.size());
    st->mean = sum / static_cast<double>(count);
    for (std::size_t w = 0; w < it.size(); w += 32) {
      const int n = static_cast<int>(std::min<std::size_t>(32, it.size() - w));
      const double m = nmdm(&it[w], n);
      nmdm_sum += m;
      ++st->warps;
      st->nmdm_hist[std::min(19, static_cast<int>(m * 20))]++;
    }
    st->mean_nmdm = nmdm_sum / static_cast<double>(st->warps);
  }
};

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

double lefevre_arguments(const LefevreParams& p) { return static_cast<double>(validate(p).count); }

LefevreResult lefevre_search(const LefevreParams& p) {
  const Setup s = validate(p);
  LefevreResult res;
  res.arguments = static_cast<int64_t>(s.count);
  const int64_t N = int64_t{1} << p.log2_n;
  const int64_t n_int =
      static_cast<int64_t>((s.count + static_cast<uint64_t>(N) - 1) / static_cast<uint64_t>(N));
  const double eps = std::ldexp(1.0, -p.k), slack = 0x1p-60;
  const Backend be = select_backend(p.backend);
  const int64_t L = N / p.split;
  const int64_t count = static_cast<int64_t>(s.count);
  ParallelOptions opt;
  opt.cancel = p.cancel;
  res.iters.nmdm_hist.assign(20, 0);
  IterAcc acc;
  std::vector<int64_t> cand;  // argument indices (relative to s.i0)
  // Blocks of intervals (a multiple of 32: warps never straddle two blocks).
  const int64_t block = int64_t{1} << 18;
  for (int64_t b0 = 0; b0 < n_int; b0 += block) {
    if (p.cancel && p.cancel->load()) {
      res.cancelled = true;
      break;
    }
    const int64_t nb = std::min(block, n_int - b0);
    // Polynomials.
    auto t = Clock::now();
    std::vector<Interval> ivs(static_cast<std::size_t>(nb));
    const bool ok = parallel_for(
        ivs.size(), 64,
        [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) {
            const int64_t first = (b0 + static_cast<int64_t>(i)) * N;
            ivs[i] = make_interval(p, s, first, std::min(N, count - first));
          }
        },
        opt);
    res.seconds_poly += since(t);
    if (!ok) {
      res.cancelled = true;
      break;
    }
    // Phase 1 on every interval with one result binade.
    t = Clock::now();
    std::vector<lb::LinearTest> tests;
    std::vector<int64_t> tested;  // interval of each test
    for (std::size_t i = 0; i < ivs.size(); ++i) {
      const Interval& iv = ivs[i];
      if (iv.direct) res.direct_args += iv.n;
      if (iv.direct || iv.n == 0) continue;
      const double r =
          (iv.rem + iv.y2_abs * std::pow(static_cast<double>(iv.n - 1), 2) + eps + slack * iv.n) *
          (1 + 0x1p-40);
      tests.push_back(make_test(p, iv.y0, iv.y1, r, iv.n));
      tested.push_back(static_cast<int64_t>(i));
    }
    std::vector<uint8_t> ok1;
    std::vector<uint32_t> iters;
    run_tests(p, be, tests, &ok1, &iters);
    std::vector<int64_t> p2;  // compaction: the failing intervals
    res.phase1 += static_cast<int64_t>(tests.size());
    for (std::size_t j = 0; j < tests.size(); ++j)
      if (!ok1[j]) {
        p2.push_back(tested[j]);
        res.phase2_args += ivs[tested[j]].n;
      }
    acc.add(iters, &res.iters);
    res.seconds_phase1 += since(t);
    if (p.on_phase) p.on_phase(1, res);
    // Phase 2: S sub-intervals of each failing interval.
    t = Clock::now();
    struct Sub {
      int64_t iv, xs, n;
      Frac c0, c1;
    };
    std::vector<Sub> subs;
    for (int64_t i : p2)
      for (int64_t xs = 0; xs < ivs[i].n; xs += L) {
        const Interval& iv = ivs[i];
        Sub sb{i, xs, std::min(L, iv.n - xs), {}, {}};
        sb.c0 = lb::frac_add(lb::frac_add(iv.y0, frac_mul(iv.y1, xs)), frac_mul(frac_mul(iv.y2, xs), xs));
        sb.c1 = lb::frac_add(iv.y1, frac_mul(iv.y2, 2 * xs));
        subs.push_back(sb);
      }
    res.phase2 += static_cast<int64_t>(subs.size());
    tests.clear();
    for (const Sub& sb : subs) {
      const Interval& iv = ivs[sb.iv];
      const double r =
          (iv.rem + iv.y2_abs * std::pow(static_cast<double>(sb.n - 1), 2) + eps + slack * iv.n) *
          (1 + 0x1p-40);
      tests.push_back(make_test(p, sb.c0, sb.c1, r, sb.n));
    }
    std::vector<uint8_t> ok2;
    std::vector<uint32_t> iters2;
    run_tests(p, be, tests, &ok2, &iters2);
    res.seconds_phase2 += since(t);
    if (p.on_phase) p.on_phase(2, res);
    // Phase 3: tabulated differences on the failing sub-intervals.
    t = Clock::now();
    std::vector<lb::Scan> scans;
    for (std::size_t j = 0; j < subs.size(); ++j) {
      if (ok2[j]) continue;
      const Sub& sb = subs[j];
      const Interval& iv = ivs[sb.iv];
      ++res.phase3;
      res.phase3_args += sb.n;
      lb::Scan sc;
      sc.v = sb.c0;
      sc.d1 = lb::frac_add(sb.c1, iv.y2);
      sc.d2 = lb::frac_add(iv.y2, iv.y2);
      sc.first = iv.first + sb.xs;
      sc.n = sb.n;
      sc.thr = (iv.rem + eps + slack * iv.n) * (1 + 0x1p-40) + 0x1p-52;
      scans.push_back(sc);
    }
    if (!scans.empty()) {
      const std::vector<int64_t> c =
          be == Backend::kCuda ? detail::run_scans_cuda(scans.data(), static_cast<int64_t>(scans.size()),
                                                        p.mode == Mode::kNearest)
                               : detail::run_scans_cpu(scans.data(), static_cast<int64_t>(scans.size()),
                                                       p.mode == Mode::kNearest);
      cand.insert(cand.end(), c.begin(), c.end());
    }
    for (const Interval& iv : ivs)
      if (iv.direct)
        for (int64_t x = 0; x < iv.n; ++x) cand.push_back(iv.first + x);
    res.seconds_phase3 += since(t);
    if (p.on_phase) p.on_phase(3, res);
    if (p.progress) p.progress(static_cast<double>(b0 + nb) / static_cast<double>(n_int));
  }
  std::sort(cand.begin(), cand.end());
  auto t = Clock::now();
  res.candidates = static_cast<int64_t>(cand.size());
  std::vector<Verdict> v(cand.size());
  parallel_for(cand.size(), 64, [&](std::size_t b, std::size_t e) {
    Mp X(72);
    for (std::size_t i = b; i < e; ++i) {
      const uint64_t idx = s.i0 + static_cast<uint64_t>(cand[i]);
      if (s.bits_mode) {
        v[i] = mpfr_verdict(p.func, p.mode, p.precision, p.k, s.bits(idx));
      } else {
        set_arg(X.v, s, idx);
        v[i] = mpfr_verdict_value(p.func, p.mode, p.precision, p.k, static_cast<const void*>(X.v));
      }
    }
  });
  Mp X(72);
  for (std::size_t i = 0; i < cand.size(); ++i) {
    if (!v[i].within) continue;
    Case c;
    c.index = s.i0 + static_cast<uint64_t>(cand[i]);
    if (s.bits_mode) {
      c.x = s.bits(c.index);
    } else {
      set_arg(X.v, s, c.index);
      char* txt = nullptr;
      if (mpfr_asprintf(&txt, "%Ra", X.v) >= 0 && txt) {
        c.x_text = txt;
        mpfr_free_str(txt);
      }
    }
    c.run = v[i].run;
    c.run_capped = v[i].run_capped;
    c.log2_dist = v[i].log2_dist;
    c.fx = v[i].fx;
    res.cases.push_back(std::move(c));
  }
  std::sort(res.cases.begin(), res.cases.end(),
            [](const Case& a, const Case& b) { return a.index < b.index; });
  res.seconds_mpfr = since(t);
  if (p.on_phase) p.on_phase(4, res);
  if (p.progress) p.progress(1.0);
  return res;
}

}  // namespace ds::tmd
