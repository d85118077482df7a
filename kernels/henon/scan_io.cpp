// The sink scan's files: the long-format CSV and the JSON that `deepscope henon scan` writes, and
// the CSV read back (the window's scan view opens files the batch command wrote).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "henon.h"

namespace ds::henon {

std::string detail::format_double(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string scan_csv(const ScanResult& r) {
  std::string s = "a_index,b_index,a,b,period,count,sink,x,y\n";
  for (const ParamResult& p : r.params) {
    if (!p.done) continue;
    const std::string head = std::to_string(p.ia) + "," + std::to_string(p.ib) + "," + p.a + "," + p.b + ",";
    if (p.escaped) s += head + "-1," + std::to_string(p.escaped) + ",0,,\n";
    if (p.aperiodic) s += head + "0," + std::to_string(p.aperiodic) + ",0,,\n";
    for (const CycleFound& c : p.cycles)
      s += head + std::to_string(c.period) + "," + std::to_string(c.count) + "," + (c.sink ? "1" : "0") +
           "," + detail::format_double(c.x) + "," + detail::format_double(c.y) + "\n";
  }
  return s;
}

std::string scan_json(const ScanParams& p, const ScanResult& r) {
  auto q = [](const std::string& v) { return "\"" + v + "\""; };
  std::ostringstream s;
  int64_t done = 0, with_sink = 0;
  for (const ParamResult& x : r.params) {
    done += x.done ? 1 : 0;
    bool sink = false;
    for (const CycleFound& c : x.cycles) sink = sink || c.sink;
    with_sink += sink ? 1 : 0;
  }
  s << "{\n  \"arith\": " << q(arith_name(p.arith)) << ",\n  \"a_min\": " << q(p.a_min)
    << ", \"a_step\": " << q(p.a_step) << ", \"na\": " << p.na << ",\n  \"b_min\": " << q(p.b_min)
    << ", \"b_step\": " << q(p.b_step) << ", \"nb\": " << p.nb << ",\n  \"n_init\": " << p.n_init
    << ", \"init_box\": [" << detail::format_double(p.init_box[0]) << ", "
    << detail::format_double(p.init_box[1]) << ", " << detail::format_double(p.init_box[2]) << ", "
    << detail::format_double(p.init_box[3]) << "],\n  \"n_transient\": " << p.n_transient
    << ", \"p_max\": " << p.p_max << ", \"tol\": " << q(p.tol)
    << ", \"bound\": " << detail::format_double(p.bound) << ",\n  \"parameters_done\": " << done
    << ", \"parameters_with_sink\": " << with_sink << ",\n  \"results\": [";
  bool first = true;
  for (const ParamResult& x : r.params) {
    if (!x.done) continue;
    s << (first ? "\n" : ",\n") << "    {\"a_index\": " << x.ia << ", \"b_index\": " << x.ib
      << ", \"a\": " << q(x.a) << ", \"b\": " << q(x.b) << ", \"escaped\": " << x.escaped
      << ", \"aperiodic\": " << x.aperiodic << ", \"cycles\": [";
    for (std::size_t i = 0; i < x.cycles.size(); ++i) {
      const CycleFound& c = x.cycles[i];
      s << (i ? ", " : "") << "{\"period\": " << c.period << ", \"count\": " << c.count
        << ", \"sink\": " << (c.sink ? "true" : "false") << ", \"x\": " << detail::format_double(c.x)
        << ", \"y\": " << detail::format_double(c.y) << "}";
    }
    s << "]}";
    first = false;
  }
  s << "\n  ]\n}\n";
  return s.str();
}

namespace {

// Splits one CSV line (no quoting: the scan's fields never contain commas).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> f;
  std::size_t start = 0;
  for (;;) {
    const std::size_t c = line.find(',', start);
    f.push_back(line.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) return f;
    start = c + 1;
  }
}

int64_t to_int(const std::string& s, int line) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0')
    throw std::invalid_argument("scan CSV line " + std::to_string(line) + ": bad integer \"" + s + "\"");
  return v;
}

}  // namespace

ScanResult parse_scan_csv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line.rfind("a_index,b_index,a,b,period,count,sink,x,y", 0) != 0)
    throw std::invalid_argument(
        "not a deepscope henon scan CSV (header a_index,b_index,a,b,period,count,sink,x,y)");
  ScanResult r;
  int64_t na = 0, nb = 0;
  std::vector<ParamResult> rows;  // one per parameter, in file order (rows of one parameter are adjacent)
  int n = 1;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> f = split_csv(line);
    if (f.size() != 9)
      throw std::invalid_argument("scan CSV line " + std::to_string(n) + ": expected 9 fields");
    const int64_t ia = to_int(f[0], n), ib = to_int(f[1], n), period = to_int(f[4], n),
                  count = to_int(f[5], n);
    // Counts are int32 in ScanResult: a larger one must be refused, not wrapped to a negative count.
    if (ia < 0 || ib < 0 || ia > kMaxScanSide || ib > kMaxScanSide || count < 0 || count > INT32_MAX ||
        period < -1 || period > kMaxPeriod)
      throw std::invalid_argument("scan CSV line " + std::to_string(n) + ": value out of range");
    if (rows.empty() || rows.back().ia != ia || rows.back().ib != ib) {
      ParamResult p;
      p.done = true;
      p.ia = ia;
      p.ib = ib;
      p.a = f[2];
      p.b = f[3];
      rows.push_back(std::move(p));
    }
    ParamResult& p = rows.back();
    if (period == -1) {
      p.escaped = static_cast<int32_t>(count);
    } else if (period == 0) {
      p.aperiodic = static_cast<int32_t>(count);
    } else {
      CycleFound c;
      c.period = static_cast<int32_t>(period);
      c.count = static_cast<int32_t>(count);
      c.sink = f[6] == "1";
      c.x = std::strtod(f[7].c_str(), nullptr);
      c.y = std::strtod(f[8].c_str(), nullptr);
      p.cycles.push_back(c);
    }
    na = std::max(na, ia + 1);
    nb = std::max(nb, ib + 1);
  }
  if (rows.empty()) throw std::invalid_argument("scan CSV has no results");
  if (na * nb > kMaxScanParams) throw std::invalid_argument("scan CSV grid too large");
  // Parameters may be left out (they stay not done), but the grid must be backed by the file's
  // rows, so that one damaged index cannot ask for gigabytes (a fuzzer's 150-byte file asked for 36 GB).
  const int64_t backed = std::max<int64_t>(64 * static_cast<int64_t>(rows.size()), 1 << 20);
  if (na * nb > backed)
    throw std::invalid_argument("scan CSV: its indices span " + std::to_string(na) + " x " +
                                std::to_string(nb) + " parameters but the file holds results for " +
                                std::to_string(rows.size()) + " (a damaged a_index or b_index?)");
  r.params.resize(static_cast<std::size_t>(na * nb));
  for (ParamResult& p : r.params) p.done = false;
  for (ParamResult& p : rows) {
    const std::size_t k = static_cast<std::size_t>(p.ib * na + p.ia);
    r.params[k] = std::move(p);
  }
  r.na = na;
  r.nb = nb;
  return r;
}

}  // namespace ds::henon
