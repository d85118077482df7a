// The Hénon tab's parameter-plane view: henon::plane (the batch command's `henon plane`) on a
// background job, a coarse pass first and then the view in bands of rows, shown as it arrives and
// coloured by period with the PNG's palette. The wheel zooms about the cursor, dragging pans, a
// double click zooms in and a right click out (the Mandelbrot view's navigation code, through
// henon::plane_zoom_about / plane_pan_pixels), Ctrl+Z / Ctrl+Y undo and redo, and "auto" picks the
// format by zoom; a click hands the pixel's (a, b) to the orbit view's sliders. By default the image
// has one pixel per screen pixel of the view area ("fit the panel"), re-fitted when the panel's size
// settles after a change.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "app/io/plot.h"
#include "arith/format.h"
#include "jobs.h"
#include "kernels/henon/plane.h"
#include "panels.h"
#include "render/image_texture.h"

namespace ds::gui {

class HenonPlaneView {
 public:
  HenonPlaneView();
  ~HenonPlaneView() { job_.cancel(); }

  // The view's inputs, Run / Cancel, undo / redo, for the controls column. `arith`: the tab's
  // format, used when "auto" is off.
  void draw_controls(Arith arith);
  // The image on a and b axes with ticks, a period legend and a marker at the orbit view's
  // (current_a, current_b); returns true with *a, *b set (the pixel's exact parameter) when a pixel
  // was clicked. The first time it is drawn it starts the view's computation.
  bool draw_view(std::string* a, std::string* b, double current_a, double current_b);
  bool busy() const { return job_.running() || dirty_; }
  // Called when the view is opened: the first time, its computation is due (busy from now).
  void open();
  // The image's rectangle as last drawn (for scripted sessions); false before it was drawn.
  bool image_rect(ImageRect* r) const;
  void forget_drawn() { drawn_ = false; }
  // Sets the image's pixels to the view area's screen pixels (as last drawn), so the plane is drawn
  // at the panel's full resolution; false before it was drawn. Applied with the next view change.
  bool fit_to_panel();
  // With "fit the panel" on (the default), makes the view's pixels the view area's when they differ
  // (at once the first time, else once the area's size has held for a quarter second): a new
  // computation of the same a and b range and centre, replacing the current history entry.
  void follow_panel();
  // A fixed image size: "fit the panel" off and the view computed at w x h pixels.
  void set_pixels(int w, int h) {
    fit_panel_ = false;
    width_px_ = w, height_px_ = h;
    apply_fields();
  }
  // Makes the fields' view current and computes it (as Enter in a field does).
  void apply_fields() { set_view(view_from_fields()); }

 private:
  // One image being built: the coarse pass upscaled, then bands written over it.
  struct Frame {
    henon::PlaneView view;  // the whole view (no band)
    bool lyapunov = false;  // coloured by exponent (exponent filled) instead of period
    std::vector<int32_t> period;
    std::vector<double> exponent;
    int rows_done = 0;  // rows of the full-resolution bands so far
    int64_t escaped = 0, no_period = 0, with_period = 0;
    int32_t max_period = 0;
    double seconds = 0;
  };
  henon::PlaneView view_from_fields() const;
  void fields_from_view(const henon::PlaneView& v);
  // Makes v the current view (a history entry unless `record` is false) and starts computing it.
  void set_view(const henon::PlaneView& v, bool record = true);
  void undo();
  void redo();
  void start();
  void track(double fx, double fy, double factor);
  // The figure (a and b axes, the legend) for a W x H image of view_.
  app::plot::Figure figure(int W, int H) const;
  // Sets fit_w_, fit_h_ from the region left below the cursor; returns the axes' and legend's margins.
  ImVec2 measure_fit(const app::plot::Figure& fig);
  // The marker, the hover read-out and the navigation over the drawn plot l; true when a pixel was
  // clicked (*a, *b its parameter).
  bool after_plot(const app::plot::Layout& l, int W, int H, float scale, app::plot::Rgba marker, std::string* a,
                  std::string* b, double current_a, double current_b);

  static constexpr int kBuf = 256;
  char centre_a_[kBuf], centre_b_[kBuf], width_[kBuf], tol_[kBuf];
  int width_px_ = 480, height_px_ = 270;  // until the first fit (fit_panel_) or as typed
  bool fit_panel_ = true;
  double fit_seen_at_ = 0;  // ImGui time when fit_w_ x fit_h_ was first seen at its present value
  int fit_seen_w_ = 0, fit_seen_h_ = 0;
  int64_t n_transient_ = 10000;
  int p_max_ = 64;
  int backend_ = 0;  // auto, cpu, cuda
  bool auto_arith_ = true;
  int colouring_ = 0;  // 0 period, 1 Lyapunov exponent (henon::plane_lyapunov)
  ImS64 lyapunov_steps_ = 10000;
  float lyapunov_scale_ = 0.5f;
  Arith tab_arith_ = Arith::kF64;
  float click_factor_ = 4.0f;

  henon::PlaneView view_;  // the view being computed or shown (fields applied)
  std::vector<henon::PlaneView> history_;
  std::size_t history_pos_ = 0;
  bool dirty_ = false, started_ = false, dragged_ = false;
  std::string message_;

  BackgroundJob job_;
  std::mutex mutex_;  // guards pending_ / has_pending_ (written by the job)
  Frame pending_;
  bool has_pending_ = false;

  Frame shown_;
  bool texture_stale_ = false;
  render::ImageTexture texture_;
  float u0_ = 0, v0_ = 0, u1_ = 1, v1_ = 1;  // the texture's part shown (moves with navigation)
  ImageRect rect_;
  bool drawn_ = false;
  // The legend: the periods shown, most pixels first (period, pixels); -1 escaped, 0 no period.
  std::vector<std::pair<int32_t, int64_t>> legend_;
  int fit_w_ = 0, fit_h_ = 0;  // the view area in framebuffer pixels, as last drawn
};

}  // namespace ds::gui
