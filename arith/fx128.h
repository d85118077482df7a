// fx128: 128-bit two's-complement fixed point in four 32-bit words (32 integer bits with the sign,
// 96 fraction bits), after Bainville's fp128 (fp128 paper). Exact add/sub, truncated compensated mul.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "decimal.h"
#include "error.h"
#include "hd.h"
#include "traits.h"

namespace ds {

// Value of w = (w[0], w[1], w[2], w[3]) is W / 2^96 with W the 128-bit two's-complement integer
// whose most significant word is w[0] (fp128 paper, "Vectorized fp128": w[0] is the integer part).
// Range [-2^31, 2^31), resolution eps = 2^-96.
//
// Overflow: every operation computes modulo 2^128 (in units of eps). A kernel that leaves
// [-2^31, 2^31) gets a wrapped value without notice; keeping values in range is the caller's
// job (the Mandelbrot escape test at |z|^2 > 4 keeps every intermediate far below 2^31).
// Host-side construction (from_string, from_double) checks the range and throws ArithError.
struct Fx128 {
  uint32_t w[4];

  static constexpr bool kHasDivSqrt = false;
  static constexpr int kFracBits = 96;
  // The constant the truncated multiply adds to compensate the partial products it discards
  // (fp128 paper, "fp128 multiplication": "add 3"). See operator* for the resulting bound.
  static constexpr uint32_t kMulCompensation = 3;

  Fx128() = default;
  // Unchecked conversion for kernels: rounds d to the nearest multiple of 2^-96, ties to even
  // (|error| <= eps/2; exact for every double with |d| >= 2^-44 and for all multiples of 2^-96).
  // Defined for -2^31 <= d < 2^31; outside that (NaN and Inf included) the value is unspecified
  // but no undefined behaviour occurs. Host code that needs the check calls from_double.
  DEEPSCOPE_HD explicit Fx128(double d);
  // The value with the given words, most significant (integer) word first.
  DEEPSCOPE_HD static Fx128 from_words(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3) {
    Fx128 r;
    r.w[0] = w0;
    r.w[1] = w1;
    r.w[2] = w2;
    r.w[3] = w3;
    return r;
  }

  // rel_cost: SASS instructions of one operator* on sm_90 (58: 3 per kept product for 13 products,
  // plus the two's-complement correction), each counted as one issue slot like the single DMUL of
  // an f64 multiply. An estimate until `deepscope bench arith` measures it (docs/arith/fixed.md).
  static constexpr FormatTraits traits() { return {"fx128", 96, 0x1p-96, true, 0x1p31, 0x1p-96, 58.0}; }

  // Host only. Rounds half to even onto the 2^-96 grid; throws ArithError for malformed strings
  // and for values outside [-2^31, 2^31) after rounding.
  static Fx128 from_string(const std::string& s) {
    Fx128 r;
    decimal::to_twos_complement(s, kFracBits, r.w, 4);
    return r;
  }
  // Host only. Same rounding as the constructor; throws ArithError for NaN, Inf, and values
  // outside [-2^31, 2^31) (never wraps).
  static Fx128 from_double(double d) {
    if (!std::isfinite(d)) throw ArithError("fx128: value is not finite");
    if (!(d >= -0x1p31 && d < 0x1p31)) throw ArithError("fx128: value out of range [-2^31, 2^31)");
    return Fx128(d);
  }
};

namespace fx128_detail {

DEEPSCOPE_HD uint32_t mul_hi(uint32_t a, uint32_t b) {
#if DEEPSCOPE_DEVICE_CODE
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

// Leading zeros of x != 0.
DEEPSCOPE_HD int clz32(uint32_t x) {
#if DEEPSCOPE_DEVICE_CODE
  return __clz(x);
#else
  return __builtin_clz(x);
#endif
}

// a + b + cin modulo 2^128 (a full carry chain, 64-bit accumulation).
DEEPSCOPE_HD Fx128 add_words(Fx128 a, Fx128 b, uint32_t cin) {
  Fx128 r;
  uint64_t c = cin;
  DEEPSCOPE_UNROLL
  for (int i = 3; i >= 0; --i) {
    c += static_cast<uint64_t>(a.w[i]) + b.w[i];
    r.w[i] = static_cast<uint32_t>(c);
    c >>= 32;
  }
  return r;
}

// (a XOR m) + (m & 1) for m = 0 or ~0: a, or its two's-complement negation.
DEEPSCOPE_HD Fx128 negate_if(Fx128 a, uint32_t m) {
  Fx128 r;
  uint64_t c = m & 1u;
  DEEPSCOPE_UNROLL
  for (int i = 3; i >= 0; --i) {
    c += a.w[i] ^ m;
    r.w[i] = static_cast<uint32_t>(c);
    c >>= 32;
  }
  return r;
}

// All ones when a < 0, else 0.
DEEPSCOPE_HD uint32_t sign_mask(Fx128 a) { return 0u - (a.w[0] >> 31); }

// Correctly rounded (to nearest, ties to even) double of an unsigned 128-bit magnitude / 2^96.
DEEPSCOPE_HD double magnitude_to_double(Fx128 m) {
  // Pick the leading non-zero word k, the two words after it, and a sticky OR of the rest.
  int lead = 4;
  uint32_t h = 0, mid = 0, lo = 0, sticky = 0;
  uint32_t or1 = 0, or2 = 0, or3 = 0;  // OR of words k+1.., k+2.., k+3.. for the current k
  DEEPSCOPE_UNROLL
  for (int k = 3; k >= 0; --k) {
    if (m.w[k] != 0) {
      lead = k;
      h = m.w[k];
      mid = k + 1 < 4 ? m.w[k + 1 < 4 ? k + 1 : 3] : 0;
      lo = k + 2 < 4 ? m.w[k + 2 < 4 ? k + 2 : 3] : 0;
      sticky = or3;
    }
    or3 = or2;
    or2 = or1;
    or1 |= m.w[k];
  }
  if (lead == 4) return 0.0;
  const int s = clz32(h);
  // The 96 bits h:mid:lo shifted left by s; keep the top 64 and fold the rest into bit 0, so that
  // the one rounding of the u64 -> double conversion (>= 2 bits below the 53rd) is correct.
  uint64_t top = ((static_cast<uint64_t>(h) << 32) | mid) << s;
  top |= s ? (lo >> (32 - s)) : 0;
  const uint32_t rest = s ? (lo << s) : lo;
  top |= (rest | sticky) != 0;
  // Bit 63 of `top` is bit 31-s of word `lead`, whose weight is 2^(31 - s - 32 lead).
  return ldexp(static_cast<double>(top), -32 - s - 32 * lead);
}

}  // namespace fx128_detail

DEEPSCOPE_HD Fx128::Fx128(double d) {
  double m = d < 0 ? -d : d;
  if (!(m < 0x1p32)) m = 0;  // NaN, Inf, out of range: unspecified value, no UB in the casts
  // Peel off one word at a time: m - floor(m) and the scaling by 2^32 are exact in binary64.
  Fx128 mag;
  DEEPSCOPE_UNROLL
  for (int k = 0; k < 4; ++k) {
    mag.w[k] = static_cast<uint32_t>(m);
    m = (m - static_cast<double>(mag.w[k])) * 0x1p32;
  }
  // m is now the discarded part in units of 2^-128: round to nearest, ties to even.
  const uint32_t up = (m > 0x1p31) || (m == 0x1p31 && (mag.w[3] & 1u));
  mag = fx128_detail::add_words(mag, Fx128::from_words(0, 0, 0, 0), up);
  *this = fx128_detail::negate_if(mag, d < 0 ? ~0u : 0u);
}

// ---- Exact operations (absolute error 0 whenever the exact result lies in [-2^31, 2^31)) ----
// fp128 paper, "Low level fp128 functions" (add128, neg128); here the carry chain is a 64-bit
// accumulation from the least significant word instead of the paper's precomputed carry vector.

// Error 0 (exact modulo 2^128).
DEEPSCOPE_HD Fx128 operator+(Fx128 a, Fx128 b) { return fx128_detail::add_words(a, b, 0); }
// Error 0: a + ~b + 1.
DEEPSCOPE_HD Fx128 operator-(Fx128 a, Fx128 b) {
  return fx128_detail::add_words(a, Fx128::from_words(~b.w[0], ~b.w[1], ~b.w[2], ~b.w[3]), 1);
}
// Error 0, except that -(-2^31) wraps to -2^31 (out of range).
DEEPSCOPE_HD Fx128 operator-(Fx128 a) { return fx128_detail::negate_if(a, ~0u); }
DEEPSCOPE_HD Fx128 neg(Fx128 a) { return -a; }
// Error 0, except that abs(-2^31) wraps to -2^31.
DEEPSCOPE_HD Fx128 abs(Fx128 a) { return fx128_detail::negate_if(a, fx128_detail::sign_mask(a)); }

// Multiply by a 32-bit word (fp128 paper, mul128u, which takes a positive operand; this one takes
// either sign). Error 0: a*k exactly, modulo 2^128 (overflow is the caller's).
DEEPSCOPE_HD Fx128 mul_u32(Fx128 a, uint32_t k) {
  Fx128 r;
  uint32_t carry = 0;
  DEEPSCOPE_UNROLL
  for (int i = 3; i >= 0; --i) {
    const uint64_t t = static_cast<uint64_t>(a.w[i]) * k + carry;
    r.w[i] = static_cast<uint32_t>(t);
    carry = static_cast<uint32_t>(t >> 32);
  }
  return r;
}
// Error 0: a*k for a signed word, as a*(k mod 2^32) - 2^32 a [k < 0].
DEEPSCOPE_HD Fx128 mul_i32(Fx128 a, int32_t k) {
  const Fx128 p = mul_u32(a, static_cast<uint32_t>(k));
  const uint32_t m = k < 0 ? ~0u : 0u;
  return p - Fx128::from_words(a.w[1] & m, a.w[2] & m, a.w[3] & m, 0);
}

// Shift left by k >= 0 bits: exact while the result stays in range (bits leaving w[0] are lost,
// the caller's overflow); k >= 128 gives 0.
DEEPSCOPE_HD Fx128 shl(Fx128 a, int k) {
  uint32_t x0 = a.w[0], x1 = a.w[1], x2 = a.w[2], x3 = a.w[3];
  if (k & 64) {
    x0 = x2;
    x1 = x3;
    x2 = 0;
    x3 = 0;
  }
  if (k & 32) {
    x0 = x1;
    x1 = x2;
    x2 = x3;
    x3 = 0;
  }
  const int s = k & 31;  // funnel shifts; (hi:lo) >> (32 - s) keeps the shift count in 1..32
  Fx128 r;
  r.w[0] = static_cast<uint32_t>(((static_cast<uint64_t>(x0) << 32) | x1) >> (32 - s));
  r.w[1] = static_cast<uint32_t>(((static_cast<uint64_t>(x1) << 32) | x2) >> (32 - s));
  r.w[2] = static_cast<uint32_t>(((static_cast<uint64_t>(x2) << 32) | x3) >> (32 - s));
  r.w[3] = static_cast<uint32_t>((static_cast<uint64_t>(x3) << 32) >> (32 - s));
  if (k >= 128) r = Fx128::from_words(0, 0, 0, 0);
  return r;
}
// Arithmetic shift right by k >= 0 bits: floor(a / 2^k) on the 2^-96 grid, i.e. rounded toward
// -infinity: error in (-1, 0] eps. k >= 128 gives 0 or -eps (the sign fill).
DEEPSCOPE_HD Fx128 shr(Fx128 a, int k) {
  const uint32_t f = fx128_detail::sign_mask(a);
  uint32_t x0 = a.w[0], x1 = a.w[1], x2 = a.w[2], x3 = a.w[3];
  if (k & 64) {
    x3 = x1;
    x2 = x0;
    x1 = f;
    x0 = f;
  }
  if (k & 32) {
    x3 = x2;
    x2 = x1;
    x1 = x0;
    x0 = f;
  }
  const int s = k & 31;
  Fx128 r;
  r.w[3] = static_cast<uint32_t>(((static_cast<uint64_t>(x2) << 32) | x3) >> s);
  r.w[2] = static_cast<uint32_t>(((static_cast<uint64_t>(x1) << 32) | x2) >> s);
  r.w[1] = static_cast<uint32_t>(((static_cast<uint64_t>(x0) << 32) | x1) >> s);
  r.w[0] = static_cast<uint32_t>(((static_cast<uint64_t>(f) << 32) | x0) >> s);
  if (k >= 128) r = Fx128::from_words(f, f, f, f);
  return r;
}
// a * 2^k: shl for k >= 0 (exact barring overflow), shr for k < 0 (error in (-1, 0] eps).
DEEPSCOPE_HD Fx128 mul_pow2(Fx128 a, int k) { return k >= 0 ? shl(a, k) : shr(a, k < -128 ? 128 : -k); }

// ---- Truncated multiply (fp128 paper, "fp128 multiplication", mulfpu/sqrfpu) ----
// With words x_i, y_j (i, j = 0..3, word i weighing 2^(-32 i)), the product x_i*y_j is a 64-bit
// value whose high half lands on result word p-1 and low half on word p = i+j. Kept exactly:
// every product with p <= 3, and the high halves of the p = 4 products (x1y3, x2y2, x3y1).
// Discarded, in units of eps = 2^-96:
//   D = [lo(x1y3) + lo(x2y2) + lo(x3y1)] / 2^32 + [x2y3 + x3y2] / 2^64 + x3y3 / 2^96,
// each bracketed term < 1 per product, so 0 <= D < 5 (strictly: 3 + 2 + 2^-32 minus the slack
// of each product's maximum (2^32-1)^2). The paper adds 3 (kMulCompensation) to the result.
//
// operator*: signed, computed directly in two's complement. With A, B the words read as unsigned
// 128-bit integers, a*b/eps = A*B/2^96 - 2^32 (B [a<0] + A [b<0]) modulo 2^128; the truncated
// unsigned product above plus the exact correction gives
//     result - a*b = 3 - D  in  (-2, +3] eps       for every combination of signs,
// provided the exact product lies in [-2^31, 2^31). (mul(-a, b) and -mul(a, b) may differ.)
// Cost: 19 32x32->64 products' worth of IMAD.WIDE/IMAD plus 3 mul_hi, adds and the correction.
DEEPSCOPE_HD Fx128 operator*(Fx128 a, Fx128 b) {
  using fx128_detail::mul_hi;
  uint32_t r[4] = {0, 0, 0, Fx128::kMulCompensation};
  // Operand scanning from the least significant row: row i covers words i-1..i+3; each row's
  // final carry lands on word i-1, which no earlier row has written.
  DEEPSCOPE_UNROLL
  for (int i = 3; i >= 0; --i) {
    uint32_t carry = 0;
    DEEPSCOPE_UNROLL
    for (int j = 3; j >= 0; --j) {
      const int p = i + j;
      if (p > 4) continue;
      if (p == 4) {
        carry = mul_hi(a.w[i], b.w[j]);
        continue;
      }
      const uint64_t t = static_cast<uint64_t>(a.w[i]) * b.w[j] + r[p] + carry;
      r[p] = static_cast<uint32_t>(t);
      carry = static_cast<uint32_t>(t >> 32);
    }
    if (i >= 1) r[i - 1] = carry;
  }
  // Two's-complement correction: subtract 2^32 (B [a<0] + A [b<0]) on words 0..2, as the sum of
  // the masked complements plus one for each active mask.
  const uint32_t ma = fx128_detail::sign_mask(a), mb = fx128_detail::sign_mask(b);
  uint64_t c = (ma & 1u) + (mb & 1u);
  DEEPSCOPE_UNROLL
  for (int k = 2; k >= 0; --k) {
    c += static_cast<uint64_t>(r[k]) + (~b.w[k + 1] & ma) + (~a.w[k + 1] & mb);
    r[k] = static_cast<uint32_t>(c);
    c >>= 32;
  }
  return Fx128::from_words(r[0], r[1], r[2], r[3]);
}

// Dedicated square of the magnitude m = |a| (fp128 paper, sqrfpu: 14 products instead of 22).
// Kept: 2 m_i m_j (i < j) and m_i^2 for i+j <= 3, and the high halves of 2 m1m3 and m2^2 (p = 4).
// Discarded, in eps: D = [2 lo(m1m3) + lo(m2^2)] / 2^32 + 2 m2m3 / 2^64 + m3^2 / 2^96 in [0, 5),
// so with the same compensation 3:  result - a^2 = 3 - D  in  (-2, +3] eps, and result >= 0.
// (Needs a^2 < 2^31; abs(-2^31) itself is fine as a magnitude.)
DEEPSCOPE_HD Fx128 sqr(Fx128 a) {
  using fx128_detail::mul_hi;
  const Fx128 m = fx128_detail::negate_if(a, fx128_detail::sign_mask(a));
  // Off-diagonal sum S = sum_{i<j} m_i m_j, rows from the least significant; row i starts at
  // word 2i (its carry), which no earlier row has written.
  uint32_t s[4] = {0, 0, 0, 0};
  DEEPSCOPE_UNROLL
  for (int i = 2; i >= 0; --i) {
    uint32_t carry = 0;
    DEEPSCOPE_UNROLL
    for (int j = 3; j > i; --j) {
      const int p = i + j;
      if (p > 4) continue;
      if (p == 4) {
        carry = mul_hi(m.w[i], m.w[j]);
        continue;
      }
      const uint64_t t = static_cast<uint64_t>(m.w[i]) * m.w[j] + s[p] + carry;
      s[p] = static_cast<uint32_t>(t);
      carry = static_cast<uint32_t>(t >> 32);
    }
    if (2 * i <= 3) s[2 * i] = carry;
  }
  // Diagonal: m0^2 low half on word 0; m1^2 on words 1, 2; high half of m2^2 on word 3.
  const uint64_t d1 = static_cast<uint64_t>(m.w[1]) * m.w[1];
  const uint32_t d[4] = {m.w[0] * m.w[0], static_cast<uint32_t>(d1 >> 32), static_cast<uint32_t>(d1),
                         mul_hi(m.w[2], m.w[2])};
  // result = 2 S + diagonal + compensation.
  Fx128 r;
  uint64_t c = Fx128::kMulCompensation;
  DEEPSCOPE_UNROLL
  for (int p = 3; p >= 0; --p) {
    const uint32_t twice = (s[p] << 1) | (p < 3 ? s[p < 3 ? p + 1 : 3] >> 31 : 0);
    c += static_cast<uint64_t>(twice) + d[p];
    r.w[p] = static_cast<uint32_t>(c);
    c >>= 32;
  }
  return r;
}

// Mixed operations: the double is first rounded onto the grid by Fx128(d) (nearest, ties to even,
// error <= eps/2; exact for |d| >= 2^-44), then the operation above applies. For a * d the total
// error is therefore within (-2, 3] eps + |a| eps/2 of the exact a*d.
DEEPSCOPE_HD Fx128 operator+(Fx128 a, double b) { return a + Fx128(b); }
DEEPSCOPE_HD Fx128 operator-(Fx128 a, double b) { return a - Fx128(b); }
DEEPSCOPE_HD Fx128 operator*(Fx128 a, double b) { return a * Fx128(b); }

// ---- Comparisons (exact) ----
DEEPSCOPE_HD bool operator==(Fx128 a, Fx128 b) {
  return ((a.w[0] ^ b.w[0]) | (a.w[1] ^ b.w[1]) | (a.w[2] ^ b.w[2]) | (a.w[3] ^ b.w[3])) == 0;
}
DEEPSCOPE_HD bool operator!=(Fx128 a, Fx128 b) { return !(a == b); }
DEEPSCOPE_HD bool operator<(Fx128 a, Fx128 b) {
  // Low 96 bits compared unsigned via the carry of a + ~b + 1 (carry 1 means a_low >= b_low).
  uint64_t c = 1;
  DEEPSCOPE_UNROLL
  for (int i = 3; i >= 1; --i) c = (c + a.w[i] + static_cast<uint32_t>(~b.w[i])) >> 32;
  const int32_t a0 = static_cast<int32_t>(a.w[0]), b0 = static_cast<int32_t>(b.w[0]);
  return a0 < b0 || (a0 == b0 && c == 0);
}
DEEPSCOPE_HD bool operator>(Fx128 a, Fx128 b) { return b < a; }
DEEPSCOPE_HD bool operator<=(Fx128 a, Fx128 b) { return !(b < a); }
DEEPSCOPE_HD bool operator>=(Fx128 a, Fx128 b) { return !(a < b); }

// Correctly rounded: the nearest double, ties to even (every value of the format is a normal
// double or 0, so no underflow or overflow can occur).
DEEPSCOPE_HD double to_double(Fx128 a) {
  const uint32_t m = fx128_detail::sign_mask(a);
  const double v = fx128_detail::magnitude_to_double(fx128_detail::negate_if(a, m));
  return m ? -v : v;
}

// Host only: the exact decimal value (sig_digits == 0) or rounded half-even to sig_digits digits.
inline std::string to_string(Fx128 a, int sig_digits = 0) {
  return decimal::from_twos_complement(a.w, 4, Fx128::kFracBits, sig_digits);
}

}  // namespace ds
