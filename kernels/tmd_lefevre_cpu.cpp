// The TMD workspace's Lefèvre/regular search on the CPU backend: the phases' per-item loops on
// all cores, the search names and the NMDM of a warp.
#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "cpu_parallel.h"
#include "tmd_lefevre.cuh"
#include "tmd_lefevre.h"

namespace ds::tmd {

const char* search_name(Search s) { return s == Search::kLefevre ? "lefevre" : "regular"; }

Search parse_search(const std::string& s) {
  if (s == "lefevre") return Search::kLefevre;
  if (s == "regular") return Search::kRegular;
  throw std::invalid_argument("unknown search \"" + s + "\" (lefevre, regular)");
}

double nmdm(const uint32_t* it, int n) {
  uint32_t mx = 0;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    mx = std::max(mx, it[i]);
    sum += it[i];
  }
  return mx == 0 ? 0.0 : 1.0 - (sum / n) / mx;
}

namespace detail {

void run_tests_cpu(const void* tests, int64_t count, bool lefevre, int kth, uint8_t* success,
                   uint32_t* iters) {
  const auto* t = static_cast<const lb::LinearTest*>(tests);
  parallel_for(static_cast<std::size_t>(count), 1024, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const lb::Bound r = lb::run_test(t[i], lefevre, kth);
      success[i] = r.success ? 1 : 0;
      iters[i] = r.iters;
    }
  });
}

std::vector<int64_t> run_scans_cpu(const void* scans, int64_t count, bool nearest) {
  const auto* s = static_cast<const lb::Scan*>(scans);
  std::vector<int64_t> out;
  std::mutex mu;
  parallel_for(static_cast<std::size_t>(count), 16, [&](std::size_t b, std::size_t e) {
    std::vector<int64_t> local;
    for (std::size_t i = b; i < e; ++i) lb::run_scan(s[i], nearest, [&](int64_t x) { local.push_back(x); });
    std::lock_guard<std::mutex> lock(mu);
    out.insert(out.end(), local.begin(), local.end());
  });
  return out;
}

void expand_packets_cpu(const void* packets, const int64_t* offset, int64_t count, void* out) {
  const auto* pk = static_cast<const lb::Packet*>(packets);
  auto* o = static_cast<lb::Frac*>(out);
  parallel_for(static_cast<std::size_t>(count), 1, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) lb::expand_packet(pk[i], o + 3 * offset[i]);
  });
}

}  // namespace detail
}  // namespace ds::tmd
