// A GL texture filled by the shortest path its source allows:
// - a CUDA source with interop: the source's kernel writes a mapped GL buffer, and the texture is
//   filled from it on the GPU (no host round trip);
// - a CUDA source whose GL context cannot share with CUDA (Mesa, another GPU): the source fills
//   host memory (computing on the device and copying down), then the texture is uploaded;
// - a host source: filled on the host and uploaded.
// CanvasTexture (Mandelbrot frames) and the Hénon orbit plot draw through it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gl_interop.h"
#include "gl_texture.h"

namespace ds::render {

enum class DisplayPath { kInterop, kDeviceDownload, kHostUpload };
const char* display_path_name(DisplayPath p);  // "CUDA-GL interop", "device + host upload", "host upload"

class ImageTexture {
 public:
  // allow_interop = false forces the download-and-upload path for CUDA sources (benchmarks).
  explicit ImageTexture(bool allow_interop = true) : allow_interop_(allow_interop) {}

  // Fills the w x h RGBA8 texture, with the GL context current. cuda_device >= 0: a CUDA source,
  // fill_device(p) writes the w*h*4 bytes at device pointer p on ds::display_stream(cuda_device);
  // cuda_device < 0: a host source. fill_host(v) fills a host vector of w*h*4 bytes in any case.
  // The first interop failure (GlUnavailable) is kept in interop_note(), and the host path is used
  // from then on.
  DisplayPath show(int w, int h, int cuda_device, const std::function<void(uint8_t*)>& fill_device,
                   const std::function<void(std::vector<uint8_t>*)>& fill_host);

  const Texture2D& texture() const { return texture_; }
  // Why interop is not used ("" while it is, or before a CUDA source was shown).
  const std::string& interop_note() const { return note_; }

 private:
  bool allow_interop_;
  bool interop_failed_ = false;
  std::string note_;
  Texture2D texture_;
  std::unique_ptr<InteropBuffer> interop_;
  std::vector<uint8_t> host_;
};

}  // namespace ds::render
