// CanvasTexture: the three display paths of a Canvas.
#include "canvas_texture.h"

namespace ds::render {

const char* display_path_name(DisplayPath p) {
  switch (p) {
    case DisplayPath::kInterop:
      return "CUDA-GL interop";
    case DisplayPath::kDeviceDownload:
      return "device + host upload";
    case DisplayPath::kHostUpload:
      return "host upload";
  }
  return "?";
}

DisplayPath CanvasTexture::show(const mandel::Canvas& canvas, const mandel::Colouring& c, int rows_done,
                                const mandel::Canvas* preview) {
  const int w = canvas.width(), h = canvas.height();
#if DEEPSCOPE_WITH_CUDA
  if (canvas.backend() == Backend::kCuda && allow_interop_ && !interop_failed_) {
    try {
      if (!interop_ || interop_->cuda_device() != canvas.cuda_device())
        interop_ = std::make_unique<InteropBuffer>(canvas.cuda_device());
      interop_->draw(texture_, w, h, mandel::detail::display_stream(canvas.cuda_device()),
                     [&](uint8_t* rgba) { canvas.compose_rgba(c, rows_done, preview, rgba); });
      return DisplayPath::kInterop;
    } catch (const GlUnavailable& e) {
      interop_failed_ = true;
      interop_.reset();
      note_ = e.what();
    }
  }
#endif
  canvas.compose_rgba_host(c, rows_done, preview, &host_);
  texture_.upload_rgba(host_.data(), w, h);
  return canvas.backend() == Backend::kCuda ? DisplayPath::kDeviceDownload : DisplayPath::kHostUpload;
}

}  // namespace ds::render
