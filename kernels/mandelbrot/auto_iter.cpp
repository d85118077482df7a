// KF's auto-iterations (auto_iter.h): the limit from a period and from a render's counts.
#include "kernels/mandelbrot/auto_iter.h"

#include <algorithm>
#include <cstdio>

namespace ds::mandel {

uint64_t auto_iterations_for_period(uint64_t current, uint64_t period) {
  const uint64_t want = period >= kAutoIterCap / 64 ? kAutoIterCap : std::min<uint64_t>(64ull * period, kAutoIterCap);
  return std::max<uint64_t>(current, want);
}

IterationStats iteration_stats(const std::vector<uint32_t>& counts, uint64_t max_iter, uint64_t interior,
                               bool interior_known, const std::vector<uint32_t>& counts_high) {
  IterationStats s;
  s.pixels = counts.size();
  s.interior = interior;
  s.interior_known = interior_known;
  const uint64_t late_from = max_iter - max_iter / 8;  // counts in [7/8 max_iter, max_iter)
  const bool wide = !counts_high.empty() && counts_high.size() == counts.size();
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const uint64_t c = wide ? (static_cast<uint64_t>(counts_high[k]) << 32) | counts[k] : counts[k];
    if (c >= max_iter)
      ++s.at_limit;
    else if (c >= late_from)
      ++s.late;
  }
  s.interior = std::min(s.interior, s.at_limit);
  return s;
}

AutoIterDecision auto_iterations_after_render(uint64_t current, const IterationStats& s, double share) {
  AutoIterDecision d;
  d.max_iter = current;
  if (current >= kAutoIterCap || s.pixels == 0) return d;
  const uint64_t doubled = std::min<uint64_t>(2ull * current, kAutoIterCap);
  char why[160];
  if (s.interior_known) {
    const uint64_t unresolved = s.at_limit - s.interior, open = s.pixels - s.interior;
    if (open > 0 && static_cast<double>(unresolved) > share * static_cast<double>(open)) {
      std::snprintf(why, sizeof why, "%llu of %llu pixels not proven interior hit the limit %llu",
                    static_cast<unsigned long long>(unresolved), static_cast<unsigned long long>(open),
                    static_cast<unsigned long long>(current));
      d.max_iter = doubled;
      d.reason = why;
    }
    return d;
  }
  if (static_cast<double>(s.late) > share * static_cast<double>(s.pixels)) {
    std::snprintf(why, sizeof why, "%llu of %llu pixels escaped in the top eighth of the limit %llu",
                  static_cast<unsigned long long>(s.late), static_cast<unsigned long long>(s.pixels),
                  static_cast<unsigned long long>(current));
    d.max_iter = doubled;
    d.reason = why;
  }
  return d;
}

}  // namespace ds::mandel
