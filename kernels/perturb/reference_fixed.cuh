// A fixed-point orbit point's part rounded to floatexp and its 53-bit tail from a few of its digits
// (reference_fixed.h), in integer arithmetic on the host and on the device: the same results as
// MPFR's to_fe and tail_of of the exact value (ties to even), which the tests compare.
#pragma once
#include <cmath>
#include <cstdint>

#include "arith/floatexp.h"
#include "arith/hd.h"

namespace ds::perturb {

// 320-bit unsigned integers, little-endian 64-bit words.
namespace fixed_detail {
constexpr int kWords = 5;

DEEPSCOPE_HD void add_at(uint64_t* v, uint64_t x, int shift) {  // v += x 2^shift (x < 2^32)
  int w = shift / 64, s = shift % 64;
  uint64_t lo = x << s, hi = s ? x >> (64 - s) : 0;
  for (; w < kWords && (lo | hi); ++w) {
    const uint64_t t = v[w] + lo;
    const uint64_t carry = t < lo;
    v[w] = t;
    lo = hi + carry;
    hi = 0;
  }
}
DEEPSCOPE_HD bool less(const uint64_t* a, const uint64_t* b) {
  for (int w = kWords - 1; w >= 0; --w)
    if (a[w] != b[w]) return a[w] < b[w];
  return false;
}
DEEPSCOPE_HD void sub(uint64_t* a, const uint64_t* b) {  // a -= b, a >= b
  uint64_t borrow = 0;
  for (int w = 0; w < kWords; ++w) {
    const uint64_t t = a[w] - b[w] - borrow;
    borrow = (a[w] < b[w]) || (a[w] - b[w] < borrow);
    a[w] = t;
  }
}
DEEPSCOPE_HD int leading_zeros(uint64_t x) {  // x != 0
#if DEEPSCOPE_DEVICE_CODE
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}
DEEPSCOPE_HD int top_bit(const uint64_t* v) {  // -1 for 0
  for (int w = kWords - 1; w >= 0; --w)
    if (v[w]) return 64 * w + 63 - leading_zeros(v[w]);
  return -1;
}
DEEPSCOPE_HD uint64_t word_at(const uint64_t* v, int w) { return w >= 0 && w < kWords ? v[w] : 0; }
// Bits [pos, pos + n) as an integer, n <= 64; bits below 0 read as 0.
DEEPSCOPE_HD uint64_t bits_from(const uint64_t* v, int pos, int n) {
  uint64_t r;
  if (pos >= 0) {
    const int w = pos / 64, s = pos % 64;
    r = word_at(v, w) >> s;
    if (s) r |= word_at(v, w + 1) << (64 - s);
  } else {
    r = -pos >= 64 ? 0 : word_at(v, 0) << -pos;
  }
  return n == 64 ? r : r & ((uint64_t{1} << n) - 1);
}
DEEPSCOPE_HD bool any_below(const uint64_t* v, int pos) {  // a bit set below `pos`
  if (pos <= 0) return false;
  const int w = pos / 64, s = pos % 64;
  for (int k = 0; k < w && k < kWords; ++k)
    if (v[k]) return true;
  return s && w < kWords && (v[w] & ((uint64_t{1} << s) - 1));
}
// v rounded to a multiple of 2^lsb, ties to even, for v's top bit `top` (>= 0) and lsb > top - 64:
// the quotient (0 where lsb lies above top + 1).
DEEPSCOPE_HD uint64_t round_at(const uint64_t* v, int top, int lsb) {
  if (lsb > top + 1) return 0;
  uint64_t m = lsb <= top ? bits_from(v, lsb, top - lsb + 1) : 0;
  const bool half = lsb - 1 >= 0 ? bits_from(v, lsb - 1, 1) != 0 : false;
  if (half && ((m & 1) || any_below(v, lsb - 1))) ++m;
  return m;
}
// v rounded to 53 bits, ties to even: the significand M (2^52 <= M < 2^53, or 0) and the exponent
// of its last bit (v ~ M 2^exp).
DEEPSCOPE_HD uint64_t round53(const uint64_t* v, int* exp) {
  const int p = top_bit(v);
  if (p < 0) {
    *exp = 0;
    return 0;
  }
  uint64_t m = round_at(v, p, p - 52);
  int e = p - 52;
  if (m == (uint64_t{1} << 53)) {
    m >>= 1;
    ++e;
  }
  *exp = e;
  return m;
}
// v += |x| 2^shift into pos (x > 0) or neg (x < 0), |x| < 2^63.
DEEPSCOPE_HD void add_signed(uint64_t* pos, uint64_t* neg, int64_t x, int shift) {
  uint64_t* to = x < 0 ? neg : pos;
  const uint64_t a = x < 0 ? static_cast<uint64_t>(-x) : static_cast<uint64_t>(x);
  add_at(to, a & 0xFFFFFFFFu, shift);
  add_at(to, a >> 32, shift + 32);
}
// pos - neg as a magnitude left in *v (pointing into pos or neg); true where it is negative.
DEEPSCOPE_HD bool settle_sign(uint64_t* pos, uint64_t* neg, uint64_t** v) {
  const bool negative = less(pos, neg);
  *v = negative ? neg : pos;
  sub(*v, negative ? pos : neg);
  return negative;
}
// V = 2 sum_t w_t 2^(22 (11 - t)) + rest for a window w of 12 digits and the sign of what lies
// under it (a sticky half unit), into pos and neg.
DEEPSCOPE_HD void add_window(uint64_t* pos, uint64_t* neg, const int32_t* w, int rest) {
  for (int t = 0; t < 12; ++t) add_signed(pos, neg, w[t], 22 * (11 - t) + 1);
  add_signed(pos, neg, rest, 0);
}
// The sign (-1, 0, 1) of a value whose leading nonzero digit is d: with digits of at most 2^21 + 2
// in magnitude the digits below it cannot outweigh it.
DEEPSCOPE_HD int digit_sign(int32_t d) { return d > 0 ? 1 : d < 0 ? -1 : 0; }
}  // namespace fixed_detail

struct FixedPart {
  FloatExp head;  // the part rounded to 53 bits
  double tail;    // the rest rounded to 53 bits, relative to head's exponent (mpfr_util::tail_of)
};

// A part given by its digits (|d_j| <= 2^21 + 2, unnormalised as the device leaves them), rounded
// exactly as MPFR's to_fe and tail_of round its exact value (ties to even, the tail's subnormals
// included), from at most 24 of its digits:
// - top: the index of its leading nonzero digit (>= 0); window[t] = d[top - t], t < 12 (0 below
//   digit 0);
// - below: the index of the leading nonzero digit under window (< top - 11), or -1 where there is
//   none; lower[t] = d[below - t], t < 12 (0 below digit 0);
// - rest: the sign (-1, 0, 1) of the value of the digits under lower.
// The head comes from window with the sign of the rest as a sticky half unit (V = 2 W +- 1). So
// does the tail where the remainder V - head holds at least 54 bits; where it holds fewer (more
// than about 190 equal bits follow the head's 53) the tail takes four more digits (R 2^88 + the
// next four, again with a sticky half unit); where the window's remainder is 0 the tail is the
// lower digits alone, rounded like a head. Each case keeps 53 bits above the sticky one, hence
// exact (docs/perturbation/references.md, "Reference on the GPU").
DEEPSCOPE_HD FixedPart round_fixed_part(const int32_t* window, int top, const int32_t* lower, int below,
                                        int rest, int fraction_bits) {
  using namespace fixed_detail;
  FixedPart r;
  r.head = FloatExp(0.0);
  r.tail = 0;
  // V = 2 sum_t w_t 2^(22 (11 - t)) + sign(lower), in units of 2^scale.
  uint64_t pos[kWords] = {}, neg[kWords] = {};
  const int rest1 = below >= 0 ? digit_sign(lower[0]) : 0;
  add_window(pos, neg, window, rest1);
  uint64_t* v = nullptr;
  const bool negative = settle_sign(pos, neg, &v);
  const int64_t scale = 22 * static_cast<int64_t>(top - 11) - 1 - fraction_bits;  // V's unit
  int e = 0;
  const uint64_t m = round53(v, &e);
  if (m == 0) return r;
  const double sign = negative ? -1.0 : 1.0;
  r.head = FloatExp::make(sign * static_cast<double>(m), e + scale);
  if (e < 0) return r;  // V < 2^53 (then top < 11 and nothing lies below): the head is exact
  // The remainder V - M 2^e: its magnitude in v, its sign tail_negative.
  uint64_t h[kWords] = {};
  add_at(h, m & 0xFFFFFFFFu, e);
  add_at(h, m >> 32, e + 32);
  const bool rounded_up = less(v, h);
  if (rounded_up) {
    sub(h, v);
    v = h;
  } else {
    sub(v, h);
  }
  bool tail_negative = negative != rounded_up;
  int64_t tail_scale = scale;
  uint64_t ext_pos[kWords] = {}, ext_neg[kWords] = {};
  int p = top_bit(v);
  if (p < 0) return r;  // nothing under the window, and the head exact
  if (p < 54) {
    // Fewer than 54 bits: R, the window's own remainder in its last digit's units (|R| < 2^53),
    // decides how the tail is read.
    const int64_t rv = ((tail_negative ? -1 : 1) * static_cast<int64_t>(v[0]) - rest1) / 2;
    if (rv == 0) {
      // The tail is the digits under the window: lower's value, rounded as the head was.
      add_window(ext_pos, ext_neg, lower, rest);
      tail_scale = 22 * static_cast<int64_t>(below - 11) - 1 - fraction_bits;
    } else {
      // R 2^88 with the four digits under the window (zero above `below`), and the sign of all
      // under those; |R 2^88 + four digits| > 2^86.
      add_signed(ext_pos, ext_neg, rv, 89);
      int rest4 = 0;
      for (int t = 0; t < 12 && below - t >= 0; ++t) {
        const int index = below - t;
        if (index >= top - 15)
          add_signed(ext_pos, ext_neg, lower[t], 22 * (index - (top - 15)) + 1);
        else if (rest4 == 0)
          rest4 = digit_sign(lower[t]);
      }
      add_signed(ext_pos, ext_neg, rest4 != 0 ? rest4 : rest, 0);
      tail_scale = 22 * static_cast<int64_t>(top - 15) - 1 - fraction_bits;
    }
    tail_negative = settle_sign(ext_pos, ext_neg, &v);
  }
  p = top_bit(v);
  if (p < 0) return r;
  // The tail relative to the head's exponent, rounded once: to 53 bits, or to a multiple of
  // 2^-1074 where it is subnormal (as mpfr_get_d rounds).
  const int64_t rel = tail_scale - r.head.e;  // v 2^rel is the tail
  const int64_t lsb64 = p - 52 > -1074 - rel ? p - 52 : -1074 - rel;
  if (lsb64 > p + 1) return r;
  const int lsb = static_cast<int>(lsb64);
  const uint64_t m2 = round_at(v, p, lsb);
  r.tail = m2 == 0
               ? 0.0
               : ldexp((tail_negative ? -1.0 : 1.0) * static_cast<double>(m2), static_cast<int>(lsb + rel));
  return r;
}

}  // namespace ds::perturb
