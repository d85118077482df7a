// Pieces the location parsers share (location.cpp, location_kf.cpp, location_f3.cpp): error
// messages, field checks, and the shape of the per-format key tables.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "location.h"

namespace ds::app::location_detail {

// Throws IoError "location SOURCE[:LINE]: WHY".
[[noreturn]] void bad(const std::string& source, int line, const std::string& why);

// Field checks; each throws IoError naming the source, the line (when > 0) and the field.
std::string decimal_field(const std::string& source, int line, const std::string& key, const std::string& v);
// A decimal that is > 0 (zoom: 0, negative, NaN and infinity are refused).
std::string positive_decimal_field(const std::string& source, int line, const std::string& key,
                                   const std::string& v);
double real_field(const std::string& source, int line, const std::string& key, const std::string& v);
// A formula text (kernels/formula/formula.h) in canonical form, "" for plain z^2 + c; bad() otherwise.
std::string formula_field(const std::string& source, int line, const std::string& v);
// A location's Julia seed, both parts or neither, |c| <= 2 (formula::parse_julia); bad() otherwise.
void check_julia(const std::string& source, const Location& loc);
// A pixel map the views can use: its determinant (and so its orientation) must stand out of the
// rounding of its products, |det| > 2^-44 (|m0 m3| + |m1 m2|), which holds for a rotation composed
// with a stretch by up to 2^20. Throws IoError naming `what` otherwise (singular, overflowing, or so
// stretched that double precision cannot tell its determinant's sign).
void check_pixel_map(const std::string& source, int line, const std::string& what, const PixelMap& m);
int64_t integer_field(const std::string& source, int line, const std::string& key, const std::string& v,
                      int64_t min, int64_t max);
// An iteration count (mandel::parse_iterations: an exact integer in [1, 2^63 - 1], "5e9" too).
uint64_t iterations_field(const std::string& source, int line, const std::string& key, const std::string& v);

// What a key of a foreign format does in deepscope. The tables (one per format) list every key the
// program writes or reads, so nothing is dropped without a word.
enum class KeyUse {
  kField,      // read by the parser itself (centre, zoom, iterations, size, transform)
  kComputes,   // changes what is computed: any value but `neutral` is an error (IoError)
  kColouring,  // colouring or escape test, not reproduced: warned about unless equal to `neutral`
  kNoEffect,   // no effect on the picture (version, reference hints, output names)
  kKfColour,   // KF colouring reproduced by the "kf" shader (Location::kf_colouring)
};
struct KeyRule {
  const char* key;  // exact, or a prefix ending in '.' (F3 sections)
  KeyUse use;
  const char* neutral;  // kComputes/kColouring: the value that changes nothing; "*": always warn;
                        // nullptr: a detail of another key (its switch is what gets listed)
};

// The rule for `key` (ASCII case-insensitive; prefixes match), or nullptr for an unknown key.
const KeyRule* find_rule(const KeyRule* rules, size_t n, const std::string& key);
// True when `value` equals `neutral`, numerically where both parse as numbers.
bool is_neutral(const std::string& value, const char* neutral);
// Sorts colouring and unknown keys into the location's warnings (one line each kind) and throws
// for kComputes keys whose value is not neutral.
struct KeyReport {
  std::vector<std::string> colouring, unknown;
};
void report_key(const KeyRule* rule, const std::string& key, const std::string& value,
                const std::string& source, int line, KeyReport* r);
void add_warnings(const KeyReport& r, const std::string& source, Location* loc);

std::string lower(std::string s);
std::string trim(const std::string& s);
// The shortest decimal that reads back as exactly `x` ("%.17g" at most).
std::string shortest(double x);
bool same_map(const PixelMap& a, const PixelMap& b, double tol);
// -d for a decimal string d (the sign flipped, the digits kept).
std::string negated(const std::string& d);
// Row-major 2x2 algebra for the programs' transforms: a b, the rotation by t radians
// (counter-clockwise), and diag(1, -1).
PixelMap mul(const PixelMap& a, const PixelMap& b);
PixelMap rotation(double t);
constexpr PixelMap kFlipY = {1.0, 0.0, 0.0, -1.0};

// Format-specific parsers, called by parse_location once it has told the syntax apart.
Location parse_kfr(const std::string& text, const std::string& source);
Location parse_f3_toml(const std::string& text, const std::string& source);

}  // namespace ds::app::location_detail
