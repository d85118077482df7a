// The periodic-orbit catalogue's resume file: a header naming the catalogue (format v2), then one
// block per finished chunk of work units (its counts and its orbits' enclosures as hex floats,
// exact), appended durably; a block without its end line (a crash mid-append) is ignored on loading.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "kernels/core/atomic_file.h"
#include "kernels/core/input_file.h"
#include "orbits_internal.h"

namespace ds::henon::orbits_detail {

namespace {

std::string hex(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

}  // namespace

void check_chunk_format(const std::string& path, const std::string& first_line) {
  const std::string ours = std::string(kChunkFormat) + " ";
  if (first_line.compare(0, ours.size(), ours) == 0) return;
  const std::string family = "deepscope henon orbits ";
  if (first_line.compare(0, family.size(), family) == 0) {
    const size_t end = first_line.find(' ', family.size());
    const std::string theirs = first_line.substr(family.size(), end - family.size());
    throw std::invalid_argument("chunk file \"" + path + "\" has resume format " + theirs.substr(0, 20) +
                                " (from another deepscope version; v1 held chunks of whole start cells), but this "
                                "version reads and writes only " + std::string(kChunkFormat + family.size()) +
                                ": remove it or name another with --chunk-file");
  }
  throw std::invalid_argument("chunk file \"" + path + "\" is not a henon orbits resume file (its first line is \"" +
                              first_line.substr(0, 200) + "\"); remove it or name another with --chunk-file");
}

std::string chunk_record(int64_t chunk, const std::vector<PeriodCounts>& counts,
                         const std::vector<CertifiedOrbit>& orbits) {
  std::ostringstream o;
  o << "chunk " << chunk << "\n";
  for (size_t n = 0; n < counts.size(); ++n) {
    const PeriodCounts& c = counts[n];
    if (!c.orbits && !c.outside && !c.undecided && !c.walks) continue;
    o << "c " << n + 1 << ' ' << c.orbits << ' ' << c.outside << ' ' << c.undecided << ' ' << c.walks << ' '
      << c.sinks << ' ' << c.saddles << "\n";
  }
  for (const CertifiedOrbit& r : orbits) {
    o << "o " << r.period;
    for (const Interval& x : r.x) o << ' ' << hex(x.lo) << ' ' << hex(x.hi);
    o << "\n";
  }
  o << "end " << chunk << "\n";
  return o.str();
}

std::map<int64_t, LoadedChunk> load_chunks(const std::string& path, const std::string& header, const Map& m,
                                           int period_max) {
  std::map<int64_t, LoadedChunk> out;
  const std::string text = read_input_file(path, "chunk file", kNoInputLimit);
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return out;
  check_chunk_format(path, line);
  if (line != header)
    throw std::invalid_argument("chunk file \"" + path + "\" belongs to another catalogue (its header is \"" +
                                line + "\"); remove it or name another with --chunk-file");
  bool open = false;
  int64_t current = -1;
  LoadedChunk block;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    bool ok = true;
    if (tag == "chunk") {
      open = bool(ls >> current);
      block = LoadedChunk{};
      block.counts.assign(size_t(period_max), PeriodCounts{});
      continue;
    }
    if (!open) continue;
    if (tag == "c") {
      int n = 0;
      PeriodCounts c;
      ok = bool(ls >> n >> c.orbits >> c.outside >> c.undecided >> c.walks >> c.sinks >> c.saddles) &&
           n >= 1 && n <= period_max;
      if (ok) block.counts[size_t(n - 1)] = c;
    } else if (tag == "o") {
      CertifiedOrbit o;
      ok = bool(ls >> o.period) && o.period >= 1 && o.period <= period_max;
      for (int k = 0; ok && k < o.period; ++k) {
        std::string lo, hi;
        ok = bool(ls >> lo >> hi);
        if (ok) o.x.push_back({std::strtod(lo.c_str(), nullptr), std::strtod(hi.c_str(), nullptr)});
      }
      if (ok) {
        for (int k = 0; k < o.period; ++k) o.y.push_back(m.b * o.x[size_t((k + o.period - 1) % o.period)]);
        classify(m, o);
        block.orbits.push_back(std::move(o));
      }
    } else if (tag == "end") {
      int64_t c = -1;
      ok = bool(ls >> c) && c == current;
      if (ok) out[current] = std::move(block);
      open = false;
      continue;
    } else {
      ok = false;
    }
    if (!ok) open = false;  // a damaged block is dropped and recomputed
  }
  return out;
}

}  // namespace ds::henon::orbits_detail
