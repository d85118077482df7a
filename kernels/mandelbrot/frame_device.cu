// Device-resident frames: what render() needs when its output stays on the GPU (the iteration sum,
// perturbation's flagged pixels found and patched in place). Canvas's colouring kernel is
// kernels/colour/canvas.cu. Every call is checked.
#include <algorithm>

#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "counts.h"
#include "mandelbrot.h"

namespace ds::mandel {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 65535u * 16u));
}

__global__ void iterations_kernel(const uint32_t* counts, const uint32_t* counts_high, std::size_t n,
                                  unsigned long long* sum) {
  unsigned long long local = 0;
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const unsigned long long c = load_count(counts, counts_high, k);
    if (c) local += c - 1ull;  // count 0: an undecided pixel, no iterations counted
  }
  // Warp sum, then one atomic per warp.
  for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, local);
}

__global__ void negatives_kernel(const float* v, std::size_t n, unsigned long long* count) {
  unsigned long long local = 0;
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    local += v[k] < 0.0f ? 1ull : 0ull;
  for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(count, local);
}

// Pass 1 counts the zero counts (how), pass 2 writes their indices in any order (sorted on the host).
__global__ void zeros_kernel(const uint32_t* counts, const uint32_t* counts_high, std::size_t n, unsigned* found,
                             uint32_t* out, unsigned capacity) {
  for (std::size_t k = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    if (load_count(counts, counts_high, k) == 0) {
      const unsigned slot = atomicAdd(found, 1u);
      if (out && slot < capacity) out[slot] = static_cast<uint32_t>(k);
    }
}

__global__ void scatter_kernel(uint32_t* counts, float* smooth, uint32_t* counts_high, const uint32_t* idx,
                               const uint64_t* c, const float* s, std::size_t n) {
  const std::size_t q = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (q >= n) return;
  store_pixel(counts, counts_high, smooth, idx[q], c[q], s[q]);
}

__global__ void scatter_floats_kernel(float* dst, const uint32_t* idx, const float* v, std::size_t n) {
  const std::size_t q = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (q < n) dst[idx[q]] = v[q];
}

}  // namespace

namespace detail {

uint64_t device_iterations(const uint32_t* counts, const uint32_t* counts_high, std::size_t n) {
  if (n == 0) return 0;
  DeviceBuffer sum(sizeof(unsigned long long));
  DEEPSCOPE_CUDA_CHECK(cudaMemset(sum.p, 0, sizeof(unsigned long long)));
  iterations_kernel<<<blocks_for(n), kThreads>>>(counts, counts_high, n, sum.as<unsigned long long>());
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  unsigned long long h = 0;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&h, sum.p, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

uint64_t device_count_negative(const float* v, std::size_t n) {
  if (n == 0) return 0;
  DeviceBuffer sum(sizeof(unsigned long long));
  DEEPSCOPE_CUDA_CHECK(cudaMemset(sum.p, 0, sizeof(unsigned long long)));
  negatives_kernel<<<blocks_for(n), kThreads>>>(v, n, sum.as<unsigned long long>());
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  unsigned long long h = 0;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&h, sum.p, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

std::vector<uint32_t> device_zero_indices(const uint32_t* counts, const uint32_t* counts_high, std::size_t n) {
  if (n == 0) return {};
  DeviceBuffer found(sizeof(unsigned));
  DEEPSCOPE_CUDA_CHECK(cudaMemset(found.p, 0, sizeof(unsigned)));
  zeros_kernel<<<blocks_for(n), kThreads>>>(counts, counts_high, n, found.as<unsigned>(), nullptr, 0);
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  unsigned how = 0;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&how, found.p, sizeof how, cudaMemcpyDeviceToHost));
  std::vector<uint32_t> idx(how);
  if (how == 0) return idx;
  DeviceBuffer out(how * sizeof(uint32_t));
  DEEPSCOPE_CUDA_CHECK(cudaMemset(found.p, 0, sizeof(unsigned)));
  zeros_kernel<<<blocks_for(n), kThreads>>>(counts, counts_high, n, found.as<unsigned>(), out.as<uint32_t>(), how);
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(idx.data(), out.p, how * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  std::sort(idx.begin(), idx.end());
  return idx;
}

void device_scatter(uint32_t* counts, float* smooth, uint32_t* counts_high, const std::vector<uint32_t>& idx,
                    const std::vector<uint64_t>& c, const std::vector<float>& s) {
  const std::size_t n = idx.size();
  if (n == 0) return;
  DeviceBuffer di(n * sizeof(uint32_t)), dc(n * sizeof(uint64_t)), dsm(n * sizeof(float));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(di.p, idx.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dc.p, c.data(), n * sizeof(uint64_t), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dsm.p, s.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scatter_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads>>>(
      counts, smooth, counts_high, di.as<uint32_t>(), dc.as<uint64_t>(), dsm.as<float>(), n);
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

void device_scatter_floats(float* dst, const std::vector<uint32_t>& idx, const std::vector<float>& v) {
  const std::size_t n = idx.size();
  if (n == 0 || dst == nullptr) return;
  DeviceBuffer di(n * sizeof(uint32_t)), dv(n * sizeof(float));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(di.p, idx.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dv.p, v.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scatter_floats_kernel<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads>>>(
      dst, di.as<uint32_t>(), dv.as<float>(), n);
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace detail
}  // namespace ds::mandel
