// The TMD workspace's Lefèvre/regular search: the search names (the phases run in
// lefevre_pipeline_cpu.cpp and lefevre.cu; a warp's NMDM is lb::warp_nmdm, lefevre.cuh).
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

}  // namespace ds::tmd
