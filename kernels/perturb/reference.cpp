// The reference orbit in MPFR and its one-entry cache, the exact centre offset, and the direct
// MPFR evaluation of single pixels (the glitch fallback).
#include <mpfr.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "kernels/core/atomic_file.h"
#include "kernels/core/backend.h"
#include "kernels/core/device.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
#include "kernels/perturb/mpfr_util.h"
#include "kernels/perturb/orbit_codec.h"
#include "kernels/perturb/reference_file.h"
#include "kernels/perturb/reference_fixed.h"
#include "kernels/perturb/reference_step.h"
#include "perturb.h"

namespace ds::perturb {
namespace {

using mpfr_util::parse;
using mpfr_util::to_fe_tail;

}  // namespace

FloatExp pixel_step(const Geometry& g) { return mul_pow2(FloatExp::from_string(g.half_step), 1); }

int view_bits(const Geometry& g) { return std::max(64, static_cast<int>(std::ceil(-g.log2_step)) + 64); }
int reference_bits(const Geometry& g) { return view_bits(g) + 64; }

DeltaFormat auto_delta(const Geometry& g) {
  return g.log2_step > -900    ? DeltaFormat::kF64
         : g.log2_step > -1400 ? DeltaFormat::kF64Scaled
                               : DeltaFormat::kFloatExp;
}

namespace {

// The orbit's precision target and the periodic stop's tolerance, in pixel spacings
// (docs/perturbation/references.md, "Reference").
constexpr int kReuseShiftLog2 = -108;   // a cached orbit still serves a view up to 2^-108 pixel
constexpr int kNucleusLog2 = -24;       // periodic stop: the nucleus within 2^-24 pixel of C
constexpr int kMaxExtraBitsFactor = 8;  // bits may grow to 8x the asked precision + 4096

FloatExp mag(FloatExp x, FloatExp y) { return sqrt(sqr(x) + sqr(y)); }
FloatExp pow2(int k) { return FloatExp::make(1.0, k); }

enum class Pass { kDone, kCancelled, kNeedsBits };

std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return b;
}

std::string memory_message(uint64_t n, uint64_t max_iter, uint64_t budget, bool budget_is_machine,
                           double per_point) {
  char each[48];
  std::snprintf(each, sizeof each, "%.3g bytes a point%s", per_point,
                per_point < kReferenceBytesPerPoint ? ", compressed" : "");
  return "the reference orbit needs more memory than this machine gives it: at iteration " +
         std::to_string(n) + " it holds " + gib(static_cast<double>(n) * per_point) + " (" + each +
         "), and up to the " + std::to_string(max_iter) + " iterations asked it could need " +
         gib(static_cast<double>(max_iter) * per_point) + "; the budget is " +
         gib(static_cast<double>(budget)) +
         (budget_is_machine ? " (three quarters of this machine's memory)" : "") +
         ". Ask fewer iterations (--iter), or render on a machine with more memory";
}

}  // namespace

void check_host_point_arrays(uint64_t points, uint64_t bytes_each, uint64_t orbit_bytes, uint64_t machine,
                             const std::string& what, const std::string& instead) {
  const double need = static_cast<double>(points) * static_cast<double>(bytes_each);
  const double limit = static_cast<double>(usable_memory_bytes(machine));
  if (machine == 0 || need + static_cast<double>(orbit_bytes) <= limit) return;
  throw ViewError(what + " would take " + gib(need) + " of host memory (" + std::to_string(points) +
                  " points, " + std::to_string(bytes_each) +
                  " bytes each) beside the reference orbit's own " + gib(static_cast<double>(orbit_bytes)) +
                  ": more than three quarters of this machine's " + gib(static_cast<double>(machine)) + ". " +
                  instead);
}

namespace {

// Where and how often a pass saves its state (compute_reference's checkpoint).
struct Checkpointing {
  std::string path;  // "": none
  double seconds = 60;
  std::string* note = nullptr;  // what happened, for the caller
};

// A reference's fields without its points (the checkpoint's state).
std::shared_ptr<Reference> ref_fields(const Reference& r) {
  auto f = std::make_shared<Reference>();
  f->re = r.re;
  f->im = r.im;
  f->bits = r.bits;
  f->bits_asked = r.bits_asked;
  f->step_threads = r.step_threads;
  f->max_iter = r.max_iter;
  f->step = r.step;
  f->error_shift = r.error_shift;
  f->escape_certified = r.escape_certified;
  return f;
}

// The checkpoint at c.path (its state) and c.path + ".points" when it continues this pass (same
// centre, bits, iterations, spacing and certification), with its points; else nothing. The points
// file is cut back to the state's points, so later saves append after them.
bool load_checkpoint(const Checkpointing& c, const Reference& ref, bool certify, uint64_t pack_from,
                     ReferenceCheckpoint* out) {
  if (c.path.empty()) return false;
  bool found = false;
  const std::string state = read_file_bytes(c.path, &found);
  if (!found) return false;
  try {
    ReferenceCheckpoint k = decode_checkpoint_state(state);
    const Reference& r = *k.ref;
    if (r.re != ref.re || r.im != ref.im || r.bits != ref.bits || r.bits_asked != ref.bits_asked ||
        r.max_iter != ref.max_iter || !(r.step == ref.step) || k.certify != certify) {
      if (c.note) *c.note = "checkpoint " + c.path + " is another orbit's (or another precision's); not used";
      return false;
    }
    decode_points(read_file_bytes(c.path + ".points", &found), &k, pack_from);
    if (::truncate((c.path + ".points").c_str(), static_cast<off_t>(k.points_bytes)) != 0)
      throw std::runtime_error(std::string("cannot cut its points file back: ") + std::strerror(errno));
    *out = std::move(k);
    return true;
  } catch (const std::exception& e) {
    if (c.note) *c.note = "checkpoint " + c.path + " not used (" + e.what() + ")";
    return false;
  }
}

// The orbit's running checks, point by point, whichever arithmetic computed the points: A = dZ/dC,
// the error bound E, the precision it asks for, C's certified escape tests, the escape and the
// periodic stop.
struct OrbitChecks {
  Reference* ref;
  bool last_try, certify;
  bool fixed;   // fixed point: every step rounds each part once, by at most 2^-F (absolute)
  FloatExp u;   // MPFR: the unit roundoff 2^-bits (relative); fixed point: 2^-F
  FloatExp shift_limit, nucleus_limit;
  FloatExp ar{1.0}, ai{0.0}, err{0.0}, zr_prev{0.0}, zi_prev{0.0};
  FloatExp zmag_prev{0.0};  // mag(zr_prev, zi_prev): each point's magnitude, computed once
  enum Verdict { kGo, kStop, kNeedsBits };

  OrbitEncoder* packing = nullptr;  // where the points go once the orbit is packed
  BallStop ball{};                  // the ball method riding along (max_period 0: off)
  FloatExp ball_r{0.0}, ball_zprev{0.0};

  // The previous point, where a resumed orbit continues.
  void set_prev(FloatExp re, FloatExp im) {
    zr_prev = re;
    zi_prev = im;
    zmag_prev = mag(re, im);
  }

  Verdict accept(uint64_t n, const OrbitPoint& p, int* more_bits) {
    const FloatExp fr = p.re, fi = p.im;
    if (packing) {
      packing->push(p);
    } else {
      ref->zr.push_back(fr);
      ref->zi.push_back(fi);
      ref->zr_lo.push_back(p.re_lo);
      ref->zi_lo.push_back(p.im_lo);
    }
    const FloatExp zmag = mag(fr, fi);
    if (n == 1) {
      err = fixed ? u : u * zmag;  // C's own rounding
    } else {
      // MPFR: Z_n = Z_{n-1}^2 + C in five rounded operations: each adds at most u |its result|, and
      // |x^2|, |y^2|, |x^2 - y^2|, |2xy| are at most |Z_{n-1}|^2. Fixed point: each part is rounded
      // once from its exact value, by at most 2^-F / 2, so |error| <= 2^-F. Either way the
      // inherited error grows by the derivative 2 |Z_{n-1}| (plus its square, second order but kept:
      // it is an upper bound).
      const FloatExp zprev = zmag_prev;
      const FloatExp ar2 = mul_pow2(zr_prev * ar - zi_prev * ai, 1) + FloatExp(1.0);
      const FloatExp ai2 = mul_pow2(zr_prev * ai + zi_prev * ar, 1);
      ar = ar2;
      ai = ai2;
      const FloatExp rounding = fixed ? u : u * (FloatExp(4.0) * sqr(zprev) + mul_pow2(zmag, 1));
      err = mul_pow2(zprev * err, 1) + sqr(err) + rounding;
    }
    zr_prev = fr;
    zi_prev = fi;
    zmag_prev = zmag;
    const FloatExp amag = mag(ar, ai);
    // The error seen by pixels, as a shift of c. A_n = 0 exactly would make it unbounded: then
    // only the absolute error counts (the pixels' deltas are second order there).
    const FloatExp shift = amag.m != 0 ? err / amag : err;
    if (shift > ref->error_shift) ref->error_shift = shift;
    if (shift > shift_limit && !last_try) {
      // Raise the precision by what the bound asks plus a margin, and at least by a quarter.
      const double need = std::log2(to_double(shift / shift_limit)) + 32.0;
      *more_bits = std::max(static_cast<int>(std::ceil(need)), ref->bits / 4);
      return kNeedsBits;
    }
    const double dr = to_double(fr), di = to_double(fi);
    const bool out = dr * dr + di * di > 4.0;
    if (certify) {
      // C's own count: every escape test must be decided by the bound (|Z| +- E clear of 2).
      const double r = std::sqrt(dr * dr + di * di), e = to_double(err) + 1e-15 * r;
      if ((out ? r - e <= 2.0 : r + e > 2.0)) {
        if (last_try) {
          ref->escape_certified = false;
        } else {
          *more_bits = std::max(64, ref->bits / 2);
          return kNeedsBits;
        }
      }
    }
    if (out) {
      ref->escaped = true;
      return kStop;
    }
    // Periodic: the nucleus of period n lies within |Z_n / A_n| (Newton's step) of C; stop only
    // where that, with the orbit's own error, is below kNucleusLog2 pixel spacings.
    // (Not for a certified orbit: a pixel at C itself has dc ~ 0, and after the stop its fate
    // hangs on Z_n^2, whose error E_n^2 no pixel spacing bounds.)
    if (n >= 2 && amag.m != 0 && !certify) {
      const FloatExp dist = (zmag + err) / amag;
      if (dist <= nucleus_limit) {
        ref->periodic = true;
        ref->last_error = err;
        ref->nucleus_distance = dist;
        return kStop;
      }
    }
    if (n <= ball.max_period) {
      // As finder::find_period (the same step and margins).
      ball_r = ball_radius_step(ball_zprev, ball_r, ball.radius);
      if (zmag * kBallRoundDown <= ball_r + err) {
        ref->ball_period = n;
        ref->ball_radius = ball.radius;
        return kStop;
      }
      ball_zprev = zmag * kBallRoundUp;
    }
    return kGo;
  }
};

// How a pass computes its steps: MPFR (on `threads` threads), or the fixed-point orbit on a CUDA
// device or on the CPU (reference_fixed.h).
enum class StepArith { kMpfr, kFixedGpu, kFixedCpu };
constexpr int kStepThreadsFixedGpu = -1, kStepThreadsFixedCpu = -2;  // Reference::step_threads

// One pass at `bits` bits. On kNeedsBits, *more_bits says by how much to raise the precision. With a
// checkpoint path, the pass starts from a matching checkpoint there and saves one every
// ckpt.seconds and when cancelled, so an orbit of hours survives being stopped.
Pass iterate_reference(Reference* ref, uint64_t max_iter, bool last_try, bool certify, BallStop ball, int threads,
                       StepArith arith,
                       uint64_t memory_budget, bool budget_is_machine, const std::atomic<bool>* cancel,
                       const std::function<void(double)>& progress, int* more_bits, const Checkpointing& ckpt) {
  const int bits = ref->bits;
  const bool fixed = arith != StepArith::kMpfr;
  Mpfr cr(bits), ci(bits), x(bits), y(bits), x2(bits), y2(bits), xy(bits), tmp(bits);  // tmp: to_fe_tail's
  Mpfr w(mpfr_util::kMoreTermsBits);  // more_terms's (a wide orbit)
  parse(cr.v, ref->re);
  parse(ci.v, ref->im);
  std::unique_ptr<ReferenceStep> step;
  if (fixed) {
    ref->step_threads = arith == StepArith::kFixedGpu ? kStepThreadsFixedGpu : kStepThreadsFixedCpu;
  } else {
    if (threads <= 0)
      threads = reference_step_threads(bits, static_cast<int>(std::thread::hardware_concurrency()));
    step = std::make_unique<ReferenceStep>(threads, x.v, y.v, x2.v, y2.v, xy.v);
    ref->step_threads = step->threads();
  }
  ref->packed.reset();
  ref->zr.assign(1, FloatExp(0.0));
  ref->zi.assign(1, FloatExp(0.0));
  ref->zr_lo.assign(1, 0.0);
  ref->zi_lo.assign(1, 0.0);
  if (ref->wide_terms > 2) {
    ref->zr_w.assign(static_cast<std::size_t>(ref->wide_terms - 2), 0.0);
    ref->zi_w.assign(static_cast<std::size_t>(ref->wide_terms - 2), 0.0);
  }
  ref->escaped = ref->periodic = false;
  ref->escape_certified = certify;
  ref->error_shift = FloatExp(0.0);
  ref->ball_period = 0;
  OrbitChecks checks{ref, last_try, certify, fixed,
                     fixed ? pow2(-fixed_format(bits).fraction_bits) : pow2(-bits),  // MPFR: round to nearest
                     ref->step * pow2(ref->shift_log2), ref->step * pow2(kNucleusLog2)};
  checks.ball = ball;
  // Past pack_bytes uncompressed (kPackFromPoints, or an eighth of the budget where that is less:
  // the render's own arrays come on top), the points so far are compressed and the rest follow them
  // (Reference::packed); a checkpoint past it is read back compressed.
  std::unique_ptr<OrbitEncoder> enc;
  const double pack_bytes = std::min(static_cast<double>(kPackFromPoints) * kReferenceBytesPerPoint,
                                     static_cast<double>(memory_budget) / 8);
  const uint64_t pack_from = ref->wide_terms > 2 ? UINT64_MAX : static_cast<uint64_t>(pack_bytes / kReferenceBytesPerPoint);
  // The arrays reserved up to the orbit's longest unpacked length: pages are touched once, as the
  // points arrive, instead of again at every doubling (0.88x to 0.92x the CPU time of a certified
  // 5e227 orbit, docs/bench/reference.md). Untouched, the reservation costs address space only;
  // done() gives back what a short orbit left unused.
  {
    const std::size_t r = static_cast<std::size_t>(std::min(max_iter + 1, pack_from));
    ref->zr.reserve(r);
    ref->zi.reserve(r);
    ref->zr_lo.reserve(r);
    ref->zi_lo.reserve(r);
  }
  const auto drop_arrays = [&] {  // once packed, the encoder holds every point
    ref->zr = {};
    ref->zi = {};
    ref->zr_lo = {};
    ref->zi_lo = {};
  };
  uint64_t first = 1;
  ReferenceCheckpoint resumed;
  std::string fixed_x, fixed_y;  // a resumed fixed-point orbit's Z
  if (load_checkpoint(ckpt, *ref, certify, pack_from, &resumed) &&
      (fixed ? (resumed.ref->step_threads < 0)
             : (resumed.ref->step_threads > 0 && mpfr_util::from_hex(x.v, resumed.x) &&
                mpfr_util::from_hex(y.v, resumed.y)))) {
    Reference& r = *resumed.ref;
    if (resumed.packed) {
      enc = std::move(resumed.packed);
      checks.packing = enc.get();
      drop_arrays();
      first = enc->size();
      const OrbitPoint last = enc->point(first - 1);
      checks.set_prev(last.re, last.im);
    } else {
      ref->zr = std::move(r.zr);
      ref->zi = std::move(r.zi);
      ref->zr_lo = std::move(r.zr_lo);
      ref->zi_lo = std::move(r.zi_lo);
      first = ref->length();
      checks.set_prev(ref->zr.back(), ref->zi.back());
    }
    ref->error_shift = r.error_shift;
    ref->escape_certified = r.escape_certified;
    checks.ar = resumed.ar;
    checks.ai = resumed.ai;
    checks.err = resumed.err;
    fixed_x = resumed.x;
    fixed_y = resumed.y;
    // The ball goes on where the checkpoint carries it for the same disk and periods (DSPART04);
    // a checkpoint made without it, or for another disk, resumes without it (its radius so far
    // would need every point again).
    const bool same_ball = checks.ball.max_period > 0 && resumed.ball.max_period == checks.ball.max_period &&
                           resumed.ball.radius == checks.ball.radius;
    const bool ball_dropped = checks.ball.max_period > 0 && !same_ball;
    if (same_ball) {
      checks.ball_r = resumed.ball_r;
      checks.ball_zprev = resumed.ball_zprev;
    } else {
      checks.ball.max_period = 0;
    }
    // first: the next n (Z_0 .. Z_{first-1} are kept)
    if (ckpt.note)
      *ckpt.note = "resumed " + ckpt.path + " at iteration " + std::to_string(first - 1) +
                   (ball_dropped ? " (without the ball's period: the checkpoint was made for another disk, or "
                                   "before checkpoints carried it)"
                                 : "");
  } else {
    // Not resumed: Z_0 = 0 again (a checkpoint whose y did not parse may have set x already).
    mpfr_set_zero(x.v, 1);
    mpfr_set_zero(y.v, 1);
  }
  std::unique_ptr<FixedOrbit> orbit;
  if (arith == StepArith::kFixedGpu)
    orbit = gpu_fixed_orbit(ref->re, ref->im, bits, 0, fixed_x, fixed_y);
  else if (arith == StepArith::kFixedCpu)
    orbit = cpu_fixed_orbit(ref->re, ref->im, bits, fixed_x, fixed_y);
  const auto stored = [&]() -> uint64_t { return enc ? enc->size() : static_cast<uint64_t>(ref->zr.size()); };
  // Point k before packing (Reference::point reads the arrays then).
  const auto array_point = [&](uint64_t k) -> OrbitPoint {
    OrbitPoint p;
    ref->point(k, &p.re, &p.im, &p.re_lo, &p.im_lo);
    return p;
  };
  const auto point_at = [&](uint64_t k) -> OrbitPoint { return enc ? enc->point(k) : array_point(k); };
  const auto done = [&] {
    // The error at the last point, whatever stopped the orbit: a pixel that runs past the end
    // rebases there (a wrap, or an escaped reference's end) and inherits it.
    ref->last_error = checks.err;
    if (enc) ref->packed = std::make_shared<const CompressedOrbit>(enc->finish());
    if (!enc && ref->zr.capacity() > 2 * ref->zr.size()) {  // as much as doubling would have left
      ref->zr.shrink_to_fit();
      ref->zi.shrink_to_fit();
      ref->zr_lo.shrink_to_fit();
      ref->zi_lo.shrink_to_fit();
      ref->zr_w.shrink_to_fit();
      ref->zi_w.shrink_to_fit();
    }
    return Pass::kDone;
  };
  auto last_save = std::chrono::steady_clock::now();
  // Points already in the points file (a resumed orbit's), and their running hash.
  uint64_t saved_points = first > 1 ? resumed.points : 0;
  uint64_t saved_hash = first > 1 ? resumed.points_hash : kPointsHashStart;
  const auto save = [&](uint64_t n) {
    // The new points first (appended and flushed to the disk), then the state that counts them:
    // a crash between the two leaves extra points that the next load cuts off.
    // A fresh orbit's first save replaces whatever points file a foreign checkpoint left.
    const std::string more = encode_points(point_at, saved_points, stored());
    if (saved_points == 0)
      write_file_atomically(ckpt.path + ".points", more);
    else
      append_durable(ckpt.path + ".points", more);
    saved_hash = points_hash(more.data(), more.size(), saved_hash);
    saved_points = stored();
    ReferenceCheckpoint k;
    k.ref = ref_fields(*ref);
    if (orbit) {
      orbit->state(&k.x, &k.y);
    } else {
      k.x = mpfr_util::to_hex(x.v);
      k.y = mpfr_util::to_hex(y.v);
    }
    k.ar = checks.ar;
    k.ai = checks.ai;
    k.err = checks.err;
    k.certify = certify;
    k.ball = checks.ball;
    k.ball_r = checks.ball_r;
    k.ball_zprev = checks.ball_zprev;
    k.points = saved_points;
    k.points_hash = saved_hash;
    write_file_atomically(ckpt.path, encode_checkpoint_state(k));
    last_save = std::chrono::steady_clock::now();
    if (ckpt.note) *ckpt.note = "checkpoint " + ckpt.path + " at iteration " + std::to_string(n);
  };
  // Every 4096 steps: the memory budget, cancel, the checkpoint, progress. False: cancelled.
  const auto between = [&](uint64_t n) {
    // The orbit 4096 points on must fit twice (a vector's old and new storage while it grows).
    const double next = static_cast<double>(std::min(n + 4096, max_iter + 1));
    if (!enc && next * kReferenceBytesPerPoint > pack_bytes) {
      enc = std::make_unique<OrbitEncoder>();
      for (uint64_t k = 0; k < ref->zr.size(); ++k) enc->push(array_point(k));
      drop_arrays();
      checks.packing = enc.get();
    }
    const double per_point = enc ? static_cast<double>(enc->bytes()) / static_cast<double>(stored())
                                 : static_cast<double>(kReferenceBytesPerPoint);
    if (2.0 * next * per_point > static_cast<double>(memory_budget))
      throw ViewError(memory_message(n, max_iter, memory_budget, budget_is_machine, per_point));
    // Memory before work: once the orbit is compressed and past kProjectFromPoints, the whole
    // orbit of max_iter points at the compression reached so far must fit the budget; otherwise it
    // is refused now, with the figures, not after growing for an hour towards the budget. (An orbit
    // that becomes periodic stops sooner; one whose period passes this many points is refused
    // here.)
    if (enc && n >= kProjectFromPoints && static_cast<double>(max_iter + 1) * per_point > static_cast<double>(memory_budget))
      throw ViewError(memory_message(n, max_iter, memory_budget, budget_is_machine, per_point));
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      if (!ckpt.path.empty()) save(n);
      return false;
    }
    if (!ckpt.path.empty() &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - last_save).count() >= ckpt.seconds)
      save(n);
    if (progress) progress(static_cast<double>(n) / static_cast<double>(max_iter));
    return true;
  };
  if (orbit) {
    // Chunks of 4096 steps, ending on multiples of 4096 (checkpoints hold whole chunks).
    std::vector<OrbitPoint> pts;
    for (uint64_t n = first; n <= max_iter;) {
      const uint64_t chunk_end = std::min(max_iter, (n + 4095) / 4096 * 4096);
      const std::size_t asked = static_cast<std::size_t>(chunk_end - n + 1);
      pts.clear();
      orbit->next(asked, &pts);
      for (const OrbitPoint& p : pts) {
        const OrbitChecks::Verdict v = checks.accept(n, p, more_bits);
        if (v == OrbitChecks::kNeedsBits) return Pass::kNeedsBits;
        if (v == OrbitChecks::kStop) return done();
        ++n;
      }
      // The orbit ends only past |Z| = 3, which the checks see as an escape.
      if (pts.size() < asked) throw std::logic_error("the fixed-point orbit ended before its escape");
      if ((chunk_end & 4095) == 0 && !between(chunk_end)) return Pass::kCancelled;
    }
    return done();
  }
  for (uint64_t n = first; n <= max_iter; ++n) {
    step->products();  // x2 = x^2, y2 = y^2, xy = x y
    mpfr_sub(x.v, x2.v, y2.v, MPFR_RNDN);
    mpfr_add(x.v, x.v, cr.v, MPFR_RNDN);
    mpfr_mul_2ui(xy.v, xy.v, 1, MPFR_RNDN);
    mpfr_add(y.v, xy.v, ci.v, MPFR_RNDN);
    OrbitPoint p;
    to_fe_tail(x.v, &p.re, &p.re_lo, tmp.v);  // from the limbs (mpfr_util.h), as to_fe and tail_of
    to_fe_tail(y.v, &p.im, &p.im_lo, tmp.v);
    if (ref->wide_terms > 2) {
      mpfr_util::more_terms(x.v, p.re, p.re_lo, ref->wide_terms - 2, &ref->zr_w, w.v);
      mpfr_util::more_terms(y.v, p.im, p.im_lo, ref->wide_terms - 2, &ref->zi_w, w.v);
    }
    const OrbitChecks::Verdict v = checks.accept(n, p, more_bits);
    if (v == OrbitChecks::kNeedsBits) return Pass::kNeedsBits;
    if (v == OrbitChecks::kStop) break;
    if ((n & 4095) == 0 && !between(n)) return Pass::kCancelled;
  }
  return done();
}

}  // namespace

uint64_t Reference::length() const { return packed ? packed->length : static_cast<uint64_t>(zr.size()); }

uint64_t Reference::point_bytes() const {
  return packed ? packed->bytes() : static_cast<uint64_t>(zr.size()) * kReferenceBytesPerPoint;
}

void Reference::point(uint64_t k, FloatExp* re, FloatExp* im, double* re_lo, double* im_lo) const {
  if (packed) {
    const OrbitPoint& p = packed_point(*packed, k);
    *re = p.re;
    *im = p.im;
    *re_lo = p.re_lo;
    *im_lo = p.im_lo;
    return;
  }
  *re = zr[k];
  *im = zi[k];
  *re_lo = zr_lo[k];
  *im_lo = zi_lo[k];
}

FloatExp Reference::re53(uint64_t k) const { return packed ? packed_point(*packed, k).re : zr[k]; }
FloatExp Reference::im53(uint64_t k) const { return packed ? packed_point(*packed, k).im : zi[k]; }
FloatExp2 Reference::re106(uint64_t k) const {
  if (packed) {
    const OrbitPoint& p = packed_point(*packed, k);
    return FloatExp2::from_parts(p.re, p.re_lo);
  }
  return FloatExp2::from_parts(zr[k], zr_lo[k]);
}
FloatExp2 Reference::im106(uint64_t k) const {
  if (packed) {
    const OrbitPoint& p = packed_point(*packed, k);
    return FloatExp2::from_parts(p.im, p.im_lo);
  }
  return FloatExp2::from_parts(zi[k], zi_lo[k]);
}

std::shared_ptr<const Reference> unpacked(std::shared_ptr<const Reference> ref) {
  if (!ref || !ref->packed) return ref;
  auto r = std::make_shared<Reference>(*ref);
  decompress_orbit(*ref->packed, &r->zr, &r->zi, &r->zr_lo, &r->zi_lo);
  r->packed.reset();
  return r;
}

bool Reference::serves_step(FloatExp s) const {
  if (error_shift > s * pow2(kReuseShiftLog2)) return false;
  return !periodic || nucleus_distance <= s * pow2(kNucleusLog2 + 8);
}

std::shared_ptr<const Reference> compute_reference(const std::string& re, const std::string& im, int bits,
                                                   uint64_t max_iter, FloatExp step,
                                                   const std::atomic<bool>* cancel,
                                                   const std::function<void(double)>& progress, bool certify,
                                                   int threads, uint64_t memory_budget, const std::string& checkpoint,
                                                   double checkpoint_seconds, std::string* note, ReferencePath path,
                                                   int shift_log2, BallStop ball, int wide_terms) {
  const auto t0 = std::chrono::steady_clock::now();
  const bool budget_is_machine = memory_budget == 0;
  if (budget_is_machine) {
    const uint64_t host = host_memory_bytes();
    memory_budget = host ? usable_memory_bytes(host) : UINT64_MAX;
  }
  auto ref = std::make_shared<Reference>();
  ref->re = re;
  ref->im = im;
  ref->bits = ref->bits_asked = bits;
  ref->max_iter = max_iter;
  ref->shift_log2 = shift_log2;
  ref->step = step;
  ref->wide_terms = wide_terms;
  if (wide_terms > 2) path = ReferencePath::kMpfr;  // the fixed-point records carry 106 bits
  const int max_bits = kMaxExtraBitsFactor * bits + 4096;
  StepArith arith = StepArith::kMpfr;
  if (path == ReferencePath::kGpu ||
      (path == ReferencePath::kAuto && threads == 0 && bits >= kGpuReferenceMinBits && cuda_device_count() > 0))
    arith = StepArith::kFixedGpu;
  else if (path == ReferencePath::kFixedCpu)
    arith = StepArith::kFixedCpu;
  for (;;) {
    int more = 0;
    const bool last_try = ref->bits >= max_bits;
    Pass pass;
    try {
      pass = iterate_reference(ref.get(), max_iter, last_try, certify, ball, threads, arith, memory_budget,
                               budget_is_machine, cancel, progress, &more,
                               Checkpointing{checkpoint, checkpoint_seconds, note});
    } catch (const BackendError& e) {
      if (arith != StepArith::kFixedGpu) throw;
      // The device failed (or is absent): MPFR computes the orbit instead, from Z_0.
      const std::string why = std::string("the GPU reference failed (") + e.what() + "); computed in MPFR";
      if (note) *note = note->empty() ? why : *note + "; " + why;
      arith = StepArith::kMpfr;
      continue;
    }
    if (pass == Pass::kCancelled) return nullptr;
    if (pass == Pass::kDone) {
      if (!checkpoint.empty()) {  // the orbit is whole: its checkpoint is spent
        std::remove(checkpoint.c_str());
        std::remove((checkpoint + ".points").c_str());
      }
      break;
    }
    ref->bits = std::min(max_bits, ref->bits + more);
  }
  ref->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ref;
}

std::string reference_stage_text(double fraction, uint64_t max_iter) {
  const auto grouped = [](uint64_t n) {
    std::string d = std::to_string(n), g;
    for (size_t i = 0; i < d.size(); ++i) {
      if (i && (d.size() - i) % 3 == 0) g += ',';
      g += d[i];
    }
    return g;
  };
  const double f = std::isfinite(fraction) ? std::clamp(fraction, 0.0, 1.0) : 0.0;
  const auto n = static_cast<uint64_t>(std::llround(f * static_cast<double>(max_iter)));
  return "reference orbit (step " + grouped(n) + " of at most " + grouped(max_iter) + ")";
}

std::string reference_arith_name(const Reference& ref) {
  if (ref.step_threads == kStepThreadsFixedGpu) return "fixed point on the GPU";
  if (ref.step_threads == kStepThreadsFixedCpu) return "fixed point on the CPU";
  return ref.step_threads > 1 ? "MPFR on " + std::to_string(ref.step_threads) + " threads" : "MPFR";
}

}  // namespace ds::perturb
