// The one checking macro for CUDA runtime calls (include only from .cu files): a failed call throws
// CudaError with the call, file, line and the runtime's error string. Every launch is followed by
// DEEPSCOPE_CUDA_CHECK_LAUNCH().
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace ds {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  // The runtime also keeps a failed call's error as its "last error", which the next launch check
  // (cudaGetLastError) would report as its own: an out-of-memory that was caught and handled would
  // fail the next, unrelated launch. Clear it here; sticky errors (a broken context) stay anyway.
  (void)cudaGetLastError();
  throw CudaError(std::string("CUDA error ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) +
                  ") in " + call + " at " + file + ":" + std::to_string(line));
}

}  // namespace ds

#define DEEPSCOPE_CUDA_CHECK(call)                                                  \
  do {                                                                              \
    cudaError_t deepscope_err_ = (call);                                            \
    if (deepscope_err_ != cudaSuccess) ::ds::throw_cuda_error(deepscope_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define DEEPSCOPE_CUDA_CHECK_LAUNCH() DEEPSCOPE_CUDA_CHECK(cudaGetLastError())
