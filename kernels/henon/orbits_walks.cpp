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

  // Puts the path p[0..k] (p[0] the start cell) on the stack with its x enclosures, replayed by the
  // same operations as the search that found it (so bit for bit the same).
  void load_path(const int32_t* p, int k) {
    const Graph& g = *c_.g;
    const Map& m = *c_.m;
    for (int q = 0; q <= k; ++q) path_[size_t(q)] = p[q];
    for (int q = 0; q < k; ++q) {
      Interval xq = x_into(m, *c_.grid, g.L, g.cells[size_t(p[q])], g.cells[size_t(p[q + 1])]);
      if (q >= 2)
        xq = iv::intersect(xq, Interval(1.0) + m.b * px_[size_t(q - 2)] - m.a * iv::sqr(px_[size_t(q - 1)]));
      px_[size_t(q)] = xq;
    }
  }

  // Depth-first search below the stacked path[0..k0] (px[0..k0-1] set). A closed walk of length
  // len (> k0) goes to closed(len, path); a step that would stack a path of `cut` edges goes to
  // cut_at(path, cut) instead (cut = INT_MAX: never). False when cancelled.
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
        if (len == cut) {
          cut_at(path_, len);
          continue;
        }
        ++k;
        px_[size_t(k - 1)] = xk;
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
  std::vector<int64_t> it_;
  std::vector<Interval> px_;  // px[k]: enclosure of x_k along the current path
  int64_t polls_ = 0;
};

}  // namespace

WorkUnits make_units(const WalkContext& c, int split, unsigned threads) {
  const size_t V = c.g->cells.size();
  WorkUnits w;
  w.split = split;
  // Per start cell: its cut paths (the head unit has none).
  std::vector<std::vector<int32_t>> cuts(V);
  ParallelOptions opt;
  opt.cancel = c.cancel;
  opt.threads = threads;
  const bool complete = parallel_for(
      V, 16,
      [&](size_t b0, size_t b1) {
        WalkSearch ws(c);
        for (size_t s = b0; s < b1; ++s) {
          if (split == 0) continue;
          ws.set_start(int32_t(s));
          const int32_t s32 = int32_t(s);
          ws.load_path(&s32, 0);
          auto& out = cuts[s];
          if (!ws.explore(
                  0, split, [](int, const std::vector<int32_t>&) {},
                  [&](const std::vector<int32_t>& p, int len) { out.insert(out.end(), p.begin(), p.begin() + len + 1); }))
            return;
        }
      },
      opt);
  if (!complete || (c.cancel && c.cancel->load())) return WorkUnits{};
  size_t units = V, cells = 0;
  for (const auto& v : cuts) units += v.size() / size_t(split + 1), cells += v.size();
  w.start.reserve(units);
  w.path_off.reserve(units + 1);
  w.path.reserve(cells);
  w.path_off.push_back(0);
  for (size_t s = 0; s < V; ++s) {
    w.start.push_back(int32_t(s));  // the head unit
    w.path_off.push_back(int64_t(w.path.size()));
    if (split == 0) continue;
    const auto& v = cuts[s];
    for (size_t q = 0; q < v.size(); q += size_t(split + 1)) {
      w.start.push_back(int32_t(s));
      w.path.insert(w.path.end(), v.begin() + q, v.begin() + q + split + 1);
      w.path_off.push_back(int64_t(w.path.size()));
    }
    std::vector<int32_t>().swap(cuts[s]);
  }
  return w;
}

bool run_units(const WalkContext& c, const WorkUnits& w, size_t u0, size_t u1, Verifier ver,
               std::vector<CertifiedOrbit>& found, std::vector<PeriodCounts>& counts) {
  const Graph& g = *c.g;
  WalkSearch ws(c);
  std::vector<Cell> walk;
  ver.out = &found;
  auto closed = [&](int len, const std::vector<int32_t>& path) {
    walk.clear();
    for (int q = 0; q < len; ++q) walk.push_back(g.cells[size_t(path[size_t(q)])]);
    if (!minimal_rotation(walk, 1)) return;
    PeriodCounts& pc = counts[size_t(len - 1)];
    ++pc.walks;
    ver.counts = &pc;
    ver.run(g.L, walk);
  };
  auto no_cut = [](const std::vector<int32_t>&, int) {};
  for (size_t u = u0; u < u1; ++u) {
    const int32_t s = w.start[u];
    ws.set_start(s);
    const int64_t p0 = w.path_off[u], p1 = w.path_off[u + 1];
    bool done;
    if (p0 == p1) {  // head unit: walks of length <= split (all of them when split is 0)
      ws.load_path(&s, 0);
      done = ws.explore(0, w.split ? w.split : INT_MAX, closed, no_cut);
    } else {
      ws.load_path(&w.path[size_t(p0)], w.split);
      done = ws.explore(w.split, INT_MAX, closed, no_cut);
    }
    if (!done) return false;
  }
  return true;
}

}  // namespace ds::henon::orbits_detail
