// KF's auto-iterations (auto_iter.h): the limit from a period and from a render's counts.
#include "kernels/mandelbrot/auto_iter.h"

#include <algorithm>
#include <cstdio>

namespace ds::mandel {

uint32_t auto_iterations_for_period(uint32_t current, uint32_t period) {
  const uint64_t want = std::min<uint64_t>(64ull * period, kAutoIterCap);
  return static_cast<uint32_t>(std::max<uint64_t>(current, want));
}

IterationStats iteration_stats(const std::vector<uint32_t>& counts, uint32_t max_iter, uint64_t interior,
                               bool interior_known) {
  IterationStats s;
  s.pixels = counts.size();
  s.interior = interior;
  s.interior_known = interior_known;
  const uint64_t late_from = max_iter - max_iter / 8;  // counts in [7/8 max_iter, max_iter)
  for (uint32_t c : counts) {
    if (c >= max_iter)
      ++s.at_limit;
    else if (c >= late_from)
      ++s.late;
  }
  s.interior = std::min(s.interior, s.at_limit);
  return s;
}

AutoIterDecision auto_iterations_after_render(uint32_t current, const IterationStats& s, double share) {
  AutoIterDecision d;
  d.max_iter = current;
  if (current >= kAutoIterCap || s.pixels == 0) return d;
  const uint64_t doubled = std::min<uint64_t>(2ull * current, kAutoIterCap);
  char why[160];
  if (s.interior_known) {
    const uint64_t unresolved = s.at_limit - s.interior, open = s.pixels - s.interior;
    if (open > 0 && static_cast<double>(unresolved) > share * static_cast<double>(open)) {
      std::snprintf(why, sizeof why, "%llu of %llu pixels not proven interior hit the limit %u",
                    static_cast<unsigned long long>(unresolved), static_cast<unsigned long long>(open),
                    current);
      d.max_iter = static_cast<uint32_t>(doubled);
      d.reason = why;
    }
    return d;
  }
  if (static_cast<double>(s.late) > share * static_cast<double>(s.pixels)) {
    std::snprintf(why, sizeof why, "%llu of %llu pixels escaped in the top eighth of the limit %u",
                  static_cast<unsigned long long>(s.late), static_cast<unsigned long long>(s.pixels),
                  current);
    d.max_iter = static_cast<uint32_t>(doubled);
    d.reason = why;
  }
  return d;
}

}  // namespace ds::mandel
