// Rendered view -> PNG bytes with the location embedded.
#include "view_png.h"

#include "image_io.h"

namespace ds::app {

Location location_of(const mandel::View& v, const std::string& palette_name, const mandel::Colouring& c,
                     const std::string& format_used) {
  Location loc;
  loc.re = v.re;
  loc.im = v.im;
  loc.zoom = v.zoom;
  loc.iterations = v.max_iter;
  loc.width = v.width;
  loc.height = v.height;
  loc.palette = palette_name;
  loc.density = c.density;
  loc.offset = c.offset;
  loc.format_used = format_used;
  loc.pixel_map = {v.pixel_map[0], v.pixel_map[1], v.pixel_map[2], v.pixel_map[3]};
  return loc;
}

std::string mandelbrot_png(const mandel::View& v, const mandel::RenderResult& r, const std::string& palette_name,
                           const mandel::Colouring& c) {
  const std::vector<uint8_t> rgb = mandel::colour_image(r.counts, r.smooth, c);
  const Location loc = location_of(v, palette_name, c, mandel::format_label(r));
  return encode_png(rgb, r.width, r.height, {{kPngLocationKey, format_location(loc)}});
}

}  // namespace ds::app
