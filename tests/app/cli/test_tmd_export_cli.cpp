// `deepscope tmd ... --out FILE.tmdc` and `deepscope tmd export`: the binary case file of a real
// search (CORE-MATH's exp2f hard cases; a Lefèvre search; a regular search over reals at p = 40)
// exports to the very bytes of the CSV and JSON the search writes directly, its own JSON holds
// the hardest cases but not every case, and bad case files exit 2 with nothing written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "kernels/core/atomic_file.h"
#include "test_files.h"

namespace {

using ds::app::ArgList;
using ds::test::slurp;

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

int exit_code(const ArgList& args) {
  try {
    return ds::app::cmd_tmd(args);
  } catch (const ds::cli::UsageError&) {
    return 2;
  } catch (const ds::IoError&) {
    return 2;
  } catch (const std::exception&) {
    return 1;
  }
}

// Runs `search` twice, to OUT.csv and to OUT.tmdc, exports the latter and compares.
void expect_export_matches(const std::string& dir, const std::string& name, const ArgList& search) {
  const std::string csv = dir + "/" + name + ".csv", bin = dir + "/" + name + ".tmdc";
  ArgList a = search, b = search;
  a.insert(a.end(), {"--quiet", "--out", csv});
  b.insert(b.end(), {"--quiet", "--out", bin, "--json", dir + "/" + name + "-bin.json"});
  ASSERT_EQ(exit_code(a), 0);
  ASSERT_EQ(exit_code(b), 0);
  const std::string direct_csv = slurp(csv), direct_json = slurp(dir + "/" + name + ".json");
  const std::string short_json = slurp(dir + "/" + name + "-bin.json");
  // Resumed from its chunk file (nothing computed), the search writes the same binary file.
  const std::string binary = slurp(bin);
  std::remove(bin.c_str());
  ASSERT_EQ(exit_code(b), 0);
  EXPECT_EQ(slurp(bin), binary);
  ASSERT_EQ(exit_code({"export", bin, "--quiet", "--csv", dir + "/e.csv", "--json", dir + "/e.json"}), 0);
  EXPECT_EQ(slurp(dir + "/e.csv"), direct_csv);
  EXPECT_EQ(slurp(dir + "/e.json"), direct_json);
  EXPECT_NE(direct_json.find("\"all\": ["), std::string::npos);
  EXPECT_EQ(short_json.find("\"all\""), std::string::npos);
  EXPECT_NE(short_json.find("\"hardest\": ["), std::string::npos);
  EXPECT_GT(std::count(direct_csv.begin(), direct_csv.end(), '\n'), 1);
}

TEST(TmdExportCli, ExportWritesTheSearchsBytes) {
  const std::string dir = ds::test::make_tmpdir("tmd-export");
  // CORE-MATH's exp2f exceptions, each in a range of 2^15 bit patterns.
  const char* ranges[3][2] = {{"0x3b428000:0x3b42ffff", "0x3b429d37,"},
                              {"0xbcf38000:0xbcf3ffff", "0xbcf3a937,"},
                              {"0xb8d38000:0xb8d3ffff", "0xb8d3d026,"}};
  for (int i = 0; i < 3; ++i) {
    const std::string name = "exp2-" + std::to_string(i);
    expect_export_matches(dir, name,
                          {"exhaustive", "--func", "exp2", "--mode", "nearest", "--k", "14", "--range",
                           ranges[i][0], "--backend", "cpu"});
    EXPECT_NE(slurp(dir + "/" + name + ".csv").find(ranges[i][1]), std::string::npos) << ranges[i][0];
  }
  expect_export_matches(dir, "lefevre",
                        {"lefevre", "--func", "log", "--mode", "directed", "--precision", "20", "--k", "12",
                         "--range", "0x40000000:0x4007ffff", "--log2n", "5", "--backend", "cpu"});
  // Arguments that are not binary32 numbers (x_text): stored as a 64-bit significand and exponent.
  expect_export_matches(dir, "wide",
                        {"regular", "--func", "exp", "--x-lo", "1", "--x-hi", "0x1.0001p+0", "--precision",
                         "40", "--k", "20", "--backend", "cpu"});
}

TEST(TmdExportCli, BadCaseFilesExitTwoWithNothingWritten) {
  const std::string dir = ds::test::make_tmpdir("tmd-export-bad"), bin = dir + "/c.tmdc";
  ASSERT_EQ(exit_code({"exhaustive", "--func", "exp2", "--k", "14", "--range", "0xbcf38000:0xbcf3ffff",
                       "--backend", "cpu", "--quiet", "--out", bin}),
            0);
  const std::string good = slurp(bin), csv = dir + "/o.csv", json = dir + "/o.json";
  auto export_of = [&](const std::string& bytes) {
    const std::string f = dir + "/bad.tmdc";
    ds::write_file_atomically(f, bytes);
    return exit_code({"export", f, "--csv", csv, "--json", json});
  };
  std::string version = good, flipped = good;
  version[8] = 9;
  flipped[good.size() / 2] ^= 0x01;
  EXPECT_EQ(export_of(good.substr(0, good.size() - 30)), 2);           // truncated
  EXPECT_EQ(export_of(good + "\n"), 2);                                // lengthened
  EXPECT_EQ(export_of(flipped), 2);                                    // damaged: the CRC disagrees
  EXPECT_EQ(export_of(version), 2);                                    // another version
  EXPECT_EQ(export_of("x,x_value,run,run_capped,log2_dist,fx\n"), 2);  // a CSV, not a case file
  EXPECT_EQ(export_of(""), 2);
  EXPECT_EQ(exit_code({"export", dir + "/missing.tmdc", "--csv", csv}), 2);
  EXPECT_EQ(exit_code({"export", bin}), 2);           // nothing to write
  EXPECT_EQ(exit_code({"export", "--csv", csv}), 2);  // no case file
  EXPECT_EQ(exit_code({"export", bin, bin, "--csv", csv}), 2);
  EXPECT_EQ(exit_code({"export", bin, "--csv", "/nonexistent-dir/o.csv"}), 2);
  EXPECT_FALSE(exists(csv));
  EXPECT_FALSE(exists(json));
  // The damaged file's message says what is wrong.
  testing::internal::CaptureStderr();
  const int code = ds::app::run({"tmd", "export", dir + "/bad.tmdc", "--csv", csv});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("not a deepscope TMD case file"), std::string::npos) << err;
  ds::write_file_atomically(dir + "/bad.tmdc", flipped);
  testing::internal::CaptureStderr();
  EXPECT_EQ(ds::app::run({"tmd", "export", dir + "/bad.tmdc", "--csv", csv}), 2);
  const std::string err2 = testing::internal::GetCapturedStderr();
  EXPECT_NE(err2.find("CRC-32 does not match"), std::string::npos) << err2;
  EXPECT_FALSE(exists(csv));
  // A search's .tmdc in a missing directory: refused before the search.
  EXPECT_EQ(exit_code({"exhaustive", "--range", "0x3f800000:0x3f8000ff", "--out", "/nonexistent-dir/x.tmdc"}),
            2);
}

}  // namespace
