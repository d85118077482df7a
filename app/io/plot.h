// The plotting layer shared by the window and the PNG plots: a figure model (series, axes with a
// linear or log10 scale, labels with units, title, legend), "nice" ticks, and one layout that turns
// a figure into drawing primitives for a backend to paint (plot_raster.h: the CPU raster behind the
// PNG plots; app/gui/plot_imgui.h: ImGui draw lists in the window).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ds::app::plot {

struct Rgba {
  uint8_t r = 0, g = 0, b = 0, a = 255;
};
// The colour of series k: matplotlib's "tab10" colours (blue, red, green, orange, purple, brown,
// pink, grey, olive, cyan), repeating after 10.
Rgba palette(int k);

enum class Scale { kLinear, kLog10 };

struct Axis {
  std::string label;  // with its unit, e.g. "time (reduced units)"
  Scale scale = Scale::kLinear;
  // A fixed range; NaN (either) fits the range to the data. Figures whose series belong together
  // share an x-range by setting the same lo and hi (see data_range).
  double lo = NAN, hi = NAN;
  // A text at least as wide as any tick label, so the plot area keeps its place as the range (and
  // so the labels) change, e.g. while a view is zoomed; empty: fitted to the labels.
  std::string tick_widest;
};

enum class Style {
  kLine,    // a polyline; a non-finite point (or a non-positive one on a log axis) breaks it
  kPoints,  // a small square at each point
  kBars,    // a bar from the axis's base to y at each x (x: bin centres, equally spaced)
};

struct Series {
  std::string name;  // its legend entry; empty: not listed
  std::vector<double> x, y;
  Rgba colour;
  Style style = Style::kLine;
  float width = 2;  // line width, point size or (bars) unused, in pixels
};

struct Figure {
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  bool legend = true;
  // The legend in a column right of the plot instead of inside it (for plots whose whole area is
  // an image, such as the Hénon parameter plane).
  bool legend_outside = false;
  std::string legend_widest;  // a name at least as wide as any entry's, so the legend keeps its width
  bool grid = true;           // grid lines at the labelled ticks
};

struct Vec2 {
  float x = 0, y = 0;
};
struct Rect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels, y down; [x0, x1) x [y0, y1)
  float w() const { return x1 - x0; }
  float h() const { return y1 - y0; }
  bool contains(Vec2 p) const { return p.x >= x0 && p.x < x1 && p.y >= y0 && p.y < y1; }
};

// Where a text's anchor point lies on its box.
enum class Anchor { kTopLeft, kTop, kTopRight, kLeft, kCentre, kRight, kBottomLeft, kBottom, kBottomRight };

// One drawing primitive. Line and polyline: pts, `width` pixels wide; rect: filled, pts[0] the
// top-left and pts[1] the bottom-right corner; points: a filled square of side `width` at each of
// pts; text: at pts[0], placed by `anchor`. `clip`: clipped to the plot area.
struct Prim {
  enum class Kind { kLine, kPolyline, kRect, kPoints, kText };
  Kind kind = Kind::kLine;
  Rgba colour;
  float width = 1;
  std::vector<Vec2> pts;
  std::string text;
  Anchor anchor = Anchor::kTopLeft;
  bool clip = false;
};

// The backend's text size in pixels: a string's width, and the height of one line.
struct TextMetrics {
  std::function<float(const std::string&)> width;
  float height = 13;
};

// The colours of everything but the data.
struct Theme {
  Rgba background, frame, grid, text, legend_fill;
  static Theme light();  // PNGs: white paper, black axes
  static Theme dark();   // the window: ImGui's dark style
};

// Data to pixels. Ranges are stored in the axis's own space (log10 of the value on a log axis).
struct Transform {
  Rect plot;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  Scale xs = Scale::kLinear, ys = Scale::kLinear;
  // False where the point has no place on the axes (non-finite, or <= 0 on a log axis).
  bool to_px(double x, double y, Vec2* out) const;
  double x_at(float px) const;  // the data x at pixel column px (inverse of to_px)
  double y_at(float py) const;
};

struct Tick {
  double value = 0;   // in data units
  std::string label;  // empty for a minor tick
};

// About `want` ticks at 1, 2 or 5 times a power of ten inside [lo, hi], labelled with as many
// digits as the step needs. lo < hi, both finite.
std::vector<Tick> linear_ticks(double lo, double hi, int want);
// Ticks of a log10 axis over [lo, hi] (0 < lo < hi): labelled decades (every n-th decade when
// there are more than `want`), minor ticks at 2..9 times a decade where they fit; within one
// decade, labelled 1-2-5 ticks instead.
std::vector<Tick> log_ticks(double lo, double hi, int want);
// A value as a tick label: "%.*g" with `digits`, exponents written short ("1e-6", "2.5e12").
std::string format_number(double v, int digits);

// The range [lo, hi] of the series' x (or y) values that have a place on an axis of scale `s`;
// false where none has.
bool data_range(const std::vector<Series>& series, bool x_axis, Scale s, double* lo, double* hi);

// Line widths that keep equal lines visible: the last line series `thinnest` pixels wide, each
// earlier one `step` wider, so a line drawn over an equal one leaves the earlier one's edges
// showing (double and composite energies often agree to the pixel). The widest is at most
// kMaxLineNesting pixels wider than the thinnest (the step shrinks where there are many lines:
// eighteen at 1.5 px a step drew the first 27 px wide, over everything).
constexpr float kMaxLineNesting = 6;
void nest_line_widths(std::vector<Series>* series, float thinnest = 2, float step = 1.5f);

struct LegendEntry {
  Rect swatch;  // where its colour is drawn
  Rgba colour;
  std::string name;
};

struct Layout {
  Transform t;
  std::vector<Tick> x_ticks, y_ticks;
  std::vector<LegendEntry> legend;
  Rect legend_box;          // empty when no legend is drawn; covers no drawn point
  std::vector<Prim> prims;  // in drawing order
  std::string note;         // why something is not drawn ("no data", "log axis: 3 points <= 0 left out")
};

// Lays a figure out in `area`: title, axes, grid, ticks and labels, the data, the legend. The legend
// goes inside the plot where it hides no drawn point, bar or line (a corner where one is free, else
// another place of a 5 x 5 grid), else in a band between the title and the plot, so it never covers
// data; legend_outside puts it in a column on the right.
// Throws std::invalid_argument for a series whose x and y lengths differ.
Layout layout(const Figure& f, Rect area, const TextMetrics& m, const Theme& theme);

// The drawn point nearest to `at` (pixels) within `max_px`, for a hover read-out.
struct Nearest {
  int series = -1;  // -1: none within reach
  std::size_t index = 0;
  double x = 0, y = 0;
  Vec2 px;
};
Nearest nearest(const Figure& f, const Layout& l, Vec2 at, float max_px);

}  // namespace ds::app::plot
