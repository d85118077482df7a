// The device side of StopFlag (stop_flag.h; include only from .cu files): a word of mapped pinned
// host memory that kernels read through the bus, set by the launching thread when the host's cancel
// flag is raised while it waits for a launch (wait_or_cancel). One per launcher call, so renders on
// other devices or in other window jobs are not stopped with it.
#pragma once
#include <atomic>
#include <chrono>
#include <thread>

#include "cuda_check.h"
#include "stop_flag.h"

namespace ds {

class PinnedStopFlag {
 public:
  PinnedStopFlag() {
    DEEPSCOPE_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&host_), sizeof(int),
                                       cudaHostAllocMapped | cudaHostAllocPortable));
    *host_ = 0;
    DEEPSCOPE_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0));
  }
  ~PinnedStopFlag() { cudaFreeHost(host_); }
  PinnedStopFlag(const PinnedStopFlag&) = delete;
  PinnedStopFlag& operator=(const PinnedStopFlag&) = delete;

  // The flag for kernel parameters.
  StopFlag device() const { return StopFlag{device_}; }
  bool raised() const { return *host_ != 0; }

  // Waits for `done` (an event recorded after the launch). While it is pending, polls `cancel`
  // every 200 microseconds and, once it is set, raises the device flag so that the kernel's items stop
  // at their next poll. Returns true when the wait ended with the flag raised (the launch's results
  // are then incomplete).
  bool wait_or_cancel(cudaEvent_t done, const std::atomic<bool>* cancel) {
    for (;;) {
      const cudaError_t q = cudaEventQuery(done);
      if (q == cudaSuccess) return raised();
      if (q != cudaErrorNotReady) DEEPSCOPE_CUDA_CHECK(q);
      if (cancel && cancel->load(std::memory_order_relaxed) && !raised()) {
        *static_cast<volatile int*>(host_) = 1;
        std::atomic_thread_fence(std::memory_order_seq_cst);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

 private:
  int* host_ = nullptr;
  int* device_ = nullptr;
};

}  // namespace ds
