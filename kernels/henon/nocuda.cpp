// The Hénon workspace's CUDA entry points in builds without CUDA: they say so.
#include <stdexcept>

#include "henon.h"
#include "plane.h"

namespace ds::henon::detail {

bool scan_chunk_cuda(Arith, const void*, const void*, int64_t, const double*, int64_t, const void*,
                     const void*, int64_t, int32_t, const std::atomic<bool>*, ItemOut*, double*, int64_t) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

int64_t cuda_wave_items(Arith, bool, int64_t) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

bool orbit_cuda(Arith, const void*, const void*, const void*, void*, int64_t, int64_t,
                const std::atomic<bool>*, double*, double*, int64_t*, int64_t*) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

bool lyapunov_cuda(Arith, const void*, const void*, int64_t, const double*, const void*, int64_t, int64_t,
                   const std::atomic<bool>*, const std::function<void(double)>&, double*) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

}  // namespace ds::henon::detail
