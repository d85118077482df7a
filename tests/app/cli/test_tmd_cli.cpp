// `deepscope tmd exhaustive`: the CSV/JSON outputs and the hardest-case summary, resuming from
// the chunk file, bad input refused with nothing written (exit code 2 in main), and shards that
// write only their chunk files, merged into the single run's outputs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "arith/error.h"
#include "app/bench/bench.h"
#include "app/cli/cancel.h"
#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/work.h"
#include "test_files.h"

namespace {

using ds::app::ArgList;
using ds::app::cmd_tmd;

std::string tmpdir() { return ds::test::make_tmpdir("tmd-cli"); }
using ds::test::slurp;

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

int exit_code(const ArgList& args) {
  try {
    return cmd_tmd(args);
  } catch (const ds::cli::UsageError&) {
    return 2;
  } catch (const ds::ArithError&) {
    return 2;
  } catch (const ds::IoError&) {
    return 2;
  } catch (const std::exception&) {
    return 1;
  }
}

TEST(TmdCli, ExhaustiveWritesSortedCasesAndResumes) {
  const std::string dir = tmpdir(), out = dir + "/c.csv";
  const ArgList args = {"exhaustive", "--func",  "exp2",
                        "--mode",     "nearest", "--k",
                        "14",         "--range", "0xbcf38000:0xbcf3ffff",
                        "--chunk",    "8192",    "--backend",
                        "cpu",        "--quiet", "--out",
                        out};
  ASSERT_EQ(exit_code(args), 0);
  const std::string csv = slurp(out), json = slurp(dir + "/c.json");
  EXPECT_EQ(csv.rfind("x,x_value,run,run_capped,log2_dist,fx\n", 0), 0u);
  EXPECT_NE(csv.find("0xbcf3a937,"), std::string::npos) << csv;
  EXPECT_NE(json.find("\"hardest\": [\n    {\"x\": \"0xbcf3a937\""), std::string::npos) << json;
  // Rows sorted by argument.
  std::istringstream in(csv);
  std::string line, prev;
  std::getline(in, line);
  int rows = 0;
  while (std::getline(in, line)) {
    EXPECT_LT(prev, line.substr(0, 10));
    prev = line.substr(0, 10);
    ++rows;
  }
  EXPECT_GT(rows, 1);
  // A second run loads every chunk from the chunk file and writes the same CSV.
  std::remove(out.c_str());
  ASSERT_EQ(exit_code(args), 0);
  EXPECT_EQ(slurp(out), csv);
}

TEST(TmdCli, BadInputExitsTwoWithNothingWritten) {
  const std::string dir = tmpdir(), out = dir + "/o.csv";
  auto run = [&](std::initializer_list<const char*> extra) {
    ArgList a = {"exhaustive", "--out", out};
    for (const char* e : extra) a.push_back(e);
    return exit_code(a);
  };
  EXPECT_EQ(exit_code({}), 2);
  EXPECT_EQ(exit_code({"lefevre"}), 2);
  EXPECT_EQ(run({}), 2);  // no --range
  EXPECT_EQ(run({"--range", "0x3f800001:0x3f800000"}), 2);
  EXPECT_EQ(run({"--range", "1.0:2.0"}), 2);
  EXPECT_EQ(run({"--range", "0x3f800000"}), 2);
  EXPECT_EQ(run({"--range", "0x1ffffffff:0x3"}), 2);
  EXPECT_EQ(run({"--range", "all", "--func", "tan"}), 2);
  EXPECT_EQ(run({"--range", "all", "--mode", "up"}), 2);
  EXPECT_EQ(run({"--range", "all", "--precision", "53"}), 2);
  EXPECT_EQ(run({"--range", "all", "--precision", "4"}), 2);
  EXPECT_EQ(run({"--range", "all", "--k", "0"}), 2);
  EXPECT_EQ(run({"--range", "all", "--k", "99"}), 2);
  EXPECT_EQ(run({"--range", "all", "--backend", "tpu"}), 2);
  // k so small that about 2^32 / 2 cases would come out: refused from the estimate.
  EXPECT_EQ(run({"--range", "all", "--k", "2"}), 2);
  // Directed sin near 0: every small argument is hard to round.
  EXPECT_EQ(run({"--range", "0x00800000:0x39800000", "--func", "sin", "--mode", "directed", "--k", "12"}), 2);
  EXPECT_FALSE(exists(out));
  EXPECT_FALSE(exists(out + ".chunks"));
  EXPECT_EQ(exit_code({"exhaustive", "--range", "0x3f800000:0x3f8000ff", "--out", "/nonexistent-dir/x.csv"}),
            2);
}

TEST(TmdCli, LefevreAndRegularWriteTheSameCases) {
  const std::string dir = tmpdir();
  testing::internal::CaptureStdout();
  for (const char* search : {"lefevre", "regular"}) {
    const std::string out = dir + "/" + search + ".csv";
    ASSERT_EQ(
        exit_code({search, "--func", "log", "--mode", "directed", "--precision", "20", "--k", "12", "--range",
                   "0x40000000:0x4007ffff", "--log2n", "5", "--backend", "cpu", "--out", out}),
        0);
  }
  const std::string text = testing::internal::GetCapturedStdout();
  EXPECT_NE(text.find("NMDM histogram"), std::string::npos) << text;
  const std::string a = slurp(dir + "/lefevre.csv"), b = slurp(dir + "/regular.csv");
  EXPECT_EQ(a, b);
  EXPECT_GT(std::count(a.begin(), a.end(), '\n'), 2);
  const std::string json = slurp(dir + "/regular.json");
  EXPECT_NE(json.find("\"nmdm_histogram_5pct_bins\": ["), std::string::npos) << json;
  // Real ranges at precision 54.
  testing::internal::CaptureStdout();
  ASSERT_EQ(exit_code({"regular", "--func", "exp", "--precision", "54", "--k", "14", "--log2n", "8", "--x-lo",
                       "1", "--x-hi", "0x1.0000000008p+0", "--out", dir + "/w.csv"}),
            0);
  testing::internal::GetCapturedStdout();
  EXPECT_NE(slurp(dir + "/w.csv").find("0x1.0000000"), std::string::npos);
  // Bad input.
  const std::string bad = dir + "/bad.csv";
  EXPECT_EQ(exit_code({"regular", "--func", "sin", "--range", "0x3f800000:0x3fffffff", "--out", bad}), 2);
  EXPECT_EQ(exit_code({"regular", "--range", "0x3f800000:0x40400000", "--out", bad}), 2);  // two binades
  EXPECT_EQ(exit_code({"lefevre", "--range", "0xbf800000:0xbfffffff", "--out", bad}), 2);  // negative
  EXPECT_EQ(exit_code({"lefevre", "--precision", "54", "--range", "0x3f800000:0x3fffffff", "--out", bad}), 2);
  EXPECT_EQ(exit_code({"lefevre", "--x-lo", "2", "--x-hi", "1", "--out", bad}), 2);
  EXPECT_EQ(exit_code({"lefevre", "--x-lo", "1", "--x-hi", "3", "--out", bad}), 2);
  EXPECT_EQ(exit_code({"lefevre", "--x-lo", "1", "--x-hi", "1+x", "--out", bad}), 2);
  EXPECT_EQ(exit_code({"lefevre", "--split", "3", "--range", "0x3f800000:0x3fffffff", "--out", bad}), 2);
  EXPECT_EQ(exit_code({"lefevre", "--k", "3", "--range", "0x3f800000:0x3fffffff", "--out", bad}),
            2);  // flood
  EXPECT_FALSE(exists(bad));
}

// --max-seconds stops taking blocks once the time is up, as Ctrl-C does (exit 130, finished blocks
// kept); the same command then finishes the search, with the single run's outputs.
TEST(TmdCli, MaxSecondsStopsBetweenBlocksAndTheSameCommandFinishes) {
  const std::string dir = tmpdir();
  const ArgList base = {"regular",
                        "--func",
                        "log2",
                        "--mode",
                        "nearest",
                        "--precision",
                        "22",
                        "--k",
                        "12",
                        "--range",
                        "0x40400000:0x4079999a",
                        "--log2n",
                        "5",
                        "--log2-block",
                        "7",
                        "--log2-packet",
                        "5",
                        "--backend",
                        "cpu",
                        "--quiet"};
  auto with = [&](ArgList extra) {
    ArgList a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ASSERT_EQ(exit_code(with({"--out", dir + "/one.csv"})), 0);
  testing::internal::CaptureStderr();
  const int rc = exit_code(with({"--max-seconds", "1e-9", "--out", dir + "/t.csv"}));
  const std::string err = testing::internal::GetCapturedStderr();
  ds::app::cancel_flag() = false;  // the time limit raised the process-wide flag
  EXPECT_EQ(rc, 130);
  EXPECT_NE(err.find("time limit (--max-seconds) reached"), std::string::npos) << err;
  EXPECT_FALSE(exists(dir + "/t.csv"));
  EXPECT_TRUE(exists(dir + "/t.csv.chunks"));
  ASSERT_EQ(exit_code(with({"--out", dir + "/t.csv"})), 0);
  EXPECT_EQ(slurp(dir + "/t.csv"), slurp(dir + "/one.csv"));
  EXPECT_EQ(slurp(dir + "/t.json"), slurp(dir + "/one.json"));
  EXPECT_EQ(exit_code(with({"--max-seconds", "-1", "--out", dir + "/u.csv"})), 2);
  EXPECT_THROW(ds::app::bench_tmd({"--cpu-only", "--binade-first", "8000", "--binade-chunks", "500"}),
               ds::cli::UsageError);
}

TEST(TmdCli, BenchRunsOnTheCpu) {
  testing::internal::CaptureStdout();
  EXPECT_EQ(ds::app::bench_tmd({"--quick", "--cpu-only"}), 0);
  const std::string md = testing::internal::GetCapturedStdout();
  EXPECT_NE(md.find("| exp2 | 65536 |"), std::string::npos) << md;
}

}  // namespace

TEST(TmdCli, ShardsWriteChunkFilesThatMergeIntoTheSingleRun) {
  const std::string dir = tmpdir(), out = dir + "/s.csv", single = dir + "/one.csv";
  const ArgList base = {"exhaustive", "--func",   "log",
                        "--mode",     "directed", "--k",
                        "10",         "--range",  "0x3fc00000:0x3fc0ffff",
                        "--chunk",    "8192",     "--backend",
                        "cpu",        "--quiet"};
  auto with = [&](ArgList extra) {
    ArgList a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  // Bad placements: exit 2, nothing written.
  EXPECT_EQ(exit_code(with({"--shard", "2/2", "--out", out})), 2);
  EXPECT_EQ(exit_code(with({"--shard", "1", "--out", out})), 2);
  EXPECT_EQ(exit_code(with({"--shard", "a/b", "--out", out})), 2);
  EXPECT_EQ(exit_code(with({"--devices", "0", "--out", out})), 2);  // the CPU backend takes no list
  EXPECT_EQ(exit_code({"regular", "--range", "0x3f800000:0x3f80ffff", "--shard", "0/0", "--out", out}), 2);
  EXPECT_FALSE(exists(out));
  ASSERT_EQ(exit_code(with({"--out", single})), 0);
  std::vector<std::string> parts;
  for (const char* shard : {"0/2", "1/2"}) {
    testing::internal::CaptureStdout();
    ASSERT_EQ(exit_code(with({"--shard", shard, "--out", out})), 0);
    const std::string text = testing::internal::GetCapturedStdout();
    EXPECT_NE(text.find("deepscope merge"), std::string::npos) << text;
    EXPECT_FALSE(exists(out));  // a shard writes its chunk file only
    EXPECT_FALSE(exists(dir + "/s.json"));
    parts.push_back(out + ".chunks.shard-" + std::string(1, shard[0]) + "-of-2");
    EXPECT_TRUE(exists(parts.back())) << parts.back();
  }
  ds::work::merge_chunk_files(out + ".chunks", parts);
  testing::internal::CaptureStdout();
  ASSERT_EQ(exit_code(with({"--out", out})), 0);
  testing::internal::GetCapturedStdout();
  const std::string csv = slurp(out);
  EXPECT_EQ(csv, slurp(single));
  EXPECT_GT(std::count(csv.begin(), csv.end(), '\n'), 5);
}
