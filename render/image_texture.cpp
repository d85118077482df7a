// ImageTexture: the three display paths.
#include "image_texture.h"

#include "kernels/core/device.h"

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

DisplayPath ImageTexture::show(int w, int h, int cuda_device, const std::function<void(uint8_t*)>& fill_device,
                               const std::function<void(std::vector<uint8_t>*)>& fill_host) {
#if DEEPSCOPE_WITH_CUDA
  if (cuda_device >= 0 && allow_interop_ && !interop_failed_) {
    try {
      if (!interop_ || interop_->cuda_device() != cuda_device) interop_ = std::make_unique<InteropBuffer>(cuda_device);
      interop_->draw(texture_, w, h, display_stream(cuda_device), fill_device);
      return DisplayPath::kInterop;
    } catch (const GlUnavailable& e) {
      interop_failed_ = true;
      interop_.reset();
      note_ = e.what();
    }
  }
#else
  (void)fill_device;
#endif
  fill_host(&host_);
  texture_.upload_rgba(host_.data(), w, h);
  return cuda_device >= 0 ? DisplayPath::kDeviceDownload : DisplayPath::kHostUpload;
}

}  // namespace ds::render
