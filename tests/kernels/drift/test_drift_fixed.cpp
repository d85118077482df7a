// The fixed-point precision mode (SPFP-style accumulation, md.cuh): the rounding of a term, sums
// that do not depend on the order (shuffled cells, 1 or 2 threads: the same trajectory to the bit),
// energy conservation beside double's, and ranges the forces could exceed refused (before the run
// and, with a checked conversion, during it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "kernels/drift/drift.h"
#include "kernels/drift/md.cuh"
#include "md_params.h"

namespace {

using namespace ds;
using namespace ds::drift;

MdParams small(Precision p, int64_t steps) { return ds::test::small_md(p, steps); }

// Round to nearest, ties to even; out of range gives 0 (and the range check flags the atom); the
// integer sum wraps modulo 2^64 and is exact again once the true sum is back in range.
TEST(DriftFixed, TermRoundingAndWrap) {
  const double s32 = std::ldexp(1.0, 32);
  EXPECT_EQ(to_fixed(1.5f, s32), 3LL << 31);
  EXPECT_EQ(to_fixed(2.5f, 1.0), 2);
  EXPECT_EQ(to_fixed(3.5f, 1.0), 4);
  EXPECT_EQ(to_fixed(-2.5f, 1.0), -2);
  EXPECT_EQ(to_fixed(1e-12f, s32), 0);                   // below the resolution 2^-32
  EXPECT_EQ(to_fixed(0x1p-33f * 3, s32), 2);             // 1.5 ulps of the scale: to even
  EXPECT_EQ(to_fixed(0x1p40f, std::ldexp(1.0, 23)), 0);  // 2^63: out of range
  EXPECT_EQ(to_fixed(NAN, s32), 0);
  Fixed64 a;
  const int64_t big = to_fixed(0x1p61f, 1.0);
  for (int k = 0; k < 6; ++k) a.bits += static_cast<uint64_t>(big);  // 6 * 2^61 wraps past 2^63
  for (int k = 0; k < 6; ++k) a.bits += static_cast<uint64_t>(-big);
  a.bits += static_cast<uint64_t>(to_fixed(-7.0f, 1.0));
  EXPECT_EQ(static_cast<int64_t>(a.bits), -7);
}

// The fixed mode's forces are integer sums: a pseudo-random order of every cell's atoms, drawn
// afresh at each step, and 1 or 2 threads give the same trajectory to the bit. Double's sums depend
// on the order, so the same shuffle changes its trajectory (the test can fail).
TEST(DriftFixed, OrderAndThreadsDoNotChangeTheTrajectory) {
  MdParams p = small(Precision::kFixed, 60);
  p.cpu_threads = 1;
  const MdResult a = run_md(p);
  ASSERT_FALSE(a.blew_up) << a.message;
  p.cpu_threads = 2;
  const MdResult b = run_md(p);
  p.pair_order_seed = 7;
  const MdResult c = run_md(p);
  p.cpu_threads = 1;
  p.pair_order_seed = 123456789;
  const MdResult d = run_md(p);
  EXPECT_EQ(a.state_hash, b.state_hash) << "1 and 2 threads";
  EXPECT_EQ(a.state_hash, c.state_hash) << "shuffled cells, 2 threads";
  EXPECT_EQ(a.state_hash, d.state_hash) << "another shuffle, 1 thread";
  ASSERT_EQ(a.samples.size(), d.samples.size());
  for (std::size_t i = 0; i < a.samples.size(); ++i) EXPECT_EQ(a.samples[i].total, d.samples[i].total);
  MdParams q = small(Precision::kDouble, 60);
  const uint64_t in_order = run_md(q).state_hash;
  q.pair_order_seed = 7;
  EXPECT_NE(run_md(q).state_hash, in_order) << "double's trajectory should depend on the pair order";
}

// The same float pair terms as mixed: at step 0 the per-atom energies differ only by rounding each
// term to 2^-32 (at most 55 terms per atom: < 1.3e-8), and over a short run the energy stays as well
// conserved as double's. Measured (500 atoms, 400 steps of dt 0.005 from the lattice): see stdout;
// the test asks for max |E(t) - E(0)| within a factor 1.5 of double's.
TEST(DriftFixed, ConservesEnergyLikeDouble) {
  const MdResult f = run_md(small(Precision::kFixed, 400));
  const MdResult m = run_md(small(Precision::kMixed, 400));
  const MdResult d = run_md(small(Precision::kDouble, 400));
  ASSERT_FALSE(f.blew_up) << f.message;
  EXPECT_NEAR(f.samples[0].pe, m.samples[0].pe, 1.3e-8);
  EXPECT_NE(f.samples[0].pe, d.samples[0].pe - 1.0);  // sanity: both are numbers
  auto dev = [](const MdResult& r) {
    double x = 0;
    for (const MdSample& s : r.samples) x = std::max(x, std::fabs(s.total - r.samples[0].total));
    return x;
  };
  std::printf("max |E(t) - E(0)| per atom: fixed %.3e, mixed %.3e, double %.3e; slopes %.3e %.3e %.3e\n",
              dev(f), dev(m), dev(d), f.fit.slope, m.fit.slope, d.fit.slope);
  EXPECT_LT(dev(f), 1.5 * dev(d));
  EXPECT_GT(dev(f), dev(d) / 1.5);
}

// Before the run: one pair at 0.5 sigma (|F| = 390,144) times the neighbours within the cutoff
// (56 at the default density 0.8442 and cutoff 2.5) needs 2^24.4; with 2^k it must stay below 2^62,
// so k <= 37 there; at density 1.5 and cutoff 5 (786 neighbours) k <= 33.
TEST(DriftFixed, RangeTooSmallIsRefused) {
  MdParams p = small(Precision::kFixed, 10);
  EXPECT_NEAR(fixed_point_need_log2(p) - p.fixed_bits, std::log2(390144.0 * 56), 1e-9);
  p.fixed_bits = 37;
  EXPECT_NO_THROW(validate(p));
  p.fixed_bits = 38;
  try {
    validate(p);
    ADD_FAILURE() << "fixed_bits 38 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("fixed_bits"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("use --fixed-bits 37 or less"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_md(p), std::invalid_argument);
  p.precision = Precision::kDouble;  // the scale matters only to the fixed mode
  EXPECT_NO_THROW(validate(p));
  MdParams q = small(Precision::kFixed, 10);
  q.cells = 12;  // box 16.6 >= 3 cutoffs
  q.density = 1.5;
  q.cutoff = 5.0;
  q.fixed_bits = 33;
  EXPECT_NO_THROW(validate(q));
  q.fixed_bits = 34;
  EXPECT_THROW(validate(q), std::invalid_argument);
  q.fixed_bits = kMaxFixedBits + 1;
  q.precision = Precision::kDouble;
  EXPECT_THROW(validate(q), std::invalid_argument);
}

// During the run: a system blowing up (dt 0.1 at T* = 100) drives atoms far closer than 0.5 sigma,
// and the checked conversion stops the run with a message naming the limit, before any sum wraps.
TEST(DriftFixed, RangeExceededAtRuntimeStopsTheRun) {
  MdParams p = small(Precision::kFixed, 400);
  p.dt = 0.1;
  p.temperature = 100;
  p.sample_every = 20;
  p.fixed_bits = 37;
  const MdResult r = run_md(p);
  ASSERT_TRUE(r.blew_up);
  EXPECT_TRUE(r.range_fault) << r.message;
  EXPECT_NE(r.message.find("--fixed-bits"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("2^(62-37)"), std::string::npos) << r.message;
  std::printf("%s\n", r.message.c_str());
}

}  // namespace
