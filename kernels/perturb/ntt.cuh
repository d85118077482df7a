// Arithmetic modulo the prime p = 2^64 - 2^32 + 1 and the butterflies of a number-theoretic
// transform over it, on the host and on CUDA devices: the exact products of the fixed-point
// reference (reference_fixed.h, docs/perturbation/references.md "Reference on the GPU").
// p - 1 = 2^32 (2^32 - 1), so p has roots of unity of every order 2^k up to 2^32, and
// 2^64 = 2^32 - 1, 2^96 = -1 (mod p) make the reduction of a 128-bit product a few adds.
#pragma once
#include <cstdint>

#include "arith/hd.h"

namespace ds::perturb::ntt {

constexpr uint64_t kP = 0xFFFFFFFF00000001ull;
constexpr uint64_t kEpsilon = 0xFFFFFFFFull;  // 2^64 mod p
constexpr uint64_t kGenerator = 7;            // generates the multiplicative group of p

// a + b mod p, for a, b < p.
DEEPSCOPE_HD uint64_t add(uint64_t a, uint64_t b) {
  const uint64_t s = a + b;
  // On a wrap the true sum is s + 2^64 < 2p; s - p (mod 2^64) is then s + 2^32 - 1, the result.
  return (s < a || s >= kP) ? s - kP : s;
}

// a - b mod p, for a, b < p.
DEEPSCOPE_HD uint64_t sub(uint64_t a, uint64_t b) {
  const uint64_t d = a - b;
  return a < b ? d + kP : d;  // d wrapped to a - b + 2^64; adding p wraps back to a - b + p
}

// hi 2^64 + lo mod p (any 128-bit value).
DEEPSCOPE_HD uint64_t reduce128(uint64_t hi, uint64_t lo) {
  const uint64_t h1 = hi >> 32, h0 = hi & 0xFFFFFFFFull;
  // hi 2^64 + lo = lo - h1 + h0 (2^32 - 1)  (mod p), since 2^96 = -1 and 2^64 = 2^32 - 1.
  uint64_t t = lo - h1;
  if (lo < h1) t -= kEpsilon;  // borrowed 2^64 = 2^32 - 1 (mod p); cannot borrow twice
  const uint64_t u = (h0 << 32) - h0;
  uint64_t r = t + u;
  if (r < u) r += kEpsilon;  // carried 2^64; cannot carry twice
  return r >= kP ? r - kP : r;
}

// a b mod p, for a, b < p.
DEEPSCOPE_HD uint64_t mul(uint64_t a, uint64_t b) {
#if DEEPSCOPE_DEVICE_CODE
  return reduce128(__umul64hi(a, b), a * b);
#else
  const unsigned __int128 x = static_cast<unsigned __int128>(a) * b;
  return reduce128(static_cast<uint64_t>(x >> 64), static_cast<uint64_t>(x));
#endif
}

// A signed integer |v| < p/2 as a residue, and back (residues above p/2 read as negative).
DEEPSCOPE_HD uint64_t from_signed(int64_t v) {
  return v >= 0 ? static_cast<uint64_t>(v) : kP - static_cast<uint64_t>(-v);
}
DEEPSCOPE_HD int64_t to_signed(uint64_t r) {
  return r > kP / 2 ? -static_cast<int64_t>(kP - r) : static_cast<int64_t>(r);
}

// Decimation in frequency (Gentleman-Sande), natural order in, bit-reversed out: the butterfly on
// (a, b) = (x[i], x[i + h]) with twiddle w = root^((i mod h) N / 2h).
DEEPSCOPE_HD void butterfly_dif(uint64_t* a, uint64_t* b, uint64_t w) {
  const uint64_t u = *a, v = *b;
  *a = add(u, v);
  *b = mul(sub(u, v), w);
}

// Decimation in time (Cooley-Tukey), bit-reversed in, natural order out, with the inverse root:
// after a forward DIF transform it gives N times the input.
DEEPSCOPE_HD void butterfly_dit(uint64_t* a, uint64_t* b, uint64_t w) {
  const uint64_t u = *a, v = mul(*b, w);
  *a = add(u, v);
  *b = sub(u, v);
}

// Host helpers: powers and the transform's tables.
inline uint64_t power(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  for (; e; e >>= 1, a = mul(a, a))
    if (e & 1) r = mul(r, a);
  return r;
}
// A primitive root of unity of order 2^log2n.
inline uint64_t root_of_unity(int log2n) { return power(kGenerator, (kP - 1) >> log2n); }
inline uint64_t inverse(uint64_t a) { return power(a, kP - 2); }

}  // namespace ds::perturb::ntt
