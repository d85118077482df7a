// Location files: where a Mandelbrot view is (centre, zoom, iterations, the map of the pixel plane)
// plus optional size and colouring. Reads our "key = value" format, Kalles Fraktaler .kfr files,
// Fraktaler-3 .toml files and PNGs this program wrote, as their authors meant them. docs/mandelbrot.md.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/io/kfp.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/julia.h"
#include "kernels/mandelbrot/view.h"

namespace ds::app {

using PixelMap = std::array<double, 4>;
constexpr PixelMap kIdentityMap = {1.0, 0.0, 0.0, 1.0};

struct Location {
  std::string re, im, zoom;  // decimal strings, validated when read; zoom > 0
  std::optional<uint64_t> iterations;  // 1 .. 2^63 - 1 (mandel::kMaxIterations)
  std::optional<int> width, height;
  std::optional<std::string> palette;
  std::optional<double> density, offset;
  std::string format_used;  // informational ("f64x2"): written, never applied when read
  // The formula (kernels/formula/formula.h's text, canonical) as the file states it, relative to
  // its own pixel map; "" for plain z^2 + c. Ours: "formula = burning-ship"; KF: FractalType and
  // Power (formula::kf_formula); a PNG: its kPngFormulaKey chunk. docs/formulas.md.
  std::string formula;
  // A Julia set's seed c (kernels/formula/julia.h), both parts or neither: "julia_re = ..." and
  // "julia_im = ..." in ours and in a PNG's kPngFormulaKey chunk; "" for the parameter plane.
  std::string julia_re, julia_im;
  // The picture's pixel plane mapped onto c, in View::pixel_map's convention (x right, y up), as the
  // file's author saw it: KF's downward imaginary axis, Rotate/Ratio, F3's transform. A map with a
  // negative determinant (a mirror image) is valid here; apply_to_view folds it into the centre.
  PixelMap pixel_map = kIdentityMap;
  // The exponential map (View::exp_map; F3's transform.exponential_map): "exp_map = true" in ours.
  bool exp_map = false;
  // A .kfr's colouring (Colors, IterDiv, ColorMethod, Differences, ...), which render and the window
  // draw with the built-in "kf" shader unless told otherwise; empty for a file without Colors.
  std::optional<KfPalette> kf_colouring;
  // Fields read but not reproduced that change only the colouring or the escape test (KF's Colors,
  // F3's shader, ...), one line each, for the front end to show (cmd_render prints them).
  std::vector<std::string> warnings;
};

// The tEXt keyword under which PNGs carry the location.
constexpr const char* kPngLocationKey = "deepscope-location";
// The tEXt keyword of the formula a PNG was rendered with ("formula = NAME" and what ran), present
// only for formulas other than z^2 + c; its formula applies to the location chunk's view as written.
constexpr const char* kPngFormulaKey = "deepscope-formula";

// Parses location text in any of the three formats, told apart by their syntax: Fraktaler-3 TOML
// (`program = "fraktaler-3"` or `location.real = ...`), Kalles Fraktaler ("Key: value" lines) or
// ours ("key = value"). '#' starts a comment in ours. Every key is looked up in its format's table:
// location keys are honoured; a field that changes what is computed and that deepscope cannot do
// (KF Power 3, an F3 Burning Ship, ...) throws IoError naming the field and its value; colouring
// fields go to `warnings`; unknown keys are warned about too. Missing or malformed re, im or zoom,
// zoom <= 0, and malformed numbers throw IoError naming `source`, the line where known, and the field.
Location parse_location(const std::string& text, const std::string& source);
// Our format, ready to write to a file or a PNG text chunk (pixel_map only when not the identity).
std::string format_location(const Location& loc);
// Kalles Fraktaler .kfr text that every KF 2 version opens and shows as `loc` looks (CRLF lines;
// Re, Im, Zoom, Iterations, Colors, and the transform in both KF's old and new keys where they
// apply). With a KF colouring (kf_colouring, or a palette that is a .kfr/.kfp file) its colour keys
// too (IterDiv and ColorOffset from the density and offset). Throws IoError for a pixel map KF
// cannot express, a Julia seed (KF would draw the parameter plane), or a KF palette file that
// cannot be read.
std::string format_kfr(const Location& loc);
// Reads a location from a file: a PNG (by its signature) or text. Throws IoError.
Location read_location_file(const std::string& path);

// Sets the view's centre, zoom, pixel map and iterations (and its size when the location gives
// both and `with_size`). A mirrored map (det < 0) is rendered as the mirror of the conjugate view:
// z^2 + c has real coefficients, so the set is symmetric under c -> conj(c), and the view at the
// conjugate centre with the map's second row negated draws the same picture with a proper map
// (square KF files keep the identity map, which every engine renders).
// Throws IoError for a location with a formula other than z^2 + c (loc.formula): every command but
// `render` computes only z^2 + c, and must never draw a Mandelbrot picture for another formula.
void apply_to_view(const Location& loc, mandel::View* v, bool with_size);
// apply_to_view for `render --formula`: *f gets the formula to iterate on the view as set: the
// location's (plain z^2 + c where it has none), conjugated (formula::conjugated) where a mirrored
// map was folded into the conjugate view and the formula is not symmetric under conjugation.
// *julia gets the location's Julia seed (conjugated with the view: conj(f(conj w)) adds conj(c)),
// or none; a location with a seed throws IoError when julia is nullptr (never a parameter-plane
// picture in its place), as the three-argument form does.
void apply_to_view(const Location& loc, mandel::View* v, bool with_size, formula::Formula* f,
                   formula::JuliaSeed* julia = nullptr);

// Display forms (the window shows every location in one notation, whatever file or step it came
// from). plain_decimal: a decimal ("-7.45e-01", "1E3", "-.5") in positional notation with every digit
// kept ("-0.745", "1000", "-0.5"); so a coordinate never hides an exponent. zoom_notation: a
// positive decimal as "M.MMMMMMMMMeE", the mantissa rounded to `digits` significant digits (trailing
// zeros dropped): "1.00e014" -> "1e14", "5E113" -> "5e113", "250" -> "2.5e2". Both return the input
// unchanged when it is not a decimal.
std::string plain_decimal(const std::string& d);
std::string zoom_notation(const std::string& d, int digits = 10);

// The window's rotation and skew of the view: the map Rot(rotate) composed with a stretch by
// 2^skew_log2 along the direction skew_angle (degrees, counter-clockwise; KF 2.15's RotateAngle,
// StretchAngle and StretchAmount, whose determinant is 1), and back. rotation_skew_of gives false
// (and zeros) for a map it cannot express (a mirror, or |det| != 1).
PixelMap rotation_skew_map(double rotate_deg, double skew_angle_deg, double skew_log2);
bool rotation_skew_of(const PixelMap& m, double* rotate_deg, double* skew_angle_deg, double* skew_log2);

// The maps of each program's transform parameters (derivations and sources in docs/mandelbrot.md).
// KF <= 2.14: Rotate in radians (despite its name), Ratio 360 for square pixels.
PixelMap kf_legacy_pixel_map(double rotate, double ratio);
// KF >= 2.15: RotateAngle and StretchAngle in degrees, StretchAmount a log2 factor, ImagPointsUp.
PixelMap kf_pixel_map(double rotate_angle, double stretch_angle, double stretch_amount, bool imag_points_up);
// Fraktaler-3: transform.reflect, rotate and stretch_angle in degrees, stretch_amount in cents
// (1/100 of a doubling); vertical_flip saves the image rows unflipped.
PixelMap f3_pixel_map(bool reflect, double rotate, double stretch_angle, double stretch_amount,
                      bool vertical_flip);

// KF's keys for a pixel map, as format_kfr writes them for a map with det < 0 (KF's own
// orientation). legacy: Rotate/Ratio express it (D R(theta) diag(360/Ratio, 1)); current:
// RotateAngle/StretchAngle/StretchAmount express it (|det| = 1).
struct KfTransform {
  bool legacy = false, current = false;
  double rotate = 0, ratio = 360;                                  // KF <= 2.14
  double rotate_angle = 0, stretch_angle = 0, stretch_amount = 0;  // KF >= 2.15
};
KfTransform kf_transform(const PixelMap& m);

}  // namespace ds::app
