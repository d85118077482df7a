// The Hénon bifurcation diagram (see henon_bifurcation_view.h): one henon::orbit per column of a,
// from (0, 0), its points after the transient plotted as (a, x) with the plotting layer.
#include "henon_bifurcation_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/io/plot.h"
#include "kernels/henon/henon.h"
#include "plot_imgui.h"

namespace ds::gui {

HenonBifurcationView::HenonBifurcationView() {
  std::snprintf(a_lo_, kBuf, "1.0");
  std::snprintf(a_hi_, kBuf, "1.43");
  std::snprintf(b_, kBuf, "0.3");
}

void HenonBifurcationView::draw_controls(const std::string& b) {
  if (!b_set_) std::snprintf(b_, kBuf, "%s", b.c_str()), b_set_ = true;
  ImGui::SetNextItemWidth(120);
  ImGui::InputText("a from", a_lo_, kBuf);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(120);
  ImGui::InputText("to##a", a_hi_, kBuf);
  ImGui::SetNextItemWidth(120);
  ImGui::InputText("b (fixed)", b_, kBuf);
  ImGui::SetNextItemWidth(120);
  ImGui::InputInt("a values", &columns_, 100, 1000);
  ImGui::SetNextItemWidth(120);
  ImGui::InputInt("transient steps", &transient_, 100, 1000);
  ImGui::SetNextItemWidth(120);
  ImGui::InputInt("points per a", &points_, 50, 500);
  columns_ = std::clamp(columns_, 2, 20000);
  transient_ = std::clamp(transient_, 0, 10'000'000);
  points_ = std::clamp(points_, 1, 100000);
  if (!job_.running()) {
    if (ImGui::Button("Run bifurcation diagram")) start();
  } else {
    if (ImGui::Button("Cancel##bif")) job_.cancel();
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(job_.progress()), ImVec2(-1, 0));
  }
  const std::string err = job_.error();
  if (!err.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", err.c_str());
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
}

bool HenonBifurcationView::set(const std::string& name, const std::string& value, std::string* error) {
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  const bool whole = !value.empty() && *end == 0;
  if ((name == "a-from" || name == "a-to" || name == "b") && !value.empty() && value.size() < kBuf) {
    std::snprintf(name == "a-from" ? a_lo_ : name == "a-to" ? a_hi_ : b_, kBuf, "%s", value.c_str());
    if (name == "b") b_set_ = true;
  } else if (name == "columns" && whole && v >= 2 && v <= 20000) {
    columns_ = static_cast<int>(v);
  } else if (name == "transient" && whole && v >= 0 && v <= 10'000'000) {
    transient_ = static_cast<int>(v);
  } else if (name == "points" && whole && v >= 1 && v <= 100000) {
    points_ = static_cast<int>(v);
  } else {
    *error = "the Henon bifurcation diagram's " + name + " cannot be \"" + value +
             "\" (a-from, a-to, b, columns 2..20000, transient, points 1..100000)";
    return false;
  }
  return true;
}

void HenonBifurcationView::start() {
  error_.clear();
  char* end = nullptr;
  const double lo = std::strtod(a_lo_, &end);
  const bool lo_ok = end != a_lo_ && *end == 0;
  const double hi = std::strtod(a_hi_, &end);
  if (!lo_ok || end == a_hi_ || *end != 0 || !(lo < hi)) {
    error_ = "a from and to are numbers with from < to";
    return;
  }
  const std::string b = b_;
  const int n = columns_, nt = transient_, np = points_;
  job_.start([this, lo, hi, b, n, nt, np](JobControl& ctl) {
    auto r = std::make_shared<Result>();
    r->b = b, r->a_lo = lo, r->a_hi = hi;
    for (int i = 0; i < n && !ctl.cancel; ++i) {
      const double a = lo + (hi - lo) * i / (n - 1);
      henon::OrbitParams p;
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", a);
      p.map.a = buf;
      p.map.b = b;
      p.n_transient = nt;
      p.n_points = np;
      p.cancel = &ctl.cancel;
      const henon::OrbitResult o = henon::orbit(p);  // throws on a bad b: the job reports it
      ++r->columns;
      if (o.escaped) ++r->escaped;
      for (double x : o.xs) r->a.push_back(a), r->x.push_back(x);
      ctl.progress = static_cast<double>(i + 1) / n;
      if ((i + 1) % 64 == 0 || i + 1 == n) {
        auto copy = std::make_shared<Result>(*r);
        copy->done = i + 1 == n;
        std::lock_guard<std::mutex> lock(mutex_);
        shown_ = copy;
      }
    }
  });
}

bool HenonBifurcationView::draw_view(double current_a, std::string* a, std::string* b) {
  std::shared_ptr<const Result> r;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    r = shown_;
  }
  if (!r) {
    ImGui::TextWrapped(
        "No diagram yet: choose the range of a and the fixed b on the left (Bifurcation diagram), "
        "then Run. Each a's orbit starts at (0, 0); its points after the transient are drawn.");
    return false;
  }
  ImGui::Text("%lld of the a values computed, %lld escaped (not drawn). Click opens that a's orbit.",
              static_cast<long long>(r->columns), static_cast<long long>(r->escaped));
  app::plot::Figure f;
  f.title = "bifurcation diagram of the Henon map, b = " + r->b;
  f.x.label = "a";
  f.y.label = "x (points of the attractor after the transient)";
  f.x.lo = r->a_lo, f.x.hi = r->a_hi;
  app::plot::Series s{"", r->a, r->x, app::plot::Rgba{150, 200, 255, 200}, app::plot::Style::kPoints, 1.5f};
  f.series.push_back(std::move(s));
  const bool marked = current_a >= r->a_lo && current_a <= r->a_hi;
  if (marked) {
    double lo = 0, hi = 0;
    if (app::plot::data_range(f.series, false, app::plot::Scale::kLinear, &lo, &hi)) {
      const double pad = 0.05 * (hi - lo);
      f.series.push_back(
          {"current a (orbit view)", {current_a, current_a}, {lo - pad, hi + pad}, app::plot::palette(1)});
      f.y.lo = lo - pad, f.y.hi = hi + pad;
    }
  }
  const float h = std::max(200.0f, ImGui::GetContentRegionAvail().y - 4);
  const app::plot::Layout l = draw_plot("##bifurcation", f, 0, h);
  if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (l.t.plot.contains({m.x, m.y})) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.9g", l.t.x_at(m.x));
      *a = buf;
      *b = r->b;
      return true;
    }
  }
  return false;
}

}  // namespace ds::gui
