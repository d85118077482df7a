// Internal to the TMD workspace (kernels only): one finished chunk of a search as the text payload
// that ds::work carries between workers, ranks, the chunk file and the writer. A payload is a
// counts line and one line per case; timings are the chunk's own (summed by the writer).
// parse_* throw std::runtime_error for a malformed payload.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tmd.h"

namespace ds::tmd::lb {
struct WarpSummary;
}

namespace ds::tmd::records {

// A chunk of the exhaustive search.
struct ExhaustiveChunk {
  int64_t evaluated = 0, candidates = 0, exact = 0;
  double eval_seconds = 0, mpfr_seconds = 0;
  std::vector<Case> cases;  // sorted by bit pattern
};
std::string exhaustive_text(const ExhaustiveChunk& r);
ExhaustiveChunk parse_exhaustive(const std::string& payload);

// A block of intervals of the Lefèvre/regular search.
struct LefevreBlock {
  int64_t phase1 = 0, phase2 = 0, phase2_args = 0, phase3 = 0, phase3_args = 0, direct = 0, candidates = 0;
  int64_t iter_count = 0, warps = 0;
  double iter_sum = 0, nmdm_sum = 0;
  uint32_t iter_min = 0, iter_max = 0;
  std::vector<int64_t> hist = std::vector<int64_t>(20, 0);
  double seconds_poly = 0, seconds_phase1 = 0, seconds_phase2 = 0, seconds_phase3 = 0, seconds_mpfr = 0;
  std::vector<Case> cases;  // sorted by argument index

  // The phase-1 iteration counts of the block's intervals, in order (warps of 32).
  void add_iters(const std::vector<uint32_t>& it);
  // The same from the block's folded warp statistics (lb::WarpSummary): identical results.
  void add_summary(const lb::WarpSummary& s);
};
std::string lefevre_text(const LefevreBlock& b);
LefevreBlock parse_lefevre(const std::string& payload);

}  // namespace ds::tmd::records
