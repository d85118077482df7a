// InteropBuffer with CUDA: register, map, fill, unmap, and the buffer-to-texture copy.
#include "gl_interop.h"

#include <glad/gl.h>
// After glad: compat/GL/gl.h gives cuda_gl_interop.h glad's declarations.
#include <cuda_gl_interop.h>

#include <string>

#include "kernels/core/cuda_check.h"

namespace ds::render {
namespace {

std::string cuda_message(cudaError_t e) { return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e); }

}  // namespace

InteropBuffer::InteropBuffer(int cuda_device) : device_(cuda_device) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0)
    throw GlUnavailable("no CUDA device for CUDA-GL interop" + (e != cudaSuccess ? " (" + cuda_message(e) + ")" : ""));
  // Which CUDA devices run this GL context: none for Mesa or another vendor's GPU.
  unsigned int gl_count = 0;
  int gl_devices[16] = {};
  e = cudaGLGetDevices(&gl_count, gl_devices, 16, cudaGLDeviceListAll);
  if (e != cudaSuccess || gl_count == 0)
    throw GlUnavailable("the OpenGL context does not run on a CUDA device" +
                        (e != cudaSuccess ? " (" + cuda_message(e) + ")" : std::string()));
  bool match = false;
  for (unsigned k = 0; k < gl_count; ++k) match |= gl_devices[k] == cuda_device;
  if (!match)
    throw GlUnavailable("the OpenGL context runs on CUDA device " + std::to_string(gl_devices[0]) +
                        ", not on device " + std::to_string(cuda_device));
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(cuda_device));
}

InteropBuffer::~InteropBuffer() { release(); }

void InteropBuffer::release() {
  if (resource_) cudaGraphicsUnregisterResource(static_cast<cudaGraphicsResource_t>(resource_));
  resource_ = nullptr;
  if (buffer_) glDeleteBuffers(1, &buffer_);
  buffer_ = 0;
  bytes_ = 0;
}

void InteropBuffer::draw(Texture2D& texture, int w, int h, void* stream, const std::function<void(uint8_t*)>& fill) {
  const unsigned buffer = this->fill(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4, stream, fill);
  // The unmap orders GL's read after the kernel; the texture copy runs on the GPU.
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer);
  texture.upload_rgba(nullptr, w, h);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  check_gl("interop texture update");
}

unsigned InteropBuffer::fill(std::size_t bytes, void* stream, const std::function<void(uint8_t*)>& fill) {
  DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device_));
  if (bytes > bytes_) {
    release();
    glGenBuffers(1, &buffer_);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, buffer_);
    glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    check_gl("interop buffer");
    cudaGraphicsResource_t r = nullptr;
    const cudaError_t e = cudaGraphicsGLRegisterBuffer(&r, buffer_, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
      release();
      throw GlUnavailable("cudaGraphicsGLRegisterBuffer failed (" + cuda_message(e) + ")");
    }
    resource_ = r;
    bytes_ = bytes;
  }
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  cudaGraphicsResource_t r = static_cast<cudaGraphicsResource_t>(resource_);
  DEEPSCOPE_CUDA_CHECK(cudaGraphicsMapResources(1, &r, s));
  void* p = nullptr;
  std::size_t mapped = 0;
  try {
    DEEPSCOPE_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&p, &mapped, r));
    fill(static_cast<uint8_t*>(p));
  } catch (...) {
    cudaGraphicsUnmapResources(1, &r, s);
    throw;
  }
  DEEPSCOPE_CUDA_CHECK(cudaGraphicsUnmapResources(1, &r, s));
  return buffer_;
}

}  // namespace ds::render
