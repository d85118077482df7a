// Kalles Fraktaler's EXR channels of a rendered view (what zoomasm reads), encoded with OpenEXR
// (docs/mandelbrot.md, "Zoom videos, EXR and antialiasing"). Builds without OpenEXR keep the
// channel conversion and refuse to encode (exr_supported() is false).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/mandelbrot/mandelbrot.h"

namespace ds::app {

// N (and N1) of a pixel that did not escape.
constexpr uint32_t kExrInterior = 0xFFFFFFFFu;

// One image's channels, row-major, row 0 at the top. A vector left empty is not written.
struct ExrImage {
  int width = 0, height = 0;
  // N (UINT): floor of the smooth count mu (>= 1 for an escaped pixel); kExrInterior where the pixel
  // did not escape; 0 where it was undecided (perturbation's glitch_unresolved). N1 (UINT, views
  // with max_iter >= 2^32 only): the high 32 bits, so the count is N + 2^32 N1 (both kExrInterior
  // where no escape).
  std::vector<uint32_t> n, n1;
  std::vector<float> nf;           // NF (FLOAT): mu - floor(mu), in [0, 1); 0 where not escaped
  std::vector<float> dex, dey, t;  // DEX, DEY, T (FLOAT): RenderResult::dex, dey, phase
  std::vector<float> rgb;          // R, G, B (HALF): linear light, 3 floats a pixel
  // String attributes of the header (deepscope-location, deepscope-undecided, ...).
  std::vector<std::pair<std::string, std::string>> attributes;
};

// True when this build writes EXR (OpenEXR was found at configure time).
bool exr_supported();

// The channels of a result (narrow or wide counts, counts.h): N, N1, NF from counts and smooth;
// DEX, DEY, T where r holds them (RenderOptions::fields); `linear_rgb` (3 a pixel, or empty) as
// R, G, B. No attributes.
ExrImage exr_channels(const mandel::RenderResult& r, const std::vector<float>& linear_rgb);

// The bytes of a single-part scanline EXR file (ZIP compression) of `e`. Throws IoError when
// OpenEXR is not built in, the sizes disagree, or OpenEXR fails.
std::string encode_exr(const ExrImage& e);

}  // namespace ds::app
