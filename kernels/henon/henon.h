// The Hénon workspace's host API (plain C++, no CUDA types): orbits for plotting, period detection
// with the cycle's eigenvalues, and the paper's grid sink scan on the CPU (all cores) or CUDA, in
// any number format. The GUI panel and `deepscope henon` are both front ends over these calls.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "arith/format.h"
#include "kernels/core/backend.h"
#include "kernels/core/work.h"

namespace ds::henon {

using ds::Backend;
using ds::backend_name;
using ds::select_backend;

// Limits the host enforces on every input (bad values throw ArithError or std::invalid_argument).
constexpr int64_t kMaxTransient = 10'000'000'000'000LL;  // 1e13 steps
constexpr int64_t kMaxPoints = 100'000'000;
constexpr int32_t kMaxPeriod = 1'000'000;
constexpr int64_t kMaxScanSide = 100'000'000;      // na, nb
constexpr int64_t kMaxScanParams = 1'000'000'000;  // na * nb

// The map's inputs as exact decimal strings (parsed with T::from_string, so they mean the same in
// every format up to the format's own rounding).
struct MapInput {
  Arith arith = Arith::kF64;
  std::string a = "1.4", b = "0.3";
  std::string x0 = "0", y0 = "0";
  double bound = 1e3;  // escape box |x|, |y| <= bound; within [1, 1e6] and the format's range
};

struct OrbitParams {
  MapInput map;
  int64_t n_transient = 0;   // steps skipped before the first plotted point
  int64_t n_points = 10000;  // points plotted: h^{Nt+1} ... h^{Nt+n_points}
  Backend backend = Backend::kCpu;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;
};

struct OrbitResult {
  std::vector<double> xs, ys;  // the plotted points (to_double), fewer when the orbit escapes
  bool escaped = false;
  int64_t escape_step = -1;  // steps from (x0, y0) to the first point outside the box
  bool cancelled = false;
  std::string final_x, final_y;  // exact decimal of the last state in the format
};

// Throws ArithError for unparsable/NaN/inf inputs or inputs outside the format's safe range,
// std::invalid_argument for out-of-range sizes, std::runtime_error for a missing CUDA device.
OrbitResult orbit(const OrbitParams& p);

// A value m * 2^e as decimal text and as a double (0 or inf where it leaves double's range).
struct BigValue {
  std::string text;  // about 17 significant digits, scientific where needed
  double value = 0;
  double log10_abs = 0;  // -inf for 0
};

struct PeriodParams {
  MapInput map;
  int64_t n_transient = 100000;
  int32_t p_max = 5000;
  std::string tol = "1e-10";  // close-return tolerance (max norm), parsed in the format
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(double)> progress;
};

struct PeriodResult {
  int32_t period = 0;  // 0: no period within p_max (or escaped / cancelled)
  bool escaped = false;
  bool cancelled = false;
  std::vector<std::pair<std::string, std::string>> cycle;  // the cycle's points, decimal, in order
  BigValue trace, det;                                     // of the Jacobian product along the cycle
  bool complex = false;                                    // complex-conjugate eigenvalues
  BigValue l1_re, l1_im, l2_re, l2_im;                     // eigenvalues (|l1| >= |l2| when real)
  BigValue l1_abs, l2_abs;
  bool is_sink = false;  // both |l| < 1, decided exactly in the format (Schur-Cohn)
  std::string note;      // e.g. square root taken in double because the format has none
};

// CPU: the transient, then the paper's close-return test and the eigenvalues in the format.
PeriodResult detect_period(const PeriodParams& p);

// Grid sink scan (paper, section 4). Parameters a_i = a_min + i a_step (i < na), b_j likewise,
// each formed in the format (two rounded operations). For each, n_init start points in the box
// init_box = {x_lo, x_hi, y_lo, y_hi}: point j is (x_lo + (x_hi - x_lo) u_j, y_lo + (y_hi - y_lo) v_j)
// in double, with (u_j, v_j) = frac((j + 1/2) (g1, g2)) the R2 low-discrepancy sequence
// (g1 = 1/phi2, g2 = 1/phi2^2, phi2 the plastic number), the same for every parameter. The default
// box encloses the classical attractor, so the points start on or near it.
struct ScanParams {
  Arith arith = Arith::kF64;
  std::string a_min = "1.4", a_step = "0";
  int64_t na = 1;
  std::string b_min = "0.3", b_step = "0";
  int64_t nb = 1;
  // The b axis starts at grid index b_first: b_ib = b_min + (b_first + ib) b_step, so that rows of a
  // larger grid (the window's plane bands) get the very values the whole grid gives them.
  int64_t b_first = 0;
  int64_t n_init = 64;
  double init_box[4] = {-1.25, 1.25, -0.375, 0.375};
  // Explicit start points instead of the box's: one per parameter (x, y interleaved, in the
  // results' order ib * na + ia), so 2 na nb values, each finite and inside the escape bound, with
  // n_init = 1. Basins use it: every parameter is the same (a, b), every start point a pixel.
  std::vector<double> start_points;
  int64_t n_transient = 100000;
  int32_t p_max = 5000;
  std::string tol = "1e-10";
  double bound = 1e3;
  int64_t chunk_params = 0;  // parameters per chunk; 0: about 2^18 orbits (fills an H100)
  Backend backend = Backend::kCpu;
  // Resume file: finished chunks are appended as they complete; chunks already there (for the
  // same scan) are loaded and skipped. Empty: no file.
  std::string chunk_file;
  const std::atomic<bool>* cancel = nullptr;  // polled between steps slices; chunks stay whole
  std::function<void(double)> progress;       // fraction of items done, this run and loaded
  std::function<void(int64_t chunk, int64_t chunks)> on_chunk;  // after each chunk is stored
  // Devices (backend CUDA: every visible device unless --devices says otherwise) and the shard of
  // the chunks this process computes; see kernels/work.h. Under mpirun the ranks share the chunks.
  work::Placement placement;
};

struct CycleFound {
  int32_t period = 0;
  int32_t count = 0;  // start points that reached it
  bool sink = false;
  double x = 0, y = 0;  // its point with the smallest x
};

struct ParamResult {
  bool done = false;
  int64_t ia = 0, ib = 0;
  std::string a, b;  // the values used, 20 significant digits
  int32_t escaped = 0, aperiodic = 0;
  std::vector<CycleFound> cycles;  // by period, then x
};

struct ScanResult {
  std::vector<ParamResult> params;  // na * nb, index ib * na + ia
  int64_t na = 0, nb = 0;
  int64_t chunks = 0, chunks_loaded = 0, chunks_run = 0;
  int64_t chunks_owned = 0;  // in this shard (all chunks without one)
  std::vector<std::pair<std::string, int64_t>> per_worker;  // chunks computed by each worker
  // False on MPI ranks other than 0, which compute chunks but hold no results and write nothing.
  bool writer = true;
  bool cancelled = false;
  Backend backend = Backend::kCpu;
  double seconds = 0;
};

struct ScanEstimate {
  int64_t items = 0, chunks = 0, chunk_params = 0;
  uint64_t host_bytes = 0, device_bytes = 0;
  double steps = 0;    // map steps in the worst case (no escapes, full p_max search)
  double seconds = 0;  // rough, from a nominal step rate of the backend and the format's cost
};
// Validates p (throws like orbit()) and estimates memory and time.
ScanEstimate estimate_scan(const ScanParams& p, Backend resolved);
// Refuses (std::runtime_error) when the estimate exceeds this machine's memory; then scans.
ScanResult scan(const ScanParams& p);
// The first line of scan()'s chunk file for these parameters, for work::check_chunk_file.
std::string scan_chunk_header(const ScanParams& p);

// The scan's files: long-format CSV (one row per parameter and cycle; period -1 counts escaped
// start points, 0 those without a period) and JSON. Both depend only on the results.
std::string scan_csv(const ScanResult& r);
std::string scan_json(const ScanParams& p, const ScanResult& r);
// Reads scan_csv's text back (na, nb from the largest indices; parameters not in the file stay
// not done, up to a grid of 64 times the parameters in the file, or 2^20). Throws
// std::invalid_argument naming the line for malformed input.
ScanResult parse_scan_csv(const std::string& text);

// Throughput of the scan's transient loop (escape test included): n_orbits orbits of n_steps
// steps at (a, b) = (1.4, 0.3) from start points within 1e-3 of the origin (none escapes, so
// every orbit runs every step), on all cores or on CUDA (one thread per orbit, one chunk).
// double_params takes a and b as the doubles nearest 1.4 and 0.3, as the paper's Figure 6 loop
// does (for f64xN the map then multiplies by doubles; the other formats run the same code either
// way). n_params > 1 splits the orbits over that many copies of the parameter, as a scan's chunk
// over several parameters is run (on CUDA, f32 and f64 take a one-parameter chunk's a and b as
// kernel arguments; several parameters are loaded per thread).
struct OrbitRate {
  double seconds = 0;  // the whole scan: buffers, start points, transient, period test, results
  double steps_per_second = 0;
  double loop_seconds = 0;  // the transient loop's launches alone (CUDA events; CPU: = seconds)
  double loop_steps_per_second = 0;
};
OrbitRate orbit_rate(Arith arith, Backend backend, int64_t n_orbits, int64_t n_steps, bool double_params = false,
                     int64_t n_params = 1);

// The start points of a scan (x, y interleaved), as described at ScanParams.
std::vector<double> init_points(const ScanParams& p);

namespace detail {
// CUDA backend (henon.cu): items of one chunk; a, b are the chunk's parameter values in the
// format's storage (n_params each), init the start points; fills out[n_params * n_init].
struct ItemOut {
  int32_t period, sink;
  double x, y;
};
// %.17g: the CSV's, the JSON's and the chunk file's doubles.
std::string format_double(double v);
// The outcomes of one parameter's n start points merged as the scan merges them (start points on
// the same cycle, canonical points within about 100 tol, count once), cycles by period, then x.
void merge_items(const ItemOut* items, int64_t n, double tol, ParamResult* r);
// One finished chunk of a scan: parameters q0 <= q < q1 (q = ib * na + ia), their n_init items
// each (out[(q - q0) * n_init + j]), the tolerance as a double, and (when the codec asks for it)
// every axis value's decimal text.
struct ChunkItems {
  int64_t q0, q1, na;
  const ItemOut* out;
  int64_t n_init;
  double tol;
  const std::vector<std::string>*a_text, *b_text;
};
// How a scan's chunks become payloads (the resume file's records) and results: scan() writes a text
// record per parameter; the plane keeps one period per pixel, the basin one item per pixel. take()
// is called on the writer once per chunk, computed or loaded, with the chunk's parameter range.
struct ScanCodec {
  std::string magic;        // the chunk file header's first words, ending in a space
  bool axis_text = false;   // fill ChunkItems' a_text and b_text
  std::function<void(const ChunkItems&, std::string* payload)> encode;
  std::function<void(int64_t q0, int64_t q1, const std::string& payload)> take;
};
// scan() with another codec: validation, memory check, backends, resume file, MPI and shards as
// scan(); the result's params stay empty (the codec's take() holds the results).
ScanResult scan_with(const ScanParams& p, const ScanCodec& codec);
// The first line of scan_with's chunk file for a codec of this magic.
std::string chunk_header(const std::string& magic, const ScanParams& p);
// init holds init_count points (0: n_init); item i starts from point i % init_count (n_init: the
// same points for every parameter; n_params * n_init: a point per item).
bool scan_chunk_cuda(Arith arith, const void* a, const void* b, int64_t n_params, const double* init,
                     int64_t n_init, const void* bound, const void* tol, int64_t n_transient, int32_t p_max,
                     const std::atomic<bool>* cancel, ItemOut* out, double* loop_seconds = nullptr,
                     int64_t init_count = 0);
// Items that one wave of the scan's transient kernel holds on CUDA device 0 (SMs x resident
// blocks x block size), for the kernel a chunk of n_params parameters runs (double_params: a and b
// are doubles). A launch over a whole number of waves leaves no SM idle at its end.
int64_t cuda_wave_items(Arith arith, bool double_params, int64_t n_params);
// One orbit on CUDA: state in the format's storage (x then y), advanced and plotted as on the CPU.
bool orbit_cuda(Arith arith, const void* a, const void* b, const void* bound, void* state,
                int64_t n_transient, int64_t n_points, const std::atomic<bool>* cancel, double* xs,
                double* ys, int64_t* n_out, int64_t* escape_step);
}  // namespace detail

}  // namespace ds::henon
