// Location files: the shared field checks and key tables, our own format, telling the formats
// apart, reading PNGs, and turning a location into a view. KF: location_kf.cpp; F3: location_f3.cpp.
#include "location.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "arith/decimal.h"
#include "image_io.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/input_file.h"
#include "location_detail.h"

namespace ds::app {
namespace location_detail {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void bad(const std::string& source, int line, const std::string& why) {
  throw IoError("location " + source + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + why);
}

std::string decimal_field(const std::string& source, int line, const std::string& key, const std::string& v) {
  try {
    decimal::validate(v);
  } catch (const ArithError& e) {
    bad(source, line, key + ": " + e.what());
  }
  return trim(v);
}

std::string positive_decimal_field(const std::string& source, int line, const std::string& key,
                                   const std::string& v) {
  const std::string d = decimal_field(source, line, key, v);
  // The syntax is checked: [+-] digits [. digits] [exponent]; the sign and whether any mantissa
  // digit is non-zero decide.
  bool nonzero = false;
  for (char c : d) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') nonzero = true;
  }
  if (!nonzero || d[0] == '-') bad(source, line, key + " must be > 0, got \"" + d + "\"");
  return d;
}

int64_t integer_field(const std::string& source, int line, const std::string& key, const std::string& v,
                      int64_t min, int64_t max) {
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || x < min || x > max)
    bad(source, line,
        key + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got \"" +
            v + "\"");
  return x;
}

uint64_t iterations_field(const std::string& source, int line, const std::string& key, const std::string& v) {
  uint64_t x = 0;
  if (!mandel::parse_iterations(v, &x))
    bad(source, line,
        key + " must be an integer in [1, " + std::to_string(mandel::kMaxIterations) + "], got \"" + v + "\"");
  return x;
}

double real_field(const std::string& source, int line, const std::string& key, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !std::isfinite(x))
    bad(source, line, key + " must be a finite number, got \"" + v + "\"");
  return x;
}

std::string formula_field(const std::string& source, int line, const std::string& v) {
  try {
    const formula::Formula f = formula::parse_formula(v);
    return formula::is_mandelbrot(f) ? std::string() : formula::to_string(f);
  } catch (const formula::FormulaError& e) {
    bad(source, line, e.what());
  }
}

void check_julia(const std::string& source, const Location& loc) {
  if (loc.julia_re.empty() && loc.julia_im.empty()) return;
  try {
    formula::parse_julia(loc.julia_re, loc.julia_im, "julia_re", "julia_im");
  } catch (const formula::FormulaError& e) {
    bad(source, 0, e.what());
  }
}

void check_pixel_map(const std::string& source, int line, const std::string& what, const PixelMap& m) {
  const double scale = std::fabs(m[0] * m[3]) + std::fabs(m[1] * m[2]);
  const double det = m[0] * m[3] - m[1] * m[2];
  if (!std::isfinite(scale) || !(std::fabs(det) > 0x1p-44 * scale))
    bad(source, line, what + " is singular, or too stretched for double precision to tell its determinant");
}

const KeyRule* find_rule(const KeyRule* rules, size_t n, const std::string& key) {
  const std::string k = lower(key);
  for (size_t i = 0; i < n; ++i) {
    const std::string r = lower(rules[i].key);
    if (r == k) return &rules[i];
    if (!r.empty() && r.back() == '.' && k.compare(0, r.size(), r) == 0) return &rules[i];
  }
  return nullptr;
}

bool is_neutral(const std::string& value, const char* neutral) {
  if (neutral == nullptr) return true;
  if (std::strcmp(neutral, "*") == 0) return false;
  const std::string v = trim(value);
  char* e1 = nullptr;
  char* e2 = nullptr;
  const double a = std::strtod(v.c_str(), &e1), b = std::strtod(neutral, &e2);
  if (!v.empty() && *e1 == '\0' && *e2 == '\0') return a == b;
  return lower(v) == lower(neutral);
}

void report_key(const KeyRule* rule, const std::string& key, const std::string& value,
                const std::string& source, int line, KeyReport* r) {
  if (rule == nullptr) {
    r->unknown.push_back(key);
    return;
  }
  switch (rule->use) {
    case KeyUse::kComputes:
      if (!is_neutral(value, rule->neutral))
        bad(source, line,
            key + " = " + value +
                " changes what is computed and deepscope does not do it (it computes z^2 + c; " + key +
                " must be " + rule->neutral + ")");
      break;
    case KeyUse::kColouring:
      if (!is_neutral(value, rule->neutral)) {
        // A long value (KF's Colors, F3's shader) is named, not printed.
        const std::string v = trim(value);
        r->colouring.push_back(std::strcmp(rule->neutral, "*") == 0 || v.size() > 24 ? key : key + "=" + v);
      }
      break;
    case KeyUse::kField:
    case KeyUse::kNoEffect:
    case KeyUse::kKfColour:
      break;
  }
}

void add_warnings(const KeyReport& r, const std::string& source, Location* loc) {
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!r.colouring.empty())
    loc->warnings.push_back(
        source + ": not reproduced (deepscope's own colouring, escape radius and sampling apply): " +
        join(r.colouring));
  if (!r.unknown.empty()) loc->warnings.push_back(source + ": unknown keys ignored: " + join(r.unknown));
}

std::string shortest(double x) {
  char buf[40];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

bool same_map(const PixelMap& a, const PixelMap& b, double tol) {
  for (int i = 0; i < 4; ++i)
    if (!(std::fabs(a[i] - b[i]) <= tol)) return false;
  return true;
}

PixelMap mul(const PixelMap& a, const PixelMap& b) {
  return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
          a[2] * b[1] + a[3] * b[3]};
}

std::string negated(const std::string& d) {
  if (!d.empty() && d[0] == '-') return d.substr(1);
  if (!d.empty() && d[0] == '+') return "-" + d.substr(1);
  return "-" + d;
}

PixelMap rotation(double t) { return {std::cos(t), -std::sin(t), std::sin(t), std::cos(t)}; }

}  // namespace location_detail

using namespace location_detail;

namespace {

// Our format: every key is read by the parser; anything else is warned about.
const KeyRule kOurKeys[] = {
    {"re", KeyUse::kField, nullptr},        {"im", KeyUse::kField, nullptr},
    {"zoom", KeyUse::kField, nullptr},      {"iterations", KeyUse::kField, nullptr},
    {"width", KeyUse::kField, nullptr},     {"height", KeyUse::kField, nullptr},
    {"palette", KeyUse::kField, nullptr},   {"density", KeyUse::kField, nullptr},
    {"offset", KeyUse::kField, nullptr},    {"format_used", KeyUse::kField, nullptr},
    {"pixel_map", KeyUse::kField, nullptr}, {"exp_map", KeyUse::kField, nullptr},
    {"formula", KeyUse::kField, nullptr},   {"julia_re", KeyUse::kField, nullptr},
    {"julia_im", KeyUse::kField, nullptr},
};

PixelMap pixel_map_field(const std::string& source, int line, const std::string& v) {
  std::istringstream in(v);
  PixelMap m;
  std::string word;
  for (int i = 0; i < 4; ++i) {
    if (!(in >> word)) bad(source, line, "pixel_map needs four numbers (m0 m1 m2 m3), got \"" + v + "\"");
    m[i] = real_field(source, line, "pixel_map", word);
  }
  if (in >> word) bad(source, line, "pixel_map needs four numbers (m0 m1 m2 m3), got \"" + v + "\"");
  check_pixel_map(source, line, "pixel_map \"" + v + "\"", m);
  return m;
}

Location parse_ours(const std::string& text, const std::string& source) {
  Location loc;
  KeyReport report;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  std::set<std::string> seen;
  while (std::getline(in, raw)) {
    ++line;
    std::string l = raw;
    const size_t hash = l.find_first_of("#;");
    if (hash != std::string::npos) l = l.substr(0, hash);
    l = trim(l);
    if (l.empty()) continue;
    const size_t sep = l.find('=');
    if (sep == std::string::npos) bad(source, line, "expected \"key = value\", got \"" + trim(raw) + "\"");
    const std::string key = lower(trim(l.substr(0, sep)));
    const std::string v = trim(l.substr(sep + 1));
    if (!seen.insert(key).second) bad(source, line, key + " is given twice");
    const KeyRule* rule = find_rule(kOurKeys, std::size(kOurKeys), key);
    if (rule == nullptr) {
      report_key(rule, key, v, source, line, &report);
    } else if (key == "re") {
      loc.re = decimal_field(source, line, "re", v);
    } else if (key == "im") {
      loc.im = decimal_field(source, line, "im", v);
    } else if (key == "zoom") {
      loc.zoom = positive_decimal_field(source, line, "zoom", v);
    } else if (key == "iterations") {
      loc.iterations = iterations_field(source, line, key, v);
    } else if (key == "width") {
      loc.width = static_cast<int>(integer_field(source, line, key, v, 1, 1 << 20));
    } else if (key == "height") {
      loc.height = static_cast<int>(integer_field(source, line, key, v, 1, 1 << 20));
    } else if (key == "palette") {
      if (v.empty()) bad(source, line, "palette is empty");
      loc.palette = v;
    } else if (key == "density") {
      loc.density = real_field(source, line, key, v);
    } else if (key == "offset") {
      loc.offset = real_field(source, line, key, v);
    } else if (key == "format_used") {
      loc.format_used = v;
    } else if (key == "pixel_map") {
      loc.pixel_map = pixel_map_field(source, line, v);
    } else if (key == "exp_map") {
      if (v != "true" && v != "false") bad(source, line, "exp_map must be true or false, got \"" + v + "\"");
      loc.exp_map = v == "true";
    } else if (key == "formula") {
      loc.formula = formula_field(source, line, v);
    } else if (key == "julia_re") {
      loc.julia_re = decimal_field(source, line, key, v);
    } else if (key == "julia_im") {
      loc.julia_im = decimal_field(source, line, key, v);
    }
  }
  for (const char* k : {"re", "im", "zoom"})
    if (!seen.count(k)) bad(source, 0, std::string("missing ") + k + " (a location needs re, im and zoom)");
  check_julia(source, loc);
  add_warnings(report, source, &loc);
  return loc;
}

// The first line that is not blank (nor, in our format, a comment).
std::string first_line(const std::string& text) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    l = trim(l);
    if (!l.empty()) return l;
  }
  return "";
}

// Fraktaler-3 writes `program = "fraktaler-3"` first and dotted keys (`location.real = ...`);
// a hand-written file may use [location] tables instead.
bool looks_like_f3(const std::string& text) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    l = trim(l);
    if ((l.compare(0, 7, "program") == 0 && l.find("fraktaler-3") != std::string::npos) ||
        l.compare(0, 9, "location.") == 0 || l.compare(0, 10, "[location]") == 0 ||
        l.compare(0, 11, "[[formula]]") == 0)
      return true;
  }
  return false;
}

// KF writes "Key: value"; ours is "key = value" and may open with a comment.
bool looks_like_kfr(const std::string& text) {
  const std::string l = first_line(text);
  if (l.empty() || l[0] == '#' || l[0] == ';') return false;
  const size_t sep = l.find_first_of(":=");
  return sep != std::string::npos && l[sep] == ':';
}

}  // namespace

Location parse_location(const std::string& text, const std::string& source) {
  if (looks_like_f3(text)) return parse_f3_toml(text, source);
  if (looks_like_kfr(text)) return parse_kfr(text, source);
  return parse_ours(text, source);
}

std::string format_location(const Location& loc) {
  std::ostringstream o;
  o << "# deepscope location (docs/mandelbrot.md)\n";
  o << "re = " << loc.re << "\n";
  o << "im = " << loc.im << "\n";
  o << "zoom = " << loc.zoom << "\n";
  if (loc.iterations) o << "iterations = " << *loc.iterations << "\n";
  if (loc.width) o << "width = " << *loc.width << "\n";
  if (loc.height) o << "height = " << *loc.height << "\n";
  if (loc.pixel_map != kIdentityMap) {
    o << "pixel_map =";
    for (double x : loc.pixel_map) o << " " << shortest(x == 0 ? 0.0 : x);  // "0", not "-0"
    o << "\n";
  }
  if (loc.exp_map) o << "exp_map = true\n";
  if (loc.palette) o << "palette = " << *loc.palette << "\n";
  if (loc.density) o << "density = " << shortest(*loc.density) << "\n";
  if (loc.offset) o << "offset = " << shortest(*loc.offset) << "\n";
  if (!loc.format_used.empty()) o << "format_used = " << loc.format_used << "\n";
  if (!loc.formula.empty()) o << "formula = " << loc.formula << "\n";
  if (!loc.julia_re.empty()) o << "julia_re = " << loc.julia_re << "\n";
  if (!loc.julia_im.empty()) o << "julia_im = " << loc.julia_im << "\n";
  return o.str();
}

Location read_location_file(const std::string& path) {
  // A PNG may be a large render; a text location is a few lines.
  const bool png = is_png(read_input_head(path, "location", 8));
  const std::string data = read_input_file(path, "location", png ? kMaxPngInputBytes : kMaxTextInputBytes);
  if (is_png(data)) {
    std::string text;
    if (!png_find_text(data, kPngLocationKey, &text))
      throw IoError("location \"" + path + "\": this PNG carries no deepscope location (tEXt \"" +
                    kPngLocationKey + "\")");
    Location loc = parse_location(text, path);
    std::string formula_text;
    if (png_find_text(data, kPngFormulaKey, &formula_text)) {
      // "formula = NAME" first, a Julia set's "julia_re = ..." and "julia_im = ...", then what ran
      // (informational).
      std::istringstream in(formula_text);
      std::string l;
      bool named = false;
      while (std::getline(in, l)) {
        const size_t eq = l.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = trim(l.substr(0, eq)), value = trim(l.substr(eq + 1));
        if (key == "formula" && !named) {
          loc.formula = formula_field(path, 0, value);
          named = true;
        } else if (key == "julia_re") {
          loc.julia_re = decimal_field(path, 0, key, value);
        } else if (key == "julia_im") {
          loc.julia_im = decimal_field(path, 0, key, value);
        }
      }
      check_julia(path, loc);
      if (!named && formula_text.find("formula") != std::string::npos)
        bad(path, 0, std::string("its tEXt \"") + kPngFormulaKey + "\" has no \"formula = NAME\" line");
    }
    return loc;
  }
  if (data.find('\0') != std::string::npos)
    throw IoError("location \"" + path + "\": not a text file or PNG");
  return parse_location(data, path);
}

void apply_to_view(const Location& loc, mandel::View* v, bool with_size) {
  if (!loc.julia_re.empty() || !loc.julia_im.empty())
    throw IoError("the location's julia_re = " + loc.julia_re + ", julia_im = " + loc.julia_im +
                  ": only `deepscope render` and the window's Mandelbrot panel draw Julia sets so far "
                  "(docs/formulas.md)");
  if (!loc.formula.empty())
    throw IoError("the location's formula = " + loc.formula +
                  ": only `deepscope render` computes formulas other than z^2 + c so far (docs/formulas.md)");
  formula::Formula f;
  apply_to_view(loc, v, with_size, &f);
}

void apply_to_view(const Location& loc, mandel::View* v, bool with_size, formula::Formula* f,
                   formula::JuliaSeed* julia) {
  const bool has_julia = !loc.julia_re.empty() || !loc.julia_im.empty();
  if (has_julia && julia == nullptr)
    throw IoError("the location's julia_re = " + loc.julia_re + ", julia_im = " + loc.julia_im +
                  ": a Julia set, which this command does not draw (docs/formulas.md)");
  if (julia) {
    *julia = formula::JuliaSeed{};
    if (has_julia) {
      const bool mirrored = loc.pixel_map[0] * loc.pixel_map[3] - loc.pixel_map[1] * loc.pixel_map[2] < 0;
      *julia = formula::parse_julia(loc.julia_re, loc.julia_im, "julia_re", "julia_im");
      if (mirrored) *julia = formula::conjugated(*julia);
    }
  }
  *f = formula::parse_formula(loc.formula.empty() ? "mandelbrot" : loc.formula);
  if (loc.pixel_map[0] * loc.pixel_map[3] - loc.pixel_map[1] * loc.pixel_map[2] < 0 &&
      !formula::conjugation_symmetric(*f))
    *f = formula::conjugated(*f);  // the folded view below iterates conj(z): formula.h
  v->re = loc.re;
  v->im = loc.im;
  v->zoom = loc.zoom;
  PixelMap m = loc.pixel_map;
  if (m[0] * m[3] - m[1] * m[2] < 0) {
    // conj(centre + (s/2) m k) = conj(centre) + (s/2) D m k with D = diag(1, -1).
    v->im = negated(loc.im);
    m[2] = -m[2];
    m[3] = -m[3];
  }
  for (int i = 0; i < 4; ++i) v->pixel_map[i] = m[i] == 0 ? 0.0 : m[i];  // no -0 in the view's map
  v->exp_map = loc.exp_map;
  if (loc.iterations) v->max_iter = *loc.iterations;
  if (with_size && loc.width && loc.height) {
    v->width = *loc.width;
    v->height = *loc.height;
  }
}

namespace {

// A decimal's parts: sign, its significant digits (no leading zeros; "" for zero) and the power of
// ten of the first one (value = 0.DIGITS * 10^point). False when `d` is not a decimal.
bool decimal_parts(const std::string& d, bool* neg, std::string* digits, long* point) {
  size_t i = 0;
  *neg = false;
  if (i < d.size() && (d[i] == '-' || d[i] == '+')) *neg = d[i++] == '-';
  std::string all;
  long before = 0;  // digits before the '.'
  bool dot = false, any = false;
  for (; i < d.size() && d[i] != 'e' && d[i] != 'E'; ++i) {
    if (d[i] == '.' && !dot) {
      dot = true;
    } else if (std::isdigit(static_cast<unsigned char>(d[i]))) {
      all += d[i];
      any = true;
      if (!dot) ++before;
    } else {
      return false;
    }
  }
  if (!any) return false;
  long exp10 = 0;
  if (i < d.size()) {
    const std::string e = d.substr(i + 1);
    if (e.empty() || e.size() > 9) return false;
    size_t k = 0;
    if (e[0] == '-' || e[0] == '+') k = 1;
    if (k == e.size()) return false;
    for (size_t j = k; j < e.size(); ++j)
      if (!std::isdigit(static_cast<unsigned char>(e[j]))) return false;
    exp10 = std::stol(e);
  }
  size_t lead = 0;
  while (lead < all.size() && all[lead] == '0') ++lead;
  *digits = all.substr(lead);
  while (!digits->empty() && digits->back() == '0') digits->pop_back();
  *point = before - static_cast<long>(lead) + exp10;
  return true;
}

}  // namespace

std::string plain_decimal(const std::string& d) {
  bool neg = false;
  std::string digits;
  long point = 0;
  if (!decimal_parts(d, &neg, &digits, &point)) return d;
  if (digits.empty()) return "0";
  std::string out = neg ? "-" : "";
  if (point <= 0) {
    out += "0." + std::string(static_cast<size_t>(-point), '0') + digits;
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out += digits + std::string(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(point)) + "." + digits.substr(static_cast<size_t>(point));
  }
  return out;
}

std::string zoom_notation(const std::string& d, int n) {
  bool neg = false;
  std::string digits;
  long point = 0;
  if (!decimal_parts(d, &neg, &digits, &point) || digits.empty() || n < 1) return d;
  if (static_cast<int>(digits.size()) > n) {  // round half up to n digits, carrying
    const bool up = digits[static_cast<size_t>(n)] >= '5';
    digits.resize(static_cast<size_t>(n));
    if (up) {
      int k = n - 1;
      while (k >= 0 && digits[static_cast<size_t>(k)] == '9') digits[static_cast<size_t>(k--)] = '0';
      if (k < 0) {
        digits.insert(digits.begin(), '1');
        digits.pop_back();
        ++point;
      } else {
        ++digits[static_cast<size_t>(k)];
      }
    }
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
  }
  std::string out = neg ? "-" : "";
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  return out + "e" + std::to_string(point - 1);
}

}  // namespace ds::app
