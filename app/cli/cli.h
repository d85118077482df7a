// A small command-line parser shared by every subcommand: "--name value", "--name=value" and
// "--flag". Unknown or malformed options raise UsageError, which main turns into exit code 2.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ds::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `valued` names the options that take a value, `flags` those that do not (names without "--").
  // An option given twice is a UsageError naming it (the last value would silently win), except
  // the valued options in `repeatable`, whose every value get_all() returns.
  Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
       const std::set<std::string>& flags, const std::set<std::string>& repeatable = {});

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
  std::string require(const std::string& name) const;
  int64_t get_int(const std::string& name, int64_t fallback, int64_t min, int64_t max) const;
  double get_double(const std::string& name, double fallback) const;
  // A count written as an integer or in scientific notation ("1e10"), exact and within [lo, hi].
  int64_t get_count(const std::string& name, int64_t fallback, int64_t lo, int64_t hi) const;
  // An iteration count (mandel::parse_iterations: "5000000000", "5e9"), exact, in [1, 2^63 - 1].
  uint64_t get_iterations(const std::string& name, uint64_t fallback) const;
  // A size in bytes: a number with an optional binary suffix K, M, G or T ("512M", "8G", "1.5G"),
  // at least 1 MiB.
  uint64_t get_bytes(const std::string& name, uint64_t fallback) const;
  // A number kept as text for an exact parser (MPFR, decimal.h), which would take "nan" or "inf"
  // (any case, MPFR's "@NaN@" too): those are refused here, naming the option. Other syntax is
  // left to that parser.
  std::string get_finite_text(const std::string& name, const std::string& fallback) const;
  bool flag(const std::string& name) const { return has(name); }
  // Every value of a repeatable option, in order (get() gives the last).
  std::vector<std::string> get_all(const std::string& name) const {
    auto it = all_.find(name);
    return it == all_.end() ? std::vector<std::string>{} : it->second;
  }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::vector<std::string>> all_;
  std::vector<std::string> positional_;
};

// Parses "WxH" (e.g. "1920x1080"); both in [1, max_side]. Throws UsageError.
void parse_size(const std::string& s, int max_side, int* w, int* h);
// Strict whole-string integer/double parsing; throws UsageError naming the option.
int64_t parse_int(const std::string& option, const std::string& s);
double parse_double(const std::string& option, const std::string& s);
// Throws UsageError naming `option` when `s` spells a NaN or an infinity.
void check_finite_text(const std::string& option, const std::string& s);

}  // namespace ds::cli
