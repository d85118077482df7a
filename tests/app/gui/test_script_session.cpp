// Scripted sessions of the real window under a private Xvfb (tests/app/gui/with_xvfb.sh), CPU path:
// `deepscope --script` clicks, scrolls and presses keys at known image pixels through the ImGui
// GLFW backend's handlers; the PNGs the Mandelbrot panel writes (F12) must carry the location that
// mandel::zoom_about gives for the same pixels, and the pictures must change. Also at a forced UI
// scale of 2 (--ui-scale): the same mapping, and larger chrome.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/mandelbrot/navigate.h"
#include "app/io/henon_png.h"
#include "app/io/location.h"
#include "kernels/henon/plane.h"
#include "kernels/perturb/finder.h"
#include "test_files.h"
#include "window_session.h"

namespace {

using ds::mandel::View;


using ds::test::load;
using ds::test::Png;
using ds::test::run;

// Share of pixels whose colour differs by more than 32 in some channel (same-size images).
double share_changed(const Png& a, const Png& b) {
  size_t changed = 0, n = static_cast<size_t>(a.w) * a.h;
  for (size_t k = 0; k < n; ++k)
    for (int c = 0; c < 3; ++c)
      if (std::abs(a.rgb[k * 3 + c] - b.rgb[k * 3 + c]) > 32) {
        ++changed;
        break;
      }
  return static_cast<double>(changed) / n;
}

// Rows among the top 120 with a pixel of the active tab's colour (ImGui dark style, TabActive =
// (0.20, 0.41, 0.68)) in the leftmost 200 columns: the height of the open tab plus the line under
// the tab bar.
int tab_rows(const Png& p) {
  int rows = 0;
  for (int y = 0; y < std::min(120, p.h); ++y)
    for (int x = 0; x < std::min(200, p.w); ++x) {
      const unsigned char* q = &p.rgb[(static_cast<size_t>(y) * p.w + x) * 3];
      if (std::abs(q[0] - 51) <= 8 && std::abs(q[1] - 105) <= 8 && std::abs(q[2] - 173) <= 8) {
        ++rows;
        break;
      }
    }
  return rows;
}

// Writes `text` to `path` whole; false where it cannot.
bool write_text(const std::string& path, const char* text) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const bool ok = std::fputs(text, f) >= 0;
  return std::fclose(f) == 0 && ok;
}

// Writes `script` (with $D replaced by `dir`) and runs the window on it under Xvfb; the program's
// output goes to dir/NAME.log.
int run_session(const std::string& dir, const std::string& name, std::string script,
                const std::string& args) {
  for (size_t k; (k = script.find("$D")) != std::string::npos;) script.replace(k, 2, dir);
  const std::string file = dir + "/" + name + ".script";
  if (!write_text(file, script.c_str())) return -1;
  // The CPU path even where a GPU is present: the CI test (the GPU path is tested apart).
  const std::string cmd = std::string("CUDA_VISIBLE_DEVICES= " DEEPSCOPE_WITH_XVFB " ") +
                          DEEPSCOPE_EXE + " " + args + " --script " + file + " > " + dir + "/" + name +
                          ".log 2>&1";
  return run(cmd);
}

// The view a PNG's embedded location names (its size and iterations included).
View view_of(const ds::app::Location& l) {
  View v;
  v.re = l.re;
  v.im = l.im;
  v.zoom = l.zoom;
  v.width = l.width.value_or(0);
  v.height = l.height.value_or(0);
  v.max_iter = l.iterations.value_or(0);
  return v;
}

// The start view: the panel's default (re -0.5, im 0, zoom 1, 1000 iterations) at the image size.
View start_view(int w, int h) {
  View v;
  v.re = "-0.5";
  v.im = "0";
  v.zoom = "1";
  v.width = w;
  v.height = h;
  v.max_iter = 1000;
  return v;
}

// The PNG's embedded location equals `want`: zoom exactly, the centre within 1e-3 pixel spacing.
void expect_location(const std::string& png, const View& want) {
  SCOPED_TRACE(png);
  const ds::app::Location loc = ds::app::read_location_file(png);
  const double zoom = std::stod(want.zoom);
  EXPECT_EQ(std::stod(loc.zoom), zoom) << loc.zoom << " vs " << want.zoom;
  const double spacing = 4.0 / (zoom * want.height);
  EXPECT_NEAR(std::stod(loc.re), std::stod(want.re), 1e-3 * spacing) << loc.re << " vs " << want.re;
  EXPECT_NEAR(std::stod(loc.im), std::stod(want.im), 1e-3 * spacing) << loc.im << " vs " << want.im;
  ASSERT_TRUE(loc.width && loc.height && loc.iterations);
  EXPECT_EQ(*loc.width, want.width);
  EXPECT_EQ(*loc.height, want.height);
  EXPECT_EQ(*loc.iterations, want.max_iter);
}

class ScriptSession : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0)
        << "Xvfb is missing: ./setup.sh test installs it";
    dir_ = ds::test::make_tmpdir("script");
  }
  std::string log(const std::string& name) const { return ds::test::slurp(dir_ + "/" + name + ".log"); }
  std::string dir_;
};

// Two left clicks (x4 each), a wheel step of +2 (x1.5625), a right click (/4), ctrl+z (undo) and
// Home (the whole set).
TEST_F(ScriptSession, ClicksWheelAndUndoGiveTheExpectedLocations) {
  const char* script =
      "wait-idle\n"
      "png $D/start.png\n"
      "key F12\n"
      "wait-idle\n"
      "click 300 200\n"
      "wait-idle\n"
      "click 100 400\n"
      "wait-idle\n"
      "png $D/zoomed.png\n"
      "key F12\n"
      "wait-idle\n"
      "scroll 200 300 2\n"
      "wait-idle\n"
      "png $D/wheel.png\n"
      "key F12\n"
      "wait-idle\n"
      "click 400 300 right\n"
      "wait-idle\n"
      "png $D/right.png\n"
      "key F12\n"
      "wait-idle\n"
      "key ctrl+z\n"
      "wait-idle\n"
      "png $D/undo.png\n"
      "key F12\n"
      "wait-idle\n"
      "key Home\n"
      "wait-idle\n"
      "png $D/home.png\n"
      "key F12\n"
      "wait-idle\n"
      "screenshot $D/window.png\n"
      "quit\n";
  ASSERT_EQ(run_session(dir_, "s1", script, "--size 960x640"), 0) << log("s1");
  const Png start = load(dir_ + "/start.png"), zoomed = load(dir_ + "/zoomed.png");
  ASSERT_GT(start.w, 400) << log("s1");
  ASSERT_GT(start.h, 400);
  ASSERT_EQ(zoomed.w, start.w);
  ASSERT_EQ(zoomed.h, start.h);

  const View v0 = start_view(start.w, start.h);
  expect_location(dir_ + "/start.png", v0);
  const View v2 = ds::mandel::zoom_about(ds::mandel::zoom_about(v0, 300, 200, 4.0), 100, 400, 4.0);
  EXPECT_EQ(v2.zoom, "1.6e1");
  expect_location(dir_ + "/zoomed.png", v2);
  const View vw = ds::mandel::zoom_about(v2, 200, 300, 1.25 * 1.25);
  expect_location(dir_ + "/wheel.png", vw);
  expect_location(dir_ + "/right.png", ds::mandel::zoom_about(vw, 400, 300, 0.25));
  expect_location(dir_ + "/undo.png", vw);
  expect_location(dir_ + "/home.png", v0);

  const double changed = share_changed(start, zoomed);
  EXPECT_GT(changed, 0.5) << "the zoomed image is too like the start view";
  std::printf("pixels changed by the two clicks: %.1f %%\n", 100 * changed);
  const Png window = load(dir_ + "/window.png");
  EXPECT_EQ(window.w, 960);
  EXPECT_EQ(window.h, 640);
}

// A forced UI scale of 2 (what a HiDPI monitor's content scale does: fonts and spacing) moves the
// image and enlarges the chrome; clicks at image pixels still land where zoom_about says.
TEST_F(ScriptSession, UiScale2KeepsTheClickMappingAndDrawsLargerChrome) {
  const char* script =
      "wait-idle\n"
      "screenshot $D/window$S.png\n"
      "click 300 200\n"
      "wait-idle\n"
      "click 100 400\n"
      "wait-idle\n"
      "png $D/zoomed$S.png\n"
      "key F12\n"
      "wait-idle\n"
      "quit\n";
  int rows[2] = {0, 0};
  for (int scale : {1, 2}) {
    SCOPED_TRACE("ui scale " + std::to_string(scale));
    std::string s = script;
    for (size_t k; (k = s.find("$S")) != std::string::npos;) s.replace(k, 2, std::to_string(scale));
    const std::string name = "scale" + std::to_string(scale);
    ASSERT_EQ(run_session(dir_, name, s, "--size 1280x800 --ui-scale " + std::to_string(scale)), 0)
        << log(name);
    const std::string png = dir_ + "/zoomed" + std::to_string(scale) + ".png";
    const Png zoomed = load(png);
    ASSERT_GT(zoomed.h, 400) << log(name);
    const View v0 = start_view(zoomed.w, zoomed.h);
    expect_location(png, ds::mandel::zoom_about(ds::mandel::zoom_about(v0, 300, 200, 4.0), 100, 400, 4.0));
    rows[scale - 1] = tab_rows(load(dir_ + "/window" + std::to_string(scale) + ".png"));
  }
  std::printf("tab bar rows: %d at scale 1, %d at scale 2\n", rows[0], rows[1]);
  EXPECT_GE(rows[0], 15);
  EXPECT_GE(rows[1], rows[0] * 18 / 10) << "the chrome is not drawn larger at --ui-scale 2";
}

// Where the runner put the pointer for script line `line`: the image point it reached (the window
// position is whole pixels) and that window position, as it printed them.
bool pointer_at(const std::string& log, int line, double* ix, double* iy, double* wx, double* wy) {
  const std::string want = "script line " + std::to_string(line) + ": pointer at image (";
  const size_t k = log.find(want);
  if (k == std::string::npos) return false;
  return std::sscanf(log.c_str() + k + want.size(), "%lf, %lf), window (%lf, %lf)", ix, iy, wx, wy) == 4;
}

// The Hénon tab's Plane view at a fixed 480 x 270 (`run plane-pixels`; the default fits the panel,
// PlotSession.HenonBifurcationDiagramAndPlaneHaveAxesLegendAndMarker): its image is henon::plane of the view, and a wheel zoom about an
// image point shows henon::plane of plane_zoom_about(view, point, 1.25^steps); Ctrl+Z goes back.
// Checked on the screenshots' colours where a pixel's 3x3 neighbours share its period (so the
// texture's filtering cannot matter); the pointer's tooltip covers a few of them.
TEST_F(ScriptSession, HenonPlaneViewDrawsThePlaneAndZoomsAboutThePointer) {
  const char* script =
      "tab henon-plane\n"
      "run plane-pixels=480x270\n"
      "wait-idle 300\n"
      "move 0 0\n"
      "move 479 269\n"
      "screenshot $D/plane0.png\n"
      "scroll 300 100 4\n"
      "wait-idle 300\n"
      "screenshot $D/plane1.png\n"
      "key ctrl+z\n"
      "wait-idle 300\n"
      "screenshot $D/plane2.png\n"
      "quit\n";
  ASSERT_EQ(run_session(dir_, "plane", script, "--size 1280x800"), 0) << log("plane");
  double ix0, iy0, x0, y0, ix1, iy1, x1, y1;
  ASSERT_TRUE(pointer_at(log("plane"), 4, &ix0, &iy0, &x0, &y0)) << log("plane");
  ASSERT_TRUE(pointer_at(log("plane"), 5, &ix1, &iy1, &x1, &y1)) << log("plane");
  // window = origin + image * scale
  const double scale = (x1 - x0) / (ix1 - ix0);
  ASSERT_GT(scale, 1.0);
  EXPECT_NEAR((y1 - y0) / (iy1 - iy0), scale, 0.01);
  x0 -= ix0 * scale;
  y0 -= iy0 * scale;
  // The tooltip beside the pointer after the wheel (line 7) covers part of the image in the later
  // shots: samples under it (a generous 320 x 90 box right of and below the pointer) are skipped.
  double ix6, iy6, wx6, wy6;
  ASSERT_TRUE(pointer_at(log("plane"), 7, &ix6, &iy6, &wx6, &wy6)) << log("plane");
  ds::henon::PlaneView v;  // the view's defaults in the window
  v.centre_a = "0.75";
  v.centre_b = "0";
  v.width = "2.5";
  v.width_px = 480;
  v.height_px = 270;
  v.n_transient = 10000;
  v.p_max = 64;
  v.tol = "1e-10";
  v.backend = ds::henon::Backend::kCpu;
  const ds::henon::PlaneView zoomed = ds::henon::plane_zoom_about(v, 300, 100, std::pow(1.25, 4));
  struct Shot {
    const char* file;
    const ds::henon::PlaneView* view;
  };
  for (const Shot& shot : {Shot{"plane0.png", &v}, Shot{"plane1.png", &zoomed}, Shot{"plane2.png", &v}}) {
    SCOPED_TRACE(shot.file);
    const Png png = load(dir_ + "/" + shot.file);
    ASSERT_GT(png.w, 0);
    const ds::henon::PlaneResult want = ds::henon::plane(*shot.view);
    int samples = 0, agree = 0;
    for (int j = 1; j + 1 < 270; j += 7)
      for (int i = 1; i + 1 < 480; i += 7) {
        const int32_t k = want.period[static_cast<size_t>(j) * 480 + i];
        bool uniform = true;
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di) uniform &= want.period[static_cast<size_t>(j + dj) * 480 + i + di] == k;
        if (!uniform) continue;
        unsigned char rgb[3];
        ds::app::category_colour(k, rgb);
        const int px = static_cast<int>(x0 + (i + 0.5) * scale), py = static_cast<int>(y0 + (j + 0.5) * scale);
        if (std::string(shot.file) != "plane0.png")
          if (px >= wx6 - 4 && px < wx6 + 320 && py >= wy6 - 4 && py < wy6 + 90) continue;
        ASSERT_LT(px, png.w);
        ASSERT_LT(py, png.h);
        const unsigned char* q = &png.rgb[(static_cast<size_t>(py) * png.w + px) * 3];
        ++samples;
        agree += std::abs(q[0] - rgb[0]) <= 8 && std::abs(q[1] - rgb[1]) <= 8 && std::abs(q[2] - rgb[2]) <= 8;
      }
    std::printf("%s: %d of %d samples show the expected period's colour\n", shot.file, agree, samples);
    EXPECT_GT(samples, 500);
    EXPECT_GE(agree, samples * 95 / 100);
  }
  EXPECT_GT(share_changed(load(dir_ + "/plane0.png"), load(dir_ + "/plane1.png")), 0.1);
}

// Bad scripts and options are refused with exit code 2 before any window opens (no display).
// Key N with the mouse over the image: the window finds the minibrot under the mouse (a 4-pixel
// ball at KF's 5e113 benchmark) and goes there; the PNG it writes then carries exactly the view
// that the library call `deepscope find nucleus` makes (perturb::finder::minibrot_view), and
// Ctrl+Z goes back to the file's view. (Key I first turns the window's default auto iterations
// off: the PNG is to carry the finder's own limit.)
TEST_F(ScriptSession, KeyNGoesToTheMinibrotUnderTheMouse) {
  const std::string kf = std::string(DEEPSCOPE_TEST_DATA) + "/kf-benchmarks/5e113.kfr";
  const char* script =
      "move 100 120\n"
      "key i\n"
      "wait-idle\n"
      "png $D/before.png\n"
      "key F12\n"
      "wait-idle\n"
      "move 100 120\n"
      "key n\n"
      "wait-idle 120\n"
      "png $D/minibrot.png\n"
      "key F12\n"
      "wait-idle\n"
      "key ctrl+z\n"
      "wait-idle\n"
      "png $D/back.png\n"
      "key F12\n"
      "wait-idle\n"
      "quit\n";
  ASSERT_EQ(run_session(dir_, "find", script, "--size 560x360 --location " + kf), 0) << log("find");
  const ds::app::Location before = ds::app::read_location_file(dir_ + "/before.png");
  const ds::app::Location found = ds::app::read_location_file(dir_ + "/minibrot.png");
  const ds::app::Location back = ds::app::read_location_file(dir_ + "/back.png");
  ASSERT_TRUE(before.width && before.height && before.iterations);
  const View v = view_of(before);
  ds::perturb::finder::FindOptions o;
  o.at_pixel = true;
  o.px = 100;
  o.py = 120;
  const ds::perturb::finder::FoundView want = ds::perturb::finder::minibrot_view(v, o);
  ASSERT_TRUE(want.ok) << want.message;
  EXPECT_EQ(found.re, want.view.re);
  EXPECT_EQ(found.im, want.view.im);
  EXPECT_EQ(found.zoom, want.view.zoom);
  ASSERT_TRUE(found.iterations.has_value());
  EXPECT_EQ(*found.iterations, want.view.max_iter);
  EXPECT_EQ(back.re, before.re);
  EXPECT_EQ(back.zoom, before.zoom);
  std::printf("minibrot of period %u under pixel (100, 120): zoom %s\n", want.nucleus.period, found.zoom.c_str());
}

// The image menu (the Menu key under the mouse, then its first item) finds the period-3 island's
// minibrot and zooms to it (animated; one history entry); zoomed out twice, the overlay draws its
// atom domain (yellow circle) and size (cyan circle) on the image, and the readout under the mouse
// names period 3.
TEST_F(ScriptSession, ImageMenuZoomsToTheMinibrotAndTheOverlayShowsIt) {
  const std::string loc = dir_ + "/island.loc";
  ASSERT_TRUE(write_text(loc, "re = -1.75\nim = 0\nzoom = 12\niterations = 1000\n"));
  const char* script =
      "wait-idle 60\n"
      "move 300 300\n"
      "key menu\n"
      "wait 5\n"
      "screenshot $D/menu.png\n"
      "click 340 333\n"
      "wait 3\n"
      "wait-idle 60\n"
      "png $D/found.png\n"
      "key F12\n"
      "wait-idle\n"
      "click 300 300 right\n"
      "wait-idle\n"
      "click 300 300 right\n"
      "wait-idle\n"
      "move 300 300\n"
      "wait 40\n"
      "wait-idle\n"
      "png $D/out.png\n"
      "key F12\n"
      "wait-idle\n"
      "screenshot $D/overlay.png\n"
      "quit\n";
  ASSERT_EQ(run_session(dir_, "menu", script, "--size 960x640 --location " + loc), 0) << log("menu");
  const ds::app::Location found = ds::app::read_location_file(dir_ + "/found.png");
  EXPECT_NEAR(std::stod(found.re), -1.7548776662466927, 1e-13) << found.re;
  EXPECT_NEAR(std::stod(found.im), 0.0, 1e-13) << found.im;
  EXPECT_NE(log("menu").find("screenshot written"), std::string::npos);

  // Where the circles must be: the nucleus's pixel in the zoomed-out view, the atom domain's and
  // the size's radii from the library; the image's place in the window from the script's log.
  const ds::app::Location out = ds::app::read_location_file(dir_ + "/out.png");
  ASSERT_TRUE(out.width && out.height && out.iterations);
  const View v = view_of(out);
  double nx = 0, ny = 0;
  ASSERT_TRUE(ds::mandel::pixel_of(v, found.re, found.im, &nx, &ny));
  View at = v;
  at.re = found.re;
  at.im = found.im;
  const ds::perturb::finder::FoundView n = ds::perturb::finder::minibrot_view(at, {});
  ASSERT_TRUE(n.ok) << n.message;
  EXPECT_NEAR(std::stod(found.zoom), std::stod(n.view.zoom),
              1e-9 * std::stod(n.view.zoom));  // 4 fit / 2.25 |size|
  const double step = std::exp2(ds::mandel::geometry(v).log2_step);
  const double domain_px = ds::to_double(n.nucleus.domain_size.value()) / step;
  const double size_px = 0.75 * ds::to_double(n.nucleus.size) / step;
  int ox = 0, oy = 0, ix = 0, iy = 0;
  const std::string lg = log("menu");
  const size_t k = lg.find("pointer at image (300, 300), window (");
  ASSERT_NE(k, std::string::npos) << lg;
  ASSERT_EQ(std::sscanf(lg.c_str() + k, "pointer at image (%d, %d), window (%d, %d)", &ix, &iy, &ox, &oy), 4);
  const Png shot = load(dir_ + "/overlay.png");
  ASSERT_GT(shot.w, 400) << lg;
  // Share of 360 directions from the nucleus with a pixel near the colour within 2 pixels of radius
  // r (the line is 2 pixels wide, antialiased, and the pointer's pixel is placed to a half pixel).
  auto on_circle = [&](double r, int R, int G, int B) {
    int hit = 0, seen = 0;
    for (int a = 0; a < 360; ++a) {
      bool any = false, inside = false;
      for (double dr = -2; dr <= 2; dr += 0.5) {
        const int x = static_cast<int>(std::lround(ox - ix + nx + (r + dr) * std::cos(a * M_PI / 180)));
        const int y = static_cast<int>(std::lround(oy - iy + ny + (r + dr) * std::sin(a * M_PI / 180)));
        if (x < ox - ix || y < 0 || x >= shot.w || y >= shot.h) continue;
        inside = true;
        const unsigned char* p = &shot.rgb[3 * (static_cast<size_t>(y) * shot.w + x)];
        any |= std::abs(p[0] - R) < 40 && std::abs(p[1] - G) < 40 && std::abs(p[2] - B) < 40;
      }
      seen += inside;
      hit += inside && any;
    }
    return seen ? static_cast<double>(hit) / seen : 0.0;
  };
  const double domain_on = on_circle(domain_px, 255, 220, 60),
               domain_in = on_circle(0.9 * domain_px, 255, 220, 60);
  const double size_on = on_circle(size_px, 80, 255, 255), size_in = on_circle(2.2 * size_px, 80, 255, 255);
  std::printf(
      "atom domain %.1f px: %.0f%% yellow on the circle, %.0f%% at 0.9 r; size %.1f px: %.0f%% cyan, %.0f%% "
      "at 2.2 r\n",
      domain_px, 100 * domain_on, 100 * domain_in, size_px, 100 * size_on, 100 * size_in);
  EXPECT_GT(domain_on, 0.8);
  EXPECT_LT(domain_in, 0.2);
  EXPECT_GT(size_on, 0.7);
  EXPECT_LT(size_in, 0.3);
}

// Pixels of a screenshot's box [x0, x1) x [y0, y1) within `tol` of the colour in each channel.
int count_near(const Png& shot, int x0, int y0, int x1, int y1, int R, int G, int B, int tol) {
  int n = 0;
  for (int y = std::max(0, y0); y < std::min(shot.h, y1); ++y)
    for (int x = std::max(0, x0); x < std::min(shot.w, x1); ++x) {
      const unsigned char* p = &shot.rgb[3 * (static_cast<size_t>(y) * shot.w + x)];
      n += std::abs(p[0] - R) < tol && std::abs(p[1] - G) < tol && std::abs(p[2] - B) < tol;
    }
  return n;
}

// The period under the resting mouse is drawn at the pointer (its ball and "period 3" on a dark
// box) and goes when the pointer moves: the label's box gains white text pixels against the same
// view's screenshot with the pointer elsewhere. (The search starts after 0.3 s of rest and is not
// part of wait-idle: the script sleeps 2 s of wall time, whatever the frame rate.)
TEST_F(ScriptSession, PeriodUnderTheMouseIsDrawnAtThePointer) {
  const std::string loc = dir_ + "/island.loc";
  ASSERT_TRUE(write_text(loc, "re = -1.75\nim = 0\nzoom = 12\niterations = 1000\n"));
  const char* script =
      "wait-idle 60\n"
      "move 300 300\n"
      "sleep 2\n"
      "wait-idle\n"
      "screenshot $D/hover.png\n"
      "move 500 100\n"
      "wait 3\n"
      "screenshot $D/away.png\n"
      "quit\n";
  ASSERT_EQ(run_session(dir_, "hover", script, "--size 960x640 --location " + loc), 0) << log("hover");
  double ix = 0, iy = 0, wx = 0, wy = 0;  // script line 2: move 300 300
  ASSERT_TRUE(pointer_at(log("hover"), 2, &ix, &iy, &wx, &wy)) << log("hover");
  const int ox = static_cast<int>(wx), oy = static_cast<int>(wy);
  const Png hover = load(dir_ + "/hover.png"), away = load(dir_ + "/away.png");
  ASSERT_GT(hover.w, 400);
  // The label: from 4 + 6 pixels right of and 4 + 4 below the pointer, "period 3" in white.
  const int x0 = ox + 8, y0 = oy + 6, x1 = ox + 90, y1 = oy + 28;
  const int white_hover = count_near(hover, x0, y0, x1, y1, 255, 255, 255, 20);
  const int white_away = count_near(away, x0, y0, x1, y1, 255, 255, 255, 20);
  std::printf("label box: %d white pixels with the pointer resting, %d with it away\n", white_hover,
              white_away);
  EXPECT_GT(white_hover, white_away + 15);
  EXPECT_NE(log("hover").find("screenshot written"), std::string::npos);
}

// Key M under the mouse near c = i finds the Misiurewicz point the library finds there (the same
// call, misiurewicz_view, at the same pixel), zooms to it, and the overlay marks it with a magenta
// diamond at its pixel.
TEST_F(ScriptSession, MisiurewiczPointFoundIsMarkedOnTheImage) {
  const std::string loc = dir_ + "/i.loc";
  ASSERT_TRUE(write_text(loc, "re = 0\nim = 1\nzoom = 20\niterations = 1000\n"));
  const char* script =
      "wait-idle 60\n"
      "png $D/before.png\n"
      "key F12\n"
      "wait-idle\n"
      "move 300 300\n"
      "key m\n"
      "wait 3\n"
      "wait-idle 60\n"
      "png $D/point.png\n"
      "key F12\n"
      "wait-idle\n"
      "move 20 20\n"
      "wait 3\n"
      "screenshot $D/marked.png\n"
      "quit\n";
  ASSERT_EQ(run_session(dir_, "mis", script, "--size 960x640 --location " + loc), 0) << log("mis");
  const View before = view_of(ds::app::read_location_file(dir_ + "/before.png"));
  const View at = view_of(ds::app::read_location_file(dir_ + "/point.png"));
  ASSERT_TRUE(before.width > 0 && at.width > 0);
  ds::perturb::finder::FindOptions o;
  o.at_pixel = true;
  o.px = 300;
  o.py = 300;
  const ds::perturb::finder::FoundView want = ds::perturb::finder::misiurewicz_view(before, o);
  ASSERT_TRUE(want.ok) << want.message;
  // The same centre to far below a pixel (the animation's last view is the target, rounded again).
  const double step = std::exp2(ds::mandel::geometry(at).log2_step);
  EXPECT_NEAR(std::stod(at.re), std::stod(want.view.re), 1e-3 * step) << at.re << " " << want.view.re;
  EXPECT_NEAR(std::stod(at.im), std::stod(want.view.im), 1e-3 * step) << at.im << " " << want.view.im;
  double nx = 0, ny = 0;
  ASSERT_TRUE(ds::mandel::pixel_of(at, want.misiurewicz.re, want.misiurewicz.im, &nx, &ny));
  double ix = 0, iy = 0, wx = 0, wy = 0;  // script line 12: move 20 20
  ASSERT_TRUE(pointer_at(log("mis"), 12, &ix, &iy, &wx, &wy)) << log("mis");
  const int cx = static_cast<int>(std::lround(wx - ix + nx)),
            cy = static_cast<int>(std::lround(wy - iy + ny));
  const Png shot = load(dir_ + "/marked.png");
  ASSERT_GT(shot.w, 400);
  const int on = count_near(shot, cx - 9, cy - 9, cx + 10, cy + 10, 255, 70, 255, 45);
  const int off = count_near(shot, cx - 79, cy + 40, cx - 60, cy + 59, 255, 70, 255, 45);
  std::printf("M %d,%d: %d magenta pixels within 9 of its pixel (%d, %d), %d in a box 60 pixels away\n",
              want.misiurewicz.preperiod, want.misiurewicz.period, on, cx, cy, off);
  EXPECT_GT(on, 20);
  EXPECT_LT(off, 5);
}

TEST_F(ScriptSession, BadScriptIsRefusedBeforeTheWindowOpens) {
  const std::string bad = dir_ + "/bad.script";
  FILE* f = std::fopen(bad.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("wait-idle\nclick 10\n", f);
  std::fclose(f);
  const std::string exe = std::string("env -u DISPLAY -u WAYLAND_DISPLAY ") + DEEPSCOPE_EXE;
  const std::string out = dir_ + "/bad.log";
  EXPECT_EQ(run(exe + " --script " + bad + " > " + out + " 2>&1"), 2);
  EXPECT_NE(ds::test::slurp(out).find(bad + ":2: expected \"click X Y"), std::string::npos)
      << ds::test::slurp(out);
  EXPECT_EQ(run(exe + " --script " + dir_ + "/missing.script > /dev/null 2>&1"), 2);
  EXPECT_EQ(run(exe + " --script " + bad + " --frames 3 > /dev/null 2>&1"), 2);
  EXPECT_EQ(run(exe + " --ui-scale 9 > /dev/null 2>&1"), 2);
  // A screenshot path in a directory that does not exist: refused before the window opens.
  f = std::fopen(bad.c_str(), "w");
  std::fputs("screenshot /nonexistent-dir/x.png\nquit\n", f);
  std::fclose(f);
  EXPECT_EQ(run(exe + " --script " + bad + " > /dev/null 2>&1"), 2);
}

// A step that cannot run in the window stops the script with exit code 2 and names the line: a
// click outside the image, a click on a tab without an image. A wait-idle that times out exits 1.
TEST_F(ScriptSession, StepsThatCannotRunStopTheScript) {
  ASSERT_EQ(run_session(dir_, "out", "wait-idle\nclick 5000 10\nquit\n", "--size 640x400"), 2) << log("out");
  EXPECT_NE(log("out").find("script line 2 (\"click 5000 10\")"), std::string::npos) << log("out");
  // (The Hénon tab's orbit plot takes the pointer now, for its read-out: the TMD tab has no image.)
  ASSERT_EQ(run_session(dir_, "tab", "wait-idle\ntab tmd\nclick 10 10\nquit\n", "--size 640x400"), 2)
      << log("tab");
  EXPECT_NE(log("tab").find("script line 3 (\"click 10 10\"): the TMD tab shows no image"),
            std::string::npos)
      << log("tab");
  // KF's 1e14 location renders by perturbation for seconds on the CPU; 0.05 s is not enough.
  const std::string kfr = std::string(DEEPSCOPE_SOURCE_DIR) + "/assets/locations/kf-1e14.kfr";
  ASSERT_EQ(run_session(dir_, "slow", "wait-idle 0.05\nquit\n", "--size 640x400 --location " + kfr), 1)
      << log("slow");
  EXPECT_NE(log("slow").find("the Mandelbrot view was still busy after 0.05 s"), std::string::npos)
      << log("slow");
}

}  // namespace
