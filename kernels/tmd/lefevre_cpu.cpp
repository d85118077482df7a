// The TMD workspace's Lefèvre/regular search: the search names and the NMDM of a warp (the
// phases run in lefevre_pipeline_cpu.cpp and lefevre.cu).
#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "kernels/core/cpu_parallel.h"
#include "lefevre.cuh"
#include "lefevre.h"

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

}  // namespace ds::tmd
