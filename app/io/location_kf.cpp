// Kalles Fraktaler 2 .kfr files: the table of KF's keys, reading (with KF's Rotate/Ratio and
// RotateAngle/StretchAngle/StretchAmount/ImagPointsUp transforms) and writing.
#include <cmath>
#include <set>
#include <sstream>

#include "kernels/core/atomic_file.h"
#include "kernels/colour/palette.h"
#include "location.h"
#include "location_detail.h"

namespace ds::app {
using namespace location_detail;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kDegree = kPi / 180;

// Every key KF 2.15.5 writes or reads (fraktal_sft/Parameter.cpp, CFraktalSFT::OpenString and
// ToText), plus KF <= 2.14's Rotate and Ratio. Neutral values are KF's defaults for plain z^2 + c.
const KeyRule kKfKeys[] = {
    {"Re", KeyUse::kField, nullptr},
    {"Im", KeyUse::kField, nullptr},
    {"Zoom", KeyUse::kField, nullptr},
    {"Iterations", KeyUse::kField, nullptr},
    {"Rotate", KeyUse::kField, nullptr},         // KF <= 2.14, radians
    {"Ratio", KeyUse::kField, nullptr},          // KF <= 2.14, 360 = square pixels
    {"RotateAngle", KeyUse::kField, nullptr},    // KF >= 2.15, degrees
    {"StretchAngle", KeyUse::kField, nullptr},   // KF >= 2.15, degrees
    {"StretchAmount", KeyUse::kField, nullptr},  // KF >= 2.15, log2 of the stretch factor
    {"ImagPointsUp", KeyUse::kField, nullptr},   // KF >= 2.15.4
    // The formula: FractalType and Power name one of formula::kf_formula's (docs/formulas.md);
    // every other key here changes it beyond what deepscope computes.
    {"Power", KeyUse::kField, "2"},
    {"FractalType", KeyUse::kField, "0"},
    {"SeedR", KeyUse::kComputes, "0"},
    {"SeedI", KeyUse::kComputes, "0"},
    {"FactorAR", KeyUse::kComputes, "1"},
    {"FactorAI", KeyUse::kComputes, "0"},
    {"UseHybridFormula", KeyUse::kComputes, "0"},
    {"HybridFormula", KeyUse::kColouring, nullptr},  // read by KF only with UseHybridFormula 1
    // The escape test: KF's radius shifts its smooth count by log2(log2 R) (the kf shader adds it);
    // its norm and norm weights change the counts.
    {"SmoothMethod", KeyUse::kKfColour, "0"},
    {"SmoothingMethod", KeyUse::kKfColour, "0"},
    {"BailoutRadiusPreset", KeyUse::kKfColour, "0"},
    {"BailoutRadiusCustom", KeyUse::kKfColour, nullptr},
    {"BailoutNormPreset", KeyUse::kColouring, "1"},
    {"BailoutNormCustom", KeyUse::kColouring, nullptr},
    {"real", KeyUse::kColouring, "1"},
    {"imag", KeyUse::kColouring, "1"},
    // Colouring: KF's SetColor, reproduced by the kf shader (shaders/kf.glsl, app/io/kfp.h).
    {"Colors", KeyUse::kKfColour, "*"},
    {"IterDiv", KeyUse::kKfColour, "1"},
    {"ColorMethod", KeyUse::kKfColour, "0"},
    {"Differences", KeyUse::kKfColour, "0"},
    {"ColorOffset", KeyUse::kKfColour, "0"},
    {"ColorPhaseStrength", KeyUse::kKfColour, "0"},
    {"InteriorColor", KeyUse::kKfColour, "0,0,0"},
    {"Smooth", KeyUse::kKfColour, "1"},
    {"Flat", KeyUse::kKfColour, "0"},
    {"Slopes", KeyUse::kKfColour, "0"},
    {"SlopePower", KeyUse::kKfColour, nullptr},
    {"SlopeRatio", KeyUse::kKfColour, nullptr},
    {"SlopeAngle", KeyUse::kKfColour, nullptr},
    // Colouring KF has and deepscope does not.
    {"MultiColor", KeyUse::kColouring, "0"},
    {"MultiColors", KeyUse::kColouring, nullptr},
    {"BlendMC", KeyUse::kColouring, nullptr},
    {"TextureEnabled", KeyUse::kColouring, "0"},
    {"TextureMerge", KeyUse::kColouring, nullptr},
    {"TexturePower", KeyUse::kColouring, nullptr},
    {"TextureRatio", KeyUse::kColouring, nullptr},
    {"TextureFile", KeyUse::kColouring, nullptr},
    {"TextureResize", KeyUse::kColouring, nullptr},
    {"UseOpenGL", KeyUse::kColouring, "0"},
    {"GLSL", KeyUse::kColouring, nullptr},
    {"UseSRGB", KeyUse::kColouring, nullptr},
    {"TriangleInequalityAverage", KeyUse::kColouring, "0"},
    // No effect on the picture.
    {"Period", KeyUse::kNoEffect, nullptr},  // the reference's period, a hint
    {"Version", KeyUse::kNoEffect, nullptr},
};

// Rot(a) diag(f, 1/f) Rot(-a): stretch by f along the direction a.
PixelMap stretch(double a, double f) {
  return mul(mul(rotation(a), PixelMap{f, 0.0, 0.0, 1 / f}), rotation(-a));
}

// KF's Colors: the palette's stops as "r,g,b," triples (KF <= 2.13 refuses a file without Colors).
std::string kf_colors(const Location& loc) {
  colour::Palette p;
  try {
    p = colour::palette_by_name(loc.palette.value_or("classic"));
  } catch (const std::exception&) {
    p = colour::palette_by_name("classic");
  }
  std::string s;
  for (int i = 0; i < p.stops; ++i)
    s += std::to_string(p.stop[i].r) + "," + std::to_string(p.stop[i].g) + "," + std::to_string(p.stop[i].b) +
         ",";
  return s;
}

}  // namespace

PixelMap kf_legacy_pixel_map(double rotate, double ratio) {
  // KF <= 2.14 (fraktal_sft.cpp, CFraktalSFT::GetPixelCoordinates and SetPosition): pixel (i, j),
  // j down, is u = (i - W/2) a s, v = (j - H/2) s with a = 360/Ratio, and
  // c = centre + (C u + S v, -S u + C v), C = cos(Rotate), S = sin(Rotate). With (u, v) in half
  // steps (kx a, -ky): c = centre + (s/2) (C a kx - S ky, -S a kx - C ky).
  const double a = 360 / ratio, c = std::cos(rotate), s = std::sin(rotate);
  return {c * a, -s, -s * a, -c};
}

PixelMap kf_pixel_map(double rotate_angle, double stretch_angle, double stretch_amount, bool imag_points_up) {
  // KF >= 2.15 (fraktal_sft.cpp, GetPixelCoordinates; common/matrix.cpp, polar_composition): the
  // glm matrix A = Rot(-r) Rot(a) S Rot(-a) G is applied transposed to (i - W/2, j - H/2), j down:
  // c = centre + s A^T (u, v) = centre + (s/2) G B Rot(r) D k, B = Rot(a) diag(f, 1/f) Rot(-a).
  const PixelMap g = {1.0, 0.0, 0.0, imag_points_up ? -1.0 : 1.0};
  const PixelMap b = stretch(stretch_angle * kDegree, std::exp2(stretch_amount));
  return mul(mul(mul(g, b), rotation(rotate_angle * kDegree)), kFlipY);
}

// kf_pixel_map composed with KF's downward rows (kFlipY): our x-right, y-up map of the same angles.
PixelMap rotation_skew_map(double rotate_deg, double skew_angle_deg, double skew_log2) {
  return mul(kf_pixel_map(rotate_deg, skew_angle_deg, skew_log2, false), kFlipY);
}

bool rotation_skew_of(const PixelMap& m, double* rotate_deg, double* skew_angle_deg, double* skew_log2) {
  *rotate_deg = *skew_angle_deg = *skew_log2 = 0;
  const KfTransform t = kf_transform(mul(m, kFlipY));
  if (!t.current) return false;
  *rotate_deg = t.rotate_angle;
  *skew_angle_deg = t.stretch_angle;
  *skew_log2 = t.stretch_amount;
  return true;
}

KfTransform kf_transform(const PixelMap& m) {
  KfTransform t;
  const double det = m[0] * m[3] - m[1] * m[2];
  if (!(det < 0)) return t;
  constexpr double kTol = 1e-12;
  // KF <= 2.14: m = [[C a, -S], [-S a, -C]].
  const double theta = std::atan2(-m[1], -m[3]), a = std::hypot(m[0], m[2]);
  if (std::fabs(std::hypot(m[1], m[3]) - 1) <= kTol && std::fabs(m[0] - std::cos(theta) * a) <= kTol * a &&
      std::fabs(m[2] + std::sin(theta) * a) <= kTol * a) {
    t.legacy = true;
    t.rotate = theta;
    t.ratio = 360 / a;
  }
  // KF >= 2.15 with ImagPointsUp 0: m D = B Rot(r), det 1. Rot(r) is the polar factor of m D; B the
  // symmetric rest, whose larger eigenvalue is the stretch factor.
  const PixelMap md = {m[0], -m[1], m[2], -m[3]};
  if (std::fabs(-det - 1) <= kTol) {
    const double r = std::atan2(md[2] - md[1], md[0] + md[3]);
    const PixelMap b = mul(md, rotation(-r));
    const double half_trace = (b[0] + b[3]) / 2, off = (b[1] + b[2]) / 2;
    const double f = half_trace + std::sqrt(std::max(0.0, half_trace * half_trace - 1));
    double angle = 0;
    if (std::fabs(off) > kTol)
      angle = std::atan2(f - b[0], off);
    else if (b[3] > b[0])
      angle = kPi / 2;
    t.current = true;
    t.rotate_angle = r / kDegree;
    t.stretch_angle = std::fabs(std::log2(f)) <= kTol ? 0 : angle / kDegree;
    t.stretch_amount = std::fabs(std::log2(f)) <= kTol ? 0 : std::log2(f);
  }
  return t;
}

namespace location_detail {

Location parse_kfr(const std::string& text, const std::string& source) {
  Location loc;
  KeyReport report;
  std::optional<double> rotate, ratio, rotate_angle, stretch_angle, stretch_amount;
  std::optional<bool> imag_points_up;
  long fractal_type = 0, power = 2;
  int formula_line = 0;  // the later of FractalType's and Power's lines
  std::set<std::string> seen;
  struct KfKey {
    const KeyRule* rule;
    std::string key, value;
    int line;
  };
  std::vector<KfKey> kf_keys;  // the colouring keys the kf shader draws, given a palette
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  // KF has no comments: a GLSL value may hold '#' and ';'.
  while (std::getline(in, raw)) {
    ++line;
    const std::string l = trim(raw);
    if (l.empty()) continue;
    const size_t colon = l.find(':');
    if (colon == std::string::npos) bad(source, line, "expected \"Key: value\", got \"" + l + "\"");
    const std::string key = trim(l.substr(0, colon));
    const std::string v = trim(l.substr(colon + 1));
    const std::string k = lower(key);
    if (!seen.insert(k).second) bad(source, line, key + " is given twice");
    const KeyRule* rule = find_rule(kKfKeys, std::size(kKfKeys), key);
    if (rule != nullptr && rule->use == KeyUse::kKfColour) {
      kf_keys.push_back({rule, key, v, line});
    } else if (rule == nullptr || rule->use != KeyUse::kField) {
      report_key(rule, key, v, source, line, &report);
    } else if (k == "re") {
      loc.re = decimal_field(source, line, key, v);
    } else if (k == "im") {
      loc.im = decimal_field(source, line, key, v);
    } else if (k == "zoom") {
      loc.zoom = positive_decimal_field(source, line, key, v);
    } else if (k == "iterations") {
      loc.iterations = iterations_field(source, line, key, v);
    } else if (k == "rotate") {
      rotate = real_field(source, line, key, v);
    } else if (k == "ratio") {
      ratio = real_field(source, line, key, v);
      if (!(*ratio > 0)) bad(source, line, key + " must be > 0 (360 for square pixels), got \"" + v + "\"");
    } else if (k == "rotateangle") {
      rotate_angle = real_field(source, line, key, v);
    } else if (k == "stretchangle") {
      stretch_angle = real_field(source, line, key, v);
    } else if (k == "stretchamount") {
      stretch_amount = real_field(source, line, key, v);
      if (std::fabs(*stretch_amount) > 20)
        bad(source, line, key + " must be within [-20, 20] (a stretch by 2^20 at most), got \"" + v + "\"");
    } else if (k == "imagpointsup") {
      imag_points_up = integer_field(source, line, key, v, 0, 1) != 0;
    } else if (k == "fractaltype" || k == "power") {
      // KF writes integers; a value like "2.000000" is the same integer.
      const double x = real_field(source, line, key, v);
      if (x != std::floor(x) || std::fabs(x) > 1e6)
        bad(source, line, key + " must be an integer, got \"" + v + "\"");
      (k == "power" ? power : fractal_type) = static_cast<long>(x);
      formula_line = std::max(formula_line, line);
    }
  }
  try {
    loc.formula = formula_field(source, formula_line, formula::kf_formula(fractal_type, power));
  } catch (const formula::FormulaError& e) {
    bad(source, formula_line, e.what());
  }
  for (const char* k : {"re", "im", "zoom"})
    if (!seen.count(k))
      bad(source, 0,
          std::string("missing ") +
              (k[0] == 'r'   ? "Re"
               : k[0] == 'i' ? "Im"
                             : "Zoom") +
              " (a .kfr needs Re, Im and Zoom)");
  // KF >= 2.15 reads only the new keys and ignores Rotate/Ratio ("no longer used"); KF <= 2.14 reads
  // only the old ones. A file with both is taken as the newer KF takes it.
  const bool current = rotate_angle || stretch_angle || stretch_amount || imag_points_up;
  const bool legacy = rotate || ratio;
  const PixelMap old_map = kf_legacy_pixel_map(rotate.value_or(0), ratio.value_or(360));
  if (current) {
    loc.pixel_map = kf_pixel_map(rotate_angle.value_or(0), stretch_angle.value_or(0),
                                 stretch_amount.value_or(0), imag_points_up.value_or(false));
    if (legacy && !same_map(old_map, loc.pixel_map, 1e-9))
      loc.warnings.push_back(
          source +
          ": Rotate/Ratio (KF <= 2.14) and RotateAngle/StretchAngle/StretchAmount/ImagPointsUp "
          "(KF >= 2.15) disagree; using the latter, as KF 2.15 does");
  } else {
    loc.pixel_map = old_map;
  }
  check_pixel_map(source, 0,
                  current ? "the pixel map of RotateAngle/StretchAngle/StretchAmount/ImagPointsUp"
                          : "the pixel map of Rotate/Ratio",
                  loc.pixel_map);
  // The colouring: the kf shader draws it; what it cannot is listed with the other warnings.
  if (seen.count("colors")) {
    loc.kf_colouring = parse_kfp(text, source);
    const std::string missing = kf_not_reproduced(*loc.kf_colouring);
    if (!missing.empty()) report.colouring.push_back(missing);
  } else {
    // No palette, so no KF colouring: its keys are listed as not reproduced.
    for (const KfKey& k : kf_keys) {
      const KeyRule as_colouring = {k.rule->key, KeyUse::kColouring, k.rule->neutral};
      report_key(&as_colouring, k.key, k.value, source, k.line, &report);
    }
  }
  add_warnings(report, source, &loc);
  return loc;
}

}  // namespace location_detail

std::string format_kfr(const Location& loc) {
  if (loc.exp_map) throw IoError("cannot write a .kfr of an exponential map (KF keeps it outside the location)");
  if (!loc.julia_re.empty() || !loc.julia_im.empty())
    throw IoError("cannot write a .kfr of a Julia set (julia_re = " + loc.julia_re + ", julia_im = " + loc.julia_im +
                  "): KF reads no seed and would draw the parameter plane");
  // KF's imaginary axis points down: a map without a mirror is written as the conjugate view (the
  // same picture, apply_to_view), so every KF version, with or without ImagPointsUp, shows it.
  std::string im = loc.im;
  PixelMap m = loc.pixel_map;
  if (m[0] * m[3] - m[1] * m[2] > 0) {
    im = negated(im);
    m = mul(kFlipY, m);
  }
  long fractal_type = 0, power = 2;
  if (!loc.formula.empty()) {
    const formula::Formula f = formula::parse_formula(loc.formula);
    if (!formula::kf_fields(f, &fractal_type, &power))
      throw IoError("cannot write a .kfr: KF has no FractalType for formula " + loc.formula);
    if (im != loc.im && !formula::conjugation_symmetric(f))
      throw IoError("cannot write a .kfr of formula " + loc.formula +
                    " with the imaginary axis up: KF draws it downwards, and writing ImagPointsUp is not done "
                    "yet (docs/formulas.md)");
  }
  const KfTransform t = kf_transform(m);
  if (!t.legacy && !t.current) {
    std::string s;
    for (double x : loc.pixel_map) s += " " + shortest(x);
    throw IoError("cannot write a .kfr: KF has no keys for the pixel map" + s +
                  " (it needs square pixels up to a rotation and a stretch of determinant 1, or KF 2.14's "
                  "Rotate/Ratio)");
  }
  std::ostringstream o;
  o << "Re: " << loc.re << "\r\nIm: " << im << "\r\nZoom: " << loc.zoom << "\r\n";
  // KF <= 2.13 refuses a file without Iterations or Colors.
  o << "Iterations: " << loc.iterations.value_or(mandel::View{}.max_iter) << "\r\n";
  // KF's colouring: the location's own, or its KF palette file's, with the density and offset as
  // IterDiv and ColorOffset; else the built-in palette's stops.
  std::optional<KfPalette> kf = loc.kf_colouring;
  if (!kf && loc.palette && is_kf_palette_file(*loc.palette)) kf = read_kfp(*loc.palette);
  if (kf) {
    if (loc.density && *loc.density > 0) kf->iter_div = colour::kIterationsPerCycle / (1024.0 * *loc.density);
    if (loc.offset) kf->color_offset = *loc.offset * 1024.0;
    o << "Colors: ";
    for (const colour::Rgb8& c : kf->colors) o << int(c.r) << "," << int(c.g) << "," << int(c.b) << ",";
    o << "\r\nIterDiv: " << shortest(kf->iter_div) << "\r\nColorOffset: " << shortest(kf->color_offset)
      << "\r\nSmooth: " << (kf->smooth ? 1 : 0) << "\r\nColorMethod: " << kf->color_method
      << "\r\nDifferences: " << kf->differences << "\r\nFlat: " << (kf->flat ? 1 : 0)
      << "\r\nColorPhaseStrength: " << shortest(kf->phase_strength) << "\r\nInteriorColor: "
      << int(kf->interior.r) << "," << int(kf->interior.g) << "," << int(kf->interior.b) << "\r\n";
    if (kf->escape_radius != 10000)
      o << "BailoutRadiusPreset: 3\r\nBailoutRadiusCustom: " << shortest(kf->escape_radius) << "\r\n";
    if (kf->sqrt_smoothing) o << "SmoothingMethod: 1\r\n";  // KF's square-root smoothing (KFR >= 2)
    if (kf->slopes) o << "Slopes: " << (*kf->slopes != 0 ? 1 : 0) << "\r\n";
    if (kf->slope_power) o << "SlopePower: " << shortest(*kf->slope_power) << "\r\n";
    if (kf->slope_ratio) o << "SlopeRatio: " << shortest(*kf->slope_ratio) << "\r\n";
    if (kf->slope_angle) o << "SlopeAngle: " << shortest(*kf->slope_angle) << "\r\n";
  } else {
    o << "Colors: " << kf_colors(loc) << "\r\n";
  }
  // KF keeps the previous formula for keys a file leaves out: state every one.
  o << "Power: " << power << "\r\nFractalType: " << fractal_type << "\r\n";
  for (const KeyRule& r : kKfKeys)
    if (r.use == KeyUse::kComputes) o << r.key << ": " << r.neutral << "\r\n";
  if (t.legacy) o << "Rotate: " << shortest(t.rotate) << "\r\nRatio: " << shortest(t.ratio) << "\r\n";
  if (t.current && (t.rotate_angle != 0 || t.stretch_amount != 0))
    o << "RotateAngle: " << shortest(t.rotate_angle) << "\r\nStretchAngle: " << shortest(t.stretch_angle)
      << "\r\nStretchAmount: " << shortest(t.stretch_amount) << "\r\n";
  return o.str();
}

}  // namespace ds::app
