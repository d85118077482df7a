// Fraktaler-3 parameter files (.toml, as F3's param.cc reads and writes them), parsed with toml11,
// the TOML library F3 itself uses. [[formula]] phases become a formula (docs/formulas.md).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <toml.hpp>

#include "kernels/core/atomic_file.h"
#include "location.h"
#include "location_detail.h"

namespace ds::app {
using namespace location_detail;

namespace {

constexpr double kDegree = 3.14159265358979323846 / 180;
constexpr int kMaxTomlNesting = 64;

// Every key of F3's pparam (param.h, operator>> in param.cc, versions 2 to 3.x); prefixes end in
// '.'. F3 leaves out keys that hold their default, so a key that is there was usually changed.
const KeyRule kF3Keys[] = {
    {"program", KeyUse::kNoEffect, nullptr},
    {"version", KeyUse::kNoEffect, nullptr},
    {"location.real", KeyUse::kField, nullptr},
    {"location.imag", KeyUse::kField, nullptr},
    {"location.zoom", KeyUse::kField, nullptr},
    {"reference.", KeyUse::kNoEffect, nullptr},  // where F3 puts its reference orbit, and its period
    {"bailout.iterations", KeyUse::kField, nullptr},
    {"bailout.maximum_reference_iterations", KeyUse::kNoEffect, nullptr},  // pixels rebase past its end
    {"bailout.maximum_perturb_iterations", KeyUse::kField, nullptr},
    {"bailout.maximum_bla_steps", KeyUse::kField, nullptr},
    {"bailout.escape_radius", KeyUse::kColouring, "625"},
    {"bailout.inscape_radius", KeyUse::kColouring, "0.0009765625"},
    {"algorithm.", KeyUse::kNoEffect, nullptr},
    {"image.width", KeyUse::kField, nullptr},
    {"image.height", KeyUse::kField, nullptr},
    {"image.subsampling", KeyUse::kColouring, "1"},
    {"image.subframes", KeyUse::kColouring, "1"},  // anti-aliasing
    {"image.supersampling", KeyUse::kColouring, "1"},
    {"image.dpi", KeyUse::kNoEffect, nullptr},
    {"transform.reflect", KeyUse::kField, nullptr},
    {"transform.rotate", KeyUse::kField, nullptr},
    {"transform.stretch_angle", KeyUse::kField, nullptr},
    {"transform.stretch_amount", KeyUse::kField, nullptr},
    {"transform.vertical_flip", KeyUse::kField, nullptr},
    {"transform.exponential_map", KeyUse::kField, nullptr},
    {"formula", KeyUse::kField, nullptr},
    {"postprocessing.", KeyUse::kColouring, "*"},
    {"colour.", KeyUse::kColouring, "*"},
    {"render.", KeyUse::kNoEffect, nullptr},
    {"newton.", KeyUse::kNoEffect, nullptr},
    {"opencl.", KeyUse::kNoEffect, nullptr},
};

using Leaf = std::pair<std::string, const toml::value*>;

// The file's values by dotted name ("location.real"); arrays (of tables too) are leaves.
void collect(const toml::value& t, const std::string& prefix, std::vector<Leaf>* out) {
  for (const auto& kv : t.as_table()) {
    const std::string name = prefix.empty() ? kv.first : prefix + "." + kv.first;
    if (kv.second.is_table())
      collect(kv.second, name, out);
    else
      out->push_back({name, &kv.second});
  }
}

int line_of(const toml::value& x) { return static_cast<int>(x.location().line()); }

// The offset of the first byte of `s` that is not part of valid UTF-8 (no overlong forms, no
// surrogates, nothing past U+10FFFF), or npos. A TOML file must be UTF-8, and Debian 12's toml11
// (3.7.1) reads outside its buffer when a literal string holds invalid UTF-8 (toml11 issue 199,
// fixed upstream by pull request 208; found here by tests/fuzz), so such text never reaches it.
std::size_t invalid_utf8_at(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    std::size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
      return i;
    }
    if (n - i < len || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string::npos;
}

// What toml11 (3.7.1) cannot take safely, found by tests/fuzz, measured with strings and comments
// skipped so that such text never reaches it. `nesting`: the most open arrays and inline tables
// plus the dots of the key being read (a.b.c = 1 and [a.b.c] nest tables as deep as
// {a = {b = {c = 1}}}); toml11 parses and destroys nested values recursively without a limit, and a
// thousand '[' or a key of 20,000 parts overflowed the stack. `binary_digits`: the longest binary
// integer (0b...) among the values; toml11 doubles an int64 once per digit, a signed overflow from
// the 63rd digit on, leading zeros included.
struct TomlShape {
  int nesting = 0;
  std::size_t binary_digits = 0;
};

TomlShape toml_shape(const std::string& s) {
  TomlShape shape;
  std::vector<char> open;  // the brackets open here
  bool key = true;         // reading a key: from a line's start outside brackets, or after '{' or
                           // ',' in an inline table, up to '='
  int dots = 0;            // those of the key being read
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '#') {
      i = s.find('\n', i);
      if (i == std::string::npos) break;
      --i;  // the newline is read next
    } else if (c == '"' || c == '\'') {
      const std::size_t q = s.compare(i, 3, std::string(3, c)) == 0 ? 3 : 1;
      std::size_t j = i + q;
      while (j < s.size() && s.compare(j, q, std::string(q, c)) != 0 && (q == 3 || s[j] != '\n'))
        j += (c == '"' && s[j] == '\\') ? 2 : 1;
      if (q == 1 && j < s.size() && s[j] == '\n')
        i = j - 1;  // not closed on its line (toml11 reports it): the newline is read next
      else
        i = std::min(j + q, s.size()) - 1;
    } else if (c == '[' || c == '{') {
      open.push_back(c);
    } else if (c == ']' || c == '}') {
      if (!open.empty()) open.pop_back();
    } else if (c == '=') {
      key = false;
    } else if (c == '.' && key) {
      ++dots;
    } else if (c == '0' && !key && i + 1 < s.size() && s[i + 1] == 'b' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_'))) {
      std::size_t digits = 0, j = i + 2;
      for (; j < s.size() && (s[j] == '0' || s[j] == '1' || s[j] == '_'); ++j) digits += s[j] != '_';
      shape.binary_digits = std::max(shape.binary_digits, digits);
      i = j - 1;
      continue;
    }
    if ((c == '\n' && open.empty()) || c == '{' || (c == ',' && !open.empty() && open.back() == '{')) {
      key = true;
      dots = 0;
    }
    shape.nesting = std::max(shape.nesting, static_cast<int>(open.size()) + dots);
  }
  return shape;
}

std::string text_of(const toml::value& x) {
  if (x.is_string()) return x.as_string().str;
  if (x.is_boolean()) return x.as_boolean() ? "true" : "false";
  if (x.is_integer()) return std::to_string(x.as_integer());
  if (x.is_floating()) return shortest(x.as_floating());
  return "[...]";
}

double number_of(const std::string& source, const Leaf& l) {
  const toml::value& x = *l.second;
  if (x.is_integer()) return static_cast<double>(x.as_integer());
  if (x.is_floating() && std::isfinite(x.as_floating())) return x.as_floating();
  bad(source, line_of(x), l.first + " must be a finite number, got " + text_of(x));
}

int64_t integer_of(const std::string& source, const Leaf& l, int64_t min, int64_t max) {
  const toml::value& x = *l.second;
  if (!x.is_integer() || x.as_integer() < min || x.as_integer() > max)
    bad(source, line_of(x),
        l.first + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
            text_of(x));
  return x.as_integer();
}

bool bool_of(const std::string& source, const Leaf& l) {
  if (!l.second->is_boolean())
    bad(source, line_of(*l.second), l.first + " must be true or false, got " + text_of(*l.second));
  return l.second->as_boolean();
}

// F3 writes the location as strings (any length); a number is accepted by its value.
std::string decimal_of(const std::string& source, const Leaf& l, bool positive) {
  const toml::value& x = *l.second;
  if (!x.is_string() && !x.is_integer() && !x.is_floating())
    bad(source, line_of(x), l.first + " must be a decimal string, got " + text_of(x));
  return positive ? positive_decimal_field(source, line_of(x), l.first, text_of(x))
                  : decimal_field(source, line_of(x), l.first, text_of(x));
}

// [[formula]]: one table per phase of a hybrid (F3's phybrid1), as formula text (formula.h): either
// `opcodes` (in formula.h's op names, F3's op_absx ... without "op_", assumed and not checked
// against F3 files; when given they replace the other keys), or abs_x, abs_y, neg_x,
// neg_y (in that order, as F3's hybrid_plain applies them) then z^power by squaring, then + c.
// Phases are joined by ',' and iterate in F3's order (formula.h). Returns "" for plain z^2 + c.
std::string f3_formula(const std::string& source, const toml::value& f) {
  if (!f.is_array()) bad(source, line_of(f), "formula must be an array of tables ([[formula]])");
  std::string text;
  int k = 0;
  for (const toml::value& phase : f.as_array()) {
    const std::string name = "formula[" + std::to_string(++k) + "]";
    if (!phase.is_table()) bad(source, line_of(phase), name + " must be a table");
    const auto& t = phase.as_table();
    std::string ops;
    auto it = t.find("opcodes");
    if (it != t.end() && it->second.is_string() && !trim(it->second.as_string().str).empty()) {
      ops = it->second.as_string().str;
      try {
        formula::parse_formula(ops);
      } catch (const formula::FormulaError& e) {
        bad(source, line_of(it->second), name + ".opcodes = \"" + ops + "\": " + e.what());
      }
    } else {
      bool abs_x = false, abs_y = false, neg_x = false, neg_y = false;
      int64_t power = 2;
      for (const auto& kv : t) {
        const std::string key = name + "." + kv.first;
        const toml::value& x = kv.second;
        if (kv.first == "abs_x" || kv.first == "abs_y" || kv.first == "neg_x" || kv.first == "neg_y") {
          if (!x.is_boolean()) bad(source, line_of(x), key + " must be true or false, got " + text_of(x));
          (kv.first == "abs_x"   ? abs_x
           : kv.first == "abs_y" ? abs_y
           : kv.first == "neg_x" ? neg_x
                                 : neg_y) = x.as_boolean();
        } else if (kv.first == "power") {
          if (!x.is_integer() || x.as_integer() < 2 || x.as_integer() > 64)
            bad(source, line_of(x), key + " = " + text_of(x) + ": deepscope computes powers 2 to 64");
          power = x.as_integer();
        } else if (kv.first != "opcodes") {
          bad(source, line_of(x), key + ": unknown formula key, so deepscope cannot tell the formula");
        }
      }
      if (abs_x) ops += "absx ";
      if (abs_y) ops += "absy ";
      if (neg_x) ops += "negx ";
      if (neg_y) ops += "negy ";
      // z^power by squaring: the bits below the top one, a square each and a multiply for a 1.
      int top = 0;
      while ((power >> (top + 1)) != 0) ++top;
      if ((power & (power - 1)) != 0) ops += "store ";
      for (int b = top - 1; b >= 0; --b) ops += (power >> b) & 1 ? "sqr mul " : "sqr ";
      ops += "add";
    }
    text += (text.empty() ? "" : ",") + ops;
  }
  return formula_field(source, line_of(f), text);
}

}  // namespace

PixelMap f3_pixel_map(bool reflect, double rotate, double stretch_angle, double stretch_amount,
                      bool vertical_flip) {
  // F3 (param.cc, restring_vals; matrix.h, polar2 -> mat2; hybrid.cc, the pixel loop): pixel
  // (i, j) computed at u = i + 0.5 - W/2, v = j + 0.5 - H/2, c = centre + s K (u, v), and the image
  // saved with its rows flipped (image_rgb(..., vflip)), so v = ky/2 and the map is K itself:
  // K = Rot(g r) Rot(a) diag(f, 1/f) Rot(-a) diag(1, g), g = -1 when reflected, f = 2^(amount/100).
  // vertical_flip (F3 3.1, 2025: batch.cc and gui.cc save with vflip = !vertical_flip) saves the rows
  // as computed: v = -ky/2, the map K D.
  const double g = reflect ? -1.0 : 1.0;
  const double r = g * rotate * kDegree, a = stretch_angle * kDegree, f = std::exp2(stretch_amount / 100);
  const PixelMap k = mul(mul(mul(mul(rotation(r), rotation(a)), PixelMap{f, 0.0, 0.0, 1 / f}), rotation(-a)),
                         PixelMap{1.0, 0.0, 0.0, g});
  return vertical_flip ? mul(k, kFlipY) : k;
}

namespace location_detail {

Location parse_f3_toml(const std::string& text, const std::string& source) {
  const std::size_t bad_byte = invalid_utf8_at(text);
  if (bad_byte != std::string::npos)
    bad(source, 1 + static_cast<int>(std::count(text.begin(), text.begin() + bad_byte, '\n')),
        "not valid TOML: byte " + std::to_string(bad_byte + 1) + " is not UTF-8 (TOML files are UTF-8)");
  const TomlShape shape = toml_shape(text);
  if (shape.nesting > kMaxTomlNesting)
    bad(source, 0,
        "arrays, inline tables and dotted keys nest " + std::to_string(shape.nesting) +
            " deep, more than the " + std::to_string(kMaxTomlNesting) +
            " deepscope reads (a Fraktaler-3 file nests 3 deep)");
  if (shape.binary_digits > 62)
    bad(source, 0,
        "a binary integer (0b...) of " + std::to_string(shape.binary_digits) +
            " digits: deepscope reads at most 62");
  toml::value root;
  try {
    std::istringstream in(text);
    root = toml::parse(in, source);
  } catch (const toml::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    bad(source, static_cast<int>(e.location().line()), "not valid TOML: " + what);
  } catch (const std::exception& e) {
    bad(source, 0, std::string("not valid TOML: ") + e.what());
  }
  std::vector<Leaf> leaves;
  collect(root, "", &leaves);
  std::sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) { return a.first < b.first; });

  // F3's defaults (param.h) for the keys it leaves out.
  Location loc;
  loc.re = "0";
  loc.im = "0";
  loc.zoom = "1";
  int64_t iterations = 1024;
  bool reflect = false, vertical_flip = false;
  double rotate = 0, stretch_angle = 0, stretch_amount = 0;
  std::vector<Leaf> limits;
  KeyReport report;
  for (const Leaf& l : leaves) {
    const KeyRule* rule = find_rule(kF3Keys, std::size(kF3Keys), l.first);
    const std::string& k = l.first;
    if (rule == nullptr || rule->use != KeyUse::kField) {
      report_key(rule, k, text_of(*l.second), source, line_of(*l.second), &report);
    } else if (k == "location.real") {
      loc.re = decimal_of(source, l, false);
    } else if (k == "location.imag") {
      loc.im = decimal_of(source, l, false);
    } else if (k == "location.zoom") {
      loc.zoom = decimal_of(source, l, true);
    } else if (k == "bailout.iterations") {
      iterations = integer_of(source, l, 1, INT64_MAX);  // 2^63 - 1 = mandel::kMaxIterations
    } else if (k == "bailout.maximum_perturb_iterations" || k == "bailout.maximum_bla_steps") {
      integer_of(source, l, 1, INT64_MAX);
      limits.push_back(l);
    } else if (k == "image.width") {
      loc.width = static_cast<int>(integer_of(source, l, 1, 1 << 20));
    } else if (k == "image.height") {
      loc.height = static_cast<int>(integer_of(source, l, 1, 1 << 20));
    } else if (k == "transform.reflect") {
      reflect = bool_of(source, l);
    } else if (k == "transform.vertical_flip") {
      vertical_flip = bool_of(source, l);
    } else if (k == "transform.exponential_map") {
      loc.exp_map = bool_of(source, l);
    } else if (k == "transform.rotate") {
      rotate = number_of(source, l);
    } else if (k == "transform.stretch_angle") {
      stretch_angle = number_of(source, l);
    } else if (k == "transform.stretch_amount") {
      stretch_amount = number_of(source, l);
      if (std::fabs(stretch_amount) > 2000)
        bad(source, line_of(*l.second),
            k + " must be within [-2000, 2000] cents (a stretch by 2^20 at most), got " + text_of(*l.second));
    } else if (k == "formula") {
      loc.formula = f3_formula(source, *l.second);
    }
  }
  loc.iterations = static_cast<uint64_t>(iterations);
  loc.pixel_map = f3_pixel_map(reflect, rotate, stretch_angle, stretch_amount, vertical_flip);
  check_pixel_map(source, 0, "the pixel map of the transform", loc.pixel_map);
  // F3 gives up on a pixel at these limits (it is then drawn as interior); deepscope has none.
  for (const Leaf& l : limits)
    if (l.second->as_integer() < iterations)
      report.colouring.push_back(l.first + "=" + text_of(*l.second) + " (< bailout.iterations)");
  add_warnings(report, source, &loc);
  return loc;
}

}  // namespace location_detail
}  // namespace ds::app
