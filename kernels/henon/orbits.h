// The interval-certified catalogue of the Hénon map's periodic orbits in a region (docs/henon.md,
// "Periodic orbits"): box cover, graph and catalogue driver (orbits.cpp), the walk search in work
// units (orbits_walks.cpp), the Krawczyk test with subdivision (orbits_verify.cpp), its CSV/JSON
// files (orbits_io.cpp) and the resume file (orbits_resume.cpp).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "interval.h"

namespace ds::henon {

// The region: Hénon's (1976) trapping quadrilateral for (1.4, 0.3), vertices (-1.33, 0.42),
// (1.32, 0.133), (1.245, -0.14), (-1.06, -0.5) (each the double nearest the decimal), or a box.
struct OrbitRegion {
  bool quadrilateral = true;
  double box[4] = {0, 0, 0, 0};  // x_lo, x_hi, y_lo, y_hi when !quadrilateral
};

struct CatalogueParams {
  std::string a = "1.4", b = "0.3";  // decimal; enclosed in intervals, so results hold for the exact decimals
  OrbitRegion region;
  int period_max = 10;
  int graph_level = 0;          // grid level of the cover graph (2^L x 2^L cells); 0: chosen from period_max
  int refine_levels = 12;       // further levels of local subdivision before a box sequence is undecided
  int64_t max_children = 4096;  // sub-sequences of one box sequence; more: undecided (never dropped)
  double memory_budget_bytes = 4.0 * (1 << 30);
  // Depth at which each start cell's tree of walks is cut into work units (orbits_internal.h);
  // -1: chosen from period_max. Any depth gives the same catalogue; it changes the resume file.
  int split_depth = -1;
  unsigned threads = 0;  // worker threads; 0: every core
  // Resume file: finished chunks of work units are appended; those already there (for the same
  // catalogue) are loaded and skipped. Empty: none.
  std::string chunk_file;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;  // fraction of the cover graph's start cells done
};

enum class Stability { kSink, kSaddle, kUndecided };

struct CertifiedOrbit {
  int period = 0;
  // Enclosures of x_0..x_{n-1}, starting at the point with the smallest x; y_i = b x_{i-1}.
  std::vector<iv::Interval> x, y;
  iv::Interval trace;  // of D h^n along the orbit (interval); det = (-b)^n
  double det = 0;
  bool complex = false;
  double l1_re = 0, l1_im = 0, l2_re = 0, l2_im = 0;  // eigenvalues from the trace's midpoint (approximate)
  Stability stability = Stability::kUndecided;        // decided from the interval trace (Schur-Cohn)
};

struct PeriodCounts {
  int64_t orbits = 0;     // certified orbits of least period n inside the region
  int64_t outside = 0;    // certified orbits of least period n with a point certainly outside the region
  int64_t undecided = 0;  // box sequences neither proven to hold one orbit nor proven empty
  int64_t walks = 0;      // closed walks of the cover graph (canonical rotations) examined
  int64_t sinks = 0, saddles = 0;
};

struct CatalogueResult {
  std::vector<CertifiedOrbit> orbits;  // by period, then x of the representative
  std::vector<PeriodCounts> counts;    // index n - 1
  int graph_level = 0;
  int64_t cells = 0, edges = 0;
  double cell_w = 0, cell_h = 0, cover[4] = {0, 0, 0, 0};
  double a = 0, b = 0;  // the doubles nearest the decimals (reporting)
  int split_depth = 0;  // the walk trees' cut depth used
  int64_t units = 0;    // work units (pieces of walk trees), grouped into `chunks`
  int64_t chunks = 0, chunks_loaded = 0, chunks_run = 0;
  std::vector<double> chunk_seconds;  // per chunk: seconds it took in this run (-1: loaded or not run)
  bool cancelled = false;
  double seconds = 0;
};

// Bytes the catalogue to period_max is expected to need (graph and orbits), for the input check.
double estimate_catalogue_bytes(const CatalogueParams& p);
// What catalogue() checks of the resume file before its work, for the CLI to check before it prints:
// a non-empty p.chunk_file must start with this catalogue's header (std::invalid_argument).
void check_catalogue_chunk_file(const CatalogueParams& p);
// Checks the inputs (std::invalid_argument naming the field) and computes the catalogue.
CatalogueResult catalogue(const CatalogueParams& p);

// CSV (one row per orbit) and JSON metadata.
std::string catalogue_csv(const CatalogueResult& r);
std::string catalogue_json(const CatalogueParams& p, const CatalogueResult& r, const std::string& command);

// Internal pieces, exposed for tests.
namespace orbits_detail {
struct Map {
  iv::Interval a, b;  // enclosures of the decimal parameters
};
// Periodic points of least period n as zeros of G_i(x) = x_{i+1} - 1 + a x_i^2 - b x_{i-1}
// (indices mod n). Krawczyk on the box X: 1 unique zero (X tightened to its enclosure),
// 0 none, -1 undecided (X tightened where possible).
int krawczyk(const Map& m, std::vector<iv::Interval>& X);
}  // namespace orbits_detail

}  // namespace ds::henon
