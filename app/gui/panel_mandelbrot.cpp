// The Mandelbrot workspace: controls on the left, the image on the right. Rendering runs on a
// worker (coarse pass first, then full resolution in bands) through the same engine call as
// `deepscope render`, into canvases that stay on the GPU when there is one; CUDA-GL interop puts
// them on screen (render/canvas_texture.h). The previous image, scaled, stands in while the view
// changes. This file: the controls, navigation, the image and the mouse; the class is in
// panel_mandelbrot.h.
#include "panel_mandelbrot.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "app/io/kfp.h"
#include "app/io/progress_text.h"
#include "kernels/mandelbrot/navigate.h"

namespace ds::gui {

MandelbrotPanel::MandelbrotPanel() {
  view_.max_iter = 1000;
  set_view(view_, false);  // the fields in the panel's one notation
}

MandelbrotPanel::~MandelbrotPanel() {
  job_.cancel();
  refine_job_.cancel();
  shot_job_.cancel();
  verify_job_.cancel();
  find_job_.cancel();
  hover_job_.cancel();
}

// A dropped location file (ours, .kfr) or a PNG this program wrote.
bool MandelbrotPanel::open_file(const std::string& path) {
  try {
    apply_location(app::read_location_file(path), path);
    file_status_ = "opened " + file_name_of(path);
    remember_recent(path);
  } catch (const std::exception& e) {
    file_status_ = std::string("cannot open: ") + e.what();
  }
  return true;
}

bool MandelbrotPanel::busy() const {
  // dirty_: a render asked for (a view change, a shader that reads more data) starts at the next
  // frame, so a script's wait-idle must not take the frame before as idle; recolour_ likewise (a
  // colouring change is drawn, and restarts the antialiasing, at the next frame). Antialiasing is
  // part of the frame: idle once its last sample is shown.
  return dirty_ || recolour_ || job_.running() || !shown_final_ || shot_job_.running() || shot_ready_ ||
         verify_job_.running() || find_job_.running() || find_ready_ || animating_ || refine_pending();
}

// Scripted sessions (script.h): the image rectangle handle_mouse saw last frame, and the
// screenshot path field.
bool MandelbrotPanel::image_rect(ImageRect* r) const {
  if (image_size_.x <= 0 || image_size_.y <= 0) return false;
  *r = ImageRect{image_origin_.x, image_origin_.y, image_size_.x, image_size_.y, view_.width, view_.height};
  return true;
}

bool MandelbrotPanel::set_screenshot_path(const std::string& path) {
  if (path.empty() || path.size() >= sizeof shot_path_) return false;
  std::snprintf(shot_path_, sizeof shot_path_, "%s", path.c_str());
  return true;
}

void MandelbrotPanel::draw() {
  // The controls: 310 pixels (at UI scale 1) in a small window, up to 380 in a large one (28% of
  // the width: 358 at 1280), whole pixels so that the image's pixels map onto the screen's exactly.
  const float scale = ImGui::GetIO().FontGlobalScale;
  const float controls = std::floor(std::min(380.0f * scale, std::max(310.0f * scale, 0.28f * ImGui::GetIO().DisplaySize.x)));
  ImGui::BeginChild("controls", ImVec2(controls, 0), true, ImGuiWindowFlags_MenuBar);
  draw_controls();
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("image", ImVec2(0, 0), false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_image();
  ImGui::EndChild();
  if (show_help_) draw_help();
}

void MandelbrotPanel::set_view(const View& v, bool record) {
  animating_ = false;  // any navigation stops an animated zoom (its steps set these again)
  coarse_only_ = false;
  if (record) {
    history_.resize(history_pos_ + 1);
    history_.push_back(v);
    history_pos_ = history_.size() - 1;
  }
  view_ = v;
  // One notation whatever the view came from: the centre positional with all its digits (no
  // exponent to hide off the field's edge), the zoom as M.MMMeE (app/io/location.h).
  std::snprintf(re_buf_, sizeof re_buf_, "%s", app::plain_decimal(v.re).c_str());
  std::snprintf(im_buf_, sizeof im_buf_, "%s", app::plain_decimal(v.im).c_str());
  std::snprintf(zoom_buf_, sizeof zoom_buf_, "%s", app::zoom_notation(v.zoom).c_str());
  app::rotation_skew_of(app::PixelMap{v.pixel_map[0], v.pixel_map[1], v.pixel_map[2], v.pixel_map[3]},
                        &rotate_deg_, &skew_angle_deg_, &skew_log2_);
  dirty_ = true;
}

void MandelbrotPanel::draw_controls() {
  draw_file_menu();
  // Every field leaves its label room (the longest, "stripe memory", "antialiasing", whole).
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 7.5f);
  ImGui::TextUnformatted("Location");
  bool edited = false;
  edited |= ImGui::InputText("re", re_buf_, sizeof re_buf_, ImGuiInputTextFlags_EnterReturnsTrue);
  edited |= ImGui::InputText("im", im_buf_, sizeof im_buf_, ImGuiInputTextFlags_EnterReturnsTrue);
  edited |= ImGui::InputText("zoom", zoom_buf_, sizeof zoom_buf_, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::Button("Go") || edited) {
    View v = view_;
    v.re = re_buf_;
    v.im = im_buf_;
    // The field shows 10 digits of the zoom: unedited, the view keeps all of its own.
    if (zoom_buf_ != app::zoom_notation(view_.zoom)) v.zoom = zoom_buf_;
    try {
      mandel::geometry(v);  // validate before accepting
      set_view(v);
      message_.clear();
    } catch (const std::exception& e) {
      message_ = e.what();
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Copy")) {
    std::string loc = "re = " + view_.re + "\nim = " + view_.im + "\nzoom = " + view_.zoom + "\n";
    ImGui::SetClipboardText(loc.c_str());
  }
  ImGui::SameLine();
  if (ImGui::Button("Home")) go_home();
  ImGui::SameLine();
  ImGui::BeginDisabled(history_pos_ == 0);
  if (ImGui::Button("Undo")) undo();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(history_pos_ + 1 >= history_.size());
  if (ImGui::Button("Redo")) redo();
  ImGui::EndDisabled();

  ImGui::Separator();
  // 64-bit, as files may give it (past 2^32 - 1 the canvas keeps the counts' high words too).
  uint64_t iter = view_.max_iter;
  const uint64_t step = 100, step_fast = 1000;
  if (ImGui::InputScalar("iterations", ImGuiDataType_U64, &iter, &step, &step_fast, "%llu",
                         ImGuiInputTextFlags_EnterReturnsTrue) ||
      ImGui::IsItemDeactivatedAfterEdit()) {
    view_.max_iter = std::max<uint64_t>(1, std::min<uint64_t>(iter, mandel::kMaxIterations));
    dirty_ = true;
  }
  ImGui::Checkbox("auto iterations", &auto_iter_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "double the limit after a render whose pixels still iterate at it\n"
        "(kernels/mandelbrot/auto_iter.h; a found minibrot's view has 64 periods already)");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto_iter_ && !auto_iter_status_.empty()) ImGui::TextDisabled("%s", auto_iter_status_.c_str());
  }
  ImGui::SliderFloat("click zoom", &click_factor_, 1.5f, 16.0f, "x%.1f", ImGuiSliderFlags_Logarithmic);
  draw_rotation();
  draw_formula();

  // Format selector: every format with its bits and whether it resolves this zoom.
  mandel::Geometry g;
  bool geometry_ok = true;
  try {
    g = mandel::geometry(view_);
  } catch (const std::exception&) {
    geometry_ok = false;
  }
  std::string current = arith_index_ == 0  ? "auto"
                        : arith_index_ < 0 ? "perturb"
                                           : arith_name(all_ariths()[arith_index_ - 1]);
  if (ImGui::BeginCombo("arithmetic", current.c_str())) {
    if (ImGui::Selectable("auto (cheapest that resolves)", arith_index_ == 0)) {
      arith_index_ = 0;
      dirty_ = true;
    }
    if (ImGui::Selectable("perturb   MPFR reference + BLA, any depth", arith_index_ < 0)) {
      arith_index_ = -1;
      dirty_ = true;
    }
    for (size_t k = 0; k < all_ariths().size(); ++k) {
      Arith a = all_ariths()[k];
      bool ok = geometry_ok && mandel::resolves(a, g);
      char label[96];
      std::snprintf(label, sizeof label, "%-9s %5d bits  %s", arith_name(a), arith_traits(a).bits,
                    ok ? "resolves" : "too shallow");
      if (!ok) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.6f, 0.6f, 0.6f, 1.0f));
      if (ImGui::Selectable(label, arith_index_ == static_cast<int>(k) + 1)) {
        arith_index_ = static_cast<int>(k) + 1;
        dirty_ = true;
      }
      if (!ok) ImGui::PopStyleColor();
    }
    ImGui::EndCombo();
  }

  draw_colouring();
  draw_antialias();

  ImGui::Separator();
  if (job_.running()) {
    // The stage, the share done, the time so far and the time left (app/io/progress_text.h).
    const std::string label = app::progress_text(job_.stage(), job_.progress(), job_.elapsed());
    ImGui::ProgressBar(static_cast<float>(job_.progress()), ImVec2(-1, 0), label.c_str());
  } else if (refine_pending() && refine_started_) {
    char label[48];
    std::snprintf(label, sizeof label, "refining %d/%d", refined_samples_, aa_ * aa_);
    ImGui::ProgressBar(static_cast<float>(refine_job_.progress()), ImVec2(-1, 0), label);
  } else {
    ImGui::ProgressBar(1.0f, ImVec2(-1, 0), refined_samples_ > 0 ? "done, antialiased" : "done");
  }
  if (!refine_status_.empty())
    text_wrapped_coloured(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), refine_status_);
  // Wrapped: the perturbation line carries the glitch counts, which must be seen, not cut off.
  ImGui::TextWrapped("format: %s  backend: %s", shown_arith_.c_str(), shown_backend_.c_str());
  ImGui::TextWrapped("display: %s", display_path_.c_str());
  if (!display_.interop_note().empty() && ImGui::IsItemHovered())
    ImGui::SetTooltip("no CUDA-GL interop: %s", display_.interop_note().c_str());
  if (shown_seconds_ > 0)
    ImGui::Text("render: %.3f s, %.3g iterations/s", shown_seconds_, shown_iterations_ / shown_seconds_);
  std::string err = job_.error();
  if (!err.empty() && !job_.running()) {
    // A CUDA failure moves the view to the CPU; anything else is shown as it is.
    if (canvas_ && canvas_->backend() == Backend::kCuda && !use_cpu_ && err.find("CUDA") != std::string::npos)
      gpu_failed(err);
    else
      message_ = err;
  }
  if (!notice_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.3f, 1.0f));
    ImGui::TextWrapped("%s", notice_.c_str());
    ImGui::PopStyleColor();
  }
  if (!message_.empty()) text_wrapped_coloured(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), message_);
  draw_verify();
  draw_find();
  draw_files();
  ImGui::PopItemWidth();
  ImGui::TextDisabled("F1: shortcuts and mouse");
  if (ImGui::IsKeyPressed(GLFW_KEY_F1)) show_help_ = !show_help_;  // ImGui 1.86 indexes keys by GLFW code
}

void MandelbrotPanel::apply_location(const app::Location& loc, const std::string& path) {
  View v = view_;
  formula::Formula f;
  formula::JuliaSeed julia;
  app::apply_to_view(loc, &v, false, &f, &julia);  // the window keeps its size
  mandel::geometry(v);                              // throws for a location no format can show
  formula_ = f;
  if (julia.on() != julia_.on()) has_plane_view_ = false;
  julia_ = julia;
  notice_.clear();
  for (const std::string& w : loc.warnings) notice_ += (notice_.empty() ? "" : "\n") + w;
  if (loc.kf_colouring && !loc.palette) {
    // A .kfr's own palette and colour method (the kf shader), as `render --location` draws it.
    apply_kf(*loc.kf_colouring, path.empty() ? std::string("(the .kfr's palette)") : path, true);
  } else if (loc.palette) {
    if (app::is_kf_palette_file(*loc.palette))
      load_kfp(*loc.palette);
    else
      for (const std::string& name : colour::palette_names())
        if (name == *loc.palette) set_builtin_palette(name);
  }
  if (loc.density) density_ = static_cast<float>(*loc.density);
  if (loc.offset) offset_ = static_cast<float>(*loc.offset);
  set_view(v);
}

colour::Colouring MandelbrotPanel::colouring(uint64_t max_iter) const {
  colour::Colouring col;
  col.palette = palette_;
  col.blend = blend_;
  col.density = density_;
  col.offset = offset_;
  col.max_iter = max_iter;
  col.scale = log_scale_ ? colour::CountScale::kLog : colour::CountScale::kLinear;
  return col;
}

void MandelbrotPanel::draw_help() {
  ImGui::SetNextWindowBgAlpha(0.9f);
  ImGui::Begin("Shortcuts", &show_help_, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::TextUnformatted(
      "left click      zoom in at the point (by 'click zoom')\n"
      "right click     zoom out\n"
      "wheel           zoom at the cursor\n"
      "drag (left)     pan\n"
      "Ctrl+Z / Ctrl+Y undo / redo location\n"
      "Home            whole set\n"
      "N / M / P       the minibrot / Misiurewicz point / period under the mouse\n"
      "I               auto iterations on / off\n"
      "J               the Julia set of the point under the mouse / back to the parameter plane\n"
      "Ctrl+O / Ctrl+S open / save a location (File menu)\n"
      "right held, Menu  the image menu: zoom to the minibrot or Misiurewicz point here, period\n"
      "F12             save a screenshot (PNG with the location)\n"
      "drop a file     open a location, .kfr or deepscope PNG\n"
      "F1              this help");
  ImGui::End();
}

void MandelbrotPanel::go_home() {
  View v = view_;
  v.re = "-0.5";
  v.im = "0";
  v.zoom = "1";
  set_view(v);
}

void MandelbrotPanel::undo() {
  if (history_pos_ == 0) return;
  --history_pos_;
  set_view(history_[history_pos_], false);
}

void MandelbrotPanel::redo() {
  if (history_pos_ + 1 >= history_.size()) return;
  ++history_pos_;
  set_view(history_[history_pos_], false);
}

// Keeps the shown texture's uv rectangle in step with navigation until the new image arrives.
void MandelbrotPanel::track_zoom(double fx, double fy, double factor) {
  float px = uv0_.x + static_cast<float>(fx) * (uv1_.x - uv0_.x);
  float py = uv0_.y + static_cast<float>(fy) * (uv1_.y - uv0_.y);
  uv0_ = ImVec2(px + (uv0_.x - px) / static_cast<float>(factor),
                py + (uv0_.y - py) / static_cast<float>(factor));
  uv1_ = ImVec2(px + (uv1_.x - px) / static_cast<float>(factor),
                py + (uv1_.y - py) / static_cast<float>(factor));
}

void MandelbrotPanel::draw_image() {
  ImGuiIO& io = ImGui::GetIO();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  int w = std::max(16, static_cast<int>(avail.x * io.DisplayFramebufferScale.x));
  int h = std::max(16, static_cast<int>(avail.y * io.DisplayFramebufferScale.y));
  if (w != view_.width || h != view_.height) {
    view_.width = w;
    view_.height = h;
    if (history_.empty()) history_.push_back(view_);
    for (auto& hv : history_) {
      hv.width = w;
      hv.height = h;
    }
    dirty_ = true;
  }
  poll_frame();
  poll_refine();
  step_zoom_animation();
  apply_auto_iterations();
  ImVec2 origin = ImGui::GetCursorScreenPos();
  // The antialiased mean once a sample has landed (restart_refine drops it at any change).
  const unsigned tex = refined_samples_ > 0 ? refined_.id()
                       : shaded_ok_         ? shaded_.id()
                                            : display_.texture().id();
  if (tex) {
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(tex)), avail, uv0_, uv1_);
  } else {
    ImGui::Dummy(avail);
  }
  handle_mouse(origin, avail);
  draw_overlay(origin, avail);
  if (job_.running()) {
    // The render's progress on the image itself (the controls' bar may be scrolled away): a strip
    // along the bottom edge, filled to the share done, with the stage, the time so far and left.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float sh = ImGui::GetTextLineHeight() + 6.0f;
    const ImVec2 a(origin.x, origin.y + avail.y - sh), b(origin.x + avail.x, origin.y + avail.y);
    const float f = static_cast<float>(std::clamp(job_.progress(), 0.0, 1.0));
    dl->AddRectFilled(a, b, IM_COL32(0, 0, 0, 170));
    dl->AddRectFilled(a, ImVec2(a.x + f * avail.x, b.y), IM_COL32(60, 110, 200, 150));
    const std::string text = "rendering: " + app::progress_text(job_.stage(), job_.progress(), job_.elapsed());
    dl->AddText(ImVec2(a.x + 6.0f, a.y + 3.0f), IM_COL32(255, 255, 255, 255), text.c_str());
  }
  draw_image_menu();
  if (dirty_) start_render();
}

void MandelbrotPanel::handle_mouse(ImVec2 origin, ImVec2 size) {
  image_origin_ = origin, image_size_ = size;  // for image_rect()
  ImGuiIO& io = ImGui::GetIO();
  const bool hovered = ImGui::IsItemHovered();
  // The period search is z^2 + c's: not for other formulas or Julia sets.
  hover_period(hovered && !ImGui::IsAnyMouseDown() && !formula_mode(),
               static_cast<int>((io.MousePos.x - origin.x) / size.x * view_.width),
               static_cast<int>((io.MousePos.y - origin.y) / size.y * view_.height));
  if (!hovered) return;
  double fx = (io.MousePos.x - origin.x) / size.x, fy = (io.MousePos.y - origin.y) / size.y;
  double x = fx * view_.width, y = fy * view_.height;
  try {
    if (io.KeyCtrl && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Z))) undo();
    if (io.KeyCtrl && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Y))) redo();
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) go_home();
    const int ix = static_cast<int>(x), iy = static_cast<int>(y);
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_N)) start_find(FindKind::kMinibrot, true, ix, iy);
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_M)) start_find(FindKind::kMisiurewicz, true, ix, iy);
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_P)) start_find(FindKind::kPeriod, true, ix, iy);
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_I, false)) auto_iter_ = !auto_iter_;
    if (!io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_J, false)) toggle_julia(x, y);
    if (io.MouseWheel != 0) {
      double f = std::pow(1.25, io.MouseWheel);
      set_view(mandel::zoom_about(view_, x, y, f));
      track_zoom(fx, fy, f);
    }
    if (ImGui::IsMouseDragging(ImGuiMouseButton_Left, 4.0f)) {
      ImVec2 d = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 4.0f);
      ImGui::ResetMouseDragDelta(ImGuiMouseButton_Left);
      dragged_ = true;
      double dx = d.x * io.DisplayFramebufferScale.x, dy = d.y * io.DisplayFramebufferScale.y;
      set_view(mandel::pan_pixels(view_, dx, dy), false);
      float du = static_cast<float>(dx / view_.width) * (uv1_.x - uv0_.x);
      float dv = static_cast<float>(dy / view_.height) * (uv1_.y - uv0_.y);
      uv0_ = ImVec2(uv0_.x - du, uv0_.y - dv);
      uv1_ = ImVec2(uv1_.x - du, uv1_.y - dv);
    }
    if (ImGui::IsMouseReleased(ImGuiMouseButton_Left)) {
      if (dragged_) {
        set_view(view_);  // one history entry per drag
      } else {
        set_view(mandel::zoom_about(view_, x, y, click_factor_));
        track_zoom(fx, fy, click_factor_);
      }
      dragged_ = false;
    }
    // A short right click zooms out; held kMenuHold seconds (or the Menu key) it opens the image
    // menu at the pixel where it went down.
    constexpr float kMenuHold = 0.35f;
    if ((io.MouseDownDuration[ImGuiMouseButton_Right] >= kMenuHold &&
         io.MouseDownDurationPrev[ImGuiMouseButton_Right] < kMenuHold) ||
        ImGui::IsKeyPressed(GLFW_KEY_MENU)) {
      menu_px_ = ix;
      menu_py_ = iy;
      menu_pending_ = true;
    }
    if (ImGui::IsMouseReleased(ImGuiMouseButton_Right) &&
        io.MouseDownDurationPrev[ImGuiMouseButton_Right] < kMenuHold) {
      set_view(mandel::zoom_about(view_, x, y, 1.0 / click_factor_));
      track_zoom(fx, fy, 1.0 / click_factor_);
    }
  } catch (const std::exception& e) {
    message_ = e.what();
  }
}
std::unique_ptr<Panel> make_mandelbrot_panel() { return std::make_unique<MandelbrotPanel>(); }

}  // namespace ds::gui
