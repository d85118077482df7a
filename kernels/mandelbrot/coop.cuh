// The big-limb paper's cooperative strategy (Ferrier & L'Hostis, sections 5-6) for limbN:
// S >= N threads per pixel, thread k owning word k of every number, the operands shared through
// shared memory, 32 pixels per block. Unlike the paper's GPU operations (one-word carries, signs
// from the two leading words) every operation here is exact and reproduces Limb<N>'s operators bit
// for bit, so counts equal the thread-per-pixel kernel's:
//   - sums of word columns are resolved with a full carry-lookahead over the segment (two warp
//     ballots: generate and propagate masks, carries = ((G + (G|P)) ^ G ^ (G|P)));
//   - multiplication keeps exactly the partial products Limb<N>'s operator* and sqr keep
//     (columns 0..N-1 in full, the high halves of column N), summed per column by thread k;
//   - to_double is the correctly rounded value, as limb_detail::magnitude_to_double.
// The warp primitives come from a policy W (DeviceWarp, mandelbrot.cuh, on the GPU; the tests run
// the same code on the host with an emulated warp), so the host checks it against Limb<N> exactly.
#pragma once
#include <cstdint>

#include "arith/limb.h"
#include "mandelbrot.cuh"

namespace ds::mandel::coop {

// Threads per pixel: the next power of two >= N (segments never straddle a warp).
template <int N>
struct Shape {
  static constexpr int S = N <= 4 ? 4 : N <= 8 ? 8 : N <= 16 ? 16 : 32;
  static constexpr int kPixelsPerBlock = 32;
  static constexpr int kThreads = kPixelsPerBlock * S;
};

DEEPSCOPE_HD uint32_t bit_reverse(uint32_t x) {
#if DEEPSCOPE_DEVICE_CODE
  return __brev(x);
#else
  uint32_t r = 0;
  for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
  return r;
#endif
}

// A thread's place in its pixel's segment.
template <int N>
struct Lane {
  static constexpr int S = Shape<N>::S;
  int k;     // the word this thread owns (k >= N: padding, always 0)
  int base;  // the segment's first lane in the warp
  DEEPSCOPE_HD explicit Lane(unsigned lane)
      : k(static_cast<int>(lane) % S), base(static_cast<int>(lane) - k) {}
  DEEPSCOPE_HD bool word() const { return k < N; }
  // Bits of this segment in a ballot, bit k = word k.
  DEEPSCOPE_HD uint32_t bits(uint32_t ballot) const {
    return S == 32 ? ballot : (ballot >> base) & ((1u << (S % 32)) - 1u);
  }
  // The lane of word `j` of this segment (j taken modulo S, so it never leaves the segment).
  DEEPSCOPE_HD int lane_of(int j) const { return base + (j & (S - 1)); }
};

// True when any word of the segment's number is non-zero.
template <int N, class W>
DEEPSCOPE_HD bool nonzero(const W& w, const Lane<N>& l, uint32_t word) {
  return l.bits(w.ballot(l.word() && word != 0)) != 0;
}

// The exact word k of sum_j t_j 2^(32 (N-1-j)) mod 2^(32N), where this thread holds t = t_k
// (t < 2^63, 0 on padding lanes). *carry_out (if given) gets the carry out of word 0.
template <int N, class W>
DEEPSCOPE_HD uint32_t normalize(const W& w, const Lane<N>& l, uint64_t t, uint32_t* carry_out = nullptr) {
  constexpr int S = Shape<N>::S;
  const uint32_t lo = static_cast<uint32_t>(t), hi = static_cast<uint32_t>(t >> 32);
  uint32_t in = w.shfl(hi, l.lane_of(l.k + 1));  // word k+1's high part lands on word k
  if (l.k + 1 >= N) in = 0;
  const uint64_t u = static_cast<uint64_t>(lo) + in;  // < 2^33: a carry of at most 1 remains
  const uint32_t word = static_cast<uint32_t>(u);
  const bool generate = l.word() && (u >> 32) != 0;
  const bool propagate = l.word() && word == 0xffffffffu;
  // Carry-lookahead with word k at bit S-1-k, so carries run from low bits to high bits.
  const uint64_t g = bit_reverse(l.bits(w.ballot(generate))) >> (32 - S);
  const uint64_t gp = g | (bit_reverse(l.bits(w.ballot(propagate))) >> (32 - S));
  const uint64_t carries = (g + gp) ^ g ^ gp;  // bit b: the carry into bit b
  if (carry_out) *carry_out = w.shfl(hi, l.base) + static_cast<uint32_t>((carries >> S) & 1u);
  return l.word() ? word + static_cast<uint32_t>((carries >> (S - 1 - l.k)) & 1u) : 0u;
}

// Limb<N>'s a + (b with sign b_neg), exact: returns word k of the result and its sign in *r_neg
// (limb_detail::add_signed: subtraction as A + ~B + 1, negated when there is no carry out).
template <int N, class W>
DEEPSCOPE_HD uint32_t add_signed(const W& w, const Lane<N>& l, uint32_t a, uint32_t a_neg, uint32_t b,
                                 uint32_t b_neg, uint32_t* r_neg) {
  const uint32_t sub = (a_neg ^ b_neg) & 1u;
  const uint32_t m = 0u - sub;
  uint64_t t = l.word() ? static_cast<uint64_t>(a) + (b ^ m) + (l.k == N - 1 ? sub : 0u) : 0u;
  uint32_t carry = 0;
  uint32_t r = normalize(w, l, t, &carry);
  const uint32_t flip = sub & ((carry & 1u) ^ 1u);
  const uint32_t fm = 0u - flip;
  t = l.word() ? static_cast<uint64_t>(r ^ fm) + (l.k == N - 1 ? flip : 0u) : 0u;
  r = normalize(w, l, t);
  *r_neg = ((a_neg ^ flip) & 1u) & (nonzero(w, l, r) ? 1u : 0u);
  return r;
}

// The correctly rounded double of the segment's number (limb_detail::magnitude_to_double).
template <int N, class W>
DEEPSCOPE_HD double to_double(const W& w, const Lane<N>& l, uint32_t word, uint32_t neg) {
  const uint32_t z = l.bits(w.ballot(l.word() && word != 0));
  const int lead = z ? lowest_set_bit(z) : 0;  // the leading non-zero word
  const uint32_t h = w.shfl(word, l.lane_of(lead));
  uint32_t mid = w.shfl(word, l.lane_of(lead + 1));
  uint32_t lo = w.shfl(word, l.lane_of(lead + 2));
  if (z == 0) return 0.0;
  if (lead + 1 >= N) mid = 0;
  if (lead + 2 >= N) lo = 0;
  const uint32_t sticky = (static_cast<uint64_t>(z) >> (lead + 3)) != 0 ? 1u : 0u;
  const int s = limb_detail::clz32(h);
  uint64_t top = ((static_cast<uint64_t>(h) << 32) | mid) << s;
  top |= s ? (lo >> (32 - s)) : 0;
  const uint32_t rest = s ? (lo << s) : lo;
  top |= (rest | sticky) != 0;
  const double v = ldexp(static_cast<double>(top), -32 - s - 32 * lead);
  return neg ? -v : v;
}

// The three products of an iteration, exactly as Limb<N>'s sqr(x), sqr(y) and x * y: thread k
// sums column k (partial products a_i b_j with i + j = k, 64-bit each) and thread N-1 also the
// high halves of column N; each column's 96-bit sum is split over words k, k-1, k-2 and resolved
// with normalize. sx, sy: the segment's words of x and y in shared memory.
template <int N, class W>
DEEPSCOPE_HD void products(const W& w, const Lane<N>& l, const uint32_t* sx, const uint32_t* sy, uint32_t* x2,
                           uint32_t* y2, uint32_t* xy) {
  // Low and high 32-bit halves of the partial products, summed separately (no overflow: < 2^39).
  uint64_t m_lo = 0, m_hi = 0;                               // x * y
  uint64_t xo_lo = 0, xo_hi = 0, xd_lo = 0, xd_hi = 0;       // x^2: off-diagonal, diagonal
  uint64_t yo_lo = 0, yo_hi = 0, yd_lo = 0, yd_hi = 0;       // y^2
  uint64_t m_n = 0, xo_n = 0, xd_n = 0, yo_n = 0, yd_n = 0;  // column N high halves
  const int k = l.k;
  DEEPSCOPE_UNROLL
  for (int i = 0; i < N; ++i) {
    const uint32_t xi = sx[i], yi = sy[i];
    const int j = k - i;
    if (l.word() && j >= 0) {
      const uint32_t xj = sx[j], yj = sy[j];
      const uint64_t pm = static_cast<uint64_t>(xi) * yj;
      m_lo += static_cast<uint32_t>(pm);
      m_hi += pm >> 32;
      if (i < j) {
        const uint64_t px = static_cast<uint64_t>(xi) * xj, py = static_cast<uint64_t>(yi) * yj;
        xo_lo += static_cast<uint32_t>(px);
        xo_hi += px >> 32;
        yo_lo += static_cast<uint32_t>(py);
        yo_hi += py >> 32;
      } else if (i == j) {
        const uint64_t px = static_cast<uint64_t>(xi) * xi, py = static_cast<uint64_t>(yi) * yi;
        xd_lo += static_cast<uint32_t>(px);
        xd_hi += px >> 32;
        yd_lo += static_cast<uint32_t>(py);
        yd_hi += py >> 32;
      }
    }
    if (k == N - 1 && i >= 1) {  // column N: i + (N - i) = N, only its high halves are kept
      const uint32_t xn = sx[N - i < N ? N - i : 0], yn = sy[N - i < N ? N - i : 0];
      m_n += limb_detail::mul_hi(xi, yn);
      if (i < N - i) {
        xo_n += limb_detail::mul_hi(xi, xn);
        yo_n += limb_detail::mul_hi(yi, yn);
      } else if (i == N - i) {
        xd_n += limb_detail::mul_hi(xi, xi);
        yd_n += limb_detail::mul_hi(yi, yi);
      }
    }
  }
  // Column k's value (lo + hi 2^32) for each product; word N-1 adds the column-N high halves.
  const uint64_t lows[3] = {m_lo + m_n, 2 * (xo_lo + xo_n) + xd_lo + xd_n, 2 * (yo_lo + yo_n) + yd_lo + yd_n};
  const uint64_t highs[3] = {m_hi, 2 * xo_hi + xd_hi, 2 * yo_hi + yd_hi};
  uint32_t out[3];
  DEEPSCOPE_UNROLL
  for (int q = 0; q < 3; ++q) {
    // The column as three words: c0 on word k, c1 on word k-1, c2 on word k-2.
    const uint32_t c0 = static_cast<uint32_t>(lows[q]);
    const uint64_t s = (lows[q] >> 32) + static_cast<uint32_t>(highs[q]);
    const uint32_t c1 = static_cast<uint32_t>(s);
    const uint32_t c2 = static_cast<uint32_t>(s >> 32) + static_cast<uint32_t>(highs[q] >> 32);
    uint32_t from1 = w.shfl(c1, l.lane_of(k + 1)), from2 = w.shfl(c2, l.lane_of(k + 2));
    if (k + 1 >= N) from1 = 0;
    if (k + 2 >= N) from2 = 0;
    const uint64_t t = l.word() ? static_cast<uint64_t>(c0) + from1 + from2 : 0u;
    out[q] = normalize(w, l, t);
  }
  *xy = out[0];
  *x2 = out[1];
  *y2 = out[2];
}

// The count and smooth count of pixel (i, j) by the segment that holds it; every thread of the
// warp calls this at once (each with its own segment's pixel; valid = false for a segment
// without one). sh: the segment's 2S words of shared memory. Same result as mandel_pixel (the
// error estimate's too: the same |z|^2, tested and propagated as bounded_step does).
template <int N, class W>
DEEPSCOPE_HD PixelResult coop_pixel(const W& w, const MandelParams<Limb<N>>& p, int i, int j, bool valid,
                                    uint32_t* sh) {
  constexpr int S = Shape<N>::S;
  const Lane<N> l(w.lane());
  const double kr = pixel_offset(i, p.width), ki = pixel_offset(j, p.height);
  const double cr_d = p.re_d + kr * p.half_step_d, ci_d = p.im_d - ki * p.half_step_d;
  PixelResult res = {0u, 0.0f};
  bool done = !valid;
  if (!done && cr_d * cr_d + ci_d * ci_d > 4.0) {
    res = {1u, smooth_tail(1u, cr_d, ci_d, cr_d, ci_d, wide_counts(p.max_iter))};
    done = true;
  }
  // c = centre + half_step * offset: Limb(offset) is one integer word, so the product is exact
  // (Limb<N>'s operator* keeps every partial product here) and each word is hs_k * |offset|.
  const uint32_t hs = l.word() ? p.half_step.w[l.k] : 0u;
  const uint32_t kr_neg = kr < 0 ? 1u : 0u, ki_neg = ki < 0 ? 1u : 0u;
  const uint32_t pr = normalize(w, l, static_cast<uint64_t>(hs) * static_cast<uint32_t>(kr < 0 ? -kr : kr));
  const uint32_t pi = normalize(w, l, static_cast<uint64_t>(hs) * static_cast<uint32_t>(ki < 0 ? -ki : ki));
  const uint32_t pr_neg = (p.half_step.neg ^ kr_neg) & (nonzero(w, l, pr) ? 1u : 0u);
  const uint32_t pi_neg = (p.half_step.neg ^ ki_neg) & (nonzero(w, l, pi) ? 1u : 0u);
  uint32_t cr_neg, ci_neg;
  const uint32_t cr = add_signed(w, l, l.word() ? p.re.w[l.k] : 0u, p.re.neg, pr, pr_neg, &cr_neg);
  const uint32_t ci = add_signed(w, l, l.word() ? p.im.w[l.k] : 0u, p.im.neg, pi, pi_neg ^ 1u, &ci_neg);

  uint32_t x = cr, x_neg = cr_neg, y = ci, y_neg = ci_neg;
  uint64_t n = 1;
  double e2 = p.bound_e1;  // the error estimate (mandelbrot.cuh, bounded_step), the same in every lane
  if (!done && n >= p.max_iter) {
    res = {p.max_iter, smooth_at_limit(p.max_iter)};
    done = true;
  }
  uint32_t polls = 0;  // the same in every lane: the stop poll is warp-uniform
  while (!w.all(done)) {
    if (w.any(p.stop.poll(polls))) return {0u, 0.0f};  // cancelled: the band is discarded
    sh[l.k] = x;
    sh[S + l.k] = y;
    w.sync();
    uint32_t x2, y2, xy;
    products(w, l, sh, sh + S, &x2, &y2, &xy);
    // Every lane takes part in every collective: no short-circuit around to_double.
    const double mag = to_double(w, l, x2, 0u) + to_double(w, l, y2, 0u);
    if (!done && p.error_bound && bound_undecided(mag, e2)) {
      res = {0u, 0.0f};  // undecided: re-decided by the host (recheck.cpp)
      done = true;
    }
    const bool escaping = !done && mag > 4.0;
    const uint32_t xy_neg = (x_neg ^ y_neg) & (nonzero(w, l, xy) ? 1u : 0u);
    uint32_t t_neg, yn_neg, d_neg, xn_neg;
    const uint32_t t = add_signed(w, l, xy, xy_neg, xy, xy_neg, &t_neg);  // xy + xy
    const uint32_t yn = add_signed(w, l, t, t_neg, ci, ci_neg, &yn_neg);  // + ci
    const uint32_t d = add_signed(w, l, x2, 0u, y2, 1u, &d_neg);          // x2 - y2
    const uint32_t xn = add_signed(w, l, d, d_neg, cr, cr_neg, &xn_neg);  // + cr
    if (w.any(escaping)) {
      const double zr = to_double(w, l, x, x_neg), zi = to_double(w, l, y, y_neg);
      if (escaping) {
        res = {n, smooth_tail(n, zr, zi, cr_d, ci_d, wide_counts(p.max_iter))};
        done = true;
      }
    }
    if (!done) {
      if (p.error_bound) e2 = bound_step(mag, e2, p.bound_q);
      x = xn;
      x_neg = xn_neg;
      y = yn;
      y_neg = yn_neg;
      if (++n >= p.max_iter) {
        res = {p.max_iter, smooth_at_limit(p.max_iter)};
        done = true;
      }
    }
    w.sync();  // every thread has read sh before the next iteration overwrites it
  }
  return res;
}

}  // namespace ds::mandel::coop
