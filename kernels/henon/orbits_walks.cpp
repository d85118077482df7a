// The catalogue's walk search: closed walks of the cover graph through each start cell (its
// smallest cell), by a depth-first search pruned by the backward distance to the start and by the
// x enclosures narrowed along the path, cut into work units at a fixed depth (orbits_internal.h).
#include <algorithm>
#include <climits>

#include "kernels/core/cpu_parallel.h"
#include "orbits_internal.h"

namespace ds::henon::orbits_detail {

namespace {

// One thread's search state: distances for the current start cell and the depth-first path.
class WalkSearch {
 public:
  explicit WalkSearch(const WalkContext& c)
      : c_(c),
        dist_(c.g->cells.size(), c.N + 1),
        path_(size_t(c.N) + 1),
        it_(size_t(c.N) + 1),
        px_(size_t(c.N) + 1) {}

  // Backward distances to s over cells >= s (a walk of length <= N through a cell u returns to s
  // only if dist[u] <= N minus the edges walked to u).
  void set_start(int32_t s) {
    if (s == s_) return;
    s_ = s;
    const Graph& g = *c_.g;
    const int N = c_.N;
    for (int32_t t : touched_) dist_[size_t(t)] = N + 1;
    touched_.clear();
    dist_[size_t(s)] = 0;
    touched_.push_back(s);
    frontier_.assign(1, s);
    for (int d = 1; d < N && !frontier_.empty(); ++d) {
      next_.clear();
      for (int32_t v : frontier_)
        for (int64_t e = g.in_start[size_t(v)]; e < g.in_start[size_t(v) + 1]; ++e) {
          const int32_t u = g.in[size_t(e)];
          if (u < s || dist_[size_t(u)] <= N) continue;
          dist_[size_t(u)] = d;
          touched_.push_back(u);
          next_.push_back(u);
        }
      frontier_.swap(next_);
    }
  }

  // Stacks the start cell as the path (depth 0).
  void start_path() { path_[0] = s_; }

  // Depth-first search below the stacked path[0..k0] (px[0..k0-1] set). A closed walk of length
  // len (> k0) goes to closed(len, path); a step that would stack a path of `cut` edges goes to
  // cut_at(cut) instead (cut = INT_MAX: never), with path[0..cut] and px[0..cut-1] set, and stops
  // the search when that returns false. False when cancelled.
  template <class Closed, class Cut>
  bool explore(int k0, int cut, Closed&& closed, Cut&& cut_at) {
    const Graph& g = *c_.g;
    const Map& m = *c_.m;
    const int N = c_.N;
    const int32_t s = path_[0];
    int k = k0;
    it_[size_t(k)] = g.out_start[size_t(path_[size_t(k)])];
    while (k >= k0) {
      if ((++polls_ & 4095) == 0 && c_.cancel && c_.cancel->load(std::memory_order_relaxed)) return false;
      const int32_t v = path_[size_t(k)];
      if (it_[size_t(k)] >= g.out_start[size_t(v) + 1]) {
        --k;
        continue;
      }
      const int32_t w = g.out[size_t(it_[size_t(k)]++)];
      if (w < s) continue;
      const int len = k + 1;  // edges so far, w included
      // x_k: in cell k, landing in w's row, and (k >= 2) equal to 1 + b x_{k-2} - a x_{k-1}^2
      // with x_{k-2}, x_{k-1} the enclosures already narrowed along the path.
      Interval xk = x_into(m, *c_.grid, g.L, g.cells[size_t(v)], g.cells[size_t(w)]);
      if (k >= 2)
        xk = iv::intersect(xk, Interval(1.0) + m.b * px_[size_t(k - 2)] - m.a * iv::sqr(px_[size_t(k - 1)]));
      if (xk.empty()) continue;
      if (w == s) closed(len, path_);
      if (len < N && dist_[size_t(w)] <= N - len) {
        path_[size_t(k + 1)] = w;
        px_[size_t(k)] = xk;
        if (len == cut) {
          if (!cut_at(len)) return true;
          continue;
        }
        ++k;
        it_[size_t(k)] = g.out_start[size_t(w)];
      }
    }
    return true;
  }

 private:
  WalkContext c_;
  int32_t s_ = -1;
  std::vector<int> dist_;
  std::vector<int32_t> touched_, frontier_, next_;
  std::vector<int32_t> path_;
  std::vector<int64_t> it_;  // it[k]: the next out-edge of path[k] to try
  std::vector<Interval> px_;  // px[k]: enclosure of x_k along the current path
  int64_t polls_ = 0;
};

}  // namespace

WorkUnits make_units(const WalkContext& c, int split, unsigned threads) {
  const size_t V = c.g->cells.size();
  std::vector<int64_t> count(V, 1);  // the head unit, plus one per cut path
  ParallelOptions opt;
  opt.cancel = c.cancel;
  opt.threads = threads;
  bool stopped = false;
  if (split > 0)
    stopped = !parallel_for(
        V, 16,
        [&](size_t b0, size_t b1) {
          WalkSearch ws(c);
          for (size_t s = b0; s < b1; ++s) {
            ws.set_start(int32_t(s));
            ws.start_path();
            int64_t& n = count[s];
            if (!ws.explore(
                    0, split, [](int, const std::vector<int32_t>&) {}, [&](int) { return ++n, true; }))
              return;
          }
        },
        opt);
  WorkUnits w;
  if (stopped || (c.cancel && c.cancel->load())) return w;
  w.split = split;
  w.first.assign(V + 1, 0);
  for (size_t s = 0; s < V; ++s) w.first[s + 1] = w.first[s] + count[s];
  return w;
}

bool run_units(const WalkContext& c, const WorkUnits& w, int64_t u0, int64_t u1, Verifier ver,
               std::vector<CertifiedOrbit>& found, std::vector<PeriodCounts>& counts) {
  const Graph& g = *c.g;
  WalkSearch ws(c);
  std::vector<Cell> walk;
  ver.out = &found;
  auto verify = [&](int len, const std::vector<int32_t>& path) {
    walk.clear();
    for (int q = 0; q < len; ++q) walk.push_back(g.cells[size_t(path[size_t(q)])]);
    if (!minimal_rotation(walk, 1)) return;
    PeriodCounts& pc = counts[size_t(len - 1)];
    ++pc.walks;
    ver.counts = &pc;
    ver.run(g.L, walk);
  };
  auto skip = [](int, const std::vector<int32_t>&) {};
  // The start cells whose units meet [u0, u1).
  size_t s = size_t(std::upper_bound(w.first.begin(), w.first.end(), u0) - w.first.begin()) - 1;
  for (; s + 1 < w.first.size() && w.first[s] < u1; ++s) {
    const int64_t lo = std::max<int64_t>(u0 - w.first[s], 0), hi = std::min(u1, w.first[s + 1]) - w.first[s];
    ws.set_start(int32_t(s));
    ws.start_path();
    bool done;
    if (w.split == 0) {
      done = ws.explore(0, INT_MAX, verify, [](int) { return true; });
    } else {
      // One cut search: its short walks when unit 0 is in range, and the subtrees of the cut
      // paths numbered lo..hi-1; without unit 0 it stops after the last (the short walks lie
      // anywhere in the search order, so with it the cut search runs to its end).
      int64_t q = 0;
      bool cancelled = false;
      auto below = [&](int len) {
        ++q;
        if (q >= lo && q < hi && !ws.explore(len, INT_MAX, verify, [](int) { return true; })) cancelled = true;
        return !cancelled && (lo == 0 || q + 1 < hi);
      };
      done = lo == 0 ? ws.explore(0, w.split, verify, below) : ws.explore(0, w.split, skip, below);
      done = done && !cancelled;
    }
    if (!done) return false;
  }
  return true;
}

}  // namespace ds::henon::orbits_detail
