// Per-pixel composition of a Canvas frame (canvas.h), the same function on host and device: the
// finished rows of the canvas, the rest from the scaled preview, coloured by colour_pixel.
#pragma once
#include <cstdint>

#include "arith/hd.h"
#include "kernels/mandelbrot/counts.h"
#include "palette.h"

namespace ds::colour {

// The per-pixel fields a canvas can hold (mandel::Field, in this order): dex, dey, phase, stripe,
// sqrt_smooth.
constexpr int kCanvasFields = 5;

struct FrameView {
  const uint32_t* counts = nullptr;  // null: no frame (black)
  const float* smooth = nullptr;
  int width = 0, height = 0;
  // A wide frame's (max_iter >= 2^32, kernels/mandelbrot/counts.h) high words; smooth then holds
  // smooth count - count. Null for a narrow frame.
  const uint32_t* counts_high = nullptr;
  const float* field[kCanvasFields] = {};  // null where the frame holds no such field
};

// A frame's data planes for a colouring shader (render/colour_shader.h), written by
// compose_planes_pixel: counts and smooth counts, and the fields asked (null: not written).
struct FramePlanes {
  uint32_t* counts = nullptr;
  float* smooth = nullptr;
  uint32_t* counts_high = nullptr;  // a wide frame's high words (null: narrow)
  float* field[kCanvasFields] = {};
};

namespace detail {
struct ComposeArgs {
  Colouring colouring;
  FrameView full, preview;
  int rows_done = 0;
  uint8_t* rgba = nullptr;  // full.width * full.height * 4 bytes
};
struct PlanesArgs {
  FrameView full, preview;
  int rows_done = 0;
  uint32_t no_data_count = 0;  // the count of a pixel with neither (interior: max_iter), low word
  uint32_t no_data_high = 0;   // and high word
  FramePlanes out;
};
// compose_kernel takes ComposeArgs by value: CUDA limits a kernel's parameters to 4 KB.
static_assert(sizeof(ComposeArgs) <= 4096, "ComposeArgs (with a kMaxPaletteStops palette) is past CUDA's 4 KB of kernel parameters");
}  // namespace detail

// The frame pixel (x, y) of a composition reads, and its index there (*k): the canvas's finished
// rows, else the preview's nearest pixel.
DEEPSCOPE_HD const FrameView* compose_source(const FrameView& full, const FrameView& preview, int rows_done, int x,
                                             int y, long long* k) {
  if (y < rows_done) {
    *k = static_cast<long long>(y) * full.width + x;
    return &full;
  }
  const long long sx = static_cast<long long>(x) * preview.width / full.width;
  const long long sy = static_cast<long long>(y) * preview.height / full.height;
  *k = sy * preview.width + sx;
  return &preview;
}

DEEPSCOPE_HD void compose_pixel(const detail::ComposeArgs& a, int x, int y) {
  long long k = 0;
  const FrameView* src = compose_source(a.full, a.preview, a.rows_done, x, y, &k);
  Rgb8 rgb{0, 0, 0};
  if (src->counts) {
    rgb = src->counts_high ? colour_pixel_wide(a.colouring, mandel::load_count(src->counts, src->counts_high, k),
                                               src->smooth[k])
                           : colour_pixel(a.colouring, src->counts[k], src->smooth[k]);
  }
  uint8_t* d = a.rgba + (static_cast<long long>(y) * a.full.width + x) * 4;
  d[0] = rgb.r;
  d[1] = rgb.g;
  d[2] = rgb.b;
  d[3] = 255;
}

// The data of pixel (x, y) as compose_pixel picks it (the canvas's finished rows, else the preview's
// nearest pixel), into the planes; a field the source lacks is 0, a pixel with no source interior.
DEEPSCOPE_HD void compose_planes_pixel(const detail::PlanesArgs& a, int x, int y) {
  long long k = 0;
  const FrameView* src = compose_source(a.full, a.preview, a.rows_done, x, y, &k);
  const long long q = static_cast<long long>(y) * a.full.width + x;
  a.out.counts[q] = src->counts ? src->counts[k] : a.no_data_count;
  a.out.smooth[q] = src->counts ? src->smooth[k] : 0.0f;
  if (a.out.counts_high)
    a.out.counts_high[q] = src->counts ? (src->counts_high ? src->counts_high[k] : 0u) : a.no_data_high;
  for (int f = 0; f < kCanvasFields; ++f)
    if (a.out.field[f]) a.out.field[f][q] = src->counts && src->field[f] ? src->field[f][k] : 0.0f;
}

}  // namespace ds::colour
