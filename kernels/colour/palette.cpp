// The built-in palettes and whole-image colouring.
#include "palette.h"

#include "kernels/core/cpu_parallel.h"
#include "kernels/mandelbrot/view.h"

namespace ds::colour {
namespace {

struct Named {
  const char* name;
  Palette palette;
};

// Stops around one cycle. "gray" is the monotone (single-hue) palette: black to white and back.
const std::vector<Named>& table() {
  static const std::vector<Named> t = {
      {"classic", {5, {{0, 7, 100}, {32, 107, 203}, {237, 255, 255}, {255, 170, 0}, {0, 2, 0}}}},
      {"fire", {5, {{0, 0, 0}, {128, 0, 0}, {255, 96, 0}, {255, 220, 64}, {255, 255, 224}}}},
      {"ocean", {4, {{2, 8, 40}, {0, 90, 140}, {64, 200, 220}, {230, 250, 255}}}},
      {"rainbow", {6, {{255, 0, 0}, {255, 255, 0}, {0, 255, 0}, {0, 255, 255}, {0, 0, 255}, {255, 0, 255}}}},
      {"gray", {2, {{0, 0, 0}, {255, 255, 255}}}},
  };
  return t;
}

}  // namespace

const std::vector<std::string>& palette_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& p : table()) n.push_back(p.name);
    return n;
  }();
  return names;
}

Palette palette_by_name(const std::string& name) {
  for (const auto& p : table())
    if (name == p.name) return p.palette;
  std::string valid;
  for (const auto& n : palette_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw mandel::ViewError("unknown palette \"" + name + "\"; valid: " + valid);
}

std::vector<uint8_t> colour_image(const std::vector<uint32_t>& counts, const std::vector<float>& smooth,
                                  const Colouring& c, const std::vector<uint32_t>& counts_high) {
  std::vector<uint8_t> rgb(counts.size() * 3);
  const bool wide = !counts_high.empty();
  parallel_for(counts.size(), 1 << 16, [&](std::size_t b, std::size_t e) {
    for (std::size_t k = b; k < e; ++k) {
      const Rgb8 px = wide ? colour_pixel_wide(c, (static_cast<uint64_t>(counts_high[k]) << 32) | counts[k], smooth[k])
                           : colour_pixel(c, counts[k], smooth[k]);
      rgb[3 * k] = px.r;
      rgb[3 * k + 1] = px.g;
      rgb[3 * k + 2] = px.b;
    }
  });
  return rgb;
}

}  // namespace ds::colour
