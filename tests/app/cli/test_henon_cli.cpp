// `deepscope henon`: outputs of orbit/period/scan, and bad input refused with the exceptions that
// main maps to exit code 2 (cli::UsageError, ArithError).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "arith/error.h"
#include "kernels/core/atomic_file.h"
#include "app/bench/bench.h"
#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "test_files.h"

namespace {

using ds::app::ArgList;
using ds::app::cmd_henon;

std::string tmpdir() { return ds::test::make_tmpdir("henon-cli"); }
using ds::test::slurp;

// The exit code the program returns for `deepscope henon ARGS`.
int exit_code(ArgList args) {
  args.insert(args.begin(), "henon");
  return ds::app::run(args);
}

TEST(HenonCli, OrbitWritesCsv) {
  const std::string out = tmpdir() + "/orbit.csv";
  ASSERT_EQ(cmd_henon({"orbit", "--a", "1.4", "--b", "0.3", "--points", "100", "--transient", "1e3",
                       "--arith", "dd", "--out", out, "--quiet"}),
            0);
  const std::string csv = slurp(out);
  EXPECT_EQ(csv.rfind("x,y\n", 0), 0u);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 101);
}

TEST(HenonCli, PeriodAndScanRun) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(cmd_henon({"period", "--a", "0.2", "--b", "0.3", "--transient", "2000", "--pmax", "10"}), 0);
  const std::string text = testing::internal::GetCapturedStdout();
  EXPECT_NE(text.find("period: 1"), std::string::npos) << text;
  EXPECT_NE(text.find("sink: yes"), std::string::npos) << text;

  const std::string dir = tmpdir();
  EXPECT_EQ(cmd_henon({"scan", "--a-min",     "0.2", "--a-step", "0.5",          "--na",   "3",    "--init",
                       "4",    "--transient", "500", "--pmax",   "16",           "--tol",  "1e-9", "--chunk",
                       "1",    "--backend",   "cpu", "--csv",    dir + "/s.csv", "--quiet"}),
            0);
  const std::string csv = slurp(dir + "/s.csv"), json = slurp(dir + "/s.json");
  EXPECT_EQ(csv.rfind("a_index,b_index,a,b,period,count,sink,x,y\n", 0), 0u);
  EXPECT_NE(json.find("\"results\""), std::string::npos);
  // Running again resumes every chunk from the chunk file and writes the same files.
  EXPECT_EQ(cmd_henon({"scan", "--a-min",     "0.2", "--a-step", "0.5",          "--na",   "3",    "--init",
                       "4",    "--transient", "500", "--pmax",   "16",           "--tol",  "1e-9", "--chunk",
                       "1",    "--backend",   "cpu", "--csv",    dir + "/s.csv", "--quiet"}),
            0);
  EXPECT_EQ(slurp(dir + "/s.csv"), csv);
  EXPECT_EQ(slurp(dir + "/s.json"), json);
}

// Two shards (a job array) merged with `deepscope merge`, then the command without --shard: the
// same files as one run, with nothing computed again.
TEST(HenonCli, MergedShardsEqualOneRun) {
  const std::string dir = tmpdir();
  const ArgList scan = {"scan", "--a-min", "0.2", "--a-step", "0.125", "--na", "9", "--init", "4", "--transient",
                        "300",  "--pmax",  "16",  "--tol",    "1e-9",  "--chunk", "2", "--backend", "cpu", "--quiet"};
  auto with = [&](ArgList more) {
    ArgList a = scan;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  ASSERT_EQ(cmd_henon(with({"--csv", dir + "/one.csv"})), 0);
  ASSERT_EQ(cmd_henon(with({"--csv", dir + "/s.csv", "--shard", "0/2"})), 0);
  ASSERT_EQ(cmd_henon(with({"--csv", dir + "/s.csv", "--shard", "1/2"})), 0);
  EXPECT_EQ(slurp(dir + "/s.csv"), "") << "a shard writes only its chunk file";
  ASSERT_EQ(ds::app::run({"merge", "--quiet", "--out", dir + "/s.csv.chunks", dir + "/s.csv.chunks.shard-0-of-2",
                          dir + "/s.csv.chunks.shard-1-of-2"}),
            0);
  testing::internal::CaptureStdout();
  ASSERT_EQ(cmd_henon(with({"--csv", dir + "/s.csv"})), 0);
  testing::internal::GetCapturedStdout();
  EXPECT_EQ(slurp(dir + "/s.csv"), slurp(dir + "/one.csv"));
  EXPECT_EQ(slurp(dir + "/s.json"), slurp(dir + "/one.json"));
  ASSERT_FALSE(slurp(dir + "/one.csv").empty());
  // The merged chunk file holds every chunk: a rerun computes nothing.
  EXPECT_NE(slurp(dir + "/s.csv.chunks").find("chunk 4 "), std::string::npos);

  EXPECT_EQ(exit_code(with({"--csv", dir + "/x.csv", "--shard", "2/2"})), 2);
  EXPECT_EQ(exit_code(with({"--csv", dir + "/x.csv", "--shard", "1"})), 2);
  EXPECT_EQ(exit_code(with({"--csv", dir + "/x.csv", "--devices", "0"})), 2);  // devices with the CPU
  EXPECT_EQ(ds::app::run({"merge", "--out", dir + "/m.chunks", dir + "/none.chunks"}), 2);
  EXPECT_EQ(ds::app::run({"merge", "--out", dir + "/m.chunks", dir + "/s.csv.chunks", dir + "/one.json"}), 2);
  // A file that is no chunk file at all (its first line no job's header) merged into nothing.
  EXPECT_EQ(ds::app::run({"merge", "--out", dir + "/m.chunks", dir + "/one.json"}), 2);
  EXPECT_EQ(slurp(dir + "/m.chunks"), "") << "merge wrote an output";
}

TEST(HenonCli, BadInputExitsTwo) {
  const std::string out = tmpdir() + "/o.csv";
  for (const char* bad : {"nan", "inf", "-inf", "x", "1..2", ""}) {
    EXPECT_EQ(exit_code({"orbit", "--a", bad, "--out", out}), 2) << bad;
    EXPECT_EQ(exit_code({"orbit", "--b", bad, "--out", out}), 2) << bad;
    EXPECT_EQ(exit_code({"orbit", "--x0", bad, "--out", out}), 2) << bad;
    EXPECT_EQ(exit_code({"period", "--y0", bad}), 2) << bad;
    EXPECT_EQ(exit_code({"scan", "--a-min", bad, "--csv", out}), 2) << bad;
  }
  EXPECT_EQ(exit_code({}), 2);
  EXPECT_EQ(exit_code({"spin"}), 2);
  EXPECT_EQ(exit_code({"orbit"}), 2);  // no --out
  EXPECT_EQ(exit_code({"orbit", "--points", "1e12", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbit", "--transient", "-5", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbit", "--transient", "1.5", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbit", "--arith", "f128", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbit", "--arith", "fx128", "--a", "1e12", "--out", out}), 2);
  EXPECT_EQ(exit_code({"period", "--pmax", "0"}), 2);
  EXPECT_EQ(exit_code({"period", "--tol", "-1"}), 2);
  EXPECT_EQ(exit_code({"scan", "--na", "100000000", "--nb", "100000000", "--csv", out}), 2);
  EXPECT_EQ(exit_code({"scan", "--box", "1,2,3", "--csv", out}), 2);
  EXPECT_EQ(exit_code({"scan", "--init", "0", "--csv", out}), 2);
  EXPECT_EQ(exit_code({"orbit", "--out", "/nonexistent-dir/x.csv"}), 2);
}

TEST(HenonCli, BenchRunsOnTheCpu) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(ds::app::bench_henon(
                {"--quick", "--cpu-only", "--formats", "f64,dd,limb4", "--steps", "2000", "--orbits", "4"}),
            0);
  const std::string md = testing::internal::GetCapturedStdout();
  EXPECT_NE(md.find("| f64x2 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| f64x2 (a, b doubles) |"), std::string::npos) << md;  // --params both (default)
  EXPECT_EQ(md.find("| f64 (a, b doubles) |"), std::string::npos) << md;    // only f64xN get two rows
  EXPECT_EQ(exit_code({"orbit", "--arith", "nope", "--out", "/tmp/x.csv"}), 2);
  EXPECT_THROW(ds::app::bench_henon({"--cpu-only", "--params", "halves"}), ds::cli::UsageError);
}

}  // namespace
