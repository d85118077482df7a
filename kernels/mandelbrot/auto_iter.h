// KF's auto-iterations: the iteration limit raised from a found minibrot's period and from what a
// render's counts say (too many pixels still iterating at the limit). One rule for the window's
// "auto iterations" checkbox and `render --auto-iter`. docs/finder.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ds::mandel {

// The largest limit the rule sets: the window's iteration field's own maximum.
constexpr uint32_t kAutoIterCap = 100000000;

// A minibrot of period p was found: its interior needs many periods to tell from the
// neighbourhood, so max(current, 64 p), capped at kAutoIterCap (never lowered).
uint64_t auto_iterations_for_period(uint64_t current, uint64_t period);

// What a finished render says about its limit.
struct IterationStats {
  uint64_t pixels = 0;          // all pixels of the frame
  uint64_t at_limit = 0;        // pixels with count == max_iter (interior and unresolved alike)
  uint64_t interior = 0;        // of those, proven interior (perturbation's interior check)
  bool interior_known = false;  // the render proved interior pixels (else interior is 0 by default)
  uint64_t late = 0;            // escaped pixels whose count is in the top eighth of the limit
};
// counts: a frame's escape counts (max_iter where no escape); counts_high: their high words where
// max_iter >= 2^32 (kernels/mandelbrot/counts.h), else empty.
IterationStats iteration_stats(const std::vector<uint32_t>& counts, uint64_t max_iter, uint64_t interior,
                               bool interior_known, const std::vector<uint32_t>& counts_high = {});

// After a render: the limit to render with next (== current when it is enough), and why.
// - Interior proven (perturbation): more than `share` of the pixels not proven interior hit the
//   limit: they may still escape, so the limit doubles.
// - Otherwise a pixel at the limit may as well be interior; what shows the limit is too low is
//   more than `share` of the pixels escaping in the top eighth of it (the escape times have not
//   thinned out before the limit), and the limit doubles. A share, not any one pixel: near a
//   boundary some pixel escapes late at every limit, and the limit would double without end.
struct AutoIterDecision {
  uint64_t max_iter = 0;
  std::string reason;  // empty when unchanged
};
AutoIterDecision auto_iterations_after_render(uint64_t current, const IterationStats& s,
                                              double share = 0.001);

}  // namespace ds::mandel
