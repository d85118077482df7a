// 2-D points (an orbit) kept where they are drawn, host memory or a CUDA device's memory, and
// rasterised there into an RGBA density image: each pixel's colour rises with the number of points
// in it. The Hénon panel shows orbits through it, on CUDA straight into a GL buffer
// (render/image_texture.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/core/backend.h"
#include "point_cloud.cuh"

namespace ds::colour {

class PointCloud {
 public:
  // kAuto: CUDA when a device is usable. BackendError when CUDA is asked for and missing.
  explicit PointCloud(Backend backend = Backend::kAuto, int cuda_device = 0);
  ~PointCloud();
  PointCloud(const PointCloud&) = delete;
  PointCloud& operator=(const PointCloud&) = delete;

  Backend backend() const { return backend_; }
  int cuda_device() const { return device_; }
  std::size_t size() const { return n_; }

  // Replaces the points (xs and ys of equal length; copied to the device for CUDA).
  void set_points(const std::vector<double>& xs, const std::vector<double>& ys);

  // The frame's w x h RGBA8 image (rows top to bottom): host memory for a CPU cloud, device memory
  // (a mapped GL buffer, say) for a CUDA cloud; CUDA work runs on ds::display_stream.
  void render_rgba(const PlotFrame& f, uint8_t* rgba) const;
  // The same image in host memory whatever the backend (tests, the path without interop).
  void render_rgba_host(const PlotFrame& f, std::vector<uint8_t>* rgba) const;

 private:
  Backend backend_;
  int device_;
  std::size_t n_ = 0;
  std::vector<double> xs_, ys_;            // CPU cloud
  double* dxy_ = nullptr;                  // CUDA cloud: x0, y0, x1, y1, ...
  mutable uint32_t* dcounts_ = nullptr;    // CUDA: per-pixel counts of the last frame size
  mutable std::size_t dcounts_size_ = 0;
  mutable uint8_t* drgba_ = nullptr;       // CUDA: render_rgba_host's device image
  mutable std::size_t drgba_size_ = 0;
};

namespace detail {
// point_cloud.cu (CUDA builds only).
void cloud_render(const double* dxy, std::size_t n, const PlotFrame& f, uint32_t* dcounts, uint8_t* rgba,
                  int device);
}  // namespace detail

}  // namespace ds::colour
