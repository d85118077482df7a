// Limb<N>: truncated multiplication and square (big-limb paper, section 4).
// Part of limb.h, which includes it in order (not for inclusion on its own).
#pragma once

namespace ds {

// ---- Truncated multiplication (big-limb paper, section 4, equations (6)-(7)) ----
// Word i of |a| (a_i, weight 2^(-32 i)) times word j of |b| is a 64-bit product whose low half
// lands on result word p = i+j and high half on word p-1. Kept exactly: every product with
// p <= N-1 and the high halves of the p = N products; discarded, in units of eps:
//   D = sum_{i+j=N} lo(a_i b_j) / 2^32 + sum_{i+j>=N+1} a_i b_j / 2^(32 (i+j-N+1)).
// Column N holds N-1 products, each low half < 2^32, so that part is < N-1; column N+1 holds N-2
// products < 2^64, weight 2^-64: < N-2; the columns further down add less than (N-3) 2^-32, which
// the slack of the first two columns absorbs. Hence 0 <= D < 2N-3, and the result is the exact
// product with its magnitude truncated by D:
//     |result| = |a b| - D,  |result - a b| < (2N - 3) eps,  error toward zero,
// for |a b| < 2^32. Products that fit the grid exactly (e.g. one factor an integer) are exact,
// and a zero magnitude gets the canonical +0. No compensation constant is added (unlike fx128):
// a truncated magnitude keeps 0 * x = 0 and 1 * x = x exact.
// Cost: N(N+1)/2 IMAD.WIDE plus N-1 mul_hi, each with the adds of its 64-bit accumulation.
template <int N>
DEEPSCOPE_HD Limb<N> operator*(const Limb<N>& a, const Limb<N>& b) {
  Limb<N> r;
  uint32_t acc[N];
  DEEPSCOPE_UNROLL
  for (int k = 0; k < N; ++k) acc[k] = 0;
  // Operand scanning from the least significant row; row i ends with its carry on word i-1,
  // which no earlier row has written. The inner bound is constant (the guard folds away after
  // unrolling), so both loops unroll fully.
  DEEPSCOPE_UNROLL
  for (int i = N - 1; i >= 0; --i) {
    uint32_t carry = 0;
    DEEPSCOPE_UNROLL
    for (int j = N - 1; j >= 0; --j) {
      const int p = i + j;
      if (p > N) continue;
      if (p == N) {
        carry = limb_detail::mul_hi(a.w[i], b.w[j]);
        continue;
      }
      const uint64_t t = static_cast<uint64_t>(a.w[i]) * b.w[j] + acc[p < N ? p : N - 1] + carry;
      acc[p < N ? p : N - 1] = static_cast<uint32_t>(t);
      carry = static_cast<uint32_t>(t >> 32);
    }
    if (i >= 1) acc[i >= 1 ? i - 1 : 0] = carry;
  }
  DEEPSCOPE_UNROLL
  for (int k = 0; k < N; ++k) r.w[k] = acc[k];
  r.neg = (a.neg ^ b.neg) & 1u;
  limb_detail::canonicalize(r);
  return r;
}

// Dedicated square: the off-diagonal products a_i a_j (i < j) once, doubled, plus the diagonal.
// Kept: products with i+j <= N-1 and the high halves at i+j = N (off-diagonal doubled, and the
// diagonal a_{N/2}^2 for even N). Discarded: column N holds N-1 low halves counted with their
// multiplicity (2 per off-diagonal pair, 1 for the diagonal), column N+1 holds N-2 products, so as
// for operator*:  result = a^2 - D,  0 <= D < (2N - 3) eps,  result >= 0.
// Cost: about N^2/4 + N products instead of N^2/2.
template <int N>
DEEPSCOPE_HD Limb<N> sqr(const Limb<N>& a) {
  uint32_t s[N];
  DEEPSCOPE_UNROLL
  for (int k = 0; k < N; ++k) s[k] = 0;
  // Off-diagonal sum; row i starts with its carry on word 2i, which no earlier row has written.
  DEEPSCOPE_UNROLL
  for (int i = N - 1; i >= 0; --i) {
    if (2 * i + 1 > N) continue;  // every product of the row lies past column N
    uint32_t carry = 0;
    DEEPSCOPE_UNROLL
    for (int j = N - 1; j >= 1; --j) {
      const int p = i + j;
      if (j <= i || p > N) continue;
      if (p == N) {
        carry = limb_detail::mul_hi(a.w[i], a.w[j]);
        continue;
      }
      const uint64_t t = static_cast<uint64_t>(a.w[i]) * a.w[j] + s[p < N ? p : N - 1] + carry;
      s[p < N ? p : N - 1] = static_cast<uint32_t>(t);
      carry = static_cast<uint32_t>(t >> 32);
    }
    if (2 * i <= N - 1) s[2 * i <= N - 1 ? 2 * i : 0] = carry;
  }
  // Diagonal a_i^2: high half on word 2i-1, low half on word 2i (for 2i = N only the high half).
  uint32_t d[N];
  DEEPSCOPE_UNROLL
  for (int k = 0; k < N; ++k) d[k] = 0;
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) {
    if (2 * i > N) continue;
    const uint64_t t = static_cast<uint64_t>(a.w[i]) * a.w[i];
    if (2 * i <= N - 1) d[2 * i <= N - 1 ? 2 * i : 0] = static_cast<uint32_t>(t);
    if (i >= 1) d[i >= 1 ? 2 * i - 1 : 0] = static_cast<uint32_t>(t >> 32);
  }
  // result = 2 s + d.
  Limb<N> r;
  uint64_t c = 0;
  DEEPSCOPE_UNROLL
  for (int p = N - 1; p >= 0; --p) {
    const uint32_t twice = (s[p] << 1) | (p + 1 < N ? s[p + 1 < N ? p + 1 : N - 1] >> 31 : 0u);
    c += static_cast<uint64_t>(twice) + d[p];
    r.w[p] = static_cast<uint32_t>(c);
    c >>= 32;
  }
  r.neg = 0;
  return r;
}

}  // namespace ds
