// The CUDA side of PointCloud: device storage, and the rasteriser (an atomic count per pixel, then
// the colour of each pixel), on the display stream. Every call is checked.
#include "kernels/core/cuda_check.h"
#include "kernels/core/device.h"
#include "point_cloud.h"

namespace ds::colour {
namespace {

__global__ void count_kernel(const double* xy, std::size_t n, PlotFrame f, uint32_t* counts) {
  const std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (k >= n) return;
  int px = 0, py = 0;
  if (plot_pixel(f, xy[2 * k], xy[2 * k + 1], &px, &py)) atomicAdd(&counts[static_cast<std::size_t>(py) * f.width + px], 1u);
}

__global__ void colour_kernel(const uint32_t* counts, std::size_t pixels, uint8_t* rgba) {
  const std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (p < pixels) density_rgba(counts[p], rgba + 4 * p);
}

cudaStream_t stream_of(int device) { return static_cast<cudaStream_t>(display_stream(device)); }

}  // namespace

namespace detail {

void cloud_render(const double* dxy, std::size_t n, const PlotFrame& f, uint32_t* dcounts, uint8_t* rgba,
                  int device) {
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = stream_of(device);
  const std::size_t pixels = static_cast<std::size_t>(f.width) * static_cast<std::size_t>(f.height);
  DEEPSCOPE_CUDA_CHECK(cudaMemsetAsync(dcounts, 0, pixels * sizeof(uint32_t), s));
  constexpr unsigned kThreads = 256;
  if (n) {
    count_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, s>>>(dxy, n, f, dcounts);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
  }
  colour_kernel<<<static_cast<unsigned>((pixels + kThreads - 1) / kThreads), kThreads, 0, s>>>(dcounts, pixels, rgba);
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace detail
}  // namespace ds::colour
