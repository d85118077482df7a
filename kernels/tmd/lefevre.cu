// The TMD workspace's Lefèvre/regular block pipeline on CUDA, device-resident: the packets' data
// goes up once; the expansion (hierarchical polynomials), the phase-1 tests, the compaction of the
// failing intervals, the phase-2 tests of their sub-intervals, the compaction of the failing
// sub-intervals and the phase-3 scans all run on the device, one kernel per step over the same
// per-item functions as the CPU (lefevre.cuh). Compaction appends with an atomic counter (the
// order is irrelevant: counts are sums and candidates are sorted by the caller); between the
// phases only the counts come back, to size the next grid (as in the paper, section 4.3.1). At the
// end the per-warp iteration summaries and the candidates come back.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "kernels/core/cuda_check.h"
#include "lefevre.cuh"
#include "lefevre_pipeline.h"

namespace ds::tmd::pipeline {
namespace {

constexpr int kBlock = 128;
using ull = unsigned long long;

// Counters of one block's run, on the device.
struct Counters {
  ull fail1, args2, subs2, fail2, args3, cand;
};

namespace cg = cooperative_groups;

// Warp-aggregated appends: the lanes that call it together (a failing test's lanes, converged at
// the call) reserve their slots of `list` with one atomic on `count`, and add their `args` and
// `subs` to two counters with one atomic each. Where nearly every test fails (phase 1 in the
// binade [128, 256)) one atomic a lane on the same three addresses was most of the phase.
__device__ void append_failed(int64_t value, ull args, ull subs, int64_t* list, ull* count, ull* args_sum,
                              ull* subs_sum) {
  const cg::coalesced_group g = cg::coalesced_threads();
  ull base = 0;
  if (g.thread_rank() == 0) base = atomicAdd(count, static_cast<ull>(g.size()));
  base = g.shfl(base, 0);
  list[base + g.thread_rank()] = value;
  const ull a = cg::reduce(g, args, cg::plus<ull>());
  if (g.thread_rank() == 0) atomicAdd(args_sum, a);
  if (subs_sum) {
    const ull b = cg::reduce(g, subs, cg::plus<ull>());
    if (g.thread_rank() == 0) atomicAdd(subs_sum, b);
  }
}

struct DevItem {  // one expansion work item: intervals k0 + s0 .. k0 + s0 + n - 1 of packet p
  int32_t p;
  int32_t n;
  int64_t s0;
};

// Work item i of the packets (first[p]: packet p's first item; n_pk packets): found by bisection,
// so that only the packets' item offsets go up, not an item record per 64 intervals.
__device__ DevItem item_of(const PacketJob* pk, const int64_t* first, int32_t n_pk, int64_t i) {
  int32_t lo = 0, hi = n_pk - 1;  // first[lo] <= i < first[hi + 1]
  while (lo < hi) {
    const int32_t mid = (lo + hi + 1) / 2;
    if (first[mid] <= i)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int64_t s0 = (i - first[lo]) * kSubPacket;
  return DevItem{lo, static_cast<int32_t>(min(kSubPacket, pk[lo].packet.n - s0)), s0};
}

// The coefficients on the device: three planes, c_j of interval k at p[j nb + k], so that the
// expansion's stores and the phases' loads of consecutive intervals are consecutive in memory.
struct CoefPlanes {
  lb::Frac* p;
  int64_t nb;
  // c_0 .. c_(m-1) of interval k into c (phase 1 reads two, phases 2 and 3 three).
  __device__ void load(int64_t k, lb::Frac (&c)[3], int m) const {
    for (int j = 0; j < m; ++j) c[j] = p[j * nb + k];
  }
};

// The expansion stages each lane's coefficients in shared memory, kStageIntervals at a time, and
// then its warp writes every lane's run out with consecutive lanes on consecutive words (a lane
// writing its own run would make each store of a warp touch 32 lines: Nsight Compute measured 143
// cycles an instruction, 87 % of a block's device time, docs/bench/tmd.md).
constexpr int kStageIntervals = 16;
constexpr int kFracWords = 5;
static_assert(sizeof(lb::Frac) == kFracWords * sizeof(uint32_t), "Frac: 4 words and a sign");
static_assert(kSubPacket % kStageIntervals == 0, "whole stages a work item");
constexpr int kStageRow = kStageIntervals * kFracWords + 1;  // odd: the lanes' rows in distinct banks

__global__ void __launch_bounds__(kBlock, 4)
    expand_kernel(const PacketJob* pk, const int64_t* item_first, int32_t n_pk, int64_t n_items,
                  CoefPlanes coef, int32_t* pidx) {
  __shared__ uint32_t stage[kBlock][kStageRow];
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int first = static_cast<int>(threadIdx.x) - lane;  // the warp's first row
  constexpr unsigned kAll = 0xffffffffu;
  // Every lane of the warp takes part in the writes (an idle one with no intervals).
  const bool active = i < n_items;
  DevItem it{0, 0, 0};
  if (active) it = item_of(pk, item_first, n_pk, i);
  const PacketJob* pj = active ? pk + it.p : nullptr;
  const int64_t k = active ? pj->k0 + it.s0 : 0;
  const int n = active ? it.n : 0;
  const int32_t param = active ? pj->param : 0;
  lb::ExpandBinomials b;
  if (active) lb::expand_binomials(it.s0, &b);
  for (int j = 0; j < 3; ++j) {
    lb::Wide d[lb::kPacketDegree + 1];
    if (active) lb::expand_start(pj->packet, j, it.s0, b, d);
    uint32_t* plane = reinterpret_cast<uint32_t*>(coef.p + j * coef.nb);
    for (int c0 = 0; c0 < kSubPacket; c0 += kStageIntervals) {
      for (int q = 0; q < kStageIntervals; ++q) {
        if (c0 + q < n) {
          const lb::Frac f = lb::expand_value(d);
          uint32_t* row = stage[threadIdx.x] + q * kFracWords;
          row[0] = f.w[0];
          row[1] = f.w[1];
          row[2] = f.w[2];
          row[3] = f.w[3];
          row[4] = f.neg;
          lb::expand_next(d);
        }
      }
      __syncwarp();
      for (int r = 0; r < 32; ++r) {
        const int64_t kr = __shfl_sync(kAll, k, r);
        const int cnt = min(kStageIntervals, __shfl_sync(kAll, n, r) - c0);
        const int32_t pr = __shfl_sync(kAll, param, r);
        if (cnt <= 0) continue;  // the same for every lane
        uint32_t* dst = plane + (kr + c0) * kFracWords;
        for (int w = lane; w < cnt * kFracWords; w += 32) dst[w] = stage[first + r][w];
        if (j == 0 && lane < cnt) pidx[kr + c0 + lane] = pr;
      }
      __syncwarp();
    }
  }
}

__global__ void singles_kernel(const Single* s, int64_t n, CoefPlanes coef, int32_t* pidx) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  for (int j = 0; j < 3; ++j) coef.p[j * coef.nb + s[i].k] = s[i].y[j];
  pidx[s[i].k] = s[i].param;
}

__global__ void phase1_kernel(lb::BlockGeom g, CoefPlanes coef, const int32_t* pidx,
                              const lb::IntervalParams* params, const int64_t* excluded, int64_t n_ex,
                              int64_t T, uint32_t* iters, int64_t* fail1, Counters* c) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= T) return;
  const int64_t k = lb::tested_interval(excluded, n_ex, i), n = lb::interval_args(g, k);
  lb::Frac y[3];
  coef.load(k, y, 2);  // phase 1 reads c_0 and c_1
  const lb::Bound r = lb::phase1_item(g, y, params[pidx[k]], n);
  iters[i] = r.iters;
  if (!r.success)
    append_failed(k, static_cast<ull>(n), static_cast<ull>((n + g.L - 1) / g.L), fail1, &c->fail1, &c->args2,
                  &c->subs2);
}

// Adds the summary s into *dst (shared or global memory) with atomics. Integers only, so the
// result does not depend on the order in which threads and blocks arrive.
__device__ void merge_summary(lb::WarpSummary* dst, const lb::WarpSummary& s) {
  if (s.warps == 0) return;
  atomicAdd(&dst->warps, s.warps);
  atomicAdd(&dst->iter_count, s.iter_count);
  atomicAdd(&dst->iter_sum, s.iter_sum);
  atomicAdd(&dst->nmdm_fixed, s.nmdm_fixed);
  atomicMin(&dst->min, s.min);
  atomicMax(&dst->max, s.max);
  for (int b = 0; b < lb::kNmdmBins; ++b)
    if (s.hist[b] != 0) atomicAdd(&dst->hist[b], s.hist[b]);
}

// Phase 1's loop statistics: each thread folds one warp of tests with lb::add_warp (the CPU's
// loop folds the same warps in order), the block merges its threads' summaries in shared memory
// and then into the run's.
__global__ void warps_kernel(const uint32_t* iters, int64_t T, lb::WarpSummary* out) {
  __shared__ lb::WarpSummary block;
  if (threadIdx.x == 0) block = lb::empty_summary();
  __syncthreads();
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i * 32 < T) {
    lb::WarpSummary mine = lb::empty_summary();
    lb::add_warp(&mine, lb::warp_iters(iters + 32 * i, static_cast<int>(T - 32 * i < 32 ? T - 32 * i : 32)));
    merge_summary(&block, mine);
  }
  __syncthreads();
  if (threadIdx.x == 0) merge_summary(out, block);
}

__global__ void phase2_kernel(lb::BlockGeom g, CoefPlanes coef, const int32_t* pidx,
                              const lb::IntervalParams* params, const int64_t* fail1, int64_t n_fail1,
                              int64_t* fail2, Counters* c) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n_fail1 * g.split) return;
  const int64_t k = fail1[i / g.split], n = lb::interval_args(g, k);
  const int s = static_cast<int>(i % g.split);
  if (static_cast<int64_t>(s) * g.L >= n) return;
  int64_t sub_n = 0;
  lb::Frac y[3];
  coef.load(k, y, 3);
  const lb::Bound r = lb::phase2_item(g, y, params[pidx[k]], n, s, &sub_n);
  if (!r.success)
    append_failed(k * g.split + s, static_cast<ull>(sub_n), 0, fail2, &c->fail2, &c->args3, nullptr);
}

__global__ void phase3_kernel(lb::BlockGeom g, CoefPlanes coef, const int32_t* pidx,
                              const lb::IntervalParams* params, const int64_t* fail2, int64_t n_fail2,
                              int64_t* cand, int64_t cap, Counters* c) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i >= n_fail2) return;
  const int64_t k = fail2[i] / g.split;
  const int s = static_cast<int>(fail2[i] % g.split);
  lb::Frac y[3];
  coef.load(k, y, 3);
  const lb::Scan sc = lb::phase3_scan(g, y, params[pidx[k]], k, s);
  lb::run_scan(sc, g.nearest, [&](int64_t x) {
    const ull slot = atomicAdd(&c->cand, 1ull);
    if (static_cast<int64_t>(slot) < cap) cand[slot] = x;
  });
}

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::max<int64_t>(1, (n + kBlock - 1) / kBlock));
}

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { DEEPSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// Device memory from the stream-ordered allocator: allocating and freeing do not wait for the
// device (cudaFree would, stalling the other worker sharing the device), and the pool reuses
// memory from block to block.
struct StreamBuffer {
  void* p = nullptr;
  cudaStream_t s;
  StreamBuffer(std::size_t bytes, cudaStream_t st) : s(st) {
    DEEPSCOPE_CUDA_CHECK(cudaMallocAsync(&p, bytes ? bytes : 1, s));
  }
  ~StreamBuffer() { cudaFreeAsync(p, s); }
  StreamBuffer(const StreamBuffer&) = delete;
  StreamBuffer& operator=(const StreamBuffer&) = delete;
  template <class U>
  U* as() const {
    return static_cast<U*>(p);
  }
};

template <class T>
void upload(StreamBuffer& d, const std::vector<T>& h, cudaStream_t s) {
  if (!h.empty())
    DEEPSCOPE_CUDA_CHECK(cudaMemcpyAsync(d.p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice, s));
}

Counters read_counters(const StreamBuffer& c, cudaStream_t s) {
  Counters h;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpyAsync(&h, c.p, sizeof h, cudaMemcpyDeviceToHost, s));
  DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(s));
  return h;
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The devices whose stream-ordered pool keeps its memory between blocks.
std::mutex g_pool_mu;
std::set<int> g_pool_devices;

// By default (release threshold 0) the pool hands its memory back to the driver at every
// synchronize, so each block would map its buffers (about 1.3 GB for 2^24 intervals) again.
void keep_pool_memory() {
  int dev = 0;
  DEEPSCOPE_CUDA_CHECK(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(g_pool_mu);
  if (!g_pool_devices.insert(dev).second) return;
  cudaMemPool_t pool;
  DEEPSCOPE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
  uint64_t keep = UINT64_MAX;
  DEEPSCOPE_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
}

}  // namespace

void release_pool_memory() {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  for (int dev : g_pool_devices) {
    cudaMemPool_t pool;
    DEEPSCOPE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, dev));
    uint64_t release = 0;
    DEEPSCOPE_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &release));
    DEEPSCOPE_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
  }
  g_pool_devices.clear();
}

void run_block_cuda(const BlockInput& in, BlockOutput* out) {
  const lb::BlockGeom& g = in.g;
  const int64_t nb = in.nb;
  BlockOutput& o = *out;
  keep_pool_memory();
  Stream st;
  const cudaStream_t s = st.s;
  // Polynomials: upload the packets and singles, expand on the device.
  auto t = Clock::now();
  // Each packet's first work item (kSubPacket intervals an item); the device finds an item's
  // packet from these.
  std::vector<int64_t> first(in.packets.size() + 1, 0);
  for (std::size_t p = 0; p < in.packets.size(); ++p)
    first[p + 1] = first[p] + (in.packets[p].packet.n + kSubPacket - 1) / kSubPacket;
  const int64_t n_items = first.back();
  StreamBuffer d_pk(in.packets.size() * sizeof(PacketJob), s), d_first(first.size() * sizeof(int64_t), s);
  StreamBuffer d_singles(in.singles.size() * sizeof(Single), s);
  StreamBuffer d_params(in.params.size() * sizeof(lb::IntervalParams), s);
  StreamBuffer d_coef(static_cast<std::size_t>(3 * nb) * sizeof(lb::Frac), s);
  const CoefPlanes planes{d_coef.as<lb::Frac>(), nb};
  StreamBuffer d_pidx(static_cast<std::size_t>(nb) * sizeof(int32_t), s);
  StreamBuffer d_cnt(sizeof(Counters), s);
  DEEPSCOPE_CUDA_CHECK(cudaMemsetAsync(d_cnt.p, 0, sizeof(Counters), s));
  upload(d_pk, in.packets, s);
  upload(d_first, first, s);
  upload(d_singles, in.singles, s);
  upload(d_params, in.params, s);
  if (n_items > 0) {
    expand_kernel<<<grid_for(n_items), kBlock, 0, s>>>(d_pk.as<PacketJob>(), d_first.as<int64_t>(),
                                                       static_cast<int32_t>(in.packets.size()), n_items,
                                                       planes, d_pidx.as<int32_t>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
  }
  if (!in.singles.empty()) {
    singles_kernel<<<grid_for(static_cast<int64_t>(in.singles.size())), kBlock, 0, s>>>(
        d_singles.as<Single>(), static_cast<int64_t>(in.singles.size()), planes, d_pidx.as<int32_t>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
  }
  DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(s));
  o.seconds_expand = since(t);
  // Phase 1 and the compaction of its failures.
  t = Clock::now();
  const int64_t n_ex = static_cast<int64_t>(in.excluded.size()), T = nb - n_ex;
  o.phase1 = T;
  StreamBuffer d_excluded(in.excluded.size() * sizeof(int64_t), s);
  upload(d_excluded, in.excluded, s);
  StreamBuffer d_iters(static_cast<std::size_t>(T) * sizeof(uint32_t), s);
  StreamBuffer d_fail1(static_cast<std::size_t>(T) * sizeof(int64_t), s);
  const int64_t n_warps = (T + 31) / 32;
  StreamBuffer d_warps(sizeof(lb::WarpSummary), s);
  Counters c{};
  if (T > 0) {
    phase1_kernel<<<grid_for(T), kBlock, 0, s>>>(
        g, planes, d_pidx.as<int32_t>(), d_params.as<lb::IntervalParams>(), d_excluded.as<int64_t>(), n_ex, T,
        d_iters.as<uint32_t>(), d_fail1.as<int64_t>(), d_cnt.as<Counters>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    const lb::WarpSummary empty = lb::empty_summary();
    DEEPSCOPE_CUDA_CHECK(cudaMemcpyAsync(d_warps.p, &empty, sizeof empty, cudaMemcpyHostToDevice, s));
    warps_kernel<<<grid_for(n_warps), kBlock, 0, s>>>(d_iters.as<uint32_t>(), T,
                                                      d_warps.as<lb::WarpSummary>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    DEEPSCOPE_CUDA_CHECK(cudaMemcpyAsync(&o.warps, d_warps.p, sizeof o.warps, cudaMemcpyDeviceToHost, s));
    c = read_counters(d_cnt, s);
  }
  const int64_t n1 = static_cast<int64_t>(c.fail1);
  o.phase2_args = static_cast<int64_t>(c.args2);
  o.phase2 = static_cast<int64_t>(c.subs2);
  o.seconds_phase1 = since(t);
  // Phase 2 over every sub-interval of the failing intervals, and the compaction of its failures.
  t = Clock::now();
  StreamBuffer d_fail2(static_cast<std::size_t>(n1 * g.split) * sizeof(int64_t), s);
  if (n1 > 0) {
    phase2_kernel<<<grid_for(n1 * g.split), kBlock, 0, s>>>(
        g, planes, d_pidx.as<int32_t>(), d_params.as<lb::IntervalParams>(), d_fail1.as<int64_t>(), n1,
        d_fail2.as<int64_t>(), d_cnt.as<Counters>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    c = read_counters(d_cnt, s);
  }
  const int64_t n2 = static_cast<int64_t>(c.fail2);
  o.phase3 = n2;
  o.phase3_args = static_cast<int64_t>(c.args3);
  o.seconds_phase2 = since(t);
  // Phase 3: the scans append their candidates; a buffer too small is grown and the scans rerun.
  t = Clock::now();
  if (n2 > 0) {
    int64_t cap = std::max<int64_t>(1024, n2);
    for (;;) {
      StreamBuffer d_cand(static_cast<std::size_t>(cap) * sizeof(int64_t), s);
      DEEPSCOPE_CUDA_CHECK(
          cudaMemsetAsync(static_cast<char*>(d_cnt.p) + offsetof(Counters, cand), 0, sizeof(ull), s));
      phase3_kernel<<<grid_for(n2), kBlock, 0, s>>>(g, planes, d_pidx.as<int32_t>(),
                                                    d_params.as<lb::IntervalParams>(), d_fail2.as<int64_t>(),
                                                    n2, d_cand.as<int64_t>(), cap, d_cnt.as<Counters>());
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
      c = read_counters(d_cnt, s);
      const int64_t nc = static_cast<int64_t>(c.cand);
      o.candidate_count = nc;
      if (nc > in.max_candidates) break;  // the caller refuses the block: nothing to copy
      if (nc <= cap) {
        o.candidates.resize(static_cast<std::size_t>(nc));
        if (nc > 0) {
          DEEPSCOPE_CUDA_CHECK(cudaMemcpyAsync(o.candidates.data(), d_cand.p,
                                               static_cast<std::size_t>(nc) * sizeof(int64_t),
                                               cudaMemcpyDeviceToHost, s));
          DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(s));
        }
        break;
      }
      cap = nc;
    }
  }
  o.seconds_phase3 = since(t);
}

}  // namespace ds::tmd::pipeline
