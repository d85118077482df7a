// The TMD workspace's exhaustive search: validation, the output-size estimate, the chunk loop (CPU
// or CUDA filter, then MPFR on every candidate), the resume file and the CSV/JSON outputs.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cpu_parallel.h"
#include "tmd.cuh"
#include "tmd.h"
#include "atomic_file.h"

namespace ds::tmd {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kDefaultChunk = int64_t{1} << 24;
constexpr const char* kChunkMagic = "deepscope-tmd-chunks v1 ";

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

struct ChunkRecord {
  int64_t evaluated = 0, candidates = 0, exact = 0;
  std::vector<Case> cases;
};

std::string record_text(int64_t c, const ChunkRecord& r) {
  std::ostringstream o;
  o << "chunk " << c << " " << r.evaluated << " " << r.candidates << " " << r.exact << " " << r.cases.size()
    << "\n";
  char buf[64];
  for (const Case& k : r.cases) {
    std::snprintf(buf, sizeof buf, "%.17g", k.log2_dist);
    o << hex32(k.x) << " " << k.run << " " << (k.run_capped ? 1 : 0) << " " << buf << " " << k.fx << "\n";
  }
  o << "end " << c << "\n";
  return o.str();
}


// Loads the complete chunk records of `path` and rewrites it with exactly those (a record cut short
// by a crash is dropped). A file of a different search is refused.
std::vector<ChunkRecord> load_chunks(const std::string& path, const std::string& fp, int64_t chunks,
                                     std::vector<bool>* have) {
  std::vector<ChunkRecord> recs(static_cast<std::size_t>(chunks));
  have->assign(static_cast<std::size_t>(chunks), false);
  const std::string header = std::string(kChunkMagic) + fp;
  std::ifstream in(path);
  if (!in) {
    write_file_atomically(path, header + "\n");
    return recs;
  }
  std::string line;
  if (!std::getline(in, line) || line != header)
    throw std::runtime_error("chunk file " + path + " belongs to a different search (its first line is \"" +
                             line.substr(0, 200) + "\"); remove it or choose another chunk file");
  std::string kept = header + "\n";
  while (std::getline(in, line)) {
    std::istringstream h(line);
    std::string tag;
    int64_t c = -1, ncases = 0;
    ChunkRecord r;
    if (!(h >> tag >> c >> r.evaluated >> r.candidates >> r.exact >> ncases) || tag != "chunk") break;
    bool good = c >= 0 && c < chunks && ncases >= 0;
    for (int64_t i = 0; good && i < ncases; ++i) {
      if (!std::getline(in, line)) {
        good = false;
        break;
      }
      std::istringstream cl(line);
      std::string xs;
      Case k;
      int capped = 0;
      good = static_cast<bool>(cl >> xs >> k.run >> capped >> k.log2_dist >> k.fx);
      if (good) {
        k.x = static_cast<uint32_t>(std::stoul(xs, nullptr, 16));
        k.run_capped = capped != 0;
        r.cases.push_back(k);
      }
    }
    if (!good || !std::getline(in, line) || line != "end " + std::to_string(c)) break;
    if (!(*have)[c]) {
      (*have)[c] = true;
      kept += record_text(c, r);
      recs[c] = std::move(r);
    }
  }
  write_file_atomically(path, kept);
  return recs;
}

// Runs the filter for bit patterns [first, first + n), growing the buffer when it overflowed.
std::vector<uint32_t> run_filter(const ExhaustiveParams& p, Backend be, uint64_t first, int64_t n,
                                 int64_t* evaluated, bool* cancelled) {
  int64_t cap = std::min<int64_t>(n, 1 << 16);
  for (;;) {
    std::vector<uint32_t> out(static_cast<std::size_t>(std::max<int64_t>(cap, 1)));
    int64_t count;
    *cancelled = false;
    if (be == Backend::kCuda)
      count = detail::filter_cuda(p.func, p.mode, p.precision, p.k, first, n, out.data(), cap, evaluated);
    else
      count = detail::filter_cpu(p.func, p.mode, p.precision, p.k, first, n, out.data(), cap, evaluated,
                                 p.cancel, cancelled);
    if (*cancelled) return {};
    if (count <= cap) {
      out.resize(static_cast<std::size_t>(count));
      std::sort(out.begin(), out.end());
      return out;
    }
    if (count > p.max_cases)
      throw std::runtime_error("more than " + std::to_string(p.max_cases) + " candidates in the chunk from " +
                               hex32(static_cast<uint32_t>(first)) +
                               ": raise k, narrow the range or raise the cap");
    cap = count;
  }
}

ChunkRecord confirm(const ExhaustiveParams& p, const std::vector<uint32_t>& cand) {
  std::vector<Verdict> v(cand.size());
  parallel_for(cand.size(), 64, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) v[i] = mpfr_verdict(p.func, p.mode, p.precision, p.k, cand[i]);
  });
  ChunkRecord r;
  r.candidates = static_cast<int64_t>(cand.size());
  for (std::size_t i = 0; i < cand.size(); ++i) {
    if (v[i].exact) ++r.exact;
    if (!v[i].within) continue;
    Case k;
    k.x = cand[i];
    k.run = v[i].run;
    k.run_capped = v[i].run_capped;
    k.log2_dist = v[i].log2_dist;
    k.fx = v[i].fx;
    r.cases.push_back(std::move(k));
  }
  return r;
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
  const int64_t chunk = est.chunk_inputs;
  std::vector<bool> have(static_cast<std::size_t>(res.chunks), false);
  std::vector<ChunkRecord> recs(static_cast<std::size_t>(res.chunks));
  if (!p.chunk_file.empty()) recs = load_chunks(p.chunk_file, fingerprint(p), res.chunks, &have);
  int64_t done_inputs = 0, total_cases = 0, total_candidates = 0;
  for (int64_t c = 0; c < res.chunks; ++c)
    if (have[c]) {
      ++res.chunks_loaded;
      done_inputs += std::min(chunk, res.inputs - c * chunk);
      total_cases += static_cast<int64_t>(recs[c].cases.size());
      total_candidates += recs[c].candidates;
    }
  if (p.on_counts) p.on_counts(total_candidates, total_cases);
  if (p.progress) p.progress(static_cast<double>(done_inputs) / static_cast<double>(res.inputs));
  const auto t0 = Clock::now();
  for (int64_t c = 0; c < res.chunks; ++c) {
    if (have[c]) continue;
    if (p.cancel && p.cancel->load()) {
      res.cancelled = true;
      break;
    }
    const uint64_t first = static_cast<uint64_t>(p.lo) + static_cast<uint64_t>(c * chunk);
    const int64_t n = std::min(chunk, res.inputs - c * chunk);
    int64_t evaluated = 0;
    bool cancelled = false;
    const auto te = Clock::now();
    const std::vector<uint32_t> cand = run_filter(p, res.backend, first, n, &evaluated, &cancelled);
    res.eval_seconds += std::chrono::duration<double>(Clock::now() - te).count();
    if (cancelled) {
      res.cancelled = true;
      break;
    }
    const auto tm = Clock::now();
    ChunkRecord r = confirm(p, cand);
    res.mpfr_seconds += std::chrono::duration<double>(Clock::now() - tm).count();
    r.evaluated = evaluated;
    total_cases += static_cast<int64_t>(r.cases.size());
    if (total_cases > p.max_cases)
      throw std::runtime_error("more than " + std::to_string(p.max_cases) +
                               " cases: stopped (finished chunks are kept); raise k or the cap");
    if (!p.chunk_file.empty()) append_durable(p.chunk_file, record_text(c, r));
    recs[c] = std::move(r);
    have[c] = true;
    ++res.chunks_run;
    done_inputs += n;
    if (p.progress) p.progress(static_cast<double>(done_inputs) / static_cast<double>(res.inputs));
    total_candidates += static_cast<int64_t>(cand.size());
    if (p.on_chunk) p.on_chunk(c, res.chunks);
    if (p.on_counts) p.on_counts(total_candidates, total_cases);
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (int64_t c = 0; c < res.chunks; ++c) {
    if (!have[c]) continue;
    res.evaluated += recs[c].evaluated;
    res.candidates += recs[c].candidates;
    res.exact += recs[c].exact;
    for (Case& k : recs[c].cases) res.cases.push_back(std::move(k));
  }
  std::sort(res.cases.begin(), res.cases.end(), [](const Case& a, const Case& b) { return a.x < b.x; });
  return res;
}

std::vector<Case> hardest(const std::vector<Case>& cases, std::size_t n) {
  std::vector<Case> h = cases;
  std::sort(h.begin(), h.end(), [](const Case& a, const Case& b) {
    if (a.run != b.run) return a.run > b.run;
    if (a.log2_dist != b.log2_dist) return a.log2_dist > b.log2_dist;
    return a.x < b.x;
  });
  if (h.size() > n) h.resize(n);
  return h;
}

}  // namespace ds::tmd
