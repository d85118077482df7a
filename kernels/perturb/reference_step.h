// One step's products of the reference orbit, Z <- Z^2 + C in MPFR: x^2, y^2 and x y, on one
// thread or split over threads (docs/perturbation/references.md, "Reference at high precision"). Every path
// runs the same three MPFR operations at the same precision and rounding, so the orbit is
// bit-identical whichever path computes it; only the wall time differs.
#pragma once
#include <mpfr.h>

#include <atomic>
#include <thread>
#include <vector>

namespace ds::perturb {

// The threads that compute a step's products at `bits` bits on a machine with `cores` hardware
// threads: 3 from 8,192 bits where there are 4 or more, else 1 (serial). Measured by `deepscope
// bench reference`. Callers that already run references in parallel (secondary references, one
// per glitched blob on every core) ask for 1.
int reference_step_threads(int bits, int cores);

// x2 <- x^2, y2 <- y^2, xy <- x y. With threads 2 or 3, helper threads started once (at
// construction) take y^2 and x y (threads 3) or x y (threads 2) while the caller computes the
// rest; a step waits for all its products. The helpers spin between steps (the split is chosen
// only where a product takes far longer than a handover) and stop at destruction.
class ReferenceStep {
 public:
  ReferenceStep(int threads, mpfr_ptr x, mpfr_ptr y, mpfr_ptr x2, mpfr_ptr y2, mpfr_ptr xy);
  ~ReferenceStep();
  ReferenceStep(const ReferenceStep&) = delete;
  ReferenceStep& operator=(const ReferenceStep&) = delete;
  void products();
  int threads() const { return threads_; }

 private:
  void helper(int which);
  int threads_;
  mpfr_ptr x_, y_, x2_, y2_, xy_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> helpers_;
};

}  // namespace ds::perturb
