// limbN: sign-magnitude fixed point with one 32-bit integer word and N-1 fraction words, after the
// big-limb Mandelbrot paper (Ferrier & L'Hostis); exact add/sub/compare, truncated mul and sqr.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "decimal.h"
#include "error.h"
#include "hd.h"
#include "traits.h"

namespace ds {

// Value: (neg ? -1 : 1) * sum_k w[k] 2^(-32 k), w[0] the integer word (big-limb paper, section 4,
// figure 2). Range |x| < 2^32, resolution eps = 2^(-32 (N-1)).
// Invariants: neg is 0 or 1, and zero is always +0 (neg == 0): every operation returns a canonical
// zero. Comparisons and add/sub also accept a stray -0 as an input and treat it as 0.
//
// Overflow: magnitudes are computed modulo 2^32 in the integer word; a kernel whose values leave
// |x| < 2^32 gets a wrapped magnitude without notice (the caller's job; Mandelbrot stays < 16).
// Host-side construction (from_string, from_double) checks the range and throws ArithError.
//
// Every loop below runs over compile-time bounds and is fully unrolled, so that after inlining
// each w[k] lives in a register (no local-memory arrays on the GPU).
template <int N>
struct Limb {
  static_assert(N >= 2 && N <= 32, "limb: 2 <= N <= 32 (eps = 2^-32(N-1) must stay a normal double)");
  uint32_t w[N];  // magnitude, most significant (integer) word first
  uint32_t neg;   // sign: 1 negative, 0 positive or zero

  static constexpr bool kHasDivSqrt = false;
  static constexpr int kWords = N;
  static constexpr int kFracBits = 32 * (N - 1);

  Limb() = default;
  // Unchecked conversion for kernels: rounds d to the nearest multiple of eps, ties to even
  // (|error| <= eps/2; exact for every double that is a multiple of eps, e.g. |d| >= 2^(52-32(N-1))).
  // Defined for |d| < 2^32; outside that (NaN, Inf included) the value is unspecified, no UB.
  DEEPSCOPE_HD explicit Limb(double d);

  static constexpr FormatTraits traits();

  // Host only. Rounds half to even onto the eps grid; throws ArithError for malformed strings and
  // for |x| >= 2^32 after rounding.
  static Limb from_string(const std::string& s) {
    Limb r;
    r.neg = decimal::to_sign_magnitude(s, kFracBits, r.w, N) ? 1u : 0u;
    return r;
  }
  // Host only. Same rounding as the constructor; throws ArithError for NaN, Inf and |d| >= 2^32.
  static Limb from_double(double d) {
    if (!std::isfinite(d)) throw ArithError(std::string(traits().name) + ": value is not finite");
    if (!(std::fabs(d) < 0x1p32))
      throw ArithError(std::string(traits().name) + ": value out of range (-2^32, 2^32)");
    return Limb(d);
  }
};

namespace limb_detail {

// "limb" followed by N in decimal, as a constexpr string.
template <int N>
struct Name {
  static constexpr char value[8] = {'l',
                                    'i',
                                    'm',
                                    'b',
                                    static_cast<char>(N >= 10 ? '0' + N / 10 : '0' + N),
                                    static_cast<char>(N >= 10 ? '0' + N % 10 : 0),
                                    0,
                                    0};
};

constexpr double pow2_neg(int k) {
  double r = 1.0;
  for (int i = 0; i < k; ++i) r *= 0.5;
  return r;
}

DEEPSCOPE_HD uint32_t mul_hi(uint32_t a, uint32_t b) {
#if DEEPSCOPE_DEVICE_CODE
  return __umulhi(a, b);
#else
  return static_cast<uint32_t>((static_cast<uint64_t>(a) * b) >> 32);
#endif
}

DEEPSCOPE_HD int clz32(uint32_t x) {  // x != 0
#if DEEPSCOPE_DEVICE_CODE
  return __clz(x);
#else
  return __builtin_clz(x);
#endif
}

template <int N>
DEEPSCOPE_HD uint32_t any_bits(const uint32_t (&w)[N]) {
  uint32_t o = 0;
  DEEPSCOPE_UNROLL
  for (int k = 0; k < N; ++k) o |= w[k];
  return o;
}

// The canonical zero: neg = 0 when the magnitude is zero (neg unchanged otherwise).
template <int N>
DEEPSCOPE_HD void canonicalize(Limb<N>& x) {
  x.neg &= any_bits(x.w) != 0 ? 1u : 0u;
}

// w + 1 (as an N-word integer) when up == 1; the carry out of word 0 is dropped.
template <int N>
DEEPSCOPE_HD void increment(uint32_t (&w)[N], uint32_t up) {
  uint64_t c = up;
  DEEPSCOPE_UNROLL
  for (int k = N - 1; k >= 0; --k) {
    c += w[k];
    w[k] = static_cast<uint32_t>(c);
    c >>= 32;
  }
}

// Exact signed sum of a and (b with sign b_neg). Effective subtraction computes A + ~B + 1; a
// carry out means |a| >= |b|, otherwise the difference is negated and the sign flips. No branch:
// both halves always run, so a warp never diverges on the signs.
template <int N>
DEEPSCOPE_HD Limb<N> add_signed(const Limb<N>& a, const Limb<N>& b, uint32_t b_neg) {
  const uint32_t sub = (a.neg ^ b_neg) & 1u;
  const uint32_t m = 0u - sub;
  Limb<N> r;
  uint64_t c = sub;
  DEEPSCOPE_UNROLL
  for (int k = N - 1; k >= 0; --k) {
    c += static_cast<uint64_t>(a.w[k]) + (b.w[k] ^ m);
    r.w[k] = static_cast<uint32_t>(c);
    c >>= 32;
  }
  // Subtraction without carry out: |a| < |b|, the result is the negated difference.
  const uint32_t flip = sub & (static_cast<uint32_t>(c) ^ 1u);
  const uint32_t fm = 0u - flip;
  c = flip;
  DEEPSCOPE_UNROLL
  for (int k = N - 1; k >= 0; --k) {
    c += static_cast<uint64_t>(r.w[k] ^ fm);
    r.w[k] = static_cast<uint32_t>(c);
    c >>= 32;
  }
  r.neg = (a.neg ^ flip) & 1u;
  canonicalize(r);
  return r;
}

// Magnitude comparison: -1, 0, +1.
template <int N>
DEEPSCOPE_HD int compare_magnitude(const uint32_t (&a)[N], const uint32_t (&b)[N]) {
  uint64_t c = 1;  // carry of a + ~b + 1: 1 iff a >= b
  uint32_t diff = 0;
  DEEPSCOPE_UNROLL
  for (int k = N - 1; k >= 0; --k) {
    c = (c + a[k] + static_cast<uint32_t>(~b[k])) >> 32;
    diff |= a[k] ^ b[k];
  }
  return c == 0 ? -1 : (diff != 0 ? 1 : 0);
}

// Signed comparison: -1, 0, +1 (a stray -0 equals +0).
template <int N>
DEEPSCOPE_HD int compare(const Limb<N>& a, const Limb<N>& b) {
  const int cm = compare_magnitude(a.w, b.w);
  const bool az = any_bits(a.w) == 0, bz = any_bits(b.w) == 0;
  const int sa = az ? 0 : (a.neg ? -1 : 1), sb = bz ? 0 : (b.neg ? -1 : 1);
  if (sa != sb) return sa < sb ? -1 : 1;
  return sa < 0 ? -cm : cm;
}

// Correctly rounded double (nearest, ties to even) of the magnitude w / 2^(32 (N-1)).
template <int N>
DEEPSCOPE_HD double magnitude_to_double(const uint32_t (&w)[N]) {
  // The leading non-zero word k, the two words after it, and a sticky OR of the rest, found by a
  // compile-time scan with selects (no runtime array index).
  int lead = N;
  uint32_t h = 0, mid = 0, lo = 0, sticky = 0;
  uint32_t or1 = 0, or2 = 0, or3 = 0;  // OR of words k+1.., k+2.., k+3..
  DEEPSCOPE_UNROLL
  for (int k = N - 1; k >= 0; --k) {
    if (w[k] != 0) {
      lead = k;
      h = w[k];
      mid = k + 1 < N ? w[k + 1 < N ? k + 1 : N - 1] : 0;
      lo = k + 2 < N ? w[k + 2 < N ? k + 2 : N - 1] : 0;
      sticky = or3;
    }
    or3 = or2;
    or2 = or1;
    or1 |= w[k];
  }
  if (lead == N) return 0.0;
  const int s = clz32(h);
  // Top 64 bits from the leading one; everything below goes into bit 0 as a sticky bit, which
  // lies >= 2 bits under the 53rd, so the single u64 -> double rounding is the correct one.
  uint64_t top = ((static_cast<uint64_t>(h) << 32) | mid) << s;
  top |= s ? (lo >> (32 - s)) : 0;
  const uint32_t rest = s ? (lo << s) : lo;
  top |= (rest | sticky) != 0;
  // Bit 63 of `top` is bit 31-s of word `lead`, of weight 2^(31 - s - 32 lead).
  return ldexp(static_cast<double>(top), -32 - s - 32 * lead);
}

}  // namespace limb_detail

template <int N>
constexpr FormatTraits Limb<N>::traits() {
  // rel_cost: SASS instructions of one operator* on sm_90, each counted as one issue slot like the
  // single DMUL of an f64 multiply. nvcc emits 3 per kept product (IMAD.WIDE.U32 plus the IADD3 and
  // IADD3.X/IMAD.X of the 64-bit accumulation) over N(N+1)/2 + N-1 products: measured 36, 124,
  // 444, 1660 for N = 4, 8, 16, 32. An estimate until `deepscope bench arith` measures it
  // (docs/arith/fixed.md).
  return {limb_detail::Name<N>::value,
          32 * (N - 1),
          limb_detail::pow2_neg(32 * (N - 1)),
          true,
          0x1p32,
          limb_detail::pow2_neg(32 * (N - 1)),
          3.0 * (N * (N + 1) / 2 + N - 1)};
}

template <int N>
DEEPSCOPE_HD Limb<N>::Limb(double d) {
  double m = d < 0 ? -d : d;
  if (!(m < 0x1p32)) m = 0;  // NaN, Inf, out of range: unspecified value, no UB in the casts
  // One word at a time: m - floor(m) and the scaling by 2^32 are exact in binary64.
  DEEPSCOPE_UNROLL
  for (int k = 0; k < N; ++k) {
    w[k] = static_cast<uint32_t>(m);
    m = (m - static_cast<double>(w[k])) * 0x1p32;
  }
  // m: the discarded part in units of eps/2^32; round to nearest, ties to even.
  limb_detail::increment(w, (m > 0x1p31) || (m == 0x1p31 && (w[N - 1] & 1u)) ? 1u : 0u);
  neg = d < 0 ? 1u : 0u;
  limb_detail::canonicalize(*this);
}

// ---- Exact addition and subtraction (error 0 whenever |result| < 2^32) ----
// The big-limb paper (section 4) adds word by word with full carry propagation on the CPU; its
// GPU version (section 5.1) propagates a carry one word only and takes the sign of a difference
// from the two leading words. The operators here are exact: full carry chain and a magnitude
// comparison by the borrow of the whole subtraction; see add_paper_shortcut for the paper's GPU
// variant.
template <int N>
DEEPSCOPE_HD Limb<N> operator+(const Limb<N>& a, const Limb<N>& b) {
  return limb_detail::add_signed(a, b, b.neg);
}
template <int N>
DEEPSCOPE_HD Limb<N> operator-(const Limb<N>& a, const Limb<N>& b) {
  return limb_detail::add_signed(a, b, b.neg ^ 1u);
}
// Negation and absolute value: error 0 (sign flips only; -0 comes out as +0).
template <int N>
DEEPSCOPE_HD Limb<N> operator-(const Limb<N>& a) {
  Limb<N> r = a;
  r.neg = (a.neg ^ 1u) & 1u;
  limb_detail::canonicalize(r);
  return r;
}
template <int N>
DEEPSCOPE_HD Limb<N> neg(const Limb<N>& a) {
  return -a;
}
template <int N>
DEEPSCOPE_HD Limb<N> abs(const Limb<N>& a) {
  Limb<N> r = a;
  r.neg = 0;
  return r;
}

// The big-limb paper's GPU addition (section 5.1), kept for comparison only and never used by the
// operators: each word's carry (or borrow) moves one word up and no further, and an effective
// subtraction orders the operands by their two leading words only. Agrees with a + b when no
// carry needs to travel two words and the leading two words decide |a| vs |b|; otherwise it can be
// wrong by up to 2^32 eps per missed carry, and by the whole magnitude when the order is wrong.
template <int N>
DEEPSCOPE_HD Limb<N> add_paper_shortcut(const Limb<N>& a, const Limb<N>& b) {
  Limb<N> r;
  if (((a.neg ^ b.neg) & 1u) == 0) {
    uint32_t carry_in = 0;  // carry out of word k+1 (computed from the plain sums only)
    DEEPSCOPE_UNROLL
    for (int k = N - 1; k >= 0; --k) {
      const uint32_t s = a.w[k] + b.w[k];
      r.w[k] = s + carry_in;
      carry_in = s < a.w[k] ? 1u : 0u;
    }
    r.neg = a.neg;
  } else {
    const bool a_first = a.w[0] > b.w[0] || (a.w[0] == b.w[0] && a.w[1] >= b.w[1]);
    const Limb<N>& x = a_first ? a : b;
    const Limb<N>& y = a_first ? b : a;
    uint32_t borrow_in = 0;
    DEEPSCOPE_UNROLL
    for (int k = N - 1; k >= 0; --k) {
      r.w[k] = (x.w[k] - y.w[k]) - borrow_in;
      borrow_in = x.w[k] < y.w[k] ? 1u : 0u;
    }
    r.neg = x.neg & 1u;
  }
  limb_detail::canonicalize(r);
  return r;
}

// Multiply by a 32-bit word (useful for pixel offsets: step * index). Error 0 when |a k| < 2^32.
template <int N>
DEEPSCOPE_HD Limb<N> mul_u32(const Limb<N>& a, uint32_t k) {
  Limb<N> r;
  uint32_t carry = 0;
  DEEPSCOPE_UNROLL
  for (int i = N - 1; i >= 0; --i) {
    const uint64_t t = static_cast<uint64_t>(a.w[i]) * k + carry;
    r.w[i] = static_cast<uint32_t>(t);
    carry = static_cast<uint32_t>(t >> 32);
  }
  r.neg = a.neg & 1u;
  limb_detail::canonicalize(r);
  return r;
}
template <int N>
DEEPSCOPE_HD Limb<N> mul_i32(const Limb<N>& a, int32_t k) {
  const uint32_t mag = k < 0 ? 0u - static_cast<uint32_t>(k) : static_cast<uint32_t>(k);
  Limb<N> r = mul_u32(a, mag);
  r.neg = (r.neg ^ (k < 0 ? 1u : 0u)) & (limb_detail::any_bits(r.w) != 0 ? 1u : 0u);
  return r;
}

// a * 2^k. k >= 0: the magnitude shifts left, exact while |result| < 2^32 (bits leaving the
// integer word are the caller's overflow). k < 0: the magnitude shifts right and is truncated
// toward zero: |error| < 1 eps, with the sign of -a. A shift past every word gives +0.
// The shift runs as a barrel (word steps 1, 2, 4, ... selected by the bits of k/32, then one
// funnel shift), so a runtime k never indexes the word array.
template <int N>
DEEPSCOPE_HD Limb<N> mul_pow2(const Limb<N>& a, int k) {
  constexpr int kStages = N <= 2 ? 1 : N <= 4 ? 2 : N <= 8 ? 3 : N <= 16 ? 4 : 5;
  Limb<N> r = a;
  const bool left = k >= 0;
  const int n = left ? k : (k < -32 * N ? 32 * N : -k);
  const int q = n >> 5, s = n & 31;
  DEEPSCOPE_UNROLL
  for (int st = 0; st < kStages; ++st) {
    const int b = 1 << st;
    if (q & b) {
      if (left) {
        DEEPSCOPE_UNROLL
        for (int i = 0; i < N; ++i) r.w[i] = i + b < N ? r.w[i + b < N ? i + b : N - 1] : 0u;
      } else {
        DEEPSCOPE_UNROLL
        for (int i = N - 1; i >= 0; --i) r.w[i] = i - b >= 0 ? r.w[i - b >= 0 ? i - b : 0] : 0u;
      }
    }
  }
  if (left) {
    DEEPSCOPE_UNROLL
    for (int i = 0; i < N; ++i) {
      const uint32_t next = i + 1 < N ? r.w[i + 1 < N ? i + 1 : N - 1] : 0u;
      r.w[i] = static_cast<uint32_t>(((static_cast<uint64_t>(r.w[i]) << 32) | next) >> (32 - s));
    }
  } else {
    DEEPSCOPE_UNROLL
    for (int i = N - 1; i >= 0; --i) {
      const uint32_t prev = i - 1 >= 0 ? r.w[i - 1 >= 0 ? i - 1 : 0] : 0u;
      r.w[i] = static_cast<uint32_t>(((static_cast<uint64_t>(prev) << 32) | r.w[i]) >> s);
    }
  }
  if (q >= N) {
    DEEPSCOPE_UNROLL
    for (int i = 0; i < N; ++i) r.w[i] = 0;
  }
  limb_detail::canonicalize(r);
  return r;
}

}  // namespace ds

#include "limb_mul.h"  // truncated * and sqr (big-limb paper, section 4)

namespace ds {

// Mixed operations: the double is first rounded onto the grid by Limb(d) (nearest, ties to even,
// error <= eps/2), then the operation above applies; a * d is within (2N-3) eps + |a| eps/2.
template <int N>
DEEPSCOPE_HD Limb<N> operator+(const Limb<N>& a, double b) {
  return a + Limb<N>(b);
}
template <int N>
DEEPSCOPE_HD Limb<N> operator-(const Limb<N>& a, double b) {
  return a - Limb<N>(b);
}
template <int N>
DEEPSCOPE_HD Limb<N> operator*(const Limb<N>& a, double b) {
  return a * Limb<N>(b);
}

// ---- Comparisons (exact; -0 == +0) ----
template <int N>
DEEPSCOPE_HD bool operator<(const Limb<N>& a, const Limb<N>& b) {
  return limb_detail::compare(a, b) < 0;
}
template <int N>
DEEPSCOPE_HD bool operator>(const Limb<N>& a, const Limb<N>& b) {
  return limb_detail::compare(a, b) > 0;
}
template <int N>
DEEPSCOPE_HD bool operator<=(const Limb<N>& a, const Limb<N>& b) {
  return limb_detail::compare(a, b) <= 0;
}
template <int N>
DEEPSCOPE_HD bool operator>=(const Limb<N>& a, const Limb<N>& b) {
  return limb_detail::compare(a, b) >= 0;
}
template <int N>
DEEPSCOPE_HD bool operator==(const Limb<N>& a, const Limb<N>& b) {
  return limb_detail::compare(a, b) == 0;
}
template <int N>
DEEPSCOPE_HD bool operator!=(const Limb<N>& a, const Limb<N>& b) {
  return limb_detail::compare(a, b) != 0;
}

// Correctly rounded: the nearest double, ties to even (eps >= 2^-992, so every value of the
// format is a normal double or 0). Zero gives +0.0.
template <int N>
DEEPSCOPE_HD double to_double(const Limb<N>& a) {
  const double v = limb_detail::magnitude_to_double(a.w);
  return a.neg && v != 0 ? -v : v;
}

// Host only: the exact decimal value (sig_digits == 0) or rounded half-even to sig_digits digits.
template <int N>
std::string to_string(const Limb<N>& a, int sig_digits = 0) {
  return decimal::from_sign_magnitude(a.neg != 0, a.w, N, Limb<N>::kFracBits, sig_digits);
}

}  // namespace ds
