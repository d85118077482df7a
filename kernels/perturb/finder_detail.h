// The feature finder's private helpers (finder.cpp, finder_nucleus.cpp): complex MPFR numbers and
// their steps, complex floatexp, timing and cancel checks. Not part of the host API (finder.h).
#pragma once
#include <atomic>
#include <chrono>
#include <cmath>

#include "arith/floatexp.h"
#include "kernels/perturb/mpfr_util.h"

namespace ds::perturb::finder::detail {

using mpfr_util::Mp;
using mpfr_util::parse;
using mpfr_util::to_decimal;
using mpfr_util::to_fe;
using mpfr_util::to_fe2;

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

inline FloatExp pow2(int k) { return FloatExp::make(1.0, k); }
// Larger than any distance here (FloatExp's infinity would not compare by exponent).
inline const FloatExp kHuge = FloatExp::make(1.0, 1 << 29);
inline FloatExp mag(FloatExp x, FloatExp y) { return sqrt(sqr(x) + sqr(y)); }
inline double log2_of(FloatExp x) { return x.m == 0 ? -INFINITY : x.e + std::log2(std::fabs(x.m)); }

inline bool cancelled(const std::atomic<bool>* c) { return c && c->load(std::memory_order_relaxed); }

// A complex MPFR number.
struct MpC {
  Mp re, im;
  explicit MpC(mpfr_prec_t p) : re(p), im(p) {}
  void zero() {
    mpfr_set_zero(re.v, 1);
    mpfr_set_zero(im.v, 1);
  }
  void set_prec(mpfr_prec_t p) {
    mpfr_prec_round(re.v, p, MPFR_RNDN);
    mpfr_prec_round(im.v, p, MPFR_RNDN);
  }
};

// z <- z^2 + c (t1, t2: scratch).
inline void step(MpC& z, const MpC& c, Mp& t1, Mp& t2) {
  mpfr_sqr(t1.v, z.re.v, MPFR_RNDN);
  mpfr_sqr(t2.v, z.im.v, MPFR_RNDN);
  mpfr_mul(z.im.v, z.re.v, z.im.v, MPFR_RNDN);
  mpfr_mul_2ui(z.im.v, z.im.v, 1, MPFR_RNDN);
  mpfr_add(z.im.v, z.im.v, c.im.v, MPFR_RNDN);
  mpfr_sub(z.re.v, t1.v, t2.v, MPFR_RNDN);
  mpfr_add(z.re.v, z.re.v, c.re.v, MPFR_RNDN);
}

// d <- 2 z d + 1 (t1, t2: scratch).
inline void derivative_step(MpC& d, const MpC& z, Mp& t1, Mp& t2) {
  mpfr_mul(t1.v, z.re.v, d.re.v, MPFR_RNDN);
  mpfr_mul(t2.v, z.im.v, d.im.v, MPFR_RNDN);
  mpfr_sub(t1.v, t1.v, t2.v, MPFR_RNDN);
  mpfr_mul(t2.v, z.re.v, d.im.v, MPFR_RNDN);
  mpfr_mul(d.im.v, z.im.v, d.re.v, MPFR_RNDN);
  mpfr_add(d.im.v, d.im.v, t2.v, MPFR_RNDN);
  mpfr_mul_2ui(d.im.v, d.im.v, 1, MPFR_RNDN);
  mpfr_mul_2ui(d.re.v, t1.v, 1, MPFR_RNDN);
  mpfr_add_ui(d.re.v, d.re.v, 1, MPFR_RNDN);
}

// c <- c - f / g (complex; t1..t3 scratch).
inline void newton_update(MpC& c, const MpC& f, const MpC& g, Mp& t1, Mp& t2, Mp& t3) {
  mpfr_sqr(t3.v, g.re.v, MPFR_RNDN);  // |g|^2
  mpfr_fma(t3.v, g.im.v, g.im.v, t3.v, MPFR_RNDN);
  mpfr_mul(t1.v, f.re.v, g.re.v, MPFR_RNDN);  // f conj(g)
  mpfr_fma(t1.v, f.im.v, g.im.v, t1.v, MPFR_RNDN);
  mpfr_mul(t2.v, f.im.v, g.re.v, MPFR_RNDN);
  mpfr_neg(t2.v, t2.v, MPFR_RNDN);
  mpfr_fma(t2.v, f.re.v, g.im.v, t2.v, MPFR_RNDN);
  mpfr_neg(t2.v, t2.v, MPFR_RNDN);
  mpfr_div(t1.v, t1.v, t3.v, MPFR_RNDN);
  mpfr_div(t2.v, t2.v, t3.v, MPFR_RNDN);
  mpfr_sub(c.re.v, c.re.v, t1.v, MPFR_RNDN);
  mpfr_sub(c.im.v, c.im.v, t2.v, MPFR_RNDN);
}

// Complex floatexp helpers for the side quantities (derivatives, size estimate).
struct CFe {
  FloatExp re, im;
};
inline CFe cmul(CFe a, CFe b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
inline CFe cinv(CFe a) {
  const FloatExp d = sqr(a.re) + sqr(a.im);
  return {a.re / d, neg(a.im) / d};
}
inline FloatExp cabs(CFe a) { return mag(a.re, a.im); }

}  // namespace ds::perturb::finder::detail
