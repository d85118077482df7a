// A small line-plot rasterizer (see plot_png.h): linear axes fitted to the data with 1-2-5 ticks,
// lines drawn two pixels wide, text from stb_easy_font's quads scaled up by an integer factor.
#include "plot_png.h"

#include <stb_easy_font.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "image_io.h"

namespace ds::app {
namespace {

struct Canvas {
  int w, h;
  std::vector<uint8_t> px;
  void set(int x, int y, const uint8_t c[3]) {
    if (x < 0 || y < 0 || x >= w || y >= h) return;
    uint8_t* p = &px[(static_cast<std::size_t>(y) * w + x) * 3];
    p[0] = c[0], p[1] = c[1], p[2] = c[2];
  }
  void rect(int x0, int y0, int x1, int y1, const uint8_t c[3]) {
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) set(x, y, c);
  }
  // Bresenham, two pixels wide.
  void line(int x0, int y0, int x1, int y1, const uint8_t c[3]) {
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (int guard = 0; guard < 100000; ++guard) {
      set(x0, y0, c);
      set(x0 + 1, y0, c);
      set(x0, y0 + 1, c);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
  // Text with its top-left corner at (x, y), `scale` pixels per font unit.
  void text(int x, int y, const std::string& s, const uint8_t c[3], int scale = 2) {
    static char buf[60000];
    std::string t = s.substr(0, 200);
    const int quads = stb_easy_font_print(0, 0, &t[0], nullptr, buf, sizeof buf);
    for (int q = 0; q < quads; ++q) {
      const float* v0 = reinterpret_cast<const float*>(buf + q * 64);
      const float* v2 = reinterpret_cast<const float*>(buf + q * 64 + 32);
      rect(x + static_cast<int>(v0[0] * scale), y + static_cast<int>(v0[1] * scale),
           x + static_cast<int>(v2[0] * scale), y + static_cast<int>(v2[1] * scale), c);
    }
  }
  static int text_width(const std::string& s, int scale = 2) {
    std::string t = s.substr(0, 200);
    return stb_easy_font_width(&t[0]) * scale;
  }
};

// Ticks at multiples of 1, 2 or 5 times a power of ten, about `want` of them in [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int want) {
  const double raw = (hi - lo) / want;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  const double step = (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step && t.size() < 50; v += step)
    t.push_back(std::fabs(v) < 1e-12 * step ? 0.0 : v);
  return t;
}

std::string label(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

}  // namespace

void plot_colour(int k, uint8_t rgb[3]) {
  static const uint8_t pal[8][3] = {{31, 119, 180},  {214, 39, 40}, {44, 160, 44},   {255, 127, 14},
                                    {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127}};
  const uint8_t* c = pal[((k % 8) + 8) % 8];
  rgb[0] = c[0], rgb[1] = c[1], rgb[2] = c[2];
}

std::vector<uint8_t> plot_rgb(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  if (spec.width < 200 || spec.height < 200 || spec.width > 8000 || spec.height > 8000)
    throw std::invalid_argument("plot size must be within [200, 8000] pixels per side");
  for (const PlotSeries& s : series)
    if (s.x.size() != s.y.size())
      throw std::invalid_argument("plot series \"" + s.name + "\": x and y differ in length");
  Canvas cv{spec.width, spec.height,
            std::vector<uint8_t>(static_cast<std::size_t>(spec.width) * spec.height * 3, 255)};
  const uint8_t black[3] = {0, 0, 0}, grey[3] = {225, 225, 225}, dark[3] = {70, 70, 70};
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const PlotSeries& s : series)
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
        x0 = std::min(x0, s.x[i]), x1 = std::max(x1, s.x[i]);
        y0 = std::min(y0, s.y[i]), y1 = std::max(y1, s.y[i]);
      }
  if (!(x0 <= x1)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 - x0 <= 1e-300 * std::max(1.0, std::fabs(x0))) x0 -= 0.5, x1 += 0.5;
  const double yspan = y1 - y0, ymag = std::max(std::fabs(y0), std::fabs(y1));
  if (yspan <= 1e-12 * ymag || yspan == 0) {
    const double pad = ymag > 0 ? 1e-6 * ymag : 1.0;
    y0 -= pad, y1 += pad;
  } else {
    y0 -= 0.05 * yspan, y1 += 0.05 * yspan;
  }
  const int left = 110, right = spec.width - 20, top = 72, bottom = spec.height - 60;
  auto px = [&](double x) {
    return left + static_cast<int>(std::lround((x - x0) / (x1 - x0) * (right - left)));
  };
  auto py = [&](double y) {
    return bottom - static_cast<int>(std::lround((y - y0) / (y1 - y0) * (bottom - top)));
  };
  // Grid and tick labels.
  for (double t : nice_ticks(x0, x1, 8)) {
    const int x = px(t);
    cv.rect(x, top, x + 1, bottom, grey);
    cv.rect(x, bottom, x + 1, bottom + 6, black);
    const std::string l = label(t);
    const int w = Canvas::text_width(l);
    cv.text(std::min(x - w / 2, spec.width - w - 2), bottom + 10, l, dark);
  }
  for (double t : nice_ticks(y0, y1, 7)) {
    const int y = py(t);
    cv.rect(left, y, right, y + 1, grey);
    cv.rect(left - 6, y, left, y + 1, black);
    const std::string l = label(t);
    cv.text(left - 10 - Canvas::text_width(l), y - 6, l, dark);
  }
  cv.rect(left, top, left + 1, bottom + 1, black);
  cv.rect(left, bottom, right + 1, bottom + 1, black);
  cv.rect(right, top, right + 1, bottom + 1, black);
  cv.rect(left, top, right + 1, top + 1, black);
  // Series.
  for (std::size_t k = 0; k < series.size(); ++k) {
    uint8_t c[3];
    plot_colour(static_cast<int>(k), c);
    const PlotSeries& s = series[k];
    bool have = false;
    int lx = 0, ly = 0;
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) {
        have = false;
        continue;
      }
      const int x = px(s.x[i]), y = py(s.y[i]);
      if (have)
        cv.line(lx, ly, x, y, c);
      else
        cv.rect(x - 1, y - 1, x + 2, y + 2, c);
      lx = x, ly = y, have = true;
    }
  }
  // Title, labels, legend.
  const int ts = Canvas::text_width(spec.title, 3) <= spec.width - 20 ? 3 : 2;
  cv.text(std::max(4, (spec.width - Canvas::text_width(spec.title, ts)) / 2), 10, spec.title, black, ts);
  cv.text((left + right - Canvas::text_width(spec.x_label)) / 2, spec.height - 26, spec.x_label, black);
  cv.text(8, top - 22, spec.y_label, black);
  int lw = 0;
  for (const PlotSeries& s : series) lw = std::max(lw, Canvas::text_width(s.name));
  const int lx = right - lw - 50, ly = top + 10;
  if (!series.empty()) {
    const uint8_t white[3] = {255, 255, 255};
    cv.rect(lx - 8, ly - 6, right - 8, ly + 22 * static_cast<int>(series.size()) + 2, white);
    for (std::size_t k = 0; k < series.size(); ++k) {
      uint8_t c[3];
      plot_colour(static_cast<int>(k), c);
      const int y = ly + 22 * static_cast<int>(k);
      cv.rect(lx, y + 4, lx + 28, y + 8, c);
      cv.text(lx + 36, y, series[k].name, black);
    }
  }
  return cv.px;
}

std::string plot_png(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  return encode_png(plot_rgb(spec, series), spec.width, spec.height, {{"Title", spec.title}});
}

}  // namespace ds::app
