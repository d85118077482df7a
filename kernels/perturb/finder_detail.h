// The feature finder's private helpers (finder.cpp, finder_nucleus.cpp): complex MPFR numbers and
// their steps, complex floatexp, timing and cancel checks. Not part of the host API (finder.h).
#pragma once
#include <atomic>
#include <chrono>
#include <cmath>
#include <initializer_list>

#include "arith/floatexp.h"
#include "kernels/perturb/mpfr_util.h"

namespace ds::perturb::finder::detail {

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
  Mpfr re, im;
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

// z <- z^2 + c (t1, t2: scratch): the plain step (mpfr_util::orbit_step).
inline void step(MpC& z, const MpC& c, Mpfr& t1, Mpfr& t2) {
  mpfr_util::orbit_step(z.re.v, z.im.v, c.re.v, c.im.v, t1.v, t2.v);
}

// z <- z^2 + c with two products instead of two squares and a product: re = (x + y)(x - y) + c_re,
// im = 2 x y + c_im (t1, t2: scratch). The finder's own orbits (the seed's and its MPFR steps',
// finder_nucleus.cpp, finder_series.cpp) use it: at 64 to 118 limbs MPFR's square is 0.6 of its
// product, so two products cost 0.9 of the three (measured: the orbit 5 to 11% faster at 4,094 to
// 7,509 bits). Rounding to b bits: x + y and x - y each within 2^-b of themselves, the product
// within 2^-b of itself, so re is within (3 + 3 2^-b) 2^-b |x^2 - y^2| <= 3.01 2^-b |z|^2 before
// c is added (then 2^-b of the sum): per coordinate and step at most 2^-b (3.01 |z|^2 + |z^2 + c|),
// no more than the three-product step's 2^-b (2 |z|^2 + |x^2 - y^2| + |z^2 + c|) bound at |z| <= 2
// (12.04 + 4 + |c| against 16 + |c|), and relative to x^2 - y^2 itself, where that cancels, far
// less. The plain orbit (step above) stays as it is: it is `bench finder`'s unit.
// (out <- in^2 + c at out's precision; out may be in.)
inline void step_two_products(MpC& out, const MpC& in, const MpC& c, Mpfr& t1, Mpfr& t2) {
  mpfr_add(t1.v, in.re.v, in.im.v, MPFR_RNDN);
  mpfr_sub(t2.v, in.re.v, in.im.v, MPFR_RNDN);
  mpfr_mul(out.im.v, in.re.v, in.im.v, MPFR_RNDN);
  mpfr_mul_2ui(out.im.v, out.im.v, 1, MPFR_RNDN);
  mpfr_add(out.im.v, out.im.v, c.im.v, MPFR_RNDN);
  mpfr_mul(out.re.v, t1.v, t2.v, MPFR_RNDN);
  mpfr_add(out.re.v, out.re.v, c.re.v, MPFR_RNDN);
}
inline void step_two_products(MpC& z, const MpC& c, Mpfr& t1, Mpfr& t2) { step_two_products(z, z, c, t1, t2); }

// Each number (or both coordinates of each complex one) to p bits, its value lost.
inline void set_prec(std::initializer_list<Mpfr*> ms, mpfr_prec_t p) {
  for (Mpfr* m : ms) mpfr_set_prec(m->v, p);
}
inline void set_prec(std::initializer_list<MpC*> ms, mpfr_prec_t p) {
  for (MpC* m : ms) set_prec({&m->re, &m->im}, p);
}
// to <- from, rounded to to's precision.
inline void copy(MpC& to, const MpC& from) {
  mpfr_set(to.re.v, from.re.v, MPFR_RNDN);
  mpfr_set(to.im.v, from.im.v, MPFR_RNDN);
}

// z <- z^2 + c (step_two_products) at `bits` bits, where an orbit's precision drops as it goes
// (precision_schedule): where bits differs from *cur, z's value is kept exactly in zprev (at *cur)
// and z, t1 and t2 move to `bits` before the step reads zprev.
inline void step_at_bits(int bits, int* cur, MpC& z, MpC& zprev, const MpC& c, Mpfr& t1, Mpfr& t2) {
  if (bits == *cur) {
    step_two_products(z, c, t1, t2);
    return;
  }
  set_prec({&zprev}, *cur);
  copy(zprev, z);  // (exact: the same precision)
  *cur = bits;
  set_prec({&z.re, &z.im, &t1, &t2}, bits);
  step_two_products(z, zprev, c, t1, t2);
}

// d <- 2 z d + 1 (t1, t2: scratch).
inline void derivative_step(MpC& d, const MpC& z, Mpfr& t1, Mpfr& t2) {
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

// d <- 2 z d + 1 with Gauss's three products (t1..t3: scratch at d's precision): with z = a + ib,
// d = p + iq, k1 = p (a + b), k2 = a (q - p), k3 = b (p + q), z d = (k1 - k3) + i (k1 + k2). Each
// k is within (2 + 2^-b) 2^-b |k| of itself (a sum and a product rounded), |k| <= 2^0.5 |z| |d|, and
// the final sums are rounded once more: each coordinate of 2 z d within 2^-b (2 (4 2^0.5 + 0.01)
// |z| |d| + |2 z d|) <= 2^-b 13.4 |z d|, |2 z d + 1| by 2^-b once more, against the four-product
// step's 2^-b (2 |z d| + |2 z d| ...) <= 2^-b 4 |z d|: 1.8 bits more per step, inside the 16 bits
// the finder allows beyond p 2^-bd (finder_nucleus.cpp; z is the rounded z at d's precision either
// way). From about 16 limbs it is faster: 21% at 36 limbs (e1200's 2,298 bits), 13% at 19, 4% at 13.
inline void derivative_step_gauss(MpC& d, const MpC& z, Mpfr& t1, Mpfr& t2, Mpfr& t3) {
  mpfr_add(t1.v, z.re.v, z.im.v, MPFR_RNDN);
  mpfr_mul(t1.v, t1.v, d.re.v, MPFR_RNDN);  // k1
  mpfr_sub(t2.v, d.im.v, d.re.v, MPFR_RNDN);
  mpfr_mul(t2.v, t2.v, z.re.v, MPFR_RNDN);  // k2
  mpfr_add(t3.v, d.re.v, d.im.v, MPFR_RNDN);
  mpfr_mul(t3.v, t3.v, z.im.v, MPFR_RNDN);  // k3
  mpfr_sub(d.re.v, t1.v, t3.v, MPFR_RNDN);
  mpfr_add(d.im.v, t1.v, t2.v, MPFR_RNDN);
  mpfr_mul_2ui(d.im.v, d.im.v, 1, MPFR_RNDN);
  mpfr_mul_2ui(d.re.v, d.re.v, 1, MPFR_RNDN);
  mpfr_add_ui(d.re.v, d.re.v, 1, MPFR_RNDN);
}

// c <- c - f / g (complex; t1..t3 scratch).
inline void newton_update(MpC& c, const MpC& f, const MpC& g, Mpfr& t1, Mpfr& t2, Mpfr& t3) {
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
