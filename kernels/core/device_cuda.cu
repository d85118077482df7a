// CUDA device discovery through the runtime API.
#include <map>
#include <mutex>

#include "cuda_check.h"
#include "device.h"

namespace ds {

bool built_with_cuda() { return true; }

static cudaError_t device_count_status(int* n) {
  *n = 0;
  cudaError_t err = cudaGetDeviceCount(n);
  if (err != cudaSuccess) {
    *n = 0;
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
  }
  return err;
}

int cuda_device_count() {
  int n;
  device_count_status(&n);
  return n;
}

std::string cuda_unavailable_reason() {
  int n;
  cudaError_t err = device_count_status(&n);
  if (err != cudaSuccess) return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
  if (n == 0) return "no CUDA device";
  return "";
}

void set_current_device(int index) { DEEPSCOPE_CUDA_CHECK(cudaSetDevice(index)); }

std::vector<CudaDeviceInfo> cuda_devices() {
  std::vector<CudaDeviceInfo> out;
  int n = cuda_device_count();
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p;
    DEEPSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
    out.push_back({i, p.name, p.multiProcessorCount, p.major, p.minor, p.totalGlobalMem});
  }
  return out;
}

void* display_stream(int device) {
  static std::mutex mu;
  static std::map<int, cudaStream_t> streams;  // one per device, kept for the process's life
  std::lock_guard<std::mutex> lock(mu);
  auto it = streams.find(device);
  if (it != streams.end()) return it->second;
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = nullptr;
  DEEPSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  streams[device] = s;
  return s;
}


void* display_alloc(std::size_t bytes, int device) {
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = static_cast<cudaStream_t>(display_stream(device));
  void* p = nullptr;
  DEEPSCOPE_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
  cudaError_t e = cudaMemsetAsync(p, 0, bytes, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) {
    cudaFree(p);
    DEEPSCOPE_CUDA_CHECK(e);
  }
  return p;
}

void display_free(void* p, int device) noexcept {
  if (p && cudaSetDevice(device) == cudaSuccess) cudaFree(p);
}

void display_copy(void* dst, const void* src, std::size_t bytes, bool to_device, int device) {
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t s = static_cast<cudaStream_t>(display_stream(device));
  DEEPSCOPE_CUDA_CHECK(
      cudaMemcpyAsync(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s));
  DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace ds
