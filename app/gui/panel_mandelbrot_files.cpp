// The Mandelbrot panel's files: Verify (the shown image against the MPFR oracle), screenshots
// re-rendered at any size with the location embedded, and location files (ours and .kfr).
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "app/io/view_png.h"
#include "kernels/core/atomic_file.h"
#include "kernels/formula/verify.h"
#include "kernels/perturb/oracle.h"
#include "app/cli/render_formula.h"
#include "panel_mandelbrot.h"

namespace ds::gui {

// The shown image against the MPFR oracle at sampled pixels (kernels/perturb/oracle.h), on a
// worker: the same check as `deepscope render --verify N`.
void MandelbrotPanel::draw_verify() {
  ImGui::Separator();
  ImGui::SetNextItemWidth(100 * ImGui::GetIO().FontGlobalScale);
  ImGui::InputInt("##verify samples", &verify_samples_, 16, 256);
  verify_samples_ = std::max(1, std::min(verify_samples_, 65536));
  ImGui::SameLine();
  char label[64];
  std::snprintf(label, sizeof label, "Verify %d pixels", verify_samples_);
  // Only a finished frame: the canvas is free (no render job) and holds the view shown.
  const bool ready = canvas_ && shown_final_ && !job_.running() && !dirty_;
  if (ImGui::Button(label) && ready && !verify_job_.running()) start_verify();
  if (!ready && ImGui::IsItemHovered()) ImGui::SetTooltip("wait for the frame to finish");
  if (verify_job_.running()) {
    job_progress_bar(verify_job_, "verifying", -60);
    ImGui::SameLine();
    if (ImGui::Button("Stop")) verify_job_.cancel();
  }
  std::string status, err = verify_job_.error();
  bool wrong = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status = verify_status_;
    wrong = verify_wrong_;
  }
  if (!err.empty() && !verify_job_.running()) {
    status = "verify failed: " + err;
    wrong = true;
  }
  if (!status.empty())
    text_wrapped_coloured(wrong ? ImVec4(1.0f, 0.45f, 0.4f, 1.0f) : ImVec4(0.6f, 1.0f, 0.6f, 1.0f), status);
}

bool MandelbrotPanel::start_verify_with(int samples) {
  if (!(canvas_ && shown_final_ && !job_.running() && !dirty_) || verify_job_.running()) return false;
  verify_samples_ = std::max(1, std::min(samples, 65536));
  start_verify();
  return true;
}

void MandelbrotPanel::start_verify() {
  auto image = std::make_shared<mandel::RenderResult>();
  image->width = view_.width;
  image->height = view_.height;
  image->max_iter = view_.max_iter;
  // No render job runs: the canvas is ours (with a wide view's high words).
  canvas_->read(&image->counts, &image->smooth, &image->counts_high);
  perturb::oracle::VerifyOptions o;
  o.samples = verify_samples_;
  o.seed =
      ((static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()) >> 1;  // as render
  const View v = view_;
  // A formula or Julia set: its own certified MPFR orbits (kernels/formula/verify.h, what `render
  // --formula --verify` runs), the same samples and report.
  const bool own_orbits = formula_mode();
  const formula::Formula f = formula_;
  const formula::JuliaSeed julia = julia_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    verify_status_ = "verifying " + std::to_string(o.samples) + " pixels in MPFR ...";
    verify_wrong_ = false;
  }
  verify_job_.start([this, v, o, image, own_orbits, f, julia](JobControl& ctl) mutable {
    o.oracle.cancel = &ctl.cancel;
    const auto progress = [&ctl](double p) { ctl.progress = p; };
    perturb::oracle::VerifyReport rep;
    if (own_orbits) {
      formula::FormulaVerifyOptions fo;
      fo.samples = o.samples;
      fo.seed = o.seed;
      fo.julia = julia;
      fo.cancel = &ctl.cancel;
      rep = formula::verify_formula_render(v, f, *image, fo, progress);
    } else {
      rep = perturb::oracle::verify_render(v, *image, o, progress);
    }
    std::string line = rep.summary() + (own_orbits ? " (the formula's own MPFR orbits)" : "");
    if (!rep.cancelled && rep.samples > rep.grid * rep.grid)
      line += " (seed " + std::to_string(rep.seed) + ")";
    // Also on stderr (a scripted session's log; docs/window.md).
    std::fprintf(stderr, "deepscope: %s\n", rep.cancelled ? "verification stopped" : line.c_str());
    std::lock_guard<std::mutex> lock(mutex_);
    verify_status_ = rep.cancelled ? "verification stopped" : line;
    verify_wrong_ = rep.failed();
  });
}

// Screenshots (re-rendered at the chosen size, location embedded) and location files.
void MandelbrotPanel::draw_files() {
  ImGui::Separator();
  ImGui::TextUnformatted("Screenshot (F12)");
  ImGui::InputText("png path", shot_path_, sizeof shot_path_);
  ImGui::Checkbox("custom size", &shot_custom_);
  if (shot_custom_) {
    ImGui::InputInt("width", &shot_w_, 64, 512);
    ImGui::InputInt("height", &shot_h_, 64, 512);
    shot_w_ = std::max(1, std::min(shot_w_, 32768));
    shot_h_ = std::max(1, std::min(shot_h_, 32768));
  }
  finish_screenshot();
  ImGui::BeginDisabled(shot_job_.running() || shot_ready_);
  if (ImGui::Button("Save PNG") || ImGui::IsKeyPressed(GLFW_KEY_F12)) save_screenshot();
  ImGui::EndDisabled();
  if (shot_job_.running()) {
    ImGui::SameLine();
    job_progress_bar(shot_job_, "screenshot");
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string err = shot_job_.error();
    if (!err.empty() && !shot_job_.running()) shot_status_ = "screenshot failed: " + err;
    if (!shot_status_.empty()) ImGui::TextWrapped("%s", shot_status_.c_str());
  }
  ImGui::Separator();
  ImGui::TextUnformatted("Location file (or drop one on the window)");
  ImGui::InputText("path", loc_path_, sizeof loc_path_);
  if (ImGui::Button("Load")) open_file(loc_path_);
  ImGui::SameLine();
  if (loc_picker_.draw("Browse...##location", {".txt", ".kfr", ".toml", ".png"}, loc_path_, sizeof loc_path_))
    open_file(loc_path_);
  ImGui::SameLine();
  if (ImGui::Button("Save")) save_location(false);
  ImGui::SameLine();
  if (ImGui::Button("Save .kfr")) save_location(true);
}

void MandelbrotPanel::save_location(bool kfr) {
  try {
    const std::string name = palette_label_.empty() ? "classic" : palette_label_;
    app::Location loc = app::location_of(view_, name, colouring(view_.max_iter), shown_arith_);
    // The formula and the Julia seed, read back by apply_location.
    if (!formula::is_mandelbrot(formula_)) loc.formula = formula::to_string(formula_);
    if (julia_.on()) {  // format_kfr refuses it: KF reads no seed
      loc.julia_re = julia_.re;
      loc.julia_im = julia_.im;
    }
    // The kf shader's colouring as the window shows it: the palette file's, with the method,
    // differences, ... of the shader's parameters now (a .kfr keeps them, ours names the file).
    if (kfr && shader_ && shader_name_ == "kf" && app::is_kf_palette_file(palette_label_)) {
      app::KfPalette kp = app::read_kfp(palette_label_);
      for (const render::ShaderParam& p : shader_->params()) {
        if (p.name == "color_method") kp.color_method = static_cast<int>(p.value + 0.5f);
        if (p.name == "differences") kp.differences = static_cast<int>(p.value + 0.5f);
        if (p.name == "flat_colour") kp.flat = p.value > 0.5f;
        if (p.name == "phase_strength") kp.phase_strength = p.value;
        if (p.name == "escape_radius") kp.escape_radius = p.value;
        if (p.name == "sqrt_smoothing") kp.sqrt_smoothing = p.value > 0.5f;
        if (p.name == "slopes") kp.slopes = p.value > 0.5f ? 1.0 : 0.0;
        if (p.name == "slope_power") kp.slope_power = p.value;
        if (p.name == "slope_ratio") kp.slope_ratio = p.value;
        if (p.name == "slope_angle") kp.slope_angle = p.value;
        if (p.name == "interior_red") kp.interior.r = static_cast<uint8_t>(p.value + 0.5f);
        if (p.name == "interior_green") kp.interior.g = static_cast<uint8_t>(p.value + 0.5f);
        if (p.name == "interior_blue") kp.interior.b = static_cast<uint8_t>(p.value + 0.5f);
      }
      kp.smooth = blend_;
      loc.kf_colouring = kp;
    }
    std::string path = loc_path_;
    // Save as .kfr: the path's name with .kfr (the field then names the file written).
    if (kfr && !(path.size() > 4 && path.compare(path.size() - 4, 4, ".kfr") == 0)) {
      const size_t dot = path.rfind('.'), slash = path.rfind('/');
      if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) path.erase(dot);
      path += ".kfr";
    }
    write_file_atomically(path, kfr ? app::format_kfr(loc) : app::format_location(loc));
    std::snprintf(loc_path_, sizeof loc_path_, "%s", path.c_str());
    remember_recent(path);
    file_status_ =
        std::string("saved ") + file_name_of(path) +
        (palette_label_.empty() ? " (the edited palette is not in location files: saved as classic)" : "");
  } catch (const std::exception& e) {
    file_status_ = std::string("cannot save: ") + e.what();
  }
}

void MandelbrotPanel::remember_recent(const std::string& path) {
  recent_.erase(std::remove(recent_.begin(), recent_.end(), path), recent_.end());
  recent_.insert(recent_.begin(), path);
  if (recent_.size() > 10) recent_.resize(10);
}

// File: Open (Ctrl+O) opens the location picker, Save (Ctrl+S) writes the location field's file
// (a .kfr by its name), Save as .kfr, and the locations opened or saved this session.
void MandelbrotPanel::draw_file_menu() {
  const ImGuiIO& io = ImGui::GetIO();
  const bool ctrl = io.KeyCtrl && !io.WantTextInput;
  bool open = ctrl && ImGui::IsKeyPressed(GLFW_KEY_O, false);  // ImGui 1.86 indexes keys by GLFW code
  bool save = ctrl && ImGui::IsKeyPressed(GLFW_KEY_S, false);
  if (ImGui::BeginMenuBar()) {
    if (ImGui::BeginMenu("File")) {
      if (ImGui::MenuItem("Open location...", "Ctrl+O")) open = true;
      if (ImGui::MenuItem("Save location", "Ctrl+S")) save = true;
      if (ImGui::MenuItem("Save as .kfr")) save_location(true);
      if (ImGui::MenuItem("Save PNG", "F12", false, !shot_job_.running() && !shot_ready_)) save_screenshot();
      ImGui::Separator();
      if (ImGui::BeginMenu("Recent locations", !recent_.empty())) {
        const std::vector<std::string> list = recent_;  // open_file reorders recent_
        for (const std::string& r : list)
          if (ImGui::MenuItem(r.c_str())) {
            std::snprintf(loc_path_, sizeof loc_path_, "%s", r.c_str());
            open_file(r);
          }
        ImGui::EndMenu();
      }
      ImGui::EndMenu();
    }
    ImGui::EndMenuBar();
  }
  if (open) loc_picker_.open_requested = true;
  if (save) {
    const std::string p = loc_path_;
    save_location(p.size() > 4 && p.compare(p.size() - 4, 4, ".kfr") == 0);
  }
  // What the last open or save did, at the top where Ctrl+O and Ctrl+S are seen.
  if (!file_status_.empty()) {
    const bool bad = file_status_.compare(0, 6, "cannot") == 0;
    text_wrapped_coloured(bad ? ImVec4(1.0f, 0.45f, 0.4f, 1.0f) : ImVec4(0.6f, 1.0f, 0.6f, 1.0f), file_status_);
  }
}

// Rotation and skew (View::pixel_map, which every engine renders): degrees, and a stretch by
// 2^amount along the skew's direction; KF's RotateAngle, StretchAngle and StretchAmount.
void MandelbrotPanel::draw_rotation() {
  bool changed = false;
  float r = static_cast<float>(rotate_deg_), a = static_cast<float>(skew_angle_deg_),
        k = static_cast<float>(skew_log2_);
  changed |= ImGui::SliderFloat("rotation", &r, -180.0f, 180.0f, "%.2f deg");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("turns the picture (KF's RotateAngle); ctrl+click to type");
  changed |= ImGui::SliderFloat("skew angle", &a, -90.0f, 90.0f, "%.2f deg");
  changed |= ImGui::SliderFloat("skew amount", &k, -4.0f, 4.0f, "%.3f");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("stretch by 2^amount along the skew angle (KF's StretchAmount)");
  if (ImGui::SmallButton("no rotation or skew")) {
    r = a = k = 0;
    changed = true;
  }
  if (!changed) return;
  View v = view_;
  const app::PixelMap m = app::rotation_skew_map(r, a, k);
  for (int i = 0; i < 4; ++i) v.pixel_map[i] = m[static_cast<size_t>(i)];
  try {
    mandel::geometry(v);
    set_view(v);
    rotate_deg_ = r;  // as set, not as decomposed again (a zero skew has no angle)
    skew_angle_deg_ = a;
    skew_log2_ = k;
  } catch (const std::exception& e) {
    message_ = e.what();
  }
}

void MandelbrotPanel::save_screenshot() {
  View v = view_;
  if (shot_custom_) {
    v.width = shot_w_;
    v.height = shot_h_;
  }
  const std::string path = shot_path_;
  try {
    check_writable(path);
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    shot_status_ = std::string("screenshot failed: ") + e.what();
    return;
  }
  // Antialiasing: the window's own size is saved from the finished refinement (the same samples as
  // `render --aa N`); another size is rendered once, plain, and says so.
  shot_note_.clear();
  if (formula_mode()) {  // formula::render with its record in the PNG, as `render --formula`
    const formula::Formula f = formula_;
    const formula::FormulaOptions base = formula_options();
    const colour::Colouring col = colouring(v.max_iter);
    const std::string palette = palette_label_.empty() ? "classic" : palette_label_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      shot_status_ = "rendering " + path + " ...";
    }
    if (aa_ > 1) shot_note_ = "; not antialiased: formulas are not antialiased yet";
    shot_job_.start([this, v, f, base, col, palette, path](JobControl& ctl) {
      formula::FormulaOptions o = base;
      o.cancel = &ctl.cancel;
      o.progress = [&ctl](double p) { ctl.progress = p; };
      formula::FormulaReport rep;
      auto r = std::make_unique<mandel::RenderResult>(formula::render(v, f, o, &rep));
      if (r->cancelled) return;
      app::note_formula_report(rep, r.get());  // the PNG's direct record says what the formula's does
      if (rep.unresolved) {
        std::lock_guard<std::mutex> lock(mutex_);
        shot_note_ += "; " + std::to_string(rep.unresolved) + " pixels UNRESOLVED (said in the PNG)";
      }
      publish_shot(std::move(r), v, col, palette, path,
                   {{app::kPngFormulaKey, app::formula_text(f, rep, o.julia)}});
    });
    return;
  }
  if (aa_ > 1 && !shot_custom_) {
    std::string status;
    if (refined_samples_ < aa_ * aa_ || recolour_) {  // recolour_: a colouring change not yet drawn
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "not saved: the antialiasing is at %d of %d samples (wait for it, or use a custom size)",
                    refined_samples_, aa_ * aa_);
      status = buf;
    } else {
      try {
        save_refined_screenshot(path);
        return;
      } catch (const std::exception& e) {
        status = std::string("screenshot failed: ") + e.what();
      }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    shot_status_ = status;
    return;
  }
  if (aa_ > 1) shot_note_ = "; not antialiased: the window antialiases its own size only";
  mandel::RenderOptions opt = engine_options();
  const colour::Colouring col = colouring(v.max_iter);
  const std::string palette = palette_label_.empty() ? "classic" : palette_label_;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shot_status_ = "rendering " + path + " ...";
  }
  // The worker renders; the frame loop colours it with the window's shader (finish_screenshot).
  shot_job_.start([this, v, opt, col, palette, path](JobControl& ctl) mutable {
    opt.cancel = &ctl.cancel;
    opt.progress = [&ctl](double p) { ctl.progress = p; };
    auto r = std::make_unique<mandel::RenderResult>(mandel::render(v, opt));
    if (r->cancelled) return;
    publish_shot(std::move(r), v, col, palette, path, {});
  });
}

void MandelbrotPanel::publish_shot(std::unique_ptr<mandel::RenderResult> r, const View& v,
                                   const colour::Colouring& col, const std::string& palette,
                                   const std::string& path,
                                   std::vector<std::pair<std::string, std::string>> extra) {
  std::lock_guard<std::mutex> lock(mutex_);
  shot_extra_ = std::move(extra);
  shot_result_ = std::move(r);
  shot_view_ = v;
  shot_colouring_ = col;
  shot_palette_ = palette;
  shot_out_ = path;
  shot_ready_ = true;
}
}  // namespace ds::gui
