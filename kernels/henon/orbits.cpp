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

// The walk trees' cut depth: 0 (whole trees, 8 start cells a chunk) to period 12, then one deeper
// a period up to 10 (about a million units; at period 22 the longest of ~4000 chunks was 0.5% of
// the work instead of 17.5% uncut, docs/bench/henon-orbits.md).
int split_depth(const CatalogueParams& p) {
  if (p.split_depth >= 0) return p.split_depth;
  return std::clamp(p.period_max - 12, 0, 10);
}

// Units per chunk (the resume file's block): 8 whole start cells as before the cut (split 0), else
// enough that there are at most about 4096 chunks.
size_t units_per_chunk(int split, size_t units) {
  if (split == 0) return 8;
  return std::max<size_t>(8, (units + 4095) / 4096);
}

// c -> d: some point of closed c maps into closed d. Only the x of c that lands in d's row can
// (y' = b x), so the image's x is taken over that part: tighter than the image of the whole cell.
bool edge(const Map& m, const Grid& grid, int L, const Cell& c, const Cell& d) {
  const Interval xr = x_into(m, grid, L, c, d);
  if (xr.empty()) return false;
  return iv::overlaps(Interval(1.0) + grid.cy(L, c.j) - m.a * iv::sqr(xr), grid.cx(L, d.i));
}

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
                "%s a=%s b=%s region=%s,%a,%a,%a,%a N=%d level=%d refine=%d children=%lld "
                "split=%d",
                kChunkFormat, p.a.c_str(), p.b.c_str(), p.region.quadrilateral ? "quad" : "box", p.region.box[0],
                p.region.box[1], p.region.box[2], p.region.box[3], p.period_max, Lg, p.refine_levels,
                (long long)p.max_children, split_depth(p));
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
  check_chunk_format(p.chunk_file, line);
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
  if (p.split_depth < -1 || p.split_depth > 16)
    throw std::invalid_argument("split-depth must be in [0, 16] (-1: automatic), got " +
                                std::to_string(p.split_depth));
  if (p.threads > 4096) throw std::invalid_argument("threads must be in [1, 4096] (0: every core)");
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
  // cell), pruned by the backward distance to s; each canonical rotation goes to the verifier. The
  // walk trees are cut into units (orbits_walks.cpp), the units grouped into chunks: the resume
  // file's unit, handed out to the threads in order.
  const int N = p.period_max;
  res.counts.assign(size_t(N), PeriodCounts{});
  const int split = split_depth(p);
  res.split_depth = split;
  WalkContext wc;
  wc.g = &g;
  wc.m = &m;
  wc.grid = &grid;
  wc.N = N;
  wc.cancel = p.cancel;
  const WorkUnits units = make_units(wc, split, p.threads);
  if (p.cancel && p.cancel->load()) {
    res.cancelled = true;
    return res;
  }
  res.units = units.size();
  const size_t chunk_units = units_per_chunk(split, size_t(units.size()));
  res.chunks = int64_t((size_t(units.size()) + chunk_units - 1) / chunk_units);
  res.chunk_seconds.assign(size_t(res.chunks), -1.0);
  std::map<int64_t, LoadedChunk> loaded;
  if (!p.chunk_file.empty()) {
    char tail[128];
    std::snprintf(tail, sizeof tail, " cells=%lld edges=%lld units=%lld chunk=%lld", (long long)res.cells,
                  (long long)res.edges, (long long)units.size(), (long long)chunk_units);
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
  Verifier ver;
  ver.map = &m;
  ver.grid = &grid;
  ver.region = &region;
  ver.max_level = Lg + p.refine_levels;
  ver.max_children = p.max_children;
  std::mutex mu;
  ParallelOptions opt;
  opt.cancel = p.cancel;
  opt.progress = p.progress;
  opt.progress_interval = std::chrono::milliseconds(500);
  opt.threads = p.threads;
  std::atomic<bool> stop{false};
  const bool complete = parallel_for(
      size_t(units.size()), chunk_units,
      [&](size_t u0, size_t u1) {
        const int64_t chunk = int64_t(u0 / chunk_units);
        if (loaded.count(chunk)) return;
        const auto c0 = std::chrono::steady_clock::now();
        std::vector<CertifiedOrbit> found;
        std::vector<PeriodCounts> counts(static_cast<size_t>(N));
        if (!run_units(wc, units, int64_t(u0), int64_t(u1), ver, found, counts)) {
          stop = true;
          return;
        }
        const std::string record = p.chunk_file.empty() ? std::string() : chunk_record(chunk, counts, found);
        std::lock_guard<std::mutex> lock(mu);
        if (!p.chunk_file.empty()) append_durable(p.chunk_file, record);
        ++res.chunks_run;
        for (auto& o : found) res.orbits.push_back(std::move(o));
        add_counts(res.counts, counts);
        res.chunk_seconds[size_t(chunk)] =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
      },
      opt);
  res.cancelled = !complete || stop.load();
  // A total order on the enclosures, so the rows never depend on which thread finished first.
  std::sort(res.orbits.begin(), res.orbits.end(), [](const CertifiedOrbit& u, const CertifiedOrbit& v) {
    if (u.period != v.period) return u.period < v.period;
    for (size_t k = 0; k < u.x.size(); ++k) {
      if (u.x[k].lo != v.x[k].lo) return u.x[k].lo < v.x[k].lo;
      if (u.x[k].hi != v.x[k].hi) return u.x[k].hi < v.x[k].hi;
    }
    return false;
  });
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace ds::henon
