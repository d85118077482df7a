// The periodic-orbit catalogue's driver: input checks, the region, the cover graph of the region's
// invariant part (subdivision and pruning), and the enumeration of its closed walks, each handed to
// the verifier (orbits_verify.cpp). docs/henon.md, "Periodic orbits", states what it proves.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/core/atomic_file.h"
#include "kernels/core/cpu_parallel.h"
#include "kernels/core/input_file.h"
#include "orbits_internal.h"

namespace ds::henon {

using namespace orbits_detail;
using iv::Interval;

namespace orbits_detail {

Interval Region::edge_test(int k, Interval X, Interval Y) const {
  const Interval vx(v[2 * k]), vy(v[2 * k + 1]);
  const Interval ex = Interval(v[(2 * k + 2) % 8]) - vx, ey = Interval(v[(2 * k + 3) % 8]) - vy;
  return ex * (Y - vy) - ey * (X - vx);  // cross product; >= 0 on the inside (counterclockwise)
}

bool Region::may_meet(Interval X, Interval Y) const {
  if (!quad) return X.hi >= box[0] && X.lo <= box[1] && Y.hi >= box[2] && Y.lo <= box[3];
  for (int k = 0; k < 4; ++k)
    if (edge_test(k, X, Y).hi < 0) return false;
  return true;
}

int Region::contains(Interval X, Interval Y) const {
  if (!quad) {
    if (X.lo >= box[0] && X.hi <= box[1] && Y.lo >= box[2] && Y.hi <= box[3]) return 1;
    if (X.hi < box[0] || X.lo > box[1] || Y.hi < box[2] || Y.lo > box[3]) return 0;
    return -1;
  }
  bool all = true;
  for (int k = 0; k < 4; ++k) {
    const Interval t = edge_test(k, X, Y);
    if (t.hi < 0) return 0;
    if (!(t.lo >= 0)) all = false;
  }
  return all ? 1 : -1;
}

}  // namespace orbits_detail

namespace {

double parse_param(const char* what, const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
    throw std::invalid_argument(std::string(what) + " must be a finite decimal number, got \"" + s + "\"");
  return v;
}

// The double nearest a decimal is within half an ulp of it: its neighbours enclose the decimal.
Interval enclose(double v) { return {iv::next_down(v), iv::next_up(v)}; }

Region make_region(const OrbitRegion& r) {
  Region g;
  g.quad = r.quadrilateral;
  // Counterclockwise: (-1.33, 0.42) -> (-1.06, -0.5) -> (1.245, -0.14) -> (1.32, 0.133).
  g.v = {-1.33, 0.42, -1.06, -0.5, 1.245, -0.14, 1.32, 0.133};
  for (int k = 0; k < 4; ++k) g.box[k] = r.box[k];
  return g;
}

// The grid's base box: the region's bounding box, widened a little, with dyadic-friendly numbers
// for the quadrilateral.
Grid make_grid(const OrbitRegion& r) {
  Grid g;
  if (r.quadrilateral) {
    g.x0 = -1.5, g.w = 3.0, g.y0 = -0.625, g.h = 1.25;
  } else {
    const double mx = 0.01 * (r.box[1] - r.box[0]) + 1e-9, my = 0.01 * (r.box[3] - r.box[2]) + 1e-9;
    g.x0 = r.box[0] - mx, g.w = (r.box[1] - r.box[0]) + 2 * mx;
    g.y0 = r.box[2] - my, g.h = (r.box[3] - r.box[2]) + 2 * my;
  }
  return g;
}

// Level 9 (cells 3/512 x 1.25/512 for the quadrilateral): fastest of 7..10 to period 16
// (docs/bench/henon-orbits.md).
int auto_level(int) { return 9; }

// The x of cell c that lands in the row of cell d (y' = b x), or empty.
Interval x_into(const Map& m, const Grid& grid, int L, const Cell& c, const Cell& d) {
  return iv::intersect(grid.cx(L, c.i), grid.cy(L, d.j) / m.b);
}

// c -> d: some point of closed c maps into closed d. Only the x of c that lands in d's row can
// (y' = b x), so the image's x is taken over that part: tighter than the image of the whole cell.
bool edge(const Map& m, const Grid& grid, int L, const Cell& c, const Cell& d) {
  const Interval xr = x_into(m, grid, L, c, d);
  if (xr.empty()) return false;
  return iv::overlaps(Interval(1.0) + grid.cy(L, c.j) - m.a * iv::sqr(xr), grid.cx(L, d.i));
}

// The cover graph at one level: cells, out-edges (CSR) and in-edges.
struct Graph {
  int L = 0;
  std::vector<Cell> cells;
  std::vector<int64_t> out_start, in_start;
  std::vector<int32_t> out, in;
};

// Edges between the given cells of level L (closed cells meeting the closed image), then the
// invariant part: cells without an in- or an out-edge are removed until none is left.
Graph build_graph(const Map& m, const Grid& grid, int L, std::vector<Cell> cells) {
  const int64_t side = int64_t(1) << L;
  // Index order = cell order: the enumeration's smallest index is the canonical rotation's start.
  std::sort(cells.begin(), cells.end());
  for (;;) {
    std::vector<int32_t> index(size_t(side * side), -1);
    for (size_t c = 0; c < cells.size(); ++c) index[size_t(cells[c].i * side + cells[c].j)] = int32_t(c);
    const double cw = std::ldexp(grid.w, -L), ch = std::ldexp(grid.h, -L);
    std::vector<std::vector<int32_t>> succ(cells.size());
    for (size_t c = 0; c < cells.size(); ++c) {
      Interval nx, ny;
      image(m, grid.cx(L, cells[c].i), grid.cy(L, cells[c].j), nx, ny);
      // Index ranges with a margin of one cell, then the exact closed overlap test.
      const int64_t i0 = std::max<int64_t>(0, int64_t(std::floor((nx.lo - grid.x0) / cw)) - 1);
      const int64_t i1 = std::min<int64_t>(side - 1, int64_t(std::floor((nx.hi - grid.x0) / cw)) + 1);
      const int64_t j0 = std::max<int64_t>(0, int64_t(std::floor((ny.lo - grid.y0) / ch)) - 1);
      const int64_t j1 = std::min<int64_t>(side - 1, int64_t(std::floor((ny.hi - grid.y0) / ch)) + 1);
      for (int64_t i = i0; i <= i1; ++i)
        for (int64_t j = j0; j <= j1; ++j) {
          const int32_t t = index[size_t(i * side + j)];
          if (t >= 0 && edge(m, grid, L, cells[c], cells[size_t(t)])) succ[c].push_back(t);
        }
    }
    std::vector<int> indeg(cells.size(), 0);
    for (const auto& s : succ)
      for (int32_t t : s) ++indeg[t];
    std::vector<char> keep(cells.size(), 1);
    bool removed = false;
    for (size_t c = 0; c < cells.size(); ++c)
      if (succ[c].empty() || indeg[c] == 0) keep[c] = 0, removed = true;
    if (!removed) {
      Graph g;
      g.L = L;
      g.cells = std::move(cells);
      const size_t V = g.cells.size();
      g.out_start.assign(V + 1, 0);
      g.in_start.assign(V + 1, 0);
      for (size_t c = 0; c < V; ++c) g.out_start[c + 1] = g.out_start[c] + int64_t(succ[c].size());
      for (size_t c = 0; c < V; ++c) g.in_start[c + 1] = g.in_start[c] + indeg[c];
      g.out.resize(size_t(g.out_start[V]));
      g.in.resize(size_t(g.in_start[V]));
      std::vector<int64_t> fill(g.in_start.begin(), g.in_start.end() - 1);
      for (size_t c = 0; c < V; ++c) {
        std::sort(succ[c].begin(), succ[c].end());
        std::copy(succ[c].begin(), succ[c].end(), g.out.begin() + g.out_start[c]);
        for (int32_t t : succ[c]) g.in[size_t(fill[t]++)] = int32_t(c);
      }
      return g;
    }
    std::vector<Cell> kept;
    for (size_t c = 0; c < cells.size(); ++c)
      if (keep[c]) kept.push_back(cells[c]);
    cells = std::move(kept);
  }
}

void add_counts(std::vector<PeriodCounts>& to, const std::vector<PeriodCounts>& from) {
  for (size_t n = 0; n < to.size() && n < from.size(); ++n) {
    PeriodCounts& a = to[n];
    const PeriodCounts& c = from[n];
    a.orbits += c.orbits, a.outside += c.outside, a.undecided += c.undecided, a.walks += c.walks;
    a.sinks += c.sinks, a.saddles += c.saddles;
  }
}

// The resume file's header up to the graph's size (which only building the graph tells).
std::string chunk_header_start(const CatalogueParams& p) {
  const int Lg = p.graph_level ? p.graph_level : auto_level(p.period_max);
  char head[448];
  std::snprintf(head, sizeof head,
                "deepscope henon orbits v1 a=%s b=%s region=%s,%a,%a,%a,%a N=%d level=%d refine=%d children=%lld",
                p.a.c_str(), p.b.c_str(), p.region.quadrilateral ? "quad" : "box", p.region.box[0],
                p.region.box[1], p.region.box[2], p.region.box[3], p.period_max, Lg, p.refine_levels,
                (long long)p.max_children);
  return head;
}

bool file_is_nonempty(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  const bool any = std::fgetc(f) != EOF;
  std::fclose(f);
  return any;
}

}  // namespace

void check_catalogue_chunk_file(const CatalogueParams& p) {
  if (p.chunk_file.empty() || !file_is_nonempty(p.chunk_file)) return;
  const std::string start = chunk_header_start(p) + " cells=";
  const std::string text = read_input_head(p.chunk_file, "chunk file", 600);
  const std::string line = text.substr(0, text.find('\n'));
  if (line.compare(0, start.size(), start) != 0)
    throw std::invalid_argument("chunk file \"" + p.chunk_file + "\" belongs to another catalogue (its header is \"" +
                                line.substr(0, 200) + "\"); remove it or name another with --chunk-file");
}

double estimate_catalogue_bytes(const CatalogueParams& p) {
  // Orbits of least period n grow like e^{h n} / n with h about 0.47 at (1.4, 0.3) (Galias); each
  // holds 4 intervals per point. The graph at level 9 takes about 50 MB.
  double bytes = 64e6;
  for (int n = 1; n <= p.period_max; ++n) bytes += std::exp(0.5 * n) / n * (96.0 + 64.0 * n);
  return bytes;
}

CatalogueResult catalogue(const CatalogueParams& p) {
  const auto t0 = std::chrono::steady_clock::now();
  CatalogueResult res;
  res.a = parse_param("a", p.a);
  res.b = parse_param("b", p.b);
  if (res.b == 0) throw std::invalid_argument("b must be nonzero (the map is not invertible at b = 0)");
  if (std::fabs(res.a) > 1e3 || std::fabs(res.b) > 1e3)
    throw std::invalid_argument("a and b must be within [-1000, 1000]");
  if (p.period_max < 1 || p.period_max > 1000)
    throw std::invalid_argument("period-max must be in [1, 1000], got " + std::to_string(p.period_max));
  if (!p.region.quadrilateral) {
    const double* b = p.region.box;
    for (int k = 0; k < 4; ++k)
      if (!std::isfinite(b[k]) || std::fabs(b[k]) > 1e3)
        throw std::invalid_argument("region: box bounds must be finite and within [-1000, 1000]");
    if (!(b[0] < b[1]) || !(b[2] < b[3]))
      throw std::invalid_argument("region: box must have x_lo < x_hi and y_lo < y_hi (empty or inverted)");
  }
  if (p.graph_level < 0 || p.graph_level > 12)
    throw std::invalid_argument("graph-level must be in [1, 12] (0: automatic)");
  if (p.refine_levels < 0 || p.refine_levels > 30)
    throw std::invalid_argument("refine-levels must be in [0, 30]");
  const double need = estimate_catalogue_bytes(p);
  if (!(need <= p.memory_budget_bytes)) {
    char b[160];
    std::snprintf(b, sizeof b, " needs an estimated %.3g GB, over the memory budget of %.3g GB", need / 1e9,
                  p.memory_budget_bytes / 1e9);
    throw std::invalid_argument("period-max " + std::to_string(p.period_max) + b);
  }

  Map m{enclose(res.a), enclose(res.b)};
  const Region region = make_region(p.region);
  const Grid grid = make_grid(p.region);
  const int Lg = p.graph_level ? p.graph_level : auto_level(p.period_max);
  res.graph_level = Lg;
  res.cover[0] = grid.x0, res.cover[1] = grid.x0 + grid.w, res.cover[2] = grid.y0,
  res.cover[3] = grid.y0 + grid.h;
  res.cell_w = std::ldexp(grid.w, -Lg), res.cell_h = std::ldexp(grid.h, -Lg);

  // Subdivision: children of kept cells that may meet the region, pruned to the invariant part.
  std::vector<Cell> cells = {{0, 0}};
  Graph g;
  for (int L = 1; L <= Lg; ++L) {
    std::vector<Cell> next;
    for (const Cell& c : cells)
      for (int di = 0; di < 2; ++di)
        for (int dj = 0; dj < 2; ++dj) {
          const Cell d{2 * c.i + di, 2 * c.j + dj};
          if (region.may_meet(grid.cx(L, d.i), grid.cy(L, d.j))) next.push_back(d);
        }
    g = build_graph(m, grid, L, std::move(next));
    cells = g.cells;
    if (p.cancel && p.cancel->load()) {
      res.cancelled = true;
      return res;
    }
  }
  res.cells = int64_t(g.cells.size());
  res.edges = int64_t(g.out.size());

  // Closed walks of length n <= N through start s, over cells >= s (s is the walk's smallest
  // cell), pruned by the backward distance to s; each canonical rotation goes to the verifier.
  const int N = p.period_max;
  const int V = int(g.cells.size());
  res.counts.assign(size_t(N), PeriodCounts{});
  constexpr size_t kChunk = 8;  // start cells per chunk (the resume file's unit)
  res.chunks = int64_t((size_t(V) + kChunk - 1) / kChunk);
  std::map<int64_t, LoadedChunk> loaded;
  if (!p.chunk_file.empty()) {
    char tail[96];
    std::snprintf(tail, sizeof tail, " cells=%lld edges=%lld", (long long)res.cells, (long long)res.edges);
    const std::string header = chunk_header_start(p) + tail;
    if (file_is_nonempty(p.chunk_file))
      loaded = load_chunks(p.chunk_file, header, m, N);
    else
      write_file_atomically(p.chunk_file, header + "\n");
    for (auto& [c, block] : loaded) {
      if (c < 0 || c >= res.chunks) continue;
      ++res.chunks_loaded;
      for (auto& o : block.orbits) res.orbits.push_back(std::move(o));
      add_counts(res.counts, block.counts);
    }
  }
  std::mutex mu;
  ParallelOptions opt;
  opt.cancel = p.cancel;
  opt.progress = p.progress;
  opt.progress_interval = std::chrono::milliseconds(500);
  std::atomic<bool> stop{false};
  const bool complete = parallel_for(
      size_t(V), kChunk,
      [&](size_t b0, size_t b1) {
        const int64_t chunk = int64_t(b0 / kChunk);
        if (loaded.count(chunk)) return;
        std::vector<int> dist(size_t(V), N + 1);
        std::vector<int32_t> touched, frontier, nextf;
        std::vector<CertifiedOrbit> found;
        std::vector<PeriodCounts> counts(static_cast<size_t>(N));
        std::vector<int32_t> path(size_t(N) + 1);
        std::vector<int64_t> it(size_t(N) + 1);
        std::vector<Interval> px(size_t(N) + 1);  // px[k]: enclosure of x_k along the current path
        std::vector<Cell> walk;
        int64_t polls = 0;
        for (size_t s = b0; s < b1; ++s) {
          for (int32_t t : touched) dist[size_t(t)] = N + 1;
          touched.clear();
          dist[s] = 0;
          touched.push_back(int32_t(s));
          frontier.assign(1, int32_t(s));
          for (int d = 1; d < N && !frontier.empty(); ++d) {
            nextf.clear();
            for (int32_t v : frontier)
              for (int64_t e = g.in_start[size_t(v)]; e < g.in_start[size_t(v) + 1]; ++e) {
                const int32_t u = g.in[size_t(e)];
                if (u < int32_t(s) || dist[size_t(u)] <= N) continue;
                dist[size_t(u)] = d;
                touched.push_back(u);
                nextf.push_back(u);
              }
            frontier.swap(nextf);
          }
          // Iterative DFS: path[0..k] with path[0] = s; it[k] walks path[k]'s out-edges.
          int k = 0;
          path[0] = int32_t(s);
          it[0] = g.out_start[s];
          while (k >= 0) {
            if ((++polls & 4095) == 0 && p.cancel && p.cancel->load(std::memory_order_relaxed)) {
              stop = true;
              return;
            }
            const int32_t v = path[size_t(k)];
            if (it[size_t(k)] >= g.out_start[size_t(v) + 1]) {
              --k;
              continue;
            }
            const int32_t w = g.out[size_t(it[size_t(k)]++)];
            if (w < int32_t(s)) continue;
            const int len = k + 1;  // edges so far, w included
            // x_k: in cell k, landing in w's row, and (k >= 2) equal to 1 + b x_{k-2} - a x_{k-1}^2
            // with x_{k-2}, x_{k-1} the enclosures already narrowed along the path.
            Interval xk = x_into(m, grid, Lg, g.cells[size_t(v)], g.cells[size_t(w)]);
            if (k >= 2)
              xk = iv::intersect(xk,
                                 Interval(1.0) + m.b * px[size_t(k - 2)] - m.a * iv::sqr(px[size_t(k - 1)]));
            if (xk.empty()) continue;
            if (w == int32_t(s)) {
              walk.clear();
              for (int q = 0; q < len; ++q) walk.push_back(g.cells[size_t(path[size_t(q)])]);
              if (minimal_rotation(walk, 1)) {
                PeriodCounts& pc = counts[size_t(len - 1)];
                ++pc.walks;
                Verifier ver;
                ver.map = &m;
                ver.grid = &grid;
                ver.region = &region;
                ver.max_level = Lg + p.refine_levels;
                ver.max_children = p.max_children;
                ver.out = &found;
                ver.counts = &pc;
                ver.run(Lg, walk);
              }
            }
            if (len < N && dist[size_t(w)] <= N - len) {
              ++k;
              path[size_t(k)] = w;
              px[size_t(k - 1)] = xk;
              it[size_t(k)] = g.out_start[size_t(w)];
            }
          }
        }
        std::lock_guard<std::mutex> lock(mu);
        if (!p.chunk_file.empty()) append_durable(p.chunk_file, chunk_record(chunk, counts, found));
        ++res.chunks_run;
        for (auto& o : found) res.orbits.push_back(std::move(o));
        add_counts(res.counts, counts);
      },
      opt);
  res.cancelled = !complete || stop.load();
  std::sort(res.orbits.begin(), res.orbits.end(), [](const CertifiedOrbit& u, const CertifiedOrbit& v) {
    if (u.period != v.period) return u.period < v.period;
    return u.x[0].lo < v.x[0].lo;
  });
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace ds::henon
