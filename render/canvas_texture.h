// Shows a colour::Canvas in a GL texture through ImageTexture's paths (image_texture.h): on CUDA
// the colouring kernel writes the GL buffer through interop. The window and `deepscope bench
// interop` both draw through show().
#pragma once
#include "image_texture.h"
#include "kernels/colour/canvas.h"

namespace ds::render {

class CanvasTexture {
 public:
  // allow_interop = false forces the download-and-upload path for CUDA canvases (benchmarks).
  explicit CanvasTexture(bool allow_interop = true) : image_(allow_interop) {}

  // Colours rows [0, rows_done) of `canvas`, the rest from `preview` (Canvas::compose_rgba), into
  // the texture, with the GL context current. Returns the path taken.
  DisplayPath show(const colour::Canvas& canvas, const colour::Colouring& c, int rows_done,
                   const colour::Canvas* preview = nullptr) {
    return image_.show(
        canvas.width(), canvas.height(), canvas.backend() == Backend::kCuda ? canvas.cuda_device() : -1,
        [&](uint8_t* rgba) { canvas.compose_rgba(c, rows_done, preview, rgba); },
        [&](std::vector<uint8_t>* rgba) { canvas.compose_rgba_host(c, rows_done, preview, rgba); });
  }

  const Texture2D& texture() const { return image_.texture(); }
  const std::string& interop_note() const { return image_.interop_note(); }

 private:
  ImageTexture image_;
};

}  // namespace ds::render
