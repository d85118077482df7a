// `bench perturb --peer f3` (app/bench/peer_f3.cpp, issue #48): Fraktaler-3, the CPU deep zoomer a
// user would pick instead, timed beside deepscope on the same cores, and the two images compared
// pixel for pixel, with MPFR saying which is wrong where they differ. The peer stays out of the
// tree: tools/peers/fraktaler3.sh builds it into .peers/fraktaler3/build.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/io/location.h"

namespace ds::app {

// F3's parameter file for `loc` at w x h (tools/peers/loc2f3.py writes the same): the location's
// decimal strings; the iteration limit also as F3's per-pixel caps on perturbation and BLA steps
// (its defaults of 1024 stop a pixel early and draw it as never escaping); escape radius 2, as
// ours (the first n with |z_n| > 2); one sample a pixel, one subframe, so that F3 writes its raw
// counts to exr_stem.exr.
std::string f3_toml(const Location& loc, uint64_t iterations, int w, int h, const std::string& exr_stem);

// F3's raw count channel (N, or N0 and N1 for 64 bits) as counts in deepscope's convention: rows
// flipped (F3's row 0 is the bottom of the view), F3's bias of 1024 removed, max_iter where it
// never escaped (all ones).
std::vector<uint64_t> f3_counts(const std::vector<uint64_t>& raw, bool wide, int w, int h, uint64_t max_iter);

// Two images' counts (deepscope's 0: undecided, marked), pixel by pixel.
struct PeerCompare {
  long long offset = 0;        // the most common peer - ours over pixels both escaped (0 expected)
  std::size_t both_escaped = 0;
  std::size_t peer_inside = 0, ours_inside = 0;  // never escaped
  std::size_t ours_undecided = 0;
  // Pixels where the two differ by more than one (after the offset), or one escaped and the other
  // did not; ours undecided are not among them.
  std::vector<std::size_t> differ;
  long double peer_iterations = 0, ours_iterations = 0;  // inside counted as max_iter
};
PeerCompare compare_with_peer(const std::vector<uint64_t>& peer, const std::vector<uint64_t>& ours, uint64_t max_iter);

int bench_perturb_peer(const ArgList& args);

}  // namespace ds::app
