// Shared by orbits.cpp, orbits_walks.cpp and orbits_verify.cpp: the dyadic cell grid, the region
// tests, the cover graph, the walk search's work units, and one box sequence's verification.
#pragma once
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "orbits.h"

namespace ds::henon::orbits_detail {

using iv::Interval;

// Cells of level L: [bx(L, i), bx(L, i + 1)) x [by(L, j), by(L, j + 1)), i, j in [0, 2^L). Every
// point of the base box lies in exactly one half-open cell of each level; a cell's four children
// (level L + 1, 2i + di, 2j + dj) share its boundary values exactly (x0 + i w 2^-L rounds the same
// exact product either way), so membership is consistent across levels.
struct Grid {
  double x0 = 0, y0 = 0, w = 1, h = 1;
  double bx(int L, int64_t i) const { return x0 + double(i) * std::ldexp(w, -L); }
  double by(int L, int64_t j) const { return y0 + double(j) * std::ldexp(h, -L); }
  Interval cx(int L, int64_t i) const { return {bx(L, i), bx(L, i + 1)}; }
  Interval cy(int L, int64_t j) const { return {by(L, j), by(L, j + 1)}; }
};

struct Region {
  bool quad = true;
  std::array<double, 8> v{};  // quadrilateral vertices x0 y0 x1 y1 ... (counterclockwise)
  double box[4] = {0, 0, 0, 0};
  // Per edge: the interval of the inside test over a box (>= 0 inside, < 0 outside).
  Interval edge_test(int k, Interval X, Interval Y) const;
  bool may_meet(Interval X, Interval Y) const;  // false only when the box is certainly outside
  int contains(Interval X, Interval Y) const;   // 1 certainly inside, 0 certainly outside, -1 unknown
};

// The image of a closed box under h, outward rounded.
inline void image(const Map& m, Interval X, Interval Y, Interval& NX, Interval& NY) {
  NX = Interval(1.0) + Y - m.a * iv::sqr(X);
  NY = m.b * X;
}

struct Cell {
  int64_t i, j;
  bool operator<(const Cell& o) const { return i != o.i ? i < o.i : j < o.j; }
  bool operator==(const Cell& o) const { return i == o.i && j == o.j; }
};

// The x of cell c that lands in the row of cell d (y' = b x), or empty.
inline Interval x_into(const Map& m, const Grid& grid, int L, const Cell& c, const Cell& d) {
  return iv::intersect(grid.cx(L, c.i), grid.cy(L, d.j) / m.b);
}

// Everything one box sequence's verification needs, and where it reports.
struct Verifier {
  const Map* map = nullptr;
  const Grid* grid = nullptr;
  const Region* region = nullptr;
  int max_level = 0;
  int64_t max_children = 0;
  std::vector<CertifiedOrbit>* out = nullptr;
  PeriodCounts* counts = nullptr;  // of this period
  // Verifies the closed walk `w` of level L (a canonical rotation; `rot_step` is its rotation
  // period: children are kept only when minimal among rotations by multiples of it).
  void run(int L, const std::vector<Cell>& w);
};

// The cover graph at one level: cells (sorted: index order = cell order), out-edges (CSR) and
// in-edges.
struct Graph {
  int L = 0;
  std::vector<Cell> cells;
  std::vector<int64_t> out_start, in_start;
  std::vector<int32_t> out, in;
};

// The search's pieces of work (orbits_walks.cpp). The closed walks through start cell s (their
// smallest cell) form a depth-first tree; it is cut at depth `split`: unit 0 of s holds its closed
// walks of length <= split, and unit q >= 1 the closed walks that begin with the q-th path of
// `split` edges (in search order) that the search goes on from. split 0: one unit per start cell
// (the whole tree). Units are numbered start cell by start cell; only the counts are kept (a unit's
// path is found again by the cut search), and they depend only on the graph, N and split, never on
// the thread count.
struct WorkUnits {
  int split = 0;
  std::vector<int64_t> first;  // per start cell, plus one: the number of its first unit
  int64_t size() const { return first.empty() ? 0 : first.back(); }
};

// What the walk search reads: the graph, the map, the grid level and the longest period.
struct WalkContext {
  const Graph* g = nullptr;
  const Map* m = nullptr;
  const Grid* grid = nullptr;
  int N = 0;
  const std::atomic<bool>* cancel = nullptr;
};

// The units for every start cell, in start-cell order (parallel over start cells). Empty when
// cancelled.
WorkUnits make_units(const WalkContext& c, int split, unsigned threads);
// Runs units [u0, u1): every closed walk (a canonical rotation) goes to `ver` (its out and counts
// set per walk from `found` and `counts`, index n - 1). False when cancelled part way.
bool run_units(const WalkContext& c, const WorkUnits& w, int64_t u0, int64_t u1, Verifier ver,
               std::vector<CertifiedOrbit>& found, std::vector<PeriodCounts>& counts);

// Stability and eigenvalues of an orbit from its x enclosures (orbits_verify.cpp).
void classify(const Map& m, CertifiedOrbit& o);

// The resume file (orbits_resume.cpp): one block per finished chunk of work units.
struct LoadedChunk {
  std::vector<PeriodCounts> counts;
  std::vector<CertifiedOrbit> orbits;
};
// The resume file's format: the first word of its header; other versions are refused.
inline constexpr const char* kChunkFormat = "deepscope henon orbits v2";
// Throws std::invalid_argument naming the file when its first line is not this format's header
// (another version of it, or another file altogether).
void check_chunk_format(const std::string& path, const std::string& first_line);
std::string chunk_record(int64_t chunk, const std::vector<PeriodCounts>& counts,
                         const std::vector<CertifiedOrbit>& orbits);
// Throws std::invalid_argument when the header differs, IoError when unreadable.
std::map<int64_t, LoadedChunk> load_chunks(const std::string& path, const std::string& header, const Map& m,
                                           int period_max);

// The smallest p dividing n with w rotated by p equal to w.
int rotation_period(const std::vector<Cell>& w);
// w <= w rotated by every multiple of `step` (lexicographic on cells).
bool minimal_rotation(const std::vector<Cell>& w, int step);

}  // namespace ds::henon::orbits_detail
