// The independent oracle for Mandelbrot counts (plain C++, MPFR inside): pixels iterated directly in
// MPFR with a rigorous running error bound, at growing precision, trusted only when certified and
// confirmed one precision higher; grids of sampled pixels; and the check of a rendered image
// against them (`render --verify`, the window's Verify). Method: docs/perturbation/oracle.md, "Oracle".
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/mandelbrot/view.h"

namespace ds::perturb::oracle {
using namespace mandel;  // views, tiles and results: kernels/mandelbrot

struct OracleOptions {
  // Precision of the first run; 0: start_bits(g, v). Clipped to max_bits.
  int start_bits = 0;
  // No run above this many bits (0: no cap). A count certified at the cap cannot be confirmed.
  int max_bits = 0;
  // Runs above the first that may be tried to certify a count (the confirming run is extra).
  int max_escalations = 4;
  // true: a certified count is trusted only when a run one rung higher certifies the same count
  // (guards the bound's own code). false: the bound's certificate alone (about 2.5x cheaper).
  bool confirm = true;
  // Polled every few thousand iterations; a set flag ends the pixel as kCancelled.
  const std::atomic<bool>* cancel = nullptr;
};

enum class Status {
  kTrusted,       // certified by the error bound (and confirmed, when asked)
  kUncertain,     // no run within the cap and escalations certified a count
  kUnconfirmed,   // certified once, but no higher run was allowed or it could not certify
  kContradicted,  // two certified runs disagree: the bound or its code is wrong (a bug)
  kCancelled
};
const char* status_name(Status s);

struct OraclePixel {
  // The count and smooth count (mandelbrot.cuh's contract) of the certified run (of the confirming
  // run when there is one); 0 and 0 when no run certified a count.
  uint64_t count = 0;
  float smooth = 0;  // as stored (counts.h: smooth count - count where max_iter >= 2^32)
  Status status = Status::kUncertain;
  int bits = 0;          // precision of the first run that certified the count (0: none)
  int confirm_bits = 0;  // precision of the run that confirmed it (0: none)
  int top_bits = 0;      // the highest precision tried
  int runs = 0;          // runs made (aborted ones included)
  // The certifying run's bound on |z_n - exact z_n| at the deciding step, as log2 (-inf: none).
  double log2_bound = 0;
  // The iteration at which the highest uncertified run's bound straddled |z| = 2 (0: none).
  uint64_t lost_at = 0;
  bool trusted() const { return status == Status::kTrusted; }
};

// The first precision: max(64, ceil(-log2 s) + 64 + ceil(log2 max_iter)) bits, s the pixel spacing
// (zoom and geometry as in view.h). The next rung: bits + max(64, bits / 2).
int start_bits(const Geometry& g, const View& v);
int next_bits(int bits);

// Pixel (i, j) of the view (j = 0 at the top; View::pixel_map honoured):
//   c = centre + (s/2) (m0 kx + m1 ky, m2 kx + m3 ky),  kx = 2i + 1 - width,  ky = height - 2j - 1.
// Throws ViewError when (i, j) lies outside the image.
OraclePixel oracle_pixel(const Geometry& g, const View& v, int i, int j, const OracleOptions& opt);

// Pixels to sample are mandel::PixelIndex; mandel::grid_pixels gives the n x n grid (view.h).

// The pixels `where` on every core (threads 0: all), each by oracle_pixel. progress: fraction of
// pixels done. Cancelled pixels (opt.cancel set) come back with status kCancelled.
std::vector<OraclePixel> oracle_pixels(const Geometry& g, const View& v, const std::vector<PixelIndex>& where,
                                       const OracleOptions& opt, const std::function<void(double)>& progress,
                                       unsigned threads = 0);

struct OracleGrid {
  int n = 0;
  std::vector<PixelIndex> where;    // grid_pixels(v, n)
  std::vector<OraclePixel> pixels;  // the same order
  bool cancelled = false;
  double seconds = 0;
};
// The n x n grid of the view (n in [1, min(width, height)], else ViewError).
OracleGrid oracle_grid(const Geometry& g, const View& v, int n, const OracleOptions& opt,
                       const std::function<void(double)>& progress = nullptr, unsigned threads = 0);

// --- Checking a rendered image -----------------------------------------------------------------

struct VerifyOptions {
  // Pixels to sample: a floor(sqrt(N)) x floor(sqrt(N)) grid, the rest uniformly at random (seed).
  int samples = 16;
  uint64_t seed = 0;
  OracleOptions oracle;
  unsigned threads = 0;
};

// The pixels VerifyOptions describes, grid first, then the random ones.
std::vector<PixelIndex> verify_pixels(const View& v, int samples, uint64_t seed);

struct VerifySample {
  PixelIndex at;
  uint64_t rendered = 0;
  OraclePixel oracle;
};

struct VerifyReport {
  int samples = 0, grid = 0;  // sampled pixels; the grid's side
  uint64_t seed = 0;
  int agree = 0;         // trusted oracle pixels with exactly the rendered count
  int within_one = 0;    // trusted, counts differ by 1 (the bailout test at |z| = 2, rounded)
  int untrusted = 0;     // oracle pixels not trusted: not compared
  int wrong = 0;         // trusted, counts differ by more than 1: the render is wrong
  int contradicted = 0;  // of the untrusted: two certified oracle runs disagreed (an oracle bug)
  bool cancelled = false;
  double seconds = 0;
  std::vector<VerifySample> detail;
  bool failed() const { return wrong > 0; }
  // Counts s (cancelled, untrusted and contradicted, or against the rendered count) and keeps it.
  void add(const VerifySample& s);
  // "verify: K/N sampled pixels agree with MPFR (M within ±1, U untrusted oracle pixels)", and
  // "; W differ by more than 1" when some do (and a note of oracle contradictions). ascii: "+-"
  // for "±" (PNG text is Latin-1).
  std::string summary(bool ascii = false) const;
  // The PNG text: summary, options, and one line "i j rendered oracle status bits" per sample
  // that is not an exact trusted agreement.
  std::string metadata() const;
};

// The start of a check of `r` against an oracle (here and kernels/formula/verify.h): throws
// std::invalid_argument when r is not the whole image of v with its counts on the host; *where
// gets verify_pixels(v, samples, seed), the report its seed, sample count and grid side.
VerifyReport begin_verify(const View& v, const RenderResult& r, int samples, uint64_t seed,
                          std::vector<PixelIndex>* where);

// Compares `r` (a whole-image render of v, host arrays) with the oracle at verify_pixels(...).
// Throws std::invalid_argument when r is not the whole image or has no host counts.
VerifyReport verify_render(const View& v, const RenderResult& r, const VerifyOptions& opt,
                           const std::function<void(double)>& progress = nullptr);

}  // namespace ds::perturb::oracle
