// A frame's escape counts and smooth counts, kept where they are computed: host memory for the
// CPU backend, the memory of a CUDA device for CUDA. The window renders into it band by band and
// colours it in place, so on CUDA the image goes from the kernels to the screen (CUDA-GL interop,
// render/gl_interop.h) without a copy through the host, and a palette change recolours without
// rendering again. `deepscope bench interop` times the same calls.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "canvas.cuh"
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
  // Whether the last view rendered is wide (max_iter >= 2^32, kernels/mandelbrot/counts.h): the
  // canvas then also holds the counts' high words, and its smooth values are smooth count - count.
  bool wide() const { return wide_; }

  // Renders rows [row_begin, row_end) of view v, whose size must be the canvas's (ViewError
  // otherwise), through render() with opt's format, method and cancel flag; the backend and device
  // are the canvas's. The result's host arrays are empty: the pixels are in the canvas.
  mandel::RenderResult render_rows(const mandel::View& v, mandel::RenderOptions opt, int row_begin,
                                   int row_end);

  // Stores a whole frame rendered elsewhere into the canvas (host arrays of r, its size the
  // canvas's: a formula's render, kernels/formula/render.h, which has no band or device path), as
  // render_rows would have left it; the fields are left as they are (a formula render has none).
  // ViewError for a result of another size or without its arrays.
  void store(const mandel::RenderResult& r);

  // RGBA8 of the whole frame (4 bytes per pixel, rows top to bottom, alpha 255): rows
  // [0, rows_done) coloured from this canvas, the rest from `preview` scaled to this size (nearest
  // pixel), or black without one. `rgba` is host memory for a CPU canvas and device memory (a
  // mapped GL buffer, say) for a CUDA canvas; `preview` must be on the same backend and device.
  void compose_rgba(const Colouring& c, int rows_done, const Canvas* preview, uint8_t* rgba) const;

  // The same frame in host memory, whatever the canvas's backend: a CUDA canvas composes on the
  // device and copies the image down (the path without interop; tests, screenshots).
  void compose_rgba_host(const Colouring& c, int rows_done, const Canvas* preview,
                         std::vector<uint8_t>* rgba) const;

  // Copies the counts and smooth counts to the host (tests, screenshots); a wide canvas's high
  // words to counts_high when given (emptied for a narrow one).
  void read(std::vector<uint32_t>* counts, std::vector<float>* smooth,
            std::vector<uint32_t>* counts_high = nullptr) const;

  // The per-pixel fields (mandel::Field) the renders asked for with RenderOptions::fields, kept
  // beside the counts (host memory for the CPU backend, the device's for CUDA: the engines write
  // them in place): which of them the canvas holds (zeros in rows rendered before they were
  // first asked). The colouring shaders read them (render/colour_shader.h).
  unsigned fields() const { return fields_; }

  // The whole frame's data planes for a colouring shader: rows [0, rows_done) from this canvas,
  // the rest from `preview` scaled (nearest pixel), or interior without one; `fields` (Field bits)
  // the fields to write (0 where neither canvas holds one). `out` is host memory for a CPU canvas
  // and device memory (a mapped GL buffer, say) for a CUDA canvas: the window's colouring path
  // without a copy through the host (render/canvas_shading.h). Complete on return.
  void compose_planes(int rows_done, const Canvas* preview, unsigned fields, uint64_t max_iter,
                      const FramePlanes& out) const;
  // A wide canvas also writes out.counts_high (which must then be given).
  // The same into host vectors (w * h each; the fields not asked are left empty, and counts_high
  // for a narrow canvas), whatever the backend: a CUDA canvas composes on the device and copies down.
  void compose_planes_host(int rows_done, const Canvas* preview, unsigned fields, uint64_t max_iter,
                           std::vector<uint32_t>* counts, std::vector<float>* smooth,
                           std::vector<uint32_t>* counts_high, std::vector<float> (*field)[kCanvasFields]) const;

 private:
  FrameView frame_view() const;
  void ensure_counts_high();  // allocates (zeroed) the high words for a wide view, once
  int width_, height_;
  Backend backend_;
  int device_;
  uint32_t* counts_ = nullptr;  // host or device memory, width * height
  float* smooth_ = nullptr;
  uint32_t* counts_high_ = nullptr;  // host or device memory, allocated by the first wide view
  std::vector<uint32_t> host_counts_high_;
  bool wide_ = false;
  mutable uint8_t* device_rgba_ = nullptr;  // compose_rgba_host's device image (CUDA canvas)
  std::vector<uint32_t> host_counts_;
  std::vector<float> host_smooth_;
  unsigned fields_ = 0;
  float* field_[kCanvasFields] = {};  // host or device memory, width * height, once asked
  std::vector<float> host_field_[kCanvasFields];
  mutable void* device_planes_ = nullptr;  // compose_planes_host's device planes (CUDA canvas)
  mutable std::size_t device_planes_bytes_ = 0;
};

namespace detail {
// The CUDA side of Canvas (canvas.cu; CUDA builds only).
struct ComposeArgs;
// Colours on ds::display_stream(device) (device.h), the stream CUDA-GL interop maps its buffers on.
void device_compose(const ComposeArgs& a, int device);
void device_compose_planes(const PlanesArgs& a, int device);
}  // namespace detail

}  // namespace ds::colour
