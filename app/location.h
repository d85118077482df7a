// Location files: where a Mandelbrot view is (centre, zoom, iterations) plus optional size and
// colouring. Reads our own "key = value" format, Kalles Fraktaler .kfr files ("Key: value"), and
// PNGs this program wrote (the same text in a tEXt chunk). Format: docs/mandelbrot.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace ds::app {

struct Location {
  std::string re, im, zoom;  // decimal strings, validated when read
  std::optional<uint32_t> iterations;
  std::optional<int> width, height;
  std::optional<std::string> palette;
  std::optional<double> density, offset;
  std::string format_used;  // informational ("f64x2"): written, never applied when read
};

// The tEXt keyword under which PNGs carry the location.
constexpr const char* kPngLocationKey = "deepscope-location";

// Parses location text: lines "key = value" or "key: value" (keys case-insensitive), '#' and ';'
// start comments, unknown keys are ignored (a .kfr has many). re, im and zoom are required.
// Throws IoError naming `source` and the line for malformed or missing values.
Location parse_location(const std::string& text, const std::string& source);
// Our format, ready to write to a file or a PNG text chunk.
std::string format_location(const Location& loc);
// Kalles Fraktaler .kfr text (Re, Im, Zoom, Iterations), as KF reads it.
std::string format_kfr(const Location& loc);
// Reads a location from a file: a PNG (by its signature) or text. Throws IoError.
Location read_location_file(const std::string& path);

}  // namespace ds::app
