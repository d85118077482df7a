// The Mandelbrot panel at 1280x800 under a private Xvfb (tests/app/gui/with_xvfb.sh), CPU path: a
// Kalles Fraktaler .kfr opens with its own palette and colour method (the kf shader, as `render
// --location` draws it: the image's colours are KF's table entries, not the built-in palette's),
// with no warning shown; its coordinates are shown in one notation with the exponent visible; and
// Ctrl+S writes the location file the panel's path names.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "app/io/colouring.h"
#include "app/io/image_io.h"
#include "app/io/kfp.h"
#include "app/io/location.h"
#include "kernels/colour/palette.h"
#include "render_in_process.h"
#include "test_files.h"
#include "window_session.h"

namespace {

using ds::test::load;
using ds::test::Png;
using ds::test::run;
using ds::test::write;

// Share of the image area's pixels (right of the 360-pixel controls, below the tab bar), sampled,
// within one level of a blend of two neighbouring entries of the table (black ones left out).
double share_from_table(const Png& p, const ds::colour::Palette& t, size_t* counted) {
  size_t n = 0, hit = 0;
  for (int y = 48; y < p.h - 8; y += 7)
    for (int x = 392; x < p.w - 8; x += 7) {
      const unsigned char* q = p.at(x, y);
      if (q[0] + q[1] + q[2] < 12) continue;
      ++n;
      for (int k = 0; k < t.stops; ++k) {
        const ds::colour::Rgb8 a = t.stop[k], b = t.stop[(k + 1) % t.stops];
        auto in = [](int v, int u, int w) { return v >= std::min(u, w) - 1 && v <= std::max(u, w) + 1; };
        if (in(q[0], a.r, b.r) && in(q[1], a.g, b.g) && in(q[2], a.b, b.b)) {
          ++hit;
          break;
        }
      }
    }
  *counted = n;
  return n ? static_cast<double>(hit) / n : 0;
}

// Pixels of the panel's notice colour (ImVec4(1.0, 0.8, 0.3): 255, 204, 76) in the controls.
int notice_pixels(const Png& p) {
  int hit = 0;
  for (int y = 30; y < p.h; ++y)
    for (int x = 0; x < 370 && x < p.w; ++x) {
      const unsigned char* q = p.at(x, y);
      hit += q[0] > 230 && std::abs(q[1] - 204) <= 20 && std::abs(q[2] - 76) <= 30;
    }
  return hit;
}

// The window at 1280x800 on the CPU with `location` opened, driven by `script` (written to d), its
// output in d/log.txt; the exit code.
int run_window(const std::string& d, const std::string& location, const std::string& script) {
  write(d + "/s.script", script);
  return run("cd " + d + " && CUDA_VISIBLE_DEVICES= " DEEPSCOPE_WITH_XVFB " " DEEPSCOPE_EXE
             " --size 1280x800 --location " + location + " --script " + d + "/s.script > " + d + "/log.txt 2>&1");
}

TEST(MandelbrotPanelSession, KfrOpensWithItsColouringAndCtrlSSavesIt) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string d = ds::test::make_tmpdir("panel-session");
  const std::string kfr = ds::test::source_path("tests/data/kf-benchmarks/1e14.kfr");
  ASSERT_EQ(run_window(d, kfr,
                       "wait-idle 120\nmove 5 5\nwait 3\nscreenshot " + d + "/panel.png\nkey ctrl+s\nwait 3\nquit\n"),
            0)
      << ds::test::slurp(d + "/log.txt");
  const Png p = load(d + "/panel.png");
  ASSERT_EQ(p.w, 1280);
  ASSERT_EQ(p.h, 800);
  const ds::app::KfPalette kp = ds::app::read_kfp(kfr);
  size_t n = 0, n_classic = 0;
  const double kf = share_from_table(p, ds::app::kf_table(kp), &n);
  const double classic = share_from_table(p, ds::colour::palette_by_name("classic"), &n_classic);
  std::printf("%zu pixels sampled: %.3f from KF's table, %.3f from the classic palette\n", n, kf, classic);
  ASSERT_GT(n, 5000u);
  EXPECT_GT(kf, 0.97) << "the image is not in the file's palette";
  EXPECT_LT(classic, 0.5);
  EXPECT_EQ(notice_pixels(p), 0) << "a warning is shown for a file whose colouring is reproduced";
  // Ctrl+S: the panel's location path (location.txt, in the working folder), in our format, with
  // the view and the .kfr as its palette.
  const std::string saved = ds::test::slurp(d + "/location.txt");
  ASSERT_FALSE(saved.empty()) << ds::test::slurp(d + "/log.txt");
  const ds::app::Location l = ds::app::parse_location(saved, "location.txt");
  EXPECT_EQ(l.re.substr(0, 20), "-1.75981713080484781");
  EXPECT_EQ(l.zoom.substr(0, 4), "1.00");
  ASSERT_TRUE(l.palette.has_value());
  EXPECT_EQ(*l.palette, kfr);
}

// A .kfr with KF's square-root smoothing (SmoothMethod: 1) opens drawn as `render --location`
// draws it: no warning, the PNG the window writes (F12) records the kf shader's sqrt_smoothing = 1,
// and its pixels are render's. The file has 1024 distinct colours, Smooth 0 and IterDiv 0.25, so
// each pixel's colour names its table entry and the smoothing's fraction picks one of four entries
// a count (RenderKfrColour.SquareRootSmoothingGivesKfsEntries checks render's entries against
// KF's formula).
TEST(MandelbrotPanelSession, KfrWithSquareRootSmoothingIsDrawnAsRenderDrawsIt) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string d = ds::test::make_tmpdir("panel-sqrt");
  std::string colors;
  for (int k = 0; k < 1024; ++k) colors += std::to_string(k & 255) + "," + std::to_string(60 * (k >> 8)) + ",9,";
  const std::string kfr = d + "/sqrt.kfr";
  write(kfr, "Re: -0.7436\r\nIm: 0.1318\r\nZoom: 40\r\nIterations: 3000\r\nIterDiv: 0.25\r\nColorMethod: 0\r\n"
             "SmoothMethod: 1\r\nSmooth: 0\r\nColors: " + colors + "\r\n");
  // Key I: the window's auto iterations off, so the view keeps the file's 3000 as render does.
  ASSERT_EQ(run_window(d, kfr,
                       "move 5 5\nkey i\nwait-idle 120\nleave\nwait 3\nscreenshot " + d + "/panel.png\npng " + d +
                           "/shot.png\nkey F12\nwait-idle 120\nquit\n"),
            0)
      << ds::test::slurp(d + "/log.txt");
  EXPECT_EQ(notice_pixels(load(d + "/panel.png")), 0) << "a warning is shown for square-root smoothing";
  const std::string shot_bytes = ds::test::slurp(d + "/shot.png");
  std::string record;
  ASSERT_TRUE(ds::app::png_find_text(shot_bytes, ds::app::kPngColourKey, &record)) << ds::test::slurp(d + "/log.txt");
  EXPECT_NE(record.find("param sqrt_smoothing = 1\n"), std::string::npos) << record;
  const Png shot = load(d + "/shot.png");
  ASSERT_GT(shot.w, 100);
  std::string message;
  ASSERT_EQ(ds::test::render_in_process({"--location", kfr, "--size",
                                         std::to_string(shot.w) + "x" + std::to_string(shot.h), "--backend", "cpu",
                                         "--quiet", "--out", d + "/cli.png"},
                                        &message),
            0)
      << message;
  const Png cli = load(d + "/cli.png");
  ASSERT_EQ(cli.w, shot.w);
  ASSERT_EQ(cli.h, shot.h);
  size_t same = 0;
  for (size_t q = 0; q < shot.rgb.size(); q += 3)
    same += shot.rgb[q] == cli.rgb[q] && shot.rgb[q + 1] == cli.rgb[q + 1] && shot.rgb[q + 2] == cli.rgb[q + 2];
  const size_t n = shot.rgb.size() / 3;
  std::printf("window's PNG %dx%d: %zu of %zu pixels as render's\n", shot.w, shot.h, same, n);
  EXPECT_GE(same, n * 999 / 1000);
}

}  // namespace

// Honest progress: while a long render runs (KF's 5e227 at 1280x800 on the CPU: minutes), the
// image carries a strip along its bottom edge, filled to the share done (app/io/progress_text.h's
// line in white on it: stage, share, time); the controls' bar may be scrolled out of sight.
TEST(MandelbrotPanelSession, ARunningRenderShowsItsProgressOnTheImage) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string d = ds::test::make_tmpdir("panel-progress");
  const std::string kfr = ds::test::source_path("tests/data/kf-benchmarks/5e227.kfr");
  ASSERT_EQ(run_window(d, kfr, "sleep 4\nscreenshot " + d + "/running.png\nquit\n"), 0)
      << ds::test::slurp(d + "/log.txt");
  const Png p = load(d + "/running.png");
  ASSERT_EQ(p.w, 1280);
  ASSERT_EQ(p.h, 800);
  // The strip: the last text line's height above the bottom of the image area (x > 380): white
  // text pixels on a dark band, and the filled share in the strip's blue at its left end.
  int white = 0, blue = 0;
  for (int y = p.h - 24; y < p.h - 4; ++y)
    for (int x = 380; x < p.w - 10; ++x) {
      const unsigned char* q = p.at(x, y);
      white += q[0] > 240 && q[1] > 240 && q[2] > 240;
      blue += q[2] > q[0] + 40 && q[2] > q[1] + 20 && q[2] > 70;
    }
  std::printf("progress strip: %d white text pixels, %d blue fill pixels\n", white, blue);
  EXPECT_GT(white, 150) << "no progress text on the image";
  EXPECT_GT(blue, 20) << "no filled share on the strip";
}

// A preview within seconds: a deep view whose 1/4-resolution pass takes a minute or more on the CPU
// (1e1000, 136,300 iterations, at 1280x800) shows its 1/16-resolution glimpse a few seconds after
// the window opens, instead of a black image until that pass ends: the image area is coloured (the
// glimpse's pixels scaled up, the 1/4 pass's, or the full pass's first rows over them) while the
// progress strip still runs below. Screenshots at 6, 12 and 18 s: how soon the glimpse comes depends
// on the machine and its load (at 8 s alone it failed once with the suite running beside it), so
// one of them must show it; none may be black with the render finished.
TEST(MandelbrotPanelSession, ADeepViewShowsAGlimpseWhileItsPreviewRenders) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string d = ds::test::make_tmpdir("panel-glimpse");
  const std::string loc = ds::test::source_path("assets/locations/minibrot-1e1000.loc");
  ASSERT_EQ(run_window(d, loc,
                       "sleep 6\nscreenshot " + d + "/g6.png\nsleep 6\nscreenshot " + d +
                           "/g12.png\nsleep 6\nscreenshot " + d + "/g18.png\nquit\n"),
            0)
      << ds::test::slurp(d + "/log.txt");
  bool seen = false;
  for (const char* name : {"g6", "g12", "g18"}) {
    const Png p = load(d + "/" + name + ".png");
    ASSERT_EQ(p.w, 1280);
    ASSERT_EQ(p.h, 800);
    // The image area, above the strip: coloured pixels.
    int coloured = 0, all = 0;
    for (int y = 40; y < p.h - 40; ++y)
      for (int x = 380; x < p.w - 12; ++x) {
        const unsigned char* q = p.at(x, y);
        ++all;
        coloured += q[0] + q[1] + q[2] > 30;
      }
    // The strip's white text: the render still runs. (Which pass is on screen depends on the
    // machine: 16-pixel blocks, the 1/4 pass's, or a share of the full resolution.)
    int white = 0;
    for (int y = p.h - 24; y < p.h - 4; ++y)
      for (int x = 380; x < p.w - 10; ++x) {
        const unsigned char* q = p.at(x, y);
        white += q[0] > 240 && q[1] > 240 && q[2] > 240;
      }
    std::printf("%s: %.3f of the image area coloured, %d white strip pixels\n", name,
                static_cast<double>(coloured) / all, white);
    EXPECT_TRUE(coloured > all * 7 / 10 || white > 150) << name << ": black, and no render running";
    seen = seen || (coloured > all * 7 / 10 && white > 150);
  }
  EXPECT_TRUE(seen) << "no screenshot shows a coloured preview while the render runs";
}
