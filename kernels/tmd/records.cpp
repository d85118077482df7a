// The TMD searches' chunk payloads (records.h): written with every double to 17 digits, so that a
// payload read back gives the same result bits as the chunk computed in this process.
#include "records.h"

#include "lefevre.cuh"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "lefevre.h"

namespace ds::tmd::records {
namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::runtime_error("malformed TMD chunk record: " + what);
}

std::string g17(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// The whitespace-separated fields of one line, converted with full-token checks.
class Fields {
 public:
  Fields(const std::string& line, std::size_t want, const char* what) : what_(what) {
    std::istringstream in(line);
    std::string t;
    while (in >> t) f_.push_back(t);
    if (f_.size() != want)
      bad(std::string(what) + " has " + std::to_string(f_.size()) + " fields, expected " +
          std::to_string(want));
  }
  const std::string& str(std::size_t i) const { return f_[i]; }
  int64_t i64(std::size_t i, int64_t lo = 0) const {
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(f_[i].c_str(), &end, 10);
    if (errno || end == f_[i].c_str() || *end || v < lo) field(i);
    return v;
  }
  uint64_t u64(std::size_t i, int base = 10) const {
    errno = 0;
    char* end = nullptr;
    if (f_[i].empty() || f_[i][0] == '-') field(i);
    const unsigned long long v = std::strtoull(f_[i].c_str(), &end, base);
    if (errno || end == f_[i].c_str() || *end) field(i);
    return v;
  }
  uint32_t u32(std::size_t i, int base = 10) const {
    const uint64_t v = u64(i, base);
    if (v > 0xffffffffu) field(i);
    return static_cast<uint32_t>(v);
  }
  double f64(std::size_t i) const {  // also "inf" (a distance of exactly 0 at 256 bits)
    char* end = nullptr;
    const double v = std::strtod(f_[i].c_str(), &end);
    if (end == f_[i].c_str() || *end || std::isnan(v)) field(i);
    return v;
  }

 private:
  [[noreturn]] void field(std::size_t i) const {
    bad(std::string(what_) + " field " + std::to_string(i + 1) + " \"" + f_[i].substr(0, 80) + "\"");
  }
  const char* what_;
  std::vector<std::string> f_;
};

std::vector<std::string> lines_of(const std::string& payload) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b < payload.size()) {
    const std::size_t e = payload.find('\n', b);
    if (e == std::string::npos) bad("the last line has no newline");
    out.push_back(payload.substr(b, e - b));
    b = e + 1;
  }
  if (out.empty()) bad("empty payload");
  return out;
}

// n >= 0 (Fields::i64's bound); compared as counts, since n + 1 overflows for n = INT64_MAX.
void check_case_count(const std::vector<std::string>& lines, int64_t n) {
  if (static_cast<uint64_t>(n) != lines.size() - 1)
    bad(std::to_string(n) + " cases announced, " + std::to_string(lines.size() - 1) + " lines follow");
}

}  // namespace

std::string exhaustive_text(const ExhaustiveChunk& r) {
  std::ostringstream o;
  o << r.evaluated << " " << r.candidates << " " << r.exact << " " << r.cases.size() << " "
    << g17(r.eval_seconds) << " " << g17(r.mpfr_seconds) << "\n";
  char buf[16];
  for (const Case& k : r.cases) {
    std::snprintf(buf, sizeof buf, "0x%08x", k.x);
    o << buf << " " << k.run << " " << (k.run_capped ? 1 : 0) << " " << g17(k.log2_dist) << " " << k.fx
      << "\n";
  }
  return o.str();
}

ExhaustiveChunk parse_exhaustive(const std::string& payload) {
  const std::vector<std::string> lines = lines_of(payload);
  const Fields h(lines[0], 6, "counts line");
  ExhaustiveChunk r;
  r.evaluated = h.i64(0);
  r.candidates = h.i64(1);
  r.exact = h.i64(2);
  const int64_t n = h.i64(3);
  r.eval_seconds = h.f64(4);
  r.mpfr_seconds = h.f64(5);
  check_case_count(lines, n);
  if (n > r.candidates) bad("more cases than candidates");
  for (int64_t i = 1; i <= n; ++i) {
    const Fields f(lines[static_cast<std::size_t>(i)], 5, "case line");
    if (f.str(0).size() != 10 || f.str(0).compare(0, 2, "0x") != 0) bad("case argument \"" + f.str(0) + "\"");
    Case k;
    k.x = f.u32(0, 16);
    k.run = static_cast<int32_t>(f.i64(1));
    k.run_capped = f.i64(2) != 0;
    k.log2_dist = f.f64(3);
    k.fx = f.str(4);
    r.cases.push_back(std::move(k));
  }
  return r;
}

void LefevreBlock::add_iters(const std::vector<uint32_t>& it) {
  lb::WarpSummary s = lb::empty_summary();
  for (std::size_t w = 0; w < it.size(); w += 32)
    lb::add_warp(&s, lb::warp_iters(&it[w], static_cast<int>(std::min<std::size_t>(32, it.size() - w))));
  add_summary(s);
}

void LefevreBlock::add_summary(const lb::WarpSummary& s) {
  if (s.warps == 0) return;
  iter_min = s.min;
  iter_max = s.max;
  iter_sum = static_cast<double>(s.iter_sum);  // exact below 2^53 (a block's count)
  iter_count = static_cast<int64_t>(s.iter_count);
  // One rounding of the exact integer sum: the same double from every backend.
  nmdm_sum = std::ldexp(static_cast<double>(s.nmdm_fixed), -lb::kNmdmBits);
  warps = static_cast<int64_t>(s.warps);
  for (std::size_t i = 0; i < hist.size(); ++i) hist[i] = static_cast<int64_t>(s.hist[i]);
}

std::string lefevre_text(const LefevreBlock& b) {
  std::ostringstream o;
  o << b.phase1 << " " << b.phase2 << " " << b.phase2_args << " " << b.phase3 << " " << b.phase3_args << " "
    << b.direct << " " << b.candidates << " " << b.iter_count << " " << b.warps << " " << b.iter_min << " "
    << b.iter_max << " " << g17(b.iter_sum) << " " << g17(b.nmdm_sum);
  for (int64_t h : b.hist) o << " " << h;
  o << " " << g17(b.seconds_poly) << " " << g17(b.seconds_phase1) << " " << g17(b.seconds_phase2) << " "
    << g17(b.seconds_phase3) << " " << g17(b.seconds_mpfr) << " " << b.cases.size() << "\n";
  for (const Case& c : b.cases)
    o << c.index << " " << c.x << " " << c.run << " " << (c.run_capped ? 1 : 0) << " " << g17(c.log2_dist)
      << " " << (c.x_text.empty() ? "-" : c.x_text) << " " << c.fx << "\n";
  return o.str();
}

LefevreBlock parse_lefevre(const std::string& payload) {
  const std::vector<std::string> lines = lines_of(payload);
  LefevreBlock b;
  const std::size_t nh = b.hist.size();
  const Fields h(lines[0], 13 + nh + 6, "counts line");
  int64_t* counts[] = {&b.phase1, &b.phase2,     &b.phase2_args, &b.phase3, &b.phase3_args,
                       &b.direct, &b.candidates, &b.iter_count,  &b.warps};
  std::size_t i = 0;
  for (int64_t* c : counts) *c = h.i64(i++);
  b.iter_min = h.u32(i++);
  b.iter_max = h.u32(i++);
  b.iter_sum = h.f64(i++);
  b.nmdm_sum = h.f64(i++);
  for (int64_t& x : b.hist) x = h.i64(i++);
  double* secs[] = {&b.seconds_poly, &b.seconds_phase1, &b.seconds_phase2, &b.seconds_phase3,
                    &b.seconds_mpfr};
  for (double* s : secs) *s = h.f64(i++);
  const int64_t n = h.i64(i++);
  check_case_count(lines, n);
  if (n > b.candidates) bad("more cases than candidates");
  for (int64_t j = 1; j <= n; ++j) {
    const Fields f(lines[static_cast<std::size_t>(j)], 7, "case line");
    Case c;
    c.index = f.u64(0);
    c.x = f.u32(1);
    c.run = static_cast<int32_t>(f.i64(2));
    c.run_capped = f.i64(3) != 0;
    c.log2_dist = f.f64(4);
    c.x_text = f.str(5) == "-" ? "" : f.str(5);
    c.fx = f.str(6);
    b.cases.push_back(std::move(c));
  }
  return b;
}

}  // namespace ds::tmd::records
