// CUDA wrapper of the TMD workspace's exhaustive filter: one thread per bit pattern over the same
// per-input function as the CPU (tmd.cuh); candidates are appended with an atomic counter (few
// survive the 2^-k filter), evaluated arguments counted per block.
#include <algorithm>

#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "tmd.cuh"
#include "tmd.h"

namespace ds::tmd {
namespace {

constexpr int kBlock = 256;

__global__ void filter_kernel(Func f, Mode m, int p, double thr, uint64_t first, int64_t n, uint32_t* out,
                              int64_t cap, unsigned long long* count, unsigned long long* evaluated) {
  __shared__ unsigned int block_evals;
  if (threadIdx.x == 0) block_evals = 0;
  __syncthreads();
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    const uint32_t bits = static_cast<uint32_t>(first + static_cast<uint64_t>(i));
    const dev::Eval ev = dev::evaluate(f, m, p, bits);
    if (ev.status != dev::kEvalSkip) atomicAdd(&block_evals, 1u);
    if (dev::is_candidate(ev, thr)) {
      const unsigned long long slot = atomicAdd(count, 1ull);
      if (static_cast<int64_t>(slot) < cap) out[slot] = bits;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0 && block_evals) atomicAdd(evaluated, static_cast<unsigned long long>(block_evals));
}

}  // namespace

namespace detail {

int64_t filter_cuda(Func f, Mode m, int p, int k, uint64_t first, int64_t n, uint32_t* out, int64_t cap,
                    int64_t* evaluated) {
  const double thr = dev::candidate_threshold(p, k);
  DeviceBuffer d_out(static_cast<std::size_t>(std::max<int64_t>(cap, 1)) * sizeof(uint32_t));
  DeviceBuffer d_cnt(2 * sizeof(unsigned long long));
  DEEPSCOPE_CUDA_CHECK(cudaMemset(d_cnt.p, 0, 2 * sizeof(unsigned long long)));
  unsigned long long* cnt = d_cnt.as<unsigned long long>();
  const int64_t per_launch = int64_t{1} << 30;  // grid.x stays far below its limit
  for (int64_t off = 0; off < n; off += per_launch) {
    const int64_t len = std::min(per_launch, n - off);
    const unsigned grid = static_cast<unsigned>((len + kBlock - 1) / kBlock);
    filter_kernel<<<grid, kBlock>>>(f, m, p, thr, first + static_cast<uint64_t>(off), len,
                                    d_out.as<uint32_t>(), cap, cnt, cnt + 1);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
  }
  DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  unsigned long long h[2];
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(h, d_cnt.p, sizeof h, cudaMemcpyDeviceToHost));
  const int64_t count = static_cast<int64_t>(h[0]);
  if (evaluated) *evaluated = static_cast<int64_t>(h[1]);
  const int64_t stored = std::min(count, cap);
  if (stored > 0)
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(out, d_out.p, static_cast<std::size_t>(stored) * sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost));
  return count;
}

}  // namespace detail
}  // namespace ds::tmd
