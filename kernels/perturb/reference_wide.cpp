// The wide tiers' orbit (perturb.h, wide_reference): the reference computed again, wider.
#include <mutex>
#include <string>

#include "perturb.h"

namespace ds::perturb {

std::shared_ptr<const Reference> wide_reference(const std::shared_ptr<const Reference>& ref,
                                                const std::atomic<bool>* cancel, std::string* why) {
  static std::mutex mu;
  static std::shared_ptr<const Reference> key, last;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (key == ref && last) return last;
  }
  const uint64_t len = ref->length();
  if (len < 2 || len > kMaxWidePoints) {
    if (why) *why = "its orbit has " + std::to_string(len) + " points (the wide orbit takes at most " +
                    std::to_string(kMaxWidePoints) + ")";
    return nullptr;
  }
  if (ref->bits > kMaxWideBits) {
    if (why) *why = "its orbit has " + std::to_string(ref->bits) + " bits (the wide orbit is computed in MPFR up to " +
                    std::to_string(kMaxWideBits) + ")";
    return nullptr;
  }
  std::shared_ptr<const Reference> w =
      compute_reference(ref->re, ref->im, ref->bits + kWideExtraBits, len - 1, ref->step, cancel, {}, false, 0, 0,
                        "", 60, nullptr, ReferencePath::kMpfr, ref->shift_log2 - kWideExtraBits, BallStop{},
                        kWideTerms);
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
  out->periodic = ref->periodic;
  out->ball_period = ref->ball_period;
  out->ball_radius = ref->ball_radius;
  out->escaped = ref->escaped;
  if (ref->periodic) out->nucleus_distance = ref->nucleus_distance;
  std::lock_guard<std::mutex> lock(mu);
  key = ref;
  last = out;
  return last;
}

}  // namespace ds::perturb
