// The TMD workspace's Lefèvre/regular block pipeline on all cores: the same steps as the CUDA one
// (lefevre.cu) over host arrays, with the same per-item functions (lefevre.cuh). Compaction
// keeps the order here (a sequential pass); on the device it is an atomic append, whose order
// changes nothing: the counts are sums and the candidates are sorted by the caller.
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>

#include "kernels/core/cpu_parallel.h"
#include "lefevre_pipeline.h"

namespace ds::tmd::pipeline {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One expansion work item: intervals [k0 + s0, k0 + s0 + n) of packet p.
struct Item {
  std::size_t p;
  int64_t s0, n;
};

}  // namespace

void run_block_cpu(const BlockInput& in, BlockOutput* out) {
  const lb::BlockGeom& g = in.g;
  const int64_t nb = in.nb;
  BlockOutput& o = *out;
  // Polynomials: every interval's coefficients and parameter record.
  auto t = Clock::now();
  // Left uninitialised (every tested interval's entries are written below): the pages are first
  // touched by the parallel expansion, not by a serial zeroing of up to 1 GiB.
  std::unique_ptr<lb::Frac[]> coef(new lb::Frac[static_cast<std::size_t>(3 * nb)]);
  std::unique_ptr<int32_t[]> pidx(new int32_t[static_cast<std::size_t>(nb)]);
  std::vector<Item> items;
  for (std::size_t p = 0; p < in.packets.size(); ++p)
    for (int64_t s0 = 0; s0 < in.packets[p].packet.n; s0 += kSubPacket)
      items.push_back({p, s0, std::min(kSubPacket, in.packets[p].packet.n - s0)});
  parallel_for(items.size(), 16, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const PacketJob& pj = in.packets[items[i].p];
      const int64_t k = pj.k0 + items[i].s0;
      lb::expand_packet_range(pj.packet, items[i].s0, items[i].n, &coef[static_cast<std::size_t>(3 * k)]);
      for (int64_t m = 0; m < items[i].n; ++m) pidx[static_cast<std::size_t>(k + m)] = pj.param;
    }
  });
  for (const Single& s : in.singles) {
    for (int j = 0; j < 3; ++j) coef[static_cast<std::size_t>(3 * s.k + j)] = s.y[j];
    pidx[static_cast<std::size_t>(s.k)] = s.param;
  }
  o.seconds_expand = since(t);
  // Phase 1: one test per tested interval, in order.
  t = Clock::now();
  const int64_t n_ex = static_cast<int64_t>(in.excluded.size()), T = nb - n_ex;
  auto interval = [&](int64_t i) { return lb::tested_interval(in.excluded.data(), n_ex, i); };
  std::vector<uint32_t> iters(static_cast<std::size_t>(T));
  std::vector<uint8_t> fail(static_cast<std::size_t>(T));
  parallel_for(static_cast<std::size_t>(T), 1024, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const int64_t k = interval(static_cast<int64_t>(i));
      const lb::Bound r = lb::phase1_item(
          g, &coef[static_cast<std::size_t>(3 * k)],
          in.params[static_cast<std::size_t>(pidx[static_cast<std::size_t>(k)])], lb::interval_args(g, k));
      iters[i] = r.iters;
      fail[i] = r.success ? 0 : 1;
    }
  });
  o.phase1 = T;
  o.warps = lb::empty_summary();
  for (int64_t w = 0; w < T; w += 32)
    lb::add_warp(&o.warps, lb::warp_iters(&iters[static_cast<std::size_t>(w)],
                                          static_cast<int>(std::min<int64_t>(32, T - w))));
  std::vector<int64_t> f1;  // compaction: the failing intervals
  for (int64_t i = 0; i < T; ++i)
    if (fail[static_cast<std::size_t>(i)]) {
      const int64_t k = interval(i), n = lb::interval_args(g, k);
      f1.push_back(k);
      o.phase2_args += n;
      o.phase2 += (n + g.L - 1) / g.L;
    }
  o.seconds_phase1 = since(t);
  // Phase 2: every sub-interval of the failing intervals.
  t = Clock::now();
  const std::size_t S = static_cast<std::size_t>(g.split);
  std::vector<uint8_t> fail2(f1.size() * S, 0);
  std::vector<int64_t> sub_n(f1.size() * S, 0);
  parallel_for(f1.size() * S, 256, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const int64_t k = f1[i / S], n = lb::interval_args(g, k);
      const int s = static_cast<int>(i % S);
      if (static_cast<int64_t>(s) * g.L >= n) continue;
      const lb::Bound r = lb::phase2_item(
          g, &coef[static_cast<std::size_t>(3 * k)],
          in.params[static_cast<std::size_t>(pidx[static_cast<std::size_t>(k)])], n, s, &sub_n[i]);
      fail2[i] = r.success ? 0 : 1;
    }
  });
  std::vector<std::pair<int64_t, int>> f2;  // compaction: the failing sub-intervals
  for (std::size_t i = 0; i < fail2.size(); ++i)
    if (fail2[i]) {
      f2.emplace_back(f1[i / S], static_cast<int>(i % S));
      o.phase3 += 1;
      o.phase3_args += sub_n[i];
    }
  o.seconds_phase2 = since(t);
  // Phase 3: tabulated differences on the failing sub-intervals.
  t = Clock::now();
  std::mutex mu;
  std::vector<int64_t> cand;
  parallel_for(f2.size(), 16, [&](std::size_t b, std::size_t e) {
    std::vector<int64_t> local;
    for (std::size_t i = b; i < e; ++i) {
      const int64_t k = f2[i].first;
      const lb::Scan sc = lb::phase3_scan(
          g, &coef[static_cast<std::size_t>(3 * k)],
          in.params[static_cast<std::size_t>(pidx[static_cast<std::size_t>(k)])], k, f2[i].second);
      lb::run_scan(sc, g.nearest, [&](int64_t x) { local.push_back(x); });
    }
    std::lock_guard<std::mutex> lock(mu);
    cand.insert(cand.end(), local.begin(), local.end());
  });
  o.candidate_count = static_cast<int64_t>(cand.size());
  if (o.candidate_count <= in.max_candidates) o.candidates = std::move(cand);
  o.seconds_phase3 = since(t);
}

}  // namespace ds::tmd::pipeline
