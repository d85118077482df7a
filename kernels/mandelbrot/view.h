// A Mandelbrot view as the user states it (centre and zoom as decimal strings, image size,
// iteration limit), its exact pixel geometry, and the automatic choice of number format.
// Plain C++, host only (MPFR in view.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "arith/format.h"
#include "counts.h"

namespace ds::mandel {

// A view that cannot be rendered as asked (malformed field, zoom <= 0, no format resolves it).
// An ArithError, so the program maps it to exit code 2 like other bad input.
struct ViewError : ArithError {
  using ArithError::ArithError;
};

// Guard bits of the precision rule (docs/mandelbrot.md, "Precision"): a format resolves a view
// when its resolution at the view's coordinates is at most 2^-g of the pixel spacing.
// `auto` uses kGuardBits. Measured against exact references at 64x64 views around Misiurewicz
// points, the share of pixels whose count differs falls only by about half per 2 extra bits
// (0.4% at 20.7 bits, 0.1% at 18 to 24 bits depending on the view), so 24 bits are what keeps
// counts exact on >= 99.9% of pixels. A format forced by the user is refused only below
// kForcedGuardBits, where neighbouring pixels can no longer be told apart at all.
constexpr int kGuardBits = 24;
// `auto`'s extra guard bits for the iteration limit (docs/mandelbrot.md, "Precision"):
// ceil(log2(max_iter) / 2), the growth of max_iter independent roundings added in quadrature
// (mandelbrot.cuh's error estimate); 0 for max_iter <= 1 (and 0 = not considered).
int iteration_guard_bits(uint64_t max_iter);
constexpr int kForcedGuardBits = 4;
// Fixed-point formats must hold |x| < 64: the iteration squares |z| <= 6 (docs/mandelbrot.md).
constexpr double kFixedRangeNeeded = 64.0;
// Views reaching beyond |Re c|, |Im c| = 1e12 are refused (the whole set lies within |c| <= 2).
constexpr double kMaxCoordinate = 1e12;

// Kalles Fraktaler / Fraktaler-3 convention: the image's vertical extent is 4/zoom, pixels are
// square, pixel (i, j) with j = 0 at the top has centre
//   re + (i + 0.5 - width/2) * s,  im - (j + 0.5 - height/2) * s,  s = 4 / (zoom * height).
struct View {
  std::string re = "-0.5";
  std::string im = "0";
  std::string zoom = "1";
  int width = 1280;
  int height = 720;
  uint64_t max_iter = 1000;  // 1 .. kMaxIterations (counts.h)
  // Kalles Fraktaler's Rotate and Ratio (stretch) as a linear map of the pixel plane. The offset of
  // pixel (i, j) from the centre in half-steps, (kx, ky) = (2i + 1 - width, height - 2j - 1) (x to
  // the right, y up), lands at
  //   c = centre + (s/2) * (m[0] kx + m[1] ky,  m[2] kx + m[3] ky).
  // The identity (the default) is square, unrotated pixels. Only perturbation honours another map;
  // the direct formats refuse it (ViewError), so no engine silently draws it square.
  double pixel_map[4] = {1.0, 0.0, 0.0, 1.0};
  bool pixel_map_identity() const {
    return pixel_map[0] == 1.0 && pixel_map[1] == 0.0 && pixel_map[2] == 0.0 && pixel_map[3] == 1.0;
  }
  // Kalles Fraktaler's and Fraktaler-3's exponential map for zoom videos (mandelbrot.cuh,
  // exp_map_offset): columns are angles around the centre, rows radii from the half-diagonal (row 0)
  // down by one halving over the height. Pixel (i, j) lands at c = centre + (s/2) M (kx, ky) with
  // (kx, ky) its exponential-map offset. Only perturbation renders it (like a pixel map).
  bool exp_map = false;
};

// A sub-rectangle of the image in pixels; width/height 0 mean "to the image's edge".
struct Tile {
  int x0 = 0, y0 = 0, width = 0, height = 0;
};

// The view's geometry, derived exactly on the host. half_step is s/2 = 2/(zoom*height) rounded
// to kGeometryBits bits (more than any format holds) and printed with enough digits that every
// format's from_string rounds it as it would round the exact value (up to that tiny rounding).
struct Geometry {
  std::string re, im;         // the centre, as given (validated)
  std::string half_step;      // s/2 as a decimal string
  double re_d = 0, im_d = 0;  // nearest doubles of the centre
  double half_step_d = 0;     // nearest double of s/2 (0 where it underflows)
  double log2_zoom = 0;
  double log2_step = 0;  // log2(s)
  double max_coord = 0;  // bound on max(|Re c|, |Im c|) over the image's pixels
  int height = 0;
  double pixel_map[4] = {1.0, 0.0, 0.0, 1.0};  // View::pixel_map, validated
  bool square_pixels = true;                   // pixel_map is the identity and exp_map is off
  bool exp_map = false;                        // View::exp_map
  double max_pixel_scale = 1.0;                // the largest distance of neighbouring pixels, in s (exp_map: > 1)
  double map_norm = 1.0;                       // a bound on pixel_map's operator norm (Frobenius)
};
constexpr int kGeometryBits = 1152;

// Validates the view (malformed numbers, zoom <= 0, sizes < 1, max_iter outside [1, kMaxIterations], coordinates
// beyond kMaxCoordinate, a pixel map that is not finite or is singular) and computes its geometry. Throws ViewError naming the offending field.
Geometry geometry(const View& v);

// Resolves `t` against the image: fills zero width/height, throws ViewError when the tile
// leaves the image or is empty.
Tile clip_tile(const View& v, const Tile& t);

// A pixel of the image: column i, row j (j = 0 at the top).
struct PixelIndex {
  int i = 0, j = 0;
};
// Column (or row) of sample k of n across `extent` pixels: floor((k + 0.5) * extent / n).
int grid_index(int k, int n, int extent);
// The n x n sample grid of the full image, row-major from the top row (the MPFR oracles' grids:
// kernels/perturb/oracle.h, kernels/formula/mpfr_orbit.h).
std::vector<PixelIndex> grid_pixels(const View& v, int n);

// log2 of the largest zoom at which `a` resolves pixels of the view's height around the view's
// coordinates; -infinity when the format cannot hold the coordinates or the iteration at all.
double log2_zoom_limit(Arith a, const Geometry& g, int guard_bits = kGuardBits);
// True when `a` resolves the view; otherwise `why` (if given) says what is missing.
bool resolves(Arith a, const Geometry& g, int guard_bits = kGuardBits, std::string* why = nullptr);
// The cheapest format (by traits().rel_cost) that resolves the view. Throws ViewError naming
// the most precise format's zoom limit when none does.
Arith choose_arith(const Geometry& g, int guard_bits = kGuardBits);
// Throws ViewError when `a` does not resolve the view with `guard_bits`, naming its zoom limit
// and the format choose_arith(g, auto_guard_bits) would take.
void require_resolves(Arith a, const Geometry& g, int guard_bits = kForcedGuardBits,
                      int auto_guard_bits = kGuardBits);

// Parses an iteration count as written in options and files: a decimal integer ("5000000000"), or
// a decimal with an exponent whose value is an integer ("5e9", "5.8e9"), exactly, in
// [1, kMaxIterations]. Returns false for anything else (negative, fractional, past 2^63 - 1).
bool parse_iterations(const std::string& text, uint64_t* out);

// Short decimal rendering of 2^log2_value ("1.23e+14"), for zoom limits beyond double range too.
std::string format_pow2(double log2_value);

}  // namespace ds::mandel
