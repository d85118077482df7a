// The Hénon periodic-orbit catalogue view (see henon_catalogue_view.h): henon::catalogue on a
// background job, drawn with the plotting layer.
#include "henon_catalogue_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/io/plot.h"
#include "kernels/henon/henon.h"
#include "kernels/henon/orbits.h"
#include "plot_imgui.h"

namespace ds::gui {

void HenonCatalogueView::draw_controls(const std::string& a, const std::string& b) {
  ImGui::TextWrapped("Every periodic orbit of least period up to N in the trapping region, each proven by an "
                     "interval Krawczyk test, with the count per period (docs/henon.md).");
  ImGui::SetNextItemWidth(120);
  ImGui::SliderInt("period up to", &period_max_, 1, 20);
  if (!job_.running()) {
    if (ImGui::Button("Run catalogue")) start(a, b);
    ImGui::SameLine();
    ImGui::TextDisabled("at a = %s, b = %s", a.c_str(), b.c_str());
  } else {
    if (ImGui::Button("Cancel##catalogue")) job_.cancel();
    ImGui::SameLine();
    job_progress_bar(job_, "orbits");
  }
  const std::string err = job_.error();
  if (!err.empty()) error_text(err);
}

bool HenonCatalogueView::set(const std::string& name, const std::string& value, std::string* error) {
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (name == "period-max" && !value.empty() && *end == 0 && v >= 1 && v <= 20) {
    period_max_ = static_cast<int>(v);
    return true;
  }
  *error = "the Henon catalogue's " + name + " cannot be \"" + value + "\" (period-max 1..20)";
  return false;
}

void HenonCatalogueView::start(const std::string& a, const std::string& b) {
  const int n = period_max_;
  show_lo_ = 1, show_hi_ = n;
  job_.start([this, a, b, n](JobControl& ctl) {
    henon::CatalogueParams p;
    p.a = a, p.b = b;
    p.period_max = n;
    p.cancel = &ctl.cancel;
    p.progress = [&ctl](double f) { ctl.progress = f; };
    const henon::CatalogueResult c = henon::catalogue(p);  // throws on bad input: the job reports it
    if (c.cancelled) return;
    auto r = std::make_shared<Result>();
    r->a = a, r->b = b, r->seconds = c.seconds;
    for (const henon::CertifiedOrbit& o : c.orbits) {
      Orbit d{o.period, {}, {}, o.stability == henon::Stability::kSink};
      for (size_t i = 0; i < o.x.size(); ++i) {
        d.x.push_back(0.5 * (o.x[i].lo + o.x[i].hi));
        d.y.push_back(0.5 * (o.y[i].lo + o.y[i].hi));
      }
      r->orbits.push_back(std::move(d));
    }
    for (const henon::PeriodCounts& k : c.counts) {
      r->count.push_back(k.orbits);
      r->undecided.push_back(k.undecided);
    }
    // The attractor as the backdrop: one orbit from (0, 0) after a transient.
    henon::OrbitParams op;
    op.map.a = a, op.map.b = b;
    op.n_transient = 1000;
    op.n_points = 20000;
    op.cancel = &ctl.cancel;
    const henon::OrbitResult at = henon::orbit(op);
    if (!at.escaped) r->ax = at.xs, r->ay = at.ys;
    std::lock_guard<std::mutex> lock(mutex_);
    shown_ = r;
  });
}

void HenonCatalogueView::draw_view() {
  std::shared_ptr<const Result> r;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    r = shown_;
  }
  if (!r) {
    ImGui::TextWrapped(
        "No catalogue yet: choose the largest period on the left (Periodic orbits) and Run. The orbits "
        "of (a, b) from the orbit view are found and proven in interval arithmetic, then drawn here "
        "over the attractor, coloured by period.");
    return;
  }
  const int nmax = static_cast<int>(r->count.size());
  long long total = 0, undecided = 0;
  for (int n = 0; n < nmax; ++n) total += r->count[static_cast<size_t>(n)], undecided += r->undecided[static_cast<size_t>(n)];
  ImGui::Text("a = %s, b = %s: %lld orbits of least period 1 to %d proven, %lld undecided box sequences, %.2f s",
              r->a.c_str(), r->b.c_str(), total, nmax, undecided, r->seconds);
  ImGui::SetNextItemWidth(240);
  ImGui::DragIntRange2("periods shown", &show_lo_, &show_hi_, 0.2f, 1, nmax);
  const float w = ImGui::GetContentRegionAvail().x, h = std::max(260.0f, ImGui::GetContentRegionAvail().y - 4);

  app::plot::Figure orbits;
  orbits.title = "periodic orbits over the attractor";
  orbits.x.label = "x";
  orbits.y.label = "y";
  orbits.legend_outside = true;
  if (!r->ax.empty())
    orbits.series.push_back({"attractor", r->ax, r->ay, app::plot::Rgba{110, 110, 110, 255}, app::plot::Style::kPoints, 1.0f});
  for (int n = std::max(1, show_lo_); n <= std::min(nmax, show_hi_); ++n) {
    app::plot::Series s{"period " + std::to_string(n), {}, {}, app::plot::palette(n - 1), app::plot::Style::kPoints, 4.0f};
    for (const Orbit& o : r->orbits)
      if (o.period == n) s.x.insert(s.x.end(), o.x.begin(), o.x.end()), s.y.insert(s.y.end(), o.y.begin(), o.y.end());
    if (!s.x.empty()) orbits.series.push_back(std::move(s));
  }
  draw_plot("##catalogue_orbits", orbits, w * 0.6f, h);
  ImGui::SameLine();

  app::plot::Figure counts;
  counts.title = "orbits per least period";
  counts.x.label = "period n";
  counts.y.label = "orbits (log scale)";
  counts.y.scale = app::plot::Scale::kLog10;
  app::plot::Series q{"proven here", {}, {}, app::plot::palette(0), app::plot::Style::kLine, 2.0f};
  app::plot::Series pts{"", {}, {}, app::plot::palette(0), app::plot::Style::kPoints, 5.0f};
  for (int n = 1; n <= nmax; ++n) {
    const double c = static_cast<double>(r->count[static_cast<size_t>(n - 1)]);
    q.x.push_back(n), q.y.push_back(c > 0 ? c : NAN);  // zero counts (periods 3 and 5) off the log axis
    pts.x.push_back(n), pts.y.push_back(c > 0 ? c : NAN);
  }
  counts.series.push_back(std::move(q));
  counts.series.push_back(std::move(pts));
  counts.x.lo = 0.5, counts.x.hi = nmax + 0.5;
  draw_plot("##catalogue_counts", counts, 0, h);
}

}  // namespace ds::gui
