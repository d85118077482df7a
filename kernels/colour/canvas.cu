// Canvas's device side (canvas.h): the colouring kernel that composes a canvas's counts (and a
// scaled preview below its finished rows) into RGBA on the display stream. Every call is checked.
#include "canvas.cuh"
#include "canvas.h"
#include "kernels/core/cuda_check.h"
#include "kernels/core/device.h"

namespace ds::colour {
namespace {

__global__ void compose_kernel(const detail::ComposeArgs a) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x < a.full.width && y < a.full.height) compose_pixel(a, x, y);
}

__global__ void compose_planes_kernel(const detail::PlanesArgs a) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x < a.full.width && y < a.full.height) compose_planes_pixel(a, x, y);
}

}  // namespace

namespace detail {

void device_compose_planes(const PlanesArgs& a, int device) {
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = static_cast<cudaStream_t>(ds::display_stream(device));
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((a.full.width + 31) / 32), static_cast<unsigned>((a.full.height + 7) / 8));
  compose_planes_kernel<<<grid, block, 0, s>>>(a);
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(s));
}

void device_compose(const ComposeArgs& a, int device) {
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = static_cast<cudaStream_t>(ds::display_stream(device));
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((a.full.width + 31) / 32), static_cast<unsigned>((a.full.height + 7) / 8));
  compose_kernel<<<grid, block, 0, s>>>(a);
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace detail
}  // namespace ds::colour
