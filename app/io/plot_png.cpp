// Plots as PNG files (see plot_png.h): the series become a plot::Figure, rendered on the raster.
#include "plot_png.h"

#include "image_io.h"
#include "plot_raster.h"

namespace ds::app {
namespace {

plot::Figure figure(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  plot::Figure f;
  f.title = spec.title;
  f.x.label = spec.x_label;
  f.y.label = spec.y_label;
  if (spec.log_y) f.y.scale = plot::Scale::kLog10;
  for (std::size_t k = 0; k < series.size(); ++k) {
    plot::Series s;
    s.name = series[k].name;
    s.x = series[k].x;
    s.y = series[k].y;
    s.colour = plot::palette(static_cast<int>(k));
    f.series.push_back(std::move(s));
  }
  plot::nest_line_widths(&f.series);  // equal series (f64 and ff at 0) both stay visible
  return f;
}

}  // namespace

void plot_colour(int k, uint8_t rgb[3]) {
  const plot::Rgba c = plot::palette(k);
  rgb[0] = c.r, rgb[1] = c.g, rgb[2] = c.b;
}

std::vector<uint8_t> plot_rgb(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  return plot::render(figure(spec, series), spec.width, spec.height).rgb;
}

std::string plot_png(const PlotSpec& spec, const std::vector<PlotSeries>& series) {
  return encode_png(plot_rgb(spec, series), spec.width, spec.height, {{"Title", spec.title}});
}

std::string figure_png(const plot::Figure& f, int width, int height) {
  return encode_png(plot::render(f, width, height).rgb, width, height, {{"Title", f.title}});
}

}  // namespace ds::app
