// CUDA-GL interop: a GL pixel-unpack buffer registered with CUDA (cudaGraphicsGLRegisterBuffer).
// A kernel writes the image into the mapped buffer and the texture is filled from the buffer on the
// GPU, so a frame never passes through the host.
#pragma once
#include <cstdint>
#include <functional>

#include "gl_texture.h"
#include "headless_gl.h"

namespace ds::render {

class InteropBuffer {
 public:
  // For the GL context current on this thread and CUDA device `cuda_device`. Throws GlUnavailable
  // when CUDA cannot share buffers with this context: a build without CUDA, no CUDA device, or a
  // context that runs on another GPU or on Mesa (the message says which, with the CUDA error).
  explicit InteropBuffer(int cuda_device);
  ~InteropBuffer();
  InteropBuffer(const InteropBuffer&) = delete;
  InteropBuffer& operator=(const InteropBuffer&) = delete;

  // Maps the buffer (grown to w*h*4 bytes as needed) for CUDA on `stream` (a cudaStream_t, opaque
  // here), calls fill(device pointer) to write the w x h RGBA8 pixels on that stream, unmaps, and
  // copies the buffer into `texture`.
  void draw(Texture2D& texture, int w, int h, void* stream, const std::function<void(uint8_t*)>& fill);
  // Maps the buffer (grown to `bytes` as needed) for CUDA on `stream`, calls fill(device pointer),
  // unmaps, and returns the GL buffer's name: GL reads it after the fill (a pixel-unpack source
  // for glTexSubImage2D, as ColourShader uploads a frame's planes from it).
  unsigned fill(std::size_t bytes, void* stream, const std::function<void(uint8_t*)>& fill);

  int cuda_device() const { return device_; }

 private:
  void release();
  int device_ = 0;
  unsigned buffer_ = 0;  // GL buffer name
  std::size_t bytes_ = 0;
  void* resource_ = nullptr;  // cudaGraphicsResource_t
};

}  // namespace ds::render
