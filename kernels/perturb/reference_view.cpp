// A view's reference: the one-entry cache of the last reference and its reuse, the reference file
// cache, the nucleus reference (reference_nucleus.cpp) or the centre's orbit (reference.cpp), the
// offsets of a view's centre from a reference, and pixels' c in MPFR (docs/perturbation.md,
// "Reference reuse", "Reference cache").
#include <mpfr.h>

#include <cmath>
#include <functional>
#include <mutex>

#include "kernels/core/atomic_file.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
#include "kernels/perturb/mpfr_util.h"
#include "kernels/perturb/reference_file.h"
#include "perturb.h"

namespace ds::perturb {
namespace {

using mpfr_util::parse;
using mpfr_util::to_decimal;
using mpfr_util::to_fe;
using mpfr_util::to_fe2;

std::mutex g_cache_mu;
std::shared_ptr<const Reference> g_cache;

// log2 |view centre - reference centre| (-inf when equal), exact difference rounded once.
double log2_offset(const Reference& ref, const Geometry& g) {
  FloatExp re, im;
  centre_offset(ref, g, &re, &im);
  const FloatExp r = sqrt(sqr(re) + sqr(im));
  if (r.m == 0) return -INFINITY;
  return r.e + std::log2(r.m);
}

}  // namespace

namespace {
// view centre - reference centre into dre, dim (exact: parsed at a precision that holds the view's
// centre to far below a pixel, subtracted at enough bits for both).
void centre_difference(const Reference& ref, const Geometry& g, Mpfr& dre, Mpfr& dim) {
  const int bits = std::max(ref.bits, reference_bits(g)) + 64;
  Mpfr a(bits), b(bits);
  parse(a.v, g.re);
  parse(b.v, ref.re);
  mpfr_sub(dre.v, a.v, b.v, MPFR_RNDN);
  parse(a.v, g.im);
  parse(b.v, ref.im);
  mpfr_sub(dim.v, a.v, b.v, MPFR_RNDN);
}
int difference_bits(const Reference& ref, const Geometry& g) {
  return 2 * (std::max(ref.bits, reference_bits(g)) + 64) + 64;
}
// The orbit in the cache folder's `file` where there is one and `match` takes it (a hash collision
// or a renamed file is not this orbit), else nullptr; *cache says which (loaded, or rejected and why).
std::shared_ptr<const Reference> load(const std::string& file,
                                      const std::function<bool(const Reference&)>& match, std::string* cache) {
  bool found = false;
  const std::string bytes = read_file_bytes(file, &found);
  if (!found) return nullptr;
  try {
    std::shared_ptr<const Reference> loaded = decode_reference(bytes);
    if (match(*loaded)) {
      if (cache) *cache = "loaded " + file;
      return loaded;
    }
    if (cache) *cache = "rejected " + file + " (another view's orbit); recomputed";
  } catch (const std::exception& e) {
    if (cache) *cache = "rejected " + file + " (" + e.what() + "); recomputed";
  }
  return nullptr;
}
// Writes ref to the cache folder's `file` (none where empty), whole or not at all; *cache says so.
void save(const std::string& file, const Reference& ref, std::string* cache) {
  if (file.empty()) return;
  try {
    write_file_atomically(file, encode_reference(ref));
    if (cache) *cache = (cache->empty() ? "saved " : *cache + "; saved ") + file;
  } catch (const IoError& e) {
    if (cache) *cache = std::string("not saved: ") + e.what();
  }
}
}  // namespace

void centre_offset(const Reference& ref, const Geometry& g, FloatExp* re, FloatExp* im) {
  const int bits = difference_bits(ref, g);
  Mpfr dre(bits), dim(bits);
  centre_difference(ref, g, dre, dim);
  *re = to_fe(dre.v);
  *im = to_fe(dim.v);
}

void centre_offset(const Reference& ref, const Geometry& g, FloatExp2* re, FloatExp2* im, FloatExp2* half_step) {
  const int bits = difference_bits(ref, g);
  Mpfr dre(bits), dim(bits), tmp(bits);
  centre_difference(ref, g, dre, dim);
  *re = to_fe2(dre.v, tmp.v);
  *im = to_fe2(dim.v, tmp.v);
  parse(dre.v, g.half_step);
  *half_step = to_fe2(dre.v, tmp.v);
}

template <int N>
void centre_offset(const Reference& ref, const Geometry& g, FloatExpN<N>* re, FloatExpN<N>* im,
                   FloatExpN<N>* half_step) {
  const int bits = difference_bits(ref, g);
  Mpfr dre(bits), dim(bits), tmp(bits), w(mpfr_util::kMoreTermsBits);
  centre_difference(ref, g, dre, dim);
  *re = mpfr_util::to_fen<N>(dre.v, tmp.v, w.v);
  *im = mpfr_util::to_fen<N>(dim.v, tmp.v, w.v);
  parse(dre.v, g.half_step);
  *half_step = mpfr_util::to_fen<N>(dre.v, tmp.v, w.v);
}
template void centre_offset<4>(const Reference&, const Geometry&, FloatExpN<4>*, FloatExpN<4>*, FloatExpN<4>*);
template void centre_offset<8>(const Reference&, const Geometry&, FloatExpN<8>*, FloatExpN<8>*, FloatExpN<8>*);

std::shared_ptr<const Reference> reference_for(const Geometry& g, const View& v,
                                               const std::atomic<bool>* cancel,
                                               const std::function<void(double)>& progress, bool* reused,
                                               const std::string& cache_dir, std::string* cache,
                                               ReferencePath path, uint64_t memory_budget, bool at_nucleus) {
  const int bits = reference_bits(g);
  std::shared_ptr<const Reference> last;
  {
    std::lock_guard<std::mutex> lock(g_cache_mu);
    last = g_cache;
  }
  *reused = false;
  // The cached reference may have up to 32 bits fewer than a fresh one (a few zoom steps deeper):
  // it still carries 32 bits below the pixel spacing.
  const FloatExp step = pixel_step(g);
  // An orbit cut by the ball serves only the view it was found for (its period belongs to that
  // view's disk): the same centre, disk and limit, as every tile or band of one view has (the
  // oracle suite's pixel-by-pixel renders computed it again for each pixel: 525 s).
  const bool ball = at_nucleus && v.max_iter >= kNucleusReferenceFromIter;
  const FloatExp disk = view_ball(g, v).radius;
  // The centre's orbit cut at the ball's period for this very view.
  const auto cut_for_view = [&](const Reference& r) {
    return ball && r.ball_period != 0 && r.re == g.re && r.im == g.im && r.max_iter == v.max_iter &&
           r.ball_radius == disk;
  };
  if (last && last->bits_asked >= bits - 32 && last->serves_step(step) &&
      (last->ball_period == 0 || cut_for_view(*last)) &&
      (last->escaped || last->periodic || last->max_iter >= v.max_iter)) {
    // Reach: 64 half-diagonals while the reference runs to max_iter (zooming in keeps it), 2 when
    // it escaped early (pixels further away would rebase to Z_0 at its end and lose BLA).
    const double log2_half_diag =
        g.log2_step - 1 +
        0.5 * std::log2(static_cast<double>(v.width) * v.width + static_cast<double>(v.height) * v.height);
    const double reach = log2_half_diag + (last->escaped && last->length() <= v.max_iter ? 1.0 : 6.0);
    if (log2_offset(*last, g) <= reach) {
      *reused = true;
      return last;
    }
  }
  std::string file;
  const auto use = [&](std::shared_ptr<const Reference> loaded) {
    *reused = true;
    std::lock_guard<std::mutex> lock(g_cache_mu);
    g_cache = loaded;
    return loaded;
  };
  if (!cache_dir.empty()) {
    file = reference_cache_path(cache_dir, g.re, g.im, bits, v.max_iter, step);
    // The same key, field by field.
    if (auto loaded = load(file,
                           [&](const Reference& r) {
                             return r.re == g.re && r.im == g.im && r.bits_asked == bits &&
                                    r.max_iter == v.max_iter && r.step == step;
                           },
                           cache))
      return use(std::move(loaded));
  }
  // Where the ball rides on the orbit, the reference chosen for this view (cut at the ball's
  // period, or a nucleus's) has a file of its own, keyed by the view's disk too (a full orbit in
  // the plain file above serves first).
  std::string ball_file;
  if (ball && !cache_dir.empty()) {
    ball_file = reference_cache_path(cache_dir, g.re, g.im, bits, v.max_iter, step, &disk);
    // The cut centre's orbit must be this view's, field by field; a nucleus's orbit (its C is the
    // nucleus) is periodic, no longer than the limit, at the same bits and spacing.
    if (auto loaded = load(ball_file,
                           [&](const Reference& r) {
                             const bool nucleus = r.ball_period == 0 && r.periodic && r.max_iter <= v.max_iter;
                             return r.bits_asked == bits && r.step == step && (cut_for_view(r) || nucleus);
                           },
                           cache)) {
      if (cache)
        *cache += loaded->ball_period != 0
                      ? " (the centre's orbit to the period " + std::to_string(loaded->ball_period) + ", wraps)"
                      : " (a nucleus's orbit of period " + std::to_string(loaded->length() - 1) + ")";
      return use(std::move(loaded));
    }
  }
  // With a cache folder the orbit also keeps a checkpoint there (PATH.partial, once a minute and on
  // cancel): a render stopped after hours resumes where it stopped. A view of many iterations has
  // the ball method ride along (view_ball): where it finds a period, the orbit stops there, and the
  // reference is a nucleus's orbit or this one, cut at the period (nucleus_reference); where it
  // finds none, the orbit runs on to max_iter as without it.
  std::string note;
  std::shared_ptr<const Reference> ref =
      compute_reference(g.re, g.im, bits, v.max_iter, step, cancel, progress, false, 0, memory_budget,
                        file.empty() ? std::string() : file + ".partial", 60.0, &note, path, kReferenceShiftLog2,
                        ball ? view_ball(g, v) : BallStop{});
  if (cache && !note.empty()) *cache = cache->empty() ? note : *cache + "; " + note;
  if (ref && ref->ball_period != 0) {
    std::string why;
    ref = nucleus_reference(g, v, ref, cancel, memory_budget, path, &why);
    if (cache && !why.empty()) *cache = cache->empty() ? why : *cache + "; " + why;
    if (ref) {
      {
        std::lock_guard<std::mutex> lock(g_cache_mu);
        g_cache = ref;
      }
      save(ball_file, *ref, cache);
    }
    return ref;
  }
  if (ref && ball && cache) {
    const uint64_t max_period = view_ball(g, v).max_period;
    const std::string why =
        ref->escaped && ref->length() - 1 <= max_period
            ? "no nucleus reference: the centre's orbit escaped at " + std::to_string(ref->length() - 1) +
                  " before the ball method found a period"
            : "no nucleus reference: no period up to " + std::to_string(max_period) +
                  " in the view (ball method on the centre's orbit)";
    *cache = cache->empty() ? why : *cache + "; " + why;
  }
  if (ref) {
    {
      std::lock_guard<std::mutex> lock(g_cache_mu);
      g_cache = ref;
    }
    save(file, *ref, cache);
  }
  return ref;
}

void clear_reference_cache() {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  g_cache.reset();
}

void keep_reference(std::shared_ptr<const Reference> ref) {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  g_cache = std::move(ref);
}

namespace {
// c of pixel (i, j) into cr, ci (precision set by the caller): centre + (s/2) M (kx, ky).
void set_pixel_c(const Geometry& g, const View& v, int i, int j, mpfr_t cr, mpfr_t ci) {
  const mpfr_prec_t bits = mpfr_get_prec(cr);
  Mpfr hs(bits), t(bits);
  parse(cr, g.re);
  parse(ci, g.im);
  parse(hs.v, g.half_step);
  double kx = pixel_offset(i, v.width), ky = -pixel_offset(j, v.height);
  if (g.exp_map) exp_map_offset(i, j, v.width, v.height, &kx, &ky);
  const double* m = g.pixel_map;
  mpfr_mul_d(t.v, hs.v, m[0] * kx + m[1] * ky, MPFR_RNDN);
  mpfr_add(cr, cr, t.v, MPFR_RNDN);
  mpfr_mul_d(t.v, hs.v, m[2] * kx + m[3] * ky, MPFR_RNDN);
  mpfr_add(ci, ci, t.v, MPFR_RNDN);
}

}  // namespace

void pixel_c(const Geometry& g, const View& v, int i, int j, int bits, std::string* re, std::string* im) {
  Mpfr cr(bits), ci(bits);
  set_pixel_c(g, v, i, j, cr.v, ci.v);
  *re = to_decimal(cr.v);
  *im = to_decimal(ci.v);
}

void direct_pixel(const Geometry& g, const View& v, int i, int j, int bits, uint64_t* count, float* smooth) {
  Mpfr cr(bits), ci(bits), x(bits), y(bits), x2(bits), y2(bits);
  set_pixel_c(g, v, i, j, cr.v, ci.v);
  const double cr_d = mpfr_get_d(cr.v, MPFR_RNDN), ci_d = mpfr_get_d(ci.v, MPFR_RNDN);
  mpfr_set(x.v, cr.v, MPFR_RNDN);
  mpfr_set(y.v, ci.v, MPFR_RNDN);
  for (uint64_t n = 1; n < v.max_iter; ++n) {
    const double xd = mpfr_get_d(x.v, MPFR_RNDN), yd = mpfr_get_d(y.v, MPFR_RNDN);
    if (xd * xd + yd * yd > 4.0) {
      *count = n;
      *smooth = smooth_tail(n, xd, yd, cr_d, ci_d, wide_counts(v.max_iter));
      return;
    }
    mpfr_util::orbit_step(x.v, y.v, cr.v, ci.v, x2.v, y2.v);  // the same roundings, operation for operation
  }
  *count = v.max_iter;
  *smooth = smooth_at_limit(v.max_iter);
}

}  // namespace ds::perturb
