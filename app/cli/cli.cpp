// Command-line parsing for every subcommand.
#include "cli.h"

#include "kernels/mandelbrot/view.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ds::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& flags, const std::set<std::string>& repeatable) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      std::string name = a.substr(2), value;
      bool inline_value = false;
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        inline_value = true;
      }
      if ((valued.count(name) || flags.count(name)) && values_.count(name) && !repeatable.count(name))
        throw UsageError("option --" + name + " is given twice (give it once)");
      if (valued.count(name)) {
        if (!inline_value) {
          if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
          value = argv[++i];
        }
        values_[name] = value;
        all_[name].push_back(value);
      } else if (flags.count(name)) {
        if (inline_value) throw UsageError("option --" + name + " takes no value");
        values_[name] = "";
      } else {
        throw UsageError("unknown option --" + name);
      }
    } else if (a.size() > 1 && a[0] == '-' && !(a[1] >= '0' && a[1] <= '9') && a[1] != '.') {
      throw UsageError("unknown option " + a);
    } else {
      positional_.push_back(a);
    }
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::string Args::require(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw UsageError("missing required option --" + name);
  return it->second;
}

int64_t Args::get_int(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
  if (!has(name)) return fallback;
  int64_t v = parse_int("--" + name, get(name, ""));
  if (v < min || v > max)
    throw UsageError("--" + name + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                     ", got " + std::to_string(v));
  return v;
}

double Args::get_double(const std::string& name, double fallback) const {
  return has(name) ? parse_double("--" + name, get(name, "")) : fallback;
}

std::string Args::get_finite_text(const std::string& name, const std::string& fallback) const {
  if (!has(name)) return fallback;
  const std::string s = get(name, "");
  check_finite_text("--" + name, s);
  return s;
}

int64_t Args::get_count(const std::string& name, int64_t fallback, int64_t lo, int64_t hi) const {
  if (!has(name)) return fallback;
  const std::string s = get(name, "");
  const double v = parse_double("--" + name, s);
  if (!(v == std::floor(v)) || v < static_cast<double>(lo) || v > static_cast<double>(hi))
    throw UsageError("--" + name + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got \"" + s + "\"");
  return static_cast<int64_t>(v);
}

uint64_t Args::get_bytes(const std::string& name, uint64_t fallback) const {
  if (!has(name)) return fallback;
  const std::string s = get(name, "");
  std::string digits = s;
  double scale = 1;
  if (!digits.empty()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back())));
    const char* units = "KMGT";
    if (const char* at = std::strchr(units, u); at && u != 0) {
      scale = std::ldexp(1.0, 10 * static_cast<int>(at - units + 1));
      digits.pop_back();
    }
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  const double bytes = v * scale;
  if (digits.empty() || end != digits.c_str() + digits.size() || errno == ERANGE || !(bytes >= 1048576.0) ||
      !(bytes < 1.8e19))
    throw UsageError("--" + name + " must be a size of at least 1M (bytes, or with K, M, G or T), got \"" +
                     s + "\"");
  return static_cast<uint64_t>(bytes);
}

uint64_t Args::get_iterations(const std::string& name, uint64_t fallback) const {
  if (!has(name)) return fallback;
  const std::string s = get(name, "");
  uint64_t v = 0;
  if (!mandel::parse_iterations(s, &v))
    throw UsageError("--" + name + " must be an integer in [1, " + std::to_string(mandel::kMaxIterations) +
                     "], got \"" + s + "\"");
  return v;
}

int64_t parse_int(const std::string& option, const std::string& s) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE)
    throw UsageError(option + " expects an integer, got \"" + s + "\"");
  return v;
}

double parse_double(const std::string& option, const std::string& s) {
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v))
    throw UsageError(option + " expects a finite number, got \"" + s + "\"");
  return v;
}

void check_finite_text(const std::string& option, const std::string& s) {
  std::string low;
  for (char c : s) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Decimal and hex-float numbers have no 'n' or 'i': these spellings are the only ones to catch.
  if (low.find("nan") != std::string::npos)
    throw UsageError(option + " is not a number (\"" + s + "\"): give a finite value");
  if (low.find("inf") != std::string::npos)
    throw UsageError(option + " is infinite (\"" + s + "\"): give a finite value");
}

void parse_size(const std::string& s, int max_side, int* w, int* h) {
  size_t x = s.find('x');
  if (x == std::string::npos) throw UsageError("size must be WxH (e.g. 1024x768), got \"" + s + "\"");
  int64_t ww = parse_int("size width", s.substr(0, x));
  int64_t hh = parse_int("size height", s.substr(x + 1));
  if (ww < 1 || hh < 1 || ww > max_side || hh > max_side)
    throw UsageError("size " + s + " is outside 1x1 .. " + std::to_string(max_side) + "x" + std::to_string(max_side));
  *w = static_cast<int>(ww);
  *h = static_cast<int>(hh);
}

}  // namespace ds::cli
