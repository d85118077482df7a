// The Mandelbrot panel's progressive antialiasing: once the frame is final, the N x N samples of
// `render --aa N` (aa_offsets, shifted_view) are rendered one at a time on a worker with the
// frame's engine options, each coloured here by the window's shader, averaged in linear light by the
// same app::SampleMean as `render --aa`, and the mean shown after every sample. The plain frame
// stays on screen until the first sample lands (aa_offsets jitters every cell: the centre render is
// not one of the samples). A new render, a resize, a colouring or shader change starts it again.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "app/cli/render_work.h"
#include "app/io/view_png.h"
#include "kernels/core/atomic_file.h"
#include "panel_mandelbrot.h"
#include "render/colour_shader.h"

namespace ds::gui {

bool MandelbrotPanel::set_antialias(int n) {
  n = std::max(1, std::min(n, kMaxWindowAa));
  if (n != aa_) {
    aa_ = n;
    restart_refine();
  }
  return true;
}

// Still to do for the view shown: samples to render, colour or show. Not while a render runs
// (busy() covers that), nor where the refinement cannot run (no shader) or has failed.
bool MandelbrotPanel::refine_pending() const {
  // Not for formulas or Julia sets (formula::render has no shifted samples yet).
  return aa_ > 1 && shader_ && !refine_failed_ && refined_samples_ < aa_ * aa_ && !formula_mode();
}

void MandelbrotPanel::draw_antialias() {
  char current[48];
  if (aa_ <= 1)
    std::snprintf(current, sizeof current, "off");
  else
    std::snprintf(current, sizeof current, "%dx%d (%d samples)", aa_, aa_, aa_ * aa_);
  if (ImGui::BeginCombo("antialiasing", current)) {
    for (int n = 1; n <= kMaxWindowAa; ++n) {
      char label[48];
      if (n == 1)
        std::snprintf(label, sizeof label, "off");
      else
        std::snprintf(label, sizeof label, "%dx%d (%d samples)", n, n, n * n);
      if (ImGui::Selectable(label, n == aa_)) set_antialias(n);
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "after the frame: N x N jittered samples a pixel, each a render of the view shifted\n"
        "by a fraction of a pixel, averaged in linear light (the same samples as render --aa N)");
}

// Drops the samples so far and stops the worker (cancel joins it; the render polls the flag).
void MandelbrotPanel::restart_refine() {
  refine_job_.cancel();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    refine_sample_.reset();
    refine_rgb_.clear();
    refine_rgb_ready_ = false;
    refine_mean_.reset();
  }
  refine_started_ = false;
  refine_failed_ = false;
  refined_samples_ = 0;
  refined_image_ = app::AntialiasedImage();
  refine_status_.clear();
}

void MandelbrotPanel::start_refine() {
  refine_started_ = true;
  const View v = view_;
  mandel::RenderOptions opt = engine_options();
  if (use_cpu_) opt.backend = Backend::kCpu;  // as the frame's canvas, after a GPU failure
  const int n = aa_;
  refine_job_.start([this, v, opt, n](JobControl& ctl) mutable {
    opt.cancel = &ctl.cancel;
    const std::vector<std::array<double, 2>> offsets = app::aa_offsets(n);
    const double samples = static_cast<double>(offsets.size());
    app::SampleMean mean;
    for (std::size_t s = 0; s < offsets.size(); ++s) {
      opt.progress = [&ctl, s, samples](double x) { ctl.progress = (static_cast<double>(s) + x) / samples; };
      auto r = std::make_shared<const mandel::RenderResult>(
          mandel::render(app::shifted_view(v, offsets[s][0], offsets[s][1]), opt));
      if (r->cancelled || ctl.cancel) return;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        refine_sample_ = r;
      }
      // The colours come from the frame loop (the shader lives in the window's GL context); a
      // restart cancels, so the wait ends within a poll either way.
      std::vector<uint8_t> rgb;
      for (;;) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          if (refine_rgb_ready_) {
            rgb = std::move(refine_rgb_);
            refine_rgb_ready_ = false;
            break;
          }
        }
        if (ctl.cancel) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
      // The mean and its sRGB codes here, not in the frame loop: linear_to_srgb8 (a pow a
      // channel) takes 65 ms for a 1920x1080 frame on the build machine, four frames at 60 Hz.
      mean.add(*r, rgb);
      auto image = std::make_unique<app::AntialiasedImage>(mean.image());
      std::lock_guard<std::mutex> lock(mutex_);
      refine_mean_ = std::move(image);
    }
  });
}

void MandelbrotPanel::poll_refine() {
  if (aa_ <= 1 || refine_failed_) return;
  if (!refine_started_) {
    // The frame must be final and current: the samples are renders of the view it shows.
    if (shader_ && canvas_ && !dirty_ && !job_.running() && shown_final_ && shown_.generation == generation_)
      start_refine();
    return;
  }
  std::shared_ptr<const mandel::RenderResult> sample;
  std::unique_ptr<app::AntialiasedImage> image;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sample = std::move(refine_sample_);
    image = std::move(refine_mean_);
  }
  try {
    if (sample) {
      std::vector<uint8_t> rgb;
      shader_->colour(render::shader_frame(*sample), colouring(shown_.max_iter), &rgb);
      std::lock_guard<std::mutex> lock(mutex_);
      refine_rgb_ = std::move(rgb);
      refine_rgb_ready_ = true;
    }
    if (image) {
      const std::size_t pixels = image->undecided_mask.size();
      std::vector<uint8_t> rgba(4 * pixels, 255);
      for (std::size_t k = 0; k < pixels; ++k)
        for (int ch = 0; ch < 3; ++ch) rgba[4 * k + ch] = image->rgb[3 * k + ch];
      refined_.upload_rgba(rgba.data(), image->facts.width, image->facts.height);
      refined_samples_ = image->samples;
      image->colour_record = colour_record();
      refined_image_ = std::move(*image);
    }
  } catch (const std::exception& e) {
    refine_job_.cancel();
    refine_failed_ = true;
    refine_status_ = std::string("antialiasing stopped: ") + e.what();
    return;
  }
  const std::string err = refine_job_.error();
  if (!err.empty() && !refine_job_.running()) {
    refine_failed_ = true;
    refine_status_ = "antialiasing stopped: " + err;
  }
}

// F12 at the window's size with antialiasing on: the finished mean, as `render --aa N` writes it
// (the location, the colouring record and the antialiasing record of its samples).
void MandelbrotPanel::save_refined_screenshot(const std::string& path) {
  const app::AntialiasedImage& a = refined_image_;
  const std::string palette = palette_label_.empty() ? "classic" : palette_label_;
  write_file_atomically(
      path, app::mandelbrot_png_rgb(view_, a.facts, palette, colouring(view_.max_iter), a.rgb,
                                    a.colour_record, {{app::kPngAntialiasKey, app::aa_record(aa_, a)}}));
  char msg[600];
  std::snprintf(msg, sizeof msg, "wrote %s (%dx%d, %dx%d samples, %s, %.2f s)", path.c_str(), view_.width,
                view_.height, aa_, aa_, mandel::format_label(a.facts).c_str(), a.facts.seconds);
  std::lock_guard<std::mutex> lock(mutex_);
  shot_status_ = msg;
}

}  // namespace ds::gui
