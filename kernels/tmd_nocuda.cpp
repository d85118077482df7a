// The TMD workspace's CUDA entry point in builds without CUDA: it says so.
#include <stdexcept>

#include "tmd.h"
#include "tmd_lefevre.h"

namespace ds::tmd::detail {

int64_t filter_cuda(Func, Mode, int, int, uint64_t, int64_t, uint32_t*, int64_t, int64_t*) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

}  // namespace ds::tmd::detail

namespace ds::tmd::detail {

void run_tests_cuda(const void*, int64_t, bool, int, uint8_t*, uint32_t*) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

std::vector<int64_t> run_scans_cuda(const void*, int64_t, bool) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

void expand_packets_cuda(const void*, const int64_t*, int64_t, void*, int64_t) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

}  // namespace ds::tmd::detail
