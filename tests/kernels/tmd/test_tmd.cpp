// The TMD workspace's exhaustive search: the dd evaluation against MPFR (measured error far below
// the margin the filter assumes), the filter never drops a case MPFR finds (brute force over whole
// ranges at several precisions), the CORE-MATH exp2f exceptions rediscovered, resumable chunks,
// bad input, and (device section) CPU == CUDA.
#include <gtest/gtest.h>
#include <mpfr.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "kernels/tmd/tmd.h"
#include "oracle.h"

namespace {

using namespace ds;
using namespace ds::tmd;

int apply(Func f, mpfr_ptr y, mpfr_srcptr x) {
  switch (f) {
    case Func::kExp:
      return mpfr_exp(y, x, MPFR_RNDN);
    case Func::kExp2:
      return mpfr_exp2(y, x, MPFR_RNDN);
    case Func::kLog:
      return mpfr_log(y, x, MPFR_RNDN);
    case Func::kLog2:
      return mpfr_log2(y, x, MPFR_RNDN);
    case Func::kSin:
      return mpfr_sin(y, x, MPFR_RNDN);
    case Func::kCos:
      return mpfr_cos(y, x, MPFR_RNDN);
  }
  return 0;
}

uint32_t bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Random binary32 arguments in the function's useful domain (results normal binary32).
float random_arg(Func f, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  for (;;) {
    uint32_t b = static_cast<uint32_t>(rng());
    float x;
    std::memcpy(&x, &b, sizeof x);
    if (!std::isfinite(x)) continue;
    if ((f == Func::kExp || f == Func::kExp2) && !(std::fabs(x) < 80)) {
      x = static_cast<float>((u(rng) - 0.5) * 160);
    }
    if ((f == Func::kLog || f == Func::kLog2) && x <= 0) x = -x;
    if (x == 0) continue;
    return x;
  }
}

// The dd value of f(x) relative to MPFR: far below the filter's margin 2^-88 (docs/tmd.md).
TEST(TmdEval, DdErrorFarBelowTheMarginForEveryFunction) {
  auto rng = test::seeded_rng("TmdEval");
  for (Func f : all_funcs()) {
    SCOPED_TRACE(func_name(f));
    double worst = 0;
    for (int i = 0; i < 8000; ++i) {
      float x = random_arg(f, rng);
      // Every fifth argument near a multiple of pi/2 or near 1, where reductions cancel most.
      if (i % 5 == 0 && (f == Func::kSin || f == Func::kCos))
        x = std::nextafter(static_cast<float>(1.5707963267948966 * (i % 977)), 0.0f);
      if (i % 5 == 0 && (f == Func::kLog || f == Func::kLog2))
        x = 1.0f + static_cast<float>((i % 2001) - 1000) * 0x1p-23f;
      double hi, lo;
      if (!dd_value(f, x, &hi, &lo)) continue;
      test::Mp X(24), Y, G;
      mpfr_set_flt(X, x, MPFR_RNDN);
      apply(f, Y, X);
      if (mpfr_zero_p(Y)) continue;
      const double terms[2] = {hi, lo};
      test::set_terms(G, terms, 2);
      worst = std::max(worst, test::rel_err(G, Y));
    }
    std::printf("  %s: worst relative error of the dd evaluation %.3g (2^%.1f)\n", func_name(f), worst,
                std::log2(worst));
    EXPECT_LT(worst, 0x1p-96);
  }
}

// Brute force: every precision-p argument of a range decided by MPFR alone must equal the search.
std::set<uint32_t> brute_force(Func f, Mode m, int p, int k, uint32_t lo, uint32_t hi) {
  std::set<uint32_t> s;
  for (uint64_t b = lo; b <= hi; ++b)
    if (mpfr_verdict(f, m, p, k, static_cast<uint32_t>(b)).within) s.insert(static_cast<uint32_t>(b));
  return s;
}

std::set<uint32_t> searched(const ExhaustiveResult& r) {
  std::set<uint32_t> s;
  for (const Case& c : r.cases) s.insert(c.x);
  return s;
}

TEST(TmdExhaustive, SameCasesAsMpfrBruteForceAtSeveralPrecisions) {
  struct Run {
    Func f;
    Mode m;
    int p, k;
    float from;
  };
  // Ranges of 2^15 bit patterns (at p < 24 only every 2^(24-p)-th is an argument); small k so
  // that each range holds cases.
  const Run runs[] = {
      {Func::kExp2, Mode::kNearest, 24, 8, 0.3f},  {Func::kExp, Mode::kDirected, 24, 8, -3.7f},
      {Func::kLog, Mode::kNearest, 16, 4, 5.5f},   {Func::kLog2, Mode::kDirected, 20, 6, 0.02f},
      {Func::kSin, Mode::kNearest, 24, 8, 1000.f}, {Func::kCos, Mode::kDirected, 18, 5, 3.0e9f},
      {Func::kSin, Mode::kDirected, 16, 3, 2.0f},  {Func::kCos, Mode::kNearest, 24, 8, 0.7f}};
  for (const Run& r : runs) {
    SCOPED_TRACE(std::string(func_name(r.f)) + " " + mode_name(r.m) + " p=" + std::to_string(r.p));
    ExhaustiveParams p;
    p.func = r.f;
    p.mode = r.m;
    p.precision = r.p;
    p.k = r.k;
    p.lo = bits_of(r.from);
    p.hi = p.lo + (1u << 15) - 1;
    p.chunk_inputs = 10000;
    const ExhaustiveResult res = exhaustive(p);
    const std::set<uint32_t> want = brute_force(r.f, r.m, r.p, r.k, p.lo, p.hi);
    EXPECT_GT(want.size(), 0u);
    EXPECT_EQ(searched(res), want);
    EXPECT_GE(res.candidates, static_cast<int64_t>(want.size()));
    for (const Case& c : res.cases) EXPECT_GT(c.log2_dist, r.k);
  }
}

// CORE-MATH's exp2f handles these three arguments specially: they are hard to round to nearest.
TEST(TmdExhaustive, RediscoversTheCoreMathExp2fExceptions) {
  const uint32_t special[] = {0x3b429d37u, 0xbcf3a937u, 0xb8d3d026u};
  for (uint32_t s : special) {
    ExhaustiveParams p;
    p.func = Func::kExp2;
    p.mode = Mode::kNearest;
    p.k = 24;
    p.lo = s - 20000;
    p.hi = s + 20000;
    const ExhaustiveResult r = exhaustive(p);
    ASSERT_FALSE(r.cases.empty());
    const Case h = hardest(r.cases, 1)[0];
    EXPECT_EQ(h.x, s);
    EXPECT_GE(h.run, 27);
    std::printf("  exp2f 0x%08x: %d identical bits after the rounding bit, f(x) = %s\n", s, h.run,
                h.fx.c_str());
  }
}

TEST(TmdExhaustive, ChunkFileResumesWithIdenticalResults) {
  char dir[] = "/tmp/tmd_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string file = std::string(dir) + "/c.chunks";
  ExhaustiveParams p;
  p.func = Func::kLog;
  p.mode = Mode::kDirected;
  p.k = 10;
  p.lo = bits_of(1.5f);
  p.hi = p.lo + 40000;
  p.chunk_inputs = 8192;
  const ExhaustiveResult whole = exhaustive(p);
  // Cancel after the second chunk, then resume.
  std::atomic<bool> stop{false};
  p.chunk_file = file;
  p.cancel = &stop;
  p.on_chunk = [&](int64_t c, int64_t) {
    if (c == 1) stop = true;
  };
  const ExhaustiveResult part = exhaustive(p);
  // The second chunk's take() cancels; chunks the worker finished ahead of the writer are kept
  // (all of them, at times, in a search this small).
  EXPECT_GE(part.chunks_run, 2);
  EXPECT_EQ(part.cancelled, part.chunks_run < part.chunks);
  stop = false;
  p.on_chunk = nullptr;
  const ExhaustiveResult rest = exhaustive(p);
  EXPECT_FALSE(rest.cancelled);
  EXPECT_EQ(rest.chunks_loaded, part.chunks_run);
  EXPECT_EQ(rest.chunks_run, rest.chunks - part.chunks_run);
  EXPECT_EQ(searched(rest), searched(whole));
  EXPECT_EQ(rest.candidates, whole.candidates);
  EXPECT_EQ(rest.evaluated, whole.evaluated);
  EXPECT_EQ(cases_csv(p, rest), cases_csv(p, whole));
  // A different search refuses the file.
  p.k = 11;
  EXPECT_THROW(exhaustive(p), std::runtime_error);
  std::remove(file.c_str());
  rmdir(dir);
}

TEST(TmdExhaustive, BadInputIsRefused) {
  ExhaustiveParams p;
  p.lo = 0x3f800000u;
  p.hi = 0x3f700000u;
  EXPECT_THROW(estimate_exhaustive(p), std::invalid_argument);  // reversed
  p.hi = p.lo;
  p.precision = 25;
  EXPECT_THROW(estimate_exhaustive(p), std::invalid_argument);
  p.precision = 7;
  EXPECT_THROW(estimate_exhaustive(p), std::invalid_argument);
  p.precision = 24;
  p.k = 0;
  EXPECT_THROW(estimate_exhaustive(p), std::invalid_argument);
  EXPECT_THROW(parse_func("tan"), std::invalid_argument);
  EXPECT_THROW(parse_mode("up"), std::invalid_argument);
  // A flood: directed cos near 0 makes every tiny argument hard to round; refused before any work.
  p.func = Func::kCos;
  p.mode = Mode::kDirected;
  p.k = 10;
  p.lo = 0x00800000u;
  p.hi = 0x3a000000u;
  const ExhaustiveEstimate e = estimate_exhaustive(p);
  EXPECT_GT(e.expected_cases, 1e8);
  EXPECT_THROW(exhaustive(p), std::invalid_argument);
}

TEST(TmdDevice, CpuAndCudaReturnIdenticalCases) {
  DEEPSCOPE_REQUIRE_GPU();
  for (Func f : all_funcs()) {
    SCOPED_TRACE(func_name(f));
    ExhaustiveParams p;
    p.func = f;
    p.mode = Mode::kDirected;
    p.k = 12;
    p.lo = bits_of(f == Func::kLog || f == Func::kLog2 ? 3.0f : 0.75f);
    p.hi = p.lo + (1u << 18);
    ExhaustiveResult cpu = exhaustive(p);
    p.backend = Backend::kCuda;
    ExhaustiveResult gpu = exhaustive(p);
    EXPECT_EQ(cpu.evaluated, gpu.evaluated);
    EXPECT_EQ(cpu.candidates, gpu.candidates);
    EXPECT_EQ(cases_csv(p, cpu), cases_csv(p, gpu));
    // The raw distances agree to the bit on every argument of a smaller range.
    std::vector<uint32_t> a(1 << 16), b(1 << 16);
    int64_t ea = 0, eb = 0;
    const int64_t na =
        detail::filter_cpu(f, Mode::kNearest, 24, 1, p.lo, 1 << 16, a.data(), 1 << 16, &ea, nullptr, nullptr);
    const int64_t nb = detail::filter_cuda(f, Mode::kNearest, 24, 1, p.lo, 1 << 16, b.data(), 1 << 16, &eb);
    ASSERT_EQ(na, nb);
    EXPECT_EQ(ea, eb);
    a.resize(na);
    b.resize(nb);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
  }
}

}  // namespace
