// Inputs the fuzzers found (tests/fuzz, docs/bench/fuzz.md), each now refused with the clear error
// its reader promises: IoError for location files (the CLI's exit code 2), std::invalid_argument
// for the Hénon scan CSV. The inputs themselves are in tests/fuzz/corpus/NAME/, replayed by
// fuzz_replay_NAME.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "kernels/henon.h"

namespace {

using namespace ds;

// The std::invalid_argument message of parse_scan_csv(text), or "" when it parses.
std::string scan_csv_error(const std::string& text) {
  try {
    henon::parse_scan_csv(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const std::string kScanHeader = "a_index,b_index,a,b,period,count,sink,x,y\n";

// A count beyond int32 was stored wrapped, as a negative number of start points.
TEST(FuzzRegressions, ScanCsvCountBeyondInt32IsRefused) {
  EXPECT_EQ(scan_csv_error(kScanHeader + "0,0,1.4,0.3,0,2147483647,0,,\n"), "");
  EXPECT_NE(scan_csv_error(kScanHeader + "0,0,1.4,0.3,0,2147483648,0,,\n").find("line 2: value out of range"),
            std::string::npos);
  EXPECT_NE(scan_csv_error(kScanHeader + "0,0,1.4,0.3,7,4214748364,1,0.5,0.5\n").find("out of range"),
            std::string::npos);
  EXPECT_NE(scan_csv_error(kScanHeader + "0,0,1.4,0.3,1000001,1,1,0.5,0.5\n").find("out of range"),
            std::string::npos);  // a period beyond kMaxPeriod
}

// One damaged index asked for a dense grid of 10^9 parameters (36 GB) from a 150-byte file.
TEST(FuzzRegressions, ScanCsvGridMustBeBackedByTheFile) {
  const std::string e = scan_csv_error(kScanHeader + "0,0,1.4,0.3,0,4,0,,\n1,100000000,1.4,0.3,0,4,0,,\n");
  EXPECT_NE(e.find("its indices span 2 x 100000001 parameters but the file holds results for 2"),
            std::string::npos)
      << e;
  // Sparse files stay readable: up to 2^20 parameters, or 64 per parameter in the file.
  const henon::ScanResult r =
      henon::parse_scan_csv(kScanHeader + "0,0,1.4,0.3,0,4,0,,\n1023,1023,1.4,0.3,0,4,0,,\n");
  EXPECT_EQ(r.na * r.nb, 1 << 20);
  EXPECT_TRUE(r.params.front().done && r.params.back().done && !r.params[1].done);
}

}  // namespace
