// Per-interval math of the TMD workspace's Lefèvre and regular searches (host + device): the
// continued-fraction lower bounds of min_{x < N} {b - a x} (Fortin, Gouicem, Graillat, Algorithms
// 1-4) in 63-bit fixed point, and the tabulated-difference scan of a degree-2 polynomial in
// 96-bit fractions (the core's Limb<4>, integer word dropped: every value is taken mod 1).
//
// Fixed point: a real t in [0, 1] is the integer t 2^63 (kOne = 2^63). a and b are rationals
// A / 2^63, so the two-length configurations are computed exactly; when a length reaches 0 (a
// rational of small denominator) the test gives up (Failure: the caller searches exhaustively).
#pragma once
#include <cmath>
#include <cstdint>

#include "arith/hd.h"
#include "arith/limb.h"

namespace ds::tmd::lb {

constexpr uint64_t kOne = uint64_t{1} << 63;

struct Bound {
  bool success;     // true: min_{x < N} {b - a x} >= eps (no hard case); false: maybe one
  uint64_t d;       // the distance found (a lower bound of the minimum) when success
  uint32_t iters;   // iterations of the main loop (for the divergence statistics)
  uint64_t points;  // points {a x} placed when the loop ended (saturated at 2^62; 0 on failure paths)
};

// floor(num / den), den > 0: by the division instruction when num >= 2^kth den (the hybrid
// division with threshold kth), else by repeated subtraction. kth = 0: always divide; 64: always
// subtract.
DEEPSCOPE_HD uint64_t quot(uint64_t num, uint64_t den, int kth) {
  if (kth < 64 && (num >> kth) >= den) return num / den;
  uint64_t k = 0;
  while (num >= den) {
    num -= den;
    ++k;
  }
  return k;
}

// min(u + k v, 2^62) for u <= 2^62: point counts saturate far above any N, so they never
// overflow. The test k v > 2^62 - u on the full 128-bit product (the same decisions as
// k > (2^62 - u) / v, without a 64-bit division: two of them per loop iteration before).
DEEPSCOPE_HD uint64_t sat_mul_add(uint64_t u, uint64_t k, uint64_t v) {
  constexpr uint64_t kCap = uint64_t{1} << 62;
#ifdef __CUDA_ARCH__
  const uint64_t hi = __umul64hi(k, v);
#else
  const uint64_t hi = static_cast<uint64_t>((static_cast<unsigned __int128>(k) * v) >> 64);
#endif
  const uint64_t lo = k * v;
  if (hi != 0 || lo > kCap - u) return kCap;
  return u + lo;
}

// Algorithm 1 (Lefèvre), with the two branch bodies as in Lefèvre's subtractive form: the else
// branch reduces p by q (the paper's listing names the variables of lines 13 and 15 the other
// way round; this is the form its text and Lefèvre's ARITH 17 paper describe).
DEEPSCOPE_HD Bound lefevre(uint64_t a, uint64_t b, uint64_t eps, uint64_t n, int kth) {
  uint64_t p = a, q = kOne - a, d = b, u = 1, v = 1;
  uint32_t it = 0;
  if (d < eps || p == 0) return Bound{false, d, it, 0};
  for (;;) {
    ++it;
    if (p == 0 || q == 0) return Bound{false, d, it, 0};
    if (d < p) {
      const uint64_t k = quot(q, p, kth);
      q -= k * p;
      u = sat_mul_add(u, k, v);
      if (u + v >= n) return Bound{true, d, it, u + v};
      if (q == 0) return Bound{false, d, it, 0};
      p -= q;
      v += u;
    } else {
      d -= p;
      if (d < eps) return Bound{false, d, it, 0};
      const uint64_t k = quot(p, q, kth);
      p -= k * q;
      v = sat_mul_add(v, k, u);
      if (u + v >= n) return Bound{true, d, it, u + v};
      if (p == 0) return Bound{false, d, it, 0};
      q -= p;
      u += v;
    }
  }
}

// Algorithm 3: Algorithm 1 with the variables swapped instead of branching, so that both cases
// run the same instructions (only the subtraction from d is conditional).
DEEPSCOPE_HD Bound lefevre_swap(uint64_t a, uint64_t b, uint64_t eps, uint64_t n, int kth) {
  uint64_t P = a, Q = kOne - a, d = b, U = 1, V = 1;
  uint32_t it = 0;
  if (d < eps || P == 0) return Bound{false, d, it, 0};
  bool swapped = false;
  if (d >= P) {
    uint64_t t = P;
    P = Q;
    Q = t;
    t = U;
    U = V;
    V = t;
    swapped = true;
  }
  for (;;) {
    ++it;
    if (P == 0 || Q == 0) return Bound{false, d, it, 0};
    if (swapped) {
      d -= Q;  // Q holds Algorithm 1's p
      if (d < eps) return Bound{false, d, it, 0};
    }
    const uint64_t k = quot(Q, P, kth);
    Q -= k * P;
    U = sat_mul_add(U, k, V);
    if (U + V >= n) return Bound{true, d, it, U + V};
    if (Q == 0) return Bound{false, d, it, 0};
    P -= Q;
    V += U;
    const bool want = d >= (swapped ? Q : P);
    if (want != swapped) {
      uint64_t t = P;
      P = Q;
      Q = t;
      t = U;
      U = V;
      V = t;
      swapped = want;
    }
  }
}

// Algorithm 2 (regular): one whole partial quotient of a per iteration, d reduced by division.
// u counts the intervals of length p and v those of length q (p u + q v = 1). The paper's listing
// starts from u = 1; the configuration it starts from ({0} alone: one interval of length q = 1)
// has u = 0, and with u = 1 the loop would stop one point short of N.
DEEPSCOPE_HD Bound regular(uint64_t a, uint64_t b, uint64_t eps, uint64_t n, int kth) {
  uint64_t p = a, q = kOne, d = b, u = 0, v = 1;  // one point, {0}: one interval of length 1
  uint32_t it = 0;
  if (d < eps || p == 0) return Bound{false, d, it, 0};
  for (;;) {
    ++it;
    if (p < q) {
      const uint64_t k = quot(q, p, kth);
      q -= k * p;
      u = sat_mul_add(u, k, v);
      d -= quot(d, p, kth) * p;
    } else {
      const uint64_t k = quot(p, q, kth);
      p -= k * q;
      v = sat_mul_add(v, k, u);
      if (d >= p) {
        d -= p;
        d -= quot(d, q, kth) * q;
      }
    }
    if (u + v >= n) return Bound{d >= eps, d, it, u + v};
    if (p == 0 || q == 0) return Bound{false, d, it, 0};
  }
}

// Algorithm 4: Algorithm 2 unrolled by two (the branch on p < q alternates, starting true).
DEEPSCOPE_HD Bound regular_unrolled(uint64_t a, uint64_t b, uint64_t eps, uint64_t n, int kth) {
  uint64_t p = a, q = kOne, d = b, u = 0, v = 1;  // one point, {0}: one interval of length 1
  uint32_t it = 0;
  if (d < eps || p == 0) return Bound{false, d, it, 0};
  for (;;) {
    ++it;
    uint64_t k = quot(q, p, kth);
    q -= k * p;
    u = sat_mul_add(u, k, v);
    d -= quot(d, p, kth) * p;
    if (u + v >= n) return Bound{d >= eps, d, it, u + v};
    if (q == 0) return Bound{false, d, it, 0};
    k = quot(p, q, kth);
    p -= k * q;
    v = sat_mul_add(v, k, u);
    if (d >= p) {
      d -= p;
      d -= quot(d, q, kth) * q;
    }
    if (u + v >= n) return Bound{d >= eps, d, it, u + v};
    if (p == 0) return Bound{false, d, it, 0};
  }
}

// --- Tabulated differences of P(t) = c0 + c1 t + c2 t^2 (mod 1) -------------------------------

using Frac = Limb<4>;  // 96 fraction bits; values kept in [0, 1), non-negative

// (x + y) mod 1 for fractions in [0, 1) (integer word 0, sign +): the fraction words' carry chain,
// the carry out of the top fraction word dropped. The same bits as Limb's exact addition followed
// by clearing the integer word, without its sign handling (the scans' and expansions' inner loops).
template <int N>
DEEPSCOPE_HD Limb<N> add_mod1(const Limb<N>& x, const Limb<N>& y) {
  Limb<N> r;
  uint32_t carry = 0;
  DEEPSCOPE_UNROLL
  for (int i = N - 1; i >= 1; --i) {
    const uint64_t t = static_cast<uint64_t>(x.w[i]) + y.w[i] + carry;
    r.w[i] = static_cast<uint32_t>(t);
    carry = static_cast<uint32_t>(t >> 32);
  }
  r.w[0] = 0;
  r.neg = 0;
  return r;
}

DEEPSCOPE_HD Frac frac_add(const Frac& x, const Frac& y) { return add_mod1(x, y); }

// The distance of a fraction v to the breakpoint (0 for directed, 1/2 for nearest), as a double
// from its first 64 bits (error < 2^-63 + one rounding).
DEEPSCOPE_HD double frac_dist(const Frac& v, bool nearest) {
  const uint64_t hi = (static_cast<uint64_t>(v.w[1]) << 32) | v.w[2];
  const double t = static_cast<double>(hi) * 0x1p-64;
  if (nearest) return t >= 0.5 ? t - 0.5 : 0.5 - t;
  return t < 0.5 ? t : 1.0 - t;
}

// --- The per-item work of the three phases (one GPU thread or one CPU loop step each) ----------

// One lower-bound test: min_{x < n} {b - a x} >= eps?
struct LinearTest {
  uint64_t a, b, eps, n;
};

DEEPSCOPE_HD Bound run_test(const LinearTest& t, bool lefevre_search, int kth) {
  return lefevre_search ? lefevre_swap(t.a, t.b, t.eps, t.n, kth)
                        : regular_unrolled(t.a, t.b, t.eps, t.n, kth);
}

// One phase-3 scan: P(first + x) for x < n by tabulated differences from v = P(first),
// d1 = P(first + 1) - P(first), d2 = the constant second difference; arguments closer than thr
// (ulps) to the breakpoint are candidates.
struct Scan {
  Frac v, d1, d2;
  int64_t first, n;
  double thr;
};

template <class Emit>
DEEPSCOPE_HD void run_scan(const Scan& s, bool nearest, Emit&& emit) {
  Frac v = s.v, d1 = s.d1;
  for (int64_t x = 0; x < s.n; ++x) {
    if (frac_dist(v, nearest) < s.thr) emit(s.first + x);
    v = frac_add(v, d1);
    d1 = frac_add(d1, s.d2);
  }
}

// x k mod 1 for a fraction x in [0, 1) and k < 2^32 (exact).
DEEPSCOPE_HD Frac frac_mul(const Frac& x, uint64_t k) {
  Frac r = mul_u32(x, static_cast<uint32_t>(k));
  r.w[0] = 0;
  r.neg = 0;
  return r;
}

// --- The lower-bound test of one (sub-)interval, built where it runs --------------------------------

// The test of c0 + c1 x + q(x), x < n, where the dropped quadratic term q(x) = c2 x^2 has c2 in
// [c2_lo, c2_hi]: it centres q's range and widens the threshold e (ulps) by its half-width; it
// succeeds when no x comes within e of a breakpoint (1/2 for nearest, 0 for directed). Every
// double operation is as the host evaluated it before (FMA contraction is off project-wide), so
// CPU and GPU build bit-identical tests.
DEEPSCOPE_HD uint64_t fix63(const Frac& f) { return (static_cast<uint64_t>(f.w[1]) << 31) | (f.w[2] >> 1); }
DEEPSCOPE_HD uint64_t fix63_up(double t) {  // ceil(t 2^63) + 1 for t in [0, 1)
  return static_cast<uint64_t>(std::ceil(t * 0x1p63)) + 1;
}

DEEPSCOPE_HD LinearTest make_linear_test(const Frac& c0, const Frac& c1, double c2_lo, double c2_hi, double e,
                                         int64_t n, bool nearest) {
  LinearTest t;
  t.n = static_cast<uint64_t>(n);
  // q(x) = c2 x^2 over x in [0, n-1] lies in [lo, hi]: test c0 + c1 x + mid within e + half.
  const double xm = static_cast<double>(n - 1), x2 = xm * xm;
  const double qlo = c2_lo * x2, qhi = c2_hi * x2;
  const double lo = qlo < 0.0 ? qlo : 0.0, hi = 0.0 < qhi ? qhi : 0.0;
  const double mid = 0.5 * (lo + hi), half = 0.5 * (hi - lo) * (1 + 0x1p-40);
  e = (e + half) * (1 + 0x1p-40) + 0x1p-62;       // + the rounding of mid to 63 bits
  if (!(e < 0.25) || !(std::fabs(mid) < 0.25)) {  // cannot pass (and would overflow the fixed point)
    t.a = 0;
    t.b = 0;
    t.eps = kOne;  // every d < 2^63 fails
    return t;
  }
  const uint64_t mid63 = static_cast<uint64_t>(std::llround(mid * 0x1p63));  // two's complement mod 2^64
  t.a = (kOne - fix63(c1)) & (kOne - 1);
  t.b = (fix63(c0) + mid63 + fix63_up(e) + (nearest ? (kOne >> 1) : 0)) & (kOne - 1);
  t.eps = 2 * fix63_up(e);
  return t;
}

// --- A block of intervals through the three phases (lefevre_pipeline.h runs it) ---------------
//
// Interval k of a block (k < nb) holds the arguments first0 + k N + x, x < n_k; its coefficients
// y0, y1, y2 (Frac, mod 1) are coef[3 k + j]; its bounds come from a parameter record (the
// packet's, or its own for an interval with its own MPFR polynomial).

struct IntervalParams {
  double c2_lo, c2_hi;  // bounds on the true (signed) second-order coefficient, ulps
  double rem;           // bound on the polynomial's error, ulps
};

struct BlockGeom {
  int64_t first0;  // first argument of interval 0 (relative to the search's first argument)
  int64_t N;       // arguments per interval
  int64_t count;   // arguments in the search
  int64_t L;       // arguments per phase-2 sub-interval (N / split)
  int split;
  double eps, slack;
  bool nearest, lefevre;
  int kth;
};

DEEPSCOPE_HD int64_t interval_args(const BlockGeom& g, int64_t k) {
  const int64_t first = g.first0 + k * g.N, left = g.count - first;
  return left < g.N ? left : g.N;
}

// The threshold of an interval's phase-1 and phase-2 tests, in ulps.
DEEPSCOPE_HD double interval_threshold(const BlockGeom& g, const IntervalParams& pr, int64_t n) {
  return (pr.rem + g.eps + g.slack * static_cast<double>(n)) * (1 + 0x1p-40);
}

// Phase 1 of interval k: its test built from its coefficients, and run.
DEEPSCOPE_HD Bound phase1_item(const BlockGeom& g, const Frac* coef, const IntervalParams& pr, int64_t n) {
  const LinearTest t =
      make_linear_test(coef[0], coef[1], pr.c2_lo, pr.c2_hi, interval_threshold(g, pr, n), n, g.nearest);
  return run_test(t, g.lefevre, g.kth);
}

// Sub-interval s (x in [s L, s L + n)) of an interval: its degree-1 part c0 + c1 x' (x' = x - s L).
struct SubPoly {
  Frac c0, c1;
  int64_t xs, n;
};

DEEPSCOPE_HD SubPoly sub_poly(const BlockGeom& g, const Frac* coef, int64_t n_iv, int s) {
  SubPoly sb;
  sb.xs = static_cast<int64_t>(s) * g.L;
  sb.n = n_iv - sb.xs < g.L ? n_iv - sb.xs : g.L;
  sb.c0 = frac_add(frac_add(coef[0], frac_mul(coef[1], sb.xs)), frac_mul(frac_mul(coef[2], sb.xs), sb.xs));
  sb.c1 = frac_add(coef[1], frac_mul(coef[2], 2 * sb.xs));
  return sb;
}

// Phase 2 of sub-interval s of an interval of n_iv arguments (s L < n_iv).
DEEPSCOPE_HD Bound phase2_item(const BlockGeom& g, const Frac* coef, const IntervalParams& pr, int64_t n_iv,
                               int s, int64_t* sub_n) {
  const SubPoly sb = sub_poly(g, coef, n_iv, s);
  *sub_n = sb.n;
  const LinearTest t =
      make_linear_test(sb.c0, sb.c1, pr.c2_lo, pr.c2_hi, interval_threshold(g, pr, n_iv), sb.n, g.nearest);
  return run_test(t, g.lefevre, g.kth);
}

// Phase 3's scan of sub-interval s of interval k (candidates relative to the search's first argument).
DEEPSCOPE_HD Scan phase3_scan(const BlockGeom& g, const Frac* coef, const IntervalParams& pr, int64_t k,
                              int s) {
  const int64_t n_iv = interval_args(g, k);
  const SubPoly sb = sub_poly(g, coef, n_iv, s);
  Scan sc;
  sc.v = sb.c0;
  sc.d1 = frac_add(sb.c1, coef[2]);
  sc.d2 = frac_add(coef[2], coef[2]);
  sc.first = g.first0 + k * g.N + sb.xs;
  sc.n = sb.n;
  sc.thr = interval_threshold(g, pr, n_iv) + 0x1p-52;
  return sc;
}

// The i-th interval tested in phase 1 when the sorted intervals ex[0 .. n_ex) are left out: i + j,
// j the number of ex[m] with ex[m] - m <= i (ex[m] - m, the tested intervals before ex[m], never
// decreases, so j is found by bisection).
DEEPSCOPE_HD int64_t tested_interval(const int64_t* ex, int64_t n_ex, int64_t i) {
  int64_t lo = 0, hi = n_ex;  // j in [lo, hi]
  while (lo < hi) {
    const int64_t mid = (lo + hi) / 2;
    if (ex[mid] - mid <= i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return i + lo;
}

// The phase-1 loop iterations of a warp: 32 consecutive tests (fewer for the block's last one).
struct WarpIters {
  uint32_t n, sum, min, max;
};

DEEPSCOPE_HD WarpIters warp_iters(const uint32_t* it, int n) {
  WarpIters w{static_cast<uint32_t>(n), 0, it[0], it[0]};
  for (int i = 0; i < n; ++i) {
    w.sum += it[i];
    w.min = it[i] < w.min ? it[i] : w.min;
    w.max = it[i] > w.max ? it[i] : w.max;
  }
  return w;
}

// The phase-1 loop statistics of a block, folded from its warps: integers only, so that every
// order of folding (the device's atomics, the CPU's loop) gives the same bits. A warp's NMDM
// (1 - mean / max) is kept as the integer nearest NMDM 2^kNmdmBits: the block's sum is then exact,
// and the mean NMDM is within 2^-(kNmdmBits + 1) of the mean of the exact values.
constexpr int kNmdmBits = 40;
constexpr int kNmdmBins = 20;

struct WarpSummary {
  unsigned long long warps, iter_count, iter_sum, nmdm_fixed;
  unsigned int min, max;  // min starts at the largest value, so that the first warp sets it
  unsigned long long hist[kNmdmBins];
};

DEEPSCOPE_HD WarpSummary empty_summary() {
  WarpSummary s{};
  s.min = 0xffffffffu;
  return s;
}

// NMDM of one warp: 1 - mean / max, the mean from the exact integer sum (0 for a warp of zeros).
DEEPSCOPE_HD double warp_nmdm(const WarpIters& w) {
  return w.max == 0 ? 0.0 : 1.0 - (static_cast<double>(w.sum) / w.n) / w.max;
}
DEEPSCOPE_HD int nmdm_bin(double m) {
  const int b = static_cast<int>(m * kNmdmBins);
  return b < kNmdmBins - 1 ? b : kNmdmBins - 1;
}
DEEPSCOPE_HD unsigned long long nmdm_fixed(double m) {
  return static_cast<unsigned long long>(llrint(ldexp(m, kNmdmBits)));
}

// Folds one warp into s (the CPU's loop; the device adds the same terms with atomics).
DEEPSCOPE_HD void add_warp(WarpSummary* s, const WarpIters& w) {
  const double m = warp_nmdm(w);
  ++s->warps;
  s->iter_count += w.n;
  s->iter_sum += w.sum;
  s->nmdm_fixed += nmdm_fixed(m);
  s->min = w.min < s->min ? w.min : s->min;
  s->max = w.max > s->max ? w.max : s->max;
  ++s->hist[nmdm_bin(m)];
}

// --- Hierarchical polynomials: a packet of consecutive intervals by tabulated differences ----------
//
// On a packet, Y(x) is one Taylor polynomial P of degree kPacketDegree; on its interval k,
// P(k N + m) = c_0(k) + c_1(k) m + c_2(k) m^2 + ..., where c_j is a polynomial in k of degree
// kPacketDegree - j. The host (MPFR) gives the forward differences of c_0, c_1, c_2 at k = 0 (mod 1,
// 288 fraction bits); each step is one addition per difference in Limb<10>.

constexpr int kPacketDegree = 6;
using Wide = Limb<10>;

DEEPSCOPE_HD Wide wide_add(const Wide& x, const Wide& y) { return add_mod1(x, y); }

struct Packet {
  Wide d[3][kPacketDegree + 1];  // Delta^i c_j(0) mod 1 (zero beyond the degree of c_j)
  int64_t n;                     // intervals
};

// C(n, m) for n < 2^26 and m <= kPacketDegree, as 5 words, least significant first (exact: the
// largest intermediate, C(n, m - 1) n, stays below 2^160).
DEEPSCOPE_HD void binom_words(uint64_t n, int m, uint32_t (&c)[5]) {
  DEEPSCOPE_UNROLL
  for (int w = 0; w < 5; ++w) c[w] = w == 0 ? 1u : 0u;
  for (int i = 0; i < m; ++i) {  // C(n, i + 1) = C(n, i) (n - i) / (i + 1), exactly
    const uint64_t f = n - static_cast<uint64_t>(i);
    uint64_t carry = 0;
    DEEPSCOPE_UNROLL
    for (int w = 0; w < 5; ++w) {
      const uint64_t t = static_cast<uint64_t>(c[w]) * f + carry;
      c[w] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    const uint64_t den = static_cast<uint64_t>(i + 1);
    uint64_t rem = 0;
    DEEPSCOPE_UNROLL
    for (int w = 4; w >= 0; --w) {
      const uint64_t cur = (rem << 32) | c[w];
      c[w] = static_cast<uint32_t>(cur / den);
      rem = cur % den;
    }
  }
}

// x K mod 1 for a fraction x in [0, 1) and the integer K = sum_s c[s] 2^(32 s) (exact: x 2^(32 s)
// mod 1 is x's fraction words moved up by s).
DEEPSCOPE_HD Wide wide_mul_words(const Wide& x, const uint32_t (&c)[5]) {
  Wide r;
  r.neg = 0;
  DEEPSCOPE_UNROLL
  for (int i = 0; i < Wide::kWords; ++i) r.w[i] = 0;
  DEEPSCOPE_UNROLL
  for (int s = 0; s < 5; ++s) {
    Wide y;
    y.neg = 0;
    y.w[0] = 0;
    DEEPSCOPE_UNROLL
    for (int i = 1; i < Wide::kWords; ++i) y.w[i] = i + s < Wide::kWords ? x.w[i + s] : 0u;
    y = mul_u32(y, c[s]);
    y.w[0] = 0;
    y.neg = 0;
    r = wide_add(r, y);
  }
  return r;
}

// The expansion's per-item math, shared by the CPU loop below and the CUDA kernel (lefevre.cu, which
// stages its stores): the binomials C(k0, l), the differences of c_j at k0, one interval's
// coefficient and one step of tabulated differences.
// The differences at k0 come from those at 0 by the straightforward shift, Delta^i c_j(k0) =
// sum_l C(k0, l) Delta^(i+l) c_j(0) mod 1, exactly the value k0 steps of tabulated differences
// reach (both are exact mod 1), so any split of a packet gives the same bits.
struct ExpandBinomials {
  uint32_t c[kPacketDegree + 1][5];
};
DEEPSCOPE_HD void expand_binomials(int64_t k0, ExpandBinomials* b) {
  DEEPSCOPE_UNROLL
  for (int l = 0; l <= kPacketDegree; ++l) binom_words(static_cast<uint64_t>(k0), l, b->c[l]);
}
DEEPSCOPE_HD void expand_start(const Packet& pk, int j, int64_t k0, const ExpandBinomials& b,
                               Wide (&d)[kPacketDegree + 1]) {
  DEEPSCOPE_UNROLL
  for (int i = 0; i <= kPacketDegree; ++i) {
    d[i] = pk.d[j][i];
    if (k0 > 0) {
      DEEPSCOPE_UNROLL
      for (int l = 1; i + l <= kPacketDegree; ++l)
        d[i] = wide_add(d[i], wide_mul_words(pk.d[j][i + l], b.c[l]));
    }
  }
}
// c_j at the current interval, truncated to 96 bits.
DEEPSCOPE_HD Frac expand_value(const Wide (&d)[kPacketDegree + 1]) {
  Frac f;
  f.neg = 0;
  f.w[0] = 0;
  f.w[1] = d[0].w[1];
  f.w[2] = d[0].w[2];
  f.w[3] = d[0].w[3];
  return f;
}
// The differences at the next interval: one addition per difference.
DEEPSCOPE_HD void expand_next(Wide (&d)[kPacketDegree + 1]) {
  DEEPSCOPE_UNROLL
  for (int i = 0; i < kPacketDegree; ++i) d[i] = wide_add(d[i], d[i + 1]);
}

// Writes c_0(k), c_1(k), c_2(k) (truncated to 96 bits) to out[3 (k - k0) + j] for k0 <= k < k0 + n:
// the differences at k0 (expand_start), then tabulated differences.
DEEPSCOPE_HD void expand_packet_range(const Packet& pk, int64_t k0, int64_t n, Frac* out) {
  ExpandBinomials b;
  expand_binomials(k0, &b);
  for (int j = 0; j < 3; ++j) {  // one polynomial c_j at a time: its differences stay in registers
    Wide d[kPacketDegree + 1];
    expand_start(pk, j, k0, b, d);
    for (int64_t k = 0; k < n; ++k) {
      out[3 * k + j] = expand_value(d);
      expand_next(d);
    }
  }
}

// Writes c_0(k), c_1(k), c_2(k) (truncated to 96 bits) to out[3 k + j] for k < n.
DEEPSCOPE_HD void expand_packet(const Packet& pk, Frac* out) { expand_packet_range(pk, 0, pk.n, out); }

}  // namespace ds::tmd::lb
