// The TMD workspace's output files: a CSV row per case (sorted by argument) and a JSON document
// with the parameters, the counts, the hardest cases and every case (or, beside a binary case
// file, app/io/tmd_case_file.h, without every case). Both depend only on the search,
// not on how it ran (workers, ranks, shards, resumed chunks, timings: those go to stdout), so that a
// scaled-out run writes the single process's bytes.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

#include "tmd.h"
#include "lefevre.h"

namespace ds::tmd {
namespace {

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

std::string float_text(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  char b[48];
  std::snprintf(b, sizeof b, "%a", static_cast<double>(x));
  return b;
}

std::string num(double v) {
  if (std::isinf(v)) return "1e999";
  char b[40];
  std::snprintf(b, sizeof b, "%.6f", v);
  return b;
}


// Appends the case's fields as text without a stream or printf (4e6 cases: the JSON took 14 s
// through std::ostringstream, and snprintf still took most of the CSV's time). The results are
// printf's bytes ("0x%08x", "%a" of the float as a double, "%lld", "%.6f"): the tests compare them.
constexpr char kHex[] = "0123456789abcdef";

void append_hex32(std::string& o, uint32_t v) {
  char b[10] = {'0', 'x'};
  for (int i = 0; i < 8; ++i) b[2 + i] = kHex[(v >> (28 - 4 * i)) & 0xfu];
  o.append(b, sizeof b);
}

// printf's "%a" of the binary32 number `bits` converted to double: "-0x1.8p+3". Zeros, infinities
// and NaNs (never arguments of a case) go through printf.
void append_float_hex(std::string& o, uint32_t bits) {
  const uint32_t ex = (bits >> 23) & 0xffu;
  uint32_t m = bits & 0x7fffffu;
  if (ex == 0xffu || (ex == 0 && m == 0)) {
    o += float_text(bits);
    return;
  }
  int e = static_cast<int>(ex) - 127;
  if (ex == 0) {  // subnormal: normal as a double
    e = -126;
    while (!(m & 0x800000u)) {
      m <<= 1;
      --e;
    }
    m &= 0x7fffffu;
  }
  char b[32];
  int n = 0;
  if (bits >> 31) b[n++] = '-';
  b[n++] = '0';
  b[n++] = 'x';
  b[n++] = '1';
  if (m) {  // 23 bits are the first 6 hex digits of the double's 52 (the 6th holds 3 bits)
    b[n++] = '.';
    uint32_t f = m << 1;
    int digits = 6;
    while (!(f & 0xfu)) {
      f >>= 4;
      --digits;
    }
    for (int i = digits - 1; i >= 0; --i) b[n++] = kHex[(f >> (4 * i)) & 0xfu];
  }
  b[n++] = 'p';
  b[n++] = e < 0 ? '-' : '+';
  const auto r = std::to_chars(b + n, b + sizeof b, e < 0 ? -e : e);
  o.append(b, static_cast<std::size_t>(r.ptr - b));
}

void append_x_id(std::string& o, const Case& k) {
  if (!k.x_text.empty()) {
    o += k.x_text;
    return;
  }
  append_hex32(o, k.x);
}
void append_x_value(std::string& o, const Case& k) {
  if (!k.x_text.empty()) {
    o += k.x_text;
    return;
  }
  append_float_hex(o, k.x);
}
// "%.6f" (std::to_chars rounds the exact binary value as glibc's printf does), "1e999" for infinity.
void append_num(std::string& o, double v) {
  if (std::isinf(v)) {
    o += "1e999";
    return;
  }
  char b[400];
  const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::fixed, 6);
  o.append(b, static_cast<std::size_t>(r.ptr - b));
}
void append_int(std::string& o, int64_t v) {
  char b[24];
  const auto r = std::to_chars(b, b + sizeof b, v);
  o.append(b, static_cast<std::size_t>(r.ptr - b));
}

void case_json(std::string& o, const Case& k) {
  o += "{\"x\": \"";
  append_x_id(o, k);
  o += "\", \"x_value\": \"";
  append_x_value(o, k);
  o += "\", \"run\": ";
  append_int(o, k.run);
  o += k.run_capped ? ", \"run_capped\": true" : ", \"run_capped\": false";
  o += ", \"log2_dist\": ";
  append_num(o, k.log2_dist);
  o += ", \"fx\": \"";
  o += k.fx;
  o += "\"}";
}

// The JSON from its head (its first members, without a trailing comma): "hardest" (the 10 hardest
// cases), with `all` "all" (every case), and the closing brace.
void json_tail(const std::string& head, const std::vector<Case>& cases, bool all, std::string* out) {
  std::string& o = *out;
  o = head;
  const std::size_t per_case = 160 + (cases.empty() ? 0 : cases[0].fx.size() + 2 * cases[0].x_text.size());
  o.reserve(o.size() + (all ? cases.size() + 10 : 10) * per_case);
  o += ",\n  \"hardest\": [";
  const std::vector<Case> h = hardest(cases, 10);
  for (std::size_t i = 0; i < h.size(); ++i) {
    o += i ? ",\n    " : "\n    ";
    case_json(o, h[i]);
  }
  if (all) {
    o += "\n  ],\n  \"all\": [";
    for (std::size_t i = 0; i < cases.size(); ++i) {
      o += i ? ",\n    " : "\n    ";
      case_json(o, cases[i]);
    }
  }
  o += "\n  ]\n}\n";
}

}  // namespace

std::string cases_csv(const std::vector<Case>& cases) {
  std::string o = "x,x_value,run,run_capped,log2_dist,fx\n";
  o.reserve(o.size() +
            cases.size() * (64 + (cases.empty() ? 0 : cases[0].fx.size() + 2 * cases[0].x_text.size())));
  for (const Case& k : cases) {
    append_x_id(o, k);
    o += ',';
    append_x_value(o, k);
    o += ',';
    append_int(o, k.run);
    o += k.run_capped ? ",1," : ",0,";
    append_num(o, k.log2_dist);
    o += ',';
    o += k.fx;
    o += '\n';
  }
  return o;
}

std::string cases_csv(const ExhaustiveParams& p, const ExhaustiveResult& r) {
  (void)p;
  return cases_csv(r.cases);
}

std::string exhaustive_json_head(const ExhaustiveParams& p, const ExhaustiveResult& r) {
  std::ostringstream o;
  o << "{\n  \"search\": \"exhaustive\",\n  \"function\": \"" << func_name(p.func) << "\",\n  \"mode\": \""
    << mode_name(p.mode) << "\",\n  \"precision\": " << p.precision << ",\n  \"k\": " << p.k
    << ",\n  \"range\": [\"" << hex32(p.lo) << "\", \"" << hex32(p.hi) << "\"],\n  \"backend\": \""
    << backend_name(r.backend) << "\",\n  \"inputs\": " << r.inputs << ",\n  \"evaluated\": " << r.evaluated
    << ",\n  \"candidates\": " << r.candidates << ",\n  \"exact_results\": " << r.exact
    << ",\n  \"cases\": " << r.cases.size() << ",\n  \"chunks\": " << r.chunks;
  return o.str();
}

std::string cases_json(const ExhaustiveParams& p, const ExhaustiveResult& r) {
  return json_with_cases(exhaustive_json_head(p, r), r.cases, true);
}

std::string lefevre_json_head(const LefevreParams& p, const LefevreResult& r) {
  std::ostringstream o;
  o << "{\n  \"search\": \"" << search_name(p.search) << "\",\n  \"function\": \"" << func_name(p.func)
    << "\",\n  \"mode\": \"" << mode_name(p.mode) << "\",\n  \"precision\": " << p.precision
    << ",\n  \"k\": " << p.k << ",\n  \"range\": [\"" << hex32(p.lo) << "\", \"" << hex32(p.hi)
    << "\"],\n  \"log2_n\": " << p.log2_n << ",\n  \"split\": " << p.split
    << ",\n  \"div_threshold\": " << p.div_threshold << ",\n  \"backend\": \"" << backend_name(p.backend)
    << "\",\n  \"arguments\": " << r.arguments << ",\n  \"phase1_intervals\": " << r.phase1
    << ",\n  \"phase2_arguments\": " << r.phase2_args << ",\n  \"phase2_subintervals\": " << r.phase2
    << ",\n  \"phase3_subintervals\": " << r.phase3 << ",\n  \"phase3_arguments\": " << r.phase3_args
    << ",\n  \"direct_arguments\": " << r.direct_args << ",\n  \"candidates\": " << r.candidates
    << ",\n  \"cases\": " << r.cases.size() << ",\n  \"iterations\": {\"min\": " << r.iters.min
    << ", \"max\": " << r.iters.max << ", \"mean\": " << num(r.iters.mean) << ", \"warps\": " << r.iters.warps
    << ", \"mean_nmdm\": " << num(r.iters.mean_nmdm) << ", \"nmdm_histogram_5pct_bins\": [";
  for (std::size_t i = 0; i < r.iters.nmdm_hist.size(); ++i) o << (i ? ", " : "") << r.iters.nmdm_hist[i];
  o << "]}";
  return o.str();
}

std::string lefevre_json(const LefevreParams& p, const LefevreResult& r) {
  return json_with_cases(lefevre_json_head(p, r), r.cases, true);
}

std::string json_with_cases(const std::string& head, const std::vector<Case>& cases, bool all) {
  std::string out;
  json_tail(head, cases, all, &out);
  return out;
}

}  // namespace ds::tmd
