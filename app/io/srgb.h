// sRGB transfer function (IEC 61966-2-1) between 8-bit sRGB codes and linear light in [0, 1]:
// antialiasing averages in linear light, and the EXR's R, G, B are linear.
#pragma once
#include <array>
#include <cmath>
#include <cstdint>

namespace ds::app {

inline float srgb_to_linear(uint8_t code) {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int k = 0; k < 256; ++k) {
      const double c = k / 255.0;
      t[static_cast<std::size_t>(k)] =
          static_cast<float>(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
    }
    return t;
  }();
  return table[code];
}

// The nearest 8-bit code of linear value x (clamped to [0, 1]); inverts srgb_to_linear exactly.
inline uint8_t linear_to_srgb8(float x) {
  if (!(x > 0.0f)) return 0;
  if (x >= 1.0f) return 255;
  const double c = x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(static_cast<double>(x), 1.0 / 2.4) - 0.055;
  return static_cast<uint8_t>(std::lround(c * 255.0));
}

}  // namespace ds::app
