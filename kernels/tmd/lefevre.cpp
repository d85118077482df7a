// The TMD workspace's Lefèvre and regular searches on the CPU: degree-2 Taylor coefficients per
// interval from MPFR, phase 1 and 2 lower-bound tests (lefevre.cuh), phase 3 tabulated
// differences, MPFR on every candidate, and the per-warp loop statistics (NMDM); each block of
// intervals is one chunk of a ds::work job, computed through MPFR on the worker that takes it.
#include "lefevre.h"

#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "kernels/core/cpu_parallel.h"
#include "lefevre.cuh"
#include "lefevre_internal.h"
#include "lefevre_pipeline.h"
#include "records.h"

namespace ds::tmd {
namespace {

using Clock = std::chrono::steady_clock;
using namespace lefevre_detail;

using records::LefevreBlock;

// Adds a block's counts to the result (iteration sums into *iter_sum, *nmdm_sum, *iter_count).
void merge(const LefevreBlock& b, LefevreResult* r, double* iter_sum, double* nmdm_sum, int64_t* iter_count) {
  r->phase1 += b.phase1;
  r->phase2 += b.phase2;
  r->phase2_args += b.phase2_args;
  r->phase3 += b.phase3;
  r->phase3_args += b.phase3_args;
  r->direct_args += b.direct;
  r->candidates += b.candidates;
  r->cases.insert(r->cases.end(), b.cases.begin(), b.cases.end());
  IterStats& st = r->iters;
  if (b.iter_count > 0) {
    st.min = *iter_count == 0 ? b.iter_min : std::min(st.min, b.iter_min);
    st.max = std::max(st.max, b.iter_max);
    *iter_count += b.iter_count;
    *iter_sum += b.iter_sum;
    *nmdm_sum += b.nmdm_sum;
    st.warps += b.warps;
    st.mean = *iter_sum / static_cast<double>(*iter_count);
    st.mean_nmdm = *nmdm_sum / static_cast<double>(st.warps);
    for (std::size_t i = 0; i < 20; ++i) st.nmdm_hist[i] += b.hist[i];
  }
}

constexpr int kWorkersPerDevice = 4;

constexpr const char* kBlockMagic = "deepscope-tmd-lefevre-blocks v2 ";  // v2: ds::work records

std::string fingerprint(const LefevreParams& p) {
  std::ostringstream o;
  o << "search=" << search_name(p.search) << " func=" << func_name(p.func) << " mode=" << mode_name(p.mode)
    << " p=" << p.precision << " k=" << p.k << " log2n=" << p.log2_n << " split=" << p.split
    << " kth=" << p.div_threshold << " block=" << p.log2_block
    << " poly=" << (p.hierarchical ? "hierarchical" + std::to_string(p.log2_packet) : std::string("taylor"));
  if (p.x_lo.empty() && p.x_hi.empty())
    o << " lo=" << p.lo << " hi=" << p.hi;
  else
    o << " x_lo=" << p.x_lo << " x_hi=" << p.x_hi;
  return o.str();
}

// The block's polynomials from MPFR (on all cores): by the hierarchical method, packets of
// 2^log2_packet intervals; a packet whose results span two binades or whose remainder bound is
// above 2^-(k+4) ulp is halved, down to single intervals, which get their own MPFR polynomial (as
// every interval does with --poly taylor).
struct BlockPolys {
  std::vector<PacketData> packets;
  std::vector<int64_t> offsets;                       // first interval of each packet (in the block)
  std::vector<std::pair<int64_t, Interval>> singles;  // interval index in the block, its polynomial
};

bool block_polynomials(const LefevreParams& p, const Setup& s, int64_t b0, int64_t N, int64_t count,
                       int64_t nb, const ParallelOptions& opt, BlockPolys* out) {
  const int64_t P = p.hierarchical ? int64_t{1} << p.log2_packet : 1;
  const int64_t n_pk = (nb + P - 1) / P, n_full = P > 1 ? nb / P : 0;  // packets, whole packets
  const double rem_max = std::ldexp(1.0, -p.k - 4);
  std::mutex mu;
  std::function<void(int64_t, int64_t, BlockPolys*)> build = [&](int64_t k0, int64_t n, BlockPolys* bp) {
    if (n > 1) {
      PacketData d = make_packet(p, s, b0 + k0, n, N);
      if (!d.direct && d.rem <= rem_max) {
        bp->packets.push_back(d);
        bp->offsets.push_back(k0);
        return;
      }
      build(k0, n / 2, bp);
      build(k0 + n / 2, n - n / 2, bp);
      return;
    }
    const int64_t first = (b0 + k0) * N;
    bp->singles.emplace_back(k0, make_interval(p, s, first, std::min(N, count - first)));
  };
  // Runs of 16 whole packets (make_packets shares their ends), 64 single intervals otherwise.
  const int64_t run = p.hierarchical ? 16 : 64;
  return parallel_for(
      static_cast<std::size_t>((n_pk + run - 1) / run), 1,
      [&](std::size_t b, std::size_t e) {
        BlockPolys local;
        for (std::size_t r = b; r < e; ++r) {
          const int64_t i0 = static_cast<int64_t>(r) * run, i1 = std::min(n_pk, i0 + run);
          const int64_t whole = std::clamp<int64_t>(n_full - i0, 0, i1 - i0);
          const std::vector<PacketData> v = make_packets(p, s, b0 + i0 * P, whole, P, N);
          for (int64_t i = 0; i < whole; ++i) {
            const int64_t k0 = (i0 + i) * P;
            const PacketData& d = v[static_cast<std::size_t>(i)];
            if (!d.direct && d.rem <= rem_max) {
              local.packets.push_back(d);
              local.offsets.push_back(k0);
            } else {  // as build does with a packet that fails
              build(k0, P / 2, &local);
              build(k0 + P / 2, P - P / 2, &local);
            }
          }
          for (int64_t i = i0 + whole; i < i1; ++i) build(i * P, std::min(P, nb - i * P), &local);
        }
        std::lock_guard<std::mutex> lock(mu);
        out->packets.insert(out->packets.end(), local.packets.begin(), local.packets.end());
        out->offsets.insert(out->offsets.end(), local.offsets.begin(), local.offsets.end());
        out->singles.insert(out->singles.end(), local.singles.begin(), local.singles.end());
      },
      opt);
}

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The search's geometry: N arguments per interval, blocks of 2^log2_block intervals.
struct Geometry {
  Setup s;
  int64_t N = 0, n_int = 0, block = 0, n_blocks = 0, count = 0;
  int64_t intervals(int64_t bi) const { return std::min(block, n_int - bi * block); }
};

// One block of intervals on worker backend `be` (its CUDA device current on this thread): the
// polynomials, phases 1 to 3, and MPFR on the block's candidates. False when `stop` ended it.
bool compute_block(const LefevreParams& p, const Geometry& g, int64_t bi, Backend be,
                   const std::atomic<bool>& stop, const std::function<void(double)>& part,
                   LefevreBlock* out) {
  const Setup& s = g.s;
  const auto t_block = Clock::now();
  const int64_t N = g.N, count = g.count, b0 = bi * g.block, nb = g.intervals(bi);
  const double eps = std::ldexp(1.0, -p.k), slack = 0x1p-60;
  const int64_t L = N / p.split;
  ParallelOptions opt;
  opt.cancel = &stop;
  LefevreBlock& blk = *out;
  // Polynomials: the MPFR part here; the packets are expanded by the backend's pipeline.
  auto t = Clock::now();
  BlockPolys polys;
  if (!block_polynomials(p, s, b0, N, count, nb, opt, &polys)) return false;
  blk.seconds_poly = since(t);
  part(0.4);
  // The pipeline's input: packets, single intervals, their bounds and the tested intervals.
  pipeline::BlockInput in;
  in.g.first0 = b0 * N;
  in.g.N = N;
  in.g.count = count;
  in.g.L = L;
  in.g.split = p.split;
  in.g.eps = eps;
  in.g.slack = slack;
  in.g.nearest = p.mode == Mode::kNearest;
  in.g.lefevre = p.search == Search::kLefevre;
  in.g.kth = p.div_threshold;
  in.nb = nb;
  in.max_candidates = p.max_cases;
  // The packets and single intervals partition the block (block_polynomials): the intervals they
  // test are counted, and only those left out (a single interval sent to MPFR whole, or one past
  // the range) are listed. (A byte per interval, 16 MB a block of 2^24, zeroed, marked and
  // counted, was serial host time of every block.)
  int64_t covered = 0;
  for (std::size_t i = 0; i < polys.packets.size(); ++i) {
    const PacketData& d = polys.packets[i];
    in.packets.push_back({d.packet, polys.offsets[i], static_cast<int32_t>(in.params.size())});
    in.params.push_back({d.c2_lo, d.c2_hi, d.rem});
    covered += d.packet.n;
  }
  std::vector<int64_t> cand;  // argument indices (relative to s.i0)
  for (const auto& [k, iv] : polys.singles) {
    if (iv.direct) {  // two result binades: every argument goes to MPFR
      blk.direct += iv.n;
      for (int64_t x = 0; x < iv.n; ++x) cand.push_back(iv.first + x);
    }
    if (iv.direct || iv.n == 0) {
      in.excluded.push_back(k);
      continue;
    }
    in.singles.push_back({k, static_cast<int32_t>(in.params.size()), {iv.y0, iv.y1, iv.y2}});
    in.params.push_back({iv.y2_lo, iv.y2_hi, iv.rem});
    ++covered;
  }
  std::sort(in.excluded.begin(), in.excluded.end());
  if (covered + static_cast<int64_t>(in.excluded.size()) != nb)
    throw std::logic_error("tmd: block " + std::to_string(bi) + ": the packets and single intervals cover " +
                           std::to_string(covered + static_cast<int64_t>(in.excluded.size())) + " of " +
                           std::to_string(nb) + " intervals");
  // Phases 1 to 3 (and the packets' expansion) on the backend.
  const double seconds_input = since(t_block) - blk.seconds_poly;
  pipeline::BlockOutput res;
  if (be == Backend::kCuda)
    pipeline::run_block_cuda(in, &res);
  else
    pipeline::run_block_cpu(in, &res);
  blk.seconds_poly += res.seconds_expand;
  blk.seconds_phase1 = res.seconds_phase1;
  blk.seconds_phase2 = res.seconds_phase2;
  blk.seconds_phase3 = res.seconds_phase3;
  blk.phase1 = res.phase1;
  blk.phase2 = res.phase2;
  blk.phase2_args = res.phase2_args;
  blk.phase3 = res.phase3;
  blk.phase3_args = res.phase3_args;
  blk.add_summary(res.warps);
  if (stop.load()) return false;
  part(0.7);
  if (res.candidate_count + static_cast<int64_t>(cand.size()) > p.max_cases)
    throw std::runtime_error("more than " + std::to_string(p.max_cases) + " candidates in block " +
                             std::to_string(bi) +
                             ": stopped (finished blocks are kept); raise k or narrow the range");
  cand.insert(cand.end(), res.candidates.begin(), res.candidates.end());
  // MPFR on the block's candidates (sorted: the scans append them in any order).
  std::sort(cand.begin(), cand.end());
  t = Clock::now();
  blk.candidates = static_cast<int64_t>(cand.size());
  std::vector<Verdict> v(cand.size());
  ParallelOptions mopt = opt;
  mopt.progress = [&part](double f) { part(0.7 + 0.3 * f); };
  if (!parallel_for(
          cand.size(), 64,
          [&](std::size_t b, std::size_t e) {
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
          },
          mopt))
    return false;
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
    blk.cases.push_back(std::move(c));
  }
  blk.seconds_mpfr = since(t);
  // DEEPSCOPE_TMD_TRACE=1: where each block's wall time goes on its worker (stderr, one line).
  static const bool trace = std::getenv("DEEPSCOPE_TMD_TRACE") != nullptr;
  if (trace)
    std::fprintf(stderr,
                 "tmd-trace block %lld: packets %.2f ms, input %.2f, expand %.2f, phase1 %.2f, phase2 %.2f, "
                 "phase3 %.2f, mpfr %.2f (%lld candidates), block %.2f ms\n",
                 static_cast<long long>(bi), 1e3 * (blk.seconds_poly - res.seconds_expand),
                 1e3 * seconds_input, 1e3 * res.seconds_expand, 1e3 * res.seconds_phase1,
                 1e3 * res.seconds_phase2, 1e3 * res.seconds_phase3, 1e3 * blk.seconds_mpfr,
                 static_cast<long long>(blk.candidates), 1e3 * since(t_block));
  return true;
}

// Adds a block's phase timings to the result.
void add_seconds(const LefevreBlock& b, LefevreResult* r) {
  r->seconds_poly += b.seconds_poly;
  r->seconds_phase1 += b.seconds_phase1;
  r->seconds_phase2 += b.seconds_phase2;
  r->seconds_phase3 += b.seconds_phase3;
  r->seconds_mpfr += b.seconds_mpfr;
}

}  // namespace

double lefevre_arguments(const LefevreParams& p) { return static_cast<double>(validate(p).count); }

std::string lefevre_chunk_header(const LefevreParams& p) { return std::string(kBlockMagic) + fingerprint(p); }

LefevreResult lefevre_search(const LefevreParams& p) {
  Geometry g;
  g.s = validate(p);
  g.count = static_cast<int64_t>(g.s.count);
  g.N = int64_t{1} << p.log2_n;
  g.n_int = (g.count + g.N - 1) / g.N;
  // Blocks of intervals (a multiple of 32: warps never straddle two blocks).
  g.block = int64_t{1} << p.log2_block;
  g.n_blocks = (g.n_int + g.block - 1) / g.block;
  const Backend be = select_backend(p.backend);
  LefevreResult res;
  res.arguments = g.count;
  res.blocks = g.n_blocks;
  res.iters.nmdm_hist.assign(20, 0);
  // Blocks taken by the writer, kept per block so that the result is merged in block order; `live`
  // is the running merge (completion order) that on_phase reports.
  std::vector<bool> have(static_cast<std::size_t>(g.n_blocks), false);
  std::vector<LefevreBlock> blocks(static_cast<std::size_t>(g.n_blocks));
  LefevreResult live = res;
  double live_iter_sum = 0, live_nmdm_sum = 0;
  int64_t live_iter_count = 0;

  work::Job job;
  job.chunks = g.n_blocks;
  job.weight = [&g](int64_t bi) { return static_cast<double>(g.intervals(bi)); };
  job.chunk_file = p.chunk_file;
  job.header = lefevre_chunk_header(p);
  job.shard = p.placement.shard;
  job.workers = work::workers(be, p.placement.devices);
  // By default four workers per device: while one's phases run on the device the others compute
  // their blocks' polynomials and MPFR checks on the host (the binade [1, 2) on the H100: 4.48 ms a
  // block with two workers, 2.71 with four, 2.60 with eight; docs/bench/tmd.md).
  if (be == Backend::kCuda && p.placement.devices.empty()) {
    const std::size_t n = job.workers.size();
    for (int copy = 1; copy < kWorkersPerDevice; ++copy)
      for (std::size_t i = 0; i < n; ++i) job.workers.push_back(job.workers[i]);
  }
  job.cancel = p.cancel;
  job.progress = p.progress;
  job.compute = [&p, &g](int64_t bi, const work::Worker& w, const std::atomic<bool>& stop,
                         const std::function<void(double)>& part, std::string* payload) {
    LefevreBlock blk;
    if (!compute_block(p, g, bi, w.backend, stop, part, &blk)) return false;
    *payload = records::lefevre_text(blk);
    return true;
  };
  job.take = [&](int64_t bi, const std::string& payload, bool loaded) {
    if (bi < 0 || bi >= g.n_blocks || have[static_cast<std::size_t>(bi)])
      throw std::runtime_error("block " + std::to_string(bi) + " taken twice or out of range");
    LefevreBlock b;
    try {
      b = records::parse_lefevre(payload);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("block " + std::to_string(bi) + (loaded ? " of " + p.chunk_file : "") + ": " +
                               e.what());
    }
    merge(b, &live, &live_iter_sum, &live_nmdm_sum, &live_iter_count);
    if (!loaded) {
      add_seconds(b, &live);
      add_seconds(b, &res);
    }
    blocks[static_cast<std::size_t>(bi)] = std::move(b);
    have[static_cast<std::size_t>(bi)] = true;
    if (static_cast<int64_t>(live.cases.size()) > p.max_cases)
      throw std::runtime_error("more than " + std::to_string(p.max_cases) +
                               " cases: stopped (finished blocks are kept); raise k or the cap");
    if (p.on_phase) p.on_phase(3, live);
  };
  work::Stats st;
  try {
    st = work::run(job);
  } catch (...) {
    if (be == Backend::kCuda) pipeline::release_pool_memory();
    throw;
  }
  if (be == Backend::kCuda) pipeline::release_pool_memory();
  res.blocks_owned = st.owned;
  res.blocks_loaded = st.loaded;
  res.blocks_run = st.run;
  res.per_worker = st.per_worker;
  res.cancelled = st.cancelled;
  res.seconds = st.seconds;
  double iter_sum = 0, nmdm_sum = 0;
  int64_t iter_count = 0;
  for (int64_t bi = 0; bi < g.n_blocks; ++bi)
    if (have[static_cast<std::size_t>(bi)])
      merge(blocks[static_cast<std::size_t>(bi)], &res, &iter_sum, &nmdm_sum, &iter_count);
  std::sort(res.cases.begin(), res.cases.end(),
            [](const Case& a, const Case& b) { return a.index < b.index; });
  if (p.on_phase) p.on_phase(4, res);
  return res;
}

}  // namespace ds::tmd
