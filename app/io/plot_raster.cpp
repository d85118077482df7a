// The CPU raster backend (plot_raster.h): square-brush Bresenham lines, filled rectangles and
// stb_easy_font quads, each alpha-blended into the image.
#include "plot_raster.h"

#include <stb_easy_font.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ds::app::plot {
namespace {

struct Painter {
  Raster* r;
  int cx0, cy0, cx1, cy1;  // the clip rectangle, [cx0, cx1) x [cy0, cy1)
  void set(int x, int y, Rgba c) {
    if (x < cx0 || y < cy0 || x >= cx1 || y >= cy1) return;
    uint8_t* p = &r->rgb[(static_cast<std::size_t>(y) * r->w + x) * 3];
    const int a = c.a;
    p[0] = static_cast<uint8_t>((c.r * a + p[0] * (255 - a) + 127) / 255);
    p[1] = static_cast<uint8_t>((c.g * a + p[1] * (255 - a) + 127) / 255);
    p[2] = static_cast<uint8_t>((c.b * a + p[2] * (255 - a) + 127) / 255);
  }
  void fill(float x0, float y0, float x1, float y1, Rgba c) {
    const int i0 = std::max(cx0, static_cast<int>(std::lround(x0))),
              i1 = std::min(cx1, static_cast<int>(std::lround(x1)));
    const int j0 = std::max(cy0, static_cast<int>(std::lround(y0))),
              j1 = std::min(cy1, static_cast<int>(std::lround(y1)));
    for (int y = j0; y < j1; ++y)
      for (int x = i0; x < i1; ++x) set(x, y, c);
  }
  // Bresenham with a square brush of side w (a width-1 line is one pixel wide).
  void line(Vec2 a, Vec2 b, float width, Rgba c) {
    int x0 = static_cast<int>(std::floor(a.x)), y0 = static_cast<int>(std::floor(a.y));
    const int x1 = static_cast<int>(std::floor(b.x)), y1 = static_cast<int>(std::floor(b.y));
    const int w = std::max(1, static_cast<int>(std::lround(width))), off = (w - 1) / 2;
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    const int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (int guard = 0; guard < 1000000; ++guard) {
      for (int j = 0; j < w; ++j)
        for (int i = 0; i < w; ++i) set(x0 - off + i, y0 - off + j, c);
      if (x0 == x1 && y0 == y1) break;
      const int e2 = 2 * err;
      if (e2 >= dy) err += dy, x0 += sx;
      if (e2 <= dx) err += dx, y0 += sy;
    }
  }
  void text(Vec2 at, const std::string& s, Anchor an, int scale, Rgba c) {
    std::string t = s.substr(0, 300);
    const TextMetrics m = raster_metrics(scale);
    const float w = m.width(t), h = m.height;
    const int col = static_cast<int>(an) % 3, row = static_cast<int>(an) / 3;
    const int x = static_cast<int>(std::lround(at.x - w * 0.5f * col)),
              y = static_cast<int>(std::lround(at.y - h * 0.5f * row));
    static thread_local std::vector<char> buf(300 * 270);
    const int quads = stb_easy_font_print(0, 0, &t[0], nullptr, buf.data(), static_cast<int>(buf.size()));
    for (int q = 0; q < quads; ++q) {
      const float* v0 = reinterpret_cast<const float*>(buf.data() + q * 64);
      const float* v2 = reinterpret_cast<const float*>(buf.data() + q * 64 + 32);
      fill(x + v0[0] * scale, y + v0[1] * scale, x + v2[0] * scale, y + v2[1] * scale, c);
    }
  }
};

}  // namespace

TextMetrics raster_metrics(int scale) {
  TextMetrics m;
  m.width = [scale](const std::string& s) {
    std::string t = s.substr(0, 300);
    // stb_easy_font_width counts the spacing after the last glyph too.
    return t.empty() ? 0.0f : static_cast<float>((stb_easy_font_width(&t[0]) - 1) * scale);
  };
  m.height = 9.0f * scale;  // caps take 7 units from the top; descenders 2 more
  return m;
}

void paint(const std::vector<Prim>& prims, const Rect& plot, int text_scale, Raster* r) {
  Painter all{r, 0, 0, r->w, r->h};
  Painter inside{r, std::max(0, static_cast<int>(std::floor(plot.x0))),
                 std::max(0, static_cast<int>(std::floor(plot.y0))),
                 std::min(r->w, static_cast<int>(std::ceil(plot.x1)) + 1),
                 std::min(r->h, static_cast<int>(std::ceil(plot.y1)) + 1)};
  for (const Prim& p : prims) {
    Painter& d = p.clip ? inside : all;
    switch (p.kind) {
      case Prim::Kind::kLine:
      case Prim::Kind::kPolyline:
        for (std::size_t i = 1; i < p.pts.size(); ++i) d.line(p.pts[i - 1], p.pts[i], p.width, p.colour);
        break;
      case Prim::Kind::kRect:
        d.fill(p.pts[0].x, p.pts[0].y, p.pts[1].x, p.pts[1].y, p.colour);
        break;
      case Prim::Kind::kPoints:
        for (const Vec2& q : p.pts)
          d.fill(q.x - p.width / 2, q.y - p.width / 2, q.x + p.width / 2, q.y + p.width / 2, p.colour);
        break;
      case Prim::Kind::kText:
        d.text(p.pts[0], p.text, p.anchor, text_scale, p.colour);
        break;
    }
  }
}

Raster render(const Figure& f, int w, int h, int text_scale, Layout* out) {
  if (w < 200 || h < 200 || w > 8000 || h > 8000)
    throw std::invalid_argument("plot size must be within [200, 8000] pixels per side");
  Raster r{w, h, std::vector<uint8_t>(static_cast<std::size_t>(w) * h * 3, 255)};
  const Layout l = layout(f, Rect{0, 0, static_cast<float>(w), static_cast<float>(h)},
                          raster_metrics(text_scale), Theme::light());
  paint(l.prims, l.t.plot, text_scale, &r);
  if (out) *out = l;
  return r;
}

}  // namespace ds::app::plot
