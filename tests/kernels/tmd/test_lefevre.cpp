// The TMD workspace's Lefèvre and regular searches: the continued-fraction lower bounds against
// brute force on random (a, b, N), and the searches against the exhaustive MPFR oracle.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include <mpfr.h>

#include "kernels/tmd/tmd.h"
#include "kernels/tmd/lefevre.cuh"
#include "kernels/tmd/lefevre.h"
#include "oracle.h"

namespace {

using namespace ds::tmd::lb;

// {b - a x} for x < m, as 63-bit fixed point, the prefix minima.
std::vector<uint64_t> prefix_min(uint64_t a, uint64_t b, uint64_t m) {
  std::vector<uint64_t> r(m);
  uint64_t best = ~uint64_t{0}, ax = 0;
  for (uint64_t x = 0; x < m; ++x) {
    const uint64_t t = (b - ax) & (kOne - 1);
    best = std::min(best, t);
    r[x] = best;
    ax = (ax + a) & (kOne - 1);
  }
  return r;
}

TEST(TmdLowerBound, AgreesWithBruteForceOnRandomInputs) {
  auto rng = ds::test::seeded_rng("TmdLowerBound");
  int success[4] = {0, 0, 0, 0};
  for (int trial = 0; trial < 3000; ++trial) {
    const uint64_t a = rng() & (kOne - 1), b = rng() & (kOne - 1);
    const uint64_t n = 2 + rng() % (trial < 1500 ? 64 : 4096);
    const int kth = static_cast<int>(rng() % 5);
    const uint64_t M = 16 * n + 64;
    const std::vector<uint64_t> pm = prefix_min(a, b, M);
    const uint64_t truth = pm[n - 1];  // min over x < n
    // eps around the truth so that both outcomes occur.
    const uint64_t eps = trial % 3 == 0 ? truth + 1 : (trial % 3 == 1 ? truth / 2 : truth / 16);
    const Bound r[4] = {lefevre(a, b, eps, n, kth), lefevre_swap(a, b, eps, n, kth),
                        regular(a, b, eps, n, kth), regular_unrolled(a, b, eps, n, kth)};
    for (int i = 0; i < 4; ++i) {
      SCOPED_TRACE("algorithm " + std::to_string(i + 1) + " a=" + std::to_string(a) +
                   " b=" + std::to_string(b) + " n=" + std::to_string(n) + " eps=" + std::to_string(eps) +
                   " truth=" + std::to_string(truth));
      if (r[i].success) {
        ++success[i];
        // Sound: no x < n closer than eps; and the bound is a true distance of a point x < M.
        ASSERT_GE(truth, eps);
        ASSERT_LE(r[i].d, truth);
        ASSERT_GE(r[i].d, eps);
        // Lefèvre's d is the distance to an actual point; the regular search may under-estimate
        // it (paper, section 4.2: d - r when {b} lay in a q-interval), still a lower bound.
        if (i < 2) {
          ASSERT_TRUE(std::find(pm.begin(), pm.end(), r[i].d) != pm.end());
        }
      }
      // Lefèvre's searches fail only on a real point within eps (placed points stay below 2n);
      // the regular one may have placed up to (last quotient) x n points, or lowered d.
      if (!r[i].success && i < 2) {
        ASSERT_LT(pm[M - 1], eps);
      }
      if (!r[i].success) {
        ASSERT_LT(r[i].d, eps);
      }
    }
    // Algorithm 3 is Algorithm 1 reorganised, Algorithm 4 is Algorithm 2 unrolled.
    ASSERT_EQ(r[0].success, r[1].success);
    if (r[0].success) {
      ASSERT_EQ(r[0].d, r[1].d);
    }
    ASSERT_EQ(r[2].success, r[3].success);
    if (r[2].success) {
      ASSERT_EQ(r[2].d, r[3].d);
    }
  }
  std::printf("  successes: %d %d %d %d of 3000\n", success[0], success[1], success[2], success[3]);
  EXPECT_GT(success[0], 500);
  EXPECT_GT(success[2], 500);
}

uint32_t bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// At small precisions the exhaustive MPFR verdict over every argument is the oracle: both
// searches must return exactly its set of hard-to-round cases.
TEST(TmdLefevre, BothSearchesMatchTheExhaustiveMpfrOracle) {
  using namespace ds::tmd;
  struct Run {
    Func f;
    Mode m;
    int p, k, log2_n;
    float lo, hi;
  };
  const Run runs[] = {
      {Func::kExp, Mode::kDirected, 16, 10, 4, 1.0f, 1.99f},
      {Func::kExp, Mode::kNearest, 16, 10, 4, 1.0f, 1.99f},
      {Func::kLog2, Mode::kDirected, 16, 10, 4, 1.0f, 1.99f},
      {Func::kExp2, Mode::kNearest, 18, 11, 4, 0.5f, 0.99f},
      {Func::kLog, Mode::kNearest, 20, 12, 5, 2.0f, 2.49f},
      {Func::kExp, Mode::kDirected, 20, 12, 5, 4.0f, 4.49f},
      {Func::kLog, Mode::kDirected, 24, 13, 6, 100.0f, 100.4f},
      {Func::kExp2, Mode::kNearest, 24, 13, 6, 0.25f, 0.253f},
      {Func::kLog2, Mode::kNearest, 22, 12, 5, 0.75f, 0.79f},
      {Func::kExp, Mode::kNearest, 24, 13, 6, 0.0625f, 0.0627f},
  };
  for (const Run& r : runs) {
    SCOPED_TRACE(std::string(func_name(r.f)) + " " + mode_name(r.m) + " p=" + std::to_string(r.p));
    LefevreParams p;
    p.func = r.f;
    p.mode = r.m;
    p.precision = r.p;
    p.k = r.k;
    p.lo = bits_of(r.lo);
    p.hi = bits_of(r.hi);
    p.log2_n = r.log2_n;
    p.split = 4;
    std::set<uint32_t> oracle;
    for (uint32_t b = p.lo; b <= p.hi; ++b)
      if (mpfr_verdict(r.f, r.m, r.p, r.k, b).within) oracle.insert(b);
    EXPECT_GT(oracle.size(), 3u);
    // Both searches with the hierarchical polynomials, and the regular one with a Taylor
    // polynomial per interval.
    for (int v = 0; v < 3; ++v) {
      const Search s = v == 0 ? Search::kLefevre : Search::kRegular;
      p.hierarchical = v < 2;
      SCOPED_TRACE(std::string(search_name(s)) + (p.hierarchical ? " hierarchical" : " taylor"));
      p.search = s;
      const LefevreResult res = lefevre_search(p);
      std::set<uint32_t> got;
      for (const Case& c : res.cases) got.insert(c.x);
      EXPECT_EQ(got, oracle);
      // The filter works: most intervals pass phase 1 and few arguments are scanned.
      EXPECT_LT(res.phase3_args + res.direct_args, res.arguments / 4);
      std::printf(
          "  %s %s p=%d k=%d %s: %lld args, phase 1 %lld, phase 2 %lld, phase 3 %lld (%lld args), direct "
          "%lld, "
          "candidates %lld, cases %zu; iterations %u..%u mean %.1f, mean NMDM %.3f\n",
          func_name(r.f), mode_name(r.m), r.p, r.k, search_name(s), (long long)res.arguments,
          (long long)res.phase1, (long long)res.phase2, (long long)res.phase3, (long long)res.phase3_args,
          (long long)res.direct_args, (long long)res.candidates, res.cases.size(), res.iters.min,
          res.iters.max, res.iters.mean, res.iters.mean_nmdm);
    }
  }
}

// Beyond binary32: arguments of any precision up to 64 in a real range, against MPFR on each.
TEST(TmdLefevre, WidePrecisionMatchesMpfrOnEveryArgument) {
  using namespace ds::tmd;
  struct Run {
    Func f;
    Mode m;
    int p, k, log2_n;
    const char *lo, *hi;
  };
  // 2^17, 2^15, 2^16 and 2^15 arguments. The last: results near 2^185, far past binary32's range
  // (until 2b: no argument there was searched, and the search reported 0 cases).
  const Run runs[] = {{Func::kExp, Mode::kDirected, 40, 12, 8, "1", "0x1.000004p+0"},
                      {Func::kExp, Mode::kDirected, 54, 12, 8, "128", "0x1.0000000004p+7"},
                      {Func::kLog2, Mode::kNearest, 54, 12, 8, "0x1.8p+0", "0x1.8000000004p+0"},
                      {Func::kExp2, Mode::kNearest, 64, 12, 8, "0x1.4p-1", "0x1.4000000000020p-1"}};
  for (const Run& r : runs) {
    SCOPED_TRACE(std::string(func_name(r.f)) + " p=" + std::to_string(r.p));
    LefevreParams p;
    p.func = r.f;
    p.mode = r.m;
    p.precision = r.p;
    p.k = r.k;
    p.x_lo = r.lo;
    p.x_hi = r.hi;
    p.log2_n = r.log2_n;
    ds::test::Mp lo(80), hi(80), x(80);
    mpfr_set_str(lo, r.lo, 0, MPFR_RNDN);
    mpfr_set_str(hi, r.hi, 0, MPFR_RNDN);
    std::set<std::string> oracle;
    mpfr_set(x, lo, MPFR_RNDN);
    int64_t n = 0;
    for (; mpfr_cmp(x, hi) < 0; ++n) {
      if (mpfr_verdict_value(r.f, r.m, r.p, r.k, static_cast<const void*>(x.v)).within) {
        char* t = nullptr;
        mpfr_asprintf(&t, "%Ra", x.v);
        oracle.insert(t);
        mpfr_free_str(t);
      }
      ds::test::Mp step(80);  // the precision-p ulp of the binade
      mpfr_set_ui_2exp(step, 1, mpfr_get_exp(lo) - r.p, MPFR_RNDN);
      mpfr_add(x, x, step, MPFR_RNDN);
    }
    EXPECT_GT(oracle.size(), 3u);
    for (int v = 0; v < 3; ++v) {  // Lefèvre and regular (hierarchical), regular (Taylor per interval)
      const Search s = v == 0 ? Search::kLefevre : Search::kRegular;
      p.search = s;
      p.hierarchical = v < 2;
      const LefevreResult res = lefevre_search(p);
      EXPECT_EQ(res.arguments, n);
      std::set<std::string> got;
      for (const Case& c : res.cases) got.insert(c.x_text);
      EXPECT_EQ(got, oracle) << search_name(s);
      EXPECT_LT(res.phase3_args + res.direct_args, res.arguments / 4);
    }
  }
}

// A whole binade at precision 64 holds 2^63 arguments, past the signed counts: refused with a
// message (the CLI: exit 2), where it ran out of memory before; half of it is accepted.
TEST(TmdLefevre, RangesPastTwoToTheSixtyTwoArgumentsAreRefused) {
  using namespace ds::tmd;
  LefevreParams p;
  p.func = Func::kExp2;
  p.precision = 64;
  p.k = 50;
  p.log2_n = 20;
  p.x_lo = "1";
  p.x_hi = "2";
  try {
    lefevre_arguments(p);
    ADD_FAILURE() << "accepted 2^63 arguments";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("9223372036854775808 arguments"), std::string::npos) << e.what();
  }
  p.x_hi = "1.5";
  EXPECT_EQ(lefevre_arguments(p), 0x1p62);
}

TEST(TmdLefevre, ChunkFileResumesWithIdenticalResults) {
  using namespace ds::tmd;
  char dir[] = "/tmp/tmd_lefevre_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  LefevreParams p;
  p.func = Func::kLog2;
  p.mode = Mode::kNearest;
  p.precision = 22;
  p.k = 12;
  p.lo = bits_of(3.0f);
  p.hi = bits_of(3.9f);
  p.log2_n = 5;
  p.log2_block = 7;  // 128 intervals per block: 29 blocks
  p.log2_packet = 5;
  const LefevreResult whole = lefevre_search(p);
  ASSERT_GT(whole.blocks, 20);
  std::atomic<bool> stop{false};
  p.chunk_file = std::string(dir) + "/b.chunks";
  p.cancel = &stop;
  int phases = 0;
  p.on_phase = [&](int phase, const LefevreResult&) {
    if (phase == 3 && ++phases == 5) stop = true;
  };
  const LefevreResult part = lefevre_search(p);
  EXPECT_TRUE(part.cancelled);
  // The fifth block's take() cancels; blocks the worker finished ahead of the writer are kept.
  EXPECT_GE(part.blocks_run, 5);
  EXPECT_LT(part.blocks_run, part.blocks);
  stop = false;
  p.on_phase = nullptr;
  const LefevreResult rest = lefevre_search(p);
  EXPECT_FALSE(rest.cancelled);
  EXPECT_EQ(rest.blocks_loaded, part.blocks_run);
  EXPECT_EQ(rest.blocks_run, rest.blocks - part.blocks_run);
  EXPECT_EQ(lefevre_json(p, rest).substr(0, 200), lefevre_json(p, whole).substr(0, 200));
  EXPECT_EQ(rest.phase2, whole.phase2);
  EXPECT_EQ(rest.phase3_args, whole.phase3_args);
  EXPECT_EQ(rest.iters.mean, whole.iters.mean);
  EXPECT_EQ(rest.iters.nmdm_hist, whole.iters.nmdm_hist);
  ASSERT_EQ(rest.cases.size(), whole.cases.size());
  for (std::size_t i = 0; i < rest.cases.size(); ++i) {
    EXPECT_EQ(rest.cases[i].x, whole.cases[i].x);
    EXPECT_EQ(rest.cases[i].fx, whole.cases[i].fx);
    EXPECT_EQ(rest.cases[i].log2_dist, whole.cases[i].log2_dist);
  }
  p.k = 13;
  EXPECT_THROW(lefevre_search(p), std::runtime_error);
  std::remove(p.chunk_file.c_str());
  rmdir(dir);
}

// NMDM of one warp's iteration counts (equation 2): 1 - mean / max (0 when max is 0).
TEST(TmdLefevre, NmdmOfAWarp) {
  namespace lb = ds::tmd::lb;
  const uint32_t same[4] = {5, 5, 5, 5}, mixed[4] = {2, 4, 6, 8}, zeros[4] = {0, 0, 0, 0};
  EXPECT_EQ(lb::warp_nmdm(lb::warp_iters(same, 4)), 0.0);
  EXPECT_DOUBLE_EQ(lb::warp_nmdm(lb::warp_iters(mixed, 4)), 1.0 - 5.0 / 8.0);
  EXPECT_EQ(lb::warp_nmdm(lb::warp_iters(zeros, 4)), 0.0);
}

TEST(TmdLefevre, BadInputIsRefused) {
  using namespace ds::tmd;
  LefevreParams p;
  p.func = Func::kSin;
  EXPECT_THROW(lefevre_search(p), std::invalid_argument);
  p.func = Func::kExp;
  p.lo = bits_of(1.0f);
  p.hi = bits_of(2.5f);  // two binades
  EXPECT_THROW(lefevre_search(p), std::invalid_argument);
  p.hi = bits_of(0.9f);  // reversed
  EXPECT_THROW(lefevre_search(p), std::invalid_argument);
  p.lo = bits_of(-1.5f);
  p.hi = bits_of(-1.0f);
  EXPECT_THROW(lefevre_search(p), std::invalid_argument);
  p.lo = bits_of(1.0f);
  p.hi = bits_of(1.5f);
  p.precision = 30;
  EXPECT_THROW(lefevre_search(p), std::invalid_argument);
  p.precision = 24;
  p.split = 3;
  EXPECT_THROW(lefevre_search(p), std::invalid_argument);
}

TEST(TmdDevice, LefevreAndRegularSearchesCpuEqualsCuda) {
  DEEPSCOPE_REQUIRE_GPU();
  using namespace ds::tmd;
  for (Search s : {Search::kLefevre, Search::kRegular}) {
    SCOPED_TRACE(search_name(s));
    LefevreParams p;
    p.func = Func::kExp;
    p.mode = Mode::kNearest;
    p.precision = 24;
    p.k = 14;
    p.lo = bits_of(1.0f);
    p.hi = bits_of(1.25f);
    p.log2_n = 6;
    p.search = s;
    const LefevreResult cpu = lefevre_search(p);
    p.backend = ds::Backend::kCuda;
    const LefevreResult gpu = lefevre_search(p);
    EXPECT_EQ(cpu.phase1, gpu.phase1);
    EXPECT_EQ(cpu.phase2, gpu.phase2);
    EXPECT_EQ(cpu.phase3, gpu.phase3);
    EXPECT_EQ(cpu.candidates, gpu.candidates);
    EXPECT_EQ(cpu.iters.mean, gpu.iters.mean);
    EXPECT_EQ(cpu.iters.nmdm_hist, gpu.iters.nmdm_hist);
    ASSERT_EQ(cpu.cases.size(), gpu.cases.size());
    for (std::size_t i = 0; i < cpu.cases.size(); ++i) EXPECT_EQ(cpu.cases[i].x, gpu.cases[i].x);
  }
}

}  // namespace
