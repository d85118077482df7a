// Internal to the TMD workspace's Lefèvre/regular search (kernels only, no CUDA types): one block of
// intervals through the device-resident pipeline. The host gives the block's polynomial data as
// produced by MPFR (packets of the hierarchical method, or intervals with their own polynomial);
// the backend expands the packets, builds and runs the phase-1 tests, compacts the failing
// intervals, builds and runs the phase-2 tests on their sub-intervals, compacts again and scans
// the failing sub-intervals (phase 3). Only the counts, the block's folded loop statistics and the
// candidates come back. The same per-item functions (lefevre.cuh) run on both backends.
#pragma once
#include <atomic>
#include <cstdint>
#include <vector>

#include "lefevre.cuh"

namespace ds::tmd::pipeline {

// A packet of the hierarchical method covering intervals k0 .. k0 + packet.n - 1 of the block.
struct PacketJob {
  lb::Packet packet;
  int64_t k0;
  int32_t param;  // its bounds: BlockInput::params[param]
};

// An interval with its own MPFR polynomial (Taylor per interval, or the halving's single intervals).
struct Single {
  int64_t k;
  int32_t param;
  lb::Frac y[3];
};

// Intervals per expansion work item (one GPU thread, or one CPU loop step): the start of each item
// comes from the packet's differences by the straightforward shift, the rest by tabulated
// differences.
constexpr int64_t kSubPacket = 64;

struct BlockInput {
  lb::BlockGeom g;
  int64_t nb = 0;  // intervals in the block
  std::vector<PacketJob> packets;
  std::vector<Single> singles;
  std::vector<lb::IntervalParams> params;
  // The intervals not tested in phase 1 (two result binades, or no argument), sorted; phase 1
  // tests the others in order (lb::tested_interval), and warps of 32 consecutive tests give the
  // loop statistics. (A list of the tested ones, 2^24 entries built and sorted on the host, cost
  // a block up to 2 s: docs/bench/tmd.md.)
  std::vector<int64_t> excluded;
  int64_t max_candidates = 0;  // beyond this, candidates are counted and not returned
};

struct BlockOutput {
  int64_t phase1 = 0;       // tests in phase 1
  int64_t phase2 = 0;       // sub-intervals tested in phase 2
  int64_t phase2_args = 0;  // arguments of the intervals failing phase 1
  int64_t phase3 = 0;       // sub-intervals scanned in phase 3
  int64_t phase3_args = 0;
  int64_t candidate_count = 0;
  std::vector<int64_t> candidates;   // argument indices (relative to the search's first), unsorted;
                                     // empty when candidate_count > max_candidates
  lb::WarpSummary warps = lb::empty_summary();  // phase 1's loop statistics, folded over its warps
  double seconds_expand = 0, seconds_phase1 = 0, seconds_phase2 = 0, seconds_phase3 = 0;
};

// On all cores of this machine, or on the calling thread's current CUDA device (one stream per
// call; buffers allocated per call, so several host threads may share one device). Every CUDA
// call is checked (ds::CudaError).
void run_block_cpu(const BlockInput& in, BlockOutput* out);
void run_block_cuda(const BlockInput& in, BlockOutput* out);
// run_block_cuda keeps the device memory of its blocks in the stream-ordered pool for the next;
// this hands it back (after a search).
void release_pool_memory();

}  // namespace ds::tmd::pipeline
