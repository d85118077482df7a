// Plots as PNG files for batch commands, drawn by the plotting layer (plot.h) on its CPU raster
// (plot_raster.h), so the PNGs and the window share one layout.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "plot.h"

namespace ds::app {

struct PlotSeries {
  std::string name;
  std::vector<double> x, y;  // same length; non-finite points break the line
};

struct PlotSpec {
  std::string title, x_label, y_label;  // labels with their units
  int width = 960, height = 600;
  bool log_y = false;  // a log10 y axis (points <= 0 are left out and break the line)
};

// The colour of series k: plot::palette(k).
void plot_colour(int k, uint8_t rgb[3]);

// The plot as interleaved 8-bit RGB, rows top to bottom, series k in plot_colour(k), lines nested
// in width (plot::nest_line_widths). Throws
// std::invalid_argument for sizes outside [200, 8000] or series whose x and y lengths differ.
std::vector<uint8_t> plot_rgb(const PlotSpec& spec, const std::vector<PlotSeries>& series);
// The same, encoded as PNG (with the title in a tEXt chunk).
std::string plot_png(const PlotSpec& spec, const std::vector<PlotSeries>& series);
// Any figure of the plotting layer as a width x height PNG.
std::string figure_png(const plot::Figure& f, int width, int height);

}  // namespace ds::app
