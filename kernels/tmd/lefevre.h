// The TMD workspace's Lefèvre and regular searches (Fortin, Gouicem, Graillat): the arguments of
// one binade are cut into intervals of N = 2^n arguments; on each, f is a degree-2 Taylor
// polynomial (MPFR), truncated to degree 1 for the continued-fraction lower-bound test (phase 1);
// failing intervals are split into sub-intervals and tested again (phase 2); failing
// sub-intervals are scanned by tabulated differences in 96-bit fractions (phase 3); every
// candidate is decided by MPFR. Plain C++ (no CUDA types).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/core/backend.h"
#include "tmd.h"
#include "kernels/core/work.h"

namespace ds::tmd {

enum class Search { kLefevre, kRegular };
const char* search_name(Search s);
Search parse_search(const std::string& s);  // "lefevre" or "regular"; throws std::invalid_argument

struct LefevreResult;

constexpr int kMaxWidePrecision = 64;

struct LefevreParams {
  Func func = Func::kExp;  // exp, exp2, log, log2 (monotone: one result binade per interval, or
                           // the interval is checked argument by argument)
  Mode mode = Mode::kDirected;
  int precision = 24;                           // arguments and results, in [8, 24] (binary32 arguments)
  int k = 16;                                   // hard-to-round: within 2^-k ulp of a breakpoint
  uint32_t lo = 0x3f800000u, hi = 0x3fffffffu;  // positive normal binary32 bit patterns, one binade
  // Or a real range [x_lo, x_hi) of one binade (decimal or hex-float text, parsed exactly): the
  // arguments are then its precision-p numbers for any p in [8, 64] (e.g. the paper's p = 54).
  std::string x_lo, x_hi;
  int log2_n = 6;  // arguments per phase-1 interval: 2^log2_n, in [2, 20]
  int split = 8;   // phase-2 sub-intervals per failing interval (2^j <= N)
  Search search = Search::kRegular;
  Backend backend = Backend::kCpu;  // phases 1-3 on all cores or on CUDA (polynomials: CPU, MPFR)
  int div_threshold = 3;            // hybrid division: divide when the quotient is >= 2^this (0: always)
  // Polynomials: the hierarchical method (one MPFR Taylor polynomial of degree 6 per packet of
  // 2^log2_packet intervals, each interval's coefficients by tabulated differences in Limb<10>) or
  // one MPFR Taylor polynomial per interval.
  bool hierarchical = true;
  int log2_packet = 10;
  int log2_block = 18;  // intervals per block (the unit of work, memory and resume), in [5, 24]
  int64_t max_cases = kDefaultMaxCases;  // stop (std::runtime_error) beyond this many candidates or cases
  // Resume file (ds::work's format): finished blocks of 2^log2_block intervals are appended as they
  // complete; blocks already there (for the same search) are loaded and skipped. Empty: no file.
  std::string chunk_file;
  // The workers (--devices: CUDA devices of the resolved backend) and the shard of the blocks to run.
  work::Placement placement;
  const std::atomic<bool>* cancel = nullptr;  // polled between blocks and while making polynomials
  std::function<void(double)> progress;       // fraction of the shard's intervals done (loaded included)
  // From the writer: phase 3 with the counts so far after each block taken (loaded or computed, in
  // completion order), then phase 4 with the final result.
  std::function<void(int phase, const LefevreResult& so_far)> on_phase;
};

struct IterStats {
  uint32_t min = 0, max = 0;
  double mean = 0;
  int64_t warps = 0;               // groups of 32 consecutive phase-1 intervals
  double mean_nmdm = 0;            // mean over warps of 1 - mean(iterations) / max(iterations)
  std::vector<int64_t> nmdm_hist;  // 20 bins over [0, 1)
};

struct LefevreResult {
  int64_t arguments = 0;
  int64_t phase1 = 0;       // intervals tested in phase 1
  int64_t phase2 = 0;       // sub-intervals tested in phase 2
  int64_t phase2_args = 0;  // arguments of the intervals that failed phase 1
  int64_t phase3 = 0;       // sub-intervals scanned in phase 3
  int64_t phase3_args = 0;  // arguments scanned in phase 3
  int64_t direct_args = 0;  // arguments of intervals whose results span two binades (MPFR each)
  int64_t candidates = 0;   // sent to MPFR
  std::vector<Case> cases;  // sorted by argument
  IterStats iters;
  // Summed over the blocks this run computed (with several workers the sums exceed `seconds`).
  double seconds_poly = 0, seconds_phase1 = 0, seconds_phase2 = 0, seconds_phase3 = 0, seconds_mpfr = 0;
  double seconds = 0;  // this run's wall time
  // Blocks in the search, in this shard, loaded from the chunk file and computed by this run (every
  // worker and rank). The counts above cover the loaded and computed blocks: all of the search when
  // complete() and the shard is whole. Under MPI, only on the writer (rank 0).
  int64_t blocks = 0, blocks_owned = 0, blocks_loaded = 0, blocks_run = 0;
  std::vector<std::pair<std::string, int64_t>> per_worker;  // blocks computed per worker (work::Stats)
  bool cancelled = false;
  bool complete() const { return blocks_loaded + blocks_run == blocks_owned; }
};

// Throws std::invalid_argument for an unsupported function or precision, a range that is empty,
// reversed, not positive normal or spans two binades, bad sizes or a bad device list. Runs the
// blocks of p.placement.shard with ds::work::run (each worker computes its blocks through MPFR);
// the result does not depend on the workers or on the order in which blocks finish.
LefevreResult lefevre_search(const LefevreParams& p);
// Validates p like lefevre_search and returns its number of arguments.
double lefevre_arguments(const LefevreParams& p);
// The first line of lefevre_search()'s chunk file for p, for work::check_chunk_file.
std::string lefevre_chunk_header(const LefevreParams& p);

// The search's outputs: CSV rows (as cases_csv) and JSON with the phase counts and loop statistics.
std::string lefevre_json(const LefevreParams& p, const LefevreResult& r);
// Its head (json_with_cases, tmd.h): lefevre_json(p, r) is json_with_cases(lefevre_json_head(p, r), r.cases, true).
std::string lefevre_json_head(const LefevreParams& p, const LefevreResult& r);

}  // namespace ds::tmd
