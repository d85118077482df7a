// CUDA backend of the perturbation engine: the reference orbit and BLA table copied to each device
// once (kept per device), a thin __global__ wrapper around perturb_pixel (one thread per pixel, 16x8
// blocks), launched in bands of about 0.25 s (never fewer rows than fill the device) so the host
// reports progress and honours cancel; and the 106-bit tiers over a list of flagged pixels
// (double-word or floatexp2 deltas, with the tier's own BLA table).
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "kernels/core/stop_flag.cuh"
#include "kernels/mandelbrot/fields_device.cuh"
#include "list_tail.h"
#include "perturb.cuh"
#include "perturb.h"

namespace ds::perturb {
namespace {

constexpr int kBlockX = 16, kBlockY = 8;

// The fields' variant asks for 4 resident blocks an SM, as many as the count-only kernel gets with
// floatexp deltas (124 registers): unbounded it took 135, and the fewer warps cost it 1.39x the
// count-only kernel's time (docs/bench/perturbation.md, "The per-pixel fields").
template <class T, int kFields>
__global__ void __launch_bounds__(kBlockX* kBlockY, kFields != kNoFields ? 4 : 1)
    perturb_kernel(const PerturbParams<T> p, int x0, int y0, int tw, int row_begin, int row_end,
                   uint32_t* counts, float* smooth, uint32_t* counts_high, unsigned long long* stats,
                   FieldPtrs fields) {
  const int i = blockIdx.x * kBlockX + threadIdx.x;
  const int r = row_begin + blockIdx.y * kBlockY + threadIdx.y;
  if (i >= tw || r >= row_end) return;
  const PerturbPixel px = perturb_pixel<T, kFields>(p, x0 + i, y0 + r);
  const std::size_t k = static_cast<std::size_t>(r) * tw + i;
  store_pixel(counts, counts_high, smooth, k, px.count, px.smooth);
  if (kFields != kNoFields) fields.store(k, px.fields);
  if (px.skipped) atomicAdd(&stats[0], static_cast<unsigned long long>(px.skipped));
  if (px.rebases) atomicAdd(&stats[1], static_cast<unsigned long long>(px.rebases));
  if (px.interior) atomicAdd(&stats[2], 1ull);
}

// The listed tile pixels (row-major tile indices), one thread each, results in list order, at most
// `budget` steps a launch: the first launch begins each pixel, later ones resume the live ones
// from `states`. A pixel that finishes writes its results, clears live[q] and counts itself in
// stats[1] (stats[0]: BLA-skipped iterations); one that does not stores its state.
template <class T, int kFields>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    perturb_list_kernel(const PerturbParams<T> p, const uint32_t* pixels, int n, int x0, int y0, int tw,
                        PixelState<T, kFields>* states, uint8_t* live, uint32_t budget, bool first,
                        uint64_t* counts, float* smooth, FieldValues* fields, unsigned long long* stats) {
  const int q = blockIdx.x * (kBlockX * kBlockY) + threadIdx.x;
  if (q >= n || (!first && !live[q])) return;
  PixelState<T, kFields> s;
  bool done = false;
  if (first) {
    const uint32_t k = pixels[q];
    done = pixel_begin(p, x0 + static_cast<int>(k % tw), y0 + static_cast<int>(k / tw), s);
  } else {
    s = states[q];
  }
  for (uint32_t b = 0; !done && b < budget; ++b) done = pixel_step(p, s);
  if (!done) {
    states[q] = s;
    live[q] = 1;
    return;
  }
  live[q] = 0;
  counts[q] = s.out.count;
  smooth[q] = s.out.smooth;
  if (kFields != kNoFields) fields[q] = s.out.fields;
  if (s.out.skipped) atomicAdd(&stats[0], static_cast<unsigned long long>(s.out.skipped));
  atomicAdd(&stats[1], 1ull);
}

// The reference and BLA table of the last render stay on the device: the window renders a view as
// a coarse pass and bands, and zoom steps reuse the reference, so most calls upload nothing.
// One entry per device, each under its own lock, so renders on different devices (the workers of
// `deepscope render`) run concurrently and never evict each other's tables. A render holds its
// tables by shared_ptr: another render on the same device (a GPU split into logical devices) may
// replace the entry meanwhile without freeing memory still in use.
struct DeviceTables {
  uint64_t id = 0;  // Prepared's id
  std::unique_ptr<DeviceBuffer> zr, zi, bla;
};
struct DeviceSlot {
  std::mutex mu;
  std::shared_ptr<const DeviceTables> tables;
};
std::mutex g_slots_mu;  // guards the map only; held briefly
// Never destroyed: a cudaFree after the runtime unloads at exit would be an API error.
std::map<int, std::unique_ptr<DeviceSlot>>& g_slots = *new std::map<int, std::unique_ptr<DeviceSlot>>;

DeviceSlot& slot_of(int device) {
  std::lock_guard<std::mutex> lock(g_slots_mu);
  std::unique_ptr<DeviceSlot>& s = g_slots[device];
  if (!s) s = std::make_unique<DeviceSlot>();
  return *s;
}

// The tables `id` on the current device (`device`), uploaded from hp's host arrays when the
// device's entry holds other tables.
template <class T>
std::shared_ptr<const DeviceTables> tables_on(int device, uint64_t id, const PerturbParams<T>& hp,
                                              std::size_t bla_count, const PointFill<T>& fill) {
  DeviceSlot& slot = slot_of(device);
  std::lock_guard<std::mutex> lock(slot.mu);
  if (slot.tables && slot.tables->id == id) return slot.tables;
  slot.tables.reset();  // free the old tables (unless a running render still holds them) first
  auto t = std::make_shared<DeviceTables>();
  t->id = id;
  t->zr = std::make_unique<DeviceBuffer>(hp.ref_len * sizeof(T));
  t->zi = std::make_unique<DeviceBuffer>(hp.ref_len * sizeof(T));
  t->bla = std::make_unique<DeviceBuffer>(bla_count * sizeof(BlaEntry<T>));
  if (hp.zr) {
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(t->zr->p, hp.zr, hp.ref_len * sizeof(T), cudaMemcpyHostToDevice));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(t->zi->p, hp.zi, hp.ref_len * sizeof(T), cudaMemcpyHostToDevice));
  } else {
    // No host arrays (a packed reference): slices of 2^20 points, decoded on the host and copied.
    const uint64_t slice = uint64_t{1} << 20;
    std::vector<T> br(static_cast<std::size_t>(std::min(slice, hp.ref_len)));
    std::vector<T> bi(br.size());
    for (uint64_t k = 0; k < hp.ref_len; k += slice) {
      const uint64_t n = std::min(slice, hp.ref_len - k);
      fill(k, n, br.data(), bi.data());
      DEEPSCOPE_CUDA_CHECK(cudaMemcpy(t->zr->as<T>() + k, br.data(), n * sizeof(T), cudaMemcpyHostToDevice));
      DEEPSCOPE_CUDA_CHECK(cudaMemcpy(t->zi->as<T>() + k, bi.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
  }
  if (bla_count)
    DEEPSCOPE_CUDA_CHECK(
        cudaMemcpy(t->bla->p, hp.bla, bla_count * sizeof(BlaEntry<T>), cudaMemcpyHostToDevice));
  // Pageable uploads may return before their DMA lands: make the tables complete before any render
  // on this device (from any thread, on any stream) can read them.
  DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  slot.tables = t;
  return t;
}

}  // namespace

void release_device_tables() {
  std::lock_guard<std::mutex> lock(g_slots_mu);
  for (auto& kv : g_slots) {
    std::lock_guard<std::mutex> slot_lock(kv.second->mu);
    kv.second->tables.reset();
  }
}

namespace {

// The most pixels the device runs at once (its SMs times their thread slots; at least 8192). A
// launch of fewer leaves SMs idle for as long as its slowest pixel runs, and each thread here is a
// latency-bound chain of up to max_iter steps: where a few pixels run far longer than the rest (a
// minibrot's neighbourhood at 64 p iterations), launches sized only by their measured rate shrink
// to a few rows, each waiting for its own slowest pixel (KF 5e227's minibrot at 640x360: 100 s
// in such bands against 3.9 s at 320x180 in one, docs/bench/finder.md).
std::size_t device_pixels_at_once(int device) {
  int sms = 0, per_sm = 0;
  DEEPSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  DEEPSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  return std::max<std::size_t>(8192, static_cast<std::size_t>(sms) * per_sm);
}

}  // namespace

namespace detail {

template <class T>
double render_cuda(const PerturbParams<T>& hp, std::size_t bla_count, uint64_t tables_id, const Tile& t,
                   const RenderOptions& opt, uint32_t* counts, float* smooth, uint32_t* counts_high,
                   const FieldPtrs& host_fields, uint64_t* skipped, uint64_t* rebases, uint64_t* interior,
                   bool* cancelled, const PointFill<T>& fill) {
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(opt.cuda_device));
  const std::size_t pixels = static_cast<std::size_t>(t.width) * t.height;
  const bool resident = opt.device_counts != nullptr;  // as in mandelbrot.cu
  DeviceBuffer dcounts(resident ? 0 : pixels * sizeof(uint32_t)), dsmooth(resident ? 0 : pixels * sizeof(float));
  uint32_t* dc = resident ? opt.device_counts : dcounts.as<uint32_t>();
  float* ds = resident ? opt.device_smooth : dsmooth.as<float>();
  const bool wide = wide_counts(hp.max_iter);
  DeviceBuffer dhigh(resident || !wide ? 0 : pixels * sizeof(uint32_t));
  uint32_t* dh = !wide ? nullptr : resident ? opt.device_counts_high : dhigh.as<uint32_t>();
  // The asked fields: the caller's device arrays (resident), or scratch copied to host_fields.
  const DeviceFields device_fields(opt, resident, pixels);
  const FieldPtrs& fields = device_fields.ptrs;
  DeviceBuffer dstats(3 * sizeof(unsigned long long));
  const std::shared_ptr<const DeviceTables> tables =
      tables_on(opt.cuda_device, tables_id, hp, bla_count, fill);
  DEEPSCOPE_CUDA_CHECK(cudaMemset(dstats.p, 0, 3 * sizeof(unsigned long long)));
  PerturbParams<T> p = hp;
  p.zr = tables->zr->as<T>();
  p.zi = tables->zi->as<T>();
  p.bla = tables->bla->as<BlaEntry<T>>();
  PinnedStopFlag stop_flag;  // raised while a band runs when opt.cancel is set: its pixels stop
  p.stop = stop_flag.device();

  CudaEvent start, stop;
  double kernel_seconds = 0;
  // Bands of about 0.25 s (progress, cancel), never of fewer rows than fill the device at once.
  const int min_rows = static_cast<int>(
      std::min<std::size_t>(t.height, (device_pixels_at_once(opt.cuda_device) + t.width - 1) / t.width));
  int rows = opt.single_launch ? t.height : min_rows;
  int row = 0;
  while (row < t.height) {
    if (opt.cancel && opt.cancel->load()) {
      *cancelled = true;
      return kernel_seconds;
    }
    const int end = std::min(t.height, row + rows);
    dim3 block(kBlockX, kBlockY);
    dim3 grid(static_cast<unsigned>((t.width + kBlockX - 1) / kBlockX),
              static_cast<unsigned>((end - row + kBlockY - 1) / kBlockY));
    DEEPSCOPE_CUDA_CHECK(cudaEventRecord(start.e));
    if (fields.stripe)
      perturb_kernel<T, kStripeFields><<<grid, block>>>(p, t.x0, t.y0, t.width, row, end, dc, ds, dh,
                                                        dstats.as<unsigned long long>(), fields);
    else if (fields.any())
      perturb_kernel<T, kDerivFields><<<grid, block>>>(p, t.x0, t.y0, t.width, row, end, dc, ds, dh,
                                                       dstats.as<unsigned long long>(), fields);
    else
      perturb_kernel<T, kNoFields><<<grid, block>>>(p, t.x0, t.y0, t.width, row, end, dc, ds, dh,
                                                    dstats.as<unsigned long long>(), fields);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    DEEPSCOPE_CUDA_CHECK(cudaEventRecord(stop.e));
    const bool stopped = stop_flag.wait_or_cancel(stop.e, opt.cancel);
    float ms = 0;
    DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e, stop.e));
    kernel_seconds += ms * 1e-3;
    if (stopped) {  // the band's pixels stopped part-way: nothing of it is kept
      *cancelled = true;
      return kernel_seconds;
    }
    const double rows_per_second = (end - row) / std::max(ms * 1e-3, 1e-6);
    row = end;
    if (opt.progress && row < t.height) opt.progress(static_cast<double>(row) / t.height);
    rows = std::max(min_rows, static_cast<int>(std::min(rows_per_second * 0.25, 1e9)));
  }
  if (!resident) {
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(counts, dc, pixels * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(smooth, ds, pixels * sizeof(float), cudaMemcpyDeviceToHost));
    if (wide)
      DEEPSCOPE_CUDA_CHECK(cudaMemcpy(counts_high, dh, pixels * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  }
  device_fields.copy_to_host(host_fields, pixels);
  unsigned long long st[3] = {0, 0, 0};
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(st, dstats.p, sizeof st, cudaMemcpyDeviceToHost));
  *skipped = st[0];
  *rebases = st[1];
  *interior = st[2];
  return kernel_seconds;
}

// One list chunk's launches (render_list_cuda): bounded in steps, the budget grown towards 0.25 s
// a launch; the unfinished pixels go to the tail once the host's cores would step them faster.
template <class T, int kFields>
bool run_list_chunk(const PerturbParams<T>& p, const uint32_t* didx, int m, const Tile& t, const RenderOptions& opt,
                    uint64_t* dcounts, float* dsmooth, FieldValues* dfields, unsigned long long* dstats,
                    PinnedStopFlag& stop_flag, std::size_t q0, ListTail<T>* tail,
                    std::vector<PixelState<T, kFields>>* tail_states) {
  DeviceBuffer states(static_cast<std::size_t>(m) * sizeof(PixelState<T, kFields>)), live(static_cast<std::size_t>(m));
  constexpr int kThreads = kBlockX * kBlockY;
  CudaEvent start, done;
  // The first launch is short: it measures the device's rate before the pixels are committed to it.
  // With 16,384 steps, floatexp4's first launches took 0.46 to 0.69 s at FractalShark's views 5, 18
  // and 19 (4 to 45 pixels, a thread each) before every pixel went to the host's cores anyway
  // (36f3e79, docs/bench/hard-views.md).
  uint32_t budget = 1u << 10;
  unsigned long long finished_before = 0;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&finished_before, dstats + 1, sizeof finished_before, cudaMemcpyDeviceToHost));
  for (bool first = true;; first = false) {
    if (opt.cancel && opt.cancel->load()) return false;
    DEEPSCOPE_CUDA_CHECK(cudaEventRecord(start.e));
    perturb_list_kernel<T, kFields><<<(m + kThreads - 1) / kThreads, kThreads>>>(
        p, didx, m, t.x0, t.y0, t.width, states.as<PixelState<T, kFields>>(), live.as<uint8_t>(), budget, first,
        dcounts, dsmooth, dfields, dstats);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    DEEPSCOPE_CUDA_CHECK(cudaEventRecord(done.e));
    if (stop_flag.wait_or_cancel(done.e, opt.cancel)) return false;
    float ms = 0;
    DEEPSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e, done.e));
    unsigned long long finished = 0;
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&finished, dstats + 1, sizeof finished, cudaMemcpyDeviceToHost));
    const std::size_t left = static_cast<std::size_t>(m) - static_cast<std::size_t>(finished - finished_before);
    if (left == 0) return true;
    // The slowest thread ran the whole budget: a step of one pixel took seconds / budget here. The
    // device steps `left` pixels at once, the host min(left, threads) at cpu_step_seconds each.
    const double seconds = std::max(1e-6, ms * 1e-3);
    const double device_rate = static_cast<double>(left) * budget / seconds;
    const double host_rate =
        tail && tail->cpu_threads && tail->cpu_step_seconds > 0
            ? static_cast<double>(std::min<std::size_t>(left, tail->cpu_threads)) / tail->cpu_step_seconds
            : 0.0;
    if (host_rate > device_rate) {
      std::vector<uint8_t> hlive(static_cast<std::size_t>(m));
      DEEPSCOPE_CUDA_CHECK(cudaMemcpy(hlive.data(), live.p, hlive.size(), cudaMemcpyDeviceToHost));
      for (int q = 0; q < m; ++q) {
        if (!hlive[q]) continue;
        tail->q.push_back(static_cast<uint32_t>(q0 + q));
        tail_states->emplace_back();
        DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&tail_states->back(), states.as<PixelState<T, kFields>>() + q,
                                        sizeof(PixelState<T, kFields>), cudaMemcpyDeviceToHost));
      }
      return true;
    }
    budget = static_cast<uint32_t>(std::clamp(budget * (0.25 / seconds), 1024.0, 1073741824.0));
  }
}

template <class T>
void render_list_cuda(const PerturbParams<T>& hp, const std::vector<uint32_t>& pixels, const Tile& t,
                      const RenderOptions& opt, uint64_t* counts, float* smooth, FieldValues* fields,
                      uint64_t* skipped, bool* cancelled, ListTail<T>* tail) {
  if (pixels.empty()) return;
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(opt.cuda_device));
  DeviceBuffer zr(hp.ref_len * sizeof(T)), zi(hp.ref_len * sizeof(T));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(zr.p, hp.zr, hp.ref_len * sizeof(T), cudaMemcpyHostToDevice));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(zi.p, hp.zi, hp.ref_len * sizeof(T), cudaMemcpyHostToDevice));
  // The tier's own BLA table (refine_flagged: 106-bit, eps 2^-106), when it has one, and its
  // period map's coefficients after it.
  const std::size_t bla_entries = hp.pm_degree > 0 ? hp.pm_offset + period_map_terms(hp.pm_degree) + hp.pm_rungs
                                  : hp.bla_levels > 1 ? hp.level_offset[kMaxBlaLevels] + hp.bla_suffix
                                                      : 0;
  DeviceBuffer bla(bla_entries * sizeof(BlaEntry<T>));
  if (bla_entries)
    DEEPSCOPE_CUDA_CHECK(
        cudaMemcpy(bla.p, hp.bla, bla_entries * sizeof(BlaEntry<T>), cudaMemcpyHostToDevice));
  PerturbParams<T> p = hp;
  p.zr = zr.as<T>();
  p.zi = zi.as<T>();
  p.bla = bla_entries ? bla.as<BlaEntry<T>>() : nullptr;
  if (!bla_entries) p.bla_levels = 0;
  if (!bla_entries) p.pm_degree = 0;
  PinnedStopFlag stop_flag;
  p.stop = stop_flag.device();
  const std::size_t n = pixels.size();
  DeviceBuffer didx(n * sizeof(uint32_t)), dcounts(n * sizeof(uint64_t)), dsmooth(n * sizeof(float));
  DeviceBuffer dfields(fields ? n * sizeof(FieldValues) : 0);
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(didx.p, pixels.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  DeviceBuffer dstats(2 * sizeof(unsigned long long));
  DEEPSCOPE_CUDA_CHECK(cudaMemset(dstats.p, 0, 2 * sizeof(unsigned long long)));
  // Chunks of four times what the device runs at once (their states, some 0.5 KB a pixel, are kept
  // on the device between launches); cancel is honoured between launches and within them.
  const std::size_t kChunk = 4 * device_pixels_at_once(opt.cuda_device);
  for (std::size_t q0 = 0; q0 < n; q0 += kChunk) {
    const int m = static_cast<int>(std::min(kChunk, n - q0));
    // The glitch path's few pixels: one fields variant (the stripe's, which the others' values equal).
    const bool ok =
        fields ? run_list_chunk<T, kStripeFields>(p, didx.as<uint32_t>() + q0, m, t, opt, dcounts.as<uint64_t>() + q0,
                                                  dsmooth.as<float>() + q0, dfields.as<FieldValues>() + q0,
                                                  dstats.as<unsigned long long>(), stop_flag, q0, tail,
                                                  tail ? &tail->stripe : nullptr)
               : run_list_chunk<T, kNoFields>(p, didx.as<uint32_t>() + q0, m, t, opt, dcounts.as<uint64_t>() + q0,
                                              dsmooth.as<float>() + q0, nullptr, dstats.as<unsigned long long>(),
                                              stop_flag, q0, tail, tail ? &tail->plain : nullptr);
    if (!ok) {
      *cancelled = true;
      return;
    }
  }
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(counts, dcounts.p, n * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(smooth, dsmooth.p, n * sizeof(float), cudaMemcpyDeviceToHost));
  if (fields) DEEPSCOPE_CUDA_CHECK(cudaMemcpy(fields, dfields.p, n * sizeof(FieldValues), cudaMemcpyDeviceToHost));
  unsigned long long sk = 0;
  DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&sk, dstats.p, sizeof sk, cudaMemcpyDeviceToHost));
  *skipped += sk;
}

template void render_list_cuda<FloatExp2>(const PerturbParams<FloatExp2>&, const std::vector<uint32_t>&,
                                          const Tile&, const RenderOptions&, uint64_t*, float*, FieldValues*,
                                          uint64_t*, bool*, ListTail<FloatExp2>*);
template void render_list_cuda<FloatExpN<4>>(const PerturbParams<FloatExpN<4>>&, const std::vector<uint32_t>&,
                                             const Tile&, const RenderOptions&, uint64_t*, float*, FieldValues*,
                                             uint64_t*, bool*, ListTail<FloatExpN<4>>*);
template void render_list_cuda<DwDelta>(const PerturbParams<DwDelta>&, const std::vector<uint32_t>&,
                                        const Tile&, const RenderOptions&, uint64_t*, float*, FieldValues*,
                                        uint64_t*, bool*, ListTail<DwDelta>*);
template double render_cuda<double>(const PerturbParams<double>&, std::size_t, uint64_t, const Tile&,
                                    const RenderOptions&, uint32_t*, float*, uint32_t*, const FieldPtrs&,
                                    uint64_t*, uint64_t*, uint64_t*, bool*, const PointFill<double>&);
template double render_cuda<FloatExp>(const PerturbParams<FloatExp>&, std::size_t, uint64_t, const Tile&,
                                      const RenderOptions&, uint32_t*, float*, uint32_t*, const FieldPtrs&,
                                      uint64_t*, uint64_t*, uint64_t*, bool*, const PointFill<FloatExp>&);

}  // namespace detail
}  // namespace ds::perturb
