// `deepscope henon orbits`: the catalogue's CSV and JSON, and bad input refused with exit code 2
// before anything is written.
#include <gtest/gtest.h>

#include <fstream>

#include <algorithm>
#include <string>

#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "test_files.h"

namespace {

using ds::app::ArgList;

int exit_code(ArgList args) {
  args.insert(args.begin(), "henon");
  return ds::app::run(args);
}

TEST(HenonOrbitsCli, WritesCsvAndJson) {
  const std::string dir = ds::test::make_tmpdir("henon-orbits-cli");
  ASSERT_EQ(exit_code({"orbits", "--period-max", "8", "--out", dir + "/o.csv", "--quiet"}), 0);
  const std::string csv = ds::test::slurp(dir + "/o.csv"), json = ds::test::slurp(dir + "/o.json");
  EXPECT_EQ(csv.rfind("period,index,x,y,x_width,y_width,", 0), 0u);
  // 1 + 1 + 0 + 1 + 0 + 2 + 4 + 7 orbits with 1*1 + 2*1 + 4*1 + 6*2 + 7*4 + 8*7 = 103 points.
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 104);
  EXPECT_NE(json.find("\"complete\": true"), std::string::npos);
  EXPECT_NE(json.find("\"orbits\": 16,"), std::string::npos);
  EXPECT_NE(json.find("{\"n\": 8, \"orbits\": 7,"), std::string::npos);
  EXPECT_NE(json.find("\"kind\": \"quadrilateral\""), std::string::npos);
  // The catalogue is whole, so its resume file is gone.
  EXPECT_FALSE(std::ifstream(dir + "/o.csv.chunks").good());
}

TEST(HenonOrbitsCli, BadInputExitsTwoAndWritesNothing) {
  const std::string dir = ds::test::make_tmpdir("henon-orbits-cli");
  const std::string out = dir + "/o.csv";
  EXPECT_EQ(exit_code({"orbits", "--period-max", "0", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbits", "--a", "nan", "--period-max", "3", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbits", "--b", "inf", "--period-max", "3", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbits", "--b", "0", "--period-max", "3", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbits", "--box", "1,-1,0,1", "--period-max", "3", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbits", "--box", "-1,1,0.5,0.5", "--period-max", "3", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbits", "--period-max", "60", "--out", out}), 2);
  EXPECT_EQ(exit_code({"orbits", "--period-max", "3"}), 2);  // no --out
  EXPECT_FALSE(ds::test::slurp(out).size());
}

// The memory refusal's estimate is printed in short (it was 2.29e210 GB written out in 211 digits at 1000).
TEST(HenonOrbitsCli, MemoryRefusalIsReadable) {
  const std::string dir = ds::test::make_tmpdir("henon-orbits-cli");
  testing::internal::CaptureStderr();
  EXPECT_EQ(exit_code({"orbits", "--period-max", "1000", "--out", dir + "/o.csv"}), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string first = err.substr(0, err.find('\n'));
  EXPECT_EQ(first.rfind("deepscope: --period-max 1000 needs an estimated ", 0), 0u) << first;
  EXPECT_NE(first.find("e+"), std::string::npos) << first;
  EXPECT_LT(first.size(), 160u) << first;
}

// --threads and --split-depth out of range, and a resume file of the old format (v1, chunks of
// whole start cells): exit 2 with the field named, before any work or output.
TEST(HenonOrbitsCli, BadThreadsSplitAndOldResumeFileExitTwo) {
  const std::string dir = ds::test::make_tmpdir("henon-orbits-cli");
  const std::string out = dir + "/o.csv";
  auto err_of = [&](ArgList a) {
    testing::internal::CaptureStderr();
    const int rc = exit_code(std::move(a));
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 2) << err;
    return err;
  };
  EXPECT_NE(err_of({"orbits", "--period-max", "6", "--threads", "0", "--out", out}).find("--threads"),
            std::string::npos);
  EXPECT_NE(err_of({"orbits", "--period-max", "6", "--threads", "two", "--out", out}).find("--threads"),
            std::string::npos);
  EXPECT_NE(err_of({"orbits", "--period-max", "6", "--split-depth", "17", "--out", out}).find("--split-depth"),
            std::string::npos);
  {
    std::ofstream f(dir + "/old.chunks");
    f << "deepscope henon orbits v1 a=1.4 b=0.3 region=quad,0x0p+0,0x0p+0,0x0p+0,0x0p+0 N=6 level=9 refine=12 "
         "children=4096 cells=5425 edges=22915\nchunk 0\nend 0\n";
  }
  const std::string err =
      err_of({"orbits", "--period-max", "6", "--chunk-file", dir + "/old.chunks", "--out", out});
  EXPECT_NE(err.find("resume format v1"), std::string::npos) << err;
  EXPECT_NE(err.find("old.chunks"), std::string::npos) << err;
  EXPECT_FALSE(ds::test::slurp(out).size());
  // Two threads and a given cut depth: the same file as the default run.
  ASSERT_EQ(exit_code({"orbits", "--period-max", "8", "--out", out, "--quiet"}), 0);
  ASSERT_EQ(exit_code({"orbits", "--period-max", "8", "--threads", "2", "--split-depth", "3", "--out",
                       dir + "/t.csv", "--quiet"}),
            0);
  EXPECT_EQ(ds::test::slurp(out), ds::test::slurp(dir + "/t.csv"));
}

}  // namespace
