// CUDA backend of the Mandelbrot engine: thin __global__ wrappers around mandel_pixel (every
// format) and coop_pixel (limb formats, coop.cuh), and the launch loop (bands sized for
// about 0.25 s each, so the host can report progress and honour cancellation between launches).
#include <algorithm>
#include <chrono>
#include <type_traits>

#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "kernels/core/stop_flag.cuh"
#include "mandelbrot.cuh"
#include "mandelbrot.h"
#include "coop.cuh"
#include "fields_device.cuh"

namespace ds::mandel {
namespace {

constexpr int kBlockX = 16, kBlockY = 8;  // warps of 16x2 pixels: neighbours diverge less than a row

template <class T>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    pixel_kernel(const MandelParams<T> p, int x0, int y0, int tw, int row_begin, int row_end,
                 uint32_t* counts, float* smooth, uint32_t* counts_high) {
  const int i = blockIdx.x * kBlockX + threadIdx.x;
  const int r = row_begin + blockIdx.y * kBlockY + threadIdx.y;
  if (i >= tw || r >= row_end) return;
  const PixelResult px = mandel_pixel(p, x0 + i, y0 + r);
  const std::size_t k = static_cast<std::size_t>(r) * tw + i;
  store_pixel(counts, counts_high, smooth, k, px.count, px.smooth);
}

// The fields' variant (RenderOptions::fields): field_pixel, one thread per pixel.
template <class T>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    field_kernel(const MandelParams<T> p, int x0, int y0, int tw, int row_begin, int row_end, uint32_t* counts,
                 float* smooth, uint32_t* counts_high, FieldPtrs fields) {
  const int i = blockIdx.x * kBlockX + threadIdx.x;
  const int r = row_begin + blockIdx.y * kBlockY + threadIdx.y;
  if (i >= tw || r >= row_end) return;
  FieldValues f;
  const PixelResult px = field_pixel(p, x0 + i, y0 + r, &f);
  const std::size_t k = static_cast<std::size_t>(r) * tw + i;
  store_pixel(counts, counts_high, smooth, k, px.count, px.smooth);
  fields.store(k, f);
}

constexpr int kRefillThreads = 128;

// Thread per pixel with refill (refill_pixels): a grid that just fills the GPU, each thread taking
// the next pixel from `counter` whenever its pixel finishes.
template <class T>
__global__ void __launch_bounds__(kRefillThreads)
    refill_kernel(const MandelParams<T> p, int x0, int y0, int tw, int row_begin, int rows, uint32_t* counts,
                  float* smooth, uint32_t* counts_high, unsigned long long* counter) {
  DeviceWarp w;
  w.counter = counter;
  refill_pixels(w, p, x0, y0, tw, row_begin, rows, counts, smooth, counts_high);
}

// The big-limb paper's layout: blocks of 32 pixels x S threads (S >= N words), one pixel per
// segment of S consecutive threads.
template <int N>
__global__ void __launch_bounds__(coop::Shape<N>::kThreads)
    coop_kernel(const MandelParams<Limb<N>> p, int x0, int y0, int tw, int row_begin, uint32_t* counts,
                float* smooth, uint32_t* counts_high) {
  constexpr int S = coop::Shape<N>::S;
  __shared__ uint32_t sh[coop::Shape<N>::kPixelsPerBlock][2 * S];
  const int pix = static_cast<int>(threadIdx.x) / S;
  const int i = blockIdx.x * coop::Shape<N>::kPixelsPerBlock + pix;
  const int r = row_begin + static_cast<int>(blockIdx.y);
  const PixelResult px = coop::coop_pixel<N>(DeviceWarp{}, p, x0 + i, y0 + r, i < tw, sh[pix]);
  if (static_cast<int>(threadIdx.x) % S == 0 && i < tw) {
    const std::size_t k = static_cast<std::size_t>(r) * tw + i;
    store_pixel(counts, counts_high, smooth, k, px.count, px.smooth);
  }
}

template <class T>
struct LimbWords {
  static constexpr int value = 0;
};
template <int N>
struct LimbWords<Limb<N>> {
  static constexpr int value = N;
};



// Launches rows [row_begin, row_end) of the tile with the kernel that T and the options select.
template <class T>
void launch_band(const MandelParams<T>& p, const Tile& t, int row_begin, int row_end,
                 const RenderOptions& opt, uint32_t* counts, float* smooth, uint32_t* counts_high,
                 unsigned long long* counter, const FieldPtrs& fields) {
  if (fields.any()) {
    dim3 block(kBlockX, kBlockY);
    dim3 grid(static_cast<unsigned>((t.width + kBlockX - 1) / kBlockX),
              static_cast<unsigned>((row_end - row_begin + kBlockY - 1) / kBlockY));
    field_kernel<T><<<grid, block>>>(p, t.x0, t.y0, t.width, row_begin, row_end, counts, smooth, counts_high, fields);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    return;
  }
  constexpr int kWords = LimbWords<T>::value;
  if constexpr (kWords > 0) {
    if (opt.limb_strategy == LimbStrategy::kCooperative) {
      constexpr int kPixels = coop::Shape<kWords>::kPixelsPerBlock;
      dim3 grid(static_cast<unsigned>((t.width + kPixels - 1) / kPixels),
                static_cast<unsigned>(row_end - row_begin));
      coop_kernel<kWords>
          <<<grid, coop::Shape<kWords>::kThreads>>>(p, t.x0, t.y0, t.width, row_begin, counts, smooth, counts_high);
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  if (opt.gpu_schedule == GpuSchedule::kRefill) {
    int per_sm = 0, device = 0, sms = 0;
    DEEPSCOPE_CUDA_CHECK(cudaGetDevice(&device));
    DEEPSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    DEEPSCOPE_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, refill_kernel<T>, kRefillThreads, 0));
    const long long pixels = static_cast<long long>(t.width) * (row_end - row_begin);
    const long long needed = (pixels + kRefillThreads - 1) / kRefillThreads;
    const long long blocks =
        std::max(1LL, std::min(needed, static_cast<long long>(std::max(per_sm, 1)) * sms));
    DEEPSCOPE_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned long long)));
    refill_kernel<T><<<static_cast<unsigned>(blocks), kRefillThreads>>>(
        p, t.x0, t.y0, t.width, row_begin, row_end - row_begin, counts, smooth, counts_high, counter);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    return;
  }
  dim3 block(kBlockX, kBlockY);
  dim3 grid(static_cast<unsigned>((t.width + kBlockX - 1) / kBlockX),
            static_cast<unsigned>((row_end - row_begin + kBlockY - 1) / kBlockY));
  pixel_kernel<T><<<grid, block>>>(p, t.x0, t.y0, t.width, row_begin, row_end, counts, smooth, counts_high);
  DEEPSCOPE_CUDA_CHECK_LAUNCH();
}

template <class T>
double render_typed(const Geometry& g, const View& v, const Tile& t, const RenderOptions& opt,
                    uint32_t* counts, float* smooth, uint32_t* counts_high, const FieldPtrs& host_fields,
                    bool* cancelled) {
  MandelParams<T> p = make_params<T>(g, v, opt);
  PinnedStopFlag stop_flag;  // raised while a band runs when opt.cancel is set: its pixels stop
  p.stop = stop_flag.device();
  const bool wide = wide_counts(v.max_iter);
  const std::size_t pixels = static_cast<std::size_t>(t.width) * t.height;
  // Device-resident output (opt.device_counts) is written in place; otherwise scratch arrays are
  // copied to the host at the end.
  const bool resident = opt.device_counts != nullptr;
  DeviceBuffer dcounts(resident ? 0 : pixels * sizeof(uint32_t)), dsmooth(resident ? 0 : pixels * sizeof(float));
  DeviceBuffer dhigh(resident || !wide ? 0 : pixels * sizeof(uint32_t));
  DeviceBuffer dcounter(sizeof(unsigned long long));
  uint32_t* dc = resident ? opt.device_counts : static_cast<uint32_t*>(dcounts.p);
  uint32_t* dh = !wide ? nullptr : resident ? opt.device_counts_high : static_cast<uint32_t*>(dhigh.p);
  float* ds = resident ? opt.device_smooth : static_cast<float*>(dsmooth.p);
  // The asked fields: the caller's device arrays, or scratch copied to host_fields at the end.
  const DeviceFields device_fields(opt, resident, pixels);
  const FieldPtrs& fields = device_fields.ptrs;
  CudaEvent start, stop;
  double kernel_seconds = 0;
  // The first band is small (about 64K pixels); later bands aim at 0.25 s from the measured rate.
  int rows = opt.single_launch ? t.height : std::max(1, static_cast<int>(65536 / t.width));
  int row = 0;
  while (row < t.height) {
    if (opt.cancel && opt.cancel->load()) {
      *cancelled = true;
      return kernel_seconds;
    }
    const int end = std::min({t.height, row + rows, row + 65535});  // grid.y limit of the coop kernel
    DEEPSCOPE_CUDA_CHECK(cudaEventRecord(start.e));
    launch_band(p, t, row, end, opt, dc, ds, dh, static_cast<unsigned long long*>(dcounter.p), fields);
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
    rows = std::max(1, static_cast<int>(std::min(rows_per_second * 0.25, 1e9)));
  }
  if (!resident) {
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(counts, dc, pixels * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(smooth, ds, pixels * sizeof(float), cudaMemcpyDeviceToHost));
    if (wide)
      DEEPSCOPE_CUDA_CHECK(cudaMemcpy(counts_high, dh, pixels * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  }
  device_fields.copy_to_host(host_fields, pixels);
  if (opt.progress) opt.progress(1.0);
  return kernel_seconds;
}

}  // namespace

namespace detail {

double render_cuda(Arith a, const Geometry& g, const View& v, const Tile& t, const RenderOptions& opt,
                   uint32_t* counts, float* smooth, uint32_t* counts_high, const FieldPtrs& fields, bool* cancelled) {
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(opt.cuda_device));
  return dispatch(a, [&](auto tag) {
    return render_typed<typename decltype(tag)::type>(g, v, t, opt, counts, smooth, counts_high, fields,
                                                      cancelled);
  });
}

}  // namespace detail
}  // namespace ds::mandel
