// A frame's escape counts and smooth counts, kept where they are computed: host memory for the
// CPU backend, the memory of a CUDA device for CUDA. The window renders into it band by band and
// colours it in place, so on CUDA the image goes from the kernels to the screen (CUDA-GL interop,
// render/gl_interop.h) without a copy through the host, and a palette change recolours without
// rendering again. `deepscope bench interop` times the same calls.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/mandelbrot/mandelbrot.h"
#include "palette.h"

namespace ds::colour {

class Canvas {
 public:
  // A width x height frame (1..32768 each) on `backend` (kAuto: CUDA when a device is usable);
  // BackendError when CUDA is asked for and unusable, or the frame does not fit its memory.
  Canvas(int width, int height, Backend backend = Backend::kAuto, int cuda_device = 0);
  ~Canvas();
  Canvas(const Canvas&) = delete;
  Canvas& operator=(const Canvas&) = delete;

  int width() const { return width_; }
  int height() const { return height_; }
  Backend backend() const { return backend_; }
  int cuda_device() const { return device_; }

  // Renders rows [row_begin, row_end) of view v, whose size must be the canvas's (ViewError
  // otherwise), through render() with opt's format, method and cancel flag; the backend and device
  // are the canvas's. The result's host arrays are empty: the pixels are in the canvas.
  mandel::RenderResult render_rows(const mandel::View& v, mandel::RenderOptions opt, int row_begin,
                                   int row_end);

  // RGBA8 of the whole frame (4 bytes per pixel, rows top to bottom, alpha 255): rows
  // [0, rows_done) coloured from this canvas, the rest from `preview` scaled to this size (nearest
  // pixel), or black without one. `rgba` is host memory for a CPU canvas and device memory (a
  // mapped GL buffer, say) for a CUDA canvas; `preview` must be on the same backend and device.
  void compose_rgba(const Colouring& c, int rows_done, const Canvas* preview, uint8_t* rgba) const;

  // The same frame in host memory, whatever the canvas's backend: a CUDA canvas composes on the
  // device and copies the image down (the path without interop; tests, screenshots).
  void compose_rgba_host(const Colouring& c, int rows_done, const Canvas* preview,
                         std::vector<uint8_t>* rgba) const;

  // Copies the counts and smooth counts to the host (tests, screenshots).
  void read(std::vector<uint32_t>* counts, std::vector<float>* smooth) const;

  // The per-pixel fields (mandel::Field) the renders asked for with RenderOptions::fields and the
  // engine returned, kept in host memory whatever the backend: which of them the canvas holds
  // (every row rendered since the fields were first returned), and the arrays (w * h, zeros where
  // no render gave them). The colouring shaders read them (render/colour_shader.h).
  unsigned fields() const { return fields_; }
  const std::vector<float>& dex() const { return host_dex_; }
  const std::vector<float>& dey() const { return host_dey_; }
  const std::vector<float>& phase() const { return host_phase_; }

 private:
  int width_, height_;
  Backend backend_;
  int device_;
  uint32_t* counts_ = nullptr;  // host or device memory, width * height
  float* smooth_ = nullptr;
  mutable uint8_t* device_rgba_ = nullptr;  // compose_rgba_host's device image (CUDA canvas)
  std::vector<uint32_t> host_counts_;
  std::vector<float> host_smooth_;
  unsigned fields_ = 0;
  std::vector<float> host_dex_, host_dey_, host_phase_;
};

namespace detail {
// The CUDA side of Canvas (canvas.cu; CUDA builds only).
struct ComposeArgs;
// Colours on ds::display_stream(device) (device.h), the stream CUDA-GL interop maps its buffers on.
void device_compose(const ComposeArgs& a, int device);
}  // namespace detail

}  // namespace ds::colour
