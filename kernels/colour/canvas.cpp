// Canvas (canvas.h): host storage and the CPU composition here; device storage and the CUDA
// composition in canvas.cu.
#include "canvas.h"

#include <cstring>
#include <string>

#include "canvas.cuh"
#include "kernels/core/cpu_parallel.h"
#include "kernels/core/device.h"
#include "kernels/mandelbrot/view.h"

namespace ds::colour {

Canvas::Canvas(int width, int height, Backend backend, int cuda_device)
    : width_(width), height_(height), backend_(select_backend(backend)), device_(cuda_device) {
  if (width < 1 || height < 1 || width > 32768 || height > 32768)
    throw mandel::ViewError("a canvas must be 1..32768 pixels each way, got " + std::to_string(width) + "x" +
                            std::to_string(height));
  const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  const mandel::MemoryEstimate need = mandel::estimate_memory(mandel::Tile{0, 0, width, height}, backend_);
  if (backend_ == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    const uint64_t have = device_memory_bytes(cuda_device);
    if (have && need.device_bytes > have)
      throw BackendError("a " + std::to_string(width) + "x" + std::to_string(height) +
                         " canvas does not fit in the memory of CUDA device " + std::to_string(cuda_device));
    counts_ = static_cast<uint32_t*>(display_alloc(n * sizeof(uint32_t), cuda_device));
    try {
      smooth_ = static_cast<float*>(display_alloc(n * sizeof(float), cuda_device));
    } catch (...) {
      display_free(counts_, cuda_device);
      throw;
    }
#else
    throw BackendError("built without CUDA");
#endif
  } else {
    const uint64_t have = host_memory_bytes();
    if (have && need.host_bytes > have)
      throw BackendError("a " + std::to_string(width) + "x" + std::to_string(height) +
                         " canvas does not fit in this machine's memory");
    host_counts_.assign(n, 0);
    host_smooth_.assign(n, 0.0f);
    counts_ = host_counts_.data();
    smooth_ = host_smooth_.data();
  }
}

Canvas::~Canvas() {
#if DEEPSCOPE_WITH_CUDA
  if (backend_ == Backend::kCuda) {
    display_free(counts_, device_);
    display_free(smooth_, device_);
    display_free(device_rgba_, device_);
    display_free(device_planes_, device_);
    display_free(counts_high_, device_);
    for (float* f : field_) display_free(f, device_);
  }
#endif
}

namespace {
// fn(x, y) for every pixel of a w x h frame, rows spread over the host's cores.
template <class Fn>
void for_each_pixel(int w, int h, Fn&& fn) {
  parallel_for(static_cast<std::size_t>(h), 16, [&](std::size_t y0, std::size_t y1) {
    for (std::size_t y = y0; y < y1; ++y)
      for (int x = 0; x < w; ++x) fn(x, static_cast<int>(y));
  });
}

// The canvas's field planes in FrameView's order, with their Field bits.
constexpr unsigned kFieldBit[kCanvasFields] = {mandel::kFieldDistance, mandel::kFieldDistance,
                                               mandel::kFieldPhase, mandel::kFieldStripe,
                                               mandel::kFieldSqrtSmooth};
}  // namespace

FrameView Canvas::frame_view() const {
  FrameView f{counts_, smooth_, width_, height_, wide_ ? counts_high_ : nullptr};
  for (int k = 0; k < kCanvasFields; ++k) f.field[k] = field_[k];
  return f;
}

mandel::RenderResult Canvas::render_rows(const mandel::View& v, mandel::RenderOptions opt, int row_begin,
                                         int row_end) {
  if (v.width != width_ || v.height != height_)
    throw mandel::ViewError("the view is " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                            " but the canvas is " + std::to_string(width_) + "x" + std::to_string(height_));
  if (row_begin < 0 || row_end > height_ || row_begin >= row_end)
    throw mandel::ViewError("rows [" + std::to_string(row_begin) + ", " + std::to_string(row_end) +
                            ") are not a band of the " + std::to_string(height_) + "-row canvas");
  opt.backend = backend_;
  opt.cuda_device = device_;
  opt.row_begin = row_begin;
  opt.row_end = row_end;
  const std::size_t offset = static_cast<std::size_t>(row_begin) * static_cast<std::size_t>(width_);
  const std::size_t n = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  // A wide view (counts.h) needs the counts' high words too, allocated (zeroed) the first time.
  wide_ = mandel::wide_counts(v.max_iter);
  if (wide_) ensure_counts_high();
  // The planes of the fields asked, allocated (zeroed) the first time.
  for (int k = 0; k < kCanvasFields; ++k) {
    if (!(opt.fields & kFieldBit[k]) || field_[k]) continue;
    if (backend_ == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
      field_[k] = static_cast<float*>(display_alloc(n * sizeof(float), device_));
#endif
    } else {
      host_field_[k].assign(n, 0.0f);
      field_[k] = host_field_[k].data();
    }
  }
  mandel::RenderResult r;
  if (backend_ == Backend::kCuda) {
    opt.device_counts = counts_ + offset;
    opt.device_smooth = smooth_ + offset;
    opt.device_counts_high = wide_ ? counts_high_ + offset : nullptr;
    // The fields are written in place too (the engine's device-resident fields).
    float* const planes[kCanvasFields] = {field_[0], field_[1], field_[2], field_[3], field_[4]};
    auto at = [&](int k) { return (opt.fields & kFieldBit[k]) ? planes[k] + offset : nullptr; };
    opt.device_dex = at(0);
    opt.device_dey = at(1);
    opt.device_phase = at(2);
    opt.device_stripe = at(3);
    opt.device_sqrt_smooth = at(4);
    r = mandel::render(v, opt);
    if (!r.cancelled) fields_ |= opt.fields & mandel::kAllFields;
  } else {
    opt.device_counts = nullptr;
    opt.device_smooth = nullptr;
    r = mandel::render(v, opt);
    if (!r.cancelled) {
      std::memcpy(counts_ + offset, r.counts.data(), r.counts.size() * sizeof(uint32_t));
      std::memcpy(smooth_ + offset, r.smooth.data(), r.smooth.size() * sizeof(float));
      if (wide_) std::memcpy(counts_high_ + offset, r.counts_high.data(), r.counts_high.size() * sizeof(uint32_t));
    }
  }
  // A CPU render returns its fields in host memory: kept beside the counts.
  const std::size_t band = static_cast<std::size_t>(row_end - row_begin) * static_cast<std::size_t>(width_);
  const std::vector<float>* from[kCanvasFields] = {&r.dex, &r.dey, &r.phase, &r.stripe, &r.sqrt_smooth};
  for (int k = 0; k < kCanvasFields; ++k) {
    if (r.cancelled || from[k]->size() != band || !field_[k]) continue;
    std::memcpy(field_[k] + offset, from[k]->data(), band * sizeof(float));
    fields_ |= kFieldBit[k];
  }
  r.clear_pixel_arrays();  // the pixels are in the canvas
  return r;
}

void Canvas::ensure_counts_high() {
  if (counts_high_) return;
  const std::size_t n = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  if (backend_ == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    counts_high_ = static_cast<uint32_t*>(display_alloc(n * sizeof(uint32_t), device_));
#endif
  } else {
    host_counts_high_.assign(n, 0u);
    counts_high_ = host_counts_high_.data();
  }
}

void Canvas::store(const mandel::RenderResult& r) {
  const std::size_t n = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  const bool wide = mandel::wide_counts(r.max_iter);
  if (r.width != width_ || r.height != height_ || r.counts.size() != n || r.smooth.size() != n ||
      (wide && r.counts_high.size() != n))
    throw mandel::ViewError("a " + std::to_string(r.width) + "x" + std::to_string(r.height) +
                            " result without its pixel arrays cannot fill the " + std::to_string(width_) + "x" +
                            std::to_string(height_) + " canvas");
  wide_ = wide;
  if (wide_) ensure_counts_high();
  if (backend_ == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    display_copy(counts_, r.counts.data(), n * sizeof(uint32_t), true, device_);
    display_copy(smooth_, r.smooth.data(), n * sizeof(float), true, device_);
    if (wide_) display_copy(counts_high_, r.counts_high.data(), n * sizeof(uint32_t), true, device_);
#endif
    return;
  }
  std::memcpy(counts_, r.counts.data(), n * sizeof(uint32_t));
  std::memcpy(smooth_, r.smooth.data(), n * sizeof(float));
  if (wide_) std::memcpy(counts_high_, r.counts_high.data(), n * sizeof(uint32_t));
}

void Canvas::compose_planes(int rows_done, const Canvas* preview, unsigned fields, uint64_t max_iter,
                            const FramePlanes& out) const {
  if (preview && (preview->backend_ != backend_ || preview->device_ != device_))
    throw BackendError("a canvas's preview must be on the same backend and device");
  detail::PlanesArgs a;
  a.full = frame_view();
  if (preview) a.preview = preview->frame_view();
  a.rows_done = rows_done < 0 ? 0 : rows_done > height_ ? height_ : rows_done;
  // Interior where no canvas has data: max_iter (narrow: at most 2^32 - 1 anyway).
  a.no_data_count = wide_ ? static_cast<uint32_t>(max_iter & 0xFFFFFFFFull)
                          : static_cast<uint32_t>(max_iter < 0xFFFFFFFFull ? max_iter : 0xFFFFFFFFull);
  a.no_data_high = wide_ ? static_cast<uint32_t>(max_iter >> 32) : 0u;
  a.out.counts = out.counts;
  a.out.smooth = out.smooth;
  if (wide_ && !out.counts_high) throw BackendError("a wide canvas's planes need counts_high");
  a.out.counts_high = wide_ ? out.counts_high : nullptr;
  for (int k = 0; k < kCanvasFields; ++k) a.out.field[k] = (fields & kFieldBit[k]) ? out.field[k] : nullptr;
  if (backend_ == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    detail::device_compose_planes(a, device_);
#endif
    return;
  }
  for_each_pixel(width_, height_, [&](int x, int y) { compose_planes_pixel(a, x, y); });
}

void Canvas::compose_planes_host(int rows_done, const Canvas* preview, unsigned fields, uint64_t max_iter,
                                 std::vector<uint32_t>* counts, std::vector<float>* smooth,
                                 std::vector<uint32_t>* counts_high,
                                 std::vector<float> (*field)[kCanvasFields]) const {
  const std::size_t n = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  counts->resize(n);
  smooth->resize(n);
  if (wide_)
    counts_high->resize(n);
  else
    counts_high->clear();
  for (int k = 0; k < kCanvasFields; ++k) {
    if (fields & kFieldBit[k])
      (*field)[k].resize(n);
    else
      (*field)[k].clear();
  }
  if (backend_ != Backend::kCuda) {
    FramePlanes out{counts->data(), smooth->data(), wide_ ? counts_high->data() : nullptr, {}};
    for (int k = 0; k < kCanvasFields; ++k) out.field[k] = (*field)[k].empty() ? nullptr : (*field)[k].data();
    compose_planes(rows_done, preview, fields, max_iter, out);
    return;
  }
#if DEEPSCOPE_WITH_CUDA
  const std::size_t bytes = n * 4 * (3 + kCanvasFields);
  if (device_planes_bytes_ < bytes) {
    display_free(device_planes_, device_);
    device_planes_ = nullptr;
    device_planes_ = display_alloc(bytes, device_);
    device_planes_bytes_ = bytes;
  }
  char* base = static_cast<char*>(device_planes_);
  FramePlanes out;
  out.counts = reinterpret_cast<uint32_t*>(base);
  out.smooth = reinterpret_cast<float*>(base + n * 4);
  for (int k = 0; k < kCanvasFields; ++k) out.field[k] = reinterpret_cast<float*>(base + n * 4 * (2 + k));
  out.counts_high = reinterpret_cast<uint32_t*>(base + n * 4 * (2 + kCanvasFields));
  compose_planes(rows_done, preview, fields, max_iter, out);
  display_copy(counts->data(), out.counts, n * 4, false, device_);
  display_copy(smooth->data(), out.smooth, n * 4, false, device_);
  if (wide_) display_copy(counts_high->data(), out.counts_high, n * 4, false, device_);
  for (int k = 0; k < kCanvasFields; ++k)
    if (!(*field)[k].empty()) display_copy((*field)[k].data(), out.field[k], n * 4, false, device_);
#endif
}

void Canvas::compose_rgba(const Colouring& c, int rows_done, const Canvas* preview, uint8_t* rgba) const {
  if (preview && (preview->backend_ != backend_ || preview->device_ != device_))
    throw BackendError("a canvas's preview must be on the same backend and device");
  detail::ComposeArgs a;
  a.colouring = c;
  a.full = frame_view();
  if (preview) a.preview = preview->frame_view();
  a.rows_done = rows_done < 0 ? 0 : rows_done > height_ ? height_ : rows_done;
  a.rgba = rgba;
  if (backend_ == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    detail::device_compose(a, device_);
#endif
    return;
  }
  for_each_pixel(width_, height_, [&](int x, int y) { compose_pixel(a, x, y); });
}

void Canvas::compose_rgba_host(const Colouring& c, int rows_done, const Canvas* preview,
                               std::vector<uint8_t>* rgba) const {
  const std::size_t bytes = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4;
  rgba->resize(bytes);
  if (backend_ != Backend::kCuda) {
    compose_rgba(c, rows_done, preview, rgba->data());
    return;
  }
#if DEEPSCOPE_WITH_CUDA
  if (!device_rgba_) device_rgba_ = static_cast<uint8_t*>(display_alloc(bytes, device_));
  compose_rgba(c, rows_done, preview, device_rgba_);
  display_copy(rgba->data(), device_rgba_, bytes, false, device_);
#endif
}

void Canvas::read(std::vector<uint32_t>* counts, std::vector<float>* smooth,
                  std::vector<uint32_t>* counts_high) const {
  const std::size_t n = static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_);
  counts->resize(n);
  smooth->resize(n);
  if (counts_high) {
    if (wide_)
      counts_high->resize(n);
    else
      counts_high->clear();
  }
  const bool high = counts_high && wide_;
  if (backend_ == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    display_copy(counts->data(), counts_, n * sizeof(uint32_t), false, device_);
    display_copy(smooth->data(), smooth_, n * sizeof(float), false, device_);
    if (high) display_copy(counts_high->data(), counts_high_, n * sizeof(uint32_t), false, device_);
#endif
    return;
  }
  std::memcpy(counts->data(), counts_, n * sizeof(uint32_t));
  std::memcpy(smooth->data(), smooth_, n * sizeof(float));
  if (high) std::memcpy(counts_high->data(), counts_high_, n * sizeof(uint32_t));
}

}  // namespace ds::colour
