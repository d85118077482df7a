// The perturbation engine's host API (plain C++, no CUDA types): the MPFR reference orbit and its
// cache, the direct MPFR evaluation of single pixels (the glitch fallback), and the render entry
// that mandel::render() calls for Method::kPerturb. Method and error policy: docs/perturbation.md.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "arith/floatexp.h"
#include "arith/floatexp2.h"
#include "arith/floatexpn.h"
#include "kernels/mandelbrot/mandelbrot.h"

namespace ds::perturb {
using namespace mandel;  // views, tiles and results: kernels/mandelbrot

struct CompressedOrbit;  // orbit_codec.h
// Orbits of this many points and more are kept compressed (Reference::packed): 201 MB uncompressed.
constexpr uint64_t kPackFromPoints = uint64_t{1} << 22;
// From this many points on (compressed by then), a reference whose max_iter points would not fit
// the memory budget at the compression reached so far is refused (reference.cpp).
constexpr uint64_t kProjectFromPoints = uint64_t{1} << 23;
// Bytes a point of a compressed orbit, as estimated before it is computed (about twice what real
// locations reach): where auto chooses between perturbation and a direct format.
constexpr double kPackedBytesEstimate = 4.0;
// The reference's precision target: its error, as a shift of c (Reference::error_shift), at most
// 2^kReferenceShiftLog2 of a pixel spacing; the orbit is recomputed with more bits until it is
// (docs/perturbation/references.md, "Reference"). Every pixel's error estimate starts from that shift, so it
// stays below what the 106-bit tier resolves. compute_reference's shift_log2 changes it (tests).
constexpr int kReferenceShiftLog2 = -112;

// Z_0 = 0, Z_{n+1} = Z_n^2 + C for the reference point C, computed in MPFR and rounded to 53 bits
// (floatexp, so tiny Z near a minibrot's nucleus keep their value). Stored: Z_0 .. Z_{length-1},
// where Z_{length-1} is Z_max_iter, or the first Z with |Z|^2 > 4 (escaped), or the first Z_n
// (n >= 2) that is zero to within a fraction of a pixel (periodic, below).
//
// Two checks ride along in floatexp, at no MPFR cost (docs/perturbation/references.md, "Reference"):
//  - A_n = dZ_n/dC (A_1 = 1, A_{n+1} = 2 Z_n A_n + 1), so |Z_n / A_n| is the Newton distance from C
//    to the nucleus of period n. The orbit stops as periodic only where that distance (plus the
//    orbit's error) is at most 2^-24 pixel spacings: then every pixel's forced rebase at Z_n
//    (z = Z_n + dz) rounds away less than 2^-77 of a pixel, as exact as any other step. A mere
//    |Z_n| < 2^-64 is not enough at depth: near (not on) a minibrot it held long before the orbit
//    escaped, and every pixel rebased onto the wrong orbit (KF's 5e113 came out flat).
//  - E_n, a first-order bound on |Z_n - exact Z_n| from MPFR's roundings at `bits` bits. Pixels see
//    the error as a shift of c by E_n / |A_n|; where that exceeds 2^-112 pixel spacings the orbit is
//    recomputed with more bits, so the precision that a long orbit needs is measured, not assumed.
struct Reference {
  std::string re, im;  // C, decimal, as given
  int bits = 0;        // MPFR precision of the iteration (after any increase)
  int bits_asked = 0;  // the precision asked for (reference_bits of the view)
  uint64_t max_iter = 0;
  bool escaped = false;
  // The orbit stopped at Z_{length-1} ~ 0 (C lies within nucleus_distance of the nucleus of period
  // length-1): pixels rebase there (z = Z_last + dz becomes their new dz) and go round again.
  bool periodic = false;
  FloatExp nucleus_distance{0.0};  // |Z_last / A_last| + error (periodic only)
  FloatExp error_shift{0.0};       // max_n E_n / |A_n|: the orbit's error as a shift of c
  int shift_log2 = kReferenceShiftLog2;  // the target it was computed to: error_shift <= 2^shift_log2 pixel (kReferenceShiftLog2)
  FloatExp last_error{0.0};        // E at the last point (a pixel's rebase there inherits it)
  FloatExp step{0.0};              // the pixel spacing it was computed for
  // Asked with certify: every escape test of C's own orbit was decided by E (|Z| +- E clear of 2),
  // so length - 1 (or max_iter) is C's exact count. False when the precision cap was reached first.
  bool escape_certified = false;
  // Asked with a BallStop: the first n at which the ball of the stop's radius about C, carried
  // along the orbit, held 0 (the ball method's period, Z_n the last point); 0 where it never did
  // within the stop's max_period (the orbit then ran on as without the stop).
  uint64_t ball_period = 0;
  FloatExp ball_radius{0.0};  // the stop's radius where ball_period != 0 (reference_for's reuse)
  // Pixels go round it again and again: periodic, or cut at the ball's period.
  bool wraps() const { return periodic || ball_period != 0; }
  std::vector<FloatExp> zr, zi;
  // The tails beyond 53 bits: Z_n = (zr[n].m + zr_lo[n]) 2^zr[n].e to 106 bits (floatexp2 deltas,
  // the second tier for pixels that binary64 cannot decide).
  std::vector<double> zr_lo, zi_lo;
  // A long orbit (kPackFromPoints and up, or past a fraction of the memory budget) is kept
  // compressed without loss (orbit_codec.h, about 2 bytes a point against 48): then `packed` holds
  // every point and the four arrays above are empty. point() reads either way.
  std::shared_ptr<const CompressedOrbit> packed;
  // A wide orbit (compute_reference's `wide_terms` W > 2: the wide tiers', reference_wide.cpp):
  // each point's terms past the tail, W - 2 of them at zr_w[n (W - 2) ...], so that
  // Z_n = (zr[n].m + zr_lo[n] + zr_w[..] + ...) 2^zr[n].e to 53 W bits; never packed.
  int wide_terms = 0;
  std::vector<double> zr_w, zi_w;
  // Point k (k < length()). A packed point decodes its chunk of 4,096 into a per-thread buffer:
  // cheap for points read in order, or near each other.
  void point(uint64_t k, FloatExp* re, FloatExp* im, double* re_lo, double* im_lo) const;
  // Z_k to 53 bits, and to 106 bits (the point and its tail).
  FloatExp re53(uint64_t k) const;
  FloatExp im53(uint64_t k) const;
  FloatExp2 re106(uint64_t k) const;
  FloatExp2 im106(uint64_t k) const;
  // To 53 N bits (a wide orbit of at least N terms only).
  template <int N>
  FloatExpN<N> re_wide(uint64_t k) const {
    return FloatExpN<N>::of_terms(zr[k], zr_lo[k], zr_w.data() + k * static_cast<uint64_t>(wide_terms - 2));
  }
  template <int N>
  FloatExpN<N> im_wide(uint64_t k) const {
    return FloatExpN<N>::of_terms(zi[k], zi_lo[k], zi_w.data() + k * static_cast<uint64_t>(wide_terms - 2));
  }
  double seconds = 0;
  // Threads that computed each step's products in MPFR (reference_step.h); negative for the
  // fixed-point arithmetic (reference_fixed.h): -1 on a CUDA device, -2 its CPU twin.
  int step_threads = 1;
  bool fixed_point() const { return step_threads < 0; }
  uint64_t length() const;
  // Bytes its points take in memory.
  uint64_t point_bytes() const;
  // True when this orbit serves a view of pixel spacing `s` (as exactly as a fresh one would).
  bool serves_step(FloatExp s) const;
};

// ref itself, or for a packed one a copy with every point in its four arrays (48 bytes a point).
std::shared_ptr<const Reference> unpacked(std::shared_ptr<const Reference> ref);

// Fills zr[0 .. n) and zi[0 .. n) with a reference's points first .. first + n - 1 in a delta type
// (a CUDA render's way to a packed orbit's points: a slice at a time, straight to the device).
template <class T>
using PointFill = std::function<void(uint64_t first, uint64_t n, T* zr, T* zi)>;

// ReferencePath (kernels/mandelbrot/mandelbrot.h) kAuto takes the GPU from this precision where a
// device is (and the caller left `threads` to the choice): on the H100 machine the GPU step is
// 2.1x MPFR's at 32,768 bits and 0.9x at 16,384 (docs/bench/reference.md). A GPU that fails (out of
// memory, no device) hands the orbit back to MPFR, with a note.
constexpr int kGpuReferenceMinBits = 32768;
// What computed a reference's steps, in words ("MPFR on 3 threads", "fixed point on the GPU").
std::string reference_arith_name(const Reference& ref);

// The progress read-out's stage while a reference orbit is computed, from the share of max_iter
// done: "reference orbit (step 1,228,800 of at most 200,000,000)" (at most: the ball's period or an
// escape may end it sooner, so a share of max_iter alone would read 0 % for hours).
std::string reference_stage_text(double fraction, uint64_t max_iter);

// MPFR bits that resolve the view: the pixel spacing's binary exponent plus 64 (the finder's
// and the nucleus search's working precision, plus their own margins).
int view_bits(const Geometry& g);
// MPFR bits that the reference (and the offsets of the pixels from it) need at the view:
// view_bits + 64, so that its error meets kReferenceShiftLog2 on a short orbit. The orbit's own
// check may add more (Reference).
int reference_bits(const Geometry& g);
// The view's pixel spacing s (2 * half_step) in floatexp.
FloatExp pixel_step(const Geometry& g);


// Computes the orbit of (re, im) for up to max_iter iterations, for pixels of spacing `step`,
// starting at `bits` bits and adding bits while the orbit's error bound says so (and, with
// certify, until the bound decides every escape test of C's own orbit; a certified orbit never
// stops as periodic). Polls *cancel (returns
// nullptr when set) and reports progress in [0, 1]. threads: how many threads compute each step's
// products (reference_step.h; 0: chosen by precision and cores, 1: serial); the orbit is the
// same bit for bit either way. The stored orbit (kReferenceBytesPerPoint a point) may use at most
// memory_budget bytes (0: three quarters of this machine's memory): an orbit that would outgrow it
// stops with ViewError (exit 2) naming the iteration, the bytes it needed and what max_iter could need.
// checkpoint: a file (reference_file.h, ReferenceCheckpoint) that the orbit resumes from when it
// holds this orbit's state, and that it saves every checkpoint_seconds and when cancelled (removed
// once the orbit is whole); the resumed orbit is bit for bit the uninterrupted one. *note says
// what happened to it ("resumed FILE at iteration N", "checkpoint FILE at iteration N") and to the
// GPU ("the GPU reference failed (...); computed in MPFR"). path: the arithmetic (ReferencePath).
// wide_terms (0, or 3 to 8): the points to 53 wide_terms bits as well (Reference::wide_terms: MPFR
// steps, never packed, no checkpoint).
// The ball method (finder::find_period) riding along a reference orbit: the disk of `radius` about
// C (the view's half-diagonal) carried by the orbit's derivative bound, R_1 = radius,
// R_{n+1} = (2 |Z_n| + R_n) R_n + radius; the orbit stops at the first n <= max_period where
// |Z_n| <= R_n + E_n (the disk's image may hold 0): Reference::ball_period. The orbit so cut is a
// wrap reference (reference_nucleus.cpp), and the search costs no MPFR step of its own.
struct BallStop {
  FloatExp radius{0.0};
  uint64_t max_period = 0;  // 0: no stop
};
// The ball method's margin for floatexp's own roundings: R and |Z_{n-1}| are rounded up by it,
// |Z_n| down (finder::find_period and BallStop alike).
constexpr double kBallRoundUp = 1.0 + 0x1p-48, kBallRoundDown = 1.0 - 0x1p-48;
// One step of the ball's radius: R_{n+1} = (2 |Z_n| + R_n) R_n + radius, rounded up (zprev: |Z_n|
// already rounded up).
inline FloatExp ball_radius_step(FloatExp zprev, FloatExp r, FloatExp radius) {
  return ((mul_pow2(zprev, 1) + r) * r + radius) * kBallRoundUp;
}

std::shared_ptr<const Reference> compute_reference(const std::string& re, const std::string& im, int bits,
                                                   uint64_t max_iter, FloatExp step,
                                                   const std::atomic<bool>* cancel,
                                                   const std::function<void(double)>& progress,
                                                   bool certify = false, int threads = 0,
                                                   uint64_t memory_budget = 0, const std::string& checkpoint = "",
                                                   double checkpoint_seconds = 60, std::string* note = nullptr,
                                                   ReferencePath path = ReferencePath::kAuto,
                                                   int shift_log2 = kReferenceShiftLog2, BallStop ball = {},
                                                   int wide_terms = 0);
// The wide tiers' orbit (reference_wide.cpp; docs/perturbation/errors.md, "Undecided pixels"): ref's
// orbit again from the same C for the same ref.length() points, every point to kWideTerms terms
// (424 bits, Reference::wide_terms), with kWideExtraBits more bits and an error target (a shift
// of c) 2^-kWideExtraBits of ref's, in MPFR. The periodic, ball and escape marks are ref's where
// the orbits agree in length. nullptr (and *why) where it cannot serve: over kMaxWidePoints
// points or kMaxWideBits bits, cancelled, or of another length. One-entry cache keyed by ref.
constexpr int kWideTerms = 8;
constexpr int kWideExtraBits = 448;
constexpr uint64_t kMaxWidePoints = uint64_t{1} << 22;
// Nor past this many bits (the first orbit's): the wide orbit's MPFR steps would take minutes
// (FractalShark's view 30: 669,772 steps at 380,000 bits, whose first orbit the GPU computed in
// 46 s in fixed point, which carries 106 bits a point).
constexpr int kMaxWideBits = 65536;
// Where a WidePrefetch is computing ref's wide orbit, this waits for it (passing a cancel on); where
// the orbit returned came from a prefetch, *waited (when given) gets the seconds it waited (0: the
// prefetch had finished), else it is left as it was.
std::shared_ptr<const Reference> wide_reference(const std::shared_ptr<const Reference>& ref,
                                                const std::atomic<bool>* cancel, std::string* why,
                                                double* waited = nullptr);
// ref's wide orbit computed on a host thread from construction, into wide_reference's cache, so
// that the wide tiers find it there (or wait for the rest of it) instead of computing it after the
// first pass: for the device's renders, whose first pass leaves the host's cores idle (cpu.cpp).
// Nothing starts where wide_reference would refuse ref, where its orbit is cached already, or
// where another prefetch runs. The destructor stops an unfinished orbit (it was not needed: the
// tiers have run) and joins the thread.
class WidePrefetch {
 public:
  explicit WidePrefetch(const std::shared_ptr<const Reference>& ref);
  ~WidePrefetch();
  WidePrefetch(const WidePrefetch&) = delete;
  WidePrefetch& operator=(const WidePrefetch&) = delete;
  bool started() const { return started_; }

 private:
  std::atomic<bool> stop_{false};
  bool started_ = false;
  std::thread thread_;
};
// Host bytes a stored reference point takes: zr, zi (floatexp) and their 53-bit tails.
constexpr uint64_t kReferenceBytesPerPoint = 2 * sizeof(FloatExp) + 2 * sizeof(double);
// A render's host arrays of a reference's points in its delta type (cpu.cpp: the CPU's pixels, and
// the 106-bit tier's on either backend): `points` points of `bytes_each` bytes beside what the orbit
// itself holds (orbit_bytes) must fit within three quarters of `machine` bytes, else ViewError (exit
// 2) with the figures and what to do instead; `what` names the arrays ("the render's points").
// machine 0 (unknown): no check.
void check_host_point_arrays(uint64_t points, uint64_t bytes_each, uint64_t orbit_bytes, uint64_t machine,
                             const std::string& what, const std::string& instead);

// The reference for a view: the last one computed (kept in a one-entry cache) when it has enough
// bits and iterations and its centre lies within the view's reach (|C - centre| at most twice the
// image's half-diagonal, so every pixel's delta keeps its precision), else a new one at the view's
// centre. *reused tells which. nullptr when cancelled. With cache_dir (`--reference-cache`), a new
// one is first looked for there (reference_file.h) and, when computed, stored there; *cache says
// what happened (loaded, saved, or a file there rejected and replaced).
std::shared_ptr<const Reference> reference_for(
    const Geometry& g, const View& v, const std::atomic<bool>* cancel,
    const std::function<void(double)>& progress, bool* reused, const std::string& cache_dir = "",
    std::string* cache = nullptr, ReferencePath path = ReferencePath::kAuto, uint64_t memory_budget = 0,
    bool at_nucleus = true);
void clear_reference_cache();

// References at the nucleus (reference_nucleus.cpp; docs/perturbation.md): for a view of at least
// kNucleusReferenceFromIter iterations, reference_for computes the centre's orbit with the ball
// method riding along (view_ball: the disk holding the view, any period below max_iter). Where the ball finds a period p, nucleus_reference takes that orbit
// (cut at Z_p) and tries Newton's nucleus of period p and its orbit, accepted only where that orbit
// stops as periodic (the reference's own check: a nucleus within 2^-24 pixel spacing) and the
// nucleus lies within kNucleusReferenceReach half-diagonals of the centre. Where no such nucleus is
// accepted (Newton fails, lands too far, or its orbit is not periodic), or p exceeds
// kNucleusNewtonMaxPeriod (Newton's orbits would cost more than the render), the centre's orbit cut
// at p is the reference (the wrap: pixels rebase to Z_0 at its end, exact algebra at any length):
// FractalShark's and Imagina's "period" reference. nullptr only when cancelled; *note says what
// happened. Where the ball finds no period the centre's orbit simply runs on to max_iter: the
// search costs no orbit of its own.
constexpr uint64_t kNucleusReferenceFromIter = uint64_t{1} << 20;
constexpr uint64_t kNucleusNewtonMaxPeriod = uint64_t{1} << 16;
constexpr double kNucleusReferenceReach = 4.0;
BallStop view_ball(const Geometry& g, const View& v);
std::shared_ptr<const Reference> nucleus_reference(const Geometry& g, const View& v,
                                                   std::shared_ptr<const Reference> centre,
                                                   const std::atomic<bool>* cancel, uint64_t memory_budget,
                                                   ReferencePath path, std::string* note);
// Makes `ref` the one-entry cache's reference, as if reference_for had just computed it (tests: a
// render against a given orbit, e.g. a packed one).
void keep_reference(std::shared_ptr<const Reference> ref);
// Frees the reference and BLA tables that CUDA renders keep on each device for the next render
// (those a running render still holds go when it ends). No-op without CUDA.
void release_device_tables();

// The offset (view centre - reference centre), exact in MPFR, rounded to floatexp.
void centre_offset(const Reference& ref, const Geometry& g, FloatExp* re, FloatExp* im);
// The same offset and the half step s/2, rounded to floatexp2 (106 bits).
void centre_offset(const Reference& ref, const Geometry& g, FloatExp2* re, FloatExp2* im, FloatExp2* half_step);
template <int N>
void centre_offset(const Reference& ref, const Geometry& g, FloatExpN<N>* re, FloatExpN<N>* im,
                   FloatExpN<N>* half_step);  // N = 4 and 8 (the wide tiers)

// The exact c of pixel (i, j) (View::pixel_map honoured) as decimal strings, `bits` bits.
void pixel_c(const Geometry& g, const View& v, int i, int j, int bits, std::string* re, std::string* im);

// Pixel (i, j) of the view iterated directly in MPFR at `bits` (the engine's count and smooth
// definitions, mandelbrot.cuh): the fallback for pixels the checks flag, and a test oracle.
// smooth is as stored (counts.h: the smooth count, or smooth count - count where max_iter >= 2^32).
void direct_pixel(const Geometry& g, const View& v, int i, int j, int bits, uint64_t* count, float* smooth);

// The environment's DEEPSCOPE_CPU_SIMD (RenderOptions::cpu_simd's kAuto reads it): kAuto where
// unset, empty or "auto"; "scalar", "avx2", "avx512"; anything else throws std::invalid_argument
// naming the variable (the CLI checks it before it starts: exit code 2).
CpuSimd cpu_simd_from_environment();

// Renders `t` (clipped) of the view by perturbation on opt.backend (resolved, kCpu or kCuda) and
// fills res (counts, smooth, perturb, iterations, times, cancelled).
void render(const View& v, const Geometry& g, const Tile& t, const RenderOptions& opt, RenderResult* res);

// A Misiurewicz point c (z_{preperiod+period}(c) = z_preperiod(c), z_0 = 0) refined from the seed
// by Newton's method in MPFR at `bits` bits (finder::find_misiurewicz), printed in fixed notation
// with `digits` decimals: deep locations for tests and benchmarks. Throws ViewError on bad
// arguments or where Newton's method does not converge.
void misiurewicz_point(const std::string& seed_re, const std::string& seed_im, int preperiod, int period,
                       int bits, int digits, std::string* re, std::string* im);

// The delta type a view gets under DeltaFormat::kAuto.
DeltaFormat auto_delta(const Geometry& g);
// DeltaFormat::kF64Scaled's lengths are binary64 times 2^kDeltaScaleLog2 (perturb.cuh): pixel
// spacings of 2^-900 to 2^-1400 become 2^-400 to 2^-900, and the largest length a pixel holds
// (|dz| < 8 before it escapes) 2^503, whose squares (the error estimate's sums in quadrature) stay
// finite.
constexpr int kDeltaScaleLog2 = 500;

}  // namespace ds::perturb
