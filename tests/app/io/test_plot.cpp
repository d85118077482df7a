// The plotting layer (app/io/plot.h): tick values and labels, and the pixels its CPU raster backend
// draws (axes, tick labels, legend swatches, data where the transform puts it, log spacing, breaks).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/io/plot.h"
#include "app/io/plot_png.h"
#include "app/io/plot_raster.h"

namespace {

using namespace ds::app::plot;

std::vector<std::string> labels(const std::vector<Tick>& t) {
  std::vector<std::string> s;
  for (const Tick& k : t)
    if (!k.label.empty()) s.push_back(k.label);
  return s;
}

// Labels share the step's decimals, as matplotlib writes them.
TEST(PlotTicks, LinearTicksAreOneTwoFiveStepsWithEnoughDigits) {
  EXPECT_EQ(labels(linear_ticks(0, 1, 5)),
            (std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8", "1.0"}));
  EXPECT_EQ(labels(linear_ticks(-3.7, 12.2, 8)),
            (std::vector<std::string>{"-2", "0", "2", "4", "6", "8", "10", "12"}));
  EXPECT_EQ(labels(linear_ticks(0.001, 0.0201, 4)),
            (std::vector<std::string>{"0.005", "0.010", "0.015", "0.020"}));
  EXPECT_EQ(labels(linear_ticks(0, 100, 5)), (std::vector<std::string>{"0", "20", "40", "60", "80", "100"}));
  EXPECT_EQ(labels(linear_ticks(0, 3e7, 3)), (std::vector<std::string>{"0", "1e7", "2e7", "3e7"}));
  // A narrow range far from 0: labels still differ.
  const std::vector<std::string> l = labels(linear_ticks(1.00001, 1.00005, 4));
  ASSERT_GE(l.size(), 3u);
  for (std::size_t i = 1; i < l.size(); ++i) EXPECT_NE(l[i], l[i - 1]);
  EXPECT_EQ(l[0], "1.00001");
  EXPECT_TRUE(linear_ticks(1, 1, 5).empty());
  EXPECT_TRUE(linear_ticks(0, NAN, 5).empty());
}

TEST(PlotTicks, LogTicksLabelDecadesAndKeepMinorTicksUnlabelled) {
  const std::vector<Tick> t = log_ticks(1e-6, 1e-2, 8);
  EXPECT_EQ(labels(t), (std::vector<std::string>{"1e-6", "1e-5", "0.0001", "0.001", "0.01"}));
  int minor = 0;
  for (const Tick& k : t) {
    EXPECT_GE(k.value, 1e-6 * (1 - 1e-12));
    EXPECT_LE(k.value, 1e-2 * (1 + 1e-12));
    minor += k.label.empty();
  }
  EXPECT_EQ(minor, 4 * 8);  // 2..9 in each of the four decades
  // Forty decades: every fifth labelled, no minor ticks between.
  EXPECT_EQ(
      labels(log_ticks(1e-30, 1e10, 9)),
      (std::vector<std::string>{"1e-30", "1e-25", "1e-20", "1e-15", "1e-10", "1e-5", "1", "1e5", "1e10"}));
  // Within one decade: 1-2-5 ticks in the data's units.
  EXPECT_EQ(labels(log_ticks(2, 7, 5)), (std::vector<std::string>{"2", "3", "4", "5", "6", "7"}));
  EXPECT_TRUE(log_ticks(0, 1, 5).empty());
}

TEST(PlotTicks, NumbersAreWrittenShort) {
  EXPECT_EQ(format_number(1e-6, 3), "1e-6");
  EXPECT_EQ(format_number(2.5e12, 3), "2.5e12");
  EXPECT_EQ(format_number(-0.25, 3), "-0.25");
  EXPECT_EQ(format_number(0, 3), "0");
}

bool is(const Raster& r, int x, int y, Rgba c, int tol = 2) {
  if (x < 0 || y < 0 || x >= r.w || y >= r.h) return false;
  const uint8_t* p = &r.rgb[(static_cast<std::size_t>(y) * r.w + x) * 3];
  return std::abs(p[0] - c.r) <= tol && std::abs(p[1] - c.g) <= tol && std::abs(p[2] - c.b) <= tol;
}
// Pixels of colour c within the box [x0, x1) x [y0, y1).
int count(const Raster& r, int x0, int y0, int x1, int y1, Rgba c, int tol = 2) {
  int n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) n += is(r, x, y, c, tol);
  return n;
}
// Pixels of the colour of series c within `radius` of (x, y).
bool near(const Raster& r, Vec2 p, Rgba c, int radius = 1) {
  return count(r, static_cast<int>(p.x) - radius, static_cast<int>(p.y) - radius,
               static_cast<int>(p.x) + radius + 1, static_cast<int>(p.y) + radius + 1, c) > 0;
}

const Rgba kBlack{0, 0, 0, 255}, kWhite{255, 255, 255, 255};

Figure two_series() {
  Figure f;
  f.title = "two series";
  f.x.label = "time (s)";
  f.y.label = "value (m)";
  Series a{"alpha", {0, 1, 2, 3, 4}, {0, 2, 1, 3, 2}, palette(0)};
  Series b{"beta", {0, 4}, {3, 0}, palette(1)};
  f.series = {a, b};
  return f;
}

TEST(PlotRaster, DrawsAxesTickLabelsLegendAndData) {
  Layout l;
  const Figure f = two_series();
  const Raster r = render(f, 640, 400, 2, &l);
  ASSERT_EQ(r.rgb.size(), 640u * 400u * 3u);
  const Rect p = l.t.plot;
  const int x0 = static_cast<int>(std::floor(p.x0)), x1 = static_cast<int>(std::floor(p.x1));
  const int y0 = static_cast<int>(std::floor(p.y0)), y1 = static_cast<int>(std::floor(p.y1));
  // The frame: black along all four sides (the legend box may cover none of it).
  int frame = 0;
  for (int x = x0; x <= x1; ++x) frame += is(r, x, y0, kBlack) + is(r, x, y1, kBlack);
  for (int y = y0; y <= y1; ++y) frame += is(r, x0, y, kBlack) + is(r, x1, y, kBlack);
  EXPECT_GE(frame, 2 * (x1 - x0) + 2 * (y1 - y0) - 8);
  // Tick labels: ink under each labelled x tick, left of each labelled y tick.
  ASSERT_GE(labels(l.x_ticks).size(), 3u);
  ASSERT_GE(labels(l.y_ticks).size(), 3u);
  for (const Tick& k : l.x_ticks) {
    if (k.label.empty()) continue;
    Vec2 q;
    ASSERT_TRUE(l.t.to_px(k.value, 0, &q));
    EXPECT_GT(count(r, static_cast<int>(q.x) - 12, y1 + 7, static_cast<int>(q.x) + 12, y1 + 7 + 16, kBlack),
              10)
        << "x tick " << k.label;
  }
  for (const Tick& k : l.y_ticks) {
    if (k.label.empty()) continue;
    Vec2 q;
    ASSERT_TRUE(l.t.to_px(0, k.value, &q));
    EXPECT_GT(count(r, x0 - 40, static_cast<int>(q.y) - 8, x0 - 6, static_cast<int>(q.y) + 8, kBlack), 8)
        << "y tick " << k.label;
  }
  // Title, axis labels: ink in the margins where the layout put them.
  EXPECT_GT(count(r, 200, 0, 440, 20, kBlack), 50) << "title";
  EXPECT_GT(count(r, 0, y1 + 24, 640, 400, kBlack), 50) << "x label";
  // The legend: two swatches in the series' colours, with their names beside.
  ASSERT_EQ(l.legend.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const Rect s = l.legend[k].swatch;
    EXPECT_EQ(count(r, static_cast<int>(s.x0), static_cast<int>(s.y0), static_cast<int>(s.x1),
                    static_cast<int>(s.y1), palette(k)),
              static_cast<int>(s.w() * s.h()))
        << "swatch " << k;
    EXPECT_GT(count(r, static_cast<int>(s.x1) + 4, static_cast<int>(s.y0) - 8, static_cast<int>(s.x1) + 60,
                    static_cast<int>(s.y1) + 8, kBlack),
              20)
        << "legend name " << k;
  }
  EXPECT_TRUE(p.contains({l.legend_box.x0, l.legend_box.y0}));
  // The data: each point of alpha where the transform says, and the middle of each segment.
  for (std::size_t i = 0; i < f.series[0].x.size(); ++i) {
    Vec2 q;
    ASSERT_TRUE(l.t.to_px(f.series[0].x[i], f.series[0].y[i], &q));
    if (l.legend_box.contains(q)) continue;
    EXPECT_TRUE(near(r, q, palette(0))) << "point " << i;
    if (i == 0) continue;
    ASSERT_TRUE(l.t.to_px((f.series[0].x[i] + f.series[0].x[i - 1]) / 2,
                          (f.series[0].y[i] + f.series[0].y[i - 1]) / 2, &q));
    if (!l.legend_box.contains(q)) {
      EXPECT_TRUE(near(r, q, palette(0))) << "segment " << i;
    }
  }
  // Nothing of the data outside the plot area.
  EXPECT_EQ(count(r, 0, 0, x0 - 1, 400, palette(0)), 0);
}

TEST(PlotRaster, LogScalePutsDecadesAtEqualSpacing) {
  Figure f;
  f.y.scale = Scale::kLog10;
  f.y.label = "|dE| / E";
  f.x.label = "t";
  Series s{"err", {0, 1, 2, 3, 4}, {1e-6, 1e-5, 1e-4, 1e-3, 1e-2}, palette(2), Style::kPoints, 6};
  f.series = {s};
  Layout l;
  const Raster r = render(f, 500, 500, 2, &l);
  std::vector<float> ys;
  for (std::size_t i = 0; i < s.y.size(); ++i) {
    Vec2 q;
    ASSERT_TRUE(l.t.to_px(s.x[i], s.y[i], &q));
    ys.push_back(q.y);
    if (!l.legend_box.contains(q)) {
      EXPECT_TRUE(near(r, q, palette(2))) << "point " << i;
    }
  }
  for (std::size_t i = 2; i < ys.size(); ++i) EXPECT_NEAR(ys[i - 1] - ys[i], ys[0] - ys[1], 0.01);
  EXPECT_GT(ys[0] - ys[1], 50);
  // Labelled ticks at each decade, with ink beside them.
  EXPECT_EQ(labels(l.y_ticks), (std::vector<std::string>{"1e-6", "1e-5", "0.0001", "0.001", "0.01"}));
  for (float y : ys)
    EXPECT_GT(count(r, static_cast<int>(l.t.plot.x0) - 60, static_cast<int>(y) - 8,
                    static_cast<int>(l.t.plot.x0) - 6, static_cast<int>(y) + 8, kBlack),
              8);
  // Values <= 0 have no place on a log axis.
  Vec2 q;
  EXPECT_FALSE(l.t.to_px(1, 0, &q));
  EXPECT_FALSE(l.t.to_px(1, -1e-3, &q));
}

TEST(PlotRaster, NonFinitePointsBreakTheLine) {
  Figure f;
  Series s{"", {0, 1, 2, 3, 4}, {0, 1, NAN, 1, 0}, palette(3)};
  Series g{"", {0, 4}, {-1, 2}, Rgba{0, 0, 0, 0}};  // invisible: fixes the range
  f.series = {s, g};
  Layout l;
  const Raster r = render(f, 400, 300, 2, &l);
  Vec2 joined, gap;
  ASSERT_TRUE(l.t.to_px(0.5, 0.5, &joined));
  ASSERT_TRUE(l.t.to_px(2, 1, &gap));
  EXPECT_TRUE(near(r, joined, palette(3)));
  EXPECT_EQ(count(r, static_cast<int>(gap.x) - 20, static_cast<int>(gap.y) - 6, static_cast<int>(gap.x) + 20,
                  static_cast<int>(gap.y) + 6, palette(3)),
            0);
  // The points on either side of the gap are still drawn.
  for (double x : {1.0, 3.0}) {
    Vec2 q;
    ASSERT_TRUE(l.t.to_px(x, 1, &q));
    EXPECT_TRUE(near(r, q, palette(3)));
  }
  EXPECT_TRUE(l.legend.empty());
}

TEST(PlotRaster, BarsStandOnTheAxisAndTextIsPlacedByItsAnchor) {
  Figure f;
  f.series = {Series{"counts", {0.5, 1.5, 2.5}, {3, 0, 6}, palette(4), Style::kBars}};
  Layout l;
  const Raster r = render(f, 400, 300, 2, &l);
  Vec2 top, base;
  ASSERT_TRUE(l.t.to_px(2.5, 5.5, &top));
  ASSERT_TRUE(l.t.to_px(2.5, 0.2, &base));
  EXPECT_TRUE(is(r, static_cast<int>(top.x), static_cast<int>(top.y), palette(4)));
  EXPECT_TRUE(is(r, static_cast<int>(base.x), static_cast<int>(base.y), palette(4)));
  ASSERT_TRUE(l.t.to_px(1.5, 0.5, &top));
  EXPECT_FALSE(is(r, static_cast<int>(top.x), static_cast<int>(top.y), palette(4)));

  Raster t{200, 100, std::vector<uint8_t>(200 * 100 * 3, 255)};
  Prim p;
  p.kind = Prim::Kind::kText;
  p.pts = {{100, 50}};
  p.text = "HELLO";
  p.anchor = Anchor::kCentre;
  paint({p}, Rect{0, 0, 200, 100}, 2, &t);
  int x0 = 200, x1 = -1, y0 = 100, y1 = -1;
  for (int y = 0; y < 100; ++y)
    for (int x = 0; x < 200; ++x)
      if (is(t, x, y, kBlack))
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  const float w = raster_metrics(2).width("HELLO");
  EXPECT_NEAR(x0, 100 - w / 2, 2);
  EXPECT_NEAR(x1 + 1, 100 + w / 2, 2);
  EXPECT_NEAR((y0 + y1 + 1) / 2.0, 50, 2.5);  // caps: 7 of the 8 units of height
  EXPECT_TRUE(is(t, 5, 5, kWhite));
}

// Nested widths keep equal lines visible, but many lines no longer grow the first one past
// kMaxLineNesting (eighteen drift runs at 1.5 px a step drew the first 27.5 px wide).
TEST(PlotLayout, NestedLineWidthsStayBounded) {
  using namespace ds::app::plot;
  std::vector<Series> few(3), many(18);
  nest_line_widths(&few, 2, 1.5f);
  EXPECT_FLOAT_EQ(few[2].width, 2);
  EXPECT_FLOAT_EQ(few[1].width, 3.5f);
  EXPECT_FLOAT_EQ(few[0].width, 5);
  nest_line_widths(&many, 2, 1.5f);
  EXPECT_FLOAT_EQ(many[17].width, 2);
  EXPECT_NEAR(many[0].width, 2 + kMaxLineNesting, 1e-4);
  for (std::size_t k = 1; k < many.size(); ++k) EXPECT_GT(many[k - 1].width, many[k].width);
}

TEST(PlotLayout, NearestFindsTheHoveredPoint) {
  const Figure f = two_series();
  Layout l;
  render(f, 640, 400, 2, &l);
  Vec2 q;
  ASSERT_TRUE(l.t.to_px(3, 3, &q));
  const Nearest n = nearest(f, l, {q.x + 3, q.y - 2}, 12);
  EXPECT_EQ(n.series, 0);
  EXPECT_EQ(n.index, 3u);
  EXPECT_EQ(n.x, 3);
  EXPECT_EQ(nearest(f, l, {q.x + 40, q.y + 40}, 12).series, -1);
  EXPECT_NEAR(l.t.x_at(q.x), 3, 1e-4);
  EXPECT_NEAR(l.t.y_at(q.y), 3, 1e-4);
}

TEST(PlotLayout, FixedRangesAreSharedAndBadSeriesRefused) {
  Figure f = two_series();
  f.x.lo = -10, f.x.hi = 10;
  Layout l;
  render(f, 400, 300, 2, &l);
  EXPECT_EQ(l.t.x0, -10);
  EXPECT_EQ(l.t.x1, 10);
  f.series[0].y.pop_back();
  EXPECT_THROW(render(f, 400, 300), std::invalid_argument);
  EXPECT_THROW(render(two_series(), 100, 300), std::invalid_argument);
  double lo, hi;
  EXPECT_TRUE(data_range(two_series().series, false, Scale::kLog10, &lo, &hi));
  EXPECT_EQ(lo, 1);  // the zeros have no place on a log axis
  EXPECT_EQ(hi, 3);
}

// Hard-to-round cases over x as the TMD tab plots them (points 6 pixels wide, and the k line), spread
// over the whole plot by a fixed linear congruential generator (seed 12345), and with `hole` a
// region at the top centre left empty. Every corner of the plot holds points, so the old rule (the
// corner with the fewest points) put the legend over some of them.
Figure cases_over_x(bool hole) {
  Figure f;
  f.title = "hard-to-round cases over x";
  f.x.label = "x";
  f.y.label = "-log2(distance to breakpoint / ulp)";
  Series s{"case", {}, {}, palette(0), Style::kPoints, 6};
  uint32_t state = 12345;
  auto uniform = [&]() {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) / 16777216.0;
  };
  while (s.x.size() < 300) {
    const double u = uniform(), v = uniform();
    if (hole && u > 0.15 && u < 0.85 && v > 0.6) continue;
    s.x.push_back(1 + 0.125 * u);
    s.y.push_back(12 + 8 * v);
  }
  // The corners themselves.
  for (double u : {0.0, 1.0})
    for (double v : {0.0, 1.0}) s.x.push_back(1 + 0.125 * u), s.y.push_back(12 + 8 * v);
  f.x.lo = 1, f.x.hi = 1.125;
  f.series = {s, Series{"k = 12: distance 2^-k ulp", {1, 1.125}, {12, 12}, palette(1)}};
  return f;
}

// No drawn point under the legend: no marker's square overlaps its box, and every marker shows in
// the raster in its colour.
void expect_no_point_under_legend(const Figure& f, const Layout& l, const Raster& r) {
  const Rect b = l.legend_box;
  ASSERT_GT(b.w(), 0);
  int hidden = 0, missing = 0;
  for (std::size_t i = 0; i < f.series[0].x.size(); ++i) {
    Vec2 q;
    ASSERT_TRUE(l.t.to_px(f.series[0].x[i], f.series[0].y[i], &q));
    hidden += q.x + 3 > b.x0 && q.x - 3 < b.x1 && q.y + 3 > b.y0 && q.y - 3 < b.y1;
    missing += !near(r, q, palette(0));
  }
  EXPECT_EQ(hidden, 0) << "points under the legend (" << b.x0 << ", " << b.y0 << ") - (" << b.x1 << ", "
                       << b.y1 << ")";
  EXPECT_EQ(missing, 0) << "points not drawn";
  // The k line's swatch and name are drawn.
  ASSERT_EQ(l.legend.size(), 2u);
  const Rect s = l.legend[1].swatch;
  EXPECT_EQ(count(r, static_cast<int>(s.x0), static_cast<int>(s.y0), static_cast<int>(s.x1),
                  static_cast<int>(s.y1), palette(1)),
            static_cast<int>(s.w() * s.h()));
}

// Points everywhere: no place inside is free, so the legend goes in a band above the plot, below
// the title, and the plot keeps the figure's full width.
TEST(PlotLegend, CoversNoPointWhereTheDataFillsThePlot) {
  const Figure f = cases_over_x(false);
  Layout l;
  const Raster r = render(f, 640, 400, 2, &l);
  expect_no_point_under_legend(f, l, r);
  EXPECT_LE(l.legend_box.y1, l.t.plot.y0) << "not above the plot";
  EXPECT_GT(l.t.plot.w(), 500);
}

// A free region at the top centre: the legend goes inside the plot, there.
TEST(PlotLegend, GoesInsideWhereThePlotHasAFreePlace) {
  const Figure f = cases_over_x(true);
  Layout l;
  const Raster r = render(f, 640, 400, 2, &l);
  expect_no_point_under_legend(f, l, r);
  const Rect p = l.t.plot, b = l.legend_box;
  std::printf("plot (%g, %g) - (%g, %g), legend (%g, %g) - (%g, %g)\n", p.x0, p.y0, p.x1, p.y1, b.x0, b.y0,
              b.x1, b.y1);
  EXPECT_TRUE(p.contains({b.x0, b.y0}) && p.contains({b.x1 - 1, b.y1 - 1})) << "not inside the plot";
  EXPECT_GT(b.x0, p.x0 + 0.2f * p.w()) << "not at the top centre";
  EXPECT_LT(b.y1, p.y0 + 0.5f * p.h());
}

}  // namespace
