// The TMD workspace's device-resident block pipeline (kernels/tmd/lefevre_pipeline.h): the packet
// expansion split by the straightforward shift gives the bits of the sequential tabulated
// differences; the searches reproduce the phase counts, loop statistics and cases of the previous
// implementation (host-built tests, host compaction; its chunk-file records, taken at 0eaa845 with
// the commands below, are the reference); the CUDA pipeline returns what the CPU one returns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/tmd/tmd.h"
#include "kernels/tmd/lefevre.cuh"
#include "kernels/tmd/lefevre.h"
#include "kernels/tmd/lefevre_pipeline.h"
#include "oracle.h"

namespace {

using namespace ds::tmd;

lb::Packet random_packet(std::mt19937_64& rng, int64_t n) {
  lb::Packet pk;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i <= lb::kPacketDegree; ++i) {
      lb::Wide& w = pk.d[j][i];
      w.neg = 0;
      w.w[0] = 0;
      for (int k = 1; k < lb::Wide::kWords; ++k) w.w[k] = static_cast<uint32_t>(rng());
      if (i > lb::kPacketDegree - j) {
        for (auto& x : w.w) x = 0;
      }
    }
  pk.n = n;
  return pk;
}

bool same(const lb::Frac& a, const lb::Frac& b) {
  return std::memcmp(a.w, b.w, sizeof a.w) == 0 && a.neg == b.neg;
}

// Any start k0 reached by the straightforward shift gives the bits that k0 steps of tabulated
// differences give (both exact mod 1), so the split of a packet into work items changes nothing.
TEST(TmdPipeline, PacketSplitGivesTheSequentialBits) {
  auto rng = ds::test::seeded_rng("TmdPipeline.split");
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t n = trial < 3 ? 300 : 5000;
    const lb::Packet pk = random_packet(rng, n);
    std::vector<lb::Frac> seq(static_cast<std::size_t>(3 * n));
    lb::expand_packet(pk, seq.data());
    for (int64_t k0 : {int64_t{1}, int64_t{63}, int64_t{64}, n / 3, n - 7}) {
      std::vector<lb::Frac> part(static_cast<std::size_t>(3 * (n - k0)));
      lb::expand_packet_range(pk, k0, n - k0, part.data());
      for (int64_t k = k0; k < n; ++k)
        for (int j = 0; j < 3; ++j)
          ASSERT_TRUE(same(part[static_cast<std::size_t>(3 * (k - k0) + j)],
                           seq[static_cast<std::size_t>(3 * k + j)]))
              << "trial " << trial << " k0 " << k0 << " k " << k << " j " << j;
    }
  }
  // Binomials as words: C(2^20 - 1, 6) against the product formula in exact 128-bit steps.
  uint32_t c[5];
  lb::binom_words(20, 6, c);
  EXPECT_EQ(c[0], 38760u);
  EXPECT_EQ(c[1] | c[2] | c[3] | c[4], 0u);
  lb::binom_words((uint64_t{1} << 20) - 1, 6, c);
  unsigned __int128 ref = 1;
  const uint64_t m = (uint64_t{1} << 20) - 1;
  for (uint64_t i = 0; i < 6; ++i) ref = ref * (m - i) / (i + 1);
  const unsigned __int128 got = (static_cast<unsigned __int128>(c[3]) << 96) |
                                (static_cast<unsigned __int128>(c[2]) << 64) |
                                (static_cast<unsigned __int128>(c[1]) << 32) | c[0];
  EXPECT_TRUE(got == ref);
  EXPECT_EQ(c[4], 0u);
}

// The saturating point count without a division makes the decisions of the division form.
// Phase 1's i-th tested interval, from the sorted list of those left out, against a walk over the
// block: empty lists, runs of neighbours, the first and last intervals, random sets.
TEST(TmdPipeline, TestedIntervalSkipsTheExcludedOnes) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t nb = 1 + static_cast<int64_t>(rng() % 300);
    std::vector<int64_t> ex;
    const int mode = trial % 4;
    for (int64_t k = 0; k < nb; ++k) {
      const bool out = mode == 0   ? false
                       : mode == 1 ? (k == 0 || k == nb - 1)
                       : mode == 2 ? (k >= nb / 3 && k < nb / 3 + 5)
                                   : rng() % 4 == 0;
      if (out) ex.push_back(k);
    }
    std::vector<int64_t> walk;
    for (int64_t k = 0, m = 0; k < nb; ++k) {
      if (m < static_cast<int64_t>(ex.size()) && ex[static_cast<std::size_t>(m)] == k) {
        ++m;
        continue;
      }
      walk.push_back(k);
    }
    for (std::size_t i = 0; i < walk.size(); ++i)
      ASSERT_EQ(lb::tested_interval(ex.data(), static_cast<int64_t>(ex.size()), static_cast<int64_t>(i)),
                walk[i])
          << "trial " << trial << " i " << i;
  }
}

TEST(TmdPipeline, SaturatingCountAgreesWithTheDivisionForm) {
  constexpr uint64_t kCap = uint64_t{1} << 62;
  auto reference = [](uint64_t u, uint64_t k, uint64_t v) {
    if (v != 0 && k > (kCap - u) / v) return kCap;
    return u + k * v;
  };
  auto rng = ds::test::seeded_rng("TmdPipeline.sat");
  const uint64_t edges[] = {
      0,           1, 2, 3, kCap - 1, kCap, uint64_t{1} << 31, uint64_t{1} << 32, (uint64_t{1} << 32) + 1,
      ~uint64_t{0}};
  for (int trial = 0; trial < 200000; ++trial) {
    const int shift_k = static_cast<int>(rng() % 64), shift_v = static_cast<int>(rng() % 64);
    uint64_t u = (rng() >> 1) % (kCap + 1), k = rng() >> shift_k, v = rng() >> shift_v;
    if (trial % 7 == 0) k = edges[rng() % 10];
    if (trial % 11 == 0) v = edges[rng() % 10];
    if (trial % 13 == 0) u = edges[rng() % 6];
    ASSERT_EQ(lb::sat_mul_add(u, k, v), reference(u, k, v)) << u << " " << k << " " << v;
  }
}

// One block's record of the previous implementation (chunk-file counts line, timings left out).
struct Golden {
  const char* what;
  Search search;
  Func f;
  Mode m;
  int p, k, log2_n;
  bool hierarchical;
  uint32_t lo, hi;          // bit-pattern range, or
  const char *x_lo, *x_hi;  // a real range
  int64_t phase1, phase2, phase2_args, phase3, phase3_args, direct, candidates, iter_count, warps;
  uint32_t iter_min, iter_max;
  double iter_sum, nmdm_sum;
  int64_t hist[20];
  std::size_t cases;
};

// deepscope tmd lefevre|regular --func exp --mode nearest --precision 24 --k 16 --range 0x3f800000:0x3fffffff
// deepscope tmd lefevre|regular --func exp --mode directed --precision 54 --k 24 --x-lo 1 --x-hi
// 0x1.0000004p+0
//   --log2n 10
// deepscope tmd lefevre|regular --func log2 --mode nearest --precision 22 --k 12 --range
// 0x40400000:0x4079999a
//   --log2n 5 --poly taylor
// (all --backend cpu, at 0eaa845: the host built the tests and compacted between the phases).
const Golden kGolden[] = {
    {"exp p24 nearest",
     Search::kLefevre,
     Func::kExp,
     Mode::kNearest,
     24,
     16,
     6,
     true,
     0x3f800000u,
     0x3fffffffu,
     nullptr,
     nullptr,
     131071,
     30688,
     245504,
     314,
     2512,
     64,
     293,
     131071,
     4096,
     0,
     63,
     1373284,
     1249.0297467428059,
     {23, 53, 91, 267, 504, 947, 1041, 654, 349, 145, 20, 2, 0, 0, 0, 0, 0, 0, 0, 0},
     229},
    {"exp p24 nearest",
     Search::kRegular,
     Func::kExp,
     Mode::kNearest,
     24,
     16,
     6,
     true,
     0x3f800000u,
     0x3fffffffu,
     nullptr,
     nullptr,
     131071,
     110768,
     886144,
     1749,
     13992,
     64,
     293,
     131071,
     4096,
     0,
     5,
     320725,
     102.57135416666671,
     {3586, 93, 98, 92, 78, 82, 42, 9, 5, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     229},
    {"exp p54 directed",
     Search::kLefevre,
     Func::kExp,
     Mode::kDirected,
     54,
     24,
     10,
     true,
     0,
     0,
     "1",
     "0x1.0000004p+0",
     131072,
     96,
     12288,
     11,
     1408,
     0,
     10,
     131072,
     4096,
     4,
     16,
     1446883,
     967.59565590659452,
     {0, 0, 27, 473, 2066, 1327, 203, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     10},
    {"exp p54 directed",
     Search::kRegular,
     Func::kExp,
     Mode::kDirected,
     54,
     24,
     10,
     true,
     0,
     0,
     "1",
     "0x1.0000004p+0",
     131072,
     184,
     23552,
     17,
     2176,
     0,
     10,
     131072,
     4096,
     5,
     5,
     655360,
     0,
     {4096, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     10},
    {"log2 p22 taylor",
     Search::kLefevre,
     Func::kLog2,
     Mode::kNearest,
     22,
     12,
     5,
     false,
     0x40400000u,
     0x4079999au,
     nullptr,
     nullptr,
     29492,
     5416,
     21664,
     448,
     1792,
     0,
     446,
     29492,
     922,
     0,
     27,
     221334,
     300.82099791183668,
     {4, 8, 9, 39, 69, 166, 272, 211, 104, 36, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0},
     446},
    {"log2 p22 taylor",
     Search::kRegular,
     Func::kLog2,
     Mode::kNearest,
     22,
     12,
     5,
     false,
     0x40400000u,
     0x4079999au,
     nullptr,
     nullptr,
     29492,
     20032,
     80128,
     893,
     3572,
     0,
     446,
     29492,
     922,
     0,
     3,
     50342,
     7.7229166666666673,
     {895, 3, 3, 2, 3, 6, 2, 3, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     446},
};

LefevreParams params_of(const Golden& g) {
  LefevreParams p;
  p.search = g.search;
  p.func = g.f;
  p.mode = g.m;
  p.precision = g.p;
  p.k = g.k;
  p.log2_n = g.log2_n;
  p.hierarchical = g.hierarchical;
  if (g.x_lo) {
    p.x_lo = g.x_lo;
    p.x_hi = g.x_hi;
  } else {
    p.lo = g.lo;
    p.hi = g.hi;
  }
  return p;
}

void expect_golden(const Golden& g, const LefevreResult& r) {
  SCOPED_TRACE(std::string(g.what) + " " + search_name(g.search));
  EXPECT_EQ(r.phase1, g.phase1);
  EXPECT_EQ(r.phase2, g.phase2);
  EXPECT_EQ(r.phase2_args, g.phase2_args);
  EXPECT_EQ(r.phase3, g.phase3);
  EXPECT_EQ(r.phase3_args, g.phase3_args);
  EXPECT_EQ(r.direct_args, g.direct);
  EXPECT_EQ(r.candidates, g.candidates);
  EXPECT_EQ(r.iters.warps, g.warps);
  EXPECT_EQ(r.iters.min, g.iter_min);
  EXPECT_EQ(r.iters.max, g.iter_max);
  // The result's means are these sums over one block divided as lefevre_search divides them.
  EXPECT_EQ(r.iters.mean, g.iter_sum / static_cast<double>(g.iter_count));
  // The warps' NMDM are summed in fixed point (lb::kNmdmBits fraction bits, so that every order of
  // folding gives the same bits): the mean is within 2^-41 of the exact values' mean.
  EXPECT_NEAR(r.iters.mean_nmdm, g.nmdm_sum / static_cast<double>(g.warps), 0x1p-40);
  EXPECT_EQ(r.iters.nmdm_hist, std::vector<int64_t>(g.hist, g.hist + 20));
  EXPECT_EQ(r.cases.size(), g.cases);
}

TEST(TmdPipeline, ReproducesThePreviousImplementation) {
  for (const Golden& g : kGolden) {
    const LefevreParams p = params_of(g);
    const LefevreResult r = lefevre_search(p);
    ASSERT_EQ(r.blocks, 1);
    expect_golden(g, r);
  }
}

// The packet size and block size change where the work is split, not the tests: with the same
// polynomial bounds (small packets here keep them), several blocks and a packet expanded in many
// work items give the single-block run's counts.
TEST(TmdPipeline, BlocksAndWorkItemsDoNotChangeTheResult) {
  const Golden& g = kGolden[2];
  LefevreParams p = params_of(g);
  p.log2_block = 12;  // 32 blocks; packets of 2^10 intervals, 16 work items each
  const LefevreResult r = lefevre_search(p);
  EXPECT_EQ(r.blocks, 32);
  EXPECT_EQ(r.phase2_args, g.phase2_args);
  EXPECT_EQ(r.phase3_args, g.phase3_args);
  EXPECT_EQ(r.candidates, g.candidates);
  EXPECT_EQ(r.iters.nmdm_hist, std::vector<int64_t>(g.hist, g.hist + 20));
  EXPECT_EQ(r.cases.size(), g.cases);
}

void expect_same(const LefevreResult& a, const LefevreResult& b) {
  EXPECT_EQ(a.phase1, b.phase1);
  EXPECT_EQ(a.phase2, b.phase2);
  EXPECT_EQ(a.phase2_args, b.phase2_args);
  EXPECT_EQ(a.phase3, b.phase3);
  EXPECT_EQ(a.phase3_args, b.phase3_args);
  EXPECT_EQ(a.direct_args, b.direct_args);
  EXPECT_EQ(a.candidates, b.candidates);
  EXPECT_EQ(a.iters.min, b.iters.min);
  EXPECT_EQ(a.iters.max, b.iters.max);
  EXPECT_EQ(a.iters.mean, b.iters.mean);
  EXPECT_EQ(a.iters.mean_nmdm, b.iters.mean_nmdm);
  EXPECT_EQ(a.iters.nmdm_hist, b.iters.nmdm_hist);
  ASSERT_EQ(a.cases.size(), b.cases.size());
  for (std::size_t i = 0; i < a.cases.size(); ++i) {
    EXPECT_EQ(a.cases[i].index, b.cases[i].index);
    EXPECT_EQ(a.cases[i].fx, b.cases[i].fx);
  }
}

// The device pipeline against the CPU one, and against the previous implementation's records:
// every golden run (a block with a two-binade interval, so a tested-interval list; wide
// precision; per-interval Taylor polynomials only), then exp at p = 54 over [1, 1 + 2^-22) with
// the paper's N = 2^15 in blocks of 2^8 intervals and packets of 2^4 (many blocks and packets).
TEST(TmdDevice, PipelineCudaEqualsCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  for (const Golden& g : kGolden) {
    LefevreParams p = params_of(g);
    p.backend = ds::Backend::kCuda;
    const LefevreResult r = lefevre_search(p);
    expect_golden(g, r);
  }
  for (Search s : {Search::kLefevre, Search::kRegular}) {
    SCOPED_TRACE(search_name(s));
    LefevreParams p;
    p.search = s;
    p.func = Func::kExp;
    p.mode = Mode::kDirected;
    p.precision = 54;
    p.k = 24;
    p.x_lo = "1";
    p.x_hi = "0x1.000004p+0";
    p.log2_n = 15;
    p.log2_block = 8;
    p.log2_packet = 4;
    const LefevreResult cpu = lefevre_search(p);
    p.backend = ds::Backend::kCuda;
    const LefevreResult gpu = lefevre_search(p);
    EXPECT_GT(cpu.phase3_args, 0);
    expect_same(cpu, gpu);
  }
}

}  // namespace
