// Per-pixel composition of a Canvas frame (canvas.h), the same function on host and device: the
// finished rows of the canvas, the rest from the scaled preview, coloured by colour_pixel.
#pragma once
#include <cstdint>

#include "arith/hd.h"
#include "palette.h"

namespace ds::colour {

struct FrameView {
  const uint32_t* counts = nullptr;  // null: no frame (black)
  const float* smooth = nullptr;
  int width = 0, height = 0;
};

namespace detail {
struct ComposeArgs {
  Colouring colouring;
  FrameView full, preview;
  int rows_done = 0;
  uint8_t* rgba = nullptr;  // full.width * full.height * 4 bytes
};
// compose_kernel takes ComposeArgs by value: CUDA limits a kernel's parameters to 4 KB.
static_assert(sizeof(ComposeArgs) <= 4096, "ComposeArgs (with a kMaxPaletteStops palette) is past CUDA's 4 KB of kernel parameters");
}  // namespace detail

DEEPSCOPE_HD void compose_pixel(const detail::ComposeArgs& a, int x, int y) {
  const FrameView* src = &a.full;
  long long sx = x, sy = y;
  if (y >= a.rows_done) {
    src = &a.preview;
    sx = static_cast<long long>(x) * a.preview.width / a.full.width;
    sy = static_cast<long long>(y) * a.preview.height / a.full.height;
  }
  Rgb8 rgb{0, 0, 0};
  if (src->counts) {
    const long long k = sy * src->width + sx;
    rgb = colour_pixel(a.colouring, src->counts[k], src->smooth[k]);
  }
  uint8_t* d = a.rgba + (static_cast<long long>(y) * a.full.width + x) * 4;
  d[0] = rgb.r;
  d[1] = rgb.g;
  d[2] = rgb.b;
  d[3] = 255;
}

}  // namespace ds::colour
