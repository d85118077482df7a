// arith_ops' CUDA entry points in builds without CUDA: they say so.
#include <stdexcept>

#include "arith_ops.h"

namespace ds {

void arith_ops_cuda(Arith, ArithOp, const void*, const void*, void*, std::size_t) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

Throughput arith_throughput_cuda(Arith, ArithOp, int64_t, int64_t) {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}

}  // namespace ds
