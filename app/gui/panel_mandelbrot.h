// The Mandelbrot panel's class, shared by its three files: panel_mandelbrot.cpp (controls,
// navigation, the image and the mouse), panel_mandelbrot_render.cpp (the render worker and the
// frames it publishes), panel_mandelbrot_files.cpp (Verify, screenshots, location files) and
// panel_mandelbrot_find.cpp (the feature finder and the image's menu), panel_mandelbrot_zoom.cpp
// (the animated zoom, the period under the mouse, the found minibrot's overlay, auto iterations),
// panel_mandelbrot_colour.cpp (the colouring shader, its parameters, the palette editor, .kfp) and
// panel_mandelbrot_aa.cpp (progressive antialiasing of a finished frame),
// panel_mandelbrot_formula.cpp (the formula selector, the Julia toggle and their renders).
// Private to app/gui: the window knows the panel only through make_mandelbrot_panel() (panels.h).
#pragma once
#include <imgui.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/cli/antialias.h"
#include "app/io/kfp.h"
#include "app/io/location.h"
#include "file_picker.h"
#include "jobs.h"
#include "kernels/colour/canvas.h"
#include "kernels/colour/palette.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/julia.h"
#include "kernels/formula/render.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "panels.h"
#include "render/canvas_shading.h"
#include "render/canvas_texture.h"
#include "render/colour_shader.h"
#include "render/gl_texture.h"

namespace ds::gui {

// A path's file name (the panel shows names; tooltips and files keep the whole path).
inline std::string file_name_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Coloured text wrapped at the panel's edge (an error or a notice is read whole, never clipped).
inline void text_wrapped_coloured(const ImVec4& colour, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

class MandelbrotPanel final : public Panel {
 public:
  MandelbrotPanel();
  // The workers use the canvases, the mutex and the pending frame: stop them before any member goes.
  ~MandelbrotPanel() override;

  const char* title() const override { return "Mandelbrot"; }
  bool open_file(const std::string& path) override;
  bool busy() const override;
  bool image_rect(ImageRect* r) const override;
  bool set_screenshot_path(const std::string& path) override;
  bool set_shader(const std::string& name_or_file) override {
    choose_shader(name_or_file);
    return true;
  }
  bool set_palette(const std::string& name_or_kfp) override;
  bool open_picker(const std::string& which) override {
    FilePicker* p = which == "shader"     ? &shader_picker_
                    : which == "palette"  ? &kfp_picker_
                    : which == "location" ? &loc_picker_
                                          : nullptr;
    if (p) p->open_requested = true;
    return p != nullptr;
  }
  bool set_antialias(int n) override;
  bool start_verify_with(int samples) override;
  // Scripts (docs/window.md): formula=NAME, julia=RE,IM or julia=off, re=, im=, zoom=, iter=.
  bool run_with(const std::string& settings, std::string* error) override;
  void draw() override;

 private:
  using View = mandel::View;

  // What the worker has finished for a generation: the frame loop shows rows [0, rows_done) of the
  // canvas and the preview below them.
  struct Published {
    uint64_t generation = 0;
    int rows_done = 0;
    bool final = false;
    uint64_t max_iter = 0;
    double seconds = 0;
    uint64_t iterations = 0;
    std::string arith, backend;
    bool glimpse = false;  // the rows below rows_done come from glimpse_ (the 1/4 pass is not done)
  };
  // The canvas the shown frame takes its unfinished rows from: the 1/16 glimpse until the 1/4 pass
  // is done, then the 1/4 preview.
  const colour::Canvas* shown_preview() const { return shown_.glimpse ? glimpse_.get() : preview_.get(); }

  // Controls, navigation, the image and the mouse (panel_mandelbrot.cpp).
  void set_view(const View& v, bool record = true);
  void draw_controls();
  void apply_location(const app::Location& loc, const std::string& path = "");
  colour::Colouring colouring(uint64_t max_iter) const;
  void draw_help();
  void go_home();
  void undo();
  void redo();
  void track_zoom(double fx, double fy, double factor);
  void draw_image();
  void handle_mouse(ImVec2 origin, ImVec2 size);

  // Verify, screenshots and location files (panel_mandelbrot_files.cpp).
  void draw_verify();
  void start_verify();
  void draw_files();
  void save_location(bool kfr);
  // The File menu (Open Ctrl+O, Save Ctrl+S, Save as .kfr, recent locations) and the location
  // picker it opens; the rotation and skew of the view (panel_mandelbrot_files.cpp).
  void draw_file_menu();
  void remember_recent(const std::string& path);
  void draw_rotation();
  void save_screenshot();

  // The feature finder (panel_mandelbrot_find.cpp).
  enum class FindKind { kMinibrot, kMisiurewicz, kPeriod };
  void draw_find();
  void start_find(FindKind kind, bool at_pixel, int px, int py);
  void draw_image_menu();  // the image's context menu (right button held, or the Menu key)

  // The animated zoom, the period under the mouse, the overlay, auto iterations
  // (panel_mandelbrot_zoom.cpp).
  void start_zoom_animation(const View& target);
  void step_zoom_animation();
  void hover_period(bool hovered, int px, int py);
  void draw_overlay(ImVec2 origin, ImVec2 size);
  void apply_auto_iterations();

  // Colouring (panel_mandelbrot_colour.cpp): the image is drawn through a GLSL colouring shader in
  // the window's GL context (render/colour_shader.h), the same shader and call as `render`.
  void draw_colouring();
  void choose_shader(const std::string& name_or_file);
  void check_shader_file();
  void load_kfp(const std::string& path);
  // A KF palette (a .kfp, or a .kfr's colouring): its table, IterDiv and ColorOffset as density and
  // offset, and with a colour method (or `method`) the kf shader with the file's parameters.
  void apply_kf(const app::KfPalette& kp, const std::string& label, bool method);
  void set_builtin_palette(const std::string& name);
  // Colours the canvases into shaded_ (data_changed false: only the colouring did, and the data
  // textures are drawn again as they are); false: no shader.
  bool shade(int rows_done, bool data_changed);
  void finish_screenshot();   // colours a screenshot render here and writes its PNG
  // A worker's finished screenshot render, with what colours it, for finish_screenshot (takes mutex_).
  void publish_shot(std::unique_ptr<mandel::RenderResult> r, const View& v, const colour::Colouring& col,
                    const std::string& palette, const std::string& path,
                    std::vector<std::pair<std::string, std::string>> extra);
  std::string colour_record() const;

  // Progressive antialiasing (panel_mandelbrot_aa.cpp): once a frame is final, aa_offsets(aa_)'s
  // shifted renders one at a time on refine_job_, each coloured here by the window's shader and
  // averaged by app::SampleMean on the worker; the mean is shown after every sample.
  void draw_antialias();
  void start_refine();
  void restart_refine();  // drops the samples (a new render, a colouring or shader change)
  void poll_refine();     // the frame loop's side: colours a waiting sample, shows a new mean
  bool refine_pending() const;
  void save_refined_screenshot(const std::string& path);  // throws what the write throws

  // Formulas other than z^2 + c and Julia sets (panel_mandelbrot_formula.cpp): drawn by
  // formula::render, the call `deepscope render --formula/--julia-re` makes, on the CPU in whole
  // frames (its preview passes too). What works only on z^2 + c's parameter plane (the finder, the
  // period under the mouse, Verify, antialiasing, auto iterations) says so instead of running.
  bool formula_mode() const { return !formula::is_mandelbrot(formula_) || julia_.on(); }
  std::string plane_label() const;  // "burning-ship", "mandelbrot, Julia set of c = ..."
  void draw_formula();
  void set_formula(const std::string& text);  // throws formula::FormulaError
  // J under the mouse: the Julia set of the pixel's c (centred at 0, zoom 1), or back to the
  // parameter-plane view it left (centred at the seed when there is none).
  void toggle_julia(double x, double y);
  void start_formula_render(const View& v, uint64_t gen, colour::Canvas* full, colour::Canvas* coarse,
                            colour::Canvas* glimpse, bool coarse_only);
  // The formula options for views of this panel (its Julia seed, the arithmetic combo's path).
  formula::FormulaOptions formula_options() const;

  // The render worker and the frames it publishes (panel_mandelbrot_render.cpp).
  void start_render();
  static std::string shown_format(const mandel::RenderResult& r);
  void publish(const Published& p);
  void poll_frame();
  void gpu_failed(const std::string& why);

  ImVec2 image_origin_{0, 0}, image_size_{0, 0};
  View view_;
  std::vector<View> history_;
  size_t history_pos_ = 0;
  char re_buf_[4096] = {}, im_buf_[4096] = {}, zoom_buf_[256] = {};
  float click_factor_ = 4.0f, density_ = 1.0f, offset_ = 0.0f;
  int arith_index_ = 0;
  int stripe_density_ = mandel::RenderOptions{}.stripe_density;
  float stripe_memory_ = static_cast<float>(mandel::RenderOptions{}.stripe_memory);
  mandel::RenderOptions engine_options() const;
  bool dirty_ = true, dragged_ = false, show_help_ = false, shown_final_ = false, recolour_ = false;
  bool use_cpu_ = false;  // after a GPU failure
  std::string message_, notice_, shown_arith_ = "-", shown_backend_ = "-", display_path_ = "-";
  double shown_seconds_ = 0, shown_iterations_ = 0;
  // The canvases the worker renders into (replaced only while no job runs) and the texture.
  // The full image, its 1/4-resolution preview, and a 1/16 glimpse rendered first, so that a view whose
  // 1/4 pass takes long (deep, on the CPU) shows itself within a 256th of the image's time.
  std::unique_ptr<colour::Canvas> canvas_, preview_, glimpse_;
  Backend canvas_want_ = Backend::kAuto;
  render::CanvasTexture display_;
  ImVec2 uv0_{0, 0}, uv1_{1, 1};
  BackgroundJob job_, shot_job_, verify_job_, find_job_;
  float find_fit_ = 0.5f, find_radius_ = 4.0f;
  std::string find_status_;  // guarded by mutex_, as find_failed_ and find_view_
  bool find_failed_ = false;
  std::atomic<bool> find_ready_{false};  // also read by busy()
  View find_view_;
  // The last minibrot found (guarded by mutex_ while the finder writes it).
  struct FoundMinibrot {
    bool valid = false;
    std::string re, im;
    double log2_size = 0, log2_domain = 0, orientation = 0;
    uint32_t period = 0;
  } found_;
  // The last Misiurewicz point found (guarded by mutex_ as found_), drawn as a marker.
  struct FoundMisiurewicz {
    bool valid = false;
    std::string re, im;
    int preperiod = 0, period = 0;
  } found_misiurewicz_;
  // The animated zoom: the views still to show (coarse), the last one the target (full render).
  std::vector<View> anim_;
  size_t anim_pos_ = 0;
  double anim_shown_at_ = 0;
  bool animating_ = false, coarse_only_ = false;
  // The period under the mouse: a ball-method search once the pointer rests.
  BackgroundJob hover_job_;
  int hover_px_ = -1, hover_py_ = -1;
  double hover_since_ = 0;
  bool hover_started_ = false;
  std::string hover_text_;  // guarded by mutex_
  // The last search's answer at its pixel, drawn there while the pointer stays (guarded by mutex_).
  struct HoverFound {
    bool valid = false, found = false;
    int px = -1, py = -1;
    uint32_t period = 0;
    float radius_pixels = 0;
  } hover_found_;
  // The image menu's pixel, and when the right button went down.
  int menu_px_ = 0, menu_py_ = 0;
  bool menu_pending_ = false;
  // Auto iterations (kernels/mandelbrot/auto_iter.h): the limit follows found periods and renders.
  bool auto_iter_ = true;
  std::string auto_iter_status_;  // guarded by mutex_ (the render worker writes it)
  uint64_t auto_iter_next_ = 0;   // guarded by mutex_: a raised limit to render with, 0 none
  int verify_samples_ = 64;
  std::string verify_status_;  // guarded by mutex_ (the verify worker writes it)
  bool verify_wrong_ = false;
  char shot_path_[512] = "deepscope-shot.png", loc_path_[512] = "location.txt";
  int shot_w_ = 3840, shot_h_ = 2160;
  bool shot_custom_ = false;
  std::string shot_status_, file_status_;
  FilePicker loc_picker_;             // File > Open (Ctrl+O): location files
  std::vector<std::string> recent_;   // File > Recent: the last locations opened or saved, newest first
  double rotate_deg_ = 0, skew_angle_deg_ = 0, skew_log2_ = 0;  // the view's pixel map, decomposed
  std::string shot_note_;  // said after "wrote PATH": why a screenshot is not antialiased
  // The colouring shader (compiled in the window's context), the user's parameter values (kept across
  // reloads), the last compile error (the last good shader stays), a file's modification time.
  std::string shader_name_ = "palette", shader_source_, shader_error_;
  std::unique_ptr<render::ColourShader> shader_;
  std::map<std::string, float> shader_params_;
  int64_t shader_mtime_ = 0;
  double shader_checked_at_ = 0;
  char shader_path_[512] = "my_shader.glsl", kfp_path_[512] = "palette.kfp";
  FilePicker shader_picker_, kfp_picker_;  // Browse: the folders and the .glsl / .kfp files
  // The palette shown and edited: a built-in's stops, a .kfp's table, or the user's edit.
  colour::Palette palette_ = colour::palette_by_name("classic");
  std::string palette_label_ = "classic";  // the built-in's name or the .kfp's path; "" once edited
  bool blend_ = true;                      // blend between stops (a .kfp's Smooth)
  // The count's scale: log (colour::CountScale::kLog) but for a KF palette, as render --scale.
  bool log_scale_ = true;
  std::string colour_status_;
  int edit_stop_ = 0;
  render::Texture2D shaded_;
  bool shaded_ok_ = false;  // shaded_ holds the current frame (else display_ does)
  render::CanvasShading shading_;  // the canvas's data to the shader (interop or host memory)
  // A screenshot rendered on its worker, waiting for the frame loop to colour it (guarded by mutex_).
  std::unique_ptr<mandel::RenderResult> shot_result_;
  View shot_view_;
  colour::Colouring shot_colouring_;
  std::string shot_palette_, shot_out_;
  std::atomic<bool> shot_ready_{false};  // shot_result_ is set (read by busy())
  // Antialiasing: N x N samples a pixel, 1 off. The worker and the frame loop hand a sample over
  // through refine_sample_ (rendered, to colour) and refine_rgb_ (its colours), and the running
  // mean through refine_mean_ (all guarded by mutex_).
  int aa_ = 1;
  BackgroundJob refine_job_;
  bool refine_started_ = false, refine_failed_ = false;
  std::shared_ptr<const mandel::RenderResult> refine_sample_;
  std::vector<uint8_t> refine_rgb_;
  bool refine_rgb_ready_ = false;
  std::unique_ptr<app::AntialiasedImage> refine_mean_;
  // The frame loop's: the mean shown (refined_samples_ > 0: refined_ holds it, and it is drawn
  // instead of the plain frame), its image for F12, and what went wrong.
  render::Texture2D refined_;
  int refined_samples_ = 0;
  app::AntialiasedImage refined_image_;
  std::string refine_status_;
  // The formula iterated and the Julia seed (off: the parameter plane), the view the Julia toggle
  // left, and the screenshot's formula record (guarded by mutex_ as shot_result_).
  formula::Formula formula_ = formula::parse_formula("mandelbrot");
  formula::JuliaSeed julia_;
  View plane_view_;
  bool has_plane_view_ = false;
  std::vector<std::pair<std::string, std::string>> shot_extra_;
  std::mutex mutex_;
  Published pending_, shown_;
  bool has_pending_ = false;
  uint64_t generation_ = 0;
};

}  // namespace ds::gui
