// Kalles Fraktaler's palette files (.kfp, and the colouring keys of a .kfr): `Key: value` lines.
// Colors: r,g,b,r,g,b,... (1 to 1024 colours, trailing comma allowed), IterDiv, ColorOffset, Smooth,
// and the Slopes keys; other keys are accepted and ignored. KF colours with a 1024-entry table made
// from the colours (fraktal_sft.cpp, UpdateColorTable: each colour spans 1024 / n entries, eased
// between neighbours by sin((t - 1/2) pi) / 2 + 1/2, truncated to bytes), indexed by
// floor(iterations / IterDiv + ColorOffset) mod 1024 and blended linearly to the next entry.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "kernels/colour/palette.h"

namespace ds::app {

struct KfPalette {
  std::vector<colour::Rgb8> colors;  // the file's colours (KF's keys)
  double iter_div = 1;               // iterations per table entry
  double color_offset = 0;           // shift in table entries
  bool smooth = true;
  // Slopes (0/1), SlopePower, SlopeRatio, SlopeAngle where given (the slopes shader's parameters).
  std::optional<double> slopes, slope_power, slope_ratio, slope_angle;
};

// Parses .kfp text; `source` names it in errors. Throws IoError (exit 2) "FILE:LINE: why" for a
// malformed line, a bad number, no Colors, or more than 1024 colours.
KfPalette parse_kfp(const std::string& text, const std::string& source);
KfPalette read_kfp(const std::string& path);
// Whether a --palette value names a .kfp file (it ends in .kfp or .kfr).
bool is_kf_palette_file(const std::string& name);

// KF's 1024-entry table as a 1024-stop palette, and the density and offset under which our
// position (smooth * density / 32 + offset, kernels/colour/palette.h) walks it as KF does:
// one cycle is 1024 * IterDiv iterations, so density = 32 / (1024 IterDiv) and
// offset = ColorOffset / 1024 (mod 1); Smooth: 0 turns blending off, as in KF.
colour::Palette kf_table(const KfPalette& p);
void apply_kf_palette(const KfPalette& p, colour::Colouring* c);

}  // namespace ds::app
