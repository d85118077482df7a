// The Mandelbrot panel's formula selector and Julia toggle at 1280x800 under a private Xvfb
// (tests/app/gui/with_xvfb.sh), CPU path: J under the mouse shows the Julia set of the point there
// (the PNG F12 writes records that seed, read back by `render --location` pixel for pixel, and the
// window shows those pixels), the formula chosen by a script's `run formula=NAME` is recorded and
// drawn, Ctrl+S saves the seed, and J again returns to the parameter plane's view. Again with the
// GPU visible where there is one (CUDA canvases).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "app/io/image_io.h"
#include "app/io/location.h"
#include "kernels/mandelbrot/navigate.h"
#include "render_in_process.h"
#include "test_files.h"
#include "window_session.h"

namespace {

using ds::test::load;
using ds::test::Png;
using ds::test::run;
using ds::test::write;

// The share of pixels of two equal-sized images whose channels differ by at most `tol`.
double share_alike(const Png& a, const Png& b, int tol) {
  size_t same = 0;
  for (size_t q = 0; q < a.rgb.size(); q += 3)
    same += std::abs(a.rgb[q] - b.rgb[q]) <= tol && std::abs(a.rgb[q + 1] - b.rgb[q + 1]) <= tol &&
            std::abs(a.rgb[q + 2] - b.rgb[q + 2]) <= tol;
  return a.rgb.empty() ? 0 : static_cast<double>(same) / (a.rgb.size() / 3);
}

std::string formula_record(const std::string& png) {
  std::string text;
  ds::app::png_find_text(ds::test::slurp(png), ds::app::kPngFormulaKey, &text);
  return text;
}

// The session, on the CPU (CUDA_VISIBLE_DEVICES empty) or with the GPU visible (the canvases on the
// device: Canvas::store copies the formula frames up).
void julia_session(bool gpu) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string d = ds::test::make_tmpdir("julia-session");
  write(d + "/home.txt", "re = -0.5\nim = 0\nzoom = 1\niterations = 500\n");
  // Key I: auto iterations off, so every image keeps the location's 500 as render does.
  write(d + "/s.script", "move 5 5\nkey i\nwait-idle 120\npng " + d + "/plane.png\nkey F12\nwait-idle 120\n" +
                             "move 250 300\nkey j\nwait-idle 120\npng " + d + "/julia.png\nkey F12\nwait-idle 120\n" +
                             "screenshot " + d + "/window-julia.png\n" +
                             "key ctrl+s\nwait 3\nrun formula=burning-ship\nwait-idle 120\npng " + d +
                             "/ship.png\nkey F12\nwait-idle 120\nscreenshot " + d + "/window.png\n" +
                             "move 250 300\nkey j\nwait-idle 120\npng " + d + "/back.png\nkey F12\nwait-idle 120\nquit\n");
  ASSERT_EQ(run("cd " + d + " && " + std::string(gpu ? "" : "CUDA_VISIBLE_DEVICES= ") + DEEPSCOPE_WITH_XVFB " " DEEPSCOPE_EXE
                " --size 1280x800 --location " + d + "/home.txt --script " + d + "/s.script > " + d +
                "/log.txt 2>&1"),
            0)
      << ds::test::slurp(d + "/log.txt");
  // The parameter plane's view, and the point under (250, 300) in it: the seed.
  const ds::app::Location plane = ds::app::read_location_file(d + "/plane.png");
  ASSERT_TRUE(plane.width && plane.height);
  ds::mandel::View pv;
  pv.re = plane.re;
  pv.im = plane.im;
  pv.zoom = plane.zoom;
  pv.width = *plane.width;
  pv.height = *plane.height;
  std::string re, im;
  ds::mandel::point_at(pv, 250, 300, &re, &im);
  // The pointer reaches the panel as ImGui's float coordinates: the seed is the point within a
  // thousandth of a pixel (the spacing here is about 5e-3).
  const auto near = [](const std::string& a, const std::string& b) {
    return !a.empty() && std::fabs(std::stod(a) - std::stod(b)) < 5e-6;
  };
  EXPECT_EQ(formula_record(d + "/plane.png"), "");  // z^2 + c's parameter plane: no formula record
  const std::string rec = formula_record(d + "/julia.png");
  EXPECT_NE(rec.find("formula = mandelbrot\njulia_re = "), std::string::npos) << rec;
  const ds::app::Location jl = ds::app::read_location_file(d + "/julia.png");
  EXPECT_TRUE(near(jl.julia_re, re)) << jl.julia_re << " against " << re;
  EXPECT_TRUE(near(jl.julia_im, im)) << jl.julia_im << " against " << im;
  EXPECT_EQ(jl.re, "0");
  // Ctrl+S saved the Julia location (the panel's path: location.txt in the working folder).
  const ds::app::Location saved = ds::app::parse_location(ds::test::slurp(d + "/location.txt"), "location.txt");
  EXPECT_EQ(saved.julia_re, jl.julia_re);
  EXPECT_EQ(saved.julia_im, jl.julia_im);
  // The window's Julia PNG is render's, read back from its own record (the same engine call).
  const Png julia = load(d + "/julia.png"), planepng = load(d + "/plane.png");
  ASSERT_GT(julia.w, 100);
  // Exit 1 where pixels stay unresolved, said in both PNGs: at zoom 1 a few pixels lie exactly on
  // |z_1| = 2 (offsets forming Pythagorean triples with the half-height), a tie no precision
  // decides; their counts are binary64's, the same in both.
  std::string message;
  const int rc = ds::test::render_in_process(
      {"--location", d + "/julia.png", "--backend", "cpu", "--quiet", "--out", d + "/cli.png"}, &message);
  ASSERT_TRUE(rc == 0 || rc == 1) << rc << ": " << message;
  const Png cli = load(d + "/cli.png");
  ASSERT_EQ(cli.w, julia.w);
  ASSERT_EQ(cli.h, julia.h);
  const double alike = share_alike(julia, cli, 1), plane_alike = share_alike(julia, planepng, 8);
  std::printf("Julia PNG %dx%d: %.4f of pixels as render's, %.4f as the parameter plane's\n", julia.w, julia.h,
              alike, plane_alike);
  EXPECT_GE(alike, 0.999);
  EXPECT_LT(plane_alike, 0.5);
  // What the window shows (its canvas, coloured by its shader) is that picture: the image's
  // rectangle in the window's screenshot, placed by the pointer's line in the log.
  const std::string log = ds::test::slurp(d + "/log.txt");
  const size_t at = log.find("pointer at image (250, 300), window (");
  ASSERT_NE(at, std::string::npos) << log;
  int wx = 0, wy = 0;
  ASSERT_EQ(std::sscanf(log.c_str() + at, "pointer at image (250, 300), window (%d, %d)", &wx, &wy), 2);
  const Png window = load(d + "/window-julia.png");
  ASSERT_GE(window.w, wx - 250 + julia.w);
  ASSERT_GE(window.h, wy - 300 + julia.h);
  size_t shown_same = 0;
  for (int j = 0; j < julia.h; ++j)
    for (int i = 0; i < julia.w; ++i) {
      const unsigned char *a = julia.at(i, j), *b = window.at(wx - 250 + i, wy - 300 + j);
      shown_same += std::abs(a[0] - b[0]) <= 1 && std::abs(a[1] - b[1]) <= 1 && std::abs(a[2] - b[2]) <= 1;
    }
  const double shown = static_cast<double>(shown_same) / (static_cast<double>(julia.w) * julia.h);
  std::printf("the window shows %.4f of the Julia PNG's pixels as they are\n", shown);
  EXPECT_GE(shown, 0.99);
  // The formula selector: the Burning Ship's Julia set of the same seed, recorded and drawn.
  const std::string ship = formula_record(d + "/ship.png");
  EXPECT_NE(ship.find("formula = burning-ship\njulia_re = " + jl.julia_re + "\n"), std::string::npos) << ship;
  EXPECT_LT(share_alike(load(d + "/ship.png"), julia, 8), 0.9);
  // J again: the parameter plane's view as it was, z^2 + c replaced by the formula chosen.
  const ds::app::Location back = ds::app::read_location_file(d + "/back.png");
  EXPECT_EQ(back.re, plane.re);
  EXPECT_EQ(back.zoom, plane.zoom);
  EXPECT_TRUE(back.julia_re.empty());
  EXPECT_EQ(back.formula, "burning-ship");
}

TEST(JuliaSession, JUnderTheMouseShowsTheJuliaSetOfThatPoint) { julia_session(false); }

// Verify on a formula's frame checks its sampled pixels against their own certified MPFR orbits
// (kernels/formula/verify.h, what `render --formula --verify` runs), and says so; a script's
// `verify N` presses the button.
TEST(JuliaSession, VerifyChecksAFormulasPixelsAgainstTheirOwnMpfrOrbits) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string d = ds::test::make_tmpdir("formula-verify-session");
  write(d + "/home.txt", "re = -0.4\nim = -0.6\nzoom = 1.2\niterations = 300\n");
  write(d + "/s.script", "move 5 5\nkey i\nrun formula=burning-ship\nwait-idle 120\nverify 9\nwait-idle 120\nquit\n");
  ASSERT_EQ(run("cd " + d + " && CUDA_VISIBLE_DEVICES= " DEEPSCOPE_WITH_XVFB " " DEEPSCOPE_EXE
                " --size 960x640 --location " + d + "/home.txt --script " + d + "/s.script > " + d + "/log.txt 2>&1"),
            0)
      << ds::test::slurp(d + "/log.txt");
  const std::string log = ds::test::slurp(d + "/log.txt");
  EXPECT_NE(log.find("deepscope: verify: 9/9 sampled pixels agree with MPFR"), std::string::npos) << log;
  EXPECT_NE(log.find("(the formula's own MPFR orbits)"), std::string::npos) << log;
}

// The same session with the GPU visible: the formula frames go into CUDA canvases (Canvas::store's
// device copy). Skipped, visibly, where no GPU is (or the build has no CUDA).
TEST(JuliaSession, OnCudaCanvases) {
  if (run("nvidia-smi -L > /dev/null 2>&1") != 0) GTEST_SKIP() << "no GPU here (nvidia-smi): the CUDA canvas path is not run";
  if (run(std::string(DEEPSCOPE_EXE) + " info 2>&1 | grep -q 'CUDA ON'") != 0)
    GTEST_SKIP() << "this build has no CUDA: the CUDA canvas path is not run";
  julia_session(true);
}

}  // namespace
