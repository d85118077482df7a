// The drift tests' small Lennard-Jones run: 500 atoms (5 fcc cells a side), sampled every 10 steps.
#pragma once
#include <cstdint>

#include "kernels/drift/drift.h"

namespace ds::test {

inline drift::MdParams small_md(drift::Precision p, int64_t steps) {
  drift::MdParams m;
  m.cells = 5;  // 500 atoms
  m.precision = p;
  m.steps = steps;
  m.sample_every = 10;
  return m;
}

}  // namespace ds::test
