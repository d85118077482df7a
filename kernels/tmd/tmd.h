// The Table Maker's Dilemma workspace's host API (plain C++, no CUDA types): exhaustive search for
// hard-to-round cases of exp, exp2, log, log2, sin and cos over binary32 arguments, on the CPU (all
// cores) or CUDA, with every candidate decided by MPFR; resumable in chunks. The GUI panel and
// `deepscope tmd` are both front ends over these calls.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/core/backend.h"
#include "types.h"
#include "kernels/core/work.h"

namespace ds::tmd {

const char* func_name(Func f);
const char* mode_name(Mode m);
// Throw std::invalid_argument naming the accepted values.
Func parse_func(const std::string& s);
Mode parse_mode(const std::string& s);
std::vector<Func> all_funcs();

constexpr int kMinPrecision = 8, kMaxPrecision = 24;
constexpr int kMinK = 1, kMaxK = 50;
constexpr int64_t kDefaultMaxCases = 2'000'000;
constexpr int64_t kMaxMaxCases = 100'000'000;

struct ExhaustiveParams {
  Func func = Func::kExp2;
  Mode mode = Mode::kNearest;
  // Result precision p in [8, 24]. Arguments are the binary32 numbers of [lo, hi] (bit patterns,
  // unsigned order) that are precision-p numbers: for p < 24 normal numbers whose low 24 - p
  // significand bits are zero. Results are rounded to p bits.
  int precision = 24;
  // Report arguments whose f(x) lies within 2^-k ulp of a breakpoint (k in [1, 50]).
  int k = 20;
  uint32_t lo = 0, hi = 0;
  Backend backend = Backend::kCpu;
  int64_t chunk_inputs = 0;              // bit patterns per chunk; 0: 2^24
  int64_t max_cases = kDefaultMaxCases;  // refuse (estimate) or stop (run) beyond this many cases
  // Resume file (ds::work's format): finished chunks are appended as they complete; chunks already
  // there (for the same search) are loaded and skipped. Empty: no file. Under MPI, the writer's.
  std::string chunk_file;
  // The workers (--devices: CUDA devices of the resolved backend) and the shard of the chunks to run.
  work::Placement placement;
  const std::atomic<bool>* cancel = nullptr;  // polled between chunks and by the CPU workers
  std::function<void(double)> progress;       // fraction of the shard's bit patterns done (loaded included)
  // The callbacks below come from the writer, one at a time, in completion order.
  std::function<void(int64_t chunk, int64_t chunks)> on_chunk;  // a chunk computed by this run
  // Live totals after each chunk (loaded chunks included): candidates checked, cases found.
  std::function<void(int64_t candidates, int64_t cases)> on_counts;
};

// One hard-to-round case, decided by MPFR (f(x) at 256 bits).
struct Case {
  uint32_t x = 0;           // argument, binary32 bit pattern (searches at precision <= 24)
  uint64_t index = 0;       // argument index in a Lefèvre/regular search (its sort key)
  std::string x_text;       // argument in hexadecimal (%Ra) where it is not a binary32 number
  int32_t run = 0;          // identical bits after the rounding bit (bit p + 1 of the significand)
  bool run_capped = false;  // the run reaches the last of MPFR's 256 bits
  double log2_dist = 0;     // -log2(distance to the breakpoint in ulps); > k for every case
  std::string fx;           // f(x) to 256 bits, hexadecimal (%Ra)
};

struct ExhaustiveResult {
  std::vector<Case> cases;  // sorted by argument bit pattern
  int64_t inputs = 0;       // bit patterns in [lo, hi]
  int64_t evaluated = 0;    // precision-p arguments with a normal, finite, non-zero result
  int64_t candidates = 0;   // passed the dd filter (sent to MPFR)
  int64_t exact = 0;        // candidates whose f(x) is exact (e.g. exp2 of an integer): not cases
  // Chunks in the search, in this shard, loaded from the chunk file and computed by this run (by
  // every worker and rank). The counts and cases above cover the loaded and computed chunks: all
  // of the search when complete() and the shard is whole. Under MPI, only on the writer (rank 0).
  int64_t chunks = 0, chunks_owned = 0, chunks_loaded = 0, chunks_run = 0;
  std::vector<std::pair<std::string, int64_t>> per_worker;  // chunks computed per worker (work::Stats)
  bool cancelled = false;
  Backend backend = Backend::kCpu;
  double seconds = 0;  // this run's wall time (loaded chunks excluded)
  // Summed over the chunks this run computed (with several workers the sums exceed `seconds`):
  double eval_seconds = 0;  // evaluation + filtering (CPU threads or the GPU)
  double mpfr_seconds = 0;  // MPFR confirmation
  bool complete() const { return chunks_loaded + chunks_run == chunks_owned; }
};

struct ExhaustiveEstimate {
  int64_t inputs = 0;
  int64_t chunks = 0, chunk_inputs = 0;
  double expected_cases = 0;  // inputs * 2^(1-k) plus a stratified sample's degenerate share
  double sampled_fraction = 0;
};

// Validates p (std::invalid_argument for an empty/reversed range, bad k, precision or sizes) and
// estimates the number of cases from 2^16 evenly spread arguments evaluated on the CPU.
ExhaustiveEstimate estimate_exhaustive(const ExhaustiveParams& p);
// Refuses (std::invalid_argument) when the estimate exceeds p.max_cases, or for a bad device list;
// then searches the chunks of p.placement.shard with ds::work::run (every worker filters and
// confirms its chunks with MPFR). Throws std::runtime_error if the real count exceeds max_cases
// while running (finished chunks are kept). The result does not depend on the workers or on the
// order in which chunks finish.
ExhaustiveResult exhaustive(const ExhaustiveParams& p);
// The first line of exhaustive()'s chunk file for p, for work::check_chunk_file.
std::string exhaustive_chunk_header(const ExhaustiveParams& p);

// The hardest cases: the n largest runs (ties: smaller distance first).
std::vector<Case> hardest(const std::vector<Case>& cases, std::size_t n);

// Output files: CSV (one row per case) and JSON (parameters, counts, hardest cases, all cases).
std::string cases_csv(const ExhaustiveParams& p, const ExhaustiveResult& r);
std::string cases_csv(const std::vector<Case>& cases);  // the same bytes: the CSV holds only the cases
std::string cases_json(const ExhaustiveParams& p, const ExhaustiveResult& r);
// The JSON in two parts, so that a binary case file can keep the first and its reader write the
// same JSON: the head (the opening brace and the members before "hardest", without a trailing
// comma: parameters and counts) and the rest, "hardest" and, with `all`, "all" (every case).
// cases_json(p, r) is json_with_cases(exhaustive_json_head(p, r), r.cases, true).
std::string exhaustive_json_head(const ExhaustiveParams& p, const ExhaustiveResult& r);
std::string json_with_cases(const std::string& head, const std::vector<Case>& cases, bool all);

// MPFR's verdict on one argument: f(x) at 256 bits, its distance to the breakpoint and run.
struct Verdict {
  bool valid = false;  // f(x) finite, non-zero, normal binary32 range, x a precision-p number
  bool exact = false;  // f(x) exactly representable in 256 bits
  double log2_dist = 0;
  int32_t run = 0;
  bool run_capped = false;
  bool within = false;  // distance < 2^-k ulp (and not exact)
  std::string fx;
};
Verdict mpfr_verdict(Func f, Mode m, int precision, int k, uint32_t x);
// The same for an argument given as an MPFR number (any precision; the result must lie in the
// normal binary32 exponent range [2^-126, 2^128)).
Verdict mpfr_verdict_value(Func f, Mode m, int precision, int k, const void* mpfr_x);

// The dd evaluation's distance (ulps, signed) for tests and tools; status 0 ok, 1 skipped, 2 forced.
struct DdDistance {
  int32_t status = 1;
  double dist = 0;
};
DdDistance dd_distance(Func f, Mode m, int precision, uint32_t x);
// f(x) in dd (hi + lo) for tests; false where f(x) is not finite and non-zero.
bool dd_value(Func f, float x, double* hi, double* lo);

// Throughput of the evaluation + filter alone (no MPFR), n bit patterns from lo, for the bench.
struct EvalRate {
  double seconds = 0;
  double inputs_per_second = 0;     // bit patterns per second
  int64_t evaluated = 0;            // arguments evaluated (bit patterns not skipped as out of range)
  double evaluated_per_second = 0;  // the rate to compare with a ceiling
  int64_t candidates = 0;
};
EvalRate eval_rate(Func f, Mode m, int precision, int k, uint32_t lo, int64_t n, Backend backend);

namespace detail {
// Both are reentrant (ds::work calls them from one thread per worker, several per device): no
// static state; filter_cuda allocates its buffers per call on the calling thread's current device.
// Evaluates bit patterns [first, first + n) and writes the candidates' bit patterns (up to cap) to
// out; returns the number of candidates (may exceed cap: then call again with a larger cap);
// *evaluated gets the number of arguments evaluated (not skipped).
int64_t filter_cpu(Func f, Mode m, int p, int k, uint64_t first, int64_t n, uint32_t* out, int64_t cap,
                   int64_t* evaluated, const std::atomic<bool>* cancel, bool* cancelled);
int64_t filter_cuda(Func f, Mode m, int p, int k, uint64_t first, int64_t n, uint32_t* out, int64_t cap,
                    int64_t* evaluated);
}  // namespace detail

}  // namespace ds::tmd
