// `render --formula` and formula locations (kernels/formula, docs/formulas.md): a Burning Ship PNG
// that records its formula and reads back with it, counts equal to the library's; KF's FractalType
// choosing the formula (mirrored as KF draws it); and every request formulas cannot do yet refused
// with exit 2 naming it, before any file is written: never a Mandelbrot picture instead.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "app/io/image_io.h"
#include "app/io/location.h"
#include "kernels/formula/direct.h"
#include "locations.h"
#include "render_in_process.h"
#include "test_files.h"

namespace {

using namespace ds;

using test::slurp;

std::string tmpdir() { return test::make_tmpdir("formula"); }

void spit(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

TEST(RenderFormula, BurningShipPngRecordsItsFormula) {
  const std::string dir = tmpdir(), png = dir + "/ship.png", npy = dir + "/c.npy";
  std::string msg;
  testing::internal::CaptureStderr();
  const int rc =
      test::render_in_process({"--formula", "burning-ship", "--re", "-0.4", "--im", "-0.6", "--zoom", "1.2",
                               "--size", "48x32", "--iter", "300", "--counts", npy, "--out", png, "--quiet"},
                              &msg);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << msg << err;
  std::string text;
  ASSERT_TRUE(app::png_find_text(slurp(png), app::kPngFormulaKey, &text));
  EXPECT_NE(text.find("formula = burning-ship\n"), std::string::npos) << text;
  EXPECT_NE(text.find("direct binary64"), std::string::npos) << text;
  EXPECT_NE(text.find("uncertified = "), std::string::npos) << text;
  // The PNG reads back as a Burning Ship location: every command but render refuses it.
  const app::Location loc = app::read_location_file(png);
  EXPECT_EQ(loc.formula, "burning-ship");
  mandel::View v;
  EXPECT_THROW(app::apply_to_view(loc, &v, true), IoError);
  // The counts are the library's, and not the Mandelbrot set's.
  const mandel::View w = test::make_view("-0.4", "-0.6", "1.2", 300, 48, 32);
  const mandel::RenderResult r = formula::render_direct(w, formula::parse_formula("burning-ship"));
  EXPECT_EQ(slurp(npy), app::encode_npy(r.counts, 32, 48));
  const mandel::RenderResult m = formula::render_direct(w, formula::parse_formula("mandelbrot"));
  EXPECT_NE(app::encode_npy(m.counts, 32, 48), app::encode_npy(r.counts, 32, 48));
  // Rendering the PNG's location again gives the same counts.
  const std::string again = dir + "/again.png", npy2 = dir + "/c2.npy";
  ASSERT_EQ(test::render_in_process({"--location", png, "--counts", npy2, "--out", again, "--quiet"}, &msg),
            0)
      << msg;
  EXPECT_EQ(slurp(npy2), slurp(npy));
}

TEST(RenderFormula, KfrFractalTypeChoosesTheFormulaAsKfDrawsIt) {
  const std::string dir = tmpdir();
  // KF's imaginary axis points down: the view is folded into its conjugate and the formula conjugated,
  // so the picture is KF's; the same counts as the library's Burning Ship rows read bottom up.
  spit(dir + "/ship.kfr",
       "Re: -0.4\r\nIm: 0.6\r\nZoom: 1.2\r\nIterations: 300\r\nFractalType: 1\r\nPower: 2\r\n");
  std::string msg;
  ASSERT_EQ(test::render_in_process({"--location", dir + "/ship.kfr", "--size", "48x32", "--counts",
                                     dir + "/k.npy", "--out", dir + "/k.png", "--quiet"},
                                    &msg),
            0)
      << msg;
  const mandel::View w = test::make_view("-0.4", "0.6", "1.2", 300, 48, 32);
  // KF's pixel (i, j) is c = centre + s (i - W/2 + 1/2, j - H/2 + 1/2) with j down: our view's row
  // H - 1 - j.
  const mandel::RenderResult r = formula::render_direct(w, formula::parse_formula("burning-ship"));
  std::vector<uint32_t> flipped(r.counts.size());
  for (int j = 0; j < 32; ++j)
    for (int i = 0; i < 48; ++i) flipped[j * 48 + i] = r.counts[(31 - j) * 48 + i];
  EXPECT_EQ(slurp(dir + "/k.npy"), app::encode_npy(flipped, 32, 48));
  std::string text;
  ASSERT_TRUE(app::png_find_text(slurp(dir + "/k.png"), app::kPngFormulaKey, &text));
  EXPECT_NE(text.find("formula = absx absy negy sqr add\n"), std::string::npos) << text;
  // A KF formula deepscope does not compute: exit 2 naming the field, nothing written.
  spit(dir + "/cubic.kfr", "Re: 0\r\nIm: 0\r\nZoom: 1\r\nIterations: 300\r\nFractalType: 11\r\nPower: 3\r\n");
  EXPECT_EQ(test::render_in_process({"--location", dir + "/cubic.kfr", "--out", dir + "/c.png"}, &msg), 2);
  EXPECT_NE(msg.find("FractalType = 11"), std::string::npos) << msg;
  EXPECT_FALSE(exists(dir + "/c.png"));
}

TEST(RenderFormula, WhatFormulasCannotDoYetIsRefused) {
  const std::string dir = tmpdir(), out = dir + "/x.png";
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const Case cases[] = {
      {{"--formula", "burning-boat"}, "burning-boat"},
      {{"--formula", "absx sqr"}, "must end with \"add\""},
      {{"--formula", "burning-ship", "--arith", "perturb"}, "perturbation"},
      {{"--formula", "burning-ship", "--arith", "f64x2"}, "--arith f64x2"},
      {{"--formula", "celtic", "--zoom", "1e20"}, "f64 resolves pixels only up to zoom"},
      {{"--formula", "buffalo", "--frames", "3", "--zoom-to", "10"}, "--frames"},
      {{"--formula", "buffalo", "--aa", "2"}, "--aa"},
      {{"--formula", "buffalo", "--verify", "4"}, "--verify"},
      {{"--formula", "mandelbrot,burning-ship", "--backend", "cuda"}, "--backend cuda"},
      {{"--formula", "mandelbar", "--shader", "distance"}, "distance"},  // or "needs OpenGL" without GL
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    for (const char* a : {"--size", "32x32", "--iter", "100", "--out"}) args.push_back(a);
    args.push_back(out);
    std::string msg;
    EXPECT_EQ(test::render_in_process(args, &msg), 2) << c.args[1] << ": " << msg;
    EXPECT_NE(msg.find(c.says), std::string::npos) << c.args[1] << ": " << msg;
    EXPECT_FALSE(exists(out)) << c.args[1];
  }
}

}  // namespace
