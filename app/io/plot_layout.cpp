// The layout of the plotting layer (plot.h): ranges, margins fitted to the tick labels, the grid,
// the data as primitives clipped to the plot area, the legend where it hides no data, and the
// nearest-point search behind the window's hover read-out.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "plot.h"

namespace ds::app::plot {
namespace {

bool placeable(double v, Scale s) { return std::isfinite(v) && (s == Scale::kLinear || v > 0); }
double to_axis(double v, Scale s) { return s == Scale::kLog10 ? std::log10(v) : v; }
double from_axis(double v, Scale s) { return s == Scale::kLog10 ? std::pow(10.0, v) : v; }

// The axis's range in its own space: the fixed one, or the data's with `margin` of the span added
// on either side. `bars_base`: the range includes 0 (linear bars start there).
void axis_range(const Axis& a, const std::vector<Series>& series, bool x_axis, double margin, bool bars_base,
                double* lo, double* hi, std::string* note) {
  if (placeable(a.lo, a.scale) && placeable(a.hi, a.scale) && a.lo < a.hi) {
    *lo = to_axis(a.lo, a.scale), *hi = to_axis(a.hi, a.scale);
    return;
  }
  double dl, dh;
  if (!data_range(series, x_axis, a.scale, &dl, &dh)) {
    *lo = 0, *hi = 1;
    if (note->empty()) *note = "no data to plot";
    return;
  }
  if (bars_base && a.scale == Scale::kLinear) dl = std::min(dl, 0.0), dh = std::max(dh, 0.0);
  double l = to_axis(dl, a.scale), h = to_axis(dh, a.scale);
  if (!(h - l > 1e-12 * std::max(std::fabs(l), std::fabs(h)))) {
    const double pad = a.scale == Scale::kLog10 ? 0.5 : (l != 0 ? 0.05 * std::fabs(l) : 0.5);
    l -= pad, h += pad;
  } else {
    const double span = h - l;
    l -= margin * span, h += margin * span;
    if (bars_base && a.scale == Scale::kLinear && dl >= 0) l = std::max(l, 0.0);
  }
  *lo = l, *hi = h;
}

Prim text(Vec2 at, const std::string& s, Rgba c, Anchor a) {
  Prim p;
  p.kind = Prim::Kind::kText;
  p.pts = {at};
  p.text = s;
  p.colour = c;
  p.anchor = a;
  return p;
}
Prim line(Vec2 a, Vec2 b, Rgba c, float w = 1) {
  Prim p;
  p.kind = Prim::Kind::kLine;
  p.pts = {a, b};
  p.colour = c;
  p.width = w;
  return p;
}
Prim rect(Rect r, Rgba c) {
  Prim p;
  p.kind = Prim::Kind::kRect;
  p.pts = {{r.x0, r.y0}, {r.x1, r.y1}};
  p.colour = c;
  return p;
}

// Bars are as wide as the bins: the smallest spacing between neighbouring x.
double bar_width(const Series& s, const Transform& t) {
  double w = INFINITY;
  for (std::size_t i = 1; i < s.x.size(); ++i)
    if (std::isfinite(s.x[i] - s.x[i - 1]) && s.x[i] != s.x[i - 1])
      w = std::min(w, std::fabs(s.x[i] - s.x[i - 1]));
  return std::isfinite(w) ? w : (t.x1 - t.x0) / 20;
}
// The pixel rectangle of bar i of a bars series (false where it has no place on the axes).
bool bar_rect(const Series& s, const Transform& t, double w, std::size_t i, Rect* out) {
  const double base = t.ys == Scale::kLog10 ? std::pow(10.0, t.y0) : 0.0;
  Vec2 a, b;
  if (!t.to_px(s.x[i] - 0.45 * w, s.y[i], &a) || !t.to_px(s.x[i] + 0.45 * w, base, &b)) return false;
  *out = {std::min(a.x, b.x), std::min(a.y, b.y), std::max(a.x, b.x), std::max(a.y, b.y)};
  return true;
}

// What a legend at some place would hide, in pixels of the plot area: those that a drawn marker,
// line vertex or bar covers (`points`), and those that only a line passes over (`segments`).
struct Cover {
  std::size_t points = 0, segments = 0;
  bool operator<(const Cover& o) const {
    return points != o.points ? points < o.points : segments < o.segments;
  }
};

// Which cells (kCell x kCell pixels) of the plot area the data covers, as two summed-area tables
// (markers, vertices and bars; lines), so that any box's cover is four look-ups: the legend's
// candidate places cost O(points + cells) together, not O(points) each (a 120,000-point
// bifurcation diagram). A cell counts as covered where anything touches it, and a box as hiding
// every cell it touches, so nothing drawn under a box is missed.
class Occupancy {
 public:
  Occupancy(const std::vector<Series>& series, const Transform& t)
      : x0_(t.plot.x0),
        y0_(t.plot.y0),
        w_(std::max(1, static_cast<int>(std::ceil(t.plot.w() / kCell)))),
        h_(std::max(1, static_cast<int>(std::ceil(t.plot.h() / kCell)))) {
    std::vector<uint8_t> pts(static_cast<std::size_t>(w_) * h_, 0), lines(pts.size(), 0);
    bool any_line = false;
    for (const Series& s : series) {
      if (s.colour.a == 0) continue;  // an invisible series (one that only fixes a range) hides nothing
      if (s.style == Style::kBars) {
        const double w = bar_width(s, t);
        for (std::size_t i = 0; i < s.x.size(); ++i) {
          Rect b;
          if (bar_rect(s, t, w, i, &b)) mark(&pts, b);
        }
        continue;
      }
      const float h = s.width / 2 + 1;  // a marker's (or a line's) half extent, and a pixel of margin
      bool have_prev = false;
      Vec2 prev;
      for (std::size_t i = 0; i < s.x.size(); ++i) {
        Vec2 q;
        if (!t.to_px(s.x[i], s.y[i], &q)) {
          have_prev = false;
          continue;
        }
        if (t.plot.contains(q)) mark_at(&pts, q), pad_pts_ = std::max(pad_pts_, h);
        if (s.style == Style::kLine && have_prev) {
          any_line = true;
          pad_lines_ = std::max(pad_lines_, h);
          // Along the segment a pixel at a time, within the plot (the far ends are clipped).
          const float dx = q.x - prev.x, dy = q.y - prev.y;
          const int n =
              static_cast<int>(std::min(4096.0f, std::ceil(std::max(std::fabs(dx), std::fabs(dy)))));
          for (int k = 0; k <= n; ++k) {
            const float u = n ? static_cast<float>(k) / n : 0.0f, x = prev.x + u * dx, y = prev.y + u * dy;
            if (t.plot.contains({x, y})) mark_at(&lines, {x, y});
          }
        }
        prev = q, have_prev = true;
      }
    }
    pts_ = sums(pts);
    if (any_line) lines_ = sums(lines);
  }
  // Markers and line pixels are marked at their centres only; a box hides them where it, grown by
  // their half extent, holds a centre.
  Cover cover(const Rect& r) const {
    return {count(pts_, {r.x0 - pad_pts_, r.y0 - pad_pts_, r.x1 + pad_pts_, r.y1 + pad_pts_}),
            count(lines_, {r.x0 - pad_lines_, r.y0 - pad_lines_, r.x1 + pad_lines_, r.y1 + pad_lines_})};
  }

 private:
  void mark_at(std::vector<uint8_t>* m, Vec2 q) const {
    const int i = std::clamp(static_cast<int>((q.x - x0_) / kCell), 0, w_ - 1),
              j = std::clamp(static_cast<int>((q.y - y0_) / kCell), 0, h_ - 1);
    (*m)[static_cast<std::size_t>(j) * w_ + i] = 1;
  }
  void mark(std::vector<uint8_t>* m, const Rect& r) const {
    const int i0 = std::max(0, static_cast<int>(std::floor((r.x0 - x0_) / kCell))),
              i1 = std::min(w_, static_cast<int>(std::ceil((r.x1 - x0_) / kCell)));
    const int j0 = std::max(0, static_cast<int>(std::floor((r.y0 - y0_) / kCell))),
              j1 = std::min(h_, static_cast<int>(std::ceil((r.y1 - y0_) / kCell)));
    for (int j = j0; j < j1; ++j)
      for (int i = i0; i < i1; ++i) (*m)[static_cast<std::size_t>(j) * w_ + i] = 1;
  }
  std::vector<uint32_t> sums(const std::vector<uint8_t>& m) const {
    std::vector<uint32_t> s(static_cast<std::size_t>(w_ + 1) * (h_ + 1), 0);
    for (int j = 0; j < h_; ++j)
      for (int i = 0; i < w_; ++i)
        s[static_cast<std::size_t>(j + 1) * (w_ + 1) + i + 1] =
            m[static_cast<std::size_t>(j) * w_ + i] + s[static_cast<std::size_t>(j) * (w_ + 1) + i + 1] +
            s[static_cast<std::size_t>(j + 1) * (w_ + 1) + i] - s[static_cast<std::size_t>(j) * (w_ + 1) + i];
    return s;
  }
  std::size_t count(const std::vector<uint32_t>& s, const Rect& r) const {
    if (s.empty()) return 0;
    const int i0 = std::clamp(static_cast<int>(std::floor((r.x0 - x0_) / kCell)), 0, w_),
              i1 = std::clamp(static_cast<int>(std::ceil((r.x1 - x0_) / kCell)), 0, w_);
    const int j0 = std::clamp(static_cast<int>(std::floor((r.y0 - y0_) / kCell)), 0, h_),
              j1 = std::clamp(static_cast<int>(std::ceil((r.y1 - y0_) / kCell)), 0, h_);
    if (i1 <= i0 || j1 <= j0) return 0;
    auto at = [&](int i, int j) { return s[static_cast<std::size_t>(j) * (w_ + 1) + i]; };
    return at(i1, j1) - at(i0, j1) - at(i1, j0) + at(i0, j0);
  }

  static constexpr float kCell = 2;
  float x0_, y0_;
  int w_, h_;
  float pad_pts_ = 0, pad_lines_ = 0;
  std::vector<uint32_t> pts_, lines_;
};

enum class LegendAt { kInside, kRight, kAbove };

// The data's primitives: polylines broken at points without a place, squares, or bars.
void add_series(const Series& s, const Transform& t, std::vector<Prim>* out) {
  if (s.style == Style::kBars) {
    const double w = bar_width(s, t);
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      Rect b;
      if (!bar_rect(s, t, w, i, &b)) continue;
      Prim p = rect(b, s.colour);
      p.clip = true;
      out->push_back(std::move(p));
    }
    return;
  }
  Prim cur;
  cur.kind = s.style == Style::kPoints ? Prim::Kind::kPoints : Prim::Kind::kPolyline;
  cur.colour = s.colour;
  cur.width = s.width;
  cur.clip = true;
  auto flush = [&]() {
    if (cur.kind == Prim::Kind::kPolyline && cur.pts.size() == 1) {
      Prim dot = cur;  // a lone point between breaks still shows
      dot.kind = Prim::Kind::kPoints;
      dot.width = s.width + 2;
      out->push_back(std::move(dot));
    } else if (!cur.pts.empty()) {
      out->push_back(cur);
    }
    cur.pts.clear();
  };
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    Vec2 p;
    if (t.to_px(s.x[i], s.y[i], &p))
      cur.pts.push_back(p);
    else if (cur.kind == Prim::Kind::kPolyline)
      flush();
  }
  flush();
}

}  // namespace

Theme Theme::light() {
  return Theme{
      {255, 255, 255, 255}, {0, 0, 0, 255}, {225, 225, 225, 255}, {0, 0, 0, 255}, {255, 255, 255, 235}};
}
Theme Theme::dark() {
  return Theme{
      {22, 22, 26, 255}, {200, 200, 200, 255}, {60, 60, 66, 255}, {230, 230, 230, 255}, {30, 30, 36, 235}};
}

bool Transform::to_px(double x, double y, Vec2* out) const {
  if (!placeable(x, xs) || !placeable(y, ys)) return false;
  const double u = (to_axis(x, xs) - x0) / (x1 - x0), v = (to_axis(y, ys) - y0) / (y1 - y0);
  // Far outside points are pulled in to where clipping still hides them, so no overflow follows.
  out->x = static_cast<float>(plot.x0 + std::clamp(u, -100.0, 100.0) * plot.w());
  out->y = static_cast<float>(plot.y1 - std::clamp(v, -100.0, 100.0) * plot.h());
  return true;
}
double Transform::x_at(float px) const { return from_axis(x0 + (px - plot.x0) / plot.w() * (x1 - x0), xs); }
double Transform::y_at(float py) const { return from_axis(y0 + (plot.y1 - py) / plot.h() * (y1 - y0), ys); }

bool data_range(const std::vector<Series>& series, bool x_axis, Scale s, double* lo, double* hi) {
  double l = INFINITY, h = -INFINITY;
  for (const Series& q : series)
    for (std::size_t i = 0; i < q.x.size() && i < q.y.size(); ++i) {
      const double v = x_axis ? q.x[i] : q.y[i];
      if (placeable(v, s)) l = std::min(l, v), h = std::max(h, v);
    }
  if (!(l <= h)) return false;
  *lo = l, *hi = h;
  return true;
}

void nest_line_widths(std::vector<Series>* series, float thinnest, float step) {
  int lines = 0;
  for (const Series& s : *series) lines += s.style == Style::kLine;
  if (lines > 1) step = std::min(step, kMaxLineNesting / static_cast<float>(lines - 1));
  float w = thinnest;
  for (auto it = series->rbegin(); it != series->rend(); ++it)
    if (it->style == Style::kLine) it->width = w, w += step;
}

namespace {

// The layout with the legend `at` a place: inside (at the free place found, *covered then says
// what it hides), in a column right of the plot, or in a band above it.
Layout layout_at(const Figure& f, Rect area, const TextMetrics& m, const Theme& th, LegendAt at,
                 Cover* covered) {
  for (const Series& s : f.series)
    if (s.x.size() != s.y.size())
      throw std::invalid_argument("plot series \"" + s.name + "\": x and y differ in length");
  Layout L;
  bool bars = false;
  for (const Series& s : f.series) bars |= s.style == Style::kBars;
  Transform& t = L.t;
  t.xs = f.x.scale, t.ys = f.y.scale;
  axis_range(f.x, f.series, true, bars ? 0.03 : 0.0, false, &t.x0, &t.x1, &L.note);
  axis_range(f.y, f.series, false, 0.05, bars, &t.y0, &t.y1, &L.note);
  const float lh = m.height;
  auto ticks = [](Scale s, double lo, double hi, int want) {
    return s == Scale::kLog10 ? log_ticks(std::pow(10.0, lo), std::pow(10.0, hi), want)
                              : linear_ticks(lo, hi, want);
  };

  float top = area.y0 + 4;
  L.prims.push_back(rect(area, th.background));
  // A legend outside takes a column on the right, as wide as its widest entry.
  std::vector<const Series*> named;
  for (const Series& s : f.series)
    if (!s.name.empty()) named.push_back(&s);
  const float row = lh + 6, sw = 26;
  float nw = f.legend_widest.empty() ? 0.0f : m.width(f.legend_widest);
  for (const Series* s : named) nw = std::max(nw, m.width(s->name));
  const float bw = 8 + sw + 8 + nw + 8, bh = 6 + row * static_cast<float>(named.size()) + 2;
  const bool outside = f.legend && at == LegendAt::kRight && !named.empty();
  const bool above = f.legend && at == LegendAt::kAbove && !named.empty();
  const float right = outside ? area.x1 - bw - 8 : area.x1;
  if (!f.title.empty()) {
    L.prims.push_back(text({(area.x0 + area.x1) / 2, top}, f.title, th.text, Anchor::kTop));
    top += lh + 6;
  }
  // A legend above: its entries in rows as wide as the area, each row centred (placed below).
  std::vector<std::vector<std::size_t>> band_rows;
  std::vector<float> band_row_w;
  const float band_y0 = top, gap = 16;
  if (above) {
    const float avail = area.w() - 16;
    for (std::size_t k = 0; k < named.size(); ++k) {
      const float ew = sw + 8 + m.width(named[k]->name);
      if (band_rows.empty() || band_row_w.back() + gap + ew > avail) {
        band_rows.push_back({k});
        band_row_w.push_back(ew);
      } else {
        band_rows.back().push_back(k);
        band_row_w.back() += gap + ew;
      }
    }
    top += row * static_cast<float>(band_rows.size()) + 4;
  }
  const float ylabel_y = top;
  if (!f.y.label.empty()) top += lh + 4;
  float bottom = area.y1 - 4 - (lh + 8);
  if (!f.x.label.empty()) bottom -= lh + 4;
  Rect& p = t.plot;
  p.y0 = top + lh / 2;
  p.y1 = bottom;
  L.y_ticks = ticks(t.ys, t.y0, t.y1, std::clamp(static_cast<int>(p.h() / (2.5f * lh)), 2, 10));
  float yw = f.y.tick_widest.empty() ? 0.0f : m.width(f.y.tick_widest);
  for (const Tick& k : L.y_ticks) yw = std::max(yw, m.width(k.label));
  p.x0 = area.x0 + yw + 14;
  p.x1 = right - 10;
  // Two passes: as many x ticks as the widest label leaves room for.
  float xw = m.width("0.0000");
  for (int pass = 0; pass < 2; ++pass) {
    L.x_ticks = ticks(t.xs, t.x0, t.x1, std::clamp(static_cast<int>(p.w() / (xw + 3 * lh)), 2, 10));
    xw = lh;
    for (const Tick& k : L.x_ticks) xw = std::max(xw, m.width(k.label));
  }
  if (!f.x.tick_widest.empty())
    p.x1 = right - std::max(10.0f, m.width(f.x.tick_widest) / 2 + 4);
  else if (!L.x_ticks.empty())
    p.x1 = right - std::max(10.0f, m.width(L.x_ticks.back().label) / 2 + 4);
  // Whole pixels, so the frame and the grid are crisp in every backend.
  p.x0 = std::round(p.x0), p.y0 = std::round(p.y0), p.x1 = std::round(p.x1), p.y1 = std::round(p.y1);
  if (p.w() < 20 || p.h() < 20) {
    L.note = "the plot area is too small";
    return L;
  }

  // Grid, frame, ticks and their labels.
  std::vector<Vec2> tx, ty;
  for (const Tick& k : L.x_ticks) {
    Vec2 q;
    if (!t.to_px(k.value, t.ys == Scale::kLog10 ? std::pow(10.0, t.y0) : t.y0, &q)) continue;
    const float x = std::round(q.x);
    if (x < p.x0 - 0.5f || x > p.x1 + 0.5f) continue;
    if (!k.label.empty() && f.grid) L.prims.push_back(line({x, p.y0}, {x, p.y1}, th.grid));
    L.prims.push_back(line({x, p.y1}, {x, p.y1 + (k.label.empty() ? 3.0f : 5.0f)}, th.frame));
    if (!k.label.empty()) L.prims.push_back(text({x, p.y1 + 7}, k.label, th.text, Anchor::kTop));
  }
  for (const Tick& k : L.y_ticks) {
    Vec2 q;
    if (!t.to_px(t.xs == Scale::kLog10 ? std::pow(10.0, t.x0) : t.x0, k.value, &q)) continue;
    const float y = std::round(q.y);
    if (y < p.y0 - 0.5f || y > p.y1 + 0.5f) continue;
    if (!k.label.empty() && f.grid) L.prims.push_back(line({p.x0, y}, {p.x1, y}, th.grid));
    L.prims.push_back(line({p.x0 - (k.label.empty() ? 3.0f : 5.0f), y}, {p.x0, y}, th.frame));
    if (!k.label.empty()) L.prims.push_back(text({p.x0 - 8, y}, k.label, th.text, Anchor::kRight));
  }
  if (!f.y.label.empty())
    L.prims.push_back(text({area.x0 + 4, ylabel_y}, f.y.label, th.text, Anchor::kTopLeft));
  if (!f.x.label.empty())
    L.prims.push_back(text({(p.x0 + p.x1) / 2, area.y1 - 4}, f.x.label, th.text, Anchor::kBottom));

  // Outside: a column right of the plot. Inside: the first place, corners first, then the rest
  // of a 5 x 5 grid over the plot, that hides no drawn point and no line; where every place hides
  // some, the one hiding the fewest points, then lines (layout() then puts the legend above).
  Rect best{right + 8, p.y0, right + 8 + bw, p.y0 + bh};
  if (f.legend && !named.empty() && !outside && !above) {
    static const float kPlaces[25][2] = {
        {1, 0},       {0, 0},         {1, 1},         {0, 1},         {0.5f, 0},
        {0.5f, 1},    {0, 0.5f},      {1, 0.5f},      {0.25f, 0},     {0.75f, 0},
        {0.25f, 1},   {0.75f, 1},     {0, 0.25f},     {1, 0.25f},     {0, 0.75f},
        {1, 0.75f},   {0.25f, 0.25f}, {0.5f, 0.25f},  {0.75f, 0.25f}, {0.25f, 0.5f},
        {0.5f, 0.5f}, {0.75f, 0.5f},  {0.25f, 0.75f}, {0.5f, 0.75f},  {0.75f, 0.75f}};
    const Occupancy occupied(f.series, t);
    Cover least{std::numeric_limits<std::size_t>::max(), 0};
    const float free_w = std::max(0.0f, p.w() - 16 - bw), free_h = std::max(0.0f, p.h() - 16 - bh);
    for (const auto& place : kPlaces) {
      const float x0 = std::round(p.x0 + 8 + place[0] * free_w),
                  y0 = std::round(p.y0 + 8 + place[1] * free_h);
      const Rect r{x0, y0, x0 + bw, y0 + bh};
      const Cover c = occupied.cover(r);
      if (c < least) least = c, best = r;
      if (least.points == 0 && least.segments == 0) break;
    }
    if (covered) *covered = least;
    // Hiding something: the caller lays the figure out again with the legend above, so the data's
    // primitives are not made twice.
    if (covered && (least.points || least.segments)) return L;
  }
  for (const Series& s : f.series) add_series(s, t, &L.prims);
  L.prims.push_back(line({p.x0, p.y0}, {p.x1, p.y0}, th.frame));
  L.prims.push_back(line({p.x0, p.y1}, {p.x1, p.y1}, th.frame));
  L.prims.push_back(line({p.x0, p.y0}, {p.x0, p.y1}, th.frame));
  L.prims.push_back(line({p.x1, p.y0}, {p.x1, p.y1}, th.frame));
  if (!L.note.empty())
    L.prims.push_back(text({(p.x0 + p.x1) / 2, (p.y0 + p.y1) / 2}, L.note, th.text, Anchor::kCentre));

  if (!f.legend || named.empty()) return L;
  auto add_entry = [&](std::size_t k, float x, float y) {
    const float cy = std::round(y + lh / 2);
    const Rect sr = named[k]->style == Style::kLine ? Rect{x, cy - 2, x + sw, cy + 2}
                                                    : Rect{x + sw / 2 - 5, cy - 5, x + sw / 2 + 5, cy + 5};
    L.prims.push_back(rect(sr, named[k]->colour));
    L.prims.push_back(text({x + sw + 8, y}, named[k]->name, th.text, Anchor::kTopLeft));
    L.legend.push_back({sr, named[k]->colour, named[k]->name});
  };
  if (above) {
    // Rows centred over the plot area (or the whole area where a row is wider than the plot).
    Rect box{INFINITY, band_y0, -INFINITY, band_y0 + row * static_cast<float>(band_rows.size())};
    for (std::size_t r = 0; r < band_rows.size(); ++r) {
      float x = std::max(area.x0 + 8, std::round((p.x0 + p.x1) / 2 - band_row_w[r] / 2));
      if (x + band_row_w[r] > area.x1 - 8) x = std::max(area.x0 + 8, area.x1 - 8 - band_row_w[r]);
      box.x0 = std::min(box.x0, x), box.x1 = std::max(box.x1, x + band_row_w[r]);
      for (std::size_t k : band_rows[r]) {
        add_entry(k, x, band_y0 + 2 + row * static_cast<float>(r));
        x += sw + 8 + m.width(named[k]->name) + gap;
      }
    }
    L.legend_box = box;
    return L;
  }
  L.legend_box = best;
  L.prims.push_back(rect(best, th.legend_fill));
  L.prims.push_back(line({best.x0, best.y0}, {best.x1, best.y0}, th.grid));
  L.prims.push_back(line({best.x0, best.y1}, {best.x1, best.y1}, th.grid));
  L.prims.push_back(line({best.x0, best.y0}, {best.x0, best.y1}, th.grid));
  L.prims.push_back(line({best.x1, best.y0}, {best.x1, best.y1}, th.grid));
  for (std::size_t k = 0; k < named.size(); ++k)
    add_entry(k, best.x0 + 8, best.y0 + 6 + row * static_cast<float>(k));
  return L;
}

}  // namespace

Layout layout(const Figure& f, Rect area, const TextMetrics& m, const Theme& th) {
  if (f.legend_outside) return layout_at(f, area, m, th, LegendAt::kRight, nullptr);
  Cover covered;
  Layout inside = layout_at(f, area, m, th, LegendAt::kInside, &covered);
  if (covered.points == 0 && covered.segments == 0) return inside;  // (also: no legend, or no room)
  return layout_at(f, area, m, th, LegendAt::kAbove, nullptr);
}

Nearest nearest(const Figure& f, const Layout& l, Vec2 at, float max_px) {
  Nearest n;
  float best = max_px * max_px;
  for (std::size_t s = 0; s < f.series.size(); ++s) {
    const Series& q = f.series[s];
    for (std::size_t i = 0; i < q.x.size(); ++i) {
      Vec2 p;
      if (!l.t.to_px(q.x[i], q.y[i], &p) || !l.t.plot.contains(p)) continue;
      const float d = (p.x - at.x) * (p.x - at.x) + (p.y - at.y) * (p.y - at.y);
      if (d <= best) best = d, n = Nearest{static_cast<int>(s), i, q.x[i], q.y[i], p};
    }
  }
  return n;
}

}  // namespace ds::app::plot
