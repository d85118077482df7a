// .kfp palettes (kfp.h): the parser and KF's colour table.
#include "kfp.h"

#include "colouring.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "kernels/core/atomic_file.h"
#include "kernels/core/input_file.h"

namespace ds::app {
namespace {

[[noreturn]] void bad(const std::string& source, int line, const std::string& why) {
  throw IoError("palette " + source + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + why);
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

double number(const std::string& v, const std::string& source, int line, const std::string& key) {
  const std::string t = trim(v);
  char* end = nullptr;
  errno = 0;
  const double d = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0') bad(source, line, key + " is not a number: \"" + t + "\"");
  // Past double's range: refused; below it (a subnormal or 0) the value is taken as it is.
  if (!std::isfinite(d) || (errno == ERANGE && std::fabs(d) >= 1))
    bad(source, line, key + " is out of range: \"" + t + "\"");
  return d;
}

int whole(const std::string& v, const std::string& source, int line, const std::string& key, int lo, int hi) {
  const double d = number(v, source, line, key);
  if (d != std::floor(d) || d < lo || d > hi)
    bad(source, line, key + " must be a whole number " + std::to_string(lo) + ".." + std::to_string(hi) +
                          ", got \"" + trim(v) + "\"");
  return static_cast<int>(d);
}

}  // namespace

KfPalette parse_kfp(const std::string& text, const std::string& source) {
  KfPalette p;
  bool have_colors = false;
  int radius_preset = 0;
  double radius_custom = 2;
  bool have_custom = false;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    const std::string s = trim(raw);
    if (s.empty()) continue;
    const size_t colon = s.find(':');
    if (colon == std::string::npos || colon == 0)
      bad(source, line, "not a \"Key: value\" line: \"" + s + "\"");
    const std::string key = trim(s.substr(0, colon)), value = trim(s.substr(colon + 1));
    if (key == "Colors") {
      std::vector<int> v;
      std::string item;
      std::istringstream items(value);
      int k = 0;
      while (std::getline(items, item, ',')) {
        ++k;
        const std::string t = trim(item);
        if (t.empty()) {
          if (items.peek() == EOF) break;  // the trailing comma
          bad(source, line, "Colors: value " + std::to_string(k) + " is empty");
        }
        char* end = nullptr;
        const long n = std::strtol(t.c_str(), &end, 10);
        if (*end != '\0' || n < 0 || n > 255)
          bad(source, line,
              "Colors: value " + std::to_string(k) + " (\"" + t + "\") is not an integer 0..255");
        v.push_back(static_cast<int>(n));
      }
      if (v.empty()) bad(source, line, "Colors is empty");
      if (v.size() % 3 != 0)
        bad(source, line,
            "Colors has " + std::to_string(v.size()) + " values, not a whole number of r,g,b triples");
      if (v.size() / 3 > static_cast<size_t>(colour::kMaxPaletteStops))
        bad(source, line, "Colors has " + std::to_string(v.size() / 3) + " colours; KF takes at most 1024");
      p.colors.clear();
      for (size_t i = 0; i < v.size(); i += 3)
        p.colors.push_back(
            {static_cast<uint8_t>(v[i]), static_cast<uint8_t>(v[i + 1]), static_cast<uint8_t>(v[i + 2])});
      have_colors = true;
    } else if (key == "IterDiv") {
      p.iter_div = number(value, source, line, key);
      // Positive, and large enough that the density (32 / (1024 IterDiv)) is a finite float.
      if (!(p.iter_div > 0)) bad(source, line, "IterDiv must be positive, got " + value);
      if (p.iter_div < 1e-30) bad(source, line, "IterDiv " + value + " is too small (at least 1e-30)");
    } else if (key == "ColorOffset") {
      p.color_offset = number(value, source, line, key);
    } else if (key == "Smooth") {
      p.smooth = number(value, source, line, key) != 0;
    } else if (key == "Slopes") {
      p.slopes = number(value, source, line, key);
    } else if (key == "SlopePower") {
      p.slope_power = number(value, source, line, key);
    } else if (key == "SlopeRatio") {
      p.slope_ratio = number(value, source, line, key);
    } else if (key == "SlopeAngle") {
      p.slope_angle = number(value, source, line, key);
    } else if (key == "ColorMethod") {
      p.color_method = whole(value, source, line, key, 0, 11);
      p.has_method = true;
    } else if (key == "Differences") {
      p.differences = whole(value, source, line, key, 0, 7);
    } else if (key == "Flat") {
      p.flat = number(value, source, line, key) != 0;
    } else if (key == "ColorPhaseStrength") {
      p.phase_strength = number(value, source, line, key);
    } else if (key == "InteriorColor") {
      int rgb[3], k = 0;
      std::string item;
      std::istringstream items(value);
      while (std::getline(items, item, ',') && k < 3) rgb[k++] = whole(item, source, line, key, 0, 255);
      if (k != 3) bad(source, line, "InteriorColor must be r,g,b (0..255 each), got \"" + value + "\"");
      p.interior = {static_cast<uint8_t>(rgb[0]), static_cast<uint8_t>(rgb[1]), static_cast<uint8_t>(rgb[2])};
    } else if (key == "SmoothMethod") {
      // KFR version < 2 (KF's OpenString): 0 log with the high radius, 1 sqrt with radius 2,
      // 2 sqrt with the low radius; SmoothingMethod and BailoutRadiusPreset, when given, win.
      const int m = whole(value, source, line, key, 0, 2);
      p.sqrt_smoothing = m != 0;
      radius_preset = m;
    } else if (key == "SmoothingMethod") {
      p.sqrt_smoothing = whole(value, source, line, key, 0, 1) != 0;
    } else if (key == "BailoutRadiusPreset") {
      radius_preset = whole(value, source, line, key, 0, 3);
    } else if (key == "BailoutRadiusCustom") {
      radius_custom = number(value, source, line, key);
      have_custom = true;
    }
    // Any other key (a .kfr's location, MultiColor, Texture...) is KF's and has no effect here.
  }
  if (!have_colors) bad(source, 0, "no Colors line");
  // KF's GetBailoutRadius: high 10000 (SMOOTH_BAILOUT), 2, low 2^(1/(power-1)) = 2 for z^2 + c, custom.
  if (radius_preset == 3 && (!have_custom || !(radius_custom > 1)))
    bad(source, 0, "BailoutRadiusCustom must be > 1 with BailoutRadiusPreset 3" +
                       std::string(have_custom ? "" : " (it is missing)"));
  p.escape_radius = radius_preset == 0 ? 10000.0 : radius_preset == 3 ? radius_custom : 2.0;
  return p;
}

KfPalette read_kfp(const std::string& path) {
  return parse_kfp(read_input_file(path, "palette", kMaxTextInputBytes), path);
}

bool is_kf_palette_file(const std::string& name) {
  auto ends = [&](const char* e) {
    const size_t n = std::strlen(e);
    return name.size() > n && name.compare(name.size() - n, n, e) == 0;
  };
  return ends(".kfp") || ends(".kfr") || ends(".KFP") || ends(".KFR");
}

colour::Palette kf_table(const KfPalette& p) {
  colour::Palette t{};
  t.stops = 1024;
  const int n = static_cast<int>(p.colors.size());
  constexpr double kPi = 3.14159265;  // KF's own constant (fraktal_sft.cpp), for its exact bytes
  for (int i = 0; i < 1024; ++i) {
    double temp = static_cast<double>(i) * n / 1024.0;
    const int a = static_cast<int>(temp), b = (a + 1) % n;
    temp -= a;
    temp = std::sin((temp - .5) * kPi) / 2 + .5;
    auto ch = [temp](uint8_t u, uint8_t v) { return static_cast<uint8_t>(temp * v + (1 - temp) * u); };
    t.stop[i] = {ch(p.colors[a].r, p.colors[b].r), ch(p.colors[a].g, p.colors[b].g),
                 ch(p.colors[a].b, p.colors[b].b)};
  }
  return t;
}

void apply_kf_palette(const KfPalette& p, colour::Colouring* c) {
  c->palette = kf_table(p);
  c->blend = p.smooth;
  c->density = static_cast<float>(colour::kIterationsPerCycle / (1024.0 * p.iter_div));
  // KF's index is taken mod 1024, so only ColorOffset mod 1024 matters (and any value stays finite).
  const double shift = std::fmod(p.color_offset, 1024.0);
  c->offset = static_cast<float>((shift < 0 ? shift + 1024.0 : shift) / 1024.0);
}

std::vector<std::pair<std::string, float>> kf_shader_params(const KfPalette& p) {
  std::vector<std::pair<std::string, float>> v = {
      {"color_method", static_cast<float>(p.color_method)},
      {"differences", static_cast<float>(p.differences)},
      {"flat_colour", p.flat ? 1.0f : 0.0f},
      {"phase_strength", static_cast<float>(p.phase_strength)},
      {"sqrt_smoothing", p.sqrt_smoothing ? 1.0f : 0.0f},
      {"escape_radius", static_cast<float>(p.escape_radius)},
      {"interior_red", static_cast<float>(p.interior.r)},
      {"interior_green", static_cast<float>(p.interior.g)},
      {"interior_blue", static_cast<float>(p.interior.b)},
      {"slopes", p.slopes && *p.slopes != 0 ? 1.0f : 0.0f},
  };
  if (p.slope_power) v.emplace_back("slope_power", static_cast<float>(*p.slope_power));
  if (p.slope_ratio) v.emplace_back("slope_ratio", static_cast<float>(*p.slope_ratio));
  if (p.slope_angle) v.emplace_back("slope_angle", static_cast<float>(*p.slope_angle));
  return v;
}

std::string kf_not_reproduced(const KfPalette& p) {
  // ColorMethod 4 (stretched) is reproduced: the kf shader reads the frame's count range.
  // Square-root smoothing is reproduced at any radius from 2 to kMaxSqrtSmoothRadius: the engines
  // escape at 2 and carry z on to KF's escape at R (fields.cuh: sqrt_smooth_fraction). Below 2 KF
  // escapes before the engines' count, whose earlier z are gone.
  std::string s;
  if (p.sqrt_smoothing && clamp_sqrt_smooth_radius(p.escape_radius) != p.escape_radius)
    s = "square-root smoothing with escape radius " + std::to_string(p.escape_radius) +
        " (BailoutRadiusCustom; drawn at radius " + std::to_string(clamp_sqrt_smooth_radius(p.escape_radius)) +
        ": the engines carry z on from their escape at 2 up to 1e100)";
  return s;
}

}  // namespace ds::app
