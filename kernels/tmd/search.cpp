// The TMD workspace's exhaustive search: validation, the output-size estimate, and the search as a
// ds::work job: each chunk is filtered (CPU or CUDA) and its candidates decided by MPFR on the
// worker that took it; the writer gathers the chunks' records.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "kernels/core/cpu_parallel.h"
#include "tmd.cuh"
#include "tmd.h"
#include "records.h"

namespace ds::tmd {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kDefaultChunk = int64_t{1} << 24;
constexpr const char* kChunkMagic = "deepscope-tmd-chunks v2 ";  // v2: ds::work records

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

int64_t resolve_chunk(const ExhaustiveParams& p) {
  return p.chunk_inputs > 0 ? p.chunk_inputs : kDefaultChunk;
}

void validate(const ExhaustiveParams& p) {
  if (p.precision < kMinPrecision || p.precision > kMaxPrecision)
    throw std::invalid_argument("unsupported precision " + std::to_string(p.precision) +
                                " (the exhaustive search takes " + std::to_string(kMinPrecision) + " to " +
                                std::to_string(kMaxPrecision) + " bits)");
  if (p.k < kMinK || p.k > kMaxK)
    throw std::invalid_argument("k must be in [" + std::to_string(kMinK) + ", " + std::to_string(kMaxK) +
                                "], got " + std::to_string(p.k));
  if (p.lo > p.hi)
    throw std::invalid_argument("empty or reversed range " + hex32(p.lo) + ":" + hex32(p.hi) +
                                " (bit patterns, the first must not exceed the second)");
  if (p.chunk_inputs < 0 || p.chunk_inputs > (int64_t{1} << 30))
    throw std::invalid_argument("chunk size must be in [1, 2^30] (0: default)");
  if (p.max_cases < 1 || p.max_cases > kMaxMaxCases)
    throw std::invalid_argument("max cases must be in [1, " + std::to_string(kMaxMaxCases) + "]");
}

std::string fingerprint(const ExhaustiveParams& p) {
  std::ostringstream o;
  o << "func=" << func_name(p.func) << " mode=" << mode_name(p.mode) << " p=" << p.precision << " k=" << p.k
    << " lo=" << hex32(p.lo) << " hi=" << hex32(p.hi) << " chunk=" << resolve_chunk(p);
  return o.str();
}

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Runs the filter for bit patterns [first, first + n) on backend `be` (on the calling thread's
// CUDA device), growing the buffer when it overflowed. Returns false when `stop` ended it.
bool run_filter(const ExhaustiveParams& p, Backend be, uint64_t first, int64_t n,
                const std::atomic<bool>& stop, int64_t* evaluated, std::vector<uint32_t>* cand) {
  int64_t cap = std::min<int64_t>(n, 1 << 16);
  for (;;) {
    std::vector<uint32_t> out(static_cast<std::size_t>(std::max<int64_t>(cap, 1)));
    int64_t count;
    bool cancelled = false;
    if (be == Backend::kCuda)
      count = detail::filter_cuda(p.func, p.mode, p.precision, p.k, first, n, out.data(), cap, evaluated);
    else
      count = detail::filter_cpu(p.func, p.mode, p.precision, p.k, first, n, out.data(), cap, evaluated,
                                 &stop, &cancelled);
    if (cancelled) return false;
    if (count <= cap) {
      out.resize(static_cast<std::size_t>(count));
      std::sort(out.begin(), out.end());
      *cand = std::move(out);
      return true;
    }
    if (count > p.max_cases)
      throw std::runtime_error("more than " + std::to_string(p.max_cases) + " candidates in the chunk from " +
                               hex32(static_cast<uint32_t>(first)) +
                               ": raise k, narrow the range or raise the cap");
    cap = count;
  }
}

// MPFR's verdict on every candidate (sorted), on all cores; false when `stop` ended it.
bool confirm(const ExhaustiveParams& p, const std::vector<uint32_t>& cand, const std::atomic<bool>& stop,
             const std::function<void(double)>& part, records::ExhaustiveChunk* r) {
  std::vector<Verdict> v(cand.size());
  ParallelOptions opt;
  opt.cancel = &stop;
  opt.progress = [&part](double f) { part(0.5 + 0.5 * f); };
  const bool complete = parallel_for(
      cand.size(), 64,
      [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) v[i] = mpfr_verdict(p.func, p.mode, p.precision, p.k, cand[i]);
      },
      opt);
  if (!complete) return false;
  r->candidates = static_cast<int64_t>(cand.size());
  for (std::size_t i = 0; i < cand.size(); ++i) {
    if (v[i].exact) ++r->exact;
    if (!v[i].within) continue;
    Case k;
    k.x = cand[i];
    k.run = v[i].run;
    k.run_capped = v[i].run_capped;
    k.log2_dist = v[i].log2_dist;
    k.fx = v[i].fx;
    r->cases.push_back(std::move(k));
  }
  return true;
}

}  // namespace

ExhaustiveEstimate estimate_exhaustive(const ExhaustiveParams& p) {
  validate(p);
  ExhaustiveEstimate e;
  e.inputs = static_cast<int64_t>(p.hi) - static_cast<int64_t>(p.lo) + 1;
  e.chunk_inputs = std::min(e.inputs, resolve_chunk(p));
  e.chunks = (e.inputs + e.chunk_inputs - 1) / e.chunk_inputs;
  const int64_t S = std::min<int64_t>(e.inputs, 1 << 16);
  const double thr = dev::candidate_threshold(p.precision, p.k);
  std::atomic<int64_t> evals{0}, hits{0};
  parallel_for(static_cast<std::size_t>(S), 1024, [&](std::size_t b, std::size_t en) {
    int64_t le = 0, lh = 0;
    for (std::size_t i = b; i < en; ++i) {
      // Evenly spread: sample i at lo + floor(i * inputs / S).
      const uint64_t off = static_cast<uint64_t>((static_cast<long double>(i) * e.inputs) / S);
      const dev::Eval ev = dev::evaluate(p.func, p.mode, p.precision, static_cast<uint32_t>(p.lo + off));
      if (ev.status != dev::kEvalSkip) ++le;
      if (dev::is_candidate(ev, thr)) ++lh;
    }
    evals += le;
    hits += lh;
  });
  e.sampled_fraction = static_cast<double>(hits.load()) / static_cast<double>(S);
  const double eval_share = static_cast<double>(evals.load()) / static_cast<double>(S);
  if (S == e.inputs)
    e.expected_cases = static_cast<double>(hits.load());
  else
    e.expected_cases =
        static_cast<double>(e.inputs) * (eval_share * std::ldexp(1.0, 1 - p.k) + e.sampled_fraction);
  return e;
}

std::string exhaustive_chunk_header(const ExhaustiveParams& p) { return std::string(kChunkMagic) + fingerprint(p); }

ExhaustiveResult exhaustive(const ExhaustiveParams& p) {
  const ExhaustiveEstimate est = estimate_exhaustive(p);
  if (est.expected_cases > static_cast<double>(p.max_cases)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", est.expected_cases);
    throw std::invalid_argument(
        std::string("about ") + buf + " cases expected for k = " + std::to_string(p.k) + " over " +
        std::to_string(est.inputs) + " arguments, more than the cap of " + std::to_string(p.max_cases) +
        ": raise k, narrow the range (arguments near 0 make most results hard to round in "
        "directed modes) or raise the cap");
  }
  ExhaustiveResult res;
  res.backend = select_backend(p.backend);
  res.inputs = est.inputs;
  res.chunks = est.chunks;
  const int64_t chunk = est.chunk_inputs, inputs = est.inputs;
  auto chunk_size = [=](int64_t c) { return std::min(chunk, inputs - c * chunk); };
  // Chunks taken by the writer, kept per chunk so that the totals are summed in chunk order.
  std::vector<bool> have(static_cast<std::size_t>(res.chunks), false);
  std::vector<records::ExhaustiveChunk> recs(static_cast<std::size_t>(res.chunks));
  int64_t live_cases = 0, live_candidates = 0;

  work::Job job;
  job.chunks = res.chunks;
  job.weight = [=](int64_t c) { return static_cast<double>(chunk_size(c)); };
  job.chunk_file = p.chunk_file;
  job.header = exhaustive_chunk_header(p);
  job.shard = p.placement.shard;
  job.workers = work::workers(res.backend, p.placement.devices);
  job.cancel = p.cancel;
  job.progress = p.progress;
  job.compute = [&p, chunk, chunk_size](int64_t c, const work::Worker& w, const std::atomic<bool>& stop,
                                        const std::function<void(double)>& part, std::string* payload) {
    const uint64_t first = static_cast<uint64_t>(p.lo) + static_cast<uint64_t>(c * chunk);
    records::ExhaustiveChunk r;
    std::vector<uint32_t> cand;
    const auto te = Clock::now();
    if (!run_filter(p, w.backend, first, chunk_size(c), stop, &r.evaluated, &cand)) return false;
    r.eval_seconds = since(te);
    if (stop.load()) return false;
    part(0.5);
    const auto tm = Clock::now();
    if (!confirm(p, cand, stop, part, &r)) return false;
    r.mpfr_seconds = since(tm);
    *payload = records::exhaustive_text(r);
    return true;
  };
  job.take = [&](int64_t c, const std::string& payload, bool loaded) {
    if (c < 0 || c >= res.chunks || have[static_cast<std::size_t>(c)])
      throw std::runtime_error("chunk " + std::to_string(c) + " taken twice or out of range");
    records::ExhaustiveChunk r;
    try {
      r = records::parse_exhaustive(payload);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("chunk " + std::to_string(c) + (loaded ? " of " + p.chunk_file : "") + ": " +
                               e.what());
    }
    live_cases += static_cast<int64_t>(r.cases.size());
    live_candidates += r.candidates;
    if (!loaded) {
      res.eval_seconds += r.eval_seconds;
      res.mpfr_seconds += r.mpfr_seconds;
    }
    recs[static_cast<std::size_t>(c)] = std::move(r);
    have[static_cast<std::size_t>(c)] = true;
    if (live_cases > p.max_cases)
      throw std::runtime_error("more than " + std::to_string(p.max_cases) +
                               " cases: stopped (finished chunks are kept); raise k or the cap");
    if (!loaded && p.on_chunk) p.on_chunk(c, res.chunks);
    if (p.on_counts) p.on_counts(live_candidates, live_cases);
  };
  const work::Stats st = work::run(job);
  res.chunks_owned = st.owned;
  res.chunks_loaded = st.loaded;
  res.chunks_run = st.run;
  res.per_worker = st.per_worker;
  res.cancelled = st.cancelled;
  res.seconds = st.seconds;
  for (int64_t c = 0; c < res.chunks; ++c) {
    if (!have[static_cast<std::size_t>(c)]) continue;
    records::ExhaustiveChunk& r = recs[static_cast<std::size_t>(c)];
    res.evaluated += r.evaluated;
    res.candidates += r.candidates;
    res.exact += r.exact;
    for (Case& k : r.cases) res.cases.push_back(std::move(k));
  }
  // Each chunk's cases are sorted and the chunks are in order, but a damaged file could say otherwise.
  std::sort(res.cases.begin(), res.cases.end(), [](const Case& a, const Case& b) { return a.x < b.x; });
  return res;
}

std::vector<Case> hardest(const std::vector<Case>& cases, std::size_t n) {
  // The n first by (run, distance) descending, then argument, over pointers: a search of 4e6 cases
  // copied and sorted every case (their strings included) for the JSON's ten.
  std::vector<const Case*> order(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) order[i] = &cases[i];
  const auto harder = [](const Case* a, const Case* b) {
    if (a->run != b->run) return a->run > b->run;
    if (a->log2_dist != b->log2_dist) return a->log2_dist > b->log2_dist;
    if (a->x != b->x) return a->x < b->x;
    return a->index < b->index;  // Lefèvre searches: x is 0, the argument's index orders them
  };
  const std::size_t k = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), harder);
  std::vector<Case> h;
  h.reserve(k);
  for (std::size_t i = 0; i < k; ++i) h.push_back(*order[i]);
  return h;
}

}  // namespace ds::tmd
