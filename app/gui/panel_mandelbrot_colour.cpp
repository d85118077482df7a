// The Mandelbrot panel's colouring: the GLSL colouring shader the image is drawn through (built-in
// or a file, reloaded when the file changes; a compile error is shown and the last good shader
// stays), its parameters, the palette (built-in, Kalles Fraktaler .kfp, or edited here), and the
// screenshots coloured by the same shader. The shader runs in the window's GL context with the
// same ColourShader call as `deepscope render` (render/colour_shader.h, app/io/colouring.h).
#include <imgui.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "app/io/colouring.h"
#include "app/io/kfp.h"
#include "app/io/view_png.h"
#include "file_picker.h"
#include "kernels/core/atomic_file.h"
#include "panel_mandelbrot.h"

namespace ds::gui {
namespace {

// A file's modification time in nanoseconds, 0 when it cannot be read.
int64_t mtime_of(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

}  // namespace

// Compiles a built-in or a file in the window's context. On failure the message is shown and the
// shader in use stays; a new shader that reads other fields renders the view again.
void MandelbrotPanel::choose_shader(const std::string& name_or_file) {
  const bool file = render::is_shader_file(name_or_file);
  if (file) shader_mtime_ = mtime_of(name_or_file);
  try {
    const std::string source = render::shader_source(name_or_file);
    auto sh = std::make_unique<render::ColourShader>(source, name_or_file);
    for (const render::ShaderParam& p : sh->params()) {
      auto it = shader_params_.find(p.name);
      if (it != shader_params_.end()) sh->set_param(p.name, it->second);
    }
    const unsigned before = shader_ ? shader_->fields() : 0;
    shader_ = std::move(sh);
    shader_name_ = name_or_file;
    shader_source_ = source;
    shader_error_.clear();
    recolour_ = true;
    if ((shader_->fields() & ~before) != 0) dirty_ = true;  // the engine must compute more
  } catch (const std::exception& e) {
    shader_error_ = e.what();
  }
}

// A file shader is compiled again when its modification time changes (checked twice a second).
void MandelbrotPanel::check_shader_file() {
  if (!render::is_shader_file(shader_name_)) return;
  const double now = ImGui::GetTime();
  if (now - shader_checked_at_ < 0.5) return;
  shader_checked_at_ = now;
  const int64_t m = mtime_of(shader_name_);
  if (m != 0 && m != shader_mtime_) choose_shader(shader_name_);
}

void MandelbrotPanel::set_builtin_palette(const std::string& name) {
  palette_ = colour::palette_by_name(name);
  palette_label_ = name;
  blend_ = true;
  log_scale_ = true;
  edit_stop_ = 0;
  recolour_ = true;
}

void MandelbrotPanel::load_kfp(const std::string& path) {
  try {
    apply_kf(app::read_kfp(path), path, false);
  } catch (const std::exception& e) {
    colour_status_ = e.what();
  }
}

void MandelbrotPanel::apply_kf(const app::KfPalette& kp, const std::string& label, bool method) {
  colour::Colouring c;
  app::apply_kf_palette(kp, &c);
  palette_ = c.palette;
  blend_ = c.blend;
  density_ = c.density;
  offset_ = c.offset;
  log_scale_ = false;  // KF's IterDiv counts iterations linearly
  palette_label_ = label;
  edit_stop_ = 0;
  recolour_ = true;
  char buf[200];
  std::snprintf(buf, sizeof buf, ": %zu colours, IterDiv %g, ColorOffset %g", kp.colors.size(), kp.iter_div,
                kp.color_offset);
  colour_status_ = "palette " + label + buf;
  if (kp.has_method || method) {
    // KF's own colouring: the kf shader with the file's ColorMethod, Differences, Slopes, ...
    for (const auto& p : app::kf_shader_params(kp)) shader_params_[p.first] = p.second;
    choose_shader("kf");
    const std::string missing = app::kf_not_reproduced(kp);
    if (!missing.empty()) colour_status_ += "; not reproduced: " + missing;
    return;
  }
  // KF's Slopes keys become the slopes shader's parameters.
  if (kp.slope_power) shader_params_["slope_power"] = static_cast<float>(*kp.slope_power);
  if (kp.slope_ratio) shader_params_["slope_ratio"] = static_cast<float>(*kp.slope_ratio);
  if (kp.slope_angle) shader_params_["slope_angle"] = static_cast<float>(*kp.slope_angle);
  if (shader_)
    for (const render::ShaderParam& p : shader_->params()) {
      auto it = shader_params_.find(p.name);
      if (it != shader_params_.end()) shader_->set_param(p.name, it->second);
    }
}

bool MandelbrotPanel::set_palette(const std::string& name_or_kfp) {
  if (app::is_kf_palette_file(name_or_kfp)) {
    load_kfp(name_or_kfp);
  } else {
    try {
      set_builtin_palette(name_or_kfp);
    } catch (const std::exception& e) {
      colour_status_ = e.what();
    }
  }
  return true;
}

std::string MandelbrotPanel::colour_record() const {
  app::ShaderSpec s;
  s.name = shader_name_;
  s.source = shader_source_;
  if (shader_)
    for (const render::ShaderParam& p : shader_->params())
      if (p.value != p.default_value) s.params.emplace_back(p.name, p.value);
  return app::colour_record(s, "GLSL in the window's OpenGL context");
}

// The engine's options for the window's renders and screenshots: the format chosen, and the
// per-pixel fields the colouring shader reads with the stripe average's parameters.
mandel::RenderOptions MandelbrotPanel::engine_options() const {
  mandel::RenderOptions opt;
  if (arith_index_ > 0) opt.arith = all_ariths()[arith_index_ - 1];
  if (arith_index_ < 0) opt.method = mandel::Method::kPerturb;
  opt.fields = shader_ ? shader_->fields() : 0;
  if (shader_)
    for (const render::ShaderParam& p : shader_->params())
      if (p.name == "escape_radius") opt.sqrt_smooth_radius = app::clamp_sqrt_smooth_radius(p.value);
  opt.stripe_density = stripe_density_;
  opt.stripe_memory = stripe_memory_;
  opt.prove_interior_always = auto_iter_;  // auto iterations tell interior pixels from the limit
  return opt;
}

void MandelbrotPanel::draw_colouring() {
  if (!shader_ && shader_error_.empty()) choose_shader("palette");
  check_shader_file();
  ImGui::Separator();
  // The shader: a built-in, or a file (ImGui has no file dialog here: a path and Load).
  if (ImGui::BeginCombo("shader", shader_name_.c_str())) {
    for (const std::string& name : render::builtin_shader_names())
      if (ImGui::Selectable(name.c_str(), name == shader_name_)) choose_shader(name);
    ImGui::EndCombo();
  }
  // The buttons on their own line: beside the field's label they fall outside a narrow panel.
  ImGui::InputText("shader file", shader_path_, sizeof shader_path_);
  if (ImGui::Button("Load##shader")) choose_shader(shader_path_);
  ImGui::SameLine();
  if (shader_picker_.draw("Browse...##shader", {".glsl"}, shader_path_, sizeof shader_path_))
    choose_shader(shader_path_);
  if (!shader_error_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s%s", shader_error_.c_str(),
                       shader_ ? "(showing the last shader that compiled)" : "");
    ImGui::PopStyleColor();
  }
  if (shader_) {
    // Each parameter by its kind (render/colour_shader.h): a checkbox, a whole number, a choice, a
    // slider over its range, or a drag field; labelled by its readable name.
    std::vector<render::ShaderParam> in_order = shader_->params();
    std::stable_sort(in_order.begin(), in_order.end(),
                     [](const render::ShaderParam& a, const render::ShaderParam& b) { return a.order < b.order; });
    for (const render::ShaderParam& p : in_order) {
      float v = p.value;
      bool changed = false;
      ImGui::PushID(p.name.c_str());
      switch (p.kind) {
        case render::ShaderParam::Kind::kBool: {
          bool b = v > 0.5f;
          if (ImGui::Checkbox(p.label.c_str(), &b)) {
            v = b ? 1.0f : 0.0f;
            changed = true;
          }
          break;
        }
        case render::ShaderParam::Kind::kInt: {
          int k = static_cast<int>(v + 0.5f);
          if (ImGui::SliderInt(p.label.c_str(), &k, static_cast<int>(p.min), static_cast<int>(p.max))) {
            v = static_cast<float>(k);
            changed = true;
          }
          break;
        }
        case render::ShaderParam::Kind::kChoice: {
          const int k = std::max(0, std::min(static_cast<int>(v + 0.5f), static_cast<int>(p.choices.size()) - 1));
          if (ImGui::BeginCombo(p.label.c_str(), p.choices[k].c_str())) {
            for (int i = 0; i < static_cast<int>(p.choices.size()); ++i)
              if (ImGui::Selectable(p.choices[i].c_str(), i == k)) {
                v = static_cast<float>(i);
                changed = true;
              }
            ImGui::EndCombo();
          }
          break;
        }
        case render::ShaderParam::Kind::kRange:
          changed = ImGui::SliderFloat(p.label.c_str(), &v, p.min, p.max, "%.3g",
                                       p.min > 0 && p.max / p.min > 100 ? ImGuiSliderFlags_Logarithmic : 0);
          break;
        case render::ShaderParam::Kind::kFloat:
          changed = ImGui::DragFloat(p.label.c_str(), &v, std::max(0.01f, std::abs(p.default_value) / 100.0f));
          break;
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s%s%s", p.help.c_str(), p.help.empty() ? "" : "\n", p.name.c_str());
      ImGui::PopID();
      if (changed) {
        const unsigned before = shader_->fields();
        shader_->set_param(p.name, v);
        shader_params_[p.name] = v;
        recolour_ = true;
        if ((shader_->fields() & ~before) != 0) dirty_ = true;  // the engine must compute more
        // The square-root smoothing's field depends on KF's escape radius: the engine's, again.
        if (p.name == "escape_radius" && (shader_->fields() & mandel::kFieldSqrtSmooth)) dirty_ = true;
      }
    }
    // The stripe average is the engine's: a change renders again.
    if (shader_->fields() & mandel::kFieldStripe) {
      if (ImGui::SliderInt("stripe density", &stripe_density_, 1, 16)) dirty_ = true;
      if (ImGui::SliderFloat("stripe memory", &stripe_memory_, 0.05f, 0.99f, "%.2f")) dirty_ = true;
    }
    if (!shader_->params().empty() && ImGui::SmallButton("parameter defaults")) {
      for (const render::ShaderParam& p : shader_->params()) {
        shader_->set_param(p.name, p.default_value);
        shader_params_.erase(p.name);
      }
      recolour_ = true;
    }
  }

  // The palette: a built-in, a .kfp, or the one edited below.
  const std::string shown = palette_label_.empty() ? std::string("(edited)") : file_name_of(palette_label_);
  const bool open_palettes = ImGui::BeginCombo("palette", shown.c_str());
  if (!open_palettes && ImGui::IsItemHovered() && shown != palette_label_) ImGui::SetTooltip("%s", palette_label_.c_str());
  if (open_palettes) {
    for (const std::string& name : colour::palette_names())
      if (ImGui::Selectable(name.c_str(), name == palette_label_)) set_builtin_palette(name);
    ImGui::EndCombo();
  }
  ImGui::InputText(".kfp", kfp_path_, sizeof kfp_path_);
  if (ImGui::Button("Load .kfp")) load_kfp(kfp_path_);
  ImGui::SameLine();
  if (kfp_picker_.draw("Browse...##kfp", {".kfp", ".kfr"}, kfp_path_, sizeof kfp_path_)) load_kfp(kfp_path_);
  if (ImGui::SliderFloat("density", &density_, 0.001f, 20.0f, "%.3f", ImGuiSliderFlags_Logarithmic))
    recolour_ = true;
  if (ImGui::SliderFloat("offset", &offset_, 0.0f, 1.0f)) recolour_ = true;
  if (ImGui::Checkbox("log scale", &log_scale_)) recolour_ = true;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The palette by the log of the count above the image's lowest (deep views with counts in the\n"
                      "millions colour smoothly); off: one cycle every 32 / density iterations, as KF's IterDiv");
  if (!colour_status_.empty()) ImGui::TextWrapped("%s", colour_status_.c_str());
  if (ImGui::TreeNode("palette editor")) {
    // One swatch a stop (click: select; the selected stop's colour is edited below).
    const float side = ImGui::GetFrameHeight() * 0.8f;
    const int per_row = std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / (side + 2)));
    ImGui::BeginChild("stops", ImVec2(0, std::min(6, palette_.stops / per_row + 1) * (side + 4) + 4), false);
    for (int k = 0; k < palette_.stops; ++k) {
      const colour::Rgb8 c = palette_.stop[k];
      ImGui::PushID(k);
      if (k % per_row) ImGui::SameLine(0, 2);
      if (ImGui::ColorButton("##stop", ImVec4(c.r / 255.0f, c.g / 255.0f, c.b / 255.0f, 1.0f),
                             k == edit_stop_ ? 0 : ImGuiColorEditFlags_NoBorder, ImVec2(side, side)))
        edit_stop_ = k;
      ImGui::PopID();
    }
    ImGui::EndChild();
    edit_stop_ = std::min(edit_stop_, palette_.stops - 1);
    colour::Rgb8& s = palette_.stop[edit_stop_];
    float rgb[3] = {s.r / 255.0f, s.g / 255.0f, s.b / 255.0f};
    char label[32];
    std::snprintf(label, sizeof label, "stop %d", edit_stop_);
    if (ImGui::ColorEdit3(label, rgb)) {
      s = {static_cast<uint8_t>(rgb[0] * 255 + 0.5f), static_cast<uint8_t>(rgb[1] * 255 + 0.5f),
           static_cast<uint8_t>(rgb[2] * 255 + 0.5f)};
      palette_label_.clear();
      recolour_ = true;
    }
    ImGui::BeginDisabled(palette_.stops >= colour::kMaxPaletteStops);
    if (ImGui::Button("add stop")) {  // after the selected one, its colour
      for (int k = palette_.stops; k > edit_stop_ + 1; --k) palette_.stop[k] = palette_.stop[k - 1];
      palette_.stop[edit_stop_ + 1] = palette_.stop[edit_stop_];
      ++palette_.stops;
      ++edit_stop_;
      palette_label_.clear();
      recolour_ = true;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::BeginDisabled(palette_.stops <= 1);
    if (ImGui::Button("remove stop")) {
      for (int k = edit_stop_; k + 1 < palette_.stops; ++k) palette_.stop[k] = palette_.stop[k + 1];
      --palette_.stops;
      edit_stop_ = std::min(edit_stop_, palette_.stops - 1);
      palette_label_.clear();
      recolour_ = true;
    }
    ImGui::EndDisabled();
    ImGui::SameLine();
    ImGui::Text("%d stops", palette_.stops);
    if (ImGui::Checkbox("blend between stops", &blend_)) recolour_ = true;
    ImGui::TreePop();
  }
}

// The frame's data (rows [0, rows_done) from the canvas, the rest from the preview, nearest pixel,
// or interior where there is none) drawn into shaded_ by the shader: through CUDA-GL interop for a
// CUDA canvas whose GL runs on its device, else through host memory (render/canvas_shading.h).
bool MandelbrotPanel::shade(int rows_done, bool data_changed) {
  shaded_ok_ = false;
  if (!shader_ || !canvas_) return false;
  const int w = canvas_->width(), h = canvas_->height();
  // A colouring change alone: the shader's data textures still hold this frame.
  if (!data_changed && shaded_.width() == w && shaded_.height() == h &&
      shader_->redraw(w, h, colouring(shown_.max_iter), shaded_.id())) {
    shaded_ok_ = true;
    return true;
  }
  if (shaded_.width() != w || shaded_.height() != h) shaded_.upload_rgba(nullptr, w, h);
  const render::DisplayPath path =
      shading_.draw(*shader_, *canvas_, shown_preview(), rows_done, colouring(shown_.max_iter), shaded_.id());
  shaded_ok_ = true;
  display_path_ = "GLSL shader " + shader_name_ + " (data by " + render::display_path_name(path) + ")";
  const std::string missing = [&] {
    render::ShaderFrame held;  // what the canvas holds, as a frame for missing_fields
    const float one = 0.0f;
    if (canvas_->fields() & mandel::kFieldDistance) held.dex = held.dey = &one;
    if (canvas_->fields() & mandel::kFieldPhase) held.phase = &one;
    if (canvas_->fields() & mandel::kFieldStripe) held.stripe = &one;
    if (canvas_->fields() & mandel::kFieldSqrtSmooth) held.sqrt_smooth = &one;
    return render::missing_fields(shader_->fields(), held);
  }();
  if (!missing.empty()) display_path_ += "; the engine gave no" + missing + " (read as zeros)";
  if (!shading_.interop_note().empty()) display_path_ += "; no interop: " + shading_.interop_note();
  return true;
}

// A screenshot's render, finished on its worker, coloured here by the window's shader (the same
// ColourShader call as `render`) and written with its location and colouring record.
void MandelbrotPanel::finish_screenshot() {
  if (!shot_ready_) return;
  std::unique_ptr<mandel::RenderResult> r;
  View v;
  colour::Colouring c;
  std::string palette, path;
  std::vector<std::pair<std::string, std::string>> extra;  // a formula's record (kPngFormulaKey)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    extra = shot_extra_;
    r = std::move(shot_result_);
    v = shot_view_;
    c = shot_colouring_;
    palette = shot_palette_;
    path = shot_out_;
    shot_ready_ = false;
  }
  if (!r) return;
  std::string status;
  try {
    if (!shader_) throw std::runtime_error("no colouring shader compiled");
    const render::ShaderFrame f = render::shader_frame(*r);
    std::vector<uint8_t> rgb;
    shader_->colour(f, c, &rgb);
    write_file_atomically(path, app::mandelbrot_png_rgb(v, *r, palette, c, rgb,
                                                         colour_record() + app::scale_record(c, shader_->log_base()),
                                                         extra));
    char msg[600];
    std::snprintf(msg, sizeof msg, "wrote %s (%dx%d, %s, %.2f s%s)", path.c_str(), v.width, v.height,
                  mandel::format_label(*r).c_str(), r->seconds, shot_note_.c_str());
    status = msg;
  } catch (const std::exception& e) {
    status = std::string("screenshot failed: ") + e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  shot_status_ = status;
}

}  // namespace ds::gui
