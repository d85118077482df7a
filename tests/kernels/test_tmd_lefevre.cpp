// The TMD workspace's Lefèvre and regular searches: the continued-fraction lower bounds against
// brute force on random (a, b, N), and the searches against the exhaustive MPFR oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "kernels/tmd_lefevre.cuh"
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
        if (i < 2) ASSERT_TRUE(std::find(pm.begin(), pm.end(), r[i].d) != pm.end());
      }
      // Lefèvre's searches fail only on a real point within eps (placed points stay below 2n);
      // the regular one may have placed up to (last quotient) x n points, or lowered d.
      if (!r[i].success && i < 2) ASSERT_LT(pm[M - 1], eps);
      if (!r[i].success) ASSERT_LT(r[i].d, eps);
    }
    // Algorithm 3 is Algorithm 1 reorganised, Algorithm 4 is Algorithm 2 unrolled.
    ASSERT_EQ(r[0].success, r[1].success);
    if (r[0].success) ASSERT_EQ(r[0].d, r[1].d);
    ASSERT_EQ(r[2].success, r[3].success);
    if (r[2].success) ASSERT_EQ(r[2].d, r[3].d);
  }
  std::printf("  successes: %d %d %d %d of 3000\n", success[0], success[1], success[2], success[3]);
  EXPECT_GT(success[0], 500);
  EXPECT_GT(success[2], 500);
}

}  // namespace
