// The built-in palettes and whole-image colouring.
#include "palette.h"

#include <algorithm>

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

namespace {
bool below(const LogBase& a, const LogBase& b) {
  return a.count < b.count || (a.count == b.count && a.fraction < b.fraction);
}
}  // namespace

LogBase log_base_from_blocks(std::vector<LogBase> blocks) {
  if (blocks.empty()) return {};
  LogBase base = *std::min_element(blocks.begin(), blocks.end(), below);
  std::vector<double> d(blocks.size());
  for (std::size_t k = 0; k < blocks.size(); ++k)
    d[k] = static_cast<double>(blocks[k].count - base.count) +
           (static_cast<double>(blocks[k].fraction) - base.fraction);
  std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
  base.scale = static_cast<float>(std::max<double>(kLogMinScale, d[d.size() / 2]));
  return base;
}

LogBase log_base_of(const std::vector<uint32_t>& counts, const std::vector<float>& smooth, int w,
                    uint64_t max_iter, const std::vector<uint32_t>& counts_high) {
  const bool wide = !counts_high.empty();
  const int h = w > 0 ? static_cast<int>(counts.size() / w) : 0;
  std::vector<LogBase> blocks;
  for (int by = 0; by < h; by += kLogBlock)
    for (int bx = 0; bx < w; bx += kLogBlock) {
      LogBase best;
      bool any = false;
      for (int y = by; y < std::min(h, by + kLogBlock); ++y)
        for (int x = bx; x < std::min(w, bx + kLogBlock); ++x) {
          const std::size_t k = static_cast<std::size_t>(y) * w + x;
          const uint64_t n = wide ? (static_cast<uint64_t>(counts_high[k]) << 32) | counts[k] : counts[k];
          if (n == 0 || n >= max_iter) continue;
          // A narrow frame's fraction is its float smooth count less float(count), as the shader's.
          const LogBase p{n, wide ? smooth[k] : smooth[k] - static_cast<float>(n)};
          if (!any || below(p, best)) best = p;
          any = true;
        }
      if (any) blocks.push_back(best);
    }
  return log_base_from_blocks(std::move(blocks));
}

std::vector<uint8_t> colour_image(const std::vector<uint32_t>& counts, const std::vector<float>& smooth,
                                  const Colouring& frame_c, const std::vector<uint32_t>& counts_high, int width) {
  Colouring c = frame_c;
  if (c.scale == CountScale::kLog) {
    const LogBase b = log_base_of(counts, smooth, width > 0 ? width : static_cast<int>(counts.size()), c.max_iter, counts_high);
    c.log_base = b.count;
    c.log_base_fraction = b.fraction;
    c.log_scale = b.scale;
  }
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
