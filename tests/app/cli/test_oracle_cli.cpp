// `deepscope oracle` and `deepscope render --verify`: files written whole (or not at all when
// cancelled), the verification recorded in the PNG, bad input refused with exit code 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "app/cli/cancel.h"
#include "app/cli/commands.h"
#include "app/io/image_io.h"
#include "app/io/location.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/mpfr_orbit.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "locations.h"
#include "test_files.h"
#include "app/io/view_png.h"

namespace {

using ds::app::ArgList;
using ds::test::slurp;

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

// The exit code and stderr of the whole command line, as main runs it.
int run(const ArgList& args, std::string* err = nullptr) {
  testing::internal::CaptureStderr();
  const int rc = ds::app::run(args);
  const std::string e = testing::internal::GetCapturedStderr();
  if (err) *err = e;
  return rc;
}

std::string png_text(const std::string& path, const std::string& key) {
  std::string text;
  if (!ds::app::png_find_text(slurp(path), key, &text)) return "";
  return text;
}

TEST(OracleCli, WritesTheGridAndItsRecord) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  std::string err;
  const int rc = run({"oracle", "--re", "-0.7453", "--im", "0.1127", "--zoom", "300", "--iter", "1000",
                      "--size", "64x48", "--grid", "4", "--out", dir + "/g.npy"},
                     &err);
  ASSERT_EQ(rc, 0) << err;
  for (const char* f : {"/g.npy", "/g_smooth.npy", "/g_trusted.npy", "/g_bits.npy", "/g.json"})
    EXPECT_TRUE(exists(dir + f)) << f;
  EXPECT_FALSE(exists(dir + "/g.npy.chunks"));
  const std::string counts = slurp(dir + "/g.npy");
  EXPECT_NE(counts.find("'descr': '<u4'"), std::string::npos);
  EXPECT_NE(counts.find("'shape': (4, 4)"), std::string::npos);
  EXPECT_EQ(counts.size() % 64, 0u);  // header padded to 64 bytes, 16 x 4 bytes of data
  EXPECT_NE(slurp(dir + "/g_trusted.npy").find("'descr': '|u1'"), std::string::npos);
  const std::string meta = slurp(dir + "/g.json");
  EXPECT_NE(meta.find("\"trusted\": 16,"), std::string::npos) << meta;
  EXPECT_NE(meta.find("\"commit\": "), std::string::npos);
  EXPECT_NE(meta.find("deepscope oracle --re -0.7453"), std::string::npos);
  EXPECT_NE(err.find("16/16 pixels trusted"), std::string::npos) << err;
}

// --formula: the grid is the formula's own MPFR orbit (checked pixel by pixel against mpfr_count
// at another precision), with no smooth file and the formula in the record; not z^2 + c's grid.
TEST(OracleCli, FormulaGridIsTheFormulasOwnOrbit) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  const ArgList view = {"--re", "-1.7579317963", "--im", "-0.052705991307", "--zoom", "22", "--iter", "400",
                        "--size", "16x16", "--grid", "4"};
  ArgList a = {"oracle", "--formula", "burning-ship"};
  a.insert(a.end(), view.begin(), view.end());
  a.insert(a.end(), {"--out", dir + "/f.npy"});
  std::string err;
  ASSERT_EQ(run(a, &err), 0) << err;
  EXPECT_FALSE(exists(dir + "/f_smooth.npy"));
  const std::string meta = slurp(dir + "/f.json");
  EXPECT_NE(meta.find("\"formula\": \"burning-ship\""), std::string::npos) << meta;
  EXPECT_NE(meta.find("\"smooth\": null"), std::string::npos) << meta;
  ArgList m = {"oracle"};
  m.insert(m.end(), view.begin(), view.end());
  m.insert(m.end(), {"--out", dir + "/m.npy"});
  ASSERT_EQ(run(m, &err), 0) << err;
  auto load = [](const std::string& path, size_t elem) {
    int rows = 0, cols = 0;
    std::string data;
    EXPECT_TRUE(ds::app::decode_npy(slurp(path), elem, &rows, &cols, &data)) << path;
    EXPECT_EQ(rows * cols, 16) << path;
    return data;
  };
  const std::string fc = load(dir + "/f.npy", 4), ft = load(dir + "/f_trusted.npy", 1),
                    mc = load(dir + "/m.npy", 4);
  ASSERT_EQ(fc.size(), 64u);
  ASSERT_EQ(mc.size(), 64u);
  ds::mandel::View v;
  v.re = "-1.7579317963";
  v.im = "-0.052705991307";
  v.zoom = "22";
  v.max_iter = 400;
  v.width = v.height = 16;
  const ds::mandel::Geometry g = ds::mandel::geometry(v);
  const ds::formula::Formula f = ds::formula::parse_formula("burning-ship");
  const std::vector<ds::mandel::PixelIndex> where = ds::mandel::grid_pixels(v, 4);
  int trusted = 0, differs_from_mandelbrot = 0;
  for (size_t k = 0; k < 16; ++k) {
    uint32_t c = 0, cm = 0;
    std::memcpy(&c, fc.data() + 4 * k, 4);
    std::memcpy(&cm, mc.data() + 4 * k, 4);
    differs_from_mandelbrot += c != cm;
    if (!ft[k]) continue;
    ++trusted;
    EXPECT_EQ(c, ds::formula::mpfr_count(g, v, f, where[k].i, where[k].j, 300)) << k;
  }
  EXPECT_GE(trusted, 14);
  EXPECT_GT(differs_from_mandelbrot, 4);
}

TEST(OracleCli, CancelledRunWritesNothingAndResumes) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  const ArgList args = {"oracle", "--re",   "-0.7453",       "--im",   "0.1127",      "--zoom",
                        "300",    "--iter", "500",           "--size", "32x32",       "--grid",
                        "3",      "--meta", dir + "/m.json", "--out",  dir + "/g.npy"};
  ds::app::cancel_flag() = true;  // as if Ctrl-C came before the first pixel finished
  std::string err;
  const int rc = run(args, &err);
  ds::app::cancel_flag() = false;
  EXPECT_EQ(rc, 130) << err;
  EXPECT_FALSE(exists(dir + "/g.npy"));
  EXPECT_FALSE(exists(dir + "/m.json"));
  ASSERT_EQ(run(args, &err), 0) << err;
  EXPECT_TRUE(exists(dir + "/g.npy"));
  EXPECT_NE(slurp(dir + "/m.json").find("\"grid\": 3"), std::string::npos);
}

TEST(OracleCli, BadInputExitsTwo) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  const std::string out = dir + "/g.npy";
  // --zoom 1 and --grid 4 unless a case gives its own (an option given twice is an error).
  const ArgList view = {"oracle", "--re", "-0.5", "--im", "0", "--iter", "100", "--size", "32x16"};
  struct Case {
    ArgList extra;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{}, "--out"},
      {{"--grid", "0", "--out", out}, "--grid"},
      {{"--grid", "17", "--out", out}, "larger than the image"},
      {{"--frobnicate", "--out", out}, "frobnicate"},
      {{"--pixel-map", "1,0,0", "--out", out}, "four numbers"},
      {{"--pixel-map", "1,1,1,1", "--out", out}, "singular"},
      {{"--zoom", "-3", "--out", out}, "zoom"},
      {{"--out", dir + "/missing/g.npy"}, "missing"},
      {{"--out", dir}, "is a directory"},
      {{"--start-bits", "200", "--max-bits", "60", "--out", out}, "--start-bits 200 is above --max-bits 60"},
      {{"--grid", "2", "--grid", "3", "--out", out}, "--grid is given twice"},
      {{"--formula", "nosuch", "--out", out}, "nosuch"},
      {{"--formula", "burning-ship", "--pixel-map", "1,0,0,-1", "--out", out}, "square, unrotated"},
      {{"--formula", "celtic", "--no-confirm", "--out", out}, "not for formulas"},
  };
  for (const Case& c : cases) {
    ArgList a = view;
    for (const char* o : {"--zoom", "--grid"})
      if (std::find(c.extra.begin(), c.extra.end(), o) == c.extra.end())
        a.insert(a.end(), {o, o[2] == 'z' ? "1" : "4"});
    a.insert(a.end(), c.extra.begin(), c.extra.end());
    std::string err;
    EXPECT_EQ(run(a, &err), 2) << c.says;
    EXPECT_NE(err.find(c.says), std::string::npos) << err;
  }
  EXPECT_FALSE(exists(out));
}

TEST(RenderVerify, ShallowViewPasses) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  const std::string png = dir + "/v.png";
  std::string err;
  const int rc = run({"render", "--re", "-0.7453", "--im", "0.1127", "--zoom", "300", "--iter", "1000",
                      "--size", "64x48", "--backend", "cpu", "--verify", "16", "--out", png},
                     &err);
  ASSERT_EQ(rc, 0) << err;
  EXPECT_NE(
      err.find("verify: 16/16 sampled pixels agree with MPFR (0 within \u00b11, 0 untrusted oracle pixels)"),
      std::string::npos)
      << err;
  const std::string text = png_text(png, ds::app::kPngVerifyKey);
  EXPECT_NE(text.find("result = passed"), std::string::npos) << text;
  EXPECT_NE(text.find("4x4 grid, 0 random"), std::string::npos) << text;
}

// Perturbation in strips: the verification and the glitch counts land in the assembled PNG; the
// random samples replay from the printed seed.
TEST(RenderVerify, PerturbationStripsCarryVerifyAndGlitchText) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  const std::string png = dir + "/p.png";
  std::string err;
  const int rc = run({"render",
                      "--re",
                      ds::test::kKf1e14Re,
                      "--im",
                      ds::test::kKf1e14Im,
                      "--zoom",
                      "1e14",
                      "--iter",
                      "4036",
                      "--size",
                      "32x21",
                      "--arith",
                      "perturb",
                      "--backend",
                      "cpu",
                      "--tile-rows",
                      "8",
                      "--verify",
                      "11",
                      "--verify-seed",
                      "7",
                      "--out",
                      png},
                     &err);
  ASSERT_EQ(rc, 0) << err;
  EXPECT_NE(err.find("seed 7"), std::string::npos) << err;
  const std::string v = png_text(png, ds::app::kPngVerifyKey);
  EXPECT_NE(v.find("result = passed"), std::string::npos) << v;
  EXPECT_NE(v.find("3x3 grid, 2 random, seed 7"), std::string::npos) << v;
  const std::string p = png_text(png, ds::app::kPngPerturbKey);
  EXPECT_NE(p.find("glitch_unresolved = "), std::string::npos) << p;
  EXPECT_NE(p.find("secondary_references = "), std::string::npos) << p;
  EXPECT_NE(err.find("glitches: "), std::string::npos) << err;
}

// f32 forced at zoom 8e3 (within its 4 forced guard bits) without the error estimate (which would
// re-decide the wrong pixels in f64) draws wrong counts: the PNG is written, says so, and the exit
// code is 1.
TEST(RenderVerify, WrongRenderExitsOneAndSaysSo) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  const std::string png = dir + "/w.png";
  std::string err;
  const int rc = run({"render", "--re",    "-0.7453",  "--im",    "0.1127",           "--zoom", "8e3",
                      "--iter", "3000",    "--size",   "128x128", "--arith",          "f32",    "--backend",
                      "cpu",    "--quiet", "--verify", "64",      "--no-error-bound", "--out",  png},
                     &err);
  EXPECT_EQ(rc, 1) << err;
  EXPECT_NE(err.find("differ by more than 1: the render is WRONG"), std::string::npos) << err;
  ASSERT_TRUE(exists(png));
  const std::string text = png_text(png, ds::app::kPngVerifyKey);
  EXPECT_NE(text.find("result = wrong"), std::string::npos) << text;
  EXPECT_NE(text.find("pixel "), std::string::npos) << text;
  EXPECT_NE(png_text(png, ds::app::kPngDirectKey).find("error_estimate = off"), std::string::npos);
}

// The same render with the error estimate (the default): f32's undecided pixels are re-decided in
// wider formats, the sampled pixels agree with MPFR, and the PNG and the CLI line count them.
TEST(RenderVerify, TheErrorEstimateRedecidesTheWrongPixels) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  const std::string png = dir + "/r.png";
  std::string err;
  const int rc =
      run({"render", "--re", "-0.7453", "--im", "0.1127", "--zoom", "8e3", "--iter", "3000", "--size",
           "128x128", "--arith", "f32", "--backend", "cpu", "--verify", "64", "--out", png},
          &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_NE(err.find("error estimate: "), std::string::npos) << err;
  EXPECT_EQ(err.find("the render is WRONG"), std::string::npos) << err;
  ASSERT_TRUE(exists(png));
  EXPECT_NE(png_text(png, ds::app::kPngVerifyKey).find("result = passed"), std::string::npos);
  const std::string d = png_text(png, ds::app::kPngDirectKey);
  EXPECT_NE(d.find("unresolved_pixels = 0"), std::string::npos) << d;
  const size_t at = d.find("undecided_pixels = ");
  ASSERT_NE(at, std::string::npos) << d;
  EXPECT_GT(std::stoull(d.substr(at + 19)), 100u) << d;
}

TEST(RenderVerify, BadInputExitsTwo) {
  const std::string dir = ds::test::make_tmpdir("oracle");
  const ArgList view = {"render", "--zoom", "1", "--iter", "50", "--size", "16x16", "--out", dir + "/x.png"};
  for (const ArgList& extra : std::vector<ArgList>{{"--verify", "0"},
                                                   {"--verify-seed", "3"},
                                                   {"--verify", "4", "--frames", "3", "--zoom-to", "10"}}) {
    ArgList a = view;
    a.insert(a.end(), extra.begin(), extra.end());
    std::string err;
    EXPECT_EQ(run(a, &err), 2) << extra[0];
    EXPECT_NE(err.find("--verify"), std::string::npos) << err;
  }
  EXPECT_FALSE(exists(dir + "/x.png"));
}

}  // namespace
