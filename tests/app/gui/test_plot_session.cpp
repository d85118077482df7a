// Scripted sessions of the window's plots (app/gui/plot_imgui.h) under Xvfb, at 1280x800: the MD
// drift tab (energy drift of three precisions on one log time axis, the summation and do/undo
// plots) and the TMD tab (NMDM histogram, cases over x, distances against 2^-k). Checked on the
// screenshots' pixels: the plot frames and tick labels are drawn, each legend swatch is there in
// its series' colour, and the data in those colours lies inside the frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/io/henon_png.h"
#include "app/io/plot.h"
#include "test_files.h"
#include "window_session.h"

namespace {

using ds::app::plot::palette;
using ds::app::plot::Rgba;
using ds::test::load;
using ds::test::Png;
using ds::test::run;

bool is(const Png& p, int x, int y, Rgba c, int tol) {
  if (x < 0 || y < 0 || x >= p.w || y >= p.h) return false;
  const unsigned char* q = p.at(x, y);
  return std::abs(q[0] - c.r) <= tol && std::abs(q[1] - c.g) <= tol && std::abs(q[2] - c.b) <= tol;
}

// A plot's frame as drawn (Theme::dark's frame colour): its four sides' pixel rows and columns.
struct Frame {
  int x0, y0, x1, y1;
};
const Rgba kFrame{200, 200, 200, 255}, kText{230, 230, 230, 255};

// Every rectangle at least 150 x 60 pixels whose four sides are drawn in the frame colour.
std::vector<Frame> frames(const Png& p) {
  struct Run {
    int y, x0, x1;
  };
  std::vector<Run> runs;
  for (int y = 0; y < p.h; ++y)
    for (int x = 0; x < p.w;) {
      if (!is(p, x, y, kFrame, 12)) {
        ++x;
        continue;
      }
      int e = x;
      while (e < p.w && is(p, e, y, kFrame, 12)) ++e;
      if (e - x >= 150) runs.push_back({y, x, e - 1});
      x = e;
    }
  std::vector<Frame> out;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j) {
      const Run &a = runs[i], &b = runs[j];
      // A y tick mark at the bottom (or top) row lengthens that run leftwards by a few pixels.
      if (b.y - a.y < 60 || std::abs(a.x0 - b.x0) > 8 || std::abs(a.x1 - b.x1) > 2) continue;
      const int x0 = std::max(a.x0, b.x0), x1 = std::min(a.x1, b.x1);
      auto side = [&](int x, int y) {
        return is(p, x - 1, y, kFrame, 12) || is(p, x, y, kFrame, 12) || is(p, x + 1, y, kFrame, 12);
      };
      int sides = 0;
      for (int y = a.y; y <= b.y; ++y) sides += side(x0, y) && side(x1, y);
      if (sides < (b.y - a.y) * 9 / 10) continue;
      bool nested = false;  // keep the innermost pair for each top
      for (const Frame& f : out) nested |= f.y0 == a.y && std::abs(f.x0 - x0) <= 8;
      if (!nested) out.push_back({x0, a.y, x1, b.y});
    }
  return out;
}

int count(const Png& p, int x0, int y0, int x1, int y1, Rgba c, int tol) {
  int n = 0;
  for (int y = std::max(0, y0); y < std::min(p.h, y1); ++y)
    for (int x = std::max(0, x0); x < std::min(p.w, x1); ++x) n += is(p, x, y, c, tol);
  return n;
}

// A legend swatch of colour c inside f or in the band of 50 rows above it (where the layout puts a
// legend that would cover data inside): a block 4 rows high (line series) or 10 x 10 (points, bars)
// filled with exactly that colour. Returns its left column (and *row its top row), or -1.
int swatch(const Png& p, const Frame& f, Rgba c, bool line, int* row = nullptr) {
  const int w = line ? 24 : 9, h = line ? 4 : 9;
  for (int y = std::max(0, f.y0 - 50); y + h < f.y1; ++y)
    for (int x = f.x0 + 1; x + w < f.x1; ++x) {
      bool all = true;
      for (int j = 0; j < h && all; ++j)
        for (int i = 0; i < w && all; ++i) all = is(p, x + i, y + j, c, 3);
      if (all) {
        if (row) *row = y;
        return x;
      }
    }
  return -1;
}

// Text pixels (the theme's text colour) in the bands left of and under the frame: tick labels.
void expect_tick_labels(const Png& p, const Frame& f) {
  EXPECT_GT(count(p, f.x0 - 70, f.y0, f.x0 - 4, f.y1, kText, 40), 40) << "y tick labels";
  EXPECT_GT(count(p, f.x0, f.y1 + 4, f.x1, f.y1 + 22, kText, 40), 40) << "x tick labels";
}

// The rightmost column inside f with a pixel of colour c, outside the rows [skip0, skip1).
int rightmost(const Png& p, const Frame& f, Rgba c, int skip0, int skip1) {
  for (int x = f.x1; x > f.x0; --x)
    for (int y = f.y0; y <= f.y1; ++y)
      if ((y < skip0 || y >= skip1) && is(p, x, y, c, 10)) return x;
  return -1;
}

// The column within 3 of x that holds the most pixels of the marker's red (palette(1)) inside f:
// its count of them, and the column in *at (-1 where none has any).
int marker_column(const Png& p, const Frame& f, int x, int* at) {
  int best = 0;
  *at = -1;
  for (int c = x - 3; c <= x + 3; ++c) {
    const int n = count(p, c, f.y0, c + 1, f.y1, palette(1), 20);
    if (n > best) best = n, *at = c;
  }
  return best;
}

// Script lines: wait for the run (at most `seconds`), move the pointer off the window and let it
// redraw, then take the screenshot $D/PNG.
std::string idle_shot(int seconds, const std::string& png) {
  return "wait-idle " + std::to_string(seconds) + "\nleave\nwait 3\nscreenshot $D/" + png + "\n";
}

class PlotSession : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
    dir_ = ds::test::make_tmpdir("plots");
  }
  int session(const std::string& name, std::string script) {
    for (std::size_t k; (k = script.find("$D")) != std::string::npos;) script.replace(k, 2, dir_);
    ds::test::write(dir_ + "/" + name + ".script", script);
    return run(std::string("CUDA_VISIBLE_DEVICES= " DEEPSCOPE_WITH_XVFB " ") + DEEPSCOPE_EXE +
               " --size 1280x800 --script " + dir_ + "/" + name + ".script > " + dir_ + "/" + name +
               ".log 2>&1");
  }
  std::string log(const std::string& name) const { return ds::test::slurp(dir_ + "/" + name + ".log"); }
  // The screenshot `file` of session `name`: the test fails, with the session's log, unless it is
  // the 1280-column window (a PNG that is not there comes back empty: no frames in it).
  Png screenshot(const std::string& file, const std::string& name) const {
    Png p = load(dir_ + "/" + file);
    EXPECT_EQ(p.w, 1280) << file << "\n" << log(name);
    return p;
  }
  std::string dir_;
};

// Three precisions (float, double, composite) of a 500-atom run: the drift plot's frame, its tick
// labels and a swatch per precision; each precision's line inside the frame. One time axis for all:
// a finished run's lines all reach the frame's right edge (t = steps x dt), and while a long run
// goes on, its lines stop short of it (each series stretched on its own would reach it at once).
TEST_F(PlotSession, DriftPlotsEveryPrecisionOnOneTimeAxisWithALegend) {
  ASSERT_EQ(session("drift",
                    "tab drift\n"
                    "run cells=5 steps=300 every=20 precisions=float,double,composite backend=cpu\n" +
                        idle_shot(300, "drift.png") +
                        "run steps=20000\n"
                        "sleep 3\n"
                        "screenshot $D/drift_running.png\n"
                        "quit\n"),
            0)
      << log("drift");
  for (const char* shot : {"drift.png", "drift_running.png"}) {
    SCOPED_TRACE(shot);
    const bool done = std::string(shot) == "drift.png";
    const Png png = load(dir_ + "/" + shot);
    ASSERT_EQ(png.w, 1280) << log("drift");
    const std::vector<Frame> fr = frames(png);
    ASSERT_GE(fr.size(), 2u) << "the drift and potential-energy plots";
    const Frame drift =
        *std::min_element(fr.begin(), fr.end(), [](const Frame& a, const Frame& b) { return a.y0 < b.y0; });
    std::printf("%s: drift plot frame (%d, %d) - (%d, %d)\n", shot, drift.x0, drift.y0, drift.x1, drift.y1);
    EXPECT_GT(drift.x1 - drift.x0, 600);
    expect_tick_labels(png, drift);
    for (int k = 0; k < 3; ++k) {
      SCOPED_TRACE(k);
      const Rgba c = palette(k);
      int row = 0;
      const int sw = swatch(png, drift, c, true, &row);
      EXPECT_GE(sw, 0) << "no legend swatch";
      EXPECT_GT(count(png, drift.x0, drift.y0, drift.x1, drift.y1, c, 10), done ? 200 : 30) << "no line";
      const int r = rightmost(png, drift, c, row - 2, row + 6);  // the line's, not the swatch's
      std::printf("precision %d: swatch at column %d, line ends at column %d\n", k, sw, r);
      if (done)
        EXPECT_GE(r, drift.x1 - 4) << "the finished line does not reach the end of the time axis";
      else
        EXPECT_LT(r, drift.x1 - 20) << "a running line reaches the end of the time axis";
    }
    // Not a colour outside the checked precisions': ff (orange) and mixed (purple) were not run.
    EXPECT_EQ(count(png, drift.x0, drift.y0, drift.x1, drift.y1, palette(3), 3), 0);
    EXPECT_EQ(count(png, drift.x0, drift.y0, drift.x1, drift.y1, palette(4), 3), 0);
  }
}

// The summation and do/undo suites: two plots, with swatches for f32, f64, composite and ff on the
// first, and for the five summation methods (kahan in brown) as markers on the second.
TEST_F(PlotSession, SummationAndDoUndoPlotsHaveLegends) {
  ASSERT_EQ(session("suites",
                    "tab drift\n"
                    "run suites=1 iterations=20000 backend=cpu\n" +
                        idle_shot(300, "suites.png") + "quit\n"),
            0)
      << log("suites");
  const Png png = screenshot("suites.png", "suites");
  std::vector<Frame> fr = frames(png);
  ASSERT_GE(fr.size(), 2u);
  std::sort(fr.begin(), fr.end(), [](const Frame& a, const Frame& b) { return a.y0 < b.y0; });
  for (const Frame& f : fr) expect_tick_labels(png, f);
  for (int k = 0; k < 4; ++k) {
    EXPECT_GE(swatch(png, fr[0], palette(k), true), 0) << "do/undo swatch " << k;
    // f64 (k = 1) gets x back exactly at every sample of this trial ("f64 500 of 500" exact zeros,
    // not on the log axis): it has no line, only its legend entry.
    if (k == 1) continue;
    EXPECT_GT(count(png, fr[0].x0, fr[0].y0, fr[0].x1, fr[0].y1, palette(k), 10), 100)
        << "do/undo line " << k;
  }
  for (int k : {0, 1, 2, 3, 5})
    EXPECT_GE(swatch(png, fr[1], palette(k), false), 0) << "summation swatch " << k;
}

// A regular (Lefevre-type) search of exp over [1, 1.125): the NMDM histogram's bars, the cases
// over x with the red k line, and the distances' bars against the k line and the random model.
TEST_F(PlotSession, TmdPlotsTheHistogramTheCasesAndTheirDistances) {
  ASSERT_EQ(session("tmd",
                    "tab tmd\n"
                    "run search=regular function=exp k=12 from=0x3f800000 to=0x3f8fffff backend=cpu\n" +
                        idle_shot(300, "tmd.png") + "quit\n"),
            0)
      << log("tmd");
  const Png png = screenshot("tmd.png", "tmd");
  std::vector<Frame> fr = frames(png);
  ASSERT_GE(fr.size(), 3u) << "NMDM, cases and distances";
  // The NMDM histogram on top, then the cases (left) and the distances (right) side by side (their
  // tops differ where one legend sits in a band above its plot).
  std::sort(fr.begin(), fr.end(), [](const Frame& a, const Frame& b) { return a.y0 < b.y0; });
  std::sort(fr.begin() + 1, fr.end(), [](const Frame& a, const Frame& b) { return a.x0 < b.x0; });
  const Frame &nmdm = fr[0], &cases = fr[1], &dist = fr[2];
  for (const Frame& f : {nmdm, cases, dist}) expect_tick_labels(png, f);
  // Bars: columns of solid blue standing on the frame's bottom.
  int bars = 0;
  for (int x = nmdm.x0 + 1; x < nmdm.x1; ++x) bars += is(png, x, nmdm.y1 - 2, palette(0), 3);
  EXPECT_GT(bars, 20) << "no NMDM bars";
  // Cases: blue markers, and the k line (red) across the frame.
  EXPECT_GT(count(png, cases.x0, cases.y0, cases.x1, cases.y1, palette(0), 3), 30);
  int longest = 0;
  for (int y = cases.y0; y < cases.y1; ++y)
    longest = std::max(longest, count(png, cases.x0, y, cases.x1, y + 1, palette(1), 20));
  EXPECT_GT(longest, (cases.x1 - cases.x0) * 8 / 10) << "no k line";
  EXPECT_GE(swatch(png, cases, palette(1), true), 0);
  // Distances: bars, the k line, the random model's line and their swatches.
  EXPECT_GT(count(png, dist.x0, dist.y0, dist.x1, dist.y1, palette(0), 3), 100);
  EXPECT_GT(count(png, dist.x0, dist.y0, dist.x1, dist.y1, palette(3), 20), 30) << "no model line";
  EXPECT_GE(swatch(png, dist, palette(0), false), 0);
  EXPECT_GE(swatch(png, dist, palette(3), true), 0);
}

// The Hénon tab: the bifurcation diagram over a in [1, 1.43] at b = 0.3 (its frame, tick labels,
// points of the attractor inside it, and the red line at the orbit view's a = 1.4 where the
// transform puts it); then the parameter plane on a and b axes, with its period legend beside it
// (period 1's colour, the most common, first) and the marker at (1.4, 0.3).
TEST_F(PlotSession, HenonBifurcationDiagramAndPlaneHaveAxesLegendAndMarker) {
  ASSERT_EQ(session("henon",
                    "tab henon\n"
                    "run scan=1 scan-a-min=1.0 scan-a-step=0.0005 scan-na=860 scan-start-points=8 "
                    "scan-transient=2000 scan-p-max=200 scan-backend=cpu\n" +
                        idle_shot(300, "scan.png") +
                        "run bifurcation=1 a-from=1.0 a-to=1.43 b=0.3 columns=400 points=100\n" +
                        idle_shot(300, "bifurcation.png") + "tab henon-plane\n" +
                        idle_shot(300, "plane.png") + "move 500 400\nwait 2\nquit\n"),
            0)
      << log("henon");
  // The sink scan's strip: periods over a (log axis) with its legend; the period-4 sinks at a < 1.02
  // (b = 0.3: the period-8 doubling is near a = 1.026) lie on the axis where the transform puts 4.
  const Png scan = screenshot("scan.png", "henon");
  std::vector<Frame> sf = frames(scan);
  ASSERT_EQ(sf.size(), 1u);
  const Frame s = sf[0];
  expect_tick_labels(scan, s);
  const Rgba sink{90, 220, 110, 255}, none{150, 150, 160, 255};
  EXPECT_GE(swatch(scan, s, sink, false), 0);
  EXPECT_GE(swatch(scan, s, none, false), 0);
  EXPECT_GT(count(scan, s.x0, s.y0, s.x1, s.y1, sink, 10), 200);
  // y: log10 over the drawn range [4, 400] with 5 % margins in log space.
  const double l0 = std::log10(4.0), l1 = std::log10(400.0), m = 0.05 * (l1 - l0);
  const int y4 = s.y1 - static_cast<int>((l0 - (l0 - m)) / ((l1 + m) - (l0 - m)) * (s.y1 - s.y0));
  const int x102 = s.x0 + static_cast<int>((1.01 - 1.0) / 0.4295 * (s.x1 - s.x0));
  EXPECT_GT(count(scan, s.x0, y4 - 3, x102, y4 + 4, sink, 10), 20)
      << "no period-4 sinks at a < 1.01, row " << y4;

  const Png bif = screenshot("bifurcation.png", "henon");
  std::vector<Frame> fr = frames(bif);
  ASSERT_EQ(fr.size(), 1u);
  const Frame f = fr[0];
  expect_tick_labels(bif, f);
  const Rgba point{150, 200, 255, 255};
  EXPECT_GT(count(bif, f.x0, f.y0, f.x1, f.y1, point, 40), 3000) << "no attractor points";
  // The marker: a red column where a = 1.4 falls.
  const int x = f.x0 + static_cast<int>((1.4 - 1.0) / 0.43 * (f.x1 - f.x0));
  int at = -1;
  const int best = marker_column(bif, f, x, &at);
  std::printf("bifurcation frame (%d, %d) - (%d, %d); a = 1.4 expected at column %d, red column at %d\n",
              f.x0, f.y0, f.x1, f.y1, x, at);
  EXPECT_GT(best, (f.y1 - f.y0) * 8 / 10);
  EXPECT_GE(swatch(bif, f, palette(1), true), 0);

  const Png plane = screenshot("plane.png", "henon");
  fr = frames(plane);
  ASSERT_GE(fr.size(), 1u);
  const Frame p = fr[0];
  std::printf("plane frame (%d, %d) - (%d, %d)\n", p.x0, p.y0, p.x1, p.y1);
  expect_tick_labels(plane, p);
  // The legend, right of the image: the marker's red line and period 1's colour (henon_png.h).
  unsigned char one[3];
  ds::app::category_colour(1, one);
  const Frame beside{p.x1 + 2, p.y0, std::min(plane.w - 1, p.x1 + 400), p.y1};
  EXPECT_GE(swatch(plane, beside, Rgba{255, 60, 60, 255}, true), 0) << "no marker entry";
  EXPECT_GE(swatch(plane, beside, Rgba{one[0], one[1], one[2], 255}, false), 0) << "no period-1 entry";
  // The plane at the panel's full resolution by default: image pixel 500 is 500 screen pixels
  // right of the image's left edge (at the old 480 x 270 default, `move 500 400` is refused).
  const std::string text = log("henon");
  const std::size_t said = text.find("pointer at image (500, 400), window (");
  ASSERT_NE(said, std::string::npos) << text;
  double wx = 0, wy = 0;
  ASSERT_EQ(std::sscanf(text.c_str() + said, "pointer at image (500, 400), window (%lf, %lf)", &wx, &wy), 2);
  EXPECT_NEAR(wx - p.x0, 500.5, 2.5);
  EXPECT_NEAR(wy - p.y0, 400.5, 2.5);
  EXPECT_GT(p.x1 - p.x0, 500);
  // The marker ring at (1.4, 0.3): the view is a in [-0.5, 2], b over the image's aspect about 0.
  const double hb = 2.5 * (p.y1 - p.y0) / (p.x1 - p.x0);
  const double mx = p.x0 + (1.4 + 0.5) / 2.5 * (p.x1 - p.x0), my = p.y1 - (0.3 + hb / 2) / hb * (p.y1 - p.y0);
  EXPECT_GT(count(plane, static_cast<int>(mx) - 10, static_cast<int>(my) - 10, static_cast<int>(mx) + 11,
                  static_cast<int>(my) + 11, Rgba{255, 60, 60, 255}, 40),
            20)
      << "no marker at (1.4, 0.3)";
}

// The Hénon plane's computation shows its progress on the view (not only in the controls column,
// where it sits below the fold at 1280x800): a bar right under the status line, filled in the
// bar colour and labelled with the stage, the share, the time so far and the estimate
// (app::progress_text: "1600 x 1000 pixels 24 %, 4 s, about 13 s left"; under load still
// "coarse pass 0 %, 4 s"), a label far wider than ImGui's bare "24%". Taken while a 1600 x 1000
// plane is computing.
TEST_F(PlotSession, HenonPlaneShowsItsProgressOnTheView) {
  ASSERT_EQ(session("plane-progress",
                    "tab henon-plane\n"
                    "wait 2\n"
                    "run plane-pixels=1600x1000\n"
                    "sleep 4\n"
                    "screenshot $D/progress.png\n"
                    "quit\n"),
            0)
      << log("plane-progress");
  const Png png = load(dir_ + "/progress.png");
  ASSERT_EQ(png.w, 1280) << log("plane-progress");
  // The bar: rows of the view column (x >= 400) near the top that are mostly the bar's fill or its
  // unfilled background (under load the coarse pass may not have filled any of it yet).
  const Rgba fill{230, 179, 0, 255}, unfilled{29, 47, 73, 255};
  int y0 = -1, y1 = -1;
  for (int y = 40; y < 200; ++y) {  // the first band of such rows (the image's period 1 is below)
    const bool bar =
        count(png, 400, y, png.w, y + 1, fill, 30) + count(png, 400, y, png.w, y + 1, unfilled, 12) >= 500;
    if (bar && y0 < 0) y0 = y;
    if (bar) y1 = y;
    if (!bar && y0 >= 0) break;
  }
  ASSERT_GE(y0, 0) << "no progress bar in the view";
  EXPECT_LE(y1 - y0, 24) << "not a bar";
  // Its label: the text colour's extent across the bar's rows.
  int lo = png.w, hi = -1;
  for (int y = y0; y <= y1; ++y)
    for (int x = 400; x < png.w; ++x)
      if (is(png, x, y, Rgba{255, 255, 255, 255}, 30)) lo = std::min(lo, x), hi = std::max(hi, x);
  std::printf("progress bar rows %d..%d, label columns %d..%d\n", y0, y1, lo, hi);
  ASSERT_GE(hi, 0) << "no label on the bar";
  EXPECT_GT(hi - lo, 100) << "the label is no wider than a bare percentage";
}

// The bifurcation diagram over b in [0, 0.35] at a = 1.4 (its frame, tick labels, attractor points,
// and the red line at the orbit view's b = 0.3), and the plot's hover read-out: with the pointer
// over the points (script `move`, plot-area pixels), a white ring around the nearest point and a
// tooltip of white text right below the pointer, neither there before the pointer came.
TEST_F(PlotSession, HenonBifurcationOverBAndItsHoverReadOut) {
  ASSERT_EQ(session("henon-b",
                    "tab henon\n"
                    "run bifurcation=1 over=b b-from=0 b-to=0.35 a=1.4 columns=300 points=100\n" +
                        idle_shot(300, "bif-b.png") +
                        "move 300 200\n"
                        "wait 3\n"
                        "screenshot $D/bif-b-hover.png\n"
                        "quit\n"),
            0)
      << log("henon-b");
  const Png bif = screenshot("bif-b.png", "henon-b");
  std::vector<Frame> fr = frames(bif);
  ASSERT_EQ(fr.size(), 1u);
  const Frame f = fr[0];
  expect_tick_labels(bif, f);
  const Rgba point{150, 200, 255, 255}, white{255, 255, 255, 255};
  EXPECT_GT(count(bif, f.x0, f.y0, f.x1, f.y1, point, 40), 3000) << "no attractor points";
  const int x = f.x0 + static_cast<int>(0.3 / 0.35 * (f.x1 - f.x0));
  int at = -1;
  const int best = marker_column(bif, f, x, &at);
  std::printf("bifurcation over b: frame (%d, %d) - (%d, %d); b = 0.3 expected at column %d, red at %d\n",
              f.x0, f.y0, f.x1, f.y1, x, at);
  EXPECT_GT(best, (f.y1 - f.y0) * 8 / 10);
  EXPECT_GE(swatch(bif, f, palette(1), true), 0);

  // The pointer: plot-area pixel (300, 200) from the area's top-left corner, in window pixels as
  // the script's log says ("window (X, Y)").
  const std::string lg = log("henon-b");
  const std::size_t w = lg.find("window (");
  ASSERT_NE(w, std::string::npos) << lg;
  int px = 0, py = 0;
  ASSERT_EQ(std::sscanf(lg.c_str() + w, "window (%d, %d)", &px, &py), 2) << lg;
  const Png hover = load(dir_ + "/bif-b-hover.png");
  // The ring: white pixels within 12 of the pointer (the nearest point is within 16 pixels, the
  // ring's radius 5); their centre lies on a point of the attractor in the screenshot without it.
  double cx = 0, cy = 0;
  int ring = 0;
  for (int y = py - 24; y <= py + 24; ++y)
    for (int xx = px - 24; xx <= px + 12; ++xx)
      if (is(hover, xx, y, white, 40) && (xx < px + 12 || y < py)) cx += xx, cy += y, ++ring;
  EXPECT_EQ(count(bif, px - 24, py - 24, px + 13, py + 25, white, 40), 0);
  ASSERT_GT(ring, 12) << "no ring around the nearest point";
  cx /= ring, cy /= ring;
  std::printf("pointer (%d, %d); ring of %d pixels centred at (%.1f, %.1f)\n", px, py, ring, cx, cy);
  EXPECT_LT(std::hypot(cx - px, cy - py), 17.0);
  EXPECT_GT(count(bif, static_cast<int>(cx) - 2, static_cast<int>(cy) - 2, static_cast<int>(cx) + 3,
                  static_cast<int>(cy) + 3, point, 40),
            0)
      << "the ring is not around a point";
  // The tooltip: white text in a box right below the pointer, none there before.
  const int text_after = count(hover, px + 12, py, px + 200, py + 60, white, 8);
  EXPECT_GT(text_after, 40) << "no read-out";
  EXPECT_LT(count(bif, px + 12, py, px + 200, py + 60, white, 8), 5);
}

// The Hénon orbit plot's hover read-out: with the pointer over the plot (script `move`, plot-area
// pixels), a tooltip of white text right below the pointer giving x and y, none there before.
TEST_F(PlotSession, HenonOrbitPlotHasAHoverReadOut) {
  ASSERT_EQ(session("henon-orbit", "tab henon\n" + idle_shot(120, "orbit.png") +
                                       "move 300 200\n"
                                       "wait 3\n"
                                       "screenshot $D/orbit-hover.png\n"
                                       "quit\n"),
            0)
      << log("henon-orbit");
  const Png before = screenshot("orbit.png", "henon-orbit");
  const std::string lg = log("henon-orbit");
  const std::size_t w = lg.find("window (");
  ASSERT_NE(w, std::string::npos) << lg;
  int px = 0, py = 0;
  ASSERT_EQ(std::sscanf(lg.c_str() + w, "window (%d, %d)", &px, &py), 2) << lg;
  const Png hover = load(dir_ + "/orbit-hover.png");
  const Rgba white{255, 255, 255, 255};
  const int text_after = count(hover, px + 12, py, px + 200, py + 60, white, 8);
  std::printf("orbit plot: pointer at window (%d, %d); %d white read-out pixels\n", px, py, text_after);
  EXPECT_GT(text_after, 40) << "no read-out";
  EXPECT_LT(count(before, px + 12, py, px + 200, py + 60, white, 8), 5);
}

// The Hénon tab's periodic-orbit catalogue (kernels/henon/orbits.h) to period 10 at (1.4, 0.3): two
// frames with tick labels; the orbits' points over the attractor in their periods' colours with a
// legend swatch for each period that has orbits (1, 2, 4, 6 to 10: none of 3 or 5); the counts per
// period on a log axis in their line colour, the summary line saying 0 undecided.
TEST_F(PlotSession, HenonCatalogueDrawsTheOrbitsByPeriodAndTheCounts) {
  ASSERT_EQ(session("catalogue",
                    "tab henon\n"
                    "run catalogue=1 catalogue-period-max=10\n" +
                        idle_shot(120, "catalogue.png") + "quit\n"),
            0)
      << log("catalogue");
  const Png png = screenshot("catalogue.png", "catalogue");
  std::vector<Frame> fr = frames(png);
  ASSERT_GE(fr.size(), 2u) << "the orbits and the counts";
  std::sort(fr.begin(), fr.end(), [](const Frame& a, const Frame& b) { return a.x0 < b.x0; });
  const Frame &orbits = fr[0], &counts = fr.back();
  expect_tick_labels(png, orbits);
  expect_tick_labels(png, counts);
  // Periods with orbits: each its colour's points inside the frame (palette(n - 1): 10 colours,
  // one per period here) and its legend swatch beside it (outside).
  for (int n : {1, 2, 4, 6, 7, 8}) {
    SCOPED_TRACE(n);
    EXPECT_GT(count(png, orbits.x0, orbits.y0, orbits.x1, orbits.y1, palette(n - 1), 6), 8)
        << "no orbit points";
    const Frame legend{orbits.x1, orbits.y0, std::min(png.w - 1, orbits.x1 + 200), orbits.y1};
    EXPECT_GE(swatch(png, legend, palette(n - 1), false), 0) << "no legend swatch";
  }
  EXPECT_GT(count(png, counts.x0, counts.y0, counts.x1, counts.y1, palette(0), 10), 60) << "no count line";
}

// A setting a tab does not have, or a bad value, stops the script with exit code 2 and a message
// naming it; a `run` word without "=" is refused when the script is read.
TEST_F(PlotSession, RunRefusesUnknownSettingsAndBadValues) {
  struct Case {
    const char* script;
    const char* says;
  };
  for (const Case& c : {Case{"tab drift\nrun cells=abc\nquit\n", "cells cannot be \"abc\""},
                        Case{"tab drift\nrun colour=red\nquit\n", "no setting \"colour\""},
                        Case{"tab drift\nrun cells=2\nquit\n", "MD drift:"},
                        Case{"tab tmd\nrun search=binary\nquit\n", "search cannot be \"binary\""},
                        Case{"tab henon\nrun bifurcation=1 columns=1\nquit\n", "columns cannot be \"1\""},
                        Case{"tab mandelbrot\nrun x=1\nquit\n", "the Mandelbrot tab has no setting \"x\""},
                        Case{"tab drift\nrun cells\nquit\n", "run takes NAME=VALUE settings"}}) {
    SCOPED_TRACE(c.script);
    EXPECT_EQ(session("bad", c.script), 2);
    EXPECT_NE(log("bad").find(c.says), std::string::npos) << log("bad");
  }
}

}  // namespace
