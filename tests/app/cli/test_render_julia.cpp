// `render --julia-re RE --julia-im IM` (kernels/formula/julia.h, docs/formulas.md "Julia sets"): a
// Julia set's PNG records its seed and reads back with it, counts equal to the library's and not the
// parameter plane's; a location file's seed, mirrored as its map says; and bad seeds, a missing
// part and the GPU refused with exit 2 naming the field, before any file is written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "app/io/image_io.h"
#include "app/io/location.h"
#include "kernels/formula/render.h"
#include "locations.h"
#include "render_in_process.h"
#include "test_files.h"

namespace {

using namespace ds;

using test::slurp;

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

// The library's counts of the view with f's Julia set of (re, im).
std::vector<uint32_t> library_counts(const mandel::View& v, const std::string& f, const std::string& re,
                                     const std::string& im) {
  formula::FormulaOptions o;
  if (!re.empty()) o.julia = formula::parse_julia(re, im);
  formula::FormulaReport rep;
  const mandel::RenderResult r = formula::render(v, formula::parse_formula(f), o, &rep);
  EXPECT_EQ(rep.unresolved, 0u) << f;
  return r.counts;
}

TEST(RenderJulia, PngRecordsTheSeedAndReadsBack) {
  const std::string dir = test::make_tmpdir("julia");
  for (const char* f : {"mandelbrot", "burning-ship"}) {
    const std::string png = dir + "/" + f + ".png", npy = dir + "/" + f + ".npy";
    std::string msg;
    std::vector<std::string> args = {"--julia-re", "-0.8", "--julia-im", "0.156", "--re", "0.1", "--im", "-0.05",
                                     "--zoom", "1.3", "--size", "48x32", "--iter", "300", "--counts", npy,
                                     "--out", png, "--quiet"};
    if (std::string(f) != "mandelbrot") args.insert(args.begin(), {"--formula", f});
    ASSERT_EQ(test::render_in_process(args, &msg), 0) << f << ": " << msg;
    std::string text;
    ASSERT_TRUE(app::png_find_text(slurp(png), app::kPngFormulaKey, &text)) << f;
    EXPECT_NE(text.find(std::string("formula = ") + f + "\n"), std::string::npos) << text;
    EXPECT_NE(text.find("julia_re = -0.8\njulia_im = 0.156\n"), std::string::npos) << text;
    EXPECT_NE(text.find("unresolved = 0 of"), std::string::npos) << text;
    // The counts are the library's Julia set's, and not the parameter plane's.
    const mandel::View v = test::make_view("0.1", "-0.05", "1.3", 300, 48, 32);
    const std::vector<uint32_t> julia = library_counts(v, f, "-0.8", "0.156");
    EXPECT_EQ(slurp(npy), app::encode_npy(julia, 32, 48)) << f;
    EXPECT_NE(app::encode_npy(library_counts(v, f, "", ""), 32, 48), app::encode_npy(julia, 32, 48)) << f;
    // The PNG reads back as a Julia location: render draws it again, other commands refuse it.
    const app::Location loc = app::read_location_file(png);
    EXPECT_EQ(loc.julia_re, "-0.8");
    EXPECT_EQ(loc.julia_im, "0.156");
    mandel::View w;
    EXPECT_THROW(app::apply_to_view(loc, &w, true), IoError);
    formula::Formula g;
    EXPECT_THROW(app::apply_to_view(loc, &w, true, &g), IoError);  // no seed to take it: refused
    EXPECT_THROW(app::format_kfr(loc), IoError);                    // KF would draw the parameter plane
    const std::string again = dir + "/again.png", npy2 = dir + "/again.npy";
    ASSERT_EQ(test::render_in_process({"--location", png, "--counts", npy2, "--out", again, "--quiet"}, &msg), 0)
        << msg;
    EXPECT_EQ(slurp(npy2), slurp(npy)) << f;
  }
}

// A location with a mirrored pixel map (y down) draws the unmirrored view's rows bottom up: the
// view is folded into its conjugate with the seed conjugated (and the formula, where it is not
// symmetric: the Burning Ship).
TEST(RenderJulia, MirroredLocationDrawsTheMirrorImage) {
  const std::string dir = test::make_tmpdir("julia");
  for (const char* f : {"mandelbrot", "burning-ship"}) {
    const std::string base = "re = 0.1\nim = -0.05\nzoom = 1.3\niterations = 300\nwidth = 40\nheight = 30\n"
                             "julia_re = -0.8\njulia_im = 0.156\nformula = " +
                             std::string(f) + "\n";
    std::ofstream(dir + "/up.txt") << base;
    std::ofstream(dir + "/down.txt") << base << "pixel_map = 1 0 0 -1\n";
    std::string msg;
    for (const char* which : {"up", "down"})
      ASSERT_EQ(test::render_in_process({"--location", dir + "/" + which + ".txt", "--counts",
                                         dir + "/" + which + ".npy", "--out", dir + "/" + which + ".png",
                                         "--quiet"},
                                        &msg),
                0)
          << f << " " << which << ": " << msg;
    const mandel::View v = test::make_view("0.1", "-0.05", "1.3", 300, 40, 30);
    const std::vector<uint32_t> up = library_counts(v, f, "-0.8", "0.156");
    std::vector<uint32_t> flipped(up.size());
    for (int j = 0; j < 30; ++j)
      for (int i = 0; i < 40; ++i) flipped[static_cast<size_t>(j) * 40 + i] = up[static_cast<size_t>(29 - j) * 40 + i];
    EXPECT_EQ(slurp(dir + "/up.npy"), app::encode_npy(up, 30, 40)) << f;
    EXPECT_EQ(slurp(dir + "/down.npy"), app::encode_npy(flipped, 30, 40)) << f;
    EXPECT_NE(up, flipped) << f << ": a symmetric view tests nothing";
  }
}

TEST(RenderJulia, BadSeedsAreRefused) {
  const std::string dir = test::make_tmpdir("julia"), out = dir + "/x.png";
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const Case cases[] = {
      {{"--julia-re", "-0.8"}, "--julia-im: missing"},
      {{"--julia-im", "0.1"}, "--julia-re: missing"},
      {{"--julia-re", "nan", "--julia-im", "0"}, "--julia-re"},
      {{"--julia-re", "0", "--julia-im", "NaN"}, "--julia-im"},
      {{"--julia-re", "inf", "--julia-im", "0"}, "--julia-re"},
      {{"--julia-re", "0.3", "--julia-im", "1e5000000"}, "--julia-im"},
      {{"--julia-re", "-0.8x", "--julia-im", "0"}, "--julia-re"},
      {{"--julia-re", "-1.5", "--julia-im", "1.4"}, "is above 2"},
      {{"--julia-re", "-0.8", "--julia-im", "0.156", "--backend", "cuda"}, "--backend cuda with --julia-re"},
      {{"--formula", "celtic", "--julia-re", "-0.8", "--julia-im", "0.156", "--backend", "cuda"},
       "--backend cuda with --julia-re"},
      {{"--julia-re", "-0.8", "--julia-im", "0.156", "--aa", "2"}, "--aa: not implemented for formula mandelbrot (the Julia set of c = -0.8 + 0.156 i)"},
      {{"--julia-re", "-0.8", "--julia-im", "0.156", "--frames", "3", "--zoom-to", "10"}, "--frames"},
      {{"--julia-re", "-0.8", "--julia-im", "0.156", "--shader", "distance"}, "distance"},
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
  // A location file's seed: one part missing, or NaN, named.
  std::ofstream(dir + "/half.txt") << "re = 0\nim = 0\nzoom = 1\njulia_re = -0.8\n";
  std::ofstream(dir + "/nan.txt") << "re = 0\nim = 0\nzoom = 1\njulia_re = -0.8\njulia_im = nan\n";
  for (const char* f : {"half", "nan"}) {
    std::string msg;
    EXPECT_EQ(test::render_in_process({"--location", dir + "/" + f + ".txt", "--out", out}, &msg), 2) << f;
    EXPECT_NE(msg.find("julia_im"), std::string::npos) << f << ": " << msg;
    EXPECT_FALSE(exists(out));
  }
}

}  // namespace
