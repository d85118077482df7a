// The reference orbit's products on one or several threads (reference_step.h).
#include "reference_step.h"

#include <algorithm>
#include <chrono>

#include "kernels/core/spin.h"

namespace ds::perturb {
namespace {

// How long a thread spins for the other side of a step before it yields its core between tries.
constexpr std::chrono::microseconds kSpin(100);

// Below this precision a product takes less than about 5 microseconds, and the handover between
// threads (cache-line round trips, and a wake-up wherever a helper lost its core) costs as much as
// it saves (docs/bench/reference.md). On fewer than four hardware threads the helpers compete with
// whatever else runs (on the 2-core development machine, shared with builds, two threads gave 0.01x
// to 1.3x), so the split is taken only where the machine has cores to spare.
constexpr int kSplitBits = 8192;

}  // namespace

int reference_step_threads(int bits, int cores) {
  return bits >= kSplitBits && cores >= 4 ? 3 : 1;
}

ReferenceStep::ReferenceStep(int threads, mpfr_ptr x, mpfr_ptr y, mpfr_ptr x2, mpfr_ptr y2, mpfr_ptr xy)
    : threads_(std::clamp(threads, 1, 3)), x_(x), y_(y), x2_(x2), y2_(y2), xy_(xy) {
  for (int k = 1; k < threads_; ++k) helpers_.emplace_back([this, k] { helper(k); });
}

ReferenceStep::~ReferenceStep() {
  stop_.store(true, std::memory_order_release);
  for (std::thread& t : helpers_) t.join();
}

// Helper `which` of threads_ - 1: with three threads, 1 takes y^2 and 2 takes x y; with two, 1
// takes x y.
void ReferenceStep::helper(int which) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = seen;
    const auto woken = [&] {
      g = generation_.load(std::memory_order_acquire);
      return g != seen || stop_.load(std::memory_order_acquire);
    };
    spin_then_yield(kSpin, woken);
    if (g == seen) return;  // stopped
    seen = g;
    if (threads_ == 3 && which == 1) mpfr_sqr(y2_, y_, MPFR_RNDN);
    else mpfr_mul(xy_, x_, y_, MPFR_RNDN);
    done_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void ReferenceStep::products() {
  if (threads_ == 1) {
    mpfr_sqr(x2_, x_, MPFR_RNDN);
    mpfr_sqr(y2_, y_, MPFR_RNDN);
    mpfr_mul(xy_, x_, y_, MPFR_RNDN);
    return;
  }
  done_.store(0, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_acq_rel);  // publishes x and y to the helpers
  mpfr_sqr(x2_, x_, MPFR_RNDN);
  if (threads_ == 2) mpfr_sqr(y2_, y_, MPFR_RNDN);
  const int helpers = threads_ - 1;
  spin_then_yield(kSpin, [&] { return done_.load(std::memory_order_acquire) >= helpers; });
}

}  // namespace ds::perturb
