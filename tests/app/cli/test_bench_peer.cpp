// `bench perturb --peer f3` (app/bench/peer_f3.cpp, issue #48): F3's parameter file, its counts
// read into deepscope's convention, the pixel-by-pixel comparison, and the bad inputs (exit 2
// before any work; a peer that fails, exit 1 naming it). The timed runs against the real peer are
// the bench's own (docs/bench/cpu-peers.md): CI has no Fraktaler-3.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/bench/peer_f3.h"
#include "app/cli/commands.h"
#include "run_captured.h"
#include "test_files.h"

namespace {

using namespace ds;
using namespace ds::app;

// The exit code and stderr of the whole command line, as main runs it.
int run(const ArgList& args, std::string* err) { return ds::test::run_captured(args, err); }

TEST(BenchPeer, TheF3ParametersCarryTheLocationAndLiftItsCaps) {
  Location loc;
  loc.re = "-1.75000000000000000000000000001";
  loc.im = "0.0000000000000000000000001";
  loc.zoom = "1e14";
  const std::string t = f3_toml(loc, 4036, 640, 360, "/tmp/x/f3");
  EXPECT_NE(t.find("real = \"-1.75000000000000000000000000001\""), std::string::npos) << t;
  EXPECT_NE(t.find("imag = \"0.0000000000000000000000001\""), std::string::npos);
  EXPECT_NE(t.find("zoom = \"1e14\""), std::string::npos);
  for (const char* key : {"iterations = 4036", "maximum_reference_iterations = 4036",
                          "maximum_perturb_iterations = 4036", "maximum_bla_steps = 4036", "escape_radius = 2.0",
                          "width = 640", "height = 360", "subsampling = 1", "subframes = 1",
                          "filename = \"/tmp/x/f3\""})
    EXPECT_NE(t.find(key), std::string::npos) << key;
}

// F3's row 0 is the bottom; its count is n + 1024; all ones where it never escaped.
TEST(BenchPeer, F3sCountsAreReadInOurConvention) {
  const uint64_t in32 = 0xFFFFFFFFu;
  // 3 x 2, F3's rows bottom first.
  const std::vector<uint64_t> raw = {1024 + 5, 1024 + 6, in32, 1024 + 100, 1024 + 101, 1024 + 102};
  const std::vector<uint64_t> c = f3_counts(raw, false, 3, 2, 5000);
  EXPECT_EQ(c, (std::vector<uint64_t>{100, 101, 102, 5, 6, 5000}));
  const std::vector<uint64_t> wide = {~uint64_t(0), (uint64_t(1) << 32) + 1024};
  EXPECT_EQ(f3_counts(wide, true, 2, 1, uint64_t(1) << 40), (std::vector<uint64_t>{uint64_t(1) << 40, uint64_t(1) << 32}));
}

TEST(BenchPeer, PixelsDifferBeyondOneOrWhereOnlyOneEscaped) {
  const uint64_t m = 1000;
  //                                 same  +1   +2   in/out out/in  both in  ours undecided
  const std::vector<uint64_t> peer = {10, 21, 32, m, 50, m, 77};
  const std::vector<uint64_t> ours = {10, 20, 30, 40, m, m, 0};
  const PeerCompare c = compare_with_peer(peer, ours, m);
  EXPECT_EQ(c.offset, 0);
  EXPECT_EQ(c.both_escaped, 3u);
  EXPECT_EQ(c.peer_inside, 2u);
  EXPECT_EQ(c.ours_inside, 2u);
  EXPECT_EQ(c.ours_undecided, 1u);
  EXPECT_EQ(c.differ, (std::vector<std::size_t>{2, 3, 4}));
  // A constant offset between the two programs' counts is found, not assumed.
  const std::vector<uint64_t> shifted = {11, 22, 33, m, 51, m, 78};
  const PeerCompare s = compare_with_peer(shifted, ours, m);
  EXPECT_EQ(s.offset, 1);
  EXPECT_EQ(s.differ, (std::vector<std::size_t>{2, 3, 4}));
}

TEST(BenchPeer, BadInputsExitTwoBeforeAnyWork) {
  const std::string kf = test::source_path("tests/data/kf-benchmarks");
  std::string err;
  EXPECT_EQ(run({"bench", "perturb", "--peer", "kf", "--kf", kf}, &err), 2);
  EXPECT_NE(err.find("\"kf\" is not a known peer"), std::string::npos) << err;
  EXPECT_EQ(run({"bench", "perturb", "--peer", "f3", "--peer-dir", "/nonexistent"}, &err), 2);
  EXPECT_NE(err.find("give --kf DIR"), std::string::npos) << err;
  EXPECT_EQ(run({"bench", "perturb", "--peer", "f3", "--kf", kf, "--peer-dir", "/nonexistent"}, &err), 2);
  EXPECT_NE(err.find("no program /nonexistent/fraktaler-3"), std::string::npos) << err;
  // A stand-in peer whose programs exist: a bad location is refused before anything runs, and a
  // peer that fails ends the bench with exit 1, naming the command and what it printed (its folder
  // has a quote in its name: the commands run without a shell, the message quotes them).
  const std::string dir = test::make_tmpdir("bench-peer"), bin = dir + "/it's build";
  mkdir(bin.c_str(), 0755);
  for (const char* name : {"fraktaler-3", "fraktaler-3-centres"}) {
    const std::string p = bin + "/" + name;
    std::ofstream(p) << "#!/bin/sh\necho stand-in peer failing >&2\nexit 3\n";
    chmod(p.c_str(), 0755);
  }
  EXPECT_EQ(run({"bench", "perturb", "--peer", "f3", "--peer-dir", bin, "--location", dir + "/missing.kfr"}, &err), 2);
  EXPECT_NE(err.find("missing.kfr"), std::string::npos) << err;
  EXPECT_EQ(run({"bench", "perturb", "--peer", "f3", "--peer-dir", bin, "--location", kf + "/1e14.kfr", "--size",
                 "16x16", "--runs", "1"},
                &err),
            1);
  EXPECT_NE(err.find("failed (exit 3)"), std::string::npos) << err;
  EXPECT_NE(err.find("stand-in peer failing"), std::string::npos) << err;
  std::filesystem::remove_all(dir);
}

}  // namespace
