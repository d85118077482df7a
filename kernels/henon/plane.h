// Images of the Hénon workspace (plain C++, no CUDA types): the parameter plane coloured by the
// period of the attracting cycle (a view mapped onto scan()), its largest Lyapunov exponent, and
// the basins of attraction of one (a, b) over the (x, y) plane (scan() with a start point per pixel).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "henon.h"

namespace ds::henon {

constexpr int kMaxImageSide = 32768;  // pixels per side of a plane or basin image
constexpr double kMaxPlaneB = 1.5;    // |b| of every pixel; for |b| > 1 the map expands area (no sinks)
constexpr int64_t kMaxLyapunovSteps = 1'000'000'000'000LL;

// A rectangle of the (a, b) plane: centre (a, b), width in a, square pixels (the height in b is
// width * height_px / width_px). Pixel (i, j), column i from the left and row j from the top, is
// the parameter a = a_lo + (i + 1/2) w / W, b = b_hi - (j + 1/2) w / W: the scan grid a_min + i a_step,
// b_min + ib b_step with ib = H - 1 - j, its decimal strings formed exactly (MPFR) from the centre
// and width and rounded to the format's digits plus five. Every pixel runs the scan's per-item
// code: n_init start points of init_box (ScanParams), n_transient steps, period up to p_max.
struct PlaneView {
  Arith arith = Arith::kF64;
  std::string centre_a = "1.2", centre_b = "0.15";
  std::string width = "1";  // extent in a, > 0
  int width_px = 256, height_px = 144;
  // A band: only rows [row_begin, row_end) of the view (row 0 at the top), with the very parameters
  // the whole view gives them (the window computes a plane band by band). 0, 0: every row.
  int row_begin = 0, row_end = 0;
  int64_t n_init = 1;
  double init_box[4] = {-1.25, 1.25, -0.375, 0.375};
  int64_t n_transient = 10000;
  int32_t p_max = 64;
  std::string tol = "1e-10";
  double bound = 1e3;
  Backend backend = Backend::kCpu;
  int64_t chunk_params = 0;  // ScanParams::chunk_params
  std::string chunk_file;    // resume file (ScanParams::chunk_file); empty: none
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;
  work::Placement placement;
};

// The scan behind a view. Throws std::invalid_argument naming the field for a bad view: a width or
// centre that is not a finite decimal, width <= 0, a side outside [1, kMaxImageSide], |b| >
// kMaxPlaneB at the top or bottom row (also the scan's own checks: estimate_scan).
ScanParams plane_scan_params(const PlaneView& v);

// The parameter of pixel (i, j) (column i from the left, row j from the top): a_min + i a_step and
// b_min + (H - 1 - j) b_step of plane_scan_params(v), exactly (MPFR) and with the grid's digits.
// What the window's plane view hands to the orbit view on a click. Throws std::invalid_argument
// for a pixel outside the view (and like plane_scan_params).
std::pair<std::string, std::string> plane_pixel(const PlaneView& v, int i, int j);

// Navigation, with the Mandelbrot view's code (kernels/mandelbrot/navigate.h) on the same pixel
// convention: the view zoomed by `factor` (> 1 zooms in) about the image point (x, y) (pixels from
// the top-left corner), the point under it staying there; and the view moved so that the picture
// follows a drag by (dx, dy) pixels. Centres keep the digits the new width needs. Throw
// std::invalid_argument for a bad view or factor.
PlaneView plane_zoom_about(const PlaneView& v, double x, double y, double factor);
PlaneView plane_pan_pixels(const PlaneView& v, double dx, double dy);
// `auto` for the plane: the cheapest of f64, f64x2 .. f64x8 that resolves the view's pixel spacing
// at its coordinates with the Mandelbrot view's 24 guard bits (mandel::resolves). Throws
// std::invalid_argument naming the deepest format's limit when none does.
Arith plane_auto_arith(const PlaneView& v);
// Throws std::invalid_argument, with the Mandelbrot view's message and the format `auto` would take,
// when v.arith (a floating format) cannot tell neighbouring pixels apart (4 guard bits: the
// Mandelbrot rule for a format the user chose). plane_scan_params calls it.
void plane_check_resolves(const PlaneView& v);

// The plane's colouring rule for one parameter: the lowest period among the sinks found; -1 when
// every start point escaped; 0 otherwise (no sink within p_max: chaotic, quasi-periodic, not yet
// converged after the transient, or a cycle found that is not attracting).
int32_t attracting_period(const ParamResult& r);

// How the scan behind an image ran (plane and basin alike).
struct ImageScanRun {
  Backend backend = Backend::kCpu;
  int64_t chunks = 0, chunks_loaded = 0, chunks_run = 0;
  bool writer = true;  // false on MPI ranks other than 0 (no results there)
  bool cancelled = false;
  double seconds = 0;
};

struct PlaneResult : ImageScanRun {
  int width = 0, height = 0;  // height: the band's rows for a band
  std::vector<int32_t> period;  // row-major, row 0 at the top (largest b): attracting_period
  int64_t escaped = 0, no_period = 0, with_period = 0;  // pixels
  int32_t max_period = 0;                               // the largest period in the image
};
// The scan of plane_scan_params(v), one period per pixel.
PlaneResult plane(const PlaneView& v);
// The first line of plane()'s chunk file (--resume) for v, for work::check_chunk_file.
std::string plane_chunk_header(const PlaneView& v);

// Largest Lyapunov exponent per pixel of the view: the orbit from the first start point of
// init_box (the point a plane with n_init = 1 uses) is run n_transient steps in the format; then,
// for n_steps more, the tangent vector is carried along in double with the Jacobian
// J(x) = [[-2 a x, 1], [b, 0]] (a, b, x rounded to double), renormalised each step:
// lambda = (1/n) sum log |J(x_k) v_k| with |v_k| = 1, v_0 = (1, 0). NaN where the orbit escapes; -inf
// where the tangent vector vanishes (b = 0 and x = 0 exactly). CPU on all cores or CUDA device 0;
// not resumable (no chunk file). Throws like plane_scan_params, and for n_steps outside
// [1, kMaxLyapunovSteps].
struct LyapunovResult {
  int width = 0, height = 0;
  std::vector<double> exponent;  // row-major, row 0 at the top
  int64_t escaped = 0;
  double min_exponent = 0, max_exponent = 0;  // over the finite values (0, 0 when none)
  Backend backend = Backend::kCpu;
  bool cancelled = false;
  double seconds = 0;
};
LyapunovResult plane_lyapunov(const PlaneView& v, int64_t n_steps);

// A rectangle of the (x, y) plane for one parameter (a, b): centre, width in x, square pixels.
// Pixel (i, j) (row 0 at the top) starts the orbit at x = x_lo + (i + 1/2) w / W,
// y = y_hi - (j + 1/2) w / W (doubles, converted to the format), one scan item each.
struct BasinView {
  Arith arith = Arith::kF64;
  std::string a = "1.4", b = "0.3";
  double centre_x = 0, centre_y = 0;
  double width = 4;  // extent in x, > 0; the view must lie inside the escape box |x|, |y| <= bound
  int width_px = 256, height_px = 256;
  int64_t n_transient = 10000;
  int32_t p_max = 64;
  std::string tol = "1e-10";
  double bound = 1e3;
  Backend backend = Backend::kCpu;
  int64_t chunk_params = 0;
  std::string chunk_file;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;
  work::Placement placement;
};

// An attracting cycle found in a basin image: its period and its point with the smallest x
// (cycles of the same period with points further apart than about 100 tol are distinct).
struct Attractor {
  int32_t id = 0;  // 1, 2, ... in order of (period, x)
  int32_t period = 0;
  double x = 0, y = 0;
  int64_t pixels = 0;  // start points that reached it
};

struct BasinResult : ImageScanRun {
  int width = 0, height = 0;
  // Row-major, row 0 at the top: -1 escaped, 0 no attracting period within p_max, k > 0 the
  // start point reached attractors[k - 1].
  std::vector<int32_t> id;
  std::vector<Attractor> attractors;
  int64_t escaped = 0, no_period = 0;
  int64_t non_sink = 0;  // start points whose cycle failed the sink test (counted in no_period)
};

// The scan behind a basin view (na = W, nb = H, a and b steps 0, explicit start points). Throws
// std::invalid_argument naming the field (width, sizes, a, b, |b| > kMaxPlaneB, a view that leaves
// the escape box, NaN).
ScanParams basin_scan_params(const BasinView& v);
BasinResult basin(const BasinView& v);
// The first line of basin()'s chunk file (--resume) for v, for work::check_chunk_file.
std::string basin_chunk_header(const BasinView& v);

namespace detail {
// CUDA (henon.cu): the Lyapunov sums of items over device 0; a and b per item in the format's
// storage, the start point in double. sums[i] = sum of logs, or NaN for an orbit that escaped.
bool lyapunov_cuda(Arith arith, const void* a, const void* b, int64_t items, const double start[2],
                   const void* bound, int64_t n_transient, int64_t n_steps, const std::atomic<bool>* cancel,
                   const std::function<void(double)>& progress, double* sums);
}  // namespace detail

}  // namespace ds::henon
