// The TMD workspace's output files: a CSV row per case (sorted by argument) and a JSON document
// with the parameters, the counts, the hardest cases and every case. Both depend only on the search,
// not on how it ran (workers, ranks, shards, resumed chunks, timings: those go to stdout), so that a
// scaled-out run writes the single process's bytes.
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


// Appends the case's fields as text without a stream (4e6 cases: the JSON took 14 s through
// std::ostringstream and a copy of every case for the ten hardest).
void append_x_id(std::string& o, const Case& k) {
  if (!k.x_text.empty()) {
    o += k.x_text;
    return;
  }
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", k.x);
  o += b;
}
void append_x_value(std::string& o, const Case& k) {
  if (!k.x_text.empty()) {
    o += k.x_text;
    return;
  }
  o += float_text(k.x);
}
void append_num(std::string& o, double v) {
  if (std::isinf(v)) {
    o += "1e999";
    return;
  }
  char b[40];
  const int n = std::snprintf(b, sizeof b, "%.6f", v);
  o.append(b, static_cast<std::size_t>(n));
}
void append_int(std::string& o, int64_t v) {
  char b[24];
  const int n = std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
  o.append(b, static_cast<std::size_t>(n));
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

// The JSON's last two members, "hardest" (the 10 hardest cases) and "all", and its closing brace.
void cases_json_tail(std::ostringstream& head, const std::vector<Case>& cases, std::string* out) {
  std::string& o = *out;
  o = head.str();
  o.reserve(o.size() + cases.size() * (160 + (cases.empty() ? 0 : cases[0].fx.size() + 2 * cases[0].x_text.size())));
  const std::vector<Case> h = hardest(cases, 10);
  for (std::size_t i = 0; i < h.size(); ++i) {
    o += i ? ",\n    " : "\n    ";
    case_json(o, h[i]);
  }
  o += "\n  ],\n  \"all\": [";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    o += i ? ",\n    " : "\n    ";
    case_json(o, cases[i]);
  }
  o += "\n  ]\n}\n";
}

}  // namespace

std::string cases_csv(const ExhaustiveParams& p, const ExhaustiveResult& r) {
  (void)p;
  std::string o = "x,x_value,run,run_capped,log2_dist,fx\n";
  o.reserve(o.size() + r.cases.size() * (40 + (r.cases.empty() ? 0 : r.cases[0].fx.size() + 2 * r.cases[0].x_text.size())));
  for (const Case& k : r.cases) {
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

std::string cases_json(const ExhaustiveParams& p, const ExhaustiveResult& r) {
  std::ostringstream o;
  o << "{\n  \"search\": \"exhaustive\",\n  \"function\": \"" << func_name(p.func) << "\",\n  \"mode\": \""
    << mode_name(p.mode) << "\",\n  \"precision\": " << p.precision << ",\n  \"k\": " << p.k
    << ",\n  \"range\": [\"" << hex32(p.lo) << "\", \"" << hex32(p.hi) << "\"],\n  \"backend\": \""
    << backend_name(r.backend) << "\",\n  \"inputs\": " << r.inputs << ",\n  \"evaluated\": " << r.evaluated
    << ",\n  \"candidates\": " << r.candidates << ",\n  \"exact_results\": " << r.exact
    << ",\n  \"cases\": " << r.cases.size() << ",\n  \"chunks\": " << r.chunks << ",\n  \"hardest\": [";
  std::string out;
  cases_json_tail(o, r.cases, &out);
  return out;
}

std::string lefevre_json(const LefevreParams& p, const LefevreResult& r) {
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
  o << "]},\n  \"hardest\": [";
  std::string out;
  cases_json_tail(o, r.cases, &out);
  return out;
}

}  // namespace ds::tmd
