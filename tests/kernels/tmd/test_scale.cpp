// The TMD searches on ds::work: shards run apart and merged give the single run's files byte for
// byte, and a run on the merged chunk file computes nothing; partial and cancelled runs resume to
// the same files; a damaged chunk record is refused by name; the chunk payloads round-trip to the
// bit; and (device section) two workers on one GPU give the single device's files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "kernels/tmd/tmd.h"
#include "kernels/tmd/lefevre.h"
#include "kernels/tmd/records.h"
#include "kernels/core/work.h"
#include "oracle.h"
#include "test_files.h"

namespace {

using namespace ds;
using namespace ds::tmd;

uint32_t bits_of(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

ExhaustiveParams small_exhaustive() {
  ExhaustiveParams p;
  p.func = Func::kLog;
  p.mode = Mode::kDirected;
  p.k = 10;
  p.lo = bits_of(1.5f);
  p.hi = p.lo + 40000;
  p.chunk_inputs = 8192;  // 5 chunks
  return p;
}

LefevreParams small_lefevre(Search s) {
  LefevreParams p;
  p.search = s;
  p.func = Func::kLog2;
  p.mode = Mode::kNearest;
  p.precision = 22;
  p.k = 10;
  p.lo = bits_of(3.0f);
  p.hi = p.lo + 65535;  // 2^14 arguments of precision 22
  p.log2_n = 5;
  p.log2_block = 6;  // 64 intervals of 32 arguments per block: 8 blocks
  p.log2_packet = 5;
  return p;
}

std::string lefevre_csv(const LefevreResult& r) {
  ExhaustiveResult er;
  er.cases = r.cases;
  return cases_csv(ExhaustiveParams{}, er);
}

struct Files {
  std::string csv, json;
};
Files files_of(const ExhaustiveParams& p, const ExhaustiveResult& r) {
  return {cases_csv(p, r), cases_json(p, r)};
}
Files files_of(const LefevreParams& p, const LefevreResult& r) {
  return {lefevre_csv(r), lefevre_json(p, r)};
}

// How a search ran: chunks (blocks) owned, loaded and computed.
struct Counts {
  int64_t owned = 0, loaded = 0, run = 0;
  bool cancelled = false;
};
Counts counts_of(const ExhaustiveResult& r) {
  return {r.chunks_owned, r.chunks_loaded, r.chunks_run, r.cancelled};
}
Counts counts_of(const LefevreResult& r) {
  return {r.blocks_owned, r.blocks_loaded, r.blocks_run, r.cancelled};
}
ExhaustiveResult search(const ExhaustiveParams& p) { return exhaustive(p); }
LefevreResult search(const LefevreParams& p) { return lefevre_search(p); }

// Runs the search of p as shards 0/2 and 1/2 into their own chunk files, merges them, and checks
// that a run on the merged file computes nothing and writes the single run's files.
template <class Params>
void shards_merge_to_the_single_run(const Params& p) {
  const std::string dir = test::make_tmpdir("tmd-scale");
  const auto whole = search(p);
  const Counts wc = counts_of(whole);
  ASSERT_EQ(wc.run, wc.owned);
  ASSERT_GE(wc.owned, 5);
  ASSERT_GT(whole.cases.size(), 10u);
  const Files want = files_of(p, whole);
  std::vector<std::string> parts;
  int64_t owned = 0;
  std::size_t cases = 0;
  for (int64_t i = 0; i < 2; ++i) {
    Params q = p;
    q.placement.shard = work::Shard{i, 2};
    q.chunk_file = work::shard_chunk_file(dir + "/s.chunks", q.placement.shard);
    const auto r = search(q);
    const Counts c = counts_of(r);
    EXPECT_FALSE(c.cancelled);
    EXPECT_EQ(c.run, c.owned);
    EXPECT_EQ(c.owned, (wc.owned + 1 - i) / 2);  // chunks C with C mod 2 = i
    owned += c.owned;
    cases += r.cases.size();
    parts.push_back(q.chunk_file);
  }
  EXPECT_EQ(owned, wc.owned);
  EXPECT_EQ(cases, whole.cases.size());
  const std::string merged = dir + "/m.chunks";
  EXPECT_EQ(work::merge_chunk_files(merged, parts), wc.owned);
  Params m = p;
  m.chunk_file = merged;
  const auto again = search(m);
  const Counts ac = counts_of(again);
  EXPECT_EQ(ac.run, 0);
  EXPECT_EQ(ac.loaded, wc.owned);
  const Files got = files_of(m, again);
  EXPECT_EQ(got.csv, want.csv);
  EXPECT_EQ(got.json, want.json);
  // The chunk file of another search (k + 1) is refused by the merge and by the search.
  Params other = p;
  other.k = p.k + 1;
  other.placement.shard = work::Shard{0, 4};
  other.chunk_file = dir + "/other.chunks";
  search(other);
  EXPECT_THROW(work::merge_chunk_files(dir + "/bad.chunks", {parts[0], other.chunk_file}),
               std::runtime_error);
  m.chunk_file = other.chunk_file;
  EXPECT_THROW(search(m), std::runtime_error);
  for (const std::string& f : {parts[0], parts[1], merged, other.chunk_file}) std::remove(f.c_str());
  rmdir(dir.c_str());
}

// Resumes the search of p from a chunk file holding a third of its chunks (shard 0/3's run: the
// header does not name the shard), then from a run cancelled after its second computed chunk (p's
// callback counts chunks in *count and sets *stop at 2), and checks the files both times.
template <class Params>
void resumed_runs_give_the_same_files(Params p, std::atomic<bool>* stop, int* count) {
  const std::string dir = test::make_tmpdir("tmd-resume");
  const Files want = files_of(p, search(p));
  *count = 0;
  *stop = false;
  p.chunk_file = dir + "/r.chunks";
  Params third = p;
  third.placement.shard = work::Shard{0, 3};
  const Counts tc = counts_of(search(third));
  const auto resumed = search(p);
  const Counts rc = counts_of(resumed);
  EXPECT_GE(tc.run, 2);
  EXPECT_EQ(rc.loaded, tc.run);
  EXPECT_EQ(rc.run, rc.owned - tc.run);
  EXPECT_EQ(files_of(p, resumed).csv, want.csv);
  EXPECT_EQ(files_of(p, resumed).json, want.json);
  // Cancelled: the worker may finish chunks ahead of the writer, and every finished chunk is kept,
  // so the cut can come late (even after the last chunk of a small search).
  std::remove(p.chunk_file.c_str());
  *count = 0;
  *stop = false;
  p.cancel = stop;
  const Counts pc = counts_of(search(p));
  EXPECT_GE(pc.run, 2);
  EXPECT_EQ(pc.cancelled, pc.run < pc.owned);
  *stop = false;
  const auto rest = search(p);
  const Counts sc = counts_of(rest);
  EXPECT_FALSE(sc.cancelled);
  EXPECT_EQ(sc.loaded, pc.run);
  EXPECT_EQ(sc.loaded + sc.run, sc.owned);
  EXPECT_EQ(files_of(p, rest).csv, want.csv);
  EXPECT_EQ(files_of(p, rest).json, want.json);
  std::remove(p.chunk_file.c_str());
  rmdir(dir.c_str());
}

}  // namespace

TEST(TmdScale, ExhaustiveShardsMergeToTheSingleRun) { shards_merge_to_the_single_run(small_exhaustive()); }

TEST(TmdScale, LefevreAndRegularShardsMergeToTheSingleRun) {
  for (Search s : {Search::kLefevre, Search::kRegular}) {
    SCOPED_TRACE(search_name(s));
    shards_merge_to_the_single_run(small_lefevre(s));
  }
}

TEST(TmdScale, ResumedRunsGiveTheSameFiles) {
  std::atomic<bool> stop{false};
  ExhaustiveParams e = small_exhaustive();
  int chunks = 0;
  e.on_chunk = [&](int64_t, int64_t) {
    if (++chunks == 2) stop = true;
  };
  resumed_runs_give_the_same_files(e, &stop, &chunks);
  LefevreParams l = small_lefevre(Search::kRegular);
  int blocks = 0;
  l.on_phase = [&](int phase, const LefevreResult&) {
    if (phase == 3 && ++blocks == 2) stop = true;
  };
  resumed_runs_give_the_same_files(l, &stop, &blocks);
}

TEST(TmdScale, DamagedRecordIsRefusedByName) {
  // A complete record (ds::work's framing) whose payload is not a chunk of this search.
  const std::string dir = test::make_tmpdir("tmd-damaged");
  ExhaustiveParams p = small_exhaustive();
  p.chunk_file = dir + "/d.chunks";
  p.placement.shard = work::Shard{0, 5};  // chunk 0 only
  exhaustive(p);
  std::string text = test::slurp(p.chunk_file);
  const std::string header = text.substr(0, text.find('\n') + 1);
  for (const std::string& payload :
       {std::string("1 2 3\n"), std::string("5 1 0 1 0.5 0.25\n0x3fc00000 4 0 x 0x1p+0\n"),
        std::string("5 1 0 2 0.5 0.25\n0x3fc00000 4 0 12.5 0x1p+0\n")}) {
    SCOPED_TRACE(payload);
    {
      std::ofstream out(p.chunk_file, std::ios::binary | std::ios::trunc);
      out << header << "chunk 0 " << payload.size() << "\n" << payload << "end 0\n";
    }
    try {
      exhaustive(p);
      ADD_FAILURE() << "a damaged record was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("chunk 0 of " + p.chunk_file), std::string::npos) << e.what();
    }
  }
  std::remove(p.chunk_file.c_str());
  rmdir(dir.c_str());
}

TEST(TmdScale, PayloadsRoundTripToTheBit) {
  records::ExhaustiveChunk e;
  e.evaluated = 123456;
  e.candidates = 3;
  e.exact = 1;
  e.eval_seconds = 0.1;
  e.mpfr_seconds = 1.0 / 3;
  Case a;
  a.x = 0x3fc00001u;
  a.run = 17;
  a.log2_dist = 21.123456789012345;
  a.fx = "0x1.8p-1";
  Case b = a;
  b.x = 0x3fc00002u;
  b.run_capped = true;
  b.log2_dist = INFINITY;  // at a breakpoint to 256 bits
  e.cases = {a, b};
  const records::ExhaustiveChunk e2 = records::parse_exhaustive(records::exhaustive_text(e));
  EXPECT_EQ(records::exhaustive_text(e2), records::exhaustive_text(e));
  EXPECT_EQ(e2.mpfr_seconds, e.mpfr_seconds);
  ASSERT_EQ(e2.cases.size(), 2u);
  EXPECT_EQ(e2.cases[0].log2_dist, a.log2_dist);
  EXPECT_TRUE(std::isinf(e2.cases[1].log2_dist));
  EXPECT_TRUE(e2.cases[1].run_capped);

  records::LefevreBlock l;
  l.phase1 = 64;
  l.candidates = 2;
  l.add_iters({1, 2, 3, 9, 4, 4, 4, 4});
  l.seconds_mpfr = 0.7;
  Case c = a;
  c.index = 99;
  c.x_text = "0x1.00000000000000cp+0";
  l.cases = {c};
  const records::LefevreBlock l2 = records::parse_lefevre(records::lefevre_text(l));
  EXPECT_EQ(records::lefevre_text(l2), records::lefevre_text(l));
  EXPECT_EQ(l2.nmdm_sum, l.nmdm_sum);
  EXPECT_EQ(l2.hist, l.hist);
  EXPECT_EQ(l2.cases[0].x_text, c.x_text);
  // Truncated, extra or non-numeric content is refused.
  const std::string t = records::lefevre_text(l);
  EXPECT_THROW(records::parse_lefevre(t.substr(0, t.size() - 1)), std::runtime_error);
  EXPECT_THROW(records::parse_lefevre(t + "junk\n"), std::runtime_error);
  EXPECT_THROW(records::parse_exhaustive("1 2 3 0 x 0\n"), std::runtime_error);
  EXPECT_THROW(records::parse_exhaustive("-1 2 3 0 0 0\n"), std::runtime_error);
  EXPECT_THROW(records::parse_exhaustive(""), std::runtime_error);
}

TEST(TmdDevice, TwoWorkersOnOneGpuGiveTheSingleDeviceFiles) {
  DEEPSCOPE_REQUIRE_GPU();
  ExhaustiveParams e = small_exhaustive();
  e.backend = Backend::kCuda;
  e.placement.devices = "0";
  const ExhaustiveResult one = exhaustive(e);
  e.placement.devices = "0,0";
  const ExhaustiveResult two = exhaustive(e);
  // Both workers are labelled cuda:0, so per_worker has one entry holding every chunk.
  int64_t counted = 0;
  for (const auto& w : two.per_worker) counted += w.second;
  EXPECT_EQ(counted, two.chunks_run);
  EXPECT_EQ(two.chunks_run, two.chunks);
  EXPECT_EQ(files_of(e, two).csv, files_of(e, one).csv);
  EXPECT_EQ(files_of(e, two).json, files_of(e, one).json);
  // And the CPU's files (the backend named in the JSON aside).
  ExhaustiveParams c = small_exhaustive();
  EXPECT_EQ(files_of(c, exhaustive(c)).csv, files_of(e, two).csv);
  for (Search s : {Search::kLefevre, Search::kRegular}) {
    SCOPED_TRACE(search_name(s));
    LefevreParams l = small_lefevre(s);
    l.backend = Backend::kCuda;
    l.placement.devices = "0";
    const LefevreResult a = lefevre_search(l);
    l.placement.devices = "0,0";
    const LefevreResult b = lefevre_search(l);
    EXPECT_EQ(b.blocks_run, b.blocks);
    EXPECT_EQ(files_of(l, b).csv, files_of(l, a).csv);
    EXPECT_EQ(files_of(l, b).json, files_of(l, a).json);
  }
}
