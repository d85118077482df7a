// The window's colouring path: a colour::Canvas (and its preview below the finished rows) drawn
// through a ColourShader into a texture, by the shortest path the canvas allows:
// - a CUDA canvas whose GL context runs on its device: the frame's data planes are composed on the
//   GPU straight into a GL buffer (CUDA-GL interop) and the shader's textures are filled from it
//   on the GPU, so no pixel data passes through the host;
// - otherwise the planes are composed in host memory (a CUDA canvas composes on its device and
//   copies down) and uploaded.
// `deepscope bench colour` times the same calls (its window rows).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "colour_shader.h"
#include "gl_interop.h"
#include "image_texture.h"
#include "kernels/colour/canvas.h"

namespace ds::render {

class CanvasShading {
 public:
  // allow_interop = false forces the host path for CUDA canvases (benchmarks, tests).
  explicit CanvasShading(bool allow_interop = true) : allow_interop_(allow_interop) {}

  // Draws rows [0, rows_done) of `canvas`, the rest from `preview` (Canvas::compose_planes), through
  // `shader` into `texture` (RGBA8, the canvas's size), with the GL context current; the fields
  // are the ones the shader reads. Returns the path taken. Throws ShaderError as ColourShader does.
  DisplayPath draw(ColourShader& shader, const colour::Canvas& canvas, const colour::Canvas* preview,
                   int rows_done, const colour::Colouring& c, unsigned texture);

  // Why interop is not used ("" while it is, or before a CUDA canvas was drawn).
  const std::string& interop_note() const { return note_; }

 private:
  bool allow_interop_;
  bool interop_failed_ = false;
  std::string note_;
  std::unique_ptr<InteropBuffer> interop_;
  std::vector<uint32_t> counts_, counts_high_;
  std::vector<float> smooth_;
  std::vector<float> field_[colour::kCanvasFields];
};

}  // namespace ds::render
