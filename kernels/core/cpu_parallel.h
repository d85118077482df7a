// A generic parallel loop over all cores for the CPU backends: dynamic chunks, a cancel flag,
// a progress callback, and the first exception rethrown in the caller.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <mpfr.h>

namespace ds {

// MPFR keeps caches per thread (constants such as pi and log 2, a pool of mpz integers) that only
// mpfr_free_cache2 releases. Every thread that parallel_for or work::run starts calls this before
// it ends; without it each such thread that had used MPFR leaked them (found by LeakSanitizer,
// docs/quality.md). The calling thread keeps its caches for its next job.
inline void release_thread_caches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }

// The threads a requested count stands for: itself, or for 0 every core (at least one).
inline unsigned resolve_threads(unsigned threads) {
  return threads ? threads : std::max(1u, std::thread::hardware_concurrency());
}

struct ParallelOptions {
  // Stop handing out chunks once *cancel is true (chunks already running finish).
  const std::atomic<bool>* cancel = nullptr;
  // Called with the fraction of items done, at most every `progress_interval` and once at the end
  // (1.0) when not cancelled. Calls are serialised but come from any worker thread.
  std::function<void(double)> progress;
  std::chrono::milliseconds progress_interval{100};
  // 0 = std::thread::hardware_concurrency().
  unsigned threads = 0;
};

// Runs body(begin, end) over [0, n) in chunks of `chunk` items on all cores; the calling thread
// works too. Returns false when cancelled (some chunks may not have run), true when every chunk
// ran. If a body throws, no new chunks start and the first exception is rethrown here.
template <class Body>
bool parallel_for(std::size_t n, std::size_t chunk, Body&& body, const ParallelOptions& opt = {}) {
  using Clock = std::chrono::steady_clock;
  if (chunk == 0) chunk = 1;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  unsigned nthreads = resolve_threads(opt.threads);
  nthreads = static_cast<unsigned>(std::min<std::size_t>(nthreads, std::max<std::size_t>(chunks, 1)));

  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done_items{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex mu;  // guards `error`, `last_report` and the progress callback
  Clock::time_point last_report = Clock::now();

  auto cancelled = [&] { return opt.cancel && opt.cancel->load(std::memory_order_relaxed); };
  auto worker = [&] {
    for (;;) {
      if (failed.load(std::memory_order_relaxed) || cancelled()) return;
      std::size_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks) return;
      std::size_t b = c * chunk, e = std::min(n, b + chunk);
      try {
        body(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
      std::size_t d = done_items.fetch_add(e - b, std::memory_order_relaxed) + (e - b);
      if (opt.progress && d < n) {
        std::unique_lock<std::mutex> lock(mu, std::try_to_lock);
        if (lock.owns_lock() && Clock::now() - last_report >= opt.progress_interval) {
          last_report = Clock::now();
          opt.progress(static_cast<double>(d) / static_cast<double>(n));
        }
      }
    }
  };

  std::vector<std::thread> pool;
  pool.reserve(nthreads > 0 ? nthreads - 1 : 0);
  try {
    for (unsigned t = 1; t < nthreads; ++t)
      pool.emplace_back([&worker] {
        worker();
        release_thread_caches();
      });
  } catch (...) {
    failed = true;  // could not start a thread: let the started ones stop, then report
    for (auto& th : pool) th.join();
    throw;
  }
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  bool complete = done_items.load() == n;
  if (complete && opt.progress) opt.progress(1.0);
  return complete;
}

}  // namespace ds
