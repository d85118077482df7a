// ImGui backend of the plotting layer (see plot_imgui.h): the layout's primitives as draw-list
// lines, polylines, rectangles and text, clipped like the raster backend clips them.
#include "plot_imgui.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace ds::gui {
namespace {

using app::plot::Prim;

ImU32 col(app::plot::Rgba c) { return IM_COL32(c.r, c.g, c.b, c.a); }

void paint(const std::vector<Prim>& prims, const app::plot::Rect& plot, ImDrawList* dl) {
  std::vector<ImVec2> pts;
  for (const Prim& p : prims) {
    if (p.clip) dl->PushClipRect(ImVec2(plot.x0, plot.y0), ImVec2(plot.x1 + 1, plot.y1 + 1), true);
    switch (p.kind) {
      case Prim::Kind::kLine:
        // AddLine puts whole-pixel ends on pixel centres itself (+0.5), as the raster backend does.
        dl->AddLine(ImVec2(p.pts[0].x, p.pts[0].y), ImVec2(p.pts[1].x, p.pts[1].y), col(p.colour), p.width);
        break;
      case Prim::Kind::kPolyline:
        pts.clear();
        for (const auto& q : p.pts) pts.emplace_back(q.x, q.y);
        dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), col(p.colour), 0, p.width);
        break;
      case Prim::Kind::kRect:
        dl->AddRectFilled(ImVec2(p.pts[0].x, p.pts[0].y), ImVec2(p.pts[1].x, p.pts[1].y), col(p.colour));
        break;
      case Prim::Kind::kPoints: {
        const float h = p.width / 2;
        for (const auto& q : p.pts)
          dl->AddRectFilled(ImVec2(q.x - h, q.y - h), ImVec2(q.x + h, q.y + h), col(p.colour));
        break;
      }
      case Prim::Kind::kText: {
        const ImVec2 sz = ImGui::CalcTextSize(p.text.c_str());
        const int c = static_cast<int>(p.anchor) % 3, r = static_cast<int>(p.anchor) / 3;
        dl->AddText(ImVec2(p.pts[0].x - sz.x * 0.5f * c, p.pts[0].y - sz.y * 0.5f * r), col(p.colour),
                    p.text.c_str());
        break;
      }
    }
    if (p.clip) dl->PopClipRect();
  }
}

}  // namespace

app::plot::Layout plot_layout(const app::plot::Figure& f, float x0, float y0, float x1, float y1) {
  app::plot::TextMetrics m;
  m.width = [](const std::string& s) { return ImGui::CalcTextSize(s.c_str()).x; };
  m.height = ImGui::GetTextLineHeight();
  return app::plot::layout(f, {x0, y0, x1, y1}, m, app::plot::Theme::dark());
}

app::plot::Layout draw_plot(const char* id, const app::plot::Figure& f, float width, float height,
                            const std::function<void(const app::plot::Layout&, ImDrawList*)>& underlay) {
  if (width <= 0) width = std::max(50.0f, ImGui::GetContentRegionAvail().x);
  ImGui::InvisibleButton(id, ImVec2(width, height));
  const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
  const app::plot::Layout l = plot_layout(f, a.x, a.y, b.x, b.y);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (underlay && !l.prims.empty()) {
    // The first primitive is the background.
    paint({l.prims.front()}, l.t.plot, dl);
    underlay(l, dl);
    paint(std::vector<Prim>(l.prims.begin() + 1, l.prims.end()), l.t.plot, dl);
  } else {
    paint(l.prims, l.t.plot, dl);
  }
  if (ImGui::IsItemHovered()) {
    // The read-out names the axes by their labels up to a " (" ("time (ps)": "time"), else x and y.
    auto name = [](const std::string& label, const char* fallback) {
      const std::string n = label.substr(0, label.find(" ("));
      return n.empty() ? std::string(fallback) : n;
    };
    const std::string xn = name(f.x.label, "x"), yn = name(f.y.label, "y");
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const app::plot::Nearest n = app::plot::nearest(f, l, {mouse.x, mouse.y}, 16);
    if (n.series >= 0) {
      const app::plot::Series& s = f.series[static_cast<std::size_t>(n.series)];
      dl->AddCircle(ImVec2(n.px.x, n.px.y), 5, IM_COL32(255, 255, 255, 255), 12, 1.5f);
      ImGui::SetTooltip("%s%s%s = %.6g\n%s = %.6g", s.name.c_str(), s.name.empty() ? "" : "\n", xn.c_str(), n.x,
                        yn.c_str(), n.y);
    } else if (l.t.plot.contains({mouse.x, mouse.y})) {
      ImGui::SetTooltip("%s = %.6g\n%s = %.6g", xn.c_str(), l.t.x_at(mouse.x), yn.c_str(), l.t.y_at(mouse.y));
    }
  }
  return l;
}

void error_text(const std::string& message) {
  if (message.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.4f, 0.4f, 1));
  ImGui::TextWrapped("%s", message.c_str());
  ImGui::PopStyleColor();
}

}  // namespace ds::gui
