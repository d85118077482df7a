// CUDA wrappers of the TMD workspace's Lefèvre and regular searches: one kernel per phase kind,
// over the same per-item functions as the CPU (tmd_lefevre.cuh). Phases 1 and 2 run the
// lower-bound test, one thread per (sub-)interval; the host compacts the failing ones between
// launches; phase 3 scans by tabulated differences, one thread per sub-interval, appending
// candidates with an atomic counter.
#include <algorithm>
#include <vector>

#include "cuda_check.h"
#include "cuda_memory.cuh"
#include "tmd_lefevre.cuh"
#include "tmd_lefevre.h"

namespace ds::tmd {
namespace {

constexpr int kBlock = 128;

__global__ void test_kernel(const lb::LinearTest* t, int64_t n, bool lefevre, int kth, uint8_t* ok,
                            uint32_t* it) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const lb::Bound r = lb::run_test(t[i], lefevre, kth);
  ok[i] = r.success ? 1 : 0;
  it[i] = r.iters;
}

__global__ void scan_kernel(const lb::Scan* s, int64_t n, bool nearest, int64_t* out, int64_t cap,
                            unsigned long long* count) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  lb::run_scan(s[i], nearest, [&](int64_t x) {
    const unsigned long long slot = atomicAdd(count, 1ull);
    if (static_cast<int64_t>(slot) < cap) out[slot] = x;
  });
}

__global__ void expand_kernel(const lb::Packet* pk, const int64_t* offset, int64_t n, lb::Frac* out) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  lb::expand_packet(pk[i], out + 3 * offset[i]);
}

unsigned grid_for(int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

}  // namespace

namespace detail {

void run_tests_cuda(const void* tests, int64_t count, bool lefevre, int kth, uint8_t* success,
                    uint32_t* iters) {
  if (count <= 0) return;
  DeviceBuffer d_t(static_cast<std::size_t>(count) * sizeof(lb::LinearTest));
  DeviceBuffer d_ok(static_cast<std::size_t>(count));
  DeviceBuffer d_it(static_cast<std::size_t>(count) * sizeof(uint32_t));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(d_t.p, tests, static_cast<std::size_t>(count) * sizeof(lb::LinearTest),
                                  cudaMemcpyHostToDevice));
  test_kernel<<<grid_for(count), kBlock>>>(d_t.as<lb::LinearTest>(), count, lefevre, kth, d_ok.as<uint8_t>(),
                                           d_it.as<uint32_t>());
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(success, d_ok.p, static_cast<std::size_t>(count), cudaMemcpyDeviceToHost));
  DEEPSCOPE_CUDA_CHECK(
      cudaMemcpy(iters, d_it.p, static_cast<std::size_t>(count) * sizeof(uint32_t), cudaMemcpyDeviceToHost));
}

std::vector<int64_t> run_scans_cuda(const void* scans, int64_t count, bool nearest) {
  if (count <= 0) return {};
  DeviceBuffer d_s(static_cast<std::size_t>(count) * sizeof(lb::Scan));
  DEEPSCOPE_CUDA_CHECK(
      cudaMemcpy(d_s.p, scans, static_cast<std::size_t>(count) * sizeof(lb::Scan), cudaMemcpyHostToDevice));
  int64_t cap = std::max<int64_t>(1024, count);
  for (;;) {
    DeviceBuffer d_out(static_cast<std::size_t>(cap) * sizeof(int64_t));
    DeviceBuffer d_cnt(sizeof(unsigned long long));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(d_cnt.p, 0, sizeof(unsigned long long)));
    scan_kernel<<<grid_for(count), kBlock>>>(d_s.as<lb::Scan>(), count, nearest, d_out.as<int64_t>(), cap,
                                             d_cnt.as<unsigned long long>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    unsigned long long n = 0;
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&n, d_cnt.p, sizeof n, cudaMemcpyDeviceToHost));
    if (static_cast<int64_t>(n) <= cap) {
      std::vector<int64_t> out(static_cast<std::size_t>(n));
      if (n)
        DEEPSCOPE_CUDA_CHECK(cudaMemcpy(out.data(), d_out.p, n * sizeof(int64_t), cudaMemcpyDeviceToHost));
      return out;
    }
    cap = static_cast<int64_t>(n);
  }
}

void expand_packets_cuda(const void* packets, const int64_t* offset, int64_t count, void* out,
                         int64_t out_items) {
  if (count <= 0) return;
  DeviceBuffer d_pk(static_cast<std::size_t>(count) * sizeof(lb::Packet));
  DeviceBuffer d_off(static_cast<std::size_t>(count) * sizeof(int64_t));
  DeviceBuffer d_out(static_cast<std::size_t>(out_items) * 3 * sizeof(lb::Frac));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(d_pk.p, packets, static_cast<std::size_t>(count) * sizeof(lb::Packet),
                                  cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(
      cudaMemcpy(d_off.p, offset, static_cast<std::size_t>(count) * sizeof(int64_t), cudaMemcpyHostToDevice));
  expand_kernel<<<grid_for(count), kBlock>>>(d_pk.as<lb::Packet>(), d_off.as<int64_t>(), count,
                                             d_out.as<lb::Frac>());
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(out, d_out.p, static_cast<std::size_t>(out_items) * 3 * sizeof(lb::Frac),
                                  cudaMemcpyDeviceToHost));
}

}  // namespace detail
}  // namespace ds::tmd
