// Kalles Fraktaler's palette files (.kfp, and the colouring keys of a .kfr): `Key: value` lines.
// Colors: r,g,b,r,g,b,... (1 to 1024 colours, trailing comma allowed), IterDiv, ColorOffset, Smooth,
// ColorMethod, Differences, Flat, ColorPhaseStrength, InteriorColor, the escape radius keys
// (SmoothMethod, SmoothingMethod, BailoutRadiusPreset, BailoutRadiusCustom) and the Slopes keys;
// other keys are accepted and ignored. The built-in "kf" shader (shaders/kf.glsl) draws them. KF colours with a 1024-entry table made
// from the colours (fraktal_sft.cpp, UpdateColorTable: each colour spans 1024 / n entries, eased
// between neighbours by sin((t - 1/2) pi) / 2 + 1/2, truncated to bytes), indexed by
// floor(iterations / IterDiv + ColorOffset) mod 1024 and blended linearly to the next entry.
#pragma once
#include <optional>
#include <string>
#include <utility>
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
  int color_method = 0;            // ColorMethod 0..11 (KF's enum ColorMethod; 4 "stretched" is not reproduced)
  int differences = 0;             // Differences 0..7 (KF's enum Differences; 7 analytic)
  bool flat = false;               // Flat: whole iterations, no smoothing
  double phase_strength = 0;       // ColorPhaseStrength, percent
  colour::Rgb8 interior{0, 0, 0};  // InteriorColor
  // The escape radius KF's smooth count is normalised to (SmoothMethod 0: BailoutRadiusPreset 0
  // 10000, 1 and 2 (power 2) 2, 3 BailoutRadiusCustom), and whether KF's smoothing is the
  // logarithmic one (SmoothMethod/SmoothingMethod 0) or the square-root one (reproduced at radius 2).
  double escape_radius = 10000;
  bool sqrt_smoothing = false;
  bool has_method = false;  // the text has ColorMethod (a .kfr, or a .kfp of KF >= 2.12)
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

// The built-in "kf" shader's parameters for the file's ColorMethod, Differences, Flat,
// ColorPhaseStrength, escape radius, InteriorColor and Slopes keys (shaders/kf.glsl).
std::vector<std::pair<std::string, float>> kf_shader_params(const KfPalette& p);
// What the kf shader does not reproduce of the file's colouring keys ("" when it does them all):
// square-root smoothing at an escape radius other than 2.
std::string kf_not_reproduced(const KfPalette& p);

}  // namespace ds::app
