// PointCloud: the host side, the CPU rasteriser, and the calls into point_cloud.cu.
#include "point_cloud.h"

#include "kernels/core/device.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace ds::colour {
namespace {

void check_frame(const PlotFrame& f) {
  if (f.width < 1 || f.height < 1 || f.width > 32768 || f.height > 32768 || !(f.upp > 0))
    throw std::invalid_argument("a point-cloud frame needs 1..32768 pixels each way and a positive scale, got " +
                                std::to_string(f.width) + "x" + std::to_string(f.height));
}

}  // namespace

PointCloud::PointCloud(Backend backend, int cuda_device) : backend_(select_backend(backend)), device_(cuda_device) {}

PointCloud::~PointCloud() {
#if DEEPSCOPE_WITH_CUDA
  if (backend_ == Backend::kCuda) {
    display_free(dxy_, device_);
    display_free(dcounts_, device_);
    display_free(drgba_, device_);
  }
#endif
}

void PointCloud::set_points(const std::vector<double>& xs, const std::vector<double>& ys) {
  if (xs.size() != ys.size()) throw std::invalid_argument("point cloud: xs and ys differ in length");
  n_ = xs.size();
  if (backend_ != Backend::kCuda) {
    xs_ = xs;
    ys_ = ys;
    return;
  }
#if DEEPSCOPE_WITH_CUDA
  std::vector<double> xy(2 * n_);
  for (std::size_t k = 0; k < n_; ++k) {
    xy[2 * k] = xs[k];
    xy[2 * k + 1] = ys[k];
  }
  display_free(dxy_, device_);
  dxy_ = nullptr;
  if (n_) {
    dxy_ = static_cast<double*>(display_alloc(xy.size() * sizeof(double), device_));
    display_copy(dxy_, xy.data(), xy.size() * sizeof(double), true, device_);
  }
#endif
}

void PointCloud::render_rgba(const PlotFrame& f, uint8_t* rgba) const {
  check_frame(f);
  const std::size_t pixels = static_cast<std::size_t>(f.width) * static_cast<std::size_t>(f.height);
  if (backend_ == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    if (dcounts_size_ < pixels) {
      display_free(dcounts_, device_);
      dcounts_ = nullptr;
      dcounts_ = static_cast<uint32_t*>(display_alloc(pixels * sizeof(uint32_t), device_));
      dcounts_size_ = pixels;
    }
    detail::cloud_render(dxy_, n_, f, dcounts_, rgba, device_);
#endif
    return;
  }
  std::vector<uint32_t> counts(pixels, 0);
  for (std::size_t k = 0; k < n_; ++k) {
    int px = 0, py = 0;
    if (plot_pixel(f, xs_[k], ys_[k], &px, &py)) ++counts[static_cast<std::size_t>(py) * f.width + px];
  }
  for (std::size_t p = 0; p < pixels; ++p) density_rgba(counts[p], rgba + 4 * p);
}

void PointCloud::render_rgba_host(const PlotFrame& f, std::vector<uint8_t>* rgba) const {
  check_frame(f);
  const std::size_t bytes = static_cast<std::size_t>(f.width) * static_cast<std::size_t>(f.height) * 4;
  rgba->resize(bytes);
  if (backend_ != Backend::kCuda) {
    render_rgba(f, rgba->data());
    return;
  }
#if DEEPSCOPE_WITH_CUDA
  if (drgba_size_ < bytes) {
    display_free(drgba_, device_);
    drgba_ = nullptr;
    drgba_ = static_cast<uint8_t*>(display_alloc(bytes, device_));
    drgba_size_ = bytes;
  }
  render_rgba(f, drgba_);
  display_copy(rgba->data(), drgba_, bytes, false, device_);
#endif
}

}  // namespace ds::colour
