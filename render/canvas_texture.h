// Shows a mandel::Canvas in a GL texture by the shortest path the canvas and the GL context allow:
// - a CUDA canvas with interop: the colouring kernel writes a mapped GL buffer and the texture is
//   filled from it on the GPU (no host round trip);
// - a CUDA canvas whose GL context cannot share with CUDA (Mesa, another GPU): colour on the
//   device, copy the image to the host, upload;
// - a CPU canvas: colour on the host, upload.
// The window and `deepscope bench interop` both draw through show().
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "gl_interop.h"
#include "gl_texture.h"
#include "kernels/canvas.h"

namespace ds::render {

enum class DisplayPath { kInterop, kDeviceDownload, kHostUpload };
const char* display_path_name(DisplayPath p);  // "CUDA-GL interop", "device + host upload", "host upload"

class CanvasTexture {
 public:
  // allow_interop = false forces the download-and-upload path for CUDA canvases (benchmarks).
  explicit CanvasTexture(bool allow_interop = true) : allow_interop_(allow_interop) {}

  // Colours rows [0, rows_done) of `canvas`, the rest from `preview` (Canvas::compose_rgba), into
  // the texture, with the GL context current. Returns the path taken. The first interop failure
  // (GlUnavailable) is kept in interop_note() and the download path is used from then on.
  DisplayPath show(const mandel::Canvas& canvas, const mandel::Colouring& c, int rows_done,
                   const mandel::Canvas* preview = nullptr);

  const Texture2D& texture() const { return texture_; }
  // Why interop is not used ("" while it is, or before a CUDA canvas was shown).
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
