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
// v rounded to 53 bits, ties to even: the significand M (2^52 <= M < 2^53, or 0) and the exponent
// of its last bit (v ~ M 2^exp). M is returned as the words' value in v_rounded.
DEEPSCOPE_HD uint64_t round53(const uint64_t* v, int* exp) {
  const int p = top_bit(v);
  if (p < 0) {
    *exp = 0;
    return 0;
  }
  uint64_t m = bits_from(v, p - 52, 53);
  const bool half = p - 53 >= 0 && bits_from(v, p - 53, 1);
  const bool sticky = any_below(v, p - 53);
  int e = p - 52;
  if (half && (sticky || (m & 1))) {
    ++m;
    if (m == (uint64_t{1} << 53)) {
      m >>= 1;
      ++e;
    }
  }
  *exp = e;
  return m;
}
}  // namespace fixed_detail

struct FixedPart {
  FloatExp head;  // the part rounded to 53 bits
  double tail;    // the rest rounded to 53 bits, relative to head's exponent (mpfr_util::tail_of)
};

// The part (sum_t window[t] 2^(22 (11 - t)) + rest / 2) 2^(22 (top - 11) - F), for top >= 0: top
// is the index of the part's leading nonzero digit, window[] that digit and the 11 below it (0
// below digit 0), rest the sign (-1, 0, 1) of the value of all digits below those. That rounds the
// head and the tail exactly as the whole part would, unless more than 130 equal bits follow the
// first 53 (then the tail is within 2^-238 of the exact one; docs/perturbation.md).
DEEPSCOPE_HD FixedPart round_fixed_part(const int32_t* window, int top, int rest, int fraction_bits) {
  using namespace fixed_detail;
  // V = 2 sum_t w_t 2^(22 (11 - t)) + rest, as positive and negative sums apart.
  uint64_t pos[kWords] = {}, neg[kWords] = {};
  for (int t = 0; t < 12; ++t) {
    const int32_t w = window[t];
    if (w > 0) add_at(pos, static_cast<uint64_t>(w), 22 * (11 - t) + 1);
    if (w < 0) add_at(neg, static_cast<uint64_t>(-static_cast<int64_t>(w)), 22 * (11 - t) + 1);
  }
  if (rest > 0) add_at(pos, 1, 0);
  if (rest < 0) add_at(neg, 1, 0);
  const bool negative = less(pos, neg);
  uint64_t* v = negative ? neg : pos;
  sub(v, negative ? pos : neg);
  const int64_t scale = 22 * static_cast<int64_t>(top - 11) - 1 - fraction_bits;  // V's unit
  FixedPart r;
  int e = 0;
  const uint64_t m = round53(v, &e);
  if (m == 0) {
    r.head = FloatExp(0.0);
    r.tail = 0;
    return r;
  }
  const double sign = negative ? -1.0 : 1.0;
  r.head = FloatExp::make(sign * static_cast<double>(m), e + scale);
  r.tail = 0;
  if (e < 0) return r;  // V < 2^53: the head is exact
  // The rest V - M 2^e, signed, rounded to 53 bits.
  uint64_t h[kWords] = {};
  add_at(h, m & 0xFFFFFFFFu, e);
  add_at(h, m >> 32, e + 32);
  const bool below = less(v, h);  // rounded up
  if (below) {
    sub(h, v);
    v = h;
  } else {
    sub(v, h);
  }
  int e2 = 0;
  const uint64_t m2 = round53(v, &e2);
  r.tail = m2 == 0 ? 0.0 : ldexp(sign * (below ? -1.0 : 1.0) * static_cast<double>(m2),
                                 static_cast<int>(e2 + scale - r.head.e));
  return r;
}

}  // namespace ds::perturb
