// Per-interval math of the TMD workspace's Lefèvre and regular searches (host + device): the
// continued-fraction lower bounds of min_{x < N} {b - a x} (Fortin, Gouicem, Graillat, Algorithms
// 1-4) in 63-bit fixed point, and the tabulated-difference scan of a degree-2 polynomial in
// 96-bit fractions (the core's Limb<4>, integer word dropped: every value is taken mod 1).
//
// Fixed point: a real t in [0, 1] is the integer t 2^63 (kOne = 2^63). a and b are rationals
// A / 2^63, so the two-length configurations are computed exactly; when a length reaches 0 (a
// rational of small denominator) the test gives up (Failure: the caller searches exhaustively).
#pragma once
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

// min(u + k v, 2^62): point counts saturate far above any N, so they never overflow.
DEEPSCOPE_HD uint64_t sat_mul_add(uint64_t u, uint64_t k, uint64_t v) {
  constexpr uint64_t kCap = uint64_t{1} << 62;
  if (v != 0 && k > (kCap - u) / v) return kCap;
  return u + k * v;
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

DEEPSCOPE_HD Frac frac_add(const Frac& x, const Frac& y) {
  Frac r = x + y;  // both non-negative: an exact magnitude sum
  r.w[0] = 0;      // mod 1
  return r;
}

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

// --- Hierarchical polynomials: a packet of consecutive intervals by tabulated differences ----------
//
// On a packet, Y(x) is one Taylor polynomial P of degree kPacketDegree; on its interval k,
// P(k N + m) = c_0(k) + c_1(k) m + c_2(k) m^2 + ..., where c_j is a polynomial in k of degree
// kPacketDegree - j. The host (MPFR) gives the forward differences of c_0, c_1, c_2 at k = 0 (mod 1,
// 288 fraction bits); each step is one addition per difference in Limb<10>.

constexpr int kPacketDegree = 6;
using Wide = Limb<10>;

DEEPSCOPE_HD Wide wide_add(const Wide& x, const Wide& y) {
  Wide r = x + y;  // both non-negative: an exact magnitude sum
  r.w[0] = 0;      // mod 1
  return r;
}

struct Packet {
  Wide d[3][kPacketDegree + 1];  // Delta^i c_j(0) mod 1 (zero beyond the degree of c_j)
  int64_t n;                     // intervals
};

// Writes c_0(k), c_1(k), c_2(k) (truncated to 96 bits) to out[3 k + j] for k < n.
DEEPSCOPE_HD void expand_packet(const Packet& pk, Frac* out) {
  Wide d[3][kPacketDegree + 1];
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i <= kPacketDegree; ++i) d[j][i] = pk.d[j][i];
  for (int64_t k = 0; k < pk.n; ++k) {
    for (int j = 0; j < 3; ++j) {
      Frac f;
      f.neg = 0;
      f.w[0] = 0;
      f.w[1] = d[j][0].w[1];
      f.w[2] = d[j][0].w[2];
      f.w[3] = d[j][0].w[3];
      out[3 * k + j] = f;
      for (int i = 0; i < kPacketDegree; ++i) d[j][i] = wide_add(d[j][i], d[j][i + 1]);
    }
  }
}

}  // namespace ds::tmd::lb
