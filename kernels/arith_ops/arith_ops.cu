// CUDA wrappers of arith_ops: element-wise kernels and throughput chains, instantiated for every
// format through the one dispatch.
#include <vector>

#include "arith_ops.cuh"
#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"

namespace ds {
namespace {

template <class T>
__global__ void elementwise_kernel(ArithOp op, const T* x, const T* y, T* out, std::size_t n) {
  std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = kernels::apply_op(op, x[i], y[i]);
}

template <class T, ArithOp Op>
__global__ void chain_kernel(int64_t steps, kernels::ChainSeed seed, double* sink) {
  int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  T x, y;
  kernels::chain_start<T, Op>(x, y, k, seed);
  for (int64_t s = 0; s < steps; ++s) kernels::chain_step<T, Op>(x, y);
  sink[k] = to_double(x);
}


void require_device() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    cudaGetLastError();
    throw CudaError("no CUDA device available");
  }
}

template <class T, ArithOp Op>
Throughput gpu_chains(int64_t chains, int64_t steps) {
  const int block = 128;
  int64_t blocks = (chains + block - 1) / block;
  DeviceBuffer sink(static_cast<std::size_t>(blocks * block) * sizeof(double));
  // Warm-up launch: module load and clocks stay out of the timing.
  chain_kernel<T, Op><<<static_cast<unsigned>(blocks), block>>>(steps / 16 + 1, kernels::chain_seed<Op>(),
                                                                  static_cast<double*>(sink.p));
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  CudaEvent start, stop;
  DEEPSCOPE_CUDA_CHECK(cudaEventRecord(start.e));
  chain_kernel<T, Op><<<static_cast<unsigned>(blocks), block>>>(steps, kernels::chain_seed<Op>(), static_cast<double*>(sink.p));
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaEventRecord(stop.e));
  DEEPSCOPE_CUDA_CHECK(cudaEventSynchronize(stop.e));
  float ms = 0;
  DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e, stop.e));
  std::vector<double> host(static_cast<std::size_t>(blocks * block));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(host.data(), sink.p, host.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double checksum = 0;
  for (double v : host) checksum += v;
  double sec = ms * 1e-3;
  double ops = static_cast<double>(blocks * block) * static_cast<double>(steps) * (Op == ArithOp::kAdd ? 2.0 : 1.0);
  return {sec, ops / sec, checksum};
}

}  // namespace

void arith_ops_cuda(Arith a, ArithOp op, const void* x, const void* y, void* out, std::size_t n) {
  if (!arith_op_supported(a, op))
    throw ArithError(std::string(arith_op_name(op)) + " is not defined for " + arith_name(a));
  require_device();
  dispatch(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::size_t bytes = n * sizeof(T);
    DeviceBuffer dx(bytes), dy(bytes), dout(bytes);
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dx.p, x, bytes, cudaMemcpyHostToDevice));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(dy.p, y, bytes, cudaMemcpyHostToDevice));
    const int block = 128;
    unsigned blocks = static_cast<unsigned>((n + block - 1) / block);
    if (blocks > 0) {
      elementwise_kernel<T><<<blocks, block>>>(op, static_cast<const T*>(dx.p), static_cast<const T*>(dy.p),
                                               static_cast<T*>(dout.p), n);
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
    }
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(out, dout.p, bytes, cudaMemcpyDeviceToHost));
  });
}

Throughput arith_throughput_cuda(Arith a, ArithOp op, int64_t chains, int64_t steps) {
  require_device();
  return dispatch(a, [&](auto tag) -> Throughput {
    using T = typename decltype(tag)::type;
    switch (op) {
      case ArithOp::kAdd: return gpu_chains<T, ArithOp::kAdd>(chains, steps);
      case ArithOp::kMul: return gpu_chains<T, ArithOp::kMul>(chains, steps);
      case ArithOp::kSqr: return gpu_chains<T, ArithOp::kSqr>(chains, steps);
      case ArithOp::kHenon: return gpu_chains<T, ArithOp::kHenon>(chains, steps);
      default: throw ArithError(std::string("no throughput chain for ") + arith_op_name(op));
    }
  });
}

}  // namespace ds
