// Expansion<N>: the error-free building blocks of every operation: VecSum passes, the renormalisation
// (fast path and settle()), exact signs and comparisons, resizing.
// Part of expansion.h, which includes it in order (not for inclusion on its own).
#pragma once

namespace ds {

namespace expansion_detail {

using bits::bits_of;
using bits::from_bits;
using bits::pow2;

// ulp(x) = weight of the last mantissa bit (2^-1074 for subnormals); 0 for x == 0, so that the
// only thing allowed to follow a zero term is zero.
DEEPSCOPE_HD double ulp_of(double x) {
  uint64_t e = (bits_of(x) >> 52) & 0x7ff;
  if (x == 0) return 0;
  if (e > 52) return from_bits((e - 52) << 52);
  return from_bits(e == 0 ? 1 : uint64_t(1) << (e - 1));
}


// One bottom-up VecSum over x[lo..M-1] (2Sum, so error-free for any inputs): x[lo] receives the
// rounded sum, x[i+1] the error of the step that added x[i]. lo is a runtime value; the terms
// above it are left alone. Selects instead of branches keep every index a compile-time constant.
template <int M>
DEEPSCOPE_HD void vecsum_from(double (&x)[M], int lo) {
  double s = x[M - 1];
  DEEPSCOPE_UNROLL
  for (int i = M - 2; i >= 0; --i) {
    double sum, err;
    eft::two_sum(x[i], s, sum, err);
    bool active = i >= lo;
    x[i + 1] = active ? err : x[i + 1];
    s = active ? sum : s;
  }
  DEEPSCOPE_UNROLL
  for (int i = 0; i < M; ++i) x[i] = i == lo ? s : x[i];
}

// Slow path of the renormalisation, for any M <= 17 doubles: for j = 0..K-1, repeat VecSum over
// x[j..M-1] until the remainder R_j = x[j+1] + ... + x[M-1] has sum|x[i]| <= (1/2 + 2^-40) ulp(x[j])
// (computed; the exact sum is at most 2^-47 larger). The leading term of R_j (x[j+1] once settled)
// is then <= (1/2 + 2^-39) ulp(x[j]) <= (1 + 2^-38) u |x[j]|, and so is the part dropped after
// x[K-1]. (The test is written 2 rest <= (1 + 2^-39) ulp: (1/2 + 2^-40) ulp would round up to a
// whole ulp when ulp(x[j]) = 2^-1074, letting x[j] = 2^-1074, x[j+1] = -2^-1074 through.)
// Termination: each pass is error-free, leaves an error <= ulp(x[j])/2 right below x[j] and
// shrinks the rest by a factor <= M u; all values are multiples of 2^-1074, so within ~45 passes
// either x[j] dominates (then two more passes meet the test) or everything below is exactly zero.
// The cap of 64 passes is never reached.
template <int M, int K>
DEEPSCOPE_HD void settle(double (&x)[M]) {
  DEEPSCOPE_NO_UNROLL
  for (int j = 0; j < K; ++j) {
    DEEPSCOPE_NO_UNROLL
    for (int pass = 0; pass < 64; ++pass) {
      double lead = 0, rest = 0;
      DEEPSCOPE_UNROLL
      for (int i = 0; i < M; ++i) {
        lead = i == j ? x[i] : lead;
        rest += i > j ? std::fabs(x[i]) : 0.0;
      }
      if (2 * rest <= (1 + 0x1p-39) * ulp_of(lead)) break;  // exact scaling: no subnormal rounding
      vecsum_from(x, j);
    }
  }
}

// The renormalisation's check |b| <= 2^-53 |a|. (Integer forms, on the exponent fields or with
// 2^-53 |a| built on the integer pipe, ran no faster on the H100: docs/bench/henon_twosum_probe.cu.)
DEEPSCOPE_HD bool below_2m53(double a, double b) { return std::fabs(b) <= std::fabs(a) * 0x1p-53; }

// Renormalises x[0..N] (any doubles; in practice the output of Algorithm 4 or 5) into N terms with
// |out[i+1]| <= (1 + 2^-38) u |out[i]| and <= ulp(out[i]). Error-free except for dropping the last
// term, |dropped| <= (1 + 2^-38) u |out[N-1]|.
//
// kLeadDominates: the caller guarantees |x[0]| >= |x[1] + ... + x[N]| (as computed), so the last
// step of the bottom-up pass is a Fast2Sum (the same s and error as 2Sum; a * d has it: x[0] =
// RN(a_0 d) and the rest is at most 3.1 u |x[0]|).
template <int N, bool kLeadDominates = false>
DEEPSCOPE_HD void renormalize(double (&x)[N + 1], double (&out)[N]) {
  constexpr int M = N + 1;
  double s = x[M - 1];
  DEEPSCOPE_UNROLL
  for (int i = M - 2; i >= 1; --i) {
    eft::two_sum(x[i], s, s, x[i + 1]);
  }
  if constexpr (kLeadDominates) {
    eft::fast_two_sum(x[0], s, s, x[1]);
  } else {
    eft::two_sum(x[0], s, s, x[1]);
  }
  x[0] = s;
  if constexpr (N >= 2) {
    // (x[0], x[1]) is already a rounded pair (x[0] = RN(x[0] + x[1])); the top-down pass starts
    // below it. Its last step is a plain sum: the dropped error is <= ulp/2 <= u |out[N-1]|.
    double c = x[1];
    DEEPSCOPE_UNROLL
    for (int i = 2; i < N; ++i) eft::two_sum(c, x[i], x[i - 1], c);
    double last = c + x[N];
    // |b| <= RN(2^-53 |a|) implies |b| <= ulp(a) (also when the product is subnormal or a is
    // zero); a 2Sum error is <= ulp/2 <= 2^-53 |sum|, so this fails only when lower terms pile
    // onto an error of almost half an ulp, or a cancellation left the terms unordered.
    bool ok = below_2m53(x[N - 2], last);
    DEEPSCOPE_UNROLL
    for (int i = 0; i + 2 < N; ++i) ok = ok & below_2m53(x[i], x[i + 1]);
    if (ok) {
      x[N - 1] = last;
    } else {
      eft::two_sum(c, x[N], x[N - 1], x[N]);  // the exact pair again, then the slow path
      settle<M, N>(x);
    }
  }
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) out[i] = x[i];
}

template <int N, bool kLeadDominates = false>
DEEPSCOPE_HD Expansion<N> renormalized(double (&x)[N + 1]) {
  Expansion<N> r;
  renormalize<N, kLeadDominates>(x, r.t);
  return r;
}

// Exact sign (-1, 0, 1) of x[0] + ... + x[M-1] for any doubles: VecSum passes until the leading
// term exceeds twice the (rounded) sum of the others' magnitudes. Same termination argument as
// settle(); typically one pass.
template <int M>
DEEPSCOPE_HD int exact_sign(double (&x)[M]) {
  DEEPSCOPE_NO_UNROLL
  for (int pass = 0; pass < 64; ++pass) {
    double rest = 0;
    DEEPSCOPE_UNROLL
    for (int i = 1; i < M; ++i) rest += std::fabs(x[i]);
    if (std::fabs(x[0]) > 2 * rest || rest == 0) break;
    vecsum_from(x, 0);
  }
  return (x[0] > 0) - (x[0] < 0);
}

// Compares a with b exactly: the sign of a_0 - b_0 + a_1 - b_1 + ...
template <int N>
DEEPSCOPE_HD int compare(const Expansion<N>& a, const Expansion<N>& b) {
  double x[2 * N];
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) {
    x[2 * i] = a.t[i];
    x[2 * i + 1] = -b.t[i];
  }
  return exact_sign(x);
}

// The first K terms of x (K < N), or x padded with zeros (K > N).
template <int K, int N>
DEEPSCOPE_HD Expansion<K> resize(const Expansion<N>& x) {
  Expansion<K> r;
  DEEPSCOPE_UNROLL
  for (int i = 0; i < K; ++i) r.t[i] = i < N ? x.t[i] : 0.0;
  return r;
}

}  // namespace expansion_detail

}  // namespace ds
