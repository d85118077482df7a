// An OpenGL 3.3 core context with no window and no display server: EGL on a GPU (the platform
// device extension; on NVIDIA the EGL device of the CUDA device asked for, when EGL_NV_device_cuda
// says which), or Mesa's surfaceless software platform. The interop test and `deepscope bench
// interop` draw with it; the window uses GLFW instead.
#pragma once
#include <stdexcept>
#include <string>

namespace ds::render {

// No headless OpenGL here: no libEGL, no EGL device, or no 3.3 core context. The message says which.
struct GlUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class HeadlessGl {
 public:
  // Creates the context and makes it current on this thread, with the glad GL functions loaded.
  // cuda_device >= 0 prefers the EGL device that drives that CUDA device. Throws GlUnavailable.
  explicit HeadlessGl(int cuda_device = -1);
  ~HeadlessGl();
  HeadlessGl(const HeadlessGl&) = delete;
  HeadlessGl& operator=(const HeadlessGl&) = delete;

  // "NVIDIA Corporation / NVIDIA H100 80GB HBM3/PCIe/SSE2 / 4.6.0 NVIDIA 5xx" (vendor / renderer /
  // version), and how the display was found ("EGL device 0 (CUDA device 0)", "Mesa surfaceless").
  const std::string& description() const { return description_; }
  // Makes the context current on this thread again (after another context was made current).
  void make_current();

 private:
  void release();
  void* display_ = nullptr;
  void* context_ = nullptr;
  void* surface_ = nullptr;
  std::string description_;
};

}  // namespace ds::render
