// The wide tiers' orbit (perturb.h, wide_reference): the reference computed again, wider, and
// WidePrefetch, which computes it on a host thread while the device renders the first pass.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "perturb.h"

namespace ds::perturb {

namespace {

// The one-entry cache, and the orbit a prefetch is computing (busy, with its stop flag).
struct WideCache {
  std::mutex mu;
  std::condition_variable done;
  std::shared_ptr<const Reference> key, last;
  bool last_prefetched = false;  // last came from a WidePrefetch
  std::shared_ptr<const Reference> busy;
  std::atomic<bool>* busy_stop = nullptr;
};

WideCache& cache() {
  static WideCache c;
  return c;
}

// Why ref's wide orbit is not computed at all ("" where it is).
std::string refusal(const Reference& ref) {
  const uint64_t len = ref.length();
  if (len < 2 || len > kMaxWidePoints)
    return "its orbit has " + std::to_string(len) + " points (the wide orbit takes at most " +
           std::to_string(kMaxWidePoints) + ")";
  if (ref.bits > kMaxWideBits)
    return "its orbit has " + std::to_string(ref.bits) + " bits (the wide orbit is computed in MPFR up to " +
           std::to_string(kMaxWideBits) + ")";
  return "";
}

// The orbit itself, uncached: nullptr (and *why) where it stopped short or was cancelled.
std::shared_ptr<const Reference> compute_wide(const Reference& ref, const std::atomic<bool>* cancel,
                                              std::string* why) {
  const uint64_t len = ref.length();
  std::shared_ptr<const Reference> w =
      compute_reference(ref.re, ref.im, ref.bits + kWideExtraBits, len - 1, ref.step, cancel, {}, false, 0, 0, "",
                        60, nullptr, ReferencePath::kMpfr, ref.shift_log2 - kWideExtraBits, BallStop{}, kWideTerms);
  if (!w) {
    if (why) *why = "cancelled";
    return nullptr;
  }
  if (w->length() != len) {
    if (why) *why = "the wide orbit stopped at " + std::to_string(w->length() - 1) + ", not at " + std::to_string(len - 1);
    return nullptr;
  }
  auto out = std::make_shared<Reference>(*w);
  // The same stop as ref's: a wrap at the same point (its BLA table's suffix entries follow it).
  out->periodic = ref.periodic;
  out->ball_period = ref.ball_period;
  out->ball_radius = ref.ball_radius;
  out->escaped = ref.escaped;
  if (ref.periodic) out->nucleus_distance = ref.nucleus_distance;
  return out;
}

}  // namespace

std::shared_ptr<const Reference> wide_reference(const std::shared_ptr<const Reference>& ref,
                                                const std::atomic<bool>* cancel, std::string* why,
                                                double* waited) {
  WideCache& c = cache();
  {
    std::unique_lock<std::mutex> lock(c.mu);
    double w = 0;
    if (c.busy == ref) {  // a prefetch is computing it: wait, passing a cancel on to it
      const auto t0 = std::chrono::steady_clock::now();
      while (c.busy == ref) {
        if (cancel && cancel->load() && c.busy_stop) c.busy_stop->store(true);
        c.done.wait_for(lock, std::chrono::milliseconds(20));
      }
      w = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    if (c.key == ref && c.last) {
      if (waited && c.last_prefetched) *waited = w;
      return c.last;
    }
  }
  const std::string no = refusal(*ref);
  if (!no.empty()) {
    if (why) *why = no;
    return nullptr;
  }
  if (cancel && cancel->load()) {
    if (why) *why = "cancelled";
    return nullptr;
  }
  std::shared_ptr<const Reference> out = compute_wide(*ref, cancel, why);
  if (!out) return nullptr;
  std::lock_guard<std::mutex> lock(c.mu);
  c.key = ref;
  c.last = out;
  c.last_prefetched = false;
  return out;
}

WidePrefetch::WidePrefetch(const std::shared_ptr<const Reference>& ref) {
  if (!ref || !refusal(*ref).empty()) return;
  WideCache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  if ((c.key == ref && c.last) || c.busy) return;  // cached already, or another prefetch running
  c.busy = ref;
  c.busy_stop = &stop_;
  started_ = true;
  thread_ = std::thread([this, ref] {
    std::shared_ptr<const Reference> out = compute_wide(*ref, &stop_, nullptr);
    WideCache& c = cache();
    std::lock_guard<std::mutex> lock(c.mu);
    if (out) {
      c.key = ref;
      c.last = out;
      c.last_prefetched = true;
    }
    c.busy = nullptr;
    c.busy_stop = nullptr;
    c.done.notify_all();
  });
}

WidePrefetch::~WidePrefetch() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

}  // namespace ds::perturb
