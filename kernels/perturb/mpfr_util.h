// MPFR helpers shared by the host code that iterates in MPFR (the reference orbit, the feature
// finder and the oracle, whose pixel orbit calls orbit_step: the same roundings in the same order):
// decimal input and output and rounding to floatexp / floatexp2 (the RAII number is
// arith/mpfr_number.h's ds::Mpfr).
#pragma once
#include <mpfr.h>

#include <string>
#include <vector>

#include "arith/floatexp.h"
#include "arith/floatexp2.h"
#include "arith/floatexpn.h"
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

// The terms of x beyond its head f and tail lo (to_fe_tail's), `count` of them appended to *out:
// x = (f.m + lo + w_0 + ... ) 2^f.e to about 53 (count + 2) bits (x read to kMoreTermsBits, then
// exact differences, each term rounded once to nearest). scratch: of kMoreTermsBits.
constexpr int kMoreTermsBits = 53 * 8 + 64;
inline void more_terms(const mpfr_t x, FloatExp f, double lo, int count, std::vector<double>* out,
                       mpfr_t scratch) {
  if (f.m == 0) {
    out->insert(out->end(), static_cast<std::size_t>(count), 0.0);
    return;
  }
  mpfr_set(scratch, x, MPFR_RNDN);
  mpfr_mul_2si(scratch, scratch, -f.e, MPFR_RNDN);  // exact
  mpfr_sub_d(scratch, scratch, f.m, MPFR_RNDN);     // exact: f.m holds the leading bits
  mpfr_sub_d(scratch, scratch, lo, MPFR_RNDN);      // exact: lo the next ones
  for (int i = 0; i < count; ++i) {
    const double w = mpfr_get_d(scratch, MPFR_RNDN);
    out->push_back(w);
    mpfr_sub_d(scratch, scratch, w, MPFR_RNDN);  // exact
  }
}

// x rounded to 53 N bits (floatexp N). tmp: scratch of x's precision; scratch: of kMoreTermsBits.
template <int N>
FloatExpN<N> to_fen(const mpfr_t x, mpfr_t tmp, mpfr_t scratch) {
  const FloatExp f = to_fe(x);
  if (f.m == 0) return FloatExpN<N>(0.0);
  const double lo = tail_of(x, f, tmp);
  std::vector<double> more;
  more_terms(x, f, lo, N - 2, &more, scratch);
  return FloatExpN<N>::of_terms(f, lo, more.data());
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

// to_fe(x) and tail_of(x, to_fe(x)) at once, read from the top limbs of x's significand: the same
// two values bit for bit (the head rounded to nearest at 53 bits, ties to even; the exact remainder
// rounded to nearest), with no MPFR call and no full-precision temporary (the reference orbit
// rounds every point so: docs/bench/reference.md). The remainder is rounded from its next 128
// bits, with a sticky bit from the limbs below, read only where a rounding needs it. False (f and
// lo unset) where that window cannot decide: x zero or not finite, or a remainder whose leading bit
// lies past the window's 74th (x within 2^-127 of a 53-bit value).
inline bool to_fe_tail_from_limbs(const mpfr_t x, FloatExp* f, double* lo) {
  static_assert(GMP_NUMB_BITS == 64, "64-bit limbs");
  using U128 = unsigned __int128;
  if (!mpfr_regular_p(x)) return false;
  const mp_limb_t* d = x->_mpfr_d;
  const size_t n = static_cast<size_t>((mpfr_get_prec(x) + 63) / 64);
  const mp_limb_t top = d[n - 1], l1 = n >= 2 ? d[n - 2] : 0, l2 = n >= 3 ? d[n - 3] : 0;
  // The significand 0.b1 b2 ... (b1 = 1): head = b1 .. b53, w = b54 .. b181 (b54 its top bit).
  const uint64_t head = top >> 11;
  const U128 w = (static_cast<U128>(top & 0x7FF) << 117) | (static_cast<U128>(l1) << 53) | (l2 >> 11);
  const auto below = [&] {  // any bit past b181
    if ((l2 & 0x7FF) != 0) return true;
    for (size_t k = n >= 3 ? n - 3 : 0; k-- > 0;)
      if (d[k] != 0) return true;
    return false;
  };
  const U128 half = static_cast<U128>(1) << 127;
  // The head rounded: up past the half, or at a tie to an even head.
  const bool up = (w & half) != 0 && ((w & ~half) != 0 || (head & 1) != 0 || below());
  // |significand - rounded head| in units of 2^-181: v plus a fraction in [0, 1) that is nonzero
  // where sticky says so. Rounded down: w and the bits below. Rounded up: 2^128 - w - the bits
  // below, that is ~w plus a fraction where there are bits below, else -w exactly.
  U128 v;
  int sticky;  // 1 or 0; -1: rounded down, below() not read yet
  if (!up) {
    v = w;
    sticky = -1;
  } else if (below()) {
    v = ~w;
    sticky = 1;
  } else {
    v = -w;
    sticky = 0;
  }
  const uint64_t rounded = head + (up ? 1 : 0);
  const bool carry = rounded == (uint64_t{1} << 53);  // rounded up to 1: to_fe's m = 1, e one up
  const bool negative = mpfr_signbit(x) != 0;
  if (v == 0) {
    if (sticky == 1 || (sticky < 0 && below())) return false;
    *lo = 0.0;  // x has 53 bits: MPFR's exact difference is +0
  } else {
    const uint64_t vh = static_cast<uint64_t>(v >> 64);
    const int lz = vh != 0 ? __builtin_clzll(vh) : 64 + __builtin_clzll(static_cast<uint64_t>(v));
    if (lz > 74) return false;  // fewer than 54 of the remainder's bits in w
    const U128 s = v << lz;     // its leading bit at bit 127
    uint64_t m = static_cast<uint64_t>(s >> 75);  // 53 bits
    if (((s >> 74) & 1) != 0) {
      const U128 rest = s & ((static_cast<U128>(1) << 74) - 1);
      if (rest != 0 || sticky == 1 || (m & 1) != 0 || (sticky < 0 && below())) ++m;  // 2^53 stays exact
    }
    // The remainder is m 2^(-106 - lz) of the significand, and the tail in f's units twice that
    // (once after a carry); its sign is x's, turned where the head was rounded up.
    const double mag = static_cast<double>(m) * bits::pow2(-105 - lz - (carry ? 1 : 0));
    *lo = negative != up ? -mag : mag;
  }
  const long ex = mpfr_get_exp(x);
  f->m = (negative ? -1.0 : 1.0) * (carry ? 1.0 : static_cast<double>(rounded) * 0x1p-52);
  f->e = static_cast<int32_t>(carry ? ex : ex - 1);
  return true;
}

// to_fe and tail_of of x (tmp: scratch of x's precision), from the limbs where they decide.
inline void to_fe_tail(const mpfr_t x, FloatExp* f, double* lo, mpfr_t tmp) {
  if (to_fe_tail_from_limbs(x, f, lo)) return;
  *f = to_fe(x);
  *lo = tail_of(x, *f, tmp);
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
