// The Hénon bifurcation diagram (see henon_bifurcation_view.h): one henon::orbit per column of a
// (or b), from (0, 0), its points after the transient plotted as (a, x) (or (b, x)) with the
// plotting layer.
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
  std::snprintf(b_lo_, kBuf, "0.0");
  std::snprintf(b_hi_, kBuf, "0.3");
  std::snprintf(a_, kBuf, "1.4");
}

void HenonBifurcationView::draw_controls(const std::string& a, const std::string& b) {
  if (!b_set_) std::snprintf(b_, kBuf, "%s", b.c_str()), b_set_ = true;
  if (!a_set_) std::snprintf(a_, kBuf, "%s", a.c_str()), a_set_ = true;
  ImGui::RadioButton("over a", &over_b_, 0);
  ImGui::SameLine();
  ImGui::RadioButton("over b", &over_b_, 1);
  const bool ob = over_b_ != 0;
  ImGui::SetNextItemWidth(120);
  ImGui::InputText(ob ? "b from" : "a from", ob ? b_lo_ : a_lo_, kBuf);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(120);
  ImGui::InputText(ob ? "to##b" : "to##a", ob ? b_hi_ : a_hi_, kBuf);
  ImGui::SetNextItemWidth(120);
  ImGui::InputText(ob ? "a (fixed)" : "b (fixed)", ob ? a_ : b_, kBuf);
  ImGui::SetNextItemWidth(120);
  ImGui::InputInt(ob ? "b values" : "a values", &columns_, 100, 1000);
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
    job_progress_bar(job_, "diagram");
  }
  const std::string err = job_.error();
  if (!err.empty()) error_text(err);
  if (!error_.empty()) error_text(error_);
}

bool HenonBifurcationView::set(const std::string& name, const std::string& value, std::string* error) {
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  const bool whole = !value.empty() && *end == 0;
  char* field = name == "a-from" ? a_lo_ : name == "a-to" ? a_hi_ : name == "b" ? b_
              : name == "b-from" ? b_lo_ : name == "b-to" ? b_hi_ : name == "a" ? a_ : nullptr;
  if (field && !value.empty() && value.size() < kBuf) {
    std::snprintf(field, kBuf, "%s", value.c_str());
    if (name == "b") b_set_ = true;
    if (name == "a") a_set_ = true;
  } else if (name == "over" && (value == "a" || value == "b")) {
    over_b_ = value == "b";
  } else if (name == "columns" && whole && v >= 2 && v <= 20000) {
    columns_ = static_cast<int>(v);
  } else if (name == "transient" && whole && v >= 0 && v <= 10'000'000) {
    transient_ = static_cast<int>(v);
  } else if (name == "points" && whole && v >= 1 && v <= 100000) {
    points_ = static_cast<int>(v);
  } else {
    *error = "the Henon bifurcation diagram's " + name + " cannot be \"" + value +
             "\" (over a|b, a-from, a-to, b, b-from, b-to, a, columns 2..20000, transient, points 1..100000)";
    return false;
  }
  return true;
}

void HenonBifurcationView::start() {
  error_.clear();
  const bool over_b = over_b_ != 0;
  const char *lo_text = over_b ? b_lo_ : a_lo_, *hi_text = over_b ? b_hi_ : a_hi_;
  char* end = nullptr;
  const double lo = std::strtod(lo_text, &end);
  const bool lo_ok = end != lo_text && *end == 0;
  const double hi = std::strtod(hi_text, &end);
  if (!lo_ok || end == hi_text || *end != 0 || !(lo < hi)) {
    error_ = std::string(over_b ? "b" : "a") + " from and to are numbers with from < to";
    return;
  }
  const std::string fixed = over_b ? a_ : b_;
  const int n = columns_, nt = transient_, np = points_;
  job_.start([this, lo, hi, fixed, over_b, n, nt, np](JobControl& ctl) {
    auto r = std::make_shared<Result>();
    r->fixed = fixed, r->over_b = over_b, r->lo = lo, r->hi = hi;
    for (int i = 0; i < n && !ctl.cancel; ++i) {
      const double v = lo + (hi - lo) * i / (n - 1);
      henon::OrbitParams p;
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      p.map.a = over_b ? fixed : std::string(buf);
      p.map.b = over_b ? std::string(buf) : fixed;
      p.n_transient = nt;
      p.n_points = np;
      p.cancel = &ctl.cancel;
      const henon::OrbitResult o = henon::orbit(p);  // throws on a bad fixed value: the job reports it
      ++r->columns;
      if (o.escaped) ++r->escaped;
      for (double x : o.xs) r->p.push_back(v), r->x.push_back(x);
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

bool HenonBifurcationView::draw_view(double current_a, double current_b, std::string* a, std::string* b) {
  std::shared_ptr<const Result> r;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    r = shown_;
  }
  if (!r) {
    ImGui::TextWrapped(
        "No diagram yet: choose over a or over b, the range and the fixed parameter on the left "
        "(Bifurcation diagram), then Run. Each orbit starts at (0, 0); its points after the "
        "transient are drawn.");
    return false;
  }
  const char* swept = r->over_b ? "b" : "a";
  ImGui::Text("%lld of the %s values computed, %lld escaped (not drawn). Click opens that %s's orbit.",
              static_cast<long long>(r->columns), swept, static_cast<long long>(r->escaped), swept);
  app::plot::Figure f;
  f.title = std::string("bifurcation diagram of the Henon map over ") + swept + ", " + (r->over_b ? "a" : "b") +
            " = " + r->fixed;
  f.x.label = swept;
  f.y.label = "x (points of the attractor after the transient)";
  f.x.lo = r->lo, f.x.hi = r->hi;
  app::plot::Series s{"", r->p, r->x, app::plot::Rgba{150, 200, 255, 200}, app::plot::Style::kPoints, 1.5f};
  f.series.push_back(std::move(s));
  const double current = r->over_b ? current_b : current_a;
  if (current >= r->lo && current <= r->hi) {
    double lo = 0, hi = 0;
    if (app::plot::data_range(f.series, false, app::plot::Scale::kLinear, &lo, &hi)) {
      const double pad = 0.05 * (hi - lo);
      f.series.push_back({std::string("current ") + swept + " (orbit view)", {current, current}, {lo - pad, hi + pad},
                          app::plot::palette(1)});
      f.y.lo = lo - pad, f.y.hi = hi + pad;
    }
  }
  const float h = std::max(200.0f, ImGui::GetContentRegionAvail().y - 4);
  const app::plot::Layout l = draw_plot("##bifurcation", f, 0, h);
  const app::plot::Rect& pr = l.t.plot;
  rect_ = ImageRect{pr.x0, pr.y0, pr.x1 - pr.x0, pr.y1 - pr.y0, static_cast<int>(pr.x1 - pr.x0),
                    static_cast<int>(pr.y1 - pr.y0)};
  drawn_ = true;
  if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (l.t.plot.contains({m.x, m.y})) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.9g", l.t.x_at(m.x));
      *a = r->over_b ? r->fixed : std::string(buf);
      *b = r->over_b ? std::string(buf) : r->fixed;
      return true;
    }
  }
  return false;
}

}  // namespace ds::gui
