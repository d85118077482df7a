// The reference orbit in MPFR and its one-entry cache, the exact centre offset, and the direct
// MPFR evaluation of single pixels (the glitch fallback).
#include <mpfr.h>

#include <chrono>
#include <cmath>
#include <mutex>

#include "mandelbrot.cuh"
#include "perturb.h"

namespace ds::mandel::perturb {
namespace {

struct Mp {
  mpfr_t v;
  explicit Mp(mpfr_prec_t p) { mpfr_init2(v, p); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
};

FloatExp to_fe(const mpfr_t x) {
  if (mpfr_zero_p(x)) return FloatExp(0.0);
  long e = 0;
  const double m = mpfr_get_d_2exp(&e, x, MPFR_RNDN);  // |m| in [0.5, 1), rounded to 53 bits
  return FloatExp::make(m, e);
}

void parse(mpfr_t out, const std::string& s) {
  char* end = nullptr;
  mpfr_strtofr(out, s.c_str(), &end, 10, MPFR_RNDN);  // validated by geometry()
}

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

int reference_bits(const Geometry& g) { return std::max(64, static_cast<int>(std::ceil(-g.log2_step)) + 64); }

DeltaFormat auto_delta(const Geometry& g) {
  return g.log2_step > -900 ? DeltaFormat::kF64 : DeltaFormat::kFloatExp;
}

std::shared_ptr<const Reference> compute_reference(const std::string& re, const std::string& im, int bits,
                                                   uint32_t max_iter, const std::atomic<bool>* cancel,
                                                   const std::function<void(double)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  auto ref = std::make_shared<Reference>();
  ref->re = re;
  ref->im = im;
  ref->bits = bits;
  ref->max_iter = max_iter;
  Mp cr(bits), ci(bits), x(bits), y(bits), x2(bits), y2(bits), xy(bits);
  parse(cr.v, re);
  parse(ci.v, im);
  mpfr_set_zero(x.v, 1);
  mpfr_set_zero(y.v, 1);
  ref->zr.push_back(FloatExp(0.0));
  ref->zi.push_back(FloatExp(0.0));
  for (uint32_t n = 1; n <= max_iter; ++n) {
    mpfr_sqr(x2.v, x.v, MPFR_RNDN);
    mpfr_sqr(y2.v, y.v, MPFR_RNDN);
    mpfr_mul(xy.v, x.v, y.v, MPFR_RNDN);
    mpfr_sub(x.v, x2.v, y2.v, MPFR_RNDN);
    mpfr_add(x.v, x.v, cr.v, MPFR_RNDN);
    mpfr_mul_2ui(xy.v, xy.v, 1, MPFR_RNDN);
    mpfr_add(y.v, xy.v, ci.v, MPFR_RNDN);
    const FloatExp fr = to_fe(x.v), fi = to_fe(y.v);
    ref->zr.push_back(fr);
    ref->zi.push_back(fi);
    const double dr = to_double(fr), di = to_double(fi);
    if (dr * dr + di * di > 4.0) {
      ref->escaped = true;
      break;
    }
    if (n >= 2 && std::max(std::fabs(dr), std::fabs(di)) < 5.421010862427522e-20) {  // 2^-64
      ref->periodic = true;
      break;
    }
    if ((n & 4095) == 0) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return nullptr;
      if (progress) progress(static_cast<double>(n) / max_iter);
    }
  }
  ref->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ref;
}

void centre_offset(const Reference& ref, const Geometry& g, FloatExp* re, FloatExp* im) {
  // The difference of two decimals rounded once: parse both at a precision that holds the view's
  // centre to far below a pixel, subtract exactly (precision enough for both), round to 53 bits.
  const int bits = std::max(ref.bits, reference_bits(g)) + 64;
  Mp a(bits), b(bits), d(2 * bits + 64);
  parse(a.v, g.re);
  parse(b.v, ref.re);
  mpfr_sub(d.v, a.v, b.v, MPFR_RNDN);
  *re = to_fe(d.v);
  parse(a.v, g.im);
  parse(b.v, ref.im);
  mpfr_sub(d.v, a.v, b.v, MPFR_RNDN);
  *im = to_fe(d.v);
}

std::shared_ptr<const Reference> reference_for(const Geometry& g, const View& v,
                                               const std::atomic<bool>* cancel,
                                               const std::function<void(double)>& progress, bool* reused) {
  const int bits = reference_bits(g);
  std::shared_ptr<const Reference> last;
  {
    std::lock_guard<std::mutex> lock(g_cache_mu);
    last = g_cache;
  }
  *reused = false;
  // The cached reference may have up to 32 bits fewer than a fresh one (a few zoom steps deeper):
  // it still carries 32 bits below the pixel spacing.
  if (last && last->bits >= bits - 32 && (last->escaped || last->periodic || last->max_iter >= v.max_iter)) {
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
  std::shared_ptr<const Reference> ref = compute_reference(g.re, g.im, bits, v.max_iter, cancel, progress);
  if (ref) {
    std::lock_guard<std::mutex> lock(g_cache_mu);
    g_cache = ref;
  }
  return ref;
}

void clear_reference_cache() {
  std::lock_guard<std::mutex> lock(g_cache_mu);
  g_cache.reset();
}

void direct_pixel(const Geometry& g, const View& v, int i, int j, int bits, uint32_t* count, float* smooth) {
  Mp cr(bits), ci(bits), hs(bits), x(bits), y(bits), x2(bits), y2(bits), xy(bits), t(bits);
  parse(cr.v, g.re);
  parse(ci.v, g.im);
  parse(hs.v, g.half_step);
  mpfr_mul_d(t.v, hs.v, pixel_offset(i, v.width), MPFR_RNDN);
  mpfr_add(cr.v, cr.v, t.v, MPFR_RNDN);
  mpfr_mul_d(t.v, hs.v, pixel_offset(j, v.height), MPFR_RNDN);
  mpfr_sub(ci.v, ci.v, t.v, MPFR_RNDN);
  const double cr_d = mpfr_get_d(cr.v, MPFR_RNDN), ci_d = mpfr_get_d(ci.v, MPFR_RNDN);
  mpfr_set(x.v, cr.v, MPFR_RNDN);
  mpfr_set(y.v, ci.v, MPFR_RNDN);
  for (uint32_t n = 1; n < v.max_iter; ++n) {
    const double xd = mpfr_get_d(x.v, MPFR_RNDN), yd = mpfr_get_d(y.v, MPFR_RNDN);
    if (xd * xd + yd * yd > 4.0) {
      *count = n;
      *smooth = smooth_tail(n, xd, yd, cr_d, ci_d);
      return;
    }
    mpfr_sqr(x2.v, x.v, MPFR_RNDN);
    mpfr_sqr(y2.v, y.v, MPFR_RNDN);
    mpfr_mul(xy.v, x.v, y.v, MPFR_RNDN);
    mpfr_sub(x.v, x2.v, y2.v, MPFR_RNDN);
    mpfr_add(x.v, x.v, cr.v, MPFR_RNDN);
    mpfr_mul_2ui(xy.v, xy.v, 1, MPFR_RNDN);
    mpfr_add(y.v, xy.v, ci.v, MPFR_RNDN);
  }
  *count = v.max_iter;
  *smooth = static_cast<float>(v.max_iter);
}

}  // namespace ds::mandel::perturb
