// Checkpoints of the Lennard-Jones run (docs/drift.md, "Checkpoints"): a run cancelled part-way and
// resumed from its last checkpoint gives the uninterrupted run's samples, fit and state hash to the
// bit in every precision, from the equilibration or the sampling, through a cell-list growth and a
// blow-up; the checkpoint file round-trips and refuses damaged bytes; (device section) the same on
// CUDA, and a CPU checkpoint continued on CUDA.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "kernels/drift/drift.h"
#include "kernels/drift/md_checkpoint.h"
#include "md_params.h"
#include "oracle.h"

namespace {

using namespace ds;
using namespace ds::drift;

// 500 atoms, 50 equilibration steps (intervals of 100 steps or less: two checkpoints need more),
// 200 steps sampled every 10, a checkpoint at every boundary.
MdParams params(Precision pr) {
  MdParams p = ds::test::small_md(pr, 200);
  p.equilibration = 250;  // intervals of 100, 100, 50
  p.checkpoint_seconds = 0;
  return p;
}

void expect_same(const MdResult& a, const MdResult& b, const std::string& what) {
  ASSERT_EQ(a.samples.size(), b.samples.size()) << what;
  for (std::size_t i = 0; i < a.samples.size(); ++i) {
    EXPECT_EQ(a.samples[i].step, b.samples[i].step) << what;
    EXPECT_EQ(a.samples[i].ke, b.samples[i].ke) << what << " sample " << i;
    EXPECT_EQ(a.samples[i].pe, b.samples[i].pe) << what << " sample " << i;
    EXPECT_EQ(a.samples[i].total, b.samples[i].total) << what << " sample " << i;
  }
  EXPECT_EQ(a.fit.slope, b.fit.slope) << what;
  EXPECT_EQ(a.fit.intercept, b.fit.intercept) << what;
  EXPECT_EQ(a.fit.rms, b.fit.rms) << what;
  EXPECT_EQ(a.state_hash, b.state_hash) << what;
  EXPECT_EQ(a.steps_done, b.steps_done) << what;
  EXPECT_EQ(a.blew_up, b.blew_up) << what;
  EXPECT_EQ(a.blowup_step, b.blowup_step) << what;
  EXPECT_EQ(a.message, b.message) << what;
}

// Cancels the run once the sample of `at` is taken (during the equilibration: at its first
// checkpoint past `-at` steps), and returns the checkpoint taken at the cancel.
MdCheckpoint cancelled_at(MdParams p, int64_t at, MdResult* out) {
  std::atomic<bool> stop{false};
  std::vector<MdCheckpoint> taken;
  p.cancel = &stop;
  p.on_checkpoint = [&](const MdCheckpoint& c) {
    taken.push_back(c);
    if (at < 0 && !c.sampling && c.equilibrated >= -at) stop = true;
  };
  const MdResult r = run_md(p, [&](const MdSample& s) {
    if (at >= 0 && s.step == at) stop = true;
  });
  if (out) *out = r;
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(taken.empty());
  return taken.empty() ? MdCheckpoint{} : taken.back();
}

TEST(DriftCheckpoint, CancelledAndResumedIsTheUninterruptedRunInEveryPrecision) {
  for (Precision pr : all_precisions()) {
    const std::string name = precision_name(pr);
    MdParams p = params(pr);
    const MdResult whole = run_md(p);
    ASSERT_FALSE(whole.blew_up) << name << ": " << whole.message;
    // Stopped while sampling, at step 90.
    MdResult cut;
    const MdCheckpoint c = cancelled_at(p, 90, &cut);
    EXPECT_TRUE(c.sampling) << name;
    EXPECT_EQ(c.step, 90) << name;
    EXPECT_EQ(c.samples.size(), 10u) << name;
    EXPECT_EQ(cut.samples.size(), 10u) << name;
    p.resume = &c;
    expect_same(whole, run_md(p), name + " resumed at step 90");
    // Stopped during the equilibration (after its first interval of 100 steps).
    p.resume = nullptr;
    const MdCheckpoint e = cancelled_at(p, -100, nullptr);
    EXPECT_FALSE(e.sampling) << name;
    EXPECT_EQ(e.equilibrated, 100) << name;
    p.resume = &e;
    expect_same(whole, run_md(p), name + " resumed in the equilibration");
  }
}

// Each checkpoint of one run (every boundary) is a starting point that gives the same run; and a
// resumed run's own checkpoints are the first run's, bytes of the engine included.
TEST(DriftCheckpoint, EveryCheckpointResumesToTheSameRun) {
  MdParams p = params(Precision::kComposite);
  std::vector<MdCheckpoint> all;
  p.on_checkpoint = [&](const MdCheckpoint& c) { all.push_back(c); };
  const MdResult whole = run_md(p);
  ASSERT_EQ(all.size(), 2u + 19u);  // equilibration at 100 and 200; steps 10 ... 190
  for (std::size_t k = 0; k < all.size(); k += 4) {
    MdParams q = params(Precision::kComposite);
    std::vector<MdCheckpoint> again;
    q.on_checkpoint = [&](const MdCheckpoint& c) { again.push_back(c); };
    q.resume = &all[k];
    expect_same(whole, run_md(q), "from checkpoint " + std::to_string(k));
    ASSERT_EQ(again.size(), all.size() - k - 1);
    for (std::size_t i = 0; i < again.size(); ++i) {
      EXPECT_EQ(again[i].engine, all[k + 1 + i].engine) << k << " " << i;
      EXPECT_EQ(again[i].step, all[k + 1 + i].step);
    }
  }
}

// A cell list that starts too small (2 slots) grows; the capacity travels with the checkpoint.
TEST(DriftCheckpoint, CellCapacityTravelsWithTheState) {
  MdParams p = params(Precision::kFloat);
  p.cell_capacity = 2;
  const MdResult whole = run_md(p);
  ASSERT_FALSE(whole.blew_up) << whole.message;
  const MdCheckpoint c = cancelled_at(p, 120, nullptr);
  p.resume = &c;
  expect_same(whole, run_md(p), "small cell list");
}

// A run that blows up (dt 0.02, T* = 3: the energy leaves its bound at step 47, test_drift_ranks)
// resumed from the checkpoint at step 40 finds it at the same step with the same message: the
// replay restores the imported state, so resume must save it.
TEST(DriftCheckpoint, BlowUpIsFoundAtTheSameStepAfterAResume) {
  MdParams p = ds::test::small_md(Precision::kDouble, 400);
  p.dt = 0.02;
  p.checkpoint_seconds = 0;
  std::vector<MdCheckpoint> all;
  p.on_checkpoint = [&](const MdCheckpoint& c) { all.push_back(c); };
  const MdResult whole = run_md(p);
  ASSERT_TRUE(whole.blew_up) << "expected this run to blow up";
  ASSERT_EQ(all.size(), 4u) << "checkpoints at steps 10 to 40, the blow-up at 47";
  p.on_checkpoint = nullptr;
  p.resume = &all.back();
  std::printf("blew up at step %lld; resumed from step %lld\n", static_cast<long long>(whole.blowup_step),
              static_cast<long long>(all.back().step));
  expect_same(whole, run_md(p), "blow-up");
}

TEST(DriftCheckpoint, ACheckpointOfOtherParametersIsRefused) {
  MdParams p = params(Precision::kDouble);
  const MdCheckpoint c = cancelled_at(p, 50, nullptr);
  MdParams q = params(Precision::kFloat);  // 4-byte values, not 8
  q.resume = &c;
  EXPECT_THROW(run_md(q), std::invalid_argument);
  q = params(Precision::kDouble);
  q.cells = 6;  // another atom count
  q.resume = &c;
  EXPECT_THROW(run_md(q), std::invalid_argument);
  q = params(Precision::kDouble);
  q.sample_every = 20;  // step 50 is not a sampling step
  q.resume = &c;
  EXPECT_THROW(run_md(q), std::invalid_argument);
  q = params(Precision::kDouble);
  MdCheckpoint bad = c;
  bad.samples.pop_back();
  q.resume = &bad;
  EXPECT_THROW(run_md(q), std::invalid_argument);
  bad = c;
  bad.engine.resize(bad.engine.size() - 8);
  q.resume = &bad;
  EXPECT_THROW(run_md(q), std::invalid_argument);
  q.resume = nullptr;
  q.checkpoint_seconds = -1;
  EXPECT_THROW(run_md(q), std::invalid_argument);
}

TEST(DriftCheckpoint, FileRoundTripsAndRefusesDamage) {
  MdParams p = params(Precision::kFF);
  MdCheckpointFile f;
  f.fingerprint = "deepscope drift md v2 cells=5 test";
  f.precision = Precision::kFF;
  f.seed = 12345;
  f.state = cancelled_at(p, 40, nullptr);
  const std::string bytes = checkpoint_file_bytes(f);
  const MdCheckpointFile g = parse_checkpoint_file(bytes);
  EXPECT_EQ(g.fingerprint, f.fingerprint);
  EXPECT_EQ(g.precision, f.precision);
  EXPECT_EQ(g.seed, f.seed);
  EXPECT_EQ(g.state.step, 40);
  EXPECT_EQ(g.state.engine, f.state.engine);
  EXPECT_EQ(checkpoint_file_bytes(g), bytes);
  p.resume = &g.state;
  MdParams q = params(Precision::kFF);
  expect_same(run_md(q), run_md(p), "through the file");
  // Truncated anywhere, one byte changed anywhere, or not a checkpoint at all.
  for (std::size_t cut :
       {std::size_t{0}, std::size_t{10}, std::size_t{40}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THROW(parse_checkpoint_file(bytes.substr(0, cut)), std::invalid_argument) << cut;
  for (std::size_t at :
       {std::size_t{3}, std::size_t{50}, std::size_t{70}, bytes.size() / 2, bytes.size() - 3}) {
    std::string b = bytes;
    b[at] = static_cast<char>(b[at] ^ 0x10);
    EXPECT_THROW(parse_checkpoint_file(b), std::invalid_argument) << at;
  }
  EXPECT_THROW(parse_checkpoint_file("precision,seed,step\n"), std::invalid_argument);
}

// Device section (has not run on a GPU where it was written: docs/drift.md says so).
TEST(DriftDevice, MdCheckpointResumesToTheBit) {
  DEEPSCOPE_REQUIRE_GPU();
  for (Precision pr : all_precisions()) {
    MdParams p = params(pr);
    p.backend = Backend::kCuda;
    const MdResult whole = run_md(p);
    const MdCheckpoint c = cancelled_at(p, 90, nullptr);
    p.resume = &c;
    expect_same(whole, run_md(p), std::string(precision_name(pr)) + " on CUDA");
    // The engines' states have one layout: a CPU checkpoint continues on CUDA as the CPU run.
    MdParams cpu = params(pr);
    const MdResult on_cpu = run_md(cpu);
    const MdCheckpoint k = cancelled_at(cpu, 90, nullptr);
    p.resume = &k;
    expect_same(on_cpu, run_md(p), std::string(precision_name(pr)) + " CPU checkpoint on CUDA");
  }
}

}  // namespace
