// The Mandelbrot panel's feature finder: the minibrot, Misiurewicz point or period at the view's
// centre (buttons) or under the mouse (keys N, M, P), on a worker through the same library calls
// as `deepscope find` (kernels/perturb/finder.h), and the image's menu (right button held, or the
// Menu key) with the same three at the pixel. A minibrot or Misiurewicz point found becomes the
// view through an animated zoom (one history entry: Ctrl+Z goes back).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

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
  // (A minibrot's view already has mandel::auto_iterations_for_period's limit: minibrot_view.)
  if (take) start_zoom_animation(found);
  const std::string err = find_job_.error();
  if (!err.empty() && !find_job_.running()) {
    status = "find failed: " + err;
    failed = true;
  }
  if (!status.empty()) {  // (wrapped: a reason can be longer than the panel is wide)
    ImGui::PushStyleColor(ImGuiCol_Text, failed ? ImVec4(1.0f, 0.45f, 0.4f, 1.0f) : ImVec4(0.6f, 1.0f, 0.6f, 1.0f));
    ImGui::TextWrapped("%s", status.c_str());
    ImGui::PopStyleColor();
  }
  std::string hover;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    hover = hover_text_;
  }
  if (!hover.empty()) ImGui::TextDisabled("%s", hover.c_str());
}

// The image's menu at the pixel where the right button was held (or the pointer was at the Menu
// key): the three finds there, each through start_find.
void MandelbrotPanel::draw_image_menu() {
  if (menu_pending_) {
    ImGui::OpenPopup("image menu");
    menu_pending_ = false;
  }
  if (!ImGui::BeginPopup("image menu")) return;
  ImGui::TextDisabled("at pixel (%d, %d)", menu_px_, menu_py_);
  const bool idle = !find_job_.running();
  char label[96];
  std::snprintf(label, sizeof label, "Zoom to the minibrot here (fit %.2f)", find_fit_);
  if (ImGui::MenuItem(label, "N", false, idle)) start_find(FindKind::kMinibrot, true, menu_px_, menu_py_);
  if (ImGui::MenuItem("Find the period here", "P", false, idle))
    start_find(FindKind::kPeriod, true, menu_px_, menu_py_);
  if (ImGui::MenuItem("Zoom to the Misiurewicz point here", "M", false, idle))
    start_find(FindKind::kMisiurewicz, true, menu_px_, menu_py_);
  ImGui::EndPopup();
}

void MandelbrotPanel::start_find(FindKind kind, bool at_pixel, int px, int py) {
  if (formula_mode()) {  // the finder's periods, nuclei and Misiurewicz points are z^2 + c's
    std::lock_guard<std::mutex> lock(mutex_);
    find_status_ = "the finder works on the parameter plane of z^2 + c only, not on " + plane_label();
    find_failed_ = true;
    return;
  }
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
    std::string text;
    if (f.cancelled) {
      std::snprintf(line, sizeof line, "find stopped");
    } else if (!f.ok) {  // (the view stays: only a proven feature moves it, below)
      text = "not found: " + f.message;
    } else if (kind == FindKind::kPeriod) {
      std::snprintf(line, sizeof line, "period %u (ball of %.0f pixels, %.3f s)", f.period.period, o.radius_pixels,
                    f.period.seconds);
    } else if (kind == FindKind::kMinibrot) {
      std::snprintf(line, sizeof line, "minibrot of period %u: size %s, orientation %.3f rad, atom domain %s (%.3f s)",
                    f.nucleus.period, to_string(f.nucleus.size, 4).c_str(), f.nucleus.orientation,
                    fnd::atom_domain_text(f.nucleus.domain_size, 3).c_str(), f.nucleus.seconds);
    } else {
      std::snprintf(line, sizeof line, "Misiurewicz point: preperiod %d, period %d (%.3f s)", f.misiurewicz.preperiod,
                    f.misiurewicz.period, f.misiurewicz.seconds);
    }
    if (text.empty()) text = line;
    if (f.ok && !f.note.empty()) text += " (" + f.note + ")";
    std::lock_guard<std::mutex> lock(mutex_);
    find_status_ = text;
    find_failed_ = !f.ok && !f.cancelled;
    if (f.ok && kind == FindKind::kMinibrot) {
      found_.valid = true;
      found_.re = f.nucleus.re;
      found_.im = f.nucleus.im;
      found_.log2_size = f.nucleus.size.e + std::log2(std::fabs(f.nucleus.size.m));
      // No atom domain (period 1): no circle (panel_mandelbrot_zoom.cpp draws none at -inf).
      const std::optional<FloatExp>& d = f.nucleus.domain_size;
      found_.log2_domain = d ? d->e + std::log2(std::fabs(d->m)) : -INFINITY;
      found_.orientation = f.nucleus.orientation;
      found_.period = f.nucleus.period;
    }
    if (f.ok && kind == FindKind::kMisiurewicz) {
      found_misiurewicz_.valid = true;
      found_misiurewicz_.re = f.misiurewicz.re;
      found_misiurewicz_.im = f.misiurewicz.im;
      found_misiurewicz_.preperiod = f.misiurewicz.preperiod;
      found_misiurewicz_.period = f.misiurewicz.period;
    }
    if (f.ok && kind != FindKind::kPeriod) {
      find_view_ = f.view;
      find_ready_ = true;
    }
  });
}

}  // namespace ds::gui
