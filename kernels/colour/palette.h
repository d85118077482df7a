// Colouring of escape-time results: cyclic palettes of colour stops, mapped by the smooth count
// with a density and an offset; interior (non-escaping) pixels black. colour_pixel runs on host
// and device; the palette table and whole-image colouring are host code (palette.cpp).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "arith/hd.h"

namespace ds::colour {

// Kalles Fraktaler's palettes have up to 1024 colours (app/io/kfp.h). A Palette is then about 3 KB,
// still a legal by-value CUDA kernel parameter inside canvas.cuh's ComposeArgs (4 KB limit).
constexpr int kMaxPaletteStops = 1024;
// Iterations per palette cycle at density 1.
constexpr float kIterationsPerCycle = 32.0f;

struct Rgb8 {
  uint8_t r, g, b;
};

// Stops evenly spaced around one cycle; the last wraps to the first, so the colouring is
// continuous for every palette.
struct Palette {
  int stops;
  Rgb8 stop[kMaxPaletteStops];
};

// How the smooth count becomes a palette position (docs/colouring.md, "The count's scale").
//   kLinear: smooth * density / kIterationsPerCycle + offset: one cycle every 32 / density
//            iterations at any depth (Kalles Fraktaler's IterDiv; what KF palettes use).
//   kLog:    density * kLogCyclesPerE * ln(1 + d / s) + offset, d = smooth - the frame's lowest
//            escaped smooth count (the base), s the median over the frame's 16 x 16 blocks of their
//            lowest d (at least kLogMinScale): the frame's own spread of counts. So a deep view whose
//            counts are millions and change by hundreds a pixel gets a palette step of a hundredth
//            of a cycle between neighbours, a shallow view keeps its bands, and either shows about
//            kLogCyclesPerE ln(d_max / s) cycles.
enum class CountScale : uint8_t { kLinear = 0, kLog = 1 };
constexpr float kLogCyclesPerE = 2.0f;
constexpr float kLogMinScale = 16.0f;
constexpr int kLogBlock = 16;

struct Colouring {
  Palette palette;
  float density = 1.0f;   // palette cycles per kIterationsPerCycle iterations
  float offset = 0.0f;    // shift in cycles (0..1 covers the palette once)
  uint64_t max_iter = 0;  // counts equal to this are interior
  bool blend = true;      // false: each stop's colour up to the next, unblended (KF's Smooth: 0)
  CountScale scale = CountScale::kLinear;
  // kLog: the frame's lowest escaped smooth count, as its whole count and fraction (smooth - count;
  // a narrow frame's float smooth minus float(count)), and the scale s. log_base_of() finds them on
  // the host; the colouring shader on the GL (render/frame_stats.h), the same way.
  uint64_t log_base = 0;
  float log_base_fraction = 0.0f;
  float log_scale = kLogMinScale;
};

// The palette's colour at position pos (any real: wrapped to [0, 1)).
DEEPSCOPE_HD Rgb8 palette_colour(const Colouring& c, float pos) {
  pos -= floorf(pos);
  const float x = pos * static_cast<float>(c.palette.stops);
  int k = static_cast<int>(x);
  if (k >= c.palette.stops) k = c.palette.stops - 1;  // pos just below 1 rounding up
  if (k < 0) k = 0;
  const float f = c.blend ? x - static_cast<float>(k) : 0.0f;
  const Rgb8 a = c.palette.stop[k];
  const Rgb8 b = c.palette.stop[k + 1 < c.palette.stops ? k + 1 : 0];
  auto mix = [f](uint8_t u, uint8_t v) {
    float t = static_cast<float>(u) + (static_cast<float>(v) - static_cast<float>(u)) * f;
    return static_cast<uint8_t>(t < 0.0f ? 0.0f : t > 255.0f ? 255.0f : t + 0.5f);
  };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

// kLog's position for a pixel whose count is `count` and fraction `fraction` (CountScale above).
// The count's difference from the base is exact (integers), then float, as the shader does it.
DEEPSCOPE_HD float log_position(const Colouring& c, uint64_t count, float fraction) {
  float d = count >= c.log_base ? static_cast<float>(count - c.log_base)
                                : -static_cast<float>(c.log_base - count);
  d += fraction - c.log_base_fraction;
  if (d < 0.0f) d = 0.0f;
  return c.density * kLogCyclesPerE * logf(1.0f + d / c.log_scale) + c.offset;
}

// Position in the palette: smooth * density / kIterationsPerCycle + offset (kLinear) or
// log_position (kLog), wrapped to [0, 1).
DEEPSCOPE_HD Rgb8 colour_pixel(const Colouring& c, uint64_t count, float smooth) {
  // Count 0 is a pixel perturbation could not decide (glitch_unresolved; no escape count is 0):
  // magenta whatever the palette and offset, so it stands apart from the pixels around it (only the
  // rainbow palette has a magenta stop); the PNG's deepscope-perturb chunk and exit 1 record it.
  if (count == 0) return {255, 0, 255};
  if (count >= c.max_iter) return {0, 0, 0};
  if (c.scale == CountScale::kLog)
    return palette_colour(c, log_position(c, count, smooth - static_cast<float>(count)));
  return palette_colour(c, smooth * c.density / kIterationsPerCycle + c.offset);
}

// The same for a wide result (counts.h: fraction = smooth count - count): the whole cycles of the
// count are dropped in double before the fraction is added, so the position keeps its precision at
// any count.
DEEPSCOPE_HD Rgb8 colour_pixel_wide(const Colouring& c, uint64_t count, float fraction) {
  if (count == 0) return {255, 0, 255};
  if (count >= c.max_iter) return {0, 0, 0};
  if (c.scale == CountScale::kLog) return palette_colour(c, log_position(c, count, fraction));
  const double per = static_cast<double>(c.density) / kIterationsPerCycle;
  double cycles = static_cast<double>(count) * per;
  cycles -= floor(cycles);
  return palette_colour(c, static_cast<float>(cycles + fraction * per + c.offset));
}

// Names of the built-in palettes, in order ("classic", ..., "gray").
const std::vector<std::string>& palette_names();
// The named palette. Throws ViewError (an ArithError: exit code 2) listing the names otherwise.
Palette palette_by_name(const std::string& name);

// kLog's base and scale: the lowest escaped smooth count (neither undecided, count 0, nor
// interior) and s (CountScale). {0, 0, kLogMinScale} when no pixel escaped.
struct LogBase {
  uint64_t count = 0;
  float fraction = 0.0f;
  float scale = kLogMinScale;
};
// From the lowest escaped count of each kLogBlock x kLogBlock block that has one (count and
// fraction; rows from the top, blocks in any order): the base is their lowest, s their median
// distance above it.
LogBase log_base_from_blocks(std::vector<LogBase> blocks);
// The same over a frame's arrays (w pixels a row).
LogBase log_base_of(const std::vector<uint32_t>& counts, const std::vector<float>& smooth, int w,
                    uint64_t max_iter, const std::vector<uint32_t>& counts_high = {});

// Interleaved RGB, 3 bytes per pixel, rows top to bottom. With CountScale::kLog the base is the
// frame's own (log_base_of, over rows `width` pixels long; 0: one row), whatever c.log_base says.
// counts_high: the high words of a wide result (counts.h), empty for a narrow one.
std::vector<uint8_t> colour_image(const std::vector<uint32_t>& counts, const std::vector<float>& smooth,
                                  const Colouring& c, const std::vector<uint32_t>& counts_high = {},
                                  int width = 0);

}  // namespace ds::colour
