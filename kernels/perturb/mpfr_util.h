// MPFR helpers shared by the host code that iterates in MPFR (the reference orbit, the feature
// finder and the oracle, whose pixel orbit calls orbit_step: the same roundings in the same order):
// decimal input and output and rounding to floatexp / floatexp2 (the RAII number is
// arith/mpfr_number.h's ds::Mpfr).
#pragma once
#include <mpfr.h>

#include <string>

#include "arith/floatexp.h"
#include "arith/floatexp2.h"
#include "arith/mpfr_number.h"

namespace ds::mpfr_util {

// x rounded to 53 bits, with its exponent kept (0 stays 0).
inline FloatExp to_fe(const mpfr_t x) {
  if (mpfr_zero_p(x)) return FloatExp(0.0);
  long e = 0;
  const double m = mpfr_get_d_2exp(&e, x, MPFR_RNDN);  // |m| in [0.5, 1), rounded to 53 bits
  return FloatExp::make(m, e);
}

// The tail of x beyond its FloatExp f = to_fe(x): lo with x = (f.m + lo) 2^f.e to 106 bits
// (|lo| <= 2^-53). tmp: scratch of x's precision.
inline double tail_of(const mpfr_t x, FloatExp f, mpfr_t tmp) {
  if (f.m == 0) return 0.0;
  mpfr_mul_2si(tmp, x, -f.e, MPFR_RNDN);  // exact
  mpfr_sub_d(tmp, tmp, f.m, MPFR_RNDN);   // exact: f.m holds x's leading bits
  return mpfr_get_d(tmp, MPFR_RNDN);
}

// x rounded to 106 bits (floatexp2). tmp: scratch of x's precision.
inline FloatExp2 to_fe2(const mpfr_t x, mpfr_t tmp) {
  const FloatExp f = to_fe(x);
  return FloatExp2::from_parts(f, tail_of(x, f, tmp));
}

// x cut to its leading 106 bits (an error below 2^-105 of x), read from the top two limbs of its
// significand: several times cheaper than to_fe2's MPFR calls, for orbits stored point by point.
inline FloatExp2 to_fe2_cut(const mpfr_t x) {
  static_assert(GMP_NUMB_BITS == 64, "64-bit limbs");
  if (!mpfr_regular_p(x)) return FloatExp2(0.0);
  const size_t n = static_cast<size_t>((mpfr_get_prec(x) + 63) / 64);
  const mp_limb_t top = x->_mpfr_d[n - 1], next = n >= 2 ? x->_mpfr_d[n - 2] : 0;
  const double hi = static_cast<double>(top >> 11) * 0x1p-53;  // in [0.5, 1): the MSB is set
  const double lo = static_cast<double>(((top & 0x7FF) << 42) | (next >> 22)) * 0x1p-106;
  const double sign = mpfr_signbit(x) ? -1.0 : 1.0;
  return FloatExp2::normalise(sign * hi, sign * lo, mpfr_get_exp(x));
}

// out = the exact value of a floatexp2 (out's precision >= 107 bits holds it when the tail is
// within 53 bits of the head, as canonical values are).
inline void set_fe2(mpfr_t out, FloatExp2 x) {
  mpfr_set_d(out, x.hi, MPFR_RNDN);
  mpfr_add_d(out, out, x.lo, MPFR_RNDN);
  mpfr_mul_2si(out, out, x.e, MPFR_RNDN);
}

// z <- z^2 + c in the plain form (x^2 - y^2 + cr, 2xy + ci), each operation rounded to nearest
// at its destination's precision; s1, s2 are scratch. The finder's plain step and the tests' reference.
inline void orbit_step(mpfr_t zr, mpfr_t zi, const mpfr_t cr, const mpfr_t ci, mpfr_t s1, mpfr_t s2) {
  mpfr_sqr(s1, zr, MPFR_RNDN);
  mpfr_sqr(s2, zi, MPFR_RNDN);
  mpfr_mul(zi, zr, zi, MPFR_RNDN);
  mpfr_mul_2ui(zi, zi, 1, MPFR_RNDN);
  mpfr_add(zi, zi, ci, MPFR_RNDN);
  mpfr_sub(zr, s1, s2, MPFR_RNDN);
  mpfr_add(zr, zr, cr, MPFR_RNDN);
}

// A decimal already validated by the caller (View geometry, the CLI), rounded to out's precision.
inline void parse(mpfr_t out, const std::string& s) {
  char* end = nullptr;
  mpfr_strtofr(out, s.c_str(), &end, 10, MPFR_RNDN);
}

// x exactly, in hexadecimal ("0x1.8p+3"; MPFR's %Ra prints every bit), and back: from_hex at x's
// precision restores x bit for bit. from_hex returns false for text that is not a whole number.
inline std::string to_hex(const mpfr_t x) {
  char* s = nullptr;
  mpfr_asprintf(&s, "%Ra", x);
  std::string out = s;
  mpfr_free_str(s);
  return out;
}
inline bool from_hex(mpfr_t out, const std::string& s) {
  char* end = nullptr;
  const int inexact = mpfr_strtofr(out, s.c_str(), &end, 0, MPFR_RNDN);
  return end != nullptr && *end == '\0' && inexact == 0 && !s.empty();
}

// Scientific notation with enough digits to give x back at its precision.
inline std::string to_decimal(const mpfr_t x) {
  char* s = nullptr;
  mpfr_asprintf(&s, "%.*Re", static_cast<int>(mpfr_get_prec(x) * 0.30103) + 2, x);
  std::string out = s;
  mpfr_free_str(s);
  return out;
}

}  // namespace ds::mpfr_util
