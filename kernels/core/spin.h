// Bounded spinning for hand-overs between threads: the CPU's pause hint, and a spin bounded by time.
#pragma once
#include <chrono>
#include <thread>

namespace ds {

// The CPU's hint that this thread is spinning (x86's pause; elsewhere a yield).
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until ready() holds or `budget` has passed (the clock read every 64 tries): true where
// ready() came true. For hand-overs between threads that usually take microseconds, before a
// blocking wait: a spin bounded by time rather than by a count of tries, whose length depends on
// the CPU's pause.
template <class Ready>
bool spin_for(std::chrono::nanoseconds budget, Ready&& ready) {
  const auto end = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= end) return ready();
  }
}

// Waits until ready() holds: spin_for(budget), then a yield of the core between tries.
template <class Ready>
void spin_then_yield(std::chrono::nanoseconds budget, Ready&& ready) {
  if (!spin_for(budget, ready))
    while (!ready()) std::this_thread::yield();
}

}  // namespace ds
