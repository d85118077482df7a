// The Hénon workspace's images as PNGs: the parameter plane coloured by period or by Lyapunov
// exponent, and basins of attraction, with the view and its counts embedded as a tEXt chunk.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/henon/plane.h"

namespace ds::app {

// tEXt keyword of the Hénon images: "key = value" lines (kind, the view, the limits, the counts).
constexpr const char* kPngHenonKey = "deepscope-henon";

// Colours (8-bit RGB). Periods and attractor ids 1, 2, ...: a fixed categorical table of 12
// colours, repeated a shade darker for each further 12 (13..24, ...); 0 (no period): black;
// -1 (escape): white.
void category_colour(int32_t k, uint8_t rgb[3]);
std::vector<uint8_t> category_rgb(const std::vector<int32_t>& values);
// Diverging: blue (lambda <= -scale) through white (0) to red (lambda >= scale); -inf is the
// deepest blue; NaN (escaped) mid grey.
void lyapunov_colour(double lambda, double scale, uint8_t rgb[3]);
std::vector<uint8_t> lyapunov_rgb(const std::vector<double>& exponent, double scale);

// The metadata texts. `colouring` is "period" or "lyapunov" (then lyapunov_steps and scale count).
std::string plane_text(const henon::PlaneView& v, const std::string& colouring, int64_t lyapunov_steps,
                       double scale, const std::vector<std::pair<std::string, std::string>>& counts);
std::string basin_text(const henon::BasinView& v, const henon::BasinResult& r);

// PNG bytes of an RGB image with the text under kPngHenonKey.
std::string henon_png(const std::vector<uint8_t>& rgb, int width, int height, const std::string& text);

}  // namespace ds::app
