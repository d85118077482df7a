// The CPU raster backend of the plotting layer (plot.h): paints a layout's primitives into an 8-bit
// RGB image, with stb_easy_font's text scaled up by a whole factor. The PNG plots use it.
#pragma once
#include <cstdint>
#include <vector>

#include "plot.h"

namespace ds::app::plot {

struct Raster {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;  // interleaved, rows top to bottom
};

// stb_easy_font's text metrics at `scale` pixels per font unit.
TextMetrics raster_metrics(int scale);
// Paints `prims` over `r` (alpha-blended; `clip` primitives inside `plot` only).
void paint(const std::vector<Prim>& prims, const Rect& plot, int text_scale, Raster* r);
// A figure laid out on a w x h light-themed image with text at `text_scale`; `out` receives the
// layout (for tests: where the ticks, the legend and the data went). Throws std::invalid_argument
// for sizes outside [200, 8000] and series whose x and y lengths differ.
Raster render(const Figure& f, int w, int h, int text_scale = 2, Layout* out = nullptr);

}  // namespace ds::app::plot
