// Owning wrappers for CUDA device memory and events (include only from .cu files): freed on every
// path out of a launcher, exceptions included. Allocation failures throw through
// DEEPSCOPE_CUDA_CHECK.
#pragma once
#include <cstddef>

#include "cuda_check.h"

namespace ds {

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { DEEPSCOPE_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1)); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class U>
  U* as() const {
    return static_cast<U*>(p);
  }
};

struct CudaEvent {
  cudaEvent_t e = nullptr;
  CudaEvent() { DEEPSCOPE_CUDA_CHECK(cudaEventCreate(&e)); }
  ~CudaEvent() { cudaEventDestroy(e); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
};

}  // namespace ds
