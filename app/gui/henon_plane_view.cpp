// The Hénon parameter-plane view (see henon_plane_view.h): henon::plane on a background job, a
// coarse pass and then bands, the periods coloured with app/io/henon_png.h's palette and uploaded
// as one texture, and the Mandelbrot view's navigation over it.
#include "henon_plane_view.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "app/io/henon_png.h"
#include "app/io/plot.h"
#include "plot_imgui.h"

namespace ds::gui {

namespace {
void set_text(char* buf, std::size_t n, const std::string& s) { std::snprintf(buf, n, "%s", s.c_str()); }

// The same pixels: a frame of view a can stand for view b (its periods indexed by b's pixels).
bool same_pixels(const henon::PlaneView& a, const henon::PlaneView& b) {
  return a.centre_a == b.centre_a && a.centre_b == b.centre_b && a.width == b.width && a.width_px == b.width_px &&
         a.height_px == b.height_px;
}
}  // namespace

HenonPlaneView::HenonPlaneView() {
  set_text(centre_a_, kBuf, "0.75");
  set_text(centre_b_, kBuf, "0");
  set_text(width_, kBuf, "2.5");
  set_text(tol_, kBuf, "1e-10");
  view_ = view_from_fields();
}

henon::PlaneView HenonPlaneView::view_from_fields() const {
  henon::PlaneView v;
  v.arith = tab_arith_;
  v.centre_a = centre_a_;
  v.centre_b = centre_b_;
  v.width = width_;
  v.width_px = width_px_;
  v.height_px = height_px_;
  v.n_transient = n_transient_;
  v.p_max = p_max_;
  v.tol = tol_;
  v.backend = backend_ == 1   ? henon::Backend::kCpu
              : backend_ == 2 ? henon::Backend::kCuda
                              : henon::Backend::kAuto;
  return v;
}

void HenonPlaneView::fields_from_view(const henon::PlaneView& v) {
  set_text(centre_a_, kBuf, v.centre_a);
  set_text(centre_b_, kBuf, v.centre_b);
  set_text(width_, kBuf, v.width);
}

void HenonPlaneView::draw_controls(Arith arith) {
  tab_arith_ = arith;
  ImGui::PushID("plane");
  bool apply = false;
  const ImGuiInputTextFlags enter = ImGuiInputTextFlags_EnterReturnsTrue;
  ImGui::SetNextItemWidth(200);
  apply |= ImGui::InputText("centre a", centre_a_, kBuf, enter);
  ImGui::SetNextItemWidth(200);
  apply |= ImGui::InputText("centre b", centre_b_, kBuf, enter);
  ImGui::SetNextItemWidth(200);
  apply |= ImGui::InputText("width in a", width_, kBuf, enter);
  {
    char label[64];
    std::snprintf(label, sizeof label, "fit the panel (%d x %d)", fit_w_, fit_h_);
    if (ImGui::Checkbox(fit_w_ > 0 ? label : "fit the panel", &fit_panel_) && fit_panel_) apply |= fit_to_panel();
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("On: one image pixel per screen pixel over the whole view area, re-fitted when the\n"
                        "window's size changes (a coarse pass shows first). Off: the pixels typed below.");
  }
  ImGui::BeginDisabled(fit_panel_);
  ImGui::SetNextItemWidth(110);
  ImGui::DragInt("pixels W", &width_px_, 4.0f, 1, 4096);
  ImGui::SetNextItemWidth(110);
  ImGui::DragInt("pixels H", &height_px_, 4.0f, 1, 4096);
  ImGui::EndDisabled();
  width_px_ = std::clamp(width_px_, 1, 4096);
  height_px_ = std::clamp(height_px_, 1, 4096);
  const ImS64 zero = 0, nt_max = henon::kMaxTransient;
  ImGui::SetNextItemWidth(110);
  ImGui::DragScalar("plane transient", ImGuiDataType_S64, &n_transient_, 1000.0f, &zero, &nt_max, "%lld");
  ImGui::SetNextItemWidth(110);
  ImGui::DragInt("plane p_max", &p_max_, 4.0f, 1, henon::kMaxPeriod);
  ImGui::SetNextItemWidth(110);
  apply |= ImGui::InputText("plane tolerance", tol_, kBuf, enter);
  ImGui::SetNextItemWidth(110);
  ImGui::Combo("plane backend", &backend_, "auto\0cpu\0cuda\0");
  apply |= ImGui::Combo("plane colour", &colouring_, "period\0Lyapunov exponent\0");
  if (colouring_ == 1) {
    const ImS64 one = 1, most = henon::kMaxLyapunovSteps;
    ImGui::SetNextItemWidth(110);
    ImGui::DragScalar("exponent steps", ImGuiDataType_S64, &lyapunov_steps_, 1000.0f, &one, &most, "%lld");
    ImGui::SetNextItemWidth(110);
    if (ImGui::SliderFloat("colour scale", &lyapunov_scale_, 0.05f, 2.0f, "%.2f")) texture_stale_ = true;
  }
  ImGui::Checkbox("format auto by zoom", &auto_arith_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("On: the cheapest of f64 .. f64x8 that tells the pixels apart (the Mandelbrot rule).\n"
                      "Off: the format selected above.");
  ImGui::SetNextItemWidth(110);
  ImGui::SliderFloat("click zoom", &click_factor_, 1.5f, 16.0f, "%.1fx");
  if (job_.running()) {
    job_progress_bar(job_, "plane", -70);
    ImGui::SameLine();
    if (ImGui::Button("cancel")) job_.cancel();
  } else if (ImGui::Button("run plane")) {
    apply = true;
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(history_pos_ == 0);
  if (ImGui::Button("undo")) undo();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(history_pos_ + 1 >= history_.size());
  if (ImGui::Button("redo")) redo();
  ImGui::EndDisabled();
  if (apply) set_view(view_from_fields());
  const std::string err = job_.error();
  if (!message_.empty())
    error_text(message_);
  else if (!err.empty())
    error_text(err);
  ImGui::PopID();
}

void HenonPlaneView::set_view(const henon::PlaneView& in, bool record) {
  henon::PlaneView v = in;
  v.row_begin = v.row_end = 0;
  try {
    v.arith = auto_arith_ ? henon::plane_auto_arith(v) : tab_arith_;
    (void)henon::plane_scan_params(v);  // every check of the view before it replaces the shown one
  } catch (const std::exception& e) {
    message_ = e.what();
    return;
  }
  message_.clear();
  view_ = v;
  fields_from_view(v);
  if (record) {
    if (!history_.empty()) history_.resize(history_pos_ + 1);
    history_.push_back(v);
    history_pos_ = history_.size() - 1;
  }
  dirty_ = true;
}

void HenonPlaneView::undo() {
  if (history_pos_ == 0) return;
  --history_pos_;
  set_view(history_[history_pos_], false);
  u0_ = v0_ = 0;
  u1_ = v1_ = 1;
}

void HenonPlaneView::redo() {
  if (history_pos_ + 1 >= history_.size()) return;
  ++history_pos_;
  set_view(history_[history_pos_], false);
  u0_ = v0_ = 0;
  u1_ = v1_ = 1;
}

void HenonPlaneView::start() {
  dirty_ = false;
  started_ = true;
  const henon::PlaneView v = view_;
  const bool lyapunov = colouring_ == 1;
  const int64_t steps = lyapunov_steps_;
  job_.start([this, v, lyapunov, steps](JobControl& c) {
    const auto t0 = std::chrono::steady_clock::now();
    const int W = v.width_px, H = v.height_px;
    Frame f;
    f.view = v;
    f.lyapunov = lyapunov;
    f.period.assign(static_cast<std::size_t>(W) * H, 0);
    if (lyapunov) f.exponent.assign(static_cast<std::size_t>(W) * H, 0.0);
    auto publish = [&] {
      f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::lock_guard<std::mutex> lock(mutex_);
      pending_ = f;
      has_pending_ = true;
    };
    // A coarse pass (a quarter of the pixels each way, its own parameters) to show at once.
    if (W >= 32 && H >= 32) {
      c.set_stage("coarse pass");
      henon::PlaneView cv = v;
      cv.width_px = W / 4;
      cv.height_px = H / 4;
      cv.cancel = &c.cancel;
      henon::PlaneResult cr;
      henon::LyapunovResult cl;
      if (lyapunov) {
        cl = henon::plane_lyapunov(cv, steps);
        if (cl.cancelled) return;
      } else {
        cr = henon::plane(cv);
        if (cr.cancelled) return;
      }
      for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) {
          const std::size_t q = static_cast<std::size_t>(j * cv.height_px / H) * cv.width_px + i * cv.width_px / W;
          if (lyapunov)
            f.exponent[static_cast<std::size_t>(j) * W + i] = cl.exponent[q];
          else
            f.period[static_cast<std::size_t>(j) * W + i] = cr.period[q];
        }
      c.progress = 0.1;
      publish();
    }
    // Then the view itself in bands of rows, each with the whole view's parameters.
    c.set_stage(std::to_string(W) + " x " + std::to_string(H) + " pixels");
    const int band = std::max(16, H / 8);
    for (int j0 = 0; j0 < H; j0 += band) {
      henon::PlaneView bv = v;
      bv.row_begin = j0;
      bv.row_end = std::min(H, j0 + band);
      bv.cancel = &c.cancel;
      const int rows = bv.row_end - j0;
      bv.progress = [&c, j0, rows, H](double q) { c.progress = 0.1 + 0.9 * (j0 + q * rows) / H; };
      if (lyapunov) {
        const henon::LyapunovResult r = henon::plane_lyapunov(bv, steps);
        if (r.cancelled) return;
        std::copy(r.exponent.begin(), r.exponent.end(), f.exponent.begin() + static_cast<std::ptrdiff_t>(j0) * W);
        f.escaped += r.escaped;
      } else {
        const henon::PlaneResult r = henon::plane(bv);
        if (r.cancelled) return;
        std::copy(r.period.begin(), r.period.end(), f.period.begin() + static_cast<std::ptrdiff_t>(j0) * W);
        f.escaped += r.escaped;
        f.no_period += r.no_period;
        f.with_period += r.with_period;
        f.max_period = std::max(f.max_period, r.max_period);
      }
      f.rows_done = bv.row_end;
      publish();
    }
  });
}

void HenonPlaneView::track(double fx, double fy, double factor) {
  const float px = u0_ + static_cast<float>(fx) * (u1_ - u0_), py = v0_ + static_cast<float>(fy) * (v1_ - v0_);
  const float k = static_cast<float>(1.0 / factor);
  u0_ = px + (u0_ - px) * k;
  u1_ = px + (u1_ - px) * k;
  v0_ = py + (v0_ - py) * k;
  v1_ = py + (v1_ - py) * k;
}

bool HenonPlaneView::image_rect(ImageRect* r) const {
  if (!drawn_) return false;
  *r = rect_;
  return true;
}

bool HenonPlaneView::fit_to_panel() {
  if (fit_w_ <= 0) return false;
  fit_panel_ = true;
  width_px_ = fit_w_, height_px_ = fit_h_;
  return true;
}

void HenonPlaneView::follow_panel() {
  if (!fit_panel_ || fit_w_ <= 0 || dragged_) return;
  if (fit_w_ == view_.width_px && fit_h_ == view_.height_px) return;
  const double now = ImGui::GetTime();
  if (fit_w_ != fit_seen_w_ || fit_h_ != fit_seen_h_) {
    fit_seen_w_ = fit_w_, fit_seen_h_ = fit_h_;
    fit_seen_at_ = now;
  }
  // The first fit at once (nothing shown yet is worth keeping); later ones once the size settles.
  if (!shown_.period.empty() && now - fit_seen_at_ < 0.25) return;
  henon::PlaneView v = view_;
  v.width_px = width_px_ = fit_w_;
  v.height_px = height_px_ = fit_h_;
  set_view(v, false);
  if (!history_.empty()) history_[history_pos_] = view_;
}

void HenonPlaneView::open() {
  if (!started_ && history_.empty()) set_view(view_from_fields());
}

bool HenonPlaneView::draw_view(std::string* a, std::string* b, double current_a, double current_b) {
  open();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (has_pending_) {
      has_pending_ = false;
      // A frame of the view being computed; one of a view navigated away from is dropped.
      if (same_pixels(pending_.view, view_)) {
        shown_ = std::move(pending_);
        texture_stale_ = true;
        u0_ = v0_ = 0;
        u1_ = v1_ = 1;
      }
    }
  }
  if (shown_.period.empty()) {
    // Two lines, as the status below takes, so that the view area (and the fit) is the same.
    ImGui::Text("Computing the plane (the same computation as `deepscope henon plane`) ...");
    if (job_.running())
      job_progress_bar(job_, "plane", -1, ImGui::GetTextLineHeight());
    else
      ImGui::TextDisabled("Colours: a period each (the PNG's palette), black no period within p_max, white escape.");
    const app::plot::Figure fig = figure(view_.width_px, view_.height_px);
    measure_fit(fig);
    follow_panel();
    if (dirty_) start();
    drawn_ = false;
    return false;
  }
  const int SW = shown_.view.width_px, SH = shown_.view.height_px;
  if (texture_stale_) {
    texture_.show(
        SW, SH, -1, [](uint8_t*) {},
        [&](std::vector<uint8_t>* rgba) {
          rgba->resize(static_cast<std::size_t>(SW) * SH * 4);
          for (std::size_t q = 0; q < shown_.period.size(); ++q) {
            if (shown_.lyapunov)
              app::lyapunov_colour(shown_.exponent[q], lyapunov_scale_, &(*rgba)[4 * q]);
            else
              app::category_colour(shown_.period[q], &(*rgba)[4 * q]);
            (*rgba)[4 * q + 3] = 255;
          }
        });
    texture_stale_ = false;
    std::map<int32_t, int64_t> counts;
    if (!shown_.lyapunov)
      for (int32_t k : shown_.period) ++counts[k < 0 ? -1 : k];
    legend_.assign(counts.begin(), counts.end());
    std::stable_sort(legend_.begin(), legend_.end(),
                     [](const auto& x, const auto& y) { return x.second > y.second; });
  }
  const bool done = shown_.rows_done == SH;
  if (shown_.lyapunov)
    ImGui::Text("%s, %s: %d x %d%slargest Lyapunov exponent (blue < 0 < red, scale %.2f), %lld escaped (grey); %.2f s",
                arith_name(view_.arith), auto_arith_ ? "auto" : "chosen", SW, SH, done ? ": " : " (rows so far): ",
                lyapunov_scale_, static_cast<long long>(shown_.escaped), shown_.seconds);
  else
    ImGui::Text("%s, %s: %d x %d%s%lld with a sink (largest period %d), %lld without, %lld escaped; %.2f s",
              arith_name(view_.arith), auto_arith_ ? "auto" : "chosen", SW, SH,
              done ? ": " : " (rows so far): ", static_cast<long long>(shown_.with_period), shown_.max_period,
              static_cast<long long>(shown_.no_period), static_cast<long long>(shown_.escaped), shown_.seconds);
  // The second line: the computation's progress while it runs (stage, share, time, estimate), else
  // the navigation hint; one line either way, so the view area (and the fit) stays the same.
  if (job_.running())
    job_progress_bar(job_, "plane", -1, ImGui::GetTextLineHeight());
  else
    ImGui::TextDisabled("wheel zoom, drag pan, double-click zoom in, right-click out, Ctrl+Z/Y; click: open the orbit");
  app::plot::Figure fig = figure(view_.width_px, view_.height_px);
  const ImVec2 margin = measure_fit(fig);
  const float mx = margin.x, my = margin.y;
  follow_panel();
  if (dirty_) start();
  const int W = view_.width_px, H = view_.height_px;
  fig = figure(W, H);
  const app::plot::Rgba marker = fig.series.front().colour;
  ImVec2 avail = ImGui::GetContentRegionAvail();
  avail.y = std::max(avail.y - 4, 50.0f);
  avail.x = std::max(avail.x, 50.0f);
  const float scale = std::max(1e-3f, std::min((avail.x - mx) / W, (avail.y - my) / H));
  const app::plot::Layout l =
      draw_plot("plane_canvas", fig, std::round(W * scale + mx), std::round(H * scale + my),
                [&](const app::plot::Layout& lay, ImDrawList* dl) {
                  if (!texture_.texture().id()) return;
                  const app::plot::Rect& r = lay.t.plot;
                  dl->PushClipRect(ImVec2(r.x0, r.y0), ImVec2(r.x1, r.y1), true);
                  dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture_.texture().id())),
                               ImVec2(r.x0, r.y0), ImVec2(r.x1, r.y1), ImVec2(u0_, v0_), ImVec2(u1_, v1_));
                  dl->PopClipRect();
                });
  return after_plot(l, W, H, scale, marker, a, b, current_a, current_b);
}

ImVec2 HenonPlaneView::measure_fit(const app::plot::Figure& fig) {
  ImVec2 avail = ImGui::GetContentRegionAvail();
  avail.y = std::max(avail.y - 4, 50.0f);
  avail.x = std::max(avail.x, 50.0f);
  // The image at the view's aspect, as large as the region leaves beside the axes and the legend.
  const app::plot::Layout trial = plot_layout(fig, 0, 0, avail.x, avail.y);
  const float mx = avail.x - trial.t.plot.w(), my = avail.y - trial.t.plot.h();
  const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
  fit_w_ = std::clamp(static_cast<int>((avail.x - mx) * fb.x), 1, 4096);
  fit_h_ = std::clamp(static_cast<int>((avail.y - my) * fb.y), 1, 4096);
  return ImVec2(mx, my);
}

app::plot::Figure HenonPlaneView::figure(int W, int H) const {
  // Axes in a and b (doubles: labels only; the pixels' exact parameters come from plane_pixel),
  // the period legend in a column on the right, and the current (a, b) marked.
  const double wa = std::strtod(view_.width.c_str(), nullptr),
               ca = std::strtod(view_.centre_a.c_str(), nullptr),
               cb = std::strtod(view_.centre_b.c_str(), nullptr), hb = wa * H / W;
  app::plot::Figure fig;
  fig.x.label = "a";
  fig.y.label = "b";
  fig.x.lo = ca - wa / 2, fig.x.hi = ca + wa / 2;
  fig.y.lo = cb - hb / 2, fig.y.hi = cb + hb / 2;
  fig.grid = false;
  fig.legend_outside = true;
  fig.x.tick_widest = fig.y.tick_widest = "-0.0000000";
  fig.legend_widest = "period 99999  100.0 %";  // the image keeps its place as the periods change
  const app::plot::Rgba marker{255, 60, 60, 255};
  fig.series.push_back({"current (a, b)", {}, {}, marker});
  int listed = 0;
  for (const auto& [k, n] : legend_) {
    if (listed++ == 14) break;
    uint8_t rgb[4] = {0, 0, 0, 255};
    app::category_colour(k, rgb);
    char name[64];
    std::snprintf(name, sizeof name, "%s  %.1f %%",
                  k < 0    ? "escaped"
                  : k == 0 ? "no period"
                           : ("period " + std::to_string(k)).c_str(),
                  100.0 * static_cast<double>(n) / static_cast<double>(shown_.period.size()));
    fig.series.push_back(
        {name, {}, {}, app::plot::Rgba{rgb[0], rgb[1], rgb[2], 255}, app::plot::Style::kBars});
  }
  return fig;
}

bool HenonPlaneView::after_plot(const app::plot::Layout& l, int W, int H, float scale, app::plot::Rgba marker,
                                std::string* a, std::string* b, double current_a, double current_b) {
  const ImVec2 origin(l.t.plot.x0, l.t.plot.y0), size(l.t.plot.w(), l.t.plot.h());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  app::plot::Vec2 m;
  if (l.t.to_px(current_a, current_b, &m) && l.t.plot.contains(m)) {
    dl->AddCircle(ImVec2(m.x, m.y), 7, IM_COL32(0, 0, 0, 255), 16, 4);
    dl->AddCircle(ImVec2(m.x, m.y), 7, IM_COL32(marker.r, marker.g, marker.b, 255), 16, 2);
    dl->AddLine(ImVec2(m.x - 12, m.y), ImVec2(m.x - 7, m.y), IM_COL32(marker.r, marker.g, marker.b, 255), 2);
    dl->AddLine(ImVec2(m.x + 7, m.y), ImVec2(m.x + 12, m.y), IM_COL32(marker.r, marker.g, marker.b, 255), 2);
  }
  const bool hovered =
      ImGui::IsItemHovered() && l.t.plot.contains({ImGui::GetIO().MousePos.x, ImGui::GetIO().MousePos.y});
  rect_ = ImageRect{origin.x, origin.y, size.x, size.y, W, H};
  drawn_ = true;
  if (!hovered) return false;
  const ImGuiIO& io = ImGui::GetIO();
  const double fx = (io.MousePos.x - origin.x) / size.x, fy = (io.MousePos.y - origin.y) / size.y;
  const double x = fx * W, y = fy * H;
  const int i = std::clamp(static_cast<int>(x), 0, W - 1), j = std::clamp(static_cast<int>(y), 0, H - 1);
  bool picked = false;
  try {
    if (io.KeyCtrl && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Z))) undo();
    if (io.KeyCtrl && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Y))) redo();
    if (io.MouseWheel != 0) {
      const double f = std::pow(1.25, io.MouseWheel);
      set_view(henon::plane_zoom_about(view_, x, y, f));
      track(fx, fy, f);
    }
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 4.0f)) {
      const ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 4.0f);
      ImGui::ResetMouseDragDelta(ImGuiMouseButton_Left);
      dragged_ = true;
      const double dx = d.x / scale, dy = d.y / scale;
      set_view(henon::plane_pan_pixels(view_, dx, dy), false);
      const float du = static_cast<float>(dx / W) * (u1_ - u0_), dv = static_cast<float>(dy / H) * (v1_ - v0_);
      u0_ -= du;
      u1_ -= du;
      v0_ -= dv;
      v1_ -= dv;
    }
    if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
      set_view(henon::plane_zoom_about(view_, x, y, click_factor_));
      track(fx, fy, click_factor_);
    } else if (ImGui::IsMouseReleased(ImGuiMouseButton_Left)) {
      if (dragged_) {
        set_view(view_);  // one history entry per drag
      } else {
        const auto ab = henon::plane_pixel(view_, i, j);
        *a = ab.first;
        *b = ab.second;
        picked = true;
      }
      dragged_ = false;
    }
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
      set_view(henon::plane_zoom_about(view_, x, y, 1.0 / click_factor_));
      track(fx, fy, 1.0 / click_factor_);
    }
    // The pixel under the mouse: its exact parameter, and its period once this view's row is done.
    const auto ab = henon::plane_pixel(view_, i, j);
    const bool current = same_pixels(shown_.view, view_) && j < shown_.rows_done;
    const std::size_t q = static_cast<std::size_t>(j) * W + i;
    const int32_t k = current && !shown_.lyapunov ? shown_.period[q] : 0;
    char exponent[64];
    std::snprintf(exponent, sizeof exponent, "largest Lyapunov exponent %.6g", current && shown_.lyapunov ? shown_.exponent[q] : 0.0);
    const std::string what = !current         ? "computing"
                             : shown_.lyapunov ? (std::isnan(shown_.exponent[q]) ? "escaped" : exponent)
                             : k < 0          ? "escaped"
                             : k == 0         ? "no period within p_max"
                                              : "period " + std::to_string(k);
    ImGui::SetTooltip("a = %s\nb = %s\n%s", ab.first.c_str(), ab.second.c_str(), what.c_str());
  } catch (const std::exception& e) {
    message_ = e.what();
  }
  return picked;
}

}  // namespace ds::gui
