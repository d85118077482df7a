// Inputs the fuzzers found (tests/fuzz, docs/bench/fuzz.md), each now refused with the clear error
// its reader promises: IoError for location files (the CLI's exit code 2), std::invalid_argument
// for the Hénon scan CSV, std::runtime_error for chunk-file payloads. The inputs themselves are in
// tests/fuzz/corpus/NAME/, replayed by fuzz_replay_NAME.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <string>

#include "app/cli/commands.h"
#include "kernels/core/atomic_file.h"
#include "kernels/henon/henon.h"
#include "kernels/tmd/records.h"
#include "app/io/location.h"

namespace {

using namespace ds;

// The IoError message of parse_location(text), or "" when it parses.
std::string location_error(const std::string& text) {
  try {
    app::parse_location(text, "t");
  } catch (const IoError& e) {
    return e.what();
  }
  return "";
}

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

// Debian 12's toml11 (3.7.1) read outside its buffer on a literal string holding invalid UTF-8
// (toml11 issue 199): the F3 reader now refuses text that is not UTF-8 before toml11 sees it, and
// the command reports it with exit code 2.
TEST(FuzzRegressions, TomlThatIsNotUtf8IsRefusedBeforeToml11) {
  const std::string head = "program = \"fraktaler-3\"\nlocation.zoom = \"10\"\n";
  const std::string bad[] = {
      "location.real = '\xff'\n",
      "location.real = '''\n-1.5\xC0\x80'''\n",     // an overlong form
      "'al_\xED\xA0\x80' = 1\n",                    // a surrogate
      "location.imag = \"0.5\xF4\x90\x80\x80\"\n",  // past U+10FFFF
      "location.imag = \"0.5\xE2\x82\"\n",          // cut short
  };
  for (const std::string& b : bad) {
    const std::string e = location_error(head + b);
    EXPECT_NE(e.find("location t:"), std::string::npos) << e;
    EXPECT_NE(e.find(": not valid TOML: byte "), std::string::npos) << e;
    EXPECT_NE(e.find(" is not UTF-8"), std::string::npos) << e;
  }
  // UTF-8 itself is fine: a comment in French, a string with a 4-byte character.
  EXPECT_EQ(location_error(head + bad[0]).find("location t:3: not valid TOML: byte 63 is not UTF-8"), 0u);
  EXPECT_EQ(location_error(head + "# Hénon\nrender.filename = \"f3 \xF0\x9F\x8C\x80\"\n"), "");

  char dir[] = "/tmp/deepscope-fuzzreg-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/bad.toml";
  std::ofstream(path, std::ios::binary) << head << bad[0];
  EXPECT_EQ(app::run({"render", "--location", path, "--size", "8x8", "--out", std::string(dir) + "/x.png"}),
            2);
  unlink(path.c_str());
  rmdir(dir);
}

// A .kfr stretched by 2^50 gave a pixel map whose determinant is lost in rounding: written back in
// our format, it read back as singular (and its orientation was a coin toss). Every reader now
// refuses such maps, and the stretch amounts are limited to a factor 2^20.
TEST(FuzzRegressions, PixelMapsMustKeepTheirDeterminant) {
  const std::string kf = "Re: -0.75\r\nIm: 0.1\r\nZoom: 1e3\r\nRotateAngle: 34\r\n";
  EXPECT_NE(location_error(kf + "StretchAngle: 5\r\nStretchAmount: 50\r\n")
                .find("StretchAmount must be within [-20, 20]"),
            std::string::npos);
  EXPECT_NE(location_error(kf + "StretchAmount: -20.5\r\n").find("StretchAmount"), std::string::npos);
  for (const std::string amount : {"20", "-20", "13.7"}) {
    const app::Location l =
        app::parse_location(kf + "StretchAngle: 45\r\nStretchAmount: " + amount + "\r\n", "t");
    const app::Location back = app::parse_location(app::format_location(l), "back");
    for (int i = 0; i < 4; ++i) EXPECT_EQ(back.pixel_map[i], l.pixel_map[i]) << amount;
  }
  const std::string f3 = "program = \"fraktaler-3\"\ntransform.stretch_angle = 45.0\n";
  EXPECT_NE(location_error(f3 + "transform.stretch_amount = 5000.0\n").find("within [-2000, 2000] cents"),
            std::string::npos);
  EXPECT_EQ(location_error(f3 + "transform.stretch_amount = 2000.0\n"), "");
  // Our format: the map the .kfr gave, a map whose determinant overflows to inf - inf = NaN (it was
  // taken for non-singular), a plain singular one, and one whose products underflow to 0.
  const std::string ours = "re = 0\nim = 0\nzoom = 1\npixel_map = ";
  for (const char* m : {"1117347432108481.5 -97755233529294.14 97755233529294.14 -8552474734142.539",
                        "1e200 1e200 1e200 1e200", "1 2 2 4", "1e-200 0 0 1e-200"})
    EXPECT_NE(location_error(ours + m + "\n").find("is singular, or too stretched"), std::string::npos) << m;
  EXPECT_EQ(location_error(ours + "1e150 0 0 1e-150\n"), "");  // huge and tiny entries, determinant 1
}

// A TMD payload announcing INT64_MAX cases: counting its lines computed n + 1, a signed overflow
// (UBSan). It is refused as a malformed record, as any other wrong count.
TEST(FuzzRegressions, TmdPayloadCaseCountNearInt64MaxIsRefused) {
  for (const char* n : {"9223372036854775807", "9223372036854775806", "2"}) {
    try {
      tmd::records::parse_exhaustive(std::string("5 9223372036854775807 0 ") + n + " 0.5 0.25\n");
      ADD_FAILURE() << n;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string(n) + " cases announced, 0 lines follow"),
                std::string::npos)
          << e.what();
    }
  }
  std::string lefevre = "1 2 3 4 5 6 9223372036854775807 7 8 9 10 1.5 0.5";
  for (int i = 0; i < 20; ++i) lefevre += " 0";
  lefevre += " 0.1 0.1 0.1 0.1 0.1 9223372036854775807\n";
  EXPECT_THROW(tmd::records::parse_lefevre(lefevre), std::runtime_error);
}

// toml11 (3.7.1) recurses without a limit: a thousand '[' (or '{', or a key of thousands of dotted
// parts) overflowed the stack. The F3 reader refuses nesting deeper than 64 before toml11 sees it;
// brackets and dots inside strings and comments do not count.
TEST(FuzzRegressions, TomlNestingIsBoundedBeforeToml11) {
  const std::string head = "program = \"fraktaler-3\"\nlocation.zoom = \"10\"\n";
  auto repeat = [](const std::string& x, int n) {
    std::string r;
    for (int i = 0; i < n; ++i) r += x;
    return r;
  };
  const std::string deep[] = {
      "x = " + repeat("[", 1000) + repeat("]", 1000) + "\n",
      "x = " + repeat("{a = ", 65) + "1" + repeat("}", 65) + "\n",
      repeat("a.", 20000) + "a = 1\n",
      "[" + repeat("a.", 70) + "a]\nx = 1\n",
      "x = {" + repeat("a.", 70) + "a = 1}\n",
      "x = [\n" + repeat("[", 70) + "\n" + repeat("]", 70) + "\n]\n",
  };
  for (const std::string& d : deep) {
    const std::string e = location_error(head + d);
    EXPECT_NE(e.find(" deep, more than the 64 deepscope reads"), std::string::npos) << e.substr(0, 200);
  }
  const std::string fine[] = {
      "x = " + repeat("[", 60) + repeat("]", 60) + "\n",
      "render.filename = \"" + repeat("[{.", 500) + "\"\n",
      "# " + repeat("[", 500) + "\nx = 1\n",
      "[colour]\nshader = '''\n" + repeat("vec3 a[2]; { x.y.z; }\n", 100) + repeat("[", 100) + "'''\n",
      "x = [" + repeat("1.5, ", 500) + "2.5]\n",
      "x = \"a\\\"[[[[\"\ny = 1\n",  // an escaped quote inside a string
  };
  for (const std::string& f : fine) EXPECT_EQ(location_error(head + f), "") << f.substr(0, 200);
}

// toml11 (3.7.1) reads 0b... by doubling an int64 once per digit: from the 63rd digit on (leading
// zeros too) a signed overflow (UBSan). The F3 reader refuses such literals before toml11 sees them.
TEST(FuzzRegressions, TomlBinaryIntegersOfMoreThan62DigitsAreRefused) {
  const std::string head = "program = \"fraktaler-3\"\nlocation.zoom = \"10\"\n";
  const std::string zeros62(62, '0');
  EXPECT_EQ(location_error(head + "x = 0b" + zeros62 + "\n"), "");
  EXPECT_EQ(location_error(head + "x = [0b1_" + std::string(61, '1') + ", 0b0]\n"), "");
  EXPECT_EQ(location_error(head + "x = \"0b" + zeros62 + "000\"\n# 0b" + zeros62 + "000\n"), "");
  for (const std::string& v :
       {"x = 0b" + zeros62 + "0\n", "x = {a = 0b1" + zeros62 + "}\n", "x = [1, 0b" + zeros62 + "_1]\n"}) {
    const std::string e = location_error(head + v);
    EXPECT_NE(e.find("a binary integer (0b...) of 63 digits: deepscope reads at most 62"), std::string::npos)
        << e;
  }
}

}  // namespace
