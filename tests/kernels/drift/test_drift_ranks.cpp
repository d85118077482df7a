// The Lennard-Jones run split over ranks (kernels/drift/md_ranks.cpp): the slab decomposition's pure
// logic (md_slabs.h), and the whole engine with its ranks as threads of this process
// (work::local_comms, the same messages as under mpirun): every precision's samples and final state
// the one-process run's to the bit, on 2, 3 and 4 ranks, through a blow-up and its replay, a
// cancel seen by one rank stopping them all, and checkpoints taken and resumed on any rank count.
// tests/mpi/drift_ranks.sh runs `drift md` under mpirun.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <functional>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kernels/core/comm.h"
#include "kernels/drift/drift.h"
#include "kernels/drift/md_slabs.h"
#include "md_params.h"

namespace {

using namespace ds;
using namespace ds::drift;
using ds::drift::detail::Slabs;

TEST(DriftSlabs, PartitionOwnersAndHalos) {
  for (int nc = 1; nc <= 42; ++nc)
    for (int ranks = 1; ranks <= nc; ++ranks) {
      const Slabs s(nc, ranks);
      EXPECT_EQ(s.begin(0), 0);
      EXPECT_EQ(s.end(ranks - 1), nc);
      for (int r = 0; r < ranks; ++r) {
        const int w = s.end(r) - s.begin(r);
        EXPECT_GE(w, nc / ranks) << nc << " layers, " << ranks << " ranks";
        EXPECT_LE(w, nc / ranks + 1);
        for (int z = s.begin(r); z < s.end(r); ++z) EXPECT_EQ(s.owner(z), r) << "layer " << z;
        if (ranks == 1) continue;
        // The halo layers are the neighbours' and never the slab's own.
        EXPECT_EQ(s.owner(s.below(r)), s.rank_below(r));
        EXPECT_EQ(s.owner(s.above(r)), s.rank_above(r));
        EXPECT_TRUE(s.below(r) < s.begin(r) || s.below(r) >= s.end(r));
        EXPECT_TRUE(s.above(r) < s.begin(r) || s.above(r) >= s.end(r));
        EXPECT_EQ(s.one_halo_layer(r), ranks == 2 && w == nc - 1);
      }
    }
  EXPECT_THROW(Slabs(3, 4), std::invalid_argument);
  EXPECT_THROW(Slabs(3, 0), std::invalid_argument);
}

TEST(DriftSlabs, MigrationAndHaloSelection) {
  const Slabs s(10, 3);  // layers [0,3) [3,6) [6,10)
  ASSERT_EQ(s.begin(1), 3);
  ASSERT_EQ(s.end(1), 6);
  const std::vector<int> layer = {3, 2, 5, 6, 4, 0, 9, 3};
  const detail::Migration m = detail::plan_migration(s, 1, layer);
  EXPECT_EQ(m.stay, (std::vector<int>{0, 2, 4, 7}));
  EXPECT_EQ(m.to[0], (std::vector<int>{1, 5}));
  EXPECT_TRUE(m.to[1].empty());
  EXPECT_EQ(m.to[2], (std::vector<int>{3, 6}));  // 9 is rank 2's, however far the atom jumped
  const detail::HaloSend h = detail::plan_halo(s, 1, {3, 5, 4, 3, 5});
  EXPECT_EQ(h.down, (std::vector<int>{0, 3}));
  EXPECT_EQ(h.up, (std::vector<int>{1, 4}));
  const detail::HaloSend one = detail::plan_halo(Slabs(3, 3), 1, {1, 1});  // a one-layer slab
  EXPECT_EQ(one.down, one.up);
}

// Runs p on `ranks` ranks, one thread each; tweak(r, q) adjusts rank r's copy.
std::vector<MdResult> run_ranks(const MdParams& p, int ranks,
                                const std::function<void(int, MdParams&)>& tweak = {}) {
  std::vector<std::unique_ptr<work::Comm>> comms = work::local_comms(ranks);
  std::vector<MdResult> out(static_cast<std::size_t>(ranks));
  std::vector<std::exception_ptr> err(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      MdParams q = p;
      q.comm = comms[static_cast<std::size_t>(r)].get();
      q.cpu_threads = 1;
      if (tweak) tweak(r, q);
      try {
        out[static_cast<std::size_t>(r)] = run_md(q);
      } catch (...) {
        err[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : err)
    if (e) std::rethrow_exception(e);
  return out;
}

void expect_same(const MdResult& a, const MdResult& b, const std::string& what) {
  EXPECT_EQ(a.state_hash, b.state_hash) << what;
  EXPECT_EQ(a.steps_done, b.steps_done) << what;
  EXPECT_EQ(a.blew_up, b.blew_up) << what;
  EXPECT_EQ(a.range_fault, b.range_fault) << what;
  EXPECT_EQ(a.cancelled, b.cancelled) << what;
  EXPECT_EQ(a.blowup_step, b.blowup_step) << what;
  EXPECT_EQ(a.message, b.message) << what;
  ASSERT_EQ(a.samples.size(), b.samples.size()) << what;
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    EXPECT_EQ(a.samples[i].ke, b.samples[i].ke) << what << ", sample " << i;
    EXPECT_EQ(a.samples[i].pe, b.samples[i].pe) << what << ", sample " << i;
  }
  EXPECT_EQ(a.fit.slope, b.fit.slope) << what;
}

// 500 atoms (3 cell layers: slabs of 2 + 1 and 1 + 1 + 1 layers) and 864 atoms (4 layers, 4 ranks
// of one layer each), from the melting lattice at T* = 3, where atoms cross the slabs' faces every
// few steps. Every precision, fixed point included, gives the one-process trajectory to the bit.
TEST(DriftRanks, EveryPrecisionIsTheOneProcessRunToTheBit) {
  struct Case {
    int cells, ranks;
    int64_t steps;
  };
  for (const Case c : {Case{5, 2, 200}, Case{5, 3, 200}, Case{6, 4, 100}})
    for (Precision pr : all_precisions()) {
      MdParams p = ds::test::small_md(pr, c.steps);
      p.cells = c.cells;
      p.cpu_threads = 1;
      const MdResult one = run_md(p);
      ASSERT_FALSE(one.blew_up) << one.message;
      const std::vector<MdResult> split = run_ranks(p, c.ranks);
      for (int r = 0; r < c.ranks; ++r)
        expect_same(one, split[static_cast<std::size_t>(r)],
                    std::string(precision_name(pr)) + ", " + std::to_string(c.cells) + " cells, rank " +
                        std::to_string(r) + " of " + std::to_string(c.ranks));
    }
}

// A run that blows up: at dt 0.02 and T* = 3 the energy leaves its bound at step 47, and the
// replay from the sample at step 40 (restore, then one step at a time) finds the same step on
// every rank; at dt 0.05 and T* = 100, at step 1, atoms jump across slabs and out of the box.
TEST(DriftRanks, BlowUpIsFoundAtTheSameStep) {
  for (const double dt : {0.02, 0.05}) {
    MdParams p = ds::test::small_md(Precision::kDouble, 400);
    p.dt = dt;
    p.temperature = dt == 0.02 ? 3.0 : 100.0;
    p.cpu_threads = 1;
    const MdResult one = run_md(p);
    ASSERT_TRUE(one.blew_up) << "the parameters should blow up";
    std::printf("one process, dt %g: %s\n", dt, one.message.c_str());
    const std::vector<MdResult> split = run_ranks(p, 3);
    for (int r = 0; r < 3; ++r)
      expect_same(one, split[static_cast<std::size_t>(r)], "rank " + std::to_string(r));
  }
}

// Ctrl-C reaches the ranks at different times: one rank's flag stops them all at the same sample.
TEST(DriftRanks, OneRanksCancelStopsEveryRank) {
  MdParams p = ds::test::small_md(Precision::kFixed, 100);
  std::atomic<bool> set{true}, clear{false};
  const std::vector<MdResult> split =
      run_ranks(p, 2, [&](int r, MdParams& q) { q.cancel = r == 1 ? &set : &clear; });
  for (const MdResult& r : split) {
    EXPECT_TRUE(r.cancelled);
    EXPECT_EQ(r.samples.size(), 1u);  // step 0 only
  }
}

// Checkpoints under ranks: the state gathered by global index is the one-process engine's to the
// byte; a 3-rank run cancelled at step 90 and resumed on 2 ranks, or in one process, gives the
// uninterrupted one-process run; a one-process checkpoint resumed on 3 ranks too.
TEST(DriftRanks, CheckpointsAreTheOneProcessRunsAndResumeOnAnyRankCount) {
  for (Precision pr : {Precision::kDouble, Precision::kComposite, Precision::kFixed}) {
    const std::string name = precision_name(pr);
    MdParams p = ds::test::small_md(pr, 200);
    p.checkpoint_seconds = 0;
    p.cpu_threads = 1;
    std::vector<MdCheckpoint> one_ckpts;
    p.on_checkpoint = [&](const MdCheckpoint& c) { one_ckpts.push_back(c); };
    const MdResult one = run_md(p);
    p.on_checkpoint = nullptr;
    ASSERT_EQ(one_ckpts.size(), 19u) << name;
    std::atomic<bool> stop{false};
    std::vector<std::vector<MdCheckpoint>> taken(3);
    const std::vector<MdResult> cut = run_ranks(p, 3, [&](int r, MdParams& q) {
      q.cancel = &stop;
      q.on_checkpoint = [&, r](const MdCheckpoint& c) {
        taken[static_cast<std::size_t>(r)].push_back(c);
        if (r == 0 && c.step >= 90) stop = true;
      };
    });
    for (int r = 0; r < 3; ++r) {
      EXPECT_TRUE(cut[static_cast<std::size_t>(r)].cancelled) << name;
      const std::vector<MdCheckpoint>& t = taken[static_cast<std::size_t>(r)];
      ASSERT_EQ(t.size(), 10u) << name << " rank " << r;  // steps 10 ... 90, and 90 at the cancel
      EXPECT_EQ(t.back().step, 90) << name;
      for (std::size_t i = 0; i < 9; ++i)
        EXPECT_EQ(t[i].engine, one_ckpts[i].engine) << name << " rank " << r << " checkpoint " << i;
      EXPECT_EQ(t.back().engine, one_ckpts[8].engine) << name;
    }
    const MdCheckpoint& c = taken[0].back();
    MdParams q = p;
    q.resume = &c;
    const std::vector<MdResult> two = run_ranks(q, 2);
    for (int r = 0; r < 2; ++r)
      expect_same(one, two[static_cast<std::size_t>(r)], name + " resumed on 2 ranks");
    expect_same(one, run_md(q), name + " resumed in one process");
    q.resume = &one_ckpts[4];
    const std::vector<MdResult> three = run_ranks(q, 3);
    for (int r = 0; r < 3; ++r)
      expect_same(one, three[static_cast<std::size_t>(r)], name + " one process's checkpoint on 3 ranks");
  }
}

TEST(DriftRanks, TooManyRanksForTheBoxIsRefused) {
  std::vector<std::unique_ptr<work::Comm>> comms = work::local_comms(4);
  MdParams p = ds::test::small_md(Precision::kDouble, 10);  // 5 cells: 3 layers of 2.8 sigma
  p.comm = comms[0].get();
  try {
    validate(p);
    FAIL() << "4 ranks for 3 layers were accepted";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("ranks (mpirun -np 4)", 0), 0u) << m;
    EXPECT_NE(m.find("at most 3 ranks"), std::string::npos) << m;
  }
  p.cells = 6;  // 4 layers
  EXPECT_NO_THROW(validate(p));
  p.backend = Backend::kCuda;
  EXPECT_THROW(validate(p), std::invalid_argument);
}

}  // namespace
