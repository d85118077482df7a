// The Mandelbrot panel's feature finder: the minibrot, Misiurewicz point or period at the view's
// centre (buttons) or under the mouse (keys N, M, P), on a worker through the same library calls
// as `deepscope find` (kernels/perturb/finder.h). A minibrot or Misiurewicz point found becomes the
// view (one history entry: Ctrl+Z goes back).
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "kernels/perturb/finder.h"
#include "panel_mandelbrot.h"

namespace ds::gui {

void MandelbrotPanel::draw_find() {
  ImGui::Separator();
  ImGui::TextUnformatted("Find");
  ImGui::SameLine();
  ImGui::TextDisabled("(N, M, P: under the mouse)");
  const bool idle = !find_job_.running();
  ImGui::BeginDisabled(!idle);
  if (ImGui::Button("Minibrot")) start_find(FindKind::kMinibrot, false, 0, 0);
  ImGui::SameLine();
  if (ImGui::Button("Misiurewicz")) start_find(FindKind::kMisiurewicz, false, 0, 0);
  ImGui::SameLine();
  if (ImGui::Button("Period")) start_find(FindKind::kPeriod, false, 0, 0);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("at the view's centre");
  ImGui::SetNextItemWidth(120 * ImGui::GetIO().FontGlobalScale);
  ImGui::SliderFloat("fit", &find_fit_, 0.05f, 1.0f, "%.2f");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the minibrot's extent over the view's height");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90 * ImGui::GetIO().FontGlobalScale);
  ImGui::InputFloat("radius px", &find_radius_, 1.0f, 4.0f, "%.0f");
  find_radius_ = std::max(0.5f, std::min(find_radius_, 100000.0f));
  if (find_job_.running()) {
    ImGui::TextUnformatted("finding ...");
    ImGui::SameLine();
    if (ImGui::Button("Stop##find")) find_job_.cancel();
  }
  // A finished search: its view becomes the panel's (on this thread, in the frame loop).
  std::string status;
  bool failed = false;
  View found;
  bool take = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status = find_status_;
    failed = find_failed_;
    if (find_ready_) {
      take = true;
      found = find_view_;
      find_ready_ = false;
    }
  }
  if (take) set_view(found);
  const std::string err = find_job_.error();
  if (!err.empty() && !find_job_.running()) {
    status = "find failed: " + err;
    failed = true;
  }
  if (!status.empty())
    ImGui::TextColored(failed ? ImVec4(1.0f, 0.45f, 0.4f, 1.0f) : ImVec4(0.6f, 1.0f, 0.6f, 1.0f), "%s",
                       status.c_str());
}

void MandelbrotPanel::start_find(FindKind kind, bool at_pixel, int px, int py) {
  perturb::finder::FindOptions o;
  o.at_pixel = at_pixel;
  o.px = std::max(0, std::min(px, view_.width - 1));
  o.py = std::max(0, std::min(py, view_.height - 1));
  o.radius_pixels = find_radius_;
  o.fit = find_fit_;
  const View v = view_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    find_status_ = kind == FindKind::kPeriod ? "finding the period ..." : "finding ...";
    find_failed_ = false;
    find_ready_ = false;
  }
  find_job_.start([this, kind, v, o](JobControl& ctl) mutable {
    o.cancel = &ctl.cancel;
    namespace fnd = perturb::finder;
    const fnd::FoundView f = kind == FindKind::kMinibrot      ? fnd::minibrot_view(v, o)
                             : kind == FindKind::kMisiurewicz ? fnd::misiurewicz_view(v, o)
                                                              : fnd::period_at(v, o);
    char line[512];
    if (f.cancelled) {
      std::snprintf(line, sizeof line, "find stopped");
    } else if (!f.ok) {
      std::snprintf(line, sizeof line, "%s", f.message.c_str());
    } else if (kind == FindKind::kPeriod) {
      std::snprintf(line, sizeof line, "period %u (ball of %.0f pixels, %.3f s)", f.period.period, o.radius_pixels,
                    f.period.seconds);
    } else if (kind == FindKind::kMinibrot) {
      std::snprintf(line, sizeof line, "minibrot of period %u: size %s, orientation %.3f rad, atom domain %s (%.3f s)",
                    f.nucleus.period, to_string(f.nucleus.size, 4).c_str(), f.nucleus.orientation,
                    to_string(f.nucleus.domain_size, 3).c_str(), f.nucleus.seconds);
    } else {
      std::snprintf(line, sizeof line, "Misiurewicz point: preperiod %d, period %d (%.3f s)", f.misiurewicz.preperiod,
                    f.misiurewicz.period, f.misiurewicz.seconds);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    find_status_ = line;
    find_failed_ = !f.ok && !f.cancelled;
    if (f.ok && kind != FindKind::kPeriod) {
      find_view_ = f.view;
      find_ready_ = true;
    }
  });
}

}  // namespace ds::gui
