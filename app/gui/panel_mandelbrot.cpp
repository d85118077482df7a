// The Mandelbrot workspace: controls on the left, the image on the right. Rendering runs on a
// worker (coarse pass first, then full resolution in bands) through the same engine call as
// `deepscope render`, into canvases that stay on the GPU when there is one; CUDA-GL interop puts
// them on screen (render/canvas_texture.h). The previous image, scaled, stands in while the view
// changes.
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "kernels/core/atomic_file.h"
#include "jobs.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/mandelbrot/navigate.h"
#include "kernels/colour/palette.h"
#include "kernels/perturb/oracle.h"
#include "panels.h"
#include "kernels/colour/canvas.h"
#include "render/canvas_texture.h"
#include "app/io/view_png.h"

namespace ds::gui {
namespace {

using mandel::View;


class MandelbrotPanel final : public Panel {
 public:
  MandelbrotPanel() {
    std::strncpy(re_buf_, view_.re.c_str(), sizeof re_buf_ - 1);
    std::strncpy(im_buf_, view_.im.c_str(), sizeof im_buf_ - 1);
    std::strncpy(zoom_buf_, view_.zoom.c_str(), sizeof zoom_buf_ - 1);
    view_.max_iter = 1000;
  }

  // The workers use the canvases, the mutex and the pending frame: stop them before any member goes.
  ~MandelbrotPanel() override {
    job_.cancel();
    shot_job_.cancel();
    verify_job_.cancel();
  }

  const char* title() const override { return "Mandelbrot"; }

  // A dropped location file (ours, .kfr) or a PNG this program wrote.
  bool open_file(const std::string& path) override {
    try {
      apply_location(app::read_location_file(path));
      file_status_ = "opened " + path;
    } catch (const std::exception& e) {
      file_status_ = std::string("cannot open: ") + e.what();
    }
    return true;
  }
  bool busy() const override {
    return job_.running() || !shown_final_ || shot_job_.running() || verify_job_.running();
  }

  // Scripted sessions (script.h): the image rectangle handle_mouse saw last frame, and the
  // screenshot path field.
  bool image_rect(ImageRect* r) const override {
    if (image_size_.x <= 0 || image_size_.y <= 0) return false;
    *r = ImageRect{image_origin_.x, image_origin_.y, image_size_.x, image_size_.y, view_.width, view_.height};
    return true;
  }
  bool set_screenshot_path(const std::string& path) override {
    if (path.empty() || path.size() >= sizeof shot_path_) return false;
    std::snprintf(shot_path_, sizeof shot_path_, "%s", path.c_str());
    return true;
  }

 private:
  ImVec2 image_origin_{0, 0}, image_size_{0, 0};

 public:
  void draw() override {
    ImGui::BeginChild("controls", ImVec2(310 * ImGui::GetIO().FontGlobalScale, 0), true);
    draw_controls();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("image", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    draw_image();
    ImGui::EndChild();
    if (show_help_) draw_help();
  }

 private:
  void set_view(const View& v, bool record = true) {
    if (record) {
      history_.resize(history_pos_ + 1);
      history_.push_back(v);
      history_pos_ = history_.size() - 1;
    }
    view_ = v;
    std::snprintf(re_buf_, sizeof re_buf_, "%s", v.re.c_str());
    std::snprintf(im_buf_, sizeof im_buf_, "%s", v.im.c_str());
    std::snprintf(zoom_buf_, sizeof zoom_buf_, "%s", v.zoom.c_str());
    dirty_ = true;
  }

  void draw_controls() {
    ImGui::TextUnformatted("Location");
    bool edited = false;
    edited |= ImGui::InputText("re", re_buf_, sizeof re_buf_, ImGuiInputTextFlags_EnterReturnsTrue);
    edited |= ImGui::InputText("im", im_buf_, sizeof im_buf_, ImGuiInputTextFlags_EnterReturnsTrue);
    edited |= ImGui::InputText("zoom", zoom_buf_, sizeof zoom_buf_, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::Button("Go") || edited) {
      View v = view_;
      v.re = re_buf_;
      v.im = im_buf_;
      v.zoom = zoom_buf_;
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
    int iter = static_cast<int>(view_.max_iter);
    if (ImGui::InputInt("iterations", &iter, 100, 1000, ImGuiInputTextFlags_EnterReturnsTrue) ||
        ImGui::IsItemDeactivatedAfterEdit()) {
      view_.max_iter = static_cast<uint32_t>(std::max(1, std::min(iter, 100000000)));
      dirty_ = true;
    }
    ImGui::SliderFloat("click zoom", &click_factor_, 1.5f, 16.0f, "x%.1f", ImGuiSliderFlags_Logarithmic);

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

    const auto& names = colour::palette_names();
    if (ImGui::BeginCombo("palette", names[palette_index_].c_str())) {
      for (size_t k = 0; k < names.size(); ++k)
        if (ImGui::Selectable(names[k].c_str(), palette_index_ == static_cast<int>(k))) {
          palette_index_ = static_cast<int>(k);
          recolour_ = true;  // the canvas keeps counts: no new render
        }
      ImGui::EndCombo();
    }
    if (ImGui::SliderFloat("density", &density_, 0.05f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic)) recolour_ = true;
    if (ImGui::SliderFloat("offset", &offset_, 0.0f, 1.0f)) recolour_ = true;

    ImGui::Separator();
    if (job_.running()) {
      ImGui::ProgressBar(static_cast<float>(job_.progress()), ImVec2(-1, 0), "rendering");
    } else {
      ImGui::ProgressBar(1.0f, ImVec2(-1, 0), "done");
    }
    // Wrapped: the perturbation line carries the glitch counts, which must be seen, not cut off.
    ImGui::TextWrapped("format: %s  backend: %s", shown_arith_.c_str(), shown_backend_.c_str());
    ImGui::Text("display: %s", display_path_.c_str());
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
    if (!message_.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", message_.c_str());
    draw_verify();
    draw_files();
    ImGui::TextDisabled("F1: shortcuts and mouse");
    if (ImGui::IsKeyPressed(GLFW_KEY_F1)) show_help_ = !show_help_;  // ImGui 1.86 indexes keys by GLFW code
  }

  void apply_location(const app::Location& loc) {
    View v = view_;
    app::apply_to_view(loc, &v, false);  // the window keeps its size
    mandel::geometry(v);                  // throws for a location no format can show
    notice_.clear();
    for (const std::string& w : loc.warnings) notice_ += (notice_.empty() ? "" : "\n") + w;
    if (loc.palette) {
      const auto& names = colour::palette_names();
      for (size_t k = 0; k < names.size(); ++k)
        if (names[k] == *loc.palette) palette_index_ = static_cast<int>(k);
    }
    if (loc.density) density_ = static_cast<float>(*loc.density);
    if (loc.offset) offset_ = static_cast<float>(*loc.offset);
    set_view(v);
  }

  colour::Colouring colouring(uint32_t max_iter) const {
    colour::Colouring col;
    col.palette = colour::palette_by_name(colour::palette_names()[palette_index_]);
    col.density = density_;
    col.offset = offset_;
    col.max_iter = max_iter;
    return col;
  }

  // The shown image against the MPFR oracle at sampled pixels (kernels/perturb/oracle.h), on a
  // worker: the same check as `deepscope render --verify N`.
  void draw_verify() {
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
      ImGui::ProgressBar(static_cast<float>(verify_job_.progress()), ImVec2(-60, 0), "verifying");
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
      ImGui::TextColored(wrong ? ImVec4(1.0f, 0.45f, 0.4f, 1.0f) : ImVec4(0.6f, 1.0f, 0.6f, 1.0f), "%s",
                         status.c_str());
  }

  void start_verify() {
    auto image = std::make_shared<mandel::RenderResult>();
    image->width = view_.width;
    image->height = view_.height;
    canvas_->read(&image->counts, &image->smooth);  // no render job runs: the canvas is ours
    perturb::oracle::VerifyOptions o;
    o.samples = verify_samples_;
    o.seed = ((static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}()) >> 1;  // as render
    const View v = view_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      verify_status_ = "verifying " + std::to_string(o.samples) + " pixels in MPFR ...";
      verify_wrong_ = false;
    }
    verify_job_.start([this, v, o, image](JobControl& ctl) mutable {
      o.oracle.cancel = &ctl.cancel;
      const perturb::oracle::VerifyReport rep =
          perturb::oracle::verify_render(v, *image, o, [&ctl](double p) { ctl.progress = p; });
      std::string line = rep.summary();
      if (!rep.cancelled && rep.samples > rep.grid * rep.grid)
        line += " (seed " + std::to_string(rep.seed) + ")";
      std::lock_guard<std::mutex> lock(mutex_);
      verify_status_ = rep.cancelled ? "verification stopped" : line;
      verify_wrong_ = rep.failed();
    });
  }

  // Screenshots (re-rendered at the chosen size, location embedded) and location files.
  void draw_files() {
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
    ImGui::BeginDisabled(shot_job_.running());
    if (ImGui::Button("Save PNG") || ImGui::IsKeyPressed(GLFW_KEY_F12)) save_screenshot();
    ImGui::EndDisabled();
    if (shot_job_.running()) {
      ImGui::SameLine();
      ImGui::ProgressBar(static_cast<float>(shot_job_.progress()), ImVec2(-1, 0));
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
    if (ImGui::Button("Save")) save_location(false);
    ImGui::SameLine();
    if (ImGui::Button("Save .kfr")) save_location(true);
    if (!file_status_.empty()) ImGui::TextWrapped("%s", file_status_.c_str());
  }

  void save_location(bool kfr) {
    try {
      const std::string name = palette_names_at(palette_index_);
      app::Location loc = app::location_of(view_, name, colouring(view_.max_iter), shown_arith_);
      write_file_atomically(loc_path_, kfr ? app::format_kfr(loc) : app::format_location(loc));
      file_status_ = std::string("saved ") + loc_path_;
    } catch (const std::exception& e) {
      file_status_ = std::string("cannot save: ") + e.what();
    }
  }

  static std::string palette_names_at(int k) { return colour::palette_names()[static_cast<size_t>(k)]; }

  void save_screenshot() {
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
    mandel::RenderOptions opt;
    if (arith_index_ > 0) opt.arith = all_ariths()[arith_index_ - 1];
    if (arith_index_ < 0) opt.method = mandel::Method::kPerturb;
    const colour::Colouring col = colouring(v.max_iter);
    const std::string palette = palette_names_at(palette_index_);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      shot_status_ = "rendering " + path + " ...";
    }
    shot_job_.start([this, v, opt, col, palette, path](JobControl& ctl) mutable {
      opt.cancel = &ctl.cancel;
      opt.progress = [&ctl](double p) { ctl.progress = p; };
      mandel::RenderResult r = mandel::render(v, opt);
      if (r.cancelled) return;
      write_file_atomically(path, app::mandelbrot_png(v, r, palette, col));
      char msg[600];
      std::snprintf(msg, sizeof msg, "wrote %s (%dx%d, %s, %.2f s)", path.c_str(), v.width, v.height,
                    mandel::format_label(r).c_str(), r.seconds);
      std::lock_guard<std::mutex> lock(mutex_);
      shot_status_ = msg;
    });
  }

  void draw_help() {
    ImGui::SetNextWindowBgAlpha(0.9f);
    ImGui::Begin("Shortcuts", &show_help_, ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::TextUnformatted(
        "left click      zoom in at the point (by 'click zoom')\n"
        "right click     zoom out\n"
        "wheel           zoom at the cursor\n"
        "drag (left)     pan\n"
        "Ctrl+Z / Ctrl+Y undo / redo location\n"
        "Home            whole set\n"
        "F12             save a screenshot (PNG with the location)\n"
        "drop a file     open a location, .kfr or deepscope PNG\n"
        "F1              this help");
    ImGui::End();
  }

  void go_home() {
    View v = view_;
    v.re = "-0.5";
    v.im = "0";
    v.zoom = "1";
    set_view(v);
  }

  void undo() {
    if (history_pos_ == 0) return;
    --history_pos_;
    set_view(history_[history_pos_], false);
  }
  void redo() {
    if (history_pos_ + 1 >= history_.size()) return;
    ++history_pos_;
    set_view(history_[history_pos_], false);
  }

  // Keeps the shown texture's uv rectangle in step with navigation until the new image arrives.
  void track_zoom(double fx, double fy, double factor) {
    float px = uv0_.x + static_cast<float>(fx) * (uv1_.x - uv0_.x);
    float py = uv0_.y + static_cast<float>(fy) * (uv1_.y - uv0_.y);
    uv0_ = ImVec2(px + (uv0_.x - px) / static_cast<float>(factor), py + (uv0_.y - py) / static_cast<float>(factor));
    uv1_ = ImVec2(px + (uv1_.x - px) / static_cast<float>(factor), py + (uv1_.y - py) / static_cast<float>(factor));
  }

  void draw_image() {
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
    ImVec2 origin = ImGui::GetCursorScreenPos();
    if (display_.texture().id()) {
      ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(display_.texture().id())), avail, uv0_, uv1_);
    } else {
      ImGui::Dummy(avail);
    }
    handle_mouse(origin, avail);
    if (dirty_) start_render();
  }

  void handle_mouse(ImVec2 origin, ImVec2 size) {
    image_origin_ = origin, image_size_ = size;  // for image_rect()
    ImGuiIO& io = ImGui::GetIO();
    if (!ImGui::IsItemHovered()) return;
    double fx = (io.MousePos.x - origin.x) / size.x, fy = (io.MousePos.y - origin.y) / size.y;
    double x = fx * view_.width, y = fy * view_.height;
    try {
      if (io.KeyCtrl && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Z))) undo();
      if (io.KeyCtrl && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Y))) redo();
      if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home))) go_home();
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
      if (ImGui::IsMouseClicked(ImGuiMouseButton_Right)) {
        set_view(mandel::zoom_about(view_, x, y, 1.0 / click_factor_));
        track_zoom(fx, fy, 1.0 / click_factor_);
      }
    } catch (const std::exception& e) {
      message_ = e.what();
    }
  }

  // Renders the view on a worker: a quarter-resolution pass into the preview canvas, then full
  // resolution in bands into the canvas, each step published for the frame loop to show. The
  // canvases hold counts, not colours, on the GPU when there is one (kernels/colour/canvas.h): showing
  // them is a colouring kernel writing the GL texture's buffer through CUDA-GL interop
  // (render/canvas_texture.h), and a palette change recolours without rendering.
  void start_render() {
    dirty_ = false;
    shown_final_ = false;
    job_.cancel();  // joins: the canvases are free to replace
    if (verify_job_.running()) {
      verify_job_.cancel();  // its result would describe the view before this one
      std::lock_guard<std::mutex> lock(mutex_);
      verify_status_ = "verification stopped: the view changed";
    }
    View v = view_;
    const Backend want = use_cpu_ ? Backend::kCpu : Backend::kAuto;
    try {
      if (!canvas_ || canvas_->width() != v.width || canvas_->height() != v.height || want != canvas_want_) {
        canvas_.reset();
        preview_.reset();
        canvas_ = std::make_unique<colour::Canvas>(v.width, v.height, want);
        preview_ = std::make_unique<colour::Canvas>(std::max(1, v.width / 4), std::max(1, v.height / 4),
                                                    canvas_->backend(), canvas_->cuda_device());
        canvas_want_ = want;
        shown_ = Published{};
        if (canvas_->backend() == Backend::kCpu && !use_cpu_) {
          select_backend(Backend::kAuto, &notice_);  // "no usable CUDA device (why): running on the CPU"
        }
      }
    } catch (const std::exception& e) {
      message_ = std::string("cannot allocate the image: ") + e.what();
      canvas_.reset();
      preview_.reset();
      return;
    }
    mandel::RenderOptions opt;
    if (arith_index_ > 0) opt.arith = all_ariths()[arith_index_ - 1];
    if (arith_index_ < 0) opt.method = mandel::Method::kPerturb;
    uint64_t gen = ++generation_;
    message_.clear();
    colour::Canvas* full = canvas_.get();
    colour::Canvas* coarse_canvas = preview_.get();
    job_.start([this, v, opt, gen, full, coarse_canvas](JobControl& ctl) mutable {
      opt.cancel = &ctl.cancel;
      View coarse = v;  // the same view, pixels 4x larger
      coarse.width = coarse_canvas->width();
      coarse.height = coarse_canvas->height();
      opt.progress = [&ctl](double p) { ctl.progress = 0.1 * p; };
      mandel::RenderResult r = coarse_canvas->render_rows(coarse, opt, 0, coarse.height);
      if (r.cancelled || ctl.cancel) return;
      Published p;
      p.generation = gen;
      p.max_iter = v.max_iter;
      p.arith = shown_format(r);
      p.backend = mandel::backend_name(r.backend);
      publish(p);
      const int band = std::max(16, v.height / 16);
      mandel::PerturbInfo frame;  // the bands' glitch and interior counts, summed over the frame
      for (int y0 = 0; y0 < v.height; y0 += band) {
        const int y1 = std::min(v.height, y0 + band);
        opt.progress = [&ctl, y0, &v, band](double q) { ctl.progress = 0.1 + 0.9 * (y0 + q * band) / v.height; };
        mandel::RenderResult b = full->render_rows(v, opt, y0, y1);
        if (b.cancelled || ctl.cancel) return;
        p.rows_done = y1;
        p.final = y1 >= v.height;
        p.seconds += b.seconds;
        p.iterations += b.iterations;
        frame.glitch_pixels += b.perturb.glitch_pixels;
        frame.glitch_corrected += b.perturb.glitch_corrected;
        frame.glitch_unresolved += b.perturb.glitch_unresolved;
        frame.interior_pixels += b.perturb.interior_pixels;
        b.perturb.glitch_pixels = frame.glitch_pixels;
        b.perturb.glitch_corrected = frame.glitch_corrected;
        b.perturb.glitch_unresolved = frame.glitch_unresolved;
        b.perturb.interior_pixels = frame.interior_pixels;
        p.arith = shown_format(b);
        publish(p);
      }
    });
  }

  // The format line: the format, or for perturbation its delta type, reference time, BLA share, and
  // the frame's interior and glitch counts (unresolved ones said plainly).
  static std::string shown_format(const mandel::RenderResult& r) {
    std::string s = mandel::format_label(r);
    if (r.method != mandel::Method::kPerturb) return s;
    char buf[320];
    const mandel::PerturbInfo& pi = r.perturb;
    std::snprintf(buf, sizeof buf, " (reference %s%.2f s, %.0f%% by BLA; %llu interior; glitches %llu flagged, %llu corrected%s)",
                  pi.reference_reused ? "reused, " : "", pi.reference_seconds,
                  r.iterations ? 100.0 * static_cast<double>(pi.bla_skipped) / r.iterations : 0.0,
                  static_cast<unsigned long long>(pi.interior_pixels), static_cast<unsigned long long>(pi.glitch_pixels),
                  static_cast<unsigned long long>(pi.glitch_corrected),
                  pi.glitch_unresolved ? (", " + std::to_string(pi.glitch_unresolved) + " UNRESOLVED: not right").c_str() : "");
    return s + buf;
  }

  // What the worker has finished for a generation: the frame loop shows rows [0, rows_done) of the
  // canvas and the preview below them.
  struct Published {
    uint64_t generation = 0;
    int rows_done = 0;
    bool final = false;
    uint32_t max_iter = 0;
    double seconds = 0;
    uint64_t iterations = 0;
    std::string arith, backend;
  };

  void publish(const Published& p) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = p;
    has_pending_ = true;
  }

  // Shows newly finished rows, or recolours what is shown after a palette change.
  void poll_frame() {
    bool fresh = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (has_pending_ && pending_.generation == generation_) {
        if (shown_.generation != pending_.generation) {
          uv0_ = ImVec2(0, 0);
          uv1_ = ImVec2(1, 1);
        }
        shown_ = pending_;
        fresh = true;
      }
      has_pending_ = false;
    }
    if (!canvas_ || shown_.generation == 0 || shown_.generation != generation_) return;
    if (!fresh && !recolour_) return;
    recolour_ = false;
    try {
      const render::DisplayPath path = display_.show(*canvas_, colouring(shown_.max_iter), shown_.rows_done, preview_.get());
      display_path_ = render::display_path_name(path);
    } catch (const std::exception& e) {
      gpu_failed(e.what());
      return;
    }
    shown_arith_ = shown_.arith;
    shown_backend_ = shown_.backend;
    shown_seconds_ = shown_.seconds;
    shown_iterations_ = static_cast<double>(shown_.iterations);
    shown_final_ = shown_.final;
  }

  // A CUDA failure (a lost device, say): the CPU takes over, with a notice.
  void gpu_failed(const std::string& why) {
    if (use_cpu_ || !canvas_ || canvas_->backend() != Backend::kCuda) {
      message_ = why;
      return;
    }
    use_cpu_ = true;
    notice_ = "the GPU failed (" + why + "); rendering on the CPU";
    dirty_ = true;
  }

  View view_;
  std::vector<View> history_;
  size_t history_pos_ = 0;
  char re_buf_[4096] = {}, im_buf_[4096] = {}, zoom_buf_[256] = {};
  float click_factor_ = 4.0f, density_ = 1.0f, offset_ = 0.0f;
  int arith_index_ = 0, palette_index_ = 0;
  bool dirty_ = true, dragged_ = false, show_help_ = false, shown_final_ = false, recolour_ = false;
  bool use_cpu_ = false;  // after a GPU failure
  std::string message_, notice_, shown_arith_ = "-", shown_backend_ = "-", display_path_ = "-";
  double shown_seconds_ = 0, shown_iterations_ = 0;
  // The canvases the worker renders into (replaced only while no job runs) and the texture.
  std::unique_ptr<colour::Canvas> canvas_, preview_;
  Backend canvas_want_ = Backend::kAuto;
  render::CanvasTexture display_;
  ImVec2 uv0_{0, 0}, uv1_{1, 1};
  BackgroundJob job_, shot_job_, verify_job_;
  int verify_samples_ = 64;
  std::string verify_status_;  // guarded by mutex_ (the verify worker writes it)
  bool verify_wrong_ = false;
  char shot_path_[512] = "deepscope-shot.png", loc_path_[512] = "location.txt";
  int shot_w_ = 3840, shot_h_ = 2160;
  bool shot_custom_ = false;
  std::string shot_status_, file_status_;
  std::mutex mutex_;
  Published pending_, shown_;
  bool has_pending_ = false;
  uint64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Panel> make_mandelbrot_panel() { return std::make_unique<MandelbrotPanel>(); }

}  // namespace ds::gui
