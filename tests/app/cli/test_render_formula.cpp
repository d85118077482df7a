// `render --formula` and formula locations (kernels/formula, docs/formulas.md): a Burning Ship PNG
// that records its formula and reads back with it, counts equal to the library's; KF's FractalType
// choosing the formula (mirrored as KF draws it); and every request formulas cannot do yet refused
// with exit 2 naming it, before any file is written: never a Mandelbrot picture instead; a deep Burning
// Ship by perturbation, and pixels left undecided making render exit 1 on both paths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "app/io/image_io.h"
#include "app/io/location.h"
#include "app/io/view_png.h"
#include "kernels/formula/direct.h"
#include "kernels/formula/render.h"
#include "kernels/formula/verify.h"
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
  EXPECT_NE(text.find("undecided = "), std::string::npos) << text;
  EXPECT_NE(text.find("unresolved = 0 of"), std::string::npos) << text;
  // The PNG reads back as a Burning Ship location: every command but render refuses it.
  const app::Location loc = app::read_location_file(png);
  EXPECT_EQ(loc.formula, "burning-ship");
  mandel::View v;
  EXPECT_THROW(app::apply_to_view(loc, &v, true), IoError);
  // The counts are the library's, and not the Mandelbrot set's.
  const mandel::View w = test::make_view("-0.4", "-0.6", "1.2", 300, 48, 32);
  formula::FormulaReport rep;
  const mandel::RenderResult r = formula::render(w, formula::parse_formula("burning-ship"), {}, &rep);
  EXPECT_EQ(rep.path, formula::FormulaPath::kDirect);
  EXPECT_EQ(rep.unresolved, 0u);
  EXPECT_EQ(slurp(npy), app::encode_npy(r.counts, 32, 48));
  const mandel::RenderResult m = formula::render(w, formula::parse_formula("mandelbrot"), {}, &rep);
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
  formula::FormulaReport rep;
  const mandel::RenderResult r = formula::render(w, formula::parse_formula("burning-ship"), {}, &rep);
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
      {{"--formula", "burning-ship", "--arith", "f64x2"}, "--arith f64x2"},
      {{"--formula", "celtic", "--zoom", "1e20", "--arith", "f64"}, "f64 resolves pixels only up to zoom"},
      {{"--formula", "buffalo", "--frames", "3", "--zoom-to", "10"}, "--frames"},
      {{"--formula", "buffalo", "--aa", "2"}, "--aa"},
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
  // A reference that would not fit in memory is refused before it starts.
  std::string msg;
  EXPECT_EQ(
      test::render_in_process(
          {"--formula", "celtic", "--zoom", "1e20", "--iter", "9e18", "--size", "32x32", "--out", out}, &msg),
      2)
      << msg;
  EXPECT_NE(msg.find("formula references are not compressed"), std::string::npos) << msg;
  EXPECT_FALSE(exists(out));
}

// --verify checks a formula render against the formula's own certified MPFR orbits (verify.h), as it
// does z^2 + c's against the oracle: said on the command line, recorded in the PNG, exit 1 where a
// sampled count differs by more than one. A count changed by hand at a sampled pixel is caught.
TEST(RenderFormula, VerifyChecksAgainstTheFormulasOwnMpfrOrbits) {
  const std::string dir = tmpdir(), png = dir + "/v.png";
  std::string msg;
  testing::internal::CaptureStderr();
  const int rc = test::render_in_process({"--formula", "buffalo", "--re", "-0.3", "--im", "0.2", "--zoom", "1.5",
                                          "--size", "40x30", "--iter", "400", "--verify", "10", "--out", png},
                                         &msg);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << msg << err;
  EXPECT_NE(err.find("verify: 10/10 sampled pixels agree with MPFR"), std::string::npos) << err;
  EXPECT_NE(err.find("the formula's own MPFR orbits"), std::string::npos) << err;
  std::string text;
  ASSERT_TRUE(app::png_find_text(slurp(png), app::kPngVerifyKey, &text));
  EXPECT_NE(text.find("result = passed"), std::string::npos) << text;
  EXPECT_NE(text.find("samples = 10 (3x3 grid, 1 random, seed"), std::string::npos) << text;

  const mandel::View v = test::make_view("-0.4", "-0.6", "1.2", 300, 48, 32);
  const formula::Formula f = formula::parse_formula("burning-ship");
  formula::FormulaReport frep;
  mandel::RenderResult r = formula::render(v, f, {}, &frep);
  ASSERT_EQ(frep.unresolved, 0u);
  formula::FormulaVerifyOptions o;
  o.samples = 9;
  const perturb::oracle::VerifyReport good = formula::verify_formula_render(v, f, r, o);
  EXPECT_EQ(good.samples, 9);
  EXPECT_EQ(good.untrusted, 0);
  EXPECT_EQ(good.agree, 9) << good.summary();
  EXPECT_FALSE(good.failed());
  const mandel::PixelIndex at = perturb::oracle::verify_pixels(v, 9, 0)[4];
  const std::size_t k = static_cast<std::size_t>(at.j) * v.width + at.i;
  r.counts[k] = r.counts[k] > 10 ? r.counts[k] - 5 : r.counts[k] + 5;
  const perturb::oracle::VerifyReport bad = formula::verify_formula_render(v, f, r, o);
  EXPECT_EQ(bad.wrong, 1) << bad.summary();
  EXPECT_TRUE(bad.failed());
  EXPECT_NE(bad.metadata().find("pixel " + std::to_string(at.i) + " " + std::to_string(at.j) + ": rendered"),
            std::string::npos)
      << bad.metadata();
}

// Past binary64's zoom, auto renders by perturbation, says so on the command line and in the PNG,
// and exits 0 when every pixel was decided (a Burning Ship at 1.6e60: 147 of 256 pixels go to their
// MPFR orbit, as FormulaPerturb.UndecidedPixelsAreDecidedByTheirMpfrOrbit measures).
TEST(RenderFormula, DeepBurningShipRendersByPerturbation) {
  const std::string dir = tmpdir(), png = dir + "/deep.png";
  std::string msg;
  testing::internal::CaptureStderr();
  const int rc = test::render_in_process(
      {"--formula", "burning-ship", "--re",
       "-0.52385650573873808264320817953931464697723557570940719796350161454708271638042874", "--im",
       "-0.905063012975098048484633103441542341595677940679102394986324177838949724014396055", "--zoom",
       "1.6069380442590071e60", "--size", "16x16", "--iter", "2000", "--out", png},
      &msg);
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(rc, 0) << msg << err;
  EXPECT_NE(err.find("by perturbation (binary64 deltas)"), std::string::npos) << err;
  EXPECT_NE(err.find("147 of 256 pixels undecided in binary64, 147 decided by their MPFR orbit"),
            std::string::npos)
      << err;
  std::string text;
  ASSERT_TRUE(app::png_find_text(slurp(png), app::kPngFormulaKey, &text));
  EXPECT_NE(text.find("method = perturbation (binary64 deltas) on the CPU"), std::string::npos) << text;
  EXPECT_NE(text.find("reference = 422 points at 331 bits"), std::string::npos) << text;
  EXPECT_NE(text.find("undecided = 147 of 256"), std::string::npos) << text;
  EXPECT_NE(text.find("unresolved = 0 of 256"), std::string::npos) << text;
}

// BLA steps (on by default, --no-bla off) change no count of a fully decided render, and the PNG's
// formula record says how many iterations they replaced (kernels/formula/bla.h).
TEST(RenderFormula, BlaChangesNoCountAndIsRecorded) {
  const std::string dir = tmpdir();
  std::string counts[2], text[2];
  for (int off = 0; off < 2; ++off) {
    const std::string png = dir + "/bla" + std::to_string(off) + ".png", npy = dir + "/bla" + std::to_string(off) + ".npy";
    std::vector<std::string> args = {
        "--formula", "burning-ship", "--re",
        "-0.52385650573873808264320817953931464697723557570940719796350161454708271638042874", "--im",
        "-0.905063012975098048484633103441542341595677940679102394986324177838949724014396055", "--zoom",
        "1.6069380442590071e60", "--size", "24x24", "--iter", "2000", "--counts", npy, "--out", png};
    if (off) args.push_back("--no-bla");
    std::string msg;
    testing::internal::CaptureStderr();
    const int rc = test::render_in_process(args, &msg);
    const std::string err = testing::internal::GetCapturedStderr();
    ASSERT_EQ(rc, 0) << msg << err;
    ASSERT_TRUE(app::png_find_text(slurp(png), app::kPngFormulaKey, &text[off]));
    counts[off] = slurp(npy);
  }
  EXPECT_FALSE(counts[0].empty());
  EXPECT_EQ(counts[0], counts[1]) << "the counts with and without BLA differ";
  const std::size_t at = text[0].find("\nbla = ");
  ASSERT_NE(at, std::string::npos) << text[0];
  EXPECT_GT(std::stoull(text[0].substr(at + 7)), 0u) << text[0];
  EXPECT_NE(text[0].find(" iterations of the binary64 pass by BLA steps"), std::string::npos) << text[0];
  EXPECT_NE(text[1].find("\nbla = off\n"), std::string::npos) << text[1];
}

// Pixels that neither binary64 nor (within --max-references) their MPFR orbit decided make render
// exit 1, on both paths, and the PNG counts them (the lead's decision: a render that is not right
// never exits 0).
TEST(RenderFormula, UnresolvedPixelsExitOneOnBothPaths) {
  const std::string dir = tmpdir();
  struct Case {
    std::vector<std::string> args;
    const char* method;
  };
  const Case cases[] = {
      {{"--formula", "burning-ship", "--re", "-0.4", "--im", "-0.6", "--zoom", "1.2", "--size", "48x32",
        "--iter", "300"},
       "method = direct binary64"},
      {{"--formula", "burning-ship", "--re", "-0.989752281000521898831661265663459503552380985223124", "--im",
        "-0.528974112195614262618309520861418904169817810601377", "--zoom", "1.2676506002282359e30", "--size",
        "16x16", "--iter", "8000"},
       "method = perturbation"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    const std::string png = dir + "/u.png";
    for (const std::string& a :
         {std::string("--max-references"), std::string("0"), std::string("--out"), png})
      args.push_back(a);
    std::string msg;
    testing::internal::CaptureStderr();
    const int rc = test::render_in_process(args, &msg);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(rc, 1) << c.method << ": " << msg << err;
    EXPECT_NE(err.find("could not be decided"), std::string::npos) << err;
    std::string text;
    ASSERT_TRUE(app::png_find_text(slurp(png), app::kPngFormulaKey, &text)) << c.method;
    EXPECT_NE(text.find(c.method), std::string::npos) << text;
    EXPECT_NE(text.find("mpfr fallback = 0 pixels"), std::string::npos) << text;
    EXPECT_EQ(text.find("unresolved = 0 of"), std::string::npos) << text;
    std::remove(png.c_str());
  }
}

}  // namespace
