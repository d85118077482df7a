// Per-point and per-pixel functions of a point-cloud image (point_cloud.h), the same on host and
// device: where a point lands, and the colour of a pixel from the number of points in it (integer
// arithmetic only, so both sides give the same bytes).
#pragma once
#include <cstdint>

#include "arith/hd.h"

namespace ds::colour {

// The plotted window: centre (cx, cy) in world units, `upp` world units per pixel, width x height
// pixels, y up.
struct PlotFrame {
  double cx = 0, cy = 0, upp = 1;
  int width = 1, height = 1;
};

// The pixel that (x, y) falls in; false outside the frame (and for NaN).
DEEPSCOPE_HD bool plot_pixel(const PlotFrame& f, double x, double y, int* px, int* py) {
  const double u = (x - f.cx) / f.upp + 0.5 * f.width;
  const double v = (f.cy - y) / f.upp + 0.5 * f.height;
  if (!(u >= 0.0 && v >= 0.0 && u < f.width && v < f.height)) return false;
  *px = static_cast<int>(u);
  *py = static_cast<int>(v);
  return true;
}

// Background for 0 points; otherwise the point colour at an intensity that rises with
// floor(log2(n)) over five levels (1, 2-3, 4-7, 8-15, 16 and more points).
DEEPSCOPE_HD void density_rgba(uint32_t n, uint8_t* out) {
  const int bg[3] = {12, 14, 20}, fg[3] = {120, 200, 255};
  int level = -1;
  for (uint32_t m = n; m; m >>= 1) ++level;  // floor(log2 n), -1 for 0
  const int alpha = level < 0 ? 0 : 110 + 145 * (level > 4 ? 4 : level) / 4;
  for (int c = 0; c < 3; ++c) out[c] = static_cast<uint8_t>(bg[c] + (fg[c] - bg[c]) * alpha / 255);
  out[3] = 255;
}

}  // namespace ds::colour
