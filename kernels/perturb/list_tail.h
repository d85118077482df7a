// ListTail: what a CUDA list launch (the 106-bit tiers, perturb.cu) hands back to the host's cores.
#pragma once
#include <cstdint>
#include <vector>

#include "perturb.cuh"

namespace ds::perturb::detail {

// The pixels a list launch hands back unfinished, to finish on the host's cores: each runs one
// thread's chain of steps, about 1 us a step on the device against some 30 ns on a core, so once
// few are left the cores finish them sooner (docs/perturbation/errors.md, "The slowest pixels on the
// host"). Their list positions and states (PixelState is plain data, the same on host and device:
// pixel_step resumes it there with the same roundings).
template <class T>
struct ListTail {
  // In: the host's threads and its seconds a step (one core), for when to hand back; 0 threads:
  // never (the device finishes every pixel).
  unsigned cpu_threads = 0;
  double cpu_step_seconds = 0;
  // Out: one of the two state arrays, by whether fields were asked.
  std::vector<uint32_t> q;
  std::vector<PixelState<T, kNoFields>> plain;
  std::vector<PixelState<T, kStripeFields>> stripe;
};

}  // namespace ds::perturb::detail
