// Per-input math of the TMD workspace's exhaustive search (host + device, the same code on the CPU
// and the GPU): f(x) for a binary32 argument x in double-double (dd), and its distance to the
// nearest rounding breakpoint in units of the ulp of a precision-p result.
//
// Error bound (docs/tmd.md): every dd operation used here has a relative error <= 16 u^2
// (u = 2^-53; proved by Joldes, Muller, Popescu, ACM TOMS 2017 for add/mul; assumed, and checked by
// measurement, for QD's three-quotient division). Each
// evaluation is at most 200 such operations on well-conditioned quantities (alternating or positive
// series with decreasing terms, reductions without cancellation beyond a factor 4), so
// |computed - f(x)| <= 200 * 16 * 4 * u^2 |f(x)| < 2^-92.4 |f(x)|. The search uses the margin
// kRelErr = 2^-88 (16x above that), and tests measure the real error against MPFR. An argument is a
// candidate when its computed distance is below 2^-k ulp plus the margin, so no true hard case is
// missed; MPFR then decides every candidate.
#pragma once
#include <cmath>
#include <cstdint>

#include "arith/eft.h"
#include "arith/hd.h"
#include "types.h"

namespace ds::tmd {

namespace dev {

constexpr double kRelErr = 0x1p-88;  // bound used for |computed - f(x)| / |f(x)|

struct DD {
  double hi, lo;
};

DEEPSCOPE_HD DD dd_make(double a) { return DD{a, 0.0}; }

// AccurateDWPlusDW (JMP17 Algorithm 6): relative error <= 3u^2 + 13u^3.
DEEPSCOPE_HD DD dd_add(DD x, DD y) {
  double sh, sl, th, tl;
  eft::two_sum(x.hi, y.hi, sh, sl);
  eft::two_sum(x.lo, y.lo, th, tl);
  double c = sl + th;
  double vh, vl;
  eft::fast_two_sum(sh, c, vh, vl);
  double w = tl + vl;
  DD z;
  eft::fast_two_sum(vh, w, z.hi, z.lo);
  return z;
}
DEEPSCOPE_HD DD dd_neg(DD x) { return DD{-x.hi, -x.lo}; }
DEEPSCOPE_HD DD dd_sub(DD x, DD y) { return dd_add(x, dd_neg(y)); }

// DWPlusFP (JMP17 Algorithm 4): relative error <= 2u^2.
DEEPSCOPE_HD DD dd_add_d(DD x, double y) {
  double sh, sl;
  eft::two_sum(x.hi, y, sh, sl);
  double v = x.lo + sl;
  DD z;
  eft::fast_two_sum(sh, v, z.hi, z.lo);
  return z;
}

// DWTimesDW3 (JMP17 Algorithm 12, with FMA): relative error <= 4u^2.
DEEPSCOPE_HD DD dd_mul(DD x, DD y) {
  double ch, cl1;
  eft::two_prod(x.hi, y.hi, ch, cl1);
  double tl0 = x.lo * y.lo;
  double tl1 = eft::fma_rn(x.hi, y.lo, tl0);
  double cl2 = eft::fma_rn(x.lo, y.hi, tl1);
  double cl3 = cl1 + cl2;
  DD z;
  eft::fast_two_sum(ch, cl3, z.hi, z.lo);
  return z;
}

// DWTimesFP3 (JMP17 Algorithm 9, with FMA): relative error <= 2u^2.
DEEPSCOPE_HD DD dd_mul_d(DD x, double y) {
  double ch, cl1;
  eft::two_prod(x.hi, y, ch, cl1);
  double cl3 = eft::fma_rn(x.lo, y, cl1);
  DD z;
  eft::fast_two_sum(ch, cl3, z.hi, z.lo);
  return z;
}

// Division with three quotient digits (QD's accurate dd division): q1 + q2 + q3 renormalised.
DEEPSCOPE_HD DD dd_div(DD a, DD b) {
  double q1 = a.hi / b.hi;
  DD r = dd_sub(a, dd_mul_d(b, q1));
  double q2 = r.hi / b.hi;
  r = dd_sub(r, dd_mul_d(b, q2));
  double q3 = r.hi / b.hi;
  DD z;
  eft::fast_two_sum(q1, q2, z.hi, z.lo);
  return dd_add_d(z, q3);
}
DEEPSCOPE_HD DD dd_div_d(DD a, double b) { return dd_div(a, dd_make(b)); }

// Constants as unevaluated sums of doubles (from MPFR at 600 bits).
DEEPSCOPE_HD DD ln2_dd() { return DD{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56}; }
constexpr double kLn2Lo2 = 0x1.7b57a079a1934p-111;
DEEPSCOPE_HD DD pio2_dd() { return DD{0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54}; }
DEEPSCOPE_HD DD inv_ln2_dd() { return DD{0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56}; }

// exp(r) for |r| <= 0.35 by the nested Taylor form 1 + r(1 + r/2(1 + r/3(...))) to degree 24
// (truncation < 0.35^25/25! < 2^-120).
DEEPSCOPE_HD DD exp_small(DD r) {
  DD t = dd_make(1.0);
  for (int k = 24; k >= 1; --k) t = dd_add_d(dd_div_d(dd_mul(r, t), static_cast<double>(k)), 1.0);
  return t;
}

// sin(r), cos(r) for |r| <= pi/4 + 2^-20, nested Taylor forms to degree 31 and 30
// (truncation < 0.8^31/31! < 2^-120).
DEEPSCOPE_HD DD sin_small(DD r) {
  DD z = dd_mul(r, r);
  DD t = dd_make(1.0);
  for (int k = 30; k >= 2; k -= 2)
    t = dd_sub(dd_make(1.0), dd_div_d(dd_mul(z, t), static_cast<double>(k) * (k + 1)));
  return dd_mul(r, t);
}
DEEPSCOPE_HD DD cos_small(DD r) {
  DD z = dd_mul(r, r);
  DD t = dd_make(1.0);
  for (int k = 29; k >= 1; k -= 2)
    t = dd_sub(dd_make(1.0), dd_div_d(dd_mul(z, t), static_cast<double>(k) * (k + 1)));
  return t;
}

// log(m) for m in [sqrt(1/2), sqrt(2)): 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716, series
// s (1 + s^2/3 + s^4/5 + ...) to s^43 (truncation < 0.1716^44 < 2^-111), positive terms.
DEEPSCOPE_HD DD log_mid(double m) {
  DD s = dd_div(dd_make(m - 1.0), dd_make(m + 1.0));  // m - 1 and m + 1 are exact
  DD z = dd_mul(s, s);
  DD t = dd_div_d(dd_make(1.0), 43.0);
  for (int j = 41; j >= 1; j -= 2) t = dd_add(dd_div_d(dd_make(1.0), static_cast<double>(j)), dd_mul(z, t));
  return dd_mul_d(dd_mul(s, t), 2.0);
}

// Bits of 2/pi: 2/pi = sum_j kTwoOverPi[j] 2^(-32 (j+1)).
DEEPSCOPE_HD uint32_t two_over_pi_word(int j) {
  constexpr uint32_t w[12] = {0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u, 0x3C439041u,
                              0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu};
  return w[j];
}

// Bits [pos, pos + 32) of the little-endian multiword integer P (zeros outside).
DEEPSCOPE_HD uint32_t bits32(const uint32_t* P, int nwords, int pos) {
  uint64_t v = 0;
  for (int k = 0; k < 2; ++k) {  // words covering pos .. pos + 63
    const int w = (pos >= 0 ? pos / 32 : -((-pos + 31) / 32)) + k;
    const uint64_t word = (w >= 0 && w < nwords) ? P[w] : 0u;
    v |= word << (32 * k);
  }
  const int sh = pos - 32 * (pos >= 0 ? pos / 32 : -((-pos + 31) / 32));
  return static_cast<uint32_t>(v >> sh);
}

// Payne-Hanek reduction of |x| = M 2^E (M < 2^24 an integer, |x| >= pi/4): |x| = (q + s f) pi/2
// with q mod 4 in *q, s f in [-1/2, 1/2] returned as dd. The product M * (a 256-bit window of
// 2/pi) is exact; the bits left out change f by less than 2^-199. *tiny is set when |f| < 2^-90
// (the dd relative error bound would not hold; such arguments become candidates).
DEEPSCOPE_HD DD reduce_pio2(uint32_t M, int E, int* q, bool* tiny) {
  const int ja = E >= 2 ? (E - 2) / 32 : 0;
  uint32_t P[9];
  uint64_t carry = 0;
  for (int i = 0; i < 8; ++i) {  // word i of the window, least significant first: index ja + 7 - i
    const uint64_t t = static_cast<uint64_t>(M) * two_over_pi_word(ja + 7 - i) + carry;
    P[i] = static_cast<uint32_t>(t);
    carry = t >> 32;
  }
  P[8] = static_cast<uint32_t>(carry);
  // value = P * 2^S, S = E - 32 (ja + 8); the unit bit sits at index -S of P.
  const int unit = 32 * (ja + 8) - E;
  int qq = static_cast<int>(bits32(P, 9, unit) & 3u);
  uint32_t f[6];  // fraction bits, most significant first: f[0] = bits [unit-32, unit)
  for (int i = 0; i < 6; ++i) f[i] = bits32(P, 9, unit - 32 * (i + 1));
  double sign = 1.0;
  if (f[0] & 0x80000000u) {  // fraction >= 1/2: take 1 - fraction, one more quarter turn
    qq = (qq + 1) & 3;
    sign = -1.0;
    uint64_t c = 1;
    for (int i = 5; i >= 0; --i) {
      const uint64_t t = static_cast<uint64_t>(~f[i]) + c;
      f[i] = static_cast<uint32_t>(t);
      c = t >> 32;
    }
  }
  DD r = dd_make(0.0);
  for (int i = 5; i >= 0; --i) r = dd_add_d(r, std::ldexp(static_cast<double>(f[i]), -32 * (i + 1)));
  *tiny = r.hi < 0x1p-90;
  *q = qq;
  r = dd_mul(r, pio2_dd());
  return DD{sign * r.hi, sign * r.lo};
}

// Evaluation status of one argument.
enum : int32_t { kEvalOk = 0, kEvalSkip = 1, kEvalForce = 2 };

struct Eval {
  int32_t status;
  double dist;  // signed distance to the nearest breakpoint, in ulps of the precision-p result
};

// f(x) in dd. Sets *ok = false where f(x) is not a finite non-zero number or x is outside the
// domain handled (the caller skips those).
DEEPSCOPE_HD DD eval_dd(Func fn, float x, bool* ok, bool* force) {
  *ok = true;
  *force = false;
  const double xd = x;
  switch (fn) {
    case Func::kExp: {
      if (!(std::fabs(xd) < 200.0)) break;
      const double n = std::nearbyint(xd * 0x1.71547652b82fep+0);
      DD nl2 = dd_add_d(dd_mul_d(ln2_dd(), n), n * kLn2Lo2);
      DD r = dd_sub(dd_make(xd), nl2);
      DD e = exp_small(r);
      const int ni = static_cast<int>(n);
      return DD{std::ldexp(e.hi, ni), std::ldexp(e.lo, ni)};
    }
    case Func::kExp2: {
      if (!(std::fabs(xd) < 200.0)) break;
      const double n = std::nearbyint(xd);
      DD r = dd_mul_d(ln2_dd(), xd - n);  // xd - n is exact, |xd - n| <= 1/2
      DD e = exp_small(r);
      const int ni = static_cast<int>(n);
      return DD{std::ldexp(e.hi, ni), std::ldexp(e.lo, ni)};
    }
    case Func::kLog:
    case Func::kLog2: {
      if (!(xd > 0.0) || std::isinf(xd)) break;
      int e2;
      double m = std::frexp(xd, &e2);  // m in [1/2, 1)
      if (m < 0.70710678118654752) {
        m *= 2.0;
        e2 -= 1;
      }
      DD lm = log_mid(m);
      if (fn == Func::kLog) {
        DD el = dd_add_d(dd_mul_d(ln2_dd(), e2), e2 * kLn2Lo2);
        return dd_add(el, lm);
      }
      return dd_add_d(dd_mul(lm, inv_ln2_dd()), static_cast<double>(e2));
    }
    case Func::kSin:
    case Func::kCos: {
      if (std::isinf(xd) || std::isnan(xd)) break;
      const double ax = std::fabs(xd);
      int q = 0;
      DD r;
      if (ax < 0.78539816339744828) {
        r = dd_make(ax);
      } else {
        int e2;
        const double m = std::frexp(ax, &e2);  // ax = m 2^e2, m in [1/2, 1)
        const uint32_t M = static_cast<uint32_t>(std::ldexp(m, 24));
        bool tiny = false;
        r = reduce_pio2(M, e2 - 24, &q, &tiny);
        *force = tiny;
      }
      const bool use_sin = (fn == Func::kSin) == ((q & 1) == 0);
      DD v = use_sin ? sin_small(r) : cos_small(r);
      bool neg = (fn == Func::kSin) ? (q >= 2) : (q == 1 || q == 2);
      if (fn == Func::kSin && xd < 0) neg = !neg;
      return neg ? dd_neg(v) : v;
    }
  }
  *ok = false;
  return dd_make(0.0);
}

// The distance of f(x) to the nearest breakpoint of a precision-p result (p in [8, 24]), in ulps:
// midpoints for nearest, representable numbers for directed. Skips arguments that are not
// precision-p binary32 numbers (for p < 24: normal, with the low 24 - p significand bits zero), and
// results outside the normal binary32 range or not finite and non-zero.
DEEPSCOPE_HD Eval evaluate(Func fn, Mode mode, int p, uint32_t bits) {
  Eval out{kEvalSkip, 0.0};
  const uint32_t ex = (bits >> 23) & 0xFFu;
  if (ex == 0xFFu) return out;
  if (p < 24 && (ex == 0u || (bits & ((1u << (24 - p)) - 1u)) != 0u)) return out;
  float x;
  {
    union {
      uint32_t u;
      float f;
    } c;
    c.u = bits;
    x = c.f;
  }
  bool ok, force;
  DD v = eval_dd(fn, x, &ok, &force);
  if (!ok || v.hi == 0.0 || std::isnan(v.hi) || std::isinf(v.hi)) return out;
  double hi = std::fabs(v.hi), lo = v.hi < 0 ? -v.lo : v.lo;
  int e2;
  const double m = std::frexp(hi, &e2);
  int e = e2 - 1;  // |f(x)| in [2^e, 2^(e+1)) unless hi is a power of 2 and lo < 0
  if (m == 0.5 && lo < 0) e -= 1;
  if (!result_in_range(p, e)) return out;
  const double yh = std::ldexp(hi, p - 1 - e), yl = std::ldexp(lo, p - 1 - e);
  const double fh = yh - std::floor(yh);  // exact
  double d;
  if (mode == Mode::kNearest) {
    d = (fh - 0.5) + yl;
  } else {
    const double d0 = fh + yl, d1 = (fh - 1.0) + yl;
    d = std::fabs(d0) < std::fabs(d1) ? d0 : d1;
  }
  out.status = force ? kEvalForce : kEvalOk;
  out.dist = d;
  return out;
}

// The candidate threshold in ulps for 2^-k: 2^-k plus the evaluation margin kRelErr * 2^p (results
// are below 2^p ulps), widened by 2^-50 relative for the rounding of the distance itself.
DEEPSCOPE_HD double candidate_threshold(int p, int k) {
  return (std::ldexp(1.0, -k) + std::ldexp(kRelErr, p)) * (1.0 + 0x1p-50);
}

DEEPSCOPE_HD bool is_candidate(const Eval& e, double thr) {
  return e.status == kEvalForce || (e.status == kEvalOk && std::fabs(e.dist) < thr);
}

}  // namespace dev
}  // namespace ds::tmd
