// CUDA wrappers of the thesis's synthetic suite over suite.cuh: the summation's per-thread
// block sums (the partials go back to the host, as in the thesis), and the do/undo loop in one
// thread (as the thesis times it), for the suite's formats and Kahan summation.
#include <vector>

#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "drift.h"
#include "suite.cuh"

namespace ds::drift {
namespace {

template <class T>
__global__ void sum_kernel(const double* data, int n, int threads, double* words) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) sum_block<T>(data, n, threads, t, words);
}

template <class T>
__global__ void doundo_kernel(double x0, bool div_first, uint64_t seed, int64_t iterations, int64_t every,
                              double y_lo, double y_hi, double* drift, int64_t n_rec, double* final_x) {
  const T x = doundo_loop<T>(T(x0), x0, div_first, seed, iterations, every, y_lo, y_hi, drift, n_rec);
  *final_x = to_double(x);
}

}  // namespace

namespace detail {

void sum_partials_cuda(SumMethod m, const double* data, int n, int threads, double* partial_words) {
  DeviceBuffer d_data(sizeof(double) * static_cast<std::size_t>(n));
  DeviceBuffer d_words(sizeof(double) * 2 * static_cast<std::size_t>(threads));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(d_data.p, data, sizeof(double) * n, cudaMemcpyHostToDevice));
  dispatch_suite(m, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int block = 128;
    sum_kernel<T>
        <<<(threads + block - 1) / block, block>>>(d_data.as<double>(), n, threads, d_words.as<double>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
  });
  DEEPSCOPE_CUDA_CHECK(
      cudaMemcpy(partial_words, d_words.p, sizeof(double) * 2 * threads, cudaMemcpyDeviceToHost));
}

void doundo_cuda(const DoUndoParams& p, double x0, double* drift, int64_t n_rec, double* final_x,
                 double* seconds) {
  double xl, xh, yl, yh;
  doundo_ranges(p.trial, &xl, &xh, &yl, &yh);
  DeviceBuffer d_drift(sizeof(double) * static_cast<std::size_t>(n_rec));
  DeviceBuffer d_final(sizeof(double));
  CudaEvent start, stop;
  dispatch_doundo(p.arith, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Warm-up launch (module load, clocks), then the timed one.
    doundo_kernel<T>
        <<<1, 1>>>(x0, p.div_first, p.seed, 1, 1, yl, yh, d_drift.as<double>(), 0, d_final.as<double>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    DEEPSCOPE_CUDA_CHECK(cudaEventRecord(start.e));
    doundo_kernel<T><<<1, 1>>>(x0, p.div_first, p.seed, p.iterations, p.record_every, yl, yh,
                               d_drift.as<double>(), n_rec, d_final.as<double>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    DEEPSCOPE_CUDA_CHECK(cudaEventRecord(stop.e));
    DEEPSCOPE_CUDA_CHECK(cudaEventSynchronize(stop.e));
  });
  float ms = 0;
  DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e, stop.e));
  *seconds = ms * 1e-3;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(drift, d_drift.p, sizeof(double) * n_rec, cudaMemcpyDeviceToHost));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(final_x, d_final.p, sizeof(double), cudaMemcpyDeviceToHost));
}

}  // namespace detail
}  // namespace ds::drift
