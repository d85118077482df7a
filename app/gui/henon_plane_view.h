// The Hénon tab's parameter-plane view: runs henon::plane (the batch command's `henon plane`) on a
// background job and shows the (a, b) plane coloured by period with the PNG's palette; clicking a
// pixel hands its (a, b) to the orbit view's sliders.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "arith/format.h"
#include "jobs.h"
#include "kernels/henon/plane.h"
#include "render/image_texture.h"

namespace ds::gui {

class HenonPlaneView {
 public:
  HenonPlaneView();
  ~HenonPlaneView() { job_.cancel(); }

  // The view's inputs and Run / Cancel, for the controls column.
  void draw_controls(Arith arith);
  // The image; returns true with *a, *b set (the pixel's exact parameter) when a pixel was clicked.
  bool draw_view(std::string* a, std::string* b);
  bool busy() const { return job_.running(); }

 private:
  void start();

  static constexpr int kBuf = 128;
  char centre_a_[kBuf], centre_b_[kBuf], width_[kBuf], tol_[kBuf];
  int width_px_ = 320, height_px_ = 180;
  int64_t n_transient_ = 10000;
  int p_max_ = 64;
  int backend_ = 0;  // auto, cpu, cuda
  Arith arith_ = Arith::kF64;

  BackgroundJob job_;
  std::mutex mutex_;  // guards pending_ / has_pending_ (written by the job)
  henon::PlaneView pending_view_;
  henon::PlaneResult pending_;
  bool has_pending_ = false;

  henon::PlaneView shown_view_;
  henon::PlaneResult shown_;
  bool texture_stale_ = false;
  render::ImageTexture texture_;
};

}  // namespace ds::gui
