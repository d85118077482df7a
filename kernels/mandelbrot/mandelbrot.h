// The Mandelbrot deep-zoom engine's host API (plain C++, no CUDA types): render a view, or a tile
// of it, in any number format on the CPU (all cores) or on CUDA, with cancellation and progress.
// The GUI and `deepscope render` are both front ends over render().
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "arith/format.h"
#include "kernels/core/backend.h"
#include "view.h"

namespace ds::mandel {

using ds::Backend;
using ds::backend_name;
using ds::BackendError;
using ds::device_memory_bytes;
using ds::host_memory_bytes;
using ds::select_backend;
// How a limb format maps onto CUDA threads: one thread per pixel, or the big-limb paper's
// cooperative layout (N threads per pixel sharing the numbers in shared memory, blocks of
// 32 pixels x N). Both give identical counts; other formats ignore it.
enum class LimbStrategy { kThreadPerPixel, kCooperative };

// How thread-per-pixel kernels assign pixels: kRefill, persistent threads that take the next
// pixel when theirs finishes (no warp waits for its slowest pixel); kTiles, one thread per pixel
// in 16x2-pixel warps. Identical results; the benchmark compares them.
enum class GpuSchedule { kRefill, kTiles };

// How render() evaluates pixels. kDirect: z^2 + c in the chosen number format. kPerturb: deltas
// against an MPFR reference orbit, with rebasing and bilinear approximation (kernels/perturb/perturb.h,
// docs/perturbation.md). kAuto: direct where a hardware format (f32, f64) resolves the view,
// perturbation everywhere else (also beyond every direct format's zoom limit); a forced
// RenderOptions::arith means direct.
enum class Method { kAuto, kDirect, kPerturb };
// The type of perturbation deltas: kAuto takes f64 while the pixel spacing is above 2^-900, f64
// scaled by 2^kDeltaScaleLog2 (kernels/perturb/perturb.cuh) down to 2^-1400, and floatexp beyond
// (arith/floatexp.h); the others force one (tests, benchmarks). kF64Scaled is last: chunk files
// store the value.
enum class DeltaFormat { kAuto, kF64, kFloatExp, kF64Scaled };

// The vector width of the CPU's binary64 perturbation loop (RenderOptions::cpu_simd).
enum class CpuSimd { kAuto, kScalar, kAvx2, kAvx512 };

// Which arithmetic computes a perturbation render's reference orbit (docs/perturbation.md,
// "Reference on the GPU"): MPFR, or the fixed-point orbit (kernels/perturb/reference_fixed.h) on a
// CUDA device or on the CPU (its twin, for tests). kAuto: the GPU from kGpuReferenceMinBits
// (perturb.h) where a device is, else MPFR.
enum class ReferencePath { kAuto, kMpfr, kGpu, kFixedCpu };

// What a perturbation render did (RenderResult::perturb). Its glitch counters also count a direct
// render's undecided pixels (the error estimate, mandelbrot.cuh; recheck.h): glitch_pixels flagged,
// glitch_corrected re-decided by a wider format (RenderResult::recheck), glitch_unresolved left.
struct PerturbInfo {
  DeltaFormat delta = DeltaFormat::kAuto;  // the delta type used (kF64 or kFloatExp)
  double reference_seconds = 0;            // computing the reference orbit (0 when reused)
  double bla_seconds = 0;                  // delta-type reference and BLA table (0 when cached)
  bool reference_reused = false;           // the cached reference of an earlier render served this one
  int reference_bits = 0;                  // MPFR precision of the reference orbit
  uint64_t reference_length = 0;           // stored points Z_0 .. Z_{length-1}
  bool reference_escaped = false;          // the reference escaped before max_iter
  bool reference_periodic = false;         // the reference returned to 0 (a nucleus): stored one period
  int bla_levels = 0;
  // The period map (kernels/perturb/period_map.h): its degree (0: none, period_map_note says why),
  // steps, domain |dz_1| <= radius, error bound relative to its scale, and build time.
  int period_map_degree = 0;
  uint64_t period_map_steps = 0;
  double period_map_radius = 0, period_map_relative_error = 0, period_map_seconds = 0;
  std::string period_map_note;
  uint64_t bla_skipped = 0;    // iterations skipped by BLA steps (part of RenderResult::iterations)
  uint64_t rebases = 0;        // rebasing events (Zhuoran: |z| < |dz|, or the reference's end)
  uint64_t glitch_pixels = 0;      // pixels the per-pixel checks flagged
  uint64_t glitch_corrected = 0;   // flagged pixels re-rendered right (glitch_refined among them)
  uint64_t glitch_refined = 0;     // of those, decided by the wider tiers against the same centre (106 bits, then
                                   // the wide tiers: refine_pass_decided[3], [4])
  uint64_t glitch_refined_dw = 0;  // of those, by its double-word deltas (the rest by floatexp2)
  uint64_t glitch_unresolved = 0;  // flagged pixels no reference could resolve (the render is not right)
  // Of those, left without a secondary reference: on a reference wrapping at its ball period whose
  // uncut orbits are dear, all that the 106-bit tier left (without the tier: once a round of 16
  // blobs decided less than half its pixels) (cpu_flagged.cpp).
  uint64_t unresolved_unreferenced = 0;
  int secondary_references = 0;    // references placed inside glitched blobs
  uint64_t secondary_points = 0;   // their orbits' points in all (cut at the period on a wrapping orbit)
  double refine_seconds = 0;       // wall time of the 106-bit tier over the flagged pixels
  // Its passes (perturb/cpu_tiers.cpp, refine_flagged): 0 double words with the coarse BLA table
  // (eps 2^-70), 1 with the fine one (2^-106), 2 floatexp2; then the wide tiers against a wide orbit
  // of the same centre, for what 106 bits left on a wrapping orbit: 3 floatexp4 (212 bits), 4
  // floatexp8 (424): the pixels each took, decided, and its wall time (pass 3's includes the orbit's);
  // then 5, the interior proofs for what every tier left (interior_proofs: two proofs a pixel however
  // dear, floatexp2 against the same orbit).
  static constexpr int kRefinePasses = 6;
  std::string wide_note;  // why the wide tiers did not run where pixels waited for them ("" otherwise)
  // The wide orbit's time within pass 3's: computing it there, or waiting there for the rest of it
  // where a prefetch (perturb.h, WidePrefetch: the device's renders) computed it beside the first pass.
  double wide_orbit_seconds = 0;
  bool wide_prefetched = false;
  // Pass 3's pixels that floatexp4's first, coarse table (eps 2^-128, perturb/bla.h) took and
  // decided; the rest went on to its 2^-212 table.
  uint64_t wide_coarse_pixels = 0, wide_coarse_decided = 0;
  std::string proof_note;  // why the interior proofs (pass 5) did not run where pixels waited ("" otherwise)
  uint64_t refine_pass_pixels[kRefinePasses] = {};
  uint64_t refine_pass_decided[kRefinePasses] = {};
  double refine_pass_seconds[kRefinePasses] = {};
  uint64_t refine_pass_host[kRefinePasses] = {};  // of a CUDA pass's pixels, those finished on the host's cores
  // Where each pass's time went: its points and BLA tables, the device's launches (their uploads
  // included), and the CPU's pixels (a CPU pass's, or a CUDA pass's host tail).
  double refine_pass_table_seconds[kRefinePasses] = {};
  double refine_pass_device_seconds[kRefinePasses] = {};
  double refine_pass_cpu_seconds[kRefinePasses] = {};
  uint64_t refine_skipped = 0;     // iterations the 106-bit tier skipped by its own BLA steps
  double secondary_seconds = 0;    // wall time of the secondary references and their blobs' pixels
  uint64_t interior_pixels = 0;    // pixels proven inside the set and stopped early (count = max_iter)
  CpuSimd cpu_simd = CpuSimd::kAuto;  // the CPU's first pass: the vector width it ran (kAuto: not on the CPU)
  // Its lanes (kAvx2, kAvx512): vector passes, pixel steps taken in them, passes left to the scalar loop.
  uint64_t lane_passes = 0, lane_steps = 0, lane_scalar_steps = 0;
  // Why the reference stopped: "escaped", "max_iter" or "periodic" (the nucleus of its period lies
  // within reference_nucleus_pixels pixels of C, docs/perturbation.md).
  std::string reference_stop;
  std::string reference_arith;  // "MPFR", "MPFR on 3 threads", "fixed point on the GPU", ... (and any fallback)
  double reference_nucleus_pixels = 0;
  std::string reference_cache;  // with RenderOptions::reference_cache: "loaded FILE", "saved FILE", ...
  // Bytes the reference's points take in memory (fewer than 48 a point: compressed).
  uint64_t reference_bytes = 0;
};

// Words of a limb format (4 for limb4, ...), 0 for every other format.
int limb_words(Arith a);
const char* limb_strategy_name(LimbStrategy s);

// Per-pixel data beyond the counts (RenderOptions::fields, a bitmask), computed only when asked, so
// that a count-only render pays nothing for it (docs/mandelbrot.md, "Per-pixel data").
enum Field : unsigned {
  // dex, dey: the distance estimate as a vector in pixels, in the image's axes (x to the right, y
  // down), pointing away from the set: v = z ln|z| / (dz/dc) for the final z, divided by the pixel
  // spacing and mapped back through View::pixel_map. |v| is the distance to the set in pixels
  // (Kalles Fraktaler's DEX, DEY); 0 where the pixel did not escape.
  kFieldDistance = 1u,
  // phase: arg(z) / 2 pi of the final z, in [0, 1) (Kalles Fraktaler's T); 0 where it did not escape.
  kFieldPhase = 2u,
  // stripe: the stripe average of the orbit (RenderOptions::stripe_density, stripe_memory), in
  // [0, 1]; stored as -1 - value (in [-2, -1]) where BLA steps near the escape make it approximate
  // (fields.cuh: stripe_value, stripe_approximate; RenderResult::stripe_approximate counts them).
  kFieldStripe = 4u,
  // sqrt_smooth: Kalles Fraktaler's square-root smoothing (SmoothingMethod 1) at its escape radius
  // R = RenderOptions::sqrt_smooth_radius: KF escapes at the first m with |z_m| > R and its value
  // of the pixel is m + 1 - (|z_m| - R) / (|z_m| - |z_(m-1)|); the field holds that value less our
  // count n (the first n with |z_n| > 2, so m >= n for R >= 2): (m - n) + 1 - trans, in [0, 1] at
  // R = 2 and within [0, m - n + 1] above (fields.cuh: sqrt_smooth_fraction). 0 where the pixel did
  // not escape. (Where m reaches max_iter KF would call the pixel interior; here it stays escaped.)
  kFieldSqrtSmooth = 8u,
};
constexpr unsigned kAllFields = kFieldDistance | kFieldPhase | kFieldStripe | kFieldSqrtSmooth;

struct RenderOptions {
  std::optional<Arith> arith;  // empty: the cheapest format that resolves the view (`auto`)
  Backend backend = Backend::kAuto;
  LimbStrategy limb_strategy = LimbStrategy::kThreadPerPixel;
  GpuSchedule gpu_schedule = GpuSchedule::kRefill;
  int guard_bits = kGuardBits;               // `auto`: the margin a chosen format must have
  int forced_guard_bits = kForcedGuardBits;  // a forced format is refused below this margin
  // false: render with a forced format even where it cannot resolve the pixels (benchmarks,
  // demonstrations of precision loss). `auto` always checks.
  bool check_resolution = true;
  // Polled between rows (CPU) and between launches (CUDA); a set flag stops the render soon,
  // and the result comes back with cancelled = true and incomplete arrays.
  const std::atomic<bool>* cancel = nullptr;
  // Fraction done in [0, 1], from the thread that calls render() (CUDA) or a worker (CPU).
  std::function<void(double)> progress;
  // The stage now running, from the thread that calls render(): "reference orbit", "BLA table",
  // "pixels", "glitch correction" (perturbation), "pixels" (direct). For progress read-outs.
  std::function<void(const char*)> stage;
  unsigned cpu_threads = 0;  // 0: every core
  // Perturbation on the CPU, binary64 deltas: the vector width of the first pass's pixel loop
  // (kernels/perturb/cpu_simd.h). kAuto: the environment's DEEPSCOPE_CPU_SIMD (scalar, avx2,
  // avx512) if set, else the widest this CPU runs; a width the CPU lacks falls back to the next.
  // The counts are the same with every width (the scalar path is the reference).
  CpuSimd cpu_simd = CpuSimd::kAuto;
  int cuda_device = 0;
  // CUDA: the whole tile in one launch (benchmarks). Default: launches of about 0.25 s each, so
  // progress and cancellation stay responsive.
  bool single_launch = false;
  // CUDA, perturbation's 106-bit tiers: hand the last unfinished pixels to the host's cores once
  // they step them faster (perturb.cu, run_list_chunk). false: the device finishes every pixel.
  bool host_tail = true;
  Method method = Method::kAuto;
  DeltaFormat delta = DeltaFormat::kAuto;  // perturbation only
  bool bla = true;                         // perturbation only: false iterates every step
  // Perturbation, with bla: a wrapping reference's whole period as one polynomial step where the
  // pixels' deltas allow (kernels/perturb/period_map.h), for views whose pixels x max_iter pay
  // for building it (period_map_worth); period_map_always: for any wrapping reference (tests).
  // false: BLA only.
  bool period_map = true;
  bool period_map_always = false;
  // Stop pixels inside the set early: perturbation proves them inside (docs/perturbation.md,
  // "Interior"); the hardware formats (f32, f64) stop an orbit whose computed values repeat
  // exactly (Brent's check: the same count as iterating to the limit; docs/mandelbrot.md).
  bool interior = true;
  // Prove every interior pixel the test can (auto iterations count them), also where the proof's
  // steps without BLA cost more than finishing the orbit with BLA; false: only where cheaper.
  bool prove_interior_always = false;
  // Perturbation only: secondary references a render may place in glitched blobs; pixels of the
  // blobs beyond them stay unresolved (PerturbInfo::glitch_unresolved).
  int max_secondary_references = 10000;
  std::string reference_cache;  // perturbation: a folder of reference files (reference_file.h); "" none
  ReferencePath reference_path = ReferencePath::kAuto;  // perturbation: the reference's arithmetic
  // Perturbation: at kNucleusReferenceFromIter iterations and more, the reference may be the orbit
  // of a proven nucleus in the view's reach, one period long (kernels/perturb/reference_nucleus.cpp);
  // false: always the centre's orbit (`render --reference-at centre`).
  bool reference_at_nucleus = true;
  // Perturbation: bytes the reference orbit may take (0: three quarters of this machine's memory).
  // Past an eighth of it (or 4,194,304 points) the orbit is kept compressed, about 2 bytes a point
  // (kernels/perturb/orbit_codec.h); past all of it the render stops with a ViewError.
  uint64_t reference_memory = 0;
  // Carry an estimate of each pixel's error and flag the pixels whose escape it cannot decide:
  // perturbation re-renders them at 106 bits and from secondary references, the direct formats in
  // wider formats (docs/mandelbrot.md, "Undecided pixels"); false only to measure its cost.
  bool error_bound = true;
  // Perturbation only: re-render flagged pixels with 106-bit deltas against the same reference
  // before any secondary reference; false only to compare and measure.
  bool refine = true;
  // ... double-word deltas first where the view allows them (kernels/perturb/dw_delta.h), floatexp2
  // for the rest; false: floatexp2 alone (to compare and measure: the counts are the same).
  bool refine_dw = true;
  // ... and on an orbit that wraps, what 106 bits leave goes to the wide tiers (floatexp4, then
  // floatexp8 against a wide orbit: cpu_tiers.cpp, wide_tiers); false: left to the secondary
  // references and marked (faster where few are decided: FractalShark's view 14).
  bool wide_tiers = true;
  // From this many pixels on, floatexp4 takes an evenly spread sample of 64 first, and the wide
  // tiers stop where it decides under an eighth (cpu_tiers.cpp, wide_tiers); tests lower it.
  std::size_t wide_sample_from = 512;
  // Rows [row_begin, row_end) of the view only (row_end < 0: to the last row), intersected with
  // the tile: a strip of a large image for one worker. The result holds just those rows, each
  // pixel computed exactly as in a render of the whole view (same geometry, reference and BLA
  // table), so strips stacked equal the whole render bit for bit. ViewError when the range is
  // empty or leaves the view or the tile.
  int row_begin = 0;
  int row_end = -1;
  // CUDA only: the tile's counts and smooth counts go to these arrays in the memory of device
  // opt.cuda_device (tile width x rendered rows, row-major) and stay there; RenderResult's host
  // arrays are left empty and its iterations are summed on the device. Canvas (canvas.h) uses this
  // so that colouring and display (CUDA-GL interop) need no copy through the host. render() throws
  // BackendError when the backend it selects is not CUDA.
  // Views with max_iter >= 2^32 (wide counts, counts.h) also need device_counts_high.
  uint32_t* device_counts = nullptr;
  float* device_smooth = nullptr;
  uint32_t* device_counts_high = nullptr;
  unsigned fields = 0;  // Field bits: the per-pixel data to compute besides counts and smooth counts
  // With device_counts: where the asked fields go on the device (dex and dey for kFieldDistance,
  // phase for kFieldPhase), row-major like the counts; null: to RenderResult's host arrays, as
  // without device_counts (the window's canvas keeps its fields in host memory).
  float* device_dex = nullptr;
  float* device_dey = nullptr;
  float* device_phase = nullptr;
  float* device_stripe = nullptr;
  float* device_sqrt_smooth = nullptr;
  // kFieldStripe: sin(density arg z) averaged with weights falling by `memory` a step back from the
  // escape (fields.cuh, StripeAcc). ViewError outside 1..16 and (0, 1).
  int stripe_density = 4;
  double stripe_memory = 0.8;
  // kFieldSqrtSmooth: KF's escape radius R for it (BailoutRadiusPreset / BailoutRadiusCustom), in
  // [2, kMaxSqrtSmoothRadius]; ViewError outside (below 2 KF escapes before our count, whose z is
  // then gone; above, R^2 leaves binary64's range).
  double sqrt_smooth_radius = 2.0;
};
constexpr double kMaxSqrtSmoothRadius = 1e100;

struct RenderResult {
  int width = 0, height = 0;        // the tile's size
  // Counts are stored as counts.h says: narrow views (max_iter < 2^32) fill counts (max_iter where no
  // escape) and smooth (smooth counts, max_iter where no escape) and leave counts_high empty; wide
  // views also fill counts_high (the high 32 bits of each count), and smooth holds smooth count -
  // count (0 where no escape). count() and smooth_count() read either.
  std::vector<uint32_t> counts;       // row-major, row 0 at the top (the low 32 bits when wide)
  std::vector<float> smooth;          // (all three empty when RenderOptions::device_counts was set)
  std::vector<uint32_t> counts_high;  // wide views only
  // RenderOptions::fields (row-major like counts, empty unless asked): the distance estimate's
  // vector in pixels (kFieldDistance) and the final z's phase in turns (kFieldPhase).
  std::vector<float> dex, dey, phase;
  std::vector<float> stripe;       // kFieldStripe, as stored (fields.cuh: stripe_value)
  std::vector<float> sqrt_smooth;  // kFieldSqrtSmooth: KF's square-root smoothing, count + it
  // kFieldStripe: pixels whose stripe average is marked approximate (counted in the host array or
  // in the device-resident one).
  uint64_t stripe_approximate = 0;
  int stripe_density = 0;     // the stripe average's parameters where it was computed (else 0)
  double stripe_memory = 0;
  uint64_t max_iter = 0;              // the view's limit (counts reach it where no escape)
  Arith arith = Arith::kF64;        // the format used
  Backend backend = Backend::kCpu;  // the backend used (never kAuto)
  LimbStrategy limb_strategy = LimbStrategy::kThreadPerPixel;  // the strategy used
  bool cancelled = false;
  double seconds = 0;         // wall time of the render (without validation)
  double kernel_seconds = 0;  // CUDA: time inside the kernels; CPU: same as seconds
  uint64_t iterations = 0;    // z -> z^2 + c steps performed: the sum of (count - 1)
  std::string note;           // e.g. why kAuto fell back to the CPU

  Method method = Method::kDirect;  // the method used (never kAuto); arith is meaningful for kDirect
  PerturbInfo perturb;              // method == kPerturb; its glitch counters also for kDirect
  // kDirect: the wider formats that decided undecided pixels and how many each ("f64x2 12"), "" none.
  std::string recheck;
  bool error_bound = true;  // RenderOptions::error_bound: false, no pixel was checked (PNG and CLI say so)

  bool wide() const { return wide_counts(max_iter); }
  uint64_t count(std::size_t k) const { return load_count(counts.data(), wide() ? counts_high.data() : nullptr, k); }
  // The smooth count in double (wide: count + stored fraction, to double's 53 bits).
  double smooth_count(std::size_t k) const {
    return wide() ? static_cast<double>(count(k)) + smooth[k] : static_cast<double>(smooth[k]);
  }
  // Host arrays (zeros) for the Field bits `fields`, `pixels` each (render, the strips' image).
  void assign_fields(unsigned fields, std::size_t pixels);
  // Drops every per-pixel array (counts, smooth counts, high words, fields), keeping the facts.
  void clear_pixel_arrays();
};

// How many stored stripe averages are marked approximate (fields.cuh: stripe_approximate).
uint64_t count_stripe_approximate(const std::vector<float>& stripe);

// The method render() would use (never kAuto). Throws ViewError like select_arith. With max_iter
// (0: not considered), auto's hardware formats must resolve the view with iteration_guard_bits
// more (view.h), and auto also renders directly, in the cheapest format that resolves the view,
// where perturbation's reference orbit could need more memory than it may have (max_iter points
// past three quarters of this machine's memory: reference_too_large).
Method select_method(const Geometry& g, const RenderOptions& opt, uint64_t max_iter = 0);
// Whether a reference orbit of max_iter points could outgrow three quarters of this machine's
// memory (the reference's budget), compressed where it is that long (perturb::kPackedBytesEstimate
// a point); *why says how much it would need.
bool reference_too_large(uint64_t max_iter, std::string* why = nullptr);
// "f64x2", or "perturb/f64", "perturb/floatexp": what a result was computed with (UI, files).
std::string format_label(const RenderResult& r);

// The format render() would use: opt.arith when set (checked against the view unless
// opt.check_resolution is false), else choose_arith with opt.guard_bits plus
// iteration_guard_bits(max_iter) (0: the limit not considered). Throws ViewError.
Arith select_arith(const Geometry& g, const RenderOptions& opt, uint64_t max_iter = 0);

// Bytes the engine allocates for a tile (host: counts + smooth, and the counts' high words for wide
// views; device: the same on the GPU).
struct MemoryEstimate {
  uint64_t host_bytes = 0;
  uint64_t device_bytes = 0;
};
// fields: RenderOptions::fields (4 bytes a pixel for each float array they add).
MemoryEstimate estimate_memory(const Tile& clipped_tile, Backend backend, uint64_t max_iter = 1000,
                               unsigned fields = 0);

// The tile render() computes: `tile` clipped to the view and to opt's row range. Throws ViewError.
Tile render_tile(const View& v, const RenderOptions& opt, const Tile& tile = {});

// Renders `tile` of the view (the whole image by default; rows limited by opt.row_begin/row_end). Throws
// ViewError for a bad view or format, BackendError for a missing device or too little memory (checked before
// allocating).
RenderResult render(const View& v, const RenderOptions& opt = {}, const Tile& tile = {});

struct FieldPtrs;  // fields.cuh

namespace detail {
// The CUDA backend (mandelbrot.cu); only in builds with CUDA. Fills counts/smooth for the tile
// (row-major, tile width), returns the kernel time, sets *cancelled when stopped early.
// counts_high: nullptr for narrow views (counts.h).
// fields: host arrays for the asked fields (RenderOptions::fields; null when not asked or resident).
double render_cuda(Arith a, const Geometry& g, const View& v, const Tile& t, const RenderOptions& opt,
                   uint32_t* counts, float* smooth, uint32_t* counts_high, const FieldPtrs& fields, bool* cancelled);
// Device-resident frames (frame_device.cu; CUDA builds only); counts_high nullptr for narrow views.
// Sum of (count - 1) over n counts (count 0, an undecided pixel, adds nothing).
uint64_t device_iterations(const uint32_t* counts, const uint32_t* counts_high, std::size_t n);
// How many of the n floats are negative (stripe averages marked approximate, fields.cuh).
uint64_t device_count_negative(const float* v, std::size_t n);
// Indices k < n whose count is 0 (perturbation's flagged pixels), ascending.
std::vector<uint32_t> device_zero_indices(const uint32_t* counts, const uint32_t* counts_high, std::size_t n);
// Pixel idx[q] gets count c[q] and stored smooth value s[q] for every q.
void device_scatter(uint32_t* counts, float* smooth, uint32_t* counts_high, const std::vector<uint32_t>& idx,
                    const std::vector<uint64_t>& c, const std::vector<float>& s);
// dst[idx[q]] = v[q] for every q (a device float array: the fields of re-rendered pixels); no-op for null dst.
void device_scatter_floats(float* dst, const std::vector<uint32_t>& idx, const std::vector<float>& v);
}  // namespace detail

}  // namespace ds::mandel
