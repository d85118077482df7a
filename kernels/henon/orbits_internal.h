// Shared by orbits.cpp, orbits_graph.cpp and orbits_verify.cpp: the dyadic cell grid, the region
// tests, and one box sequence's verification (Krawczyk, then local subdivision).
#pragma once
#include <array>
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

// Stability and eigenvalues of an orbit from its x enclosures (orbits_verify.cpp).
void classify(const Map& m, CertifiedOrbit& o);

// The resume file (orbits_resume.cpp): one block per finished chunk of start cells.
struct LoadedChunk {
  std::vector<PeriodCounts> counts;
  std::vector<CertifiedOrbit> orbits;
};
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
