// The Mandelbrot panel's render worker (a coarse pass, then bands, into canvases) and the frames it
// publishes for the frame loop to show and recolour (through the colouring shader:
// panel_mandelbrot_colour.cpp).
#include <algorithm>
#include <cstdio>

#include "kernels/core/backend.h"
#include "kernels/mandelbrot/auto_iter.h"
#include "panel_mandelbrot.h"

namespace ds::gui {

// Renders the view on a worker: a 1/16-resolution glimpse (its first pass also computes the
// perturbation reference, which the next passes reuse), a quarter-resolution pass into the preview
// canvas, then full resolution in bands into the canvas, each step published for the frame loop to
// show, and the stage named on the image's progress strip. The
// canvases hold counts, not colours, on the GPU when there is one (kernels/colour/canvas.h): showing
// them is the colouring shader drawing their data into a GL texture (panel_mandelbrot_colour.cpp),
// and a palette or shader parameter change recolours without rendering.
void MandelbrotPanel::start_render() {
  dirty_ = false;
  shown_final_ = false;
  job_.cancel();     // joins: the canvases are free to replace
  restart_refine();  // its samples would be of the view before
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
      glimpse_.reset();
      canvas_ = std::make_unique<colour::Canvas>(v.width, v.height, want);
      preview_ = std::make_unique<colour::Canvas>(std::max(1, v.width / 4), std::max(1, v.height / 4),
                                                  canvas_->backend(), canvas_->cuda_device());
      glimpse_ = std::make_unique<colour::Canvas>(std::max(1, v.width / 16), std::max(1, v.height / 16),
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
    glimpse_.reset();
    return;
  }
  mandel::RenderOptions opt = engine_options();
  uint64_t gen = ++generation_;
  message_.clear();
  colour::Canvas* full = canvas_.get();
  colour::Canvas* coarse_canvas = preview_.get();
  const bool coarse_only = coarse_only_, auto_iter = auto_iter_;  // an animated zoom's frame; auto iterations
  // The glimpse: not for an animated zoom's frames (their 1/4 pass is the frame), nor where the
  // 1/4 pass is itself small.
  colour::Canvas* glimpse_canvas = !coarse_only && v.width >= 256 && v.height >= 128 ? glimpse_.get() : nullptr;
  if (formula_mode()) {  // panel_mandelbrot_formula.cpp: formula::render, as `render --formula`
    start_formula_render(v, gen, full, coarse_canvas, glimpse_canvas, coarse_only);
    return;
  }
  job_.start([this, v, opt, gen, full, coarse_canvas, glimpse_canvas, coarse_only,
              auto_iter](JobControl& ctl) mutable {
    opt.cancel = &ctl.cancel;
    Published p;
    p.generation = gen;
    p.max_iter = v.max_iter;
    // The bar's share before the 1/4 pass: the glimpse computes the reference (which the 1/4 pass
    // did before, in its first 0.03), so it takes half of the 0.1 the previews had.
    const double coarse_from = glimpse_canvas ? 0.05 : 0.0;
    // A preview pass on `canvas` (the same view, larger pixels), its share of the bar from `from` to
    // `to`, published as the glimpse or the 1/4 image. False: cancelled.
    const auto preview = [&](colour::Canvas* canvas, const char* label, double from, double to, bool glimpse) {
      View pv = v;
      pv.width = canvas->width();
      pv.height = canvas->height();
      opt.progress = [&ctl, from, to](double q) { ctl.progress = from + (to - from) * q; };
      opt.stage = [&ctl, label](const char* s) { ctl.set_stage(std::string(label) + s); };
      const mandel::RenderResult r = canvas->render_rows(pv, opt, 0, pv.height);
      if (r.cancelled || ctl.cancel) return false;
      p.glimpse = glimpse;
      p.arith = shown_format(r);
      p.backend = mandel::backend_name(r.backend);
      publish(p);
      return true;
    };
    if (glimpse_canvas && !preview(glimpse_canvas, "preview 1/16: ", 0.0, coarse_from, true)) return;  // pixels 16x
    if (!preview(coarse_canvas, "preview 1/4: ", coarse_from, 0.1, false)) return;                     // pixels 4x
    if (coarse_only) return;
    const int band = std::max(16, v.height / 16);
    mandel::PerturbInfo frame;  // the bands' glitch and interior counts, summed over the frame
    uint64_t stripe_approximate = 0;
    for (int y0 = 0; y0 < v.height; y0 += band) {
      const int y1 = std::min(v.height, y0 + band);
      opt.progress = [&ctl, y0, &v, band](double q) {
        ctl.progress = 0.1 + 0.9 * (y0 + q * band) / v.height;
      };
      const std::string rows = " (rows " + std::to_string(y0) + "-" + std::to_string(y1) + " of " +
                               std::to_string(v.height) + ")";
      opt.stage = [&ctl, rows](const char* s) { ctl.set_stage(s + rows); };
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
      stripe_approximate += b.stripe_approximate;
      b.stripe_approximate = stripe_approximate;
      b.perturb.glitch_pixels = frame.glitch_pixels;
      b.perturb.glitch_corrected = frame.glitch_corrected;
      b.perturb.glitch_unresolved = frame.glitch_unresolved;
      b.perturb.interior_pixels = frame.interior_pixels;
      p.arith = shown_format(b);
      publish(p);
      if (p.final && auto_iter) {
        std::vector<uint32_t> counts, high;
        std::vector<float> smooth;
        full->read(&counts, &smooth, &high);
        const bool interior_known = b.method == mandel::Method::kPerturb;
        const mandel::AutoIterDecision d = mandel::auto_iterations_after_render(
            v.max_iter, mandel::iteration_stats(counts, v.max_iter, frame.interior_pixels, interior_known, high));
        std::lock_guard<std::mutex> lock(mutex_);
        if (d.max_iter > v.max_iter) {
          auto_iter_next_ = d.max_iter;
          auto_iter_status_ = "auto iterations: " + std::to_string(d.max_iter) + " (" + d.reason + ")";
        }
      }
    }
  });
}

// The format line: the format, or for perturbation its delta type, the reference's arithmetic and
// time, BLA share, and
// the frame's interior and glitch counts (unresolved ones said plainly).
std::string MandelbrotPanel::shown_format(const mandel::RenderResult& r) {
  std::string s = mandel::format_label(r);
  if (r.stripe_approximate > 0)
    s += "; stripe average APPROXIMATE at " + std::to_string(r.stripe_approximate) +
         " pixels (BLA near their escape; show_approximate = 1 marks them)";
  if (r.method != mandel::Method::kPerturb) return s;
  char buf[320];
  const mandel::PerturbInfo& pi = r.perturb;
  std::snprintf(
      buf, sizeof buf,
      " (reference %s%s, %.2f s, %.0f%% by BLA; %llu interior; glitches %llu flagged, %llu corrected%s)",
      pi.reference_reused ? "reused, " : "", pi.reference_arith.empty() ? "MPFR" : pi.reference_arith.c_str(),
      pi.reference_seconds,
      r.iterations ? 100.0 * static_cast<double>(pi.bla_skipped) / r.iterations : 0.0,
      static_cast<unsigned long long>(pi.interior_pixels), static_cast<unsigned long long>(pi.glitch_pixels),
      static_cast<unsigned long long>(pi.glitch_corrected),
      pi.glitch_unresolved ? (", " + std::to_string(pi.glitch_unresolved) + " UNRESOLVED: not right").c_str()
                           : "");
  return s + buf;
}

void MandelbrotPanel::publish(const Published& p) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_ = p;
  has_pending_ = true;
}

// Shows newly finished rows, or recolours what is shown after a palette change.
void MandelbrotPanel::poll_frame() {
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
  // A colouring change: the refinement starts again (its samples' colours are stale, and keeping
  // every sample's data to colour again would hold N x N frames).
  if (recolour_) restart_refine();
  recolour_ = false;
  try {
    // The colouring shader in this GL context; the CUDA/C++ palette colouring only while no shader
    // has compiled (never for the built-ins).
    if (!shade(shown_.rows_done, fresh)) {
      const render::DisplayPath path =
          display_.show(*canvas_, colouring(shown_.max_iter), shown_.rows_done, shown_preview());
      display_path_ = render::display_path_name(path);
    }
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
void MandelbrotPanel::gpu_failed(const std::string& why) {
  if (use_cpu_ || !canvas_ || canvas_->backend() != Backend::kCuda) {
    message_ = why;
    return;
  }
  use_cpu_ = true;
  notice_ = "the GPU failed (" + why + "); rendering on the CPU";
  dirty_ = true;
}
}  // namespace ds::gui
