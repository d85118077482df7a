// The Mandelbrot panel's animated zoom to a found feature (coarse views interpolated in log zoom
// and screen place by mandel::zoom_path, then the target in full), the period under the resting
// mouse (the ball method on a background job, its answer drawn at the pointer), the overlay (the
// last minibrot's atom domain and size, the last Misiurewicz point), and auto iterations
// (kernels/mandelbrot/auto_iter.h).
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kernels/mandelbrot/auto_iter.h"
#include "kernels/mandelbrot/navigate.h"
#include "kernels/perturb/finder.h"
#include "panel_mandelbrot.h"

namespace ds::gui {

namespace {
constexpr int kAnimationFrames = 12;
constexpr double kAnimationSeconds = 1.0;
constexpr double kHoverRestSeconds = 0.3;
}  // namespace

// The views from the current one to the target, each shown coarse; any navigation (set_view from
// anywhere but step_zoom_animation) stops it. A target too far to interpolate is jumped to.
void MandelbrotPanel::start_zoom_animation(const View& target) {
  View to = target;
  to.width = view_.width;
  to.height = view_.height;
  std::vector<View> path;
  try {
    path = mandel::zoom_path(view_, to, kAnimationFrames);
  } catch (const std::exception&) {
    path = {to};
  }
  set_view(to);  // the history records the target, not the frames in between
  anim_ = std::move(path);
  anim_pos_ = 0;
  if (anim_.size() <= 1) return;
  set_view(anim_[0], false);
  animating_ = true;  // after set_view, which stops animations
  coarse_only_ = true;
  anim_shown_at_ = ImGui::GetTime();
}

// The next view once the current one's coarse pass is on screen or its time slot is over (a slow
// coarse pass drops frames rather than stretching the second).
void MandelbrotPanel::step_zoom_animation() {
  if (!animating_) return;
  const double slot = kAnimationSeconds / static_cast<double>(anim_.size());
  const bool shown = shown_.generation == generation_;
  const double now = ImGui::GetTime();
  if (now - anim_shown_at_ < slot || (!shown && now - anim_shown_at_ < 2 * slot)) return;
  anim_pos_ = std::min(anim_.size() - 1,
                       anim_pos_ + std::max<size_t>(1, static_cast<size_t>((now - anim_shown_at_) / slot)));
  const bool last = anim_pos_ + 1 >= anim_.size();
  set_view(anim_[anim_pos_], false);
  animating_ = !last;
  coarse_only_ = !last;
  anim_shown_at_ = now;
}

// The period at the pointer's pixel once it has rested kHoverRestSeconds; moving cancels.
void MandelbrotPanel::hover_period(bool hovered, int px, int py) {
  const double now = ImGui::GetTime();
  if (!hovered || px != hover_px_ || py != hover_py_) {
    if (hover_job_.running()) hover_job_.cancel();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      hover_found_.valid = false;  // the answer belonged to the pixel the pointer left
    }
    hover_px_ = hovered ? px : -1;
    hover_py_ = hovered ? py : -1;
    hover_since_ = now;
    hover_started_ = false;
    return;
  }
  if (hover_started_ || now - hover_since_ < kHoverRestSeconds || find_job_.running() || animating_) return;
  hover_started_ = true;
  perturb::finder::FindOptions o;
  o.at_pixel = true;
  o.px = std::max(0, std::min(px, view_.width - 1));
  o.py = std::max(0, std::min(py, view_.height - 1));
  o.radius_pixels = find_radius_;
  const View v = view_;
  hover_job_.start([this, v, o](JobControl& ctl) mutable {
    o.cancel = &ctl.cancel;
    const perturb::finder::FoundView f = perturb::finder::period_at(v, o);
    if (f.cancelled) return;
    char line[160];
    if (f.ok)
      std::snprintf(line, sizeof line, "under the mouse (%d, %d): period %u", o.px, o.py, f.period.period);
    else
      std::snprintf(line, sizeof line, "under the mouse (%d, %d): no period up to %llu", o.px, o.py,
                    static_cast<unsigned long long>(v.max_iter));
    std::lock_guard<std::mutex> lock(mutex_);
    hover_text_ = line;
    hover_found_.valid = true;
    hover_found_.found = f.ok;
    hover_found_.px = o.px;
    hover_found_.py = o.py;
    hover_found_.period = f.ok ? f.period.period : 0;
    hover_found_.radius_pixels = static_cast<float>(o.radius_pixels);
  });
}

// What the finder found, on the image (none while a zoom animates):
// - the last minibrot: its atom domain (circle of radius domain_size) and its size (circle of
//   diameter 1.5 |size|, the cardioid's extent, with a tick towards arg(size)), each only when it
//   is more than a few pixels and less than ~100 images across, and its period;
// - the last Misiurewicz point: a magenta diamond and "M preperiod,period", wherever it is in view;
// - the period under the resting mouse: the ball (at least 6 pixels across) and its period, or
//   "no period", at the pointer, until the pointer moves.
void MandelbrotPanel::draw_overlay(ImVec2 origin, ImVec2 size) {
  if (formula_mode()) return;  // the marks are z^2 + c's parameter plane's
  FoundMinibrot m;
  FoundMisiurewicz mz;
  HoverFound h;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    m = found_;
    mz = found_misiurewicz_;
    h = hover_found_;
  }
  if (animating_ || (!m.valid && !mz.valid && !h.valid)) return;
  mandel::Geometry g;
  try {
    g = mandel::geometry(view_);
  } catch (const std::exception&) {
    return;
  }
  const float sx = size.x / static_cast<float>(view_.width), sy = size.y / static_cast<float>(view_.height);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
  // A label on a dark box, legible over any colouring.
  const auto label = [&](ImVec2 at, ImU32 colour, const char* text) {
    const ImVec2 t = ImGui::CalcTextSize(text);
    dl->AddRectFilled(ImVec2(at.x - 2, at.y - 1), ImVec2(at.x + t.x + 2, at.y + t.y + 1),
                      IM_COL32(0, 0, 0, 160));
    dl->AddText(at, colour, text);
  };
  double x = 0, y = 0;
  if (m.valid && mandel::pixel_of(view_, m.re, m.im, &x, &y)) {
    const ImVec2 c(origin.x + static_cast<float>(x) * sx, origin.y + static_cast<float>(y) * sy);
    const double limit = 100.0 * std::max(view_.width, view_.height);
    const double domain_px = std::exp2(m.log2_domain - g.log2_step);
    if (domain_px > 4 && domain_px < limit) {
      dl->AddCircle(c, static_cast<float>(domain_px) * sx, IM_COL32(255, 220, 60, 230), 0, 2.0f);
    }
    const double size_px = 0.75 * std::exp2(m.log2_size - g.log2_step);
    if (size_px > 4 && size_px < limit) {
      dl->AddCircle(c, static_cast<float>(size_px) * sx, IM_COL32(80, 255, 255, 230), 0, 2.0f);
      const ImVec2 tip(c.x + static_cast<float>(size_px * std::cos(m.orientation)) * sx,
                       c.y - static_cast<float>(size_px * std::sin(m.orientation)) * sy);
      dl->AddLine(c, tip, IM_COL32(80, 255, 255, 230), 2.0f);
    }
    if (domain_px > 4 || size_px > 4) {
      // Above the nucleus: after "zoom to the minibrot" the pointer rests there, and the period
      // under the pointer is labelled below it.
      char text[48];
      std::snprintf(text, sizeof text, "period %u", m.period);
      label(ImVec2(c.x + 4, c.y - 4 - ImGui::GetTextLineHeight()), IM_COL32(255, 255, 255, 230), text);
    }
  }
  if (mz.valid && mandel::pixel_of(view_, mz.re, mz.im, &x, &y) && x >= 0 && y >= 0 && x <= view_.width &&
      y <= view_.height) {
    const ImVec2 c(origin.x + static_cast<float>(x) * sx, origin.y + static_cast<float>(y) * sy);
    const float r = 7.0f;
    const ImU32 magenta = IM_COL32(255, 70, 255, 240);
    dl->AddQuad(ImVec2(c.x, c.y - r), ImVec2(c.x + r, c.y), ImVec2(c.x, c.y + r), ImVec2(c.x - r, c.y),
                magenta, 2.0f);
    char text[48];
    std::snprintf(text, sizeof text, "M %d,%d", mz.preperiod, mz.period);
    label(ImVec2(c.x + r + 3, c.y - r - 14), magenta, text);
  }
  if (h.valid && h.px == hover_px_ && h.py == hover_py_) {
    const ImVec2 c(origin.x + (static_cast<float>(h.px) + 0.5f) * sx,
                   origin.y + (static_cast<float>(h.py) + 0.5f) * sy);
    const float r = std::max(3.0f, h.radius_pixels * sx);
    dl->AddCircle(c, r, IM_COL32(255, 255, 255, 230), 0, 1.5f);
    char text[48];
    if (h.found)
      std::snprintf(text, sizeof text, "period %u", h.period);
    else
      std::snprintf(text, sizeof text, "no period");
    label(ImVec2(c.x + r + 6, c.y + r + 4), IM_COL32(255, 255, 255, 240), text);
  }
  dl->PopClipRect();
}

// A finished render said the limit is too low (auto_iterations_after_render, on the worker):
// render again with the raised limit.
void MandelbrotPanel::apply_auto_iterations() {
  uint64_t next = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::swap(next, auto_iter_next_);
  }
  if (!auto_iter_ || next == 0 || next <= view_.max_iter || animating_) return;
  view_.max_iter = next;
  dirty_ = true;
}

}  // namespace ds::gui
