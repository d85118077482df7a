// The TMD workspace's CUDA entry point in builds without CUDA: it says so.
#include <stdexcept>

#include "tmd.h"
#include "lefevre_pipeline.h"

namespace ds::tmd::detail {

int64_t filter_cuda(Func, Mode, int, int, uint64_t, int64_t, uint32_t*, int64_t, int64_t*) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

}  // namespace ds::tmd::detail

namespace ds::tmd::pipeline {

void run_block_cuda(const BlockInput&, BlockOutput*) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

void release_pool_memory() {}

}  // namespace ds::tmd::pipeline
