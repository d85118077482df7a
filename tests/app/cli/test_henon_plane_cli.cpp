// `deepscope henon plane|basin`: --help, bad input (exit 2 with the sub-command's usage), and tiny
// images whose PNG metadata and .npy arrays match the library's results.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/io/henon_png.h"
#include "app/io/image_io.h"
#include "kernels/henon/plane.h"
#include "test_files.h"

namespace {

using ds::app::ArgList;
using ds::test::slurp;

int run_henon(ArgList args) {
  args.insert(args.begin(), "henon");
  return ds::app::run(args);
}

TEST(HenonPlaneCli, HelpExitsZeroWithItsOwnUsage) {
  for (const char* sub : {"plane", "basin"}) {
    SCOPED_TRACE(sub);
    testing::internal::CaptureStdout();
    EXPECT_EQ(run_henon({sub, "--help"}), 0);
    const std::string text = testing::internal::GetCapturedStdout();
    EXPECT_NE(text.find(std::string("deepscope henon ") + sub), std::string::npos) << text;
    EXPECT_EQ(text.find("deepscope henon scan"), std::string::npos) << text;
  }
}

TEST(HenonPlaneCli, BadInputExitsTwoWithUsage) {
  const std::string out = ds::test::make_tmpdir("henon-plane-cli") + "/p.png";
  struct Case {
    ArgList args;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"plane", "--width", "0", "--out", out}, "width"},
      {{"plane", "--width", "nan", "--out", out}, "width"},
      {{"plane", "--centre-a", "x", "--out", out}, "centre_a"},
      {{"plane", "--centre-b", "1.6", "--out", out}, "b must stay within"},
      {{"plane", "--size", "0x4", "--out", out}, "size"},
      {{"plane", "--colour", "hue", "--out", out}, "--colour"},
      {{"plane", "--colour", "lyapunov", "--resume", out + ".chunks", "--out", out}, "--resume"},
      {{"plane", "--pmax", "0", "--out", out}, "pmax"},
      {{"plane", "--size", "4x4"}, "--out"},
      {{"plane", "--width", "1e-14", "--size", "64x36", "--out", out}, "f64x2 would work"},
      {{"plane", "--width", "1e-300", "--arith", "auto", "--out", out}, "no format tells"},
      {{"basin", "--width", "-1", "--out", out}, "width"},
      {{"basin", "--b", "3", "--out", out}, "basin: b"},
      {{"basin", "--width", "5000", "--out", out}, "escape box"},
      // (was "na * nb must be at most 1e9", naming no option)
      {{"plane", "--size", "32768x32768", "--out", out}, "plane: size 32768x32768 is 1073741824 pixels"},
      {{"basin", "--size", "32768x32768", "--out", out}, "basin: size 32768x32768 is 1073741824 pixels"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    testing::internal::CaptureStderr();
    EXPECT_EQ(run_henon(c.args), 2);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(c.says), std::string::npos) << err;
    EXPECT_NE(err.find("deepscope henon " + c.args[0]), std::string::npos)
        << "the sub-command's usage: " << err;
  }
  EXPECT_EQ(slurp(out), "") << "nothing written";
}

std::string npy_descr(const std::string& npy) { return npy.substr(10, 30); }

TEST(HenonPlaneCli, TinyPlaneWritesPngAndNpyWithTheView) {
  const std::string dir = ds::test::make_tmpdir("henon-plane-cli");
  const ArgList view = {"--centre-a", "1.0",  "--centre-b",  "0.2",  "--width", "0.8",
                        "--size",     "8x4",  "--transient", "2000", "--pmax",  "32",
                        "--tol",      "1e-9", "--backend",   "cpu",  "--quiet"};
  ArgList args = {"plane"};
  args.insert(args.end(), view.begin(), view.end());
  args.insert(args.end(), {"--resume", dir + "/p.chunks", "--chunk", "8", "--out", dir + "/p.png"});
  ASSERT_EQ(run_henon(args), 0);
  const std::string png = slurp(dir + "/p.png"), npy = slurp(dir + "/p.npy");
  ASSERT_TRUE(ds::app::is_png(png));
  std::string text;
  ASSERT_TRUE(ds::app::png_find_text(png, ds::app::kPngHenonKey, &text));
  for (const char* line :
       {"kind = plane\n", "colouring = period\n", "centre_a = 1.0\n", "centre_b = 0.2\n", "width = 0.8\n",
        "size = 8x4\n", "pmax = 32\n", "transient = 2000\n", "arith = f64\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << " in\n" << text;
  EXPECT_NE(npy_descr(npy).find("<i4"), std::string::npos);
  int rows = 0, cols = 0;
  std::string data;
  ASSERT_TRUE(ds::app::decode_npy(npy, 4, &rows, &cols, &data));
  EXPECT_EQ(rows, 4);
  EXPECT_EQ(cols, 8);
  ds::henon::PlaneView v;
  v.centre_a = "1.0";
  v.centre_b = "0.2";
  v.width = "0.8";
  v.width_px = 8;
  v.height_px = 4;
  v.n_transient = 2000;
  v.p_max = 32;
  v.tol = "1e-9";
  const ds::henon::PlaneResult r = ds::henon::plane(v);
  std::vector<int32_t> got(32);
  std::memcpy(got.data(), data.data(), 32 * sizeof(int32_t));
  EXPECT_EQ(got, r.period);
  EXPECT_NE(text.find("with_period = " + std::to_string(r.with_period) + "\n"), std::string::npos) << text;
  // Again with the same resume file: every chunk is loaded and the files are the same bytes.
  ASSERT_EQ(run_henon(args), 0);
  EXPECT_EQ(slurp(dir + "/p.png"), png);
  EXPECT_EQ(slurp(dir + "/p.npy"), npy);

  // Lyapunov colouring: float64 exponents, the library's values.
  ArgList ly = {"plane"};
  ly.insert(ly.end(), {"--centre-a",       "1.0",   "--centre-b",      "0.2",  "--width",  "0.8",
                       "--size",           "8x4",   "--transient",     "2000", "--colour", "lyapunov",
                       "--lyapunov-steps", "3000",  "--backend",       "cpu",  "--quiet",  "--out",
                       dir + "/l.png",     "--npy", dir + "/l-exp.npy"});
  ASSERT_EQ(run_henon(ly), 0);
  const std::string lnpy = slurp(dir + "/l-exp.npy");
  EXPECT_NE(npy_descr(lnpy).find("<f8"), std::string::npos);
  ASSERT_TRUE(ds::app::decode_npy(lnpy, 8, &rows, &cols, &data));
  const ds::henon::LyapunovResult lr = ds::henon::plane_lyapunov(v, 3000);
  std::vector<double> exps(32);
  std::memcpy(exps.data(), data.data(), 32 * sizeof(double));
  for (int q = 0; q < 32; ++q) {
    if (std::isnan(lr.exponent[q]))
      EXPECT_TRUE(std::isnan(exps[q])) << q;
    else
      EXPECT_EQ(exps[q], lr.exponent[q]) << q;
  }
  ASSERT_TRUE(ds::app::png_find_text(slurp(dir + "/l.png"), ds::app::kPngHenonKey, &text));
  EXPECT_NE(text.find("colouring = lyapunov\n"), std::string::npos) << text;
  EXPECT_NE(text.find("lyapunov_steps = 3000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("escaped = " + std::to_string(lr.escaped) + "\n"), std::string::npos) << text;
}

// --arith auto takes the format the window's "auto" takes: f64x2 once f64 cannot tell the pixels apart.
TEST(HenonPlaneCli, AutoArithFollowsTheWidth) {
  const std::string dir = ds::test::make_tmpdir("henon-plane-cli");
  for (const auto& [width, want] : std::vector<std::pair<std::string, std::string>>{{"0.5", "f64"}, {"1e-11", "f64x2"}}) {
    SCOPED_TRACE(width);
    ASSERT_EQ(run_henon({"plane", "--centre-a", "1.0", "--centre-b", "0.2", "--width", width, "--size", "8x4",
                         "--transient", "200", "--pmax", "8", "--arith", "auto", "--backend", "cpu", "--quiet",
                         "--out", dir + "/a.png"}),
              0);
    std::string text;
    ASSERT_TRUE(ds::app::png_find_text(slurp(dir + "/a.png"), ds::app::kPngHenonKey, &text));
    EXPECT_NE(text.find("arith = " + want + "\n"), std::string::npos) << text;
  }
}

TEST(HenonPlaneCli, TinyBasinWritesPngAndNpy) {
  const std::string dir = ds::test::make_tmpdir("henon-plane-cli");
  testing::internal::CaptureStdout();
  ASSERT_EQ(run_henon({"basin", "--a", "1.0", "--b", "0.3", "--width", "80", "--size", "21x21", "--transient",
                       "2000", "--pmax", "32", "--tol", "1e-9", "--backend", "cpu", "--out", dir + "/b.png"}),
            0);
  const std::string said = testing::internal::GetCapturedStdout();
  EXPECT_NE(said.find("1: period 4"), std::string::npos) << said;
  std::string text;
  ASSERT_TRUE(ds::app::png_find_text(slurp(dir + "/b.png"), ds::app::kPngHenonKey, &text));
  EXPECT_NE(text.find("kind = basin\n"), std::string::npos) << text;
  EXPECT_NE(text.find("attractor 1 = period 4"), std::string::npos) << text;
  int rows = 0, cols = 0;
  std::string data;
  ASSERT_TRUE(ds::app::decode_npy(slurp(dir + "/b.npy"), 4, &rows, &cols, &data));
  EXPECT_EQ(rows, 21);
  EXPECT_EQ(cols, 21);
  std::vector<int32_t> id(21 * 21);
  std::memcpy(id.data(), data.data(), id.size() * sizeof(int32_t));
  EXPECT_EQ(id[0], -1);            // the corner (-40, 40) escapes
  EXPECT_EQ(id[10 * 21 + 10], 1);  // the origin reaches the sink
}

}  // namespace
