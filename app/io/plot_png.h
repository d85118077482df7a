// Line plots rasterized on the CPU into an RGB image and encoded as PNG, for batch commands: axes
// with "nice" ticks, one colour per series, a legend, a title and axis labels (stb_easy_font text).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ds::app {

struct PlotSeries {
  std::string name;
  std::vector<double> x, y;  // same length; non-finite points break the line
};

struct PlotSpec {
  std::string title, x_label, y_label;
  int width = 960, height = 600;
};

// The colour of series k (a fixed, distinguishable palette, repeating after 8).
void plot_colour(int k, uint8_t rgb[3]);

// The plot as interleaved 8-bit RGB, rows top to bottom. Throws std::invalid_argument for sizes
// outside [200, 8000] or series whose x and y lengths differ.
std::vector<uint8_t> plot_rgb(const PlotSpec& spec, const std::vector<PlotSeries>& series);
// The same, encoded as PNG (with the title in a tEXt chunk).
std::string plot_png(const PlotSpec& spec, const std::vector<PlotSeries>& series);

}  // namespace ds::app
