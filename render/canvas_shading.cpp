// CanvasShading: the canvas's data planes through interop or host memory, then the shader.
#include "canvas_shading.h"

#include "kernels/core/device.h"

namespace ds::render {
namespace {

// The ShaderFrame's fields from the planes (host pointers, or offsets into a pixel buffer); the
// fields not asked are absent (the shader reads zeros).
ShaderFrame frame_over(int w, int h, unsigned fields, const float* const field[colour::kCanvasFields]) {
  ShaderFrame f;
  f.width = w;
  f.height = h;
  f.dex = (fields & mandel::kFieldDistance) ? field[0] : nullptr;
  f.dey = (fields & mandel::kFieldDistance) ? field[1] : nullptr;
  f.phase = (fields & mandel::kFieldPhase) ? field[2] : nullptr;
  f.stripe = (fields & mandel::kFieldStripe) ? field[3] : nullptr;
  f.sqrt_smooth = (fields & mandel::kFieldSqrtSmooth) ? field[4] : nullptr;
  return f;
}

}  // namespace

DisplayPath CanvasShading::draw(ColourShader& shader, const colour::Canvas& canvas, const colour::Canvas* preview,
                                int rows_done, const colour::Colouring& c, unsigned texture) {
  const int w = canvas.width(), h = canvas.height();
  [[maybe_unused]] const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  // The fields the shader reads that the canvas holds; the others stay absent (zeros).
  const unsigned fields = shader.fields() & canvas.fields();
  const bool cuda = canvas.backend() == Backend::kCuda;
#if DEEPSCOPE_WITH_CUDA
  if (cuda && allow_interop_ && !interop_failed_) {
    try {
      if (!interop_ || interop_->cuda_device() != canvas.cuda_device())
        interop_ = std::make_unique<InteropBuffer>(canvas.cuda_device());
      // Layout: counts, smooth, a wide canvas's high words, then each field plane asked, n 4-byte
      // values each.
      std::size_t at = 2 * n * 4;
      const std::size_t high_at = canvas.wide() ? at : 0;
      if (canvas.wide()) at += n * 4;
      std::size_t offset[colour::kCanvasFields] = {};
      const unsigned bit[colour::kCanvasFields] = {mandel::kFieldDistance, mandel::kFieldDistance,
                                                   mandel::kFieldPhase, mandel::kFieldStripe,
                                                   mandel::kFieldSqrtSmooth};
      for (int k = 0; k < colour::kCanvasFields; ++k)
        if (fields & bit[k]) {
          offset[k] = at;
          at += n * 4;
        }
      const unsigned buffer = interop_->fill(at, display_stream(canvas.cuda_device()), [&](uint8_t* p) {
        colour::FramePlanes out;
        out.counts = reinterpret_cast<uint32_t*>(p);
        out.smooth = reinterpret_cast<float*>(p + n * 4);
        out.counts_high = high_at ? reinterpret_cast<uint32_t*>(p + high_at) : nullptr;
        for (int k = 0; k < colour::kCanvasFields; ++k)
          out.field[k] = offset[k] ? reinterpret_cast<float*>(p + offset[k]) : nullptr;
        canvas.compose_planes(rows_done, preview, fields, c.max_iter, out);
      });
      const float* field[colour::kCanvasFields];
      for (int k = 0; k < colour::kCanvasFields; ++k)
        field[k] = reinterpret_cast<const float*>(static_cast<uintptr_t>(offset[k]));
      ShaderFrame f = frame_over(w, h, fields, field);
      f.pixel_buffer = buffer;
      f.counts = nullptr;  // offset 0
      f.smooth = reinterpret_cast<const float*>(static_cast<uintptr_t>(n * 4));
      if (high_at) f.counts_high = reinterpret_cast<const uint32_t*>(static_cast<uintptr_t>(high_at));
      shader.draw(f, c, texture);
      return DisplayPath::kInterop;
    } catch (const GlUnavailable& e) {
      interop_failed_ = true;
      interop_.reset();
      note_ = e.what();
    }
  }
#endif
  canvas.compose_planes_host(rows_done, preview, fields, c.max_iter, &counts_, &smooth_, &counts_high_, &field_);
  const float* field[colour::kCanvasFields];
  for (int k = 0; k < colour::kCanvasFields; ++k) field[k] = field_[k].empty() ? nullptr : field_[k].data();
  ShaderFrame f = frame_over(w, h, fields, field);
  f.counts = counts_.data();
  f.smooth = smooth_.data();
  if (canvas.wide()) f.counts_high = counts_high_.data();
  shader.draw(f, c, texture);
  return cuda ? DisplayPath::kDeviceDownload : DisplayPath::kHostUpload;
}

}  // namespace ds::render
