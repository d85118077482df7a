// The TMD workspace's Lefèvre and regular searches on the CPU: degree-2 Taylor coefficients per
// interval from MPFR, phase 1 and 2 lower-bound tests (tmd_lefevre.cuh), phase 3 tabulated
// differences, MPFR on every candidate, and the per-warp loop statistics (NMDM).
#include "tmd_lefevre.h"

#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "cpu_parallel.h"
#include "atomic_file.h"
#include "tmd_lefevre.cuh"
#include "tmd_lefevre_internal.h"

namespace ds::tmd {
namespace {

using Clock = std::chrono::steady_clock;
using namespace lefevre_detail;

// One block of intervals, as stored in the resume file.
struct Block {
  int64_t phase1 = 0, phase2 = 0, phase2_args = 0, phase3 = 0, phase3_args = 0, direct = 0, candidates = 0;
  int64_t iter_count = 0, warps = 0;
  double iter_sum = 0, nmdm_sum = 0;
  uint32_t iter_min = 0, iter_max = 0;
  std::vector<int64_t> hist = std::vector<int64_t>(20, 0);
  std::vector<Case> cases;

  void add_iters(const std::vector<uint32_t>& it) {
    if (it.empty()) return;
    iter_min = *std::min_element(it.begin(), it.end());
    iter_max = *std::max_element(it.begin(), it.end());
    for (uint32_t x : it) iter_sum += x;
    iter_count = static_cast<int64_t>(it.size());
    for (std::size_t w = 0; w < it.size(); w += 32) {
      const int n = static_cast<int>(std::min<std::size_t>(32, it.size() - w));
      const double m = nmdm(&it[w], n);
      nmdm_sum += m;
      ++warps;
      hist[std::min(19, static_cast<int>(m * 20))]++;
    }
  }
};

// Adds a block's counts to the result.
void merge(const Block& b, LefevreResult* r, double* iter_sum, double* nmdm_sum, int64_t* iter_count) {
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

constexpr const char* kBlockMagic = "deepscope-tmd-lefevre-blocks v1 ";

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

std::string block_text(int64_t id, const Block& b) {
  std::ostringstream o;
  o << "block " << id << " " << b.phase1 << " " << b.phase2 << " " << b.phase2_args << " " << b.phase3 << " "
    << b.phase3_args << " " << b.direct << " " << b.candidates << " " << b.iter_count << " " << b.warps << " "
    << b.iter_min << " " << b.iter_max;
  char buf[64];
  std::snprintf(buf, sizeof buf, " %.17g %.17g", b.iter_sum, b.nmdm_sum);
  o << buf;
  for (int64_t h : b.hist) o << " " << h;
  o << " " << b.cases.size() << "\n";
  for (const Case& c : b.cases) {
    std::snprintf(buf, sizeof buf, "%.17g", c.log2_dist);
    o << c.index << " " << c.x << " " << c.run << " " << (c.run_capped ? 1 : 0) << " " << buf << " "
      << (c.x_text.empty() ? "-" : c.x_text) << " " << c.fx << "\n";
  }
  o << "end " << id << "\n";
  return o.str();
}

// Loads the complete block records of `path` and rewrites it with exactly those.
std::vector<bool> load_blocks(const std::string& path, const std::string& fp, int64_t blocks,
                              std::vector<Block>* out) {
  std::vector<bool> have(static_cast<std::size_t>(blocks), false);
  out->assign(static_cast<std::size_t>(blocks), Block{});
  const std::string header = std::string(kBlockMagic) + fp;
  std::ifstream in(path);
  if (!in) {
    write_file_atomically(path, header + "\n");
    return have;
  }
  std::string line;
  if (!std::getline(in, line) || line != header)
    throw std::runtime_error("chunk file " + path + " belongs to a different search (its first line is \"" +
                             line.substr(0, 200) + "\"); remove it or choose another chunk file");
  std::string kept = header + "\n";
  while (std::getline(in, line)) {
    std::istringstream h(line);
    std::string tag;
    int64_t id = -1;
    std::size_t ncases = 0;
    Block b;
    h >> tag >> id >> b.phase1 >> b.phase2 >> b.phase2_args >> b.phase3 >> b.phase3_args >> b.direct >>
        b.candidates >> b.iter_count >> b.warps >> b.iter_min >> b.iter_max >> b.iter_sum >> b.nmdm_sum;
    for (int64_t& x : b.hist) h >> x;
    h >> ncases;
    if (!h || tag != "block" || id < 0 || id >= blocks) break;
    bool good = true;
    for (std::size_t i = 0; good && i < ncases; ++i) {
      Case c;
      int capped = 0;
      good = static_cast<bool>(std::getline(in, line));
      std::istringstream cl(line);
      good = good &&
             static_cast<bool>(cl >> c.index >> c.x >> c.run >> capped >> c.log2_dist >> c.x_text >> c.fx);
      c.run_capped = capped != 0;
      if (c.x_text == "-") c.x_text.clear();
      b.cases.push_back(c);
    }
    if (!good || !std::getline(in, line) || line != "end " + std::to_string(id)) break;
    if (!have[id]) {
      have[id] = true;
      kept += block_text(id, b);
      (*out)[id] = std::move(b);
    }
  }
  write_file_atomically(path, kept);
  return have;
}

// The block's intervals by the hierarchical method: packets of 2^log2_packet intervals from MPFR
// (on all cores), expanded by tabulated differences on the backend; packets whose results span two
// binades fall back to one MPFR polynomial per interval.
bool hierarchical_intervals(const LefevreParams& p, const Setup& s, Backend be, int64_t b0, int64_t N,
                            int64_t count, const ParallelOptions& opt, std::vector<Interval>* ivs) {
  const int64_t nb = static_cast<int64_t>(ivs->size()), P = int64_t{1} << p.log2_packet;
  const int64_t n_pk = (nb + P - 1) / P;
  // A packet whose remainder bound is above 2^-(k+4) ulp is halved, down to single intervals,
  // which then get their own MPFR polynomial (as do intervals whose results span two binades).
  const double rem_max = std::ldexp(1.0, -p.k - 4);
  std::vector<PacketData> packets_all;
  std::vector<int64_t> offsets_all;
  std::mutex mu;
  std::function<void(int64_t, int64_t, std::vector<PacketData>*, std::vector<int64_t>*)> build =
      [&](int64_t k0, int64_t n, std::vector<PacketData>* pk, std::vector<int64_t>* off) {
        if (n > 1) {
          PacketData d = make_packet(p, s, b0 + k0, n, N);
          if (!d.direct && d.rem <= rem_max) {
            pk->push_back(d);
            off->push_back(k0);
            return;
          }
          build(k0, n / 2, pk, off);
          build(k0 + n / 2, n - n / 2, pk, off);
          return;
        }
        const int64_t first = (b0 + k0) * N;
        (*ivs)[k0] = make_interval(p, s, first, std::min(N, count - first));
      };
  const bool ok = parallel_for(
      static_cast<std::size_t>(n_pk), 1,
      [&](std::size_t b, std::size_t e) {
        std::vector<PacketData> pk;
        std::vector<int64_t> off;
        for (std::size_t i = b; i < e; ++i) {
          const int64_t k0 = static_cast<int64_t>(i) * P;
          build(k0, std::min(P, nb - k0), &pk, &off);
        }
        std::lock_guard<std::mutex> lock(mu);
        packets_all.insert(packets_all.end(), pk.begin(), pk.end());
        offsets_all.insert(offsets_all.end(), off.begin(), off.end());
      },
      opt);
  if (!ok) return false;
  std::vector<lb::Packet> packets;
  for (const PacketData& d : packets_all) packets.push_back(d.packet);
  std::vector<lb::Frac> coef(static_cast<std::size_t>(3 * nb));
  if (!packets.empty()) {
    if (be == Backend::kCuda)
      detail::expand_packets_cuda(packets.data(), offsets_all.data(), static_cast<int64_t>(packets.size()),
                                  coef.data(), nb);
    else
      detail::expand_packets_cpu(packets.data(), offsets_all.data(), static_cast<int64_t>(packets.size()),
                                 coef.data());
  }
  for (std::size_t i = 0; i < packets_all.size(); ++i) {
    const PacketData& d = packets_all[i];
    for (int64_t k = offsets_all[i]; k < offsets_all[i] + d.packet.n; ++k) {
      Interval& iv = (*ivs)[k];
      iv.first = (b0 + k) * N;
      iv.n = std::min(N, count - iv.first);
      iv.direct = false;
      iv.y0 = coef[3 * k];
      iv.y1 = coef[3 * k + 1];
      iv.y2 = coef[3 * k + 2];
      iv.y2_lo = d.c2_lo;
      iv.y2_hi = d.c2_hi;
      iv.rem = d.rem;
    }
  }
  return true;
}

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
  double iter_sum = 0, nmdm_sum = 0;
  int64_t iter_count = 0;
  // Blocks of intervals (a multiple of 32: warps never straddle two blocks).
  const int64_t block = int64_t{1} << p.log2_block, n_blocks = (n_int + block - 1) / block;
  std::vector<Block> loaded;
  std::vector<bool> have(static_cast<std::size_t>(n_blocks), false);
  if (!p.chunk_file.empty()) have = load_blocks(p.chunk_file, fingerprint(p), n_blocks, &loaded);
  for (int64_t bi = 0; bi < n_blocks; ++bi) {
    const int64_t b0 = bi * block, nb = std::min(block, n_int - b0);
    if (have[bi]) {
      merge(loaded[bi], &res, &iter_sum, &nmdm_sum, &iter_count);
      ++res.blocks_loaded;
      continue;
    }
    if (p.cancel && p.cancel->load()) {
      res.cancelled = true;
      break;
    }
    Block blk;
    // Polynomials.
    auto t = Clock::now();
    std::vector<Interval> ivs(static_cast<std::size_t>(nb));
    bool ok;
    if (!p.hierarchical) {
      ok = parallel_for(
          ivs.size(), 64,
          [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) {
              const int64_t first = (b0 + static_cast<int64_t>(i)) * N;
              ivs[i] = make_interval(p, s, first, std::min(N, count - first));
            }
          },
          opt);
    } else {
      ok = hierarchical_intervals(p, s, be, b0, N, count, opt, &ivs);
    }
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
      if (iv.direct) blk.direct += iv.n;
      if (iv.direct || iv.n == 0) continue;
      tests.push_back(make_test(p, iv.y0, iv.y1, iv.y2_lo, iv.y2_hi,
                                (iv.rem + eps + slack * iv.n) * (1 + 0x1p-40), iv.n));
      tested.push_back(static_cast<int64_t>(i));
    }
    std::vector<uint8_t> ok1;
    std::vector<uint32_t> iters;
    run_tests(p, be, tests, &ok1, &iters);
    std::vector<int64_t> p2;  // compaction: the failing intervals
    blk.phase1 = static_cast<int64_t>(tests.size());
    for (std::size_t j = 0; j < tests.size(); ++j)
      if (!ok1[j]) {
        p2.push_back(tested[j]);
        blk.phase2_args += ivs[tested[j]].n;
      }
    blk.add_iters(iters);
    res.seconds_phase1 += since(t);
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
    blk.phase2 = static_cast<int64_t>(subs.size());
    tests.clear();
    for (const Sub& sb : subs) {
      const Interval& iv = ivs[sb.iv];
      tests.push_back(make_test(p, sb.c0, sb.c1, iv.y2_lo, iv.y2_hi,
                                (iv.rem + eps + slack * iv.n) * (1 + 0x1p-40), sb.n));
    }
    std::vector<uint8_t> ok2;
    std::vector<uint32_t> iters2;
    run_tests(p, be, tests, &ok2, &iters2);
    res.seconds_phase2 += since(t);
    // Phase 3: tabulated differences on the failing sub-intervals.
    t = Clock::now();
    std::vector<lb::Scan> scans;
    std::vector<int64_t> cand;  // argument indices (relative to s.i0)
    for (std::size_t j = 0; j < subs.size(); ++j) {
      if (ok2[j]) continue;
      const Sub& sb = subs[j];
      const Interval& iv = ivs[sb.iv];
      ++blk.phase3;
      blk.phase3_args += sb.n;
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
    // MPFR on the block's candidates.
    if (static_cast<int64_t>(cand.size()) > p.max_cases)
      throw std::runtime_error("more than " + std::to_string(p.max_cases) +
                               " candidates in one block: stopped (" + std::to_string(res.blocks_run) +
                               " finished blocks kept); raise k or narrow the range");
    std::sort(cand.begin(), cand.end());
    t = Clock::now();
    blk.candidates = static_cast<int64_t>(cand.size());
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
      blk.cases.push_back(std::move(c));
    }
    res.seconds_mpfr += since(t);
    if (!p.chunk_file.empty()) append_durable(p.chunk_file, block_text(bi, blk));
    merge(blk, &res, &iter_sum, &nmdm_sum, &iter_count);
    if (static_cast<int64_t>(res.cases.size()) > p.max_cases)
      throw std::runtime_error("more than " + std::to_string(p.max_cases) +
                               " cases: stopped (finished blocks are kept); raise k or the cap");
    ++res.blocks_run;
    if (p.on_phase) p.on_phase(3, res);
    if (p.progress) p.progress(static_cast<double>(b0 + nb) / static_cast<double>(n_int));
  }
  std::sort(res.cases.begin(), res.cases.end(),
            [](const Case& a, const Case& b) { return a.index < b.index; });
  res.blocks = n_blocks;
  if (p.on_phase) p.on_phase(4, res);
  if (p.progress) p.progress(1.0);
  return res;
}

}  // namespace ds::tmd
