// Cancellation inside one item's loop (a pixel of 1e9 iterations, an orbit): the per-item math that
// the CPU and the GPU share polls a StopFlag every kStopPollSteps steps, so a Ctrl-C stops a long
// pixel loop within milliseconds instead of at its end (docs/quality.md, "Cancellation").
// On the host the flag is the caller's std::atomic<bool> (RenderOptions::cancel); on the device it
// is a word of mapped pinned host memory (PinnedStopFlag, stop_flag.cuh) that the launching thread
// sets while it waits for the kernel. An item stopped this way returns an unfinished result; the
// caller sees the cancel flag and discards it (never stored as a count).
#pragma once
#include <cstdint>

#include "arith/hd.h"
#if !DEEPSCOPE_DEVICE_CODE
#include <atomic>
#endif

namespace ds {

// Steps between two polls: about 0.1 to 5 ms of one pixel's work in any format, one relaxed load
// (host) or one read over the bus (device) per that many steps.
inline constexpr uint32_t kStopPollSteps = 1u << 16;

struct StopFlag {
  // Host: a const std::atomic<bool>*; device: a const volatile int* into mapped pinned memory.
  const void* flag = nullptr;

  DEEPSCOPE_HD bool requested() const {
#if DEEPSCOPE_DEVICE_CODE
    return flag != nullptr && *static_cast<const volatile int*>(flag) != 0;
#else
    return flag != nullptr && static_cast<const std::atomic<bool>*>(flag)->load(std::memory_order_relaxed);
#endif
  }
  // Polls every kStopPollSteps calls of the caller's step counter (counted by the caller).
  DEEPSCOPE_HD bool poll(uint32_t& steps) const {
    return (++steps & (kStopPollSteps - 1)) == 0 && requested();
  }
};

// The host form of a cancel flag.
inline StopFlag host_stop(const void* atomic_bool) { return StopFlag{atomic_bool}; }

}  // namespace ds
