// The hierarchical method of the TMD workspace's Lefèvre/regular search: one MPFR Taylor polynomial
// of degree 6 per packet of consecutive intervals, turned into the forward differences of each
// interval's degree-2 coefficients (lefevre.cuh, expand_packet), with the bounds that replace
// the per-interval Taylor remainder.
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "lefevre_internal.h"

namespace ds::tmd::lefevre_detail {
namespace {

constexpr int D = lb::kPacketDegree;
constexpr int kFracBits = 288;  // a Wide's fraction
// The differences are summed exactly in integers, in units of 2^-(288 + kGuard) (times N^-j for
// c_j); kGuard keeps their error below 2^-321 (make_packet).
constexpr int kGuard = 44;
constexpr int kFixBits = kFracBits + kGuard;
// The far end of the packet only gives its result binade and f^(D+1) / (D+1)!, a bound.
constexpr mpfr_prec_t kEndPrec = 64;

// Delta^l of C(j + m, j) k^m at k = 0 is C(j + m, j) l! S(m, l) (S: Stirling numbers of the second
// kind), so Delta^l c_j(0) = sum_m K[j][l][m] t_(j+m) N^m for c_j(k) = sum_m C(j + m, j) t_(j+m) (k N)^m.
struct DiffTable {
  unsigned long k[3][D + 1][D + 1] = {};  // [j][l][m]
  unsigned long max_row = 0;              // max over j, l of sum_m K[j][l][m]
};
constexpr DiffTable diff_table() {
  DiffTable t{};
  unsigned long S[D + 1][D + 1] = {};
  S[0][0] = 1;
  for (int m = 1; m <= D; ++m)
    for (int l = 1; l <= m; ++l) S[m][l] = static_cast<unsigned long>(l) * S[m - 1][l] + S[m - 1][l - 1];
  for (int j = 0; j < 3; ++j)
    for (int l = 0; l <= D; ++l) {
      unsigned long fact = 1, row = 0;
      for (int i = 2; i <= l; ++i) fact *= static_cast<unsigned long>(i);
      for (int m = l; m <= D - j; ++m) {
        const unsigned long c = j == 0 ? 1 : j == 1 ? m + 1 : (m + 1) * (m + 2) / 2;  // C(j + m, j)
        t.k[j][l][m] = c * fact * S[m][l];
        row += t.k[j][l][m];
      }
      t.max_row = std::max(t.max_row, row);
    }
  return t;
}
constexpr DiffTable kDiff = diff_table();
static_assert(kDiff.max_row < (1ul << 11), "the error bound in make_packet assumes rows below 2^11");

// f^(i)(X) / i! for i = 0 .. D + 1 and its scratch, at one precision (kept per thread: no allocation
// per packet).
struct Taylor {
  Mp c[D + 2], l, t;
  void set_prec(mpfr_prec_t prec) {
    if (mpfr_get_prec(l.v) == prec) return;
    for (auto& o : c) mpfr_set_prec(o.v, prec);
    mpfr_set_prec(l.v, prec);
    mpfr_set_prec(t.v, prec);
  }
};

// T.c[i] = f^(i)(X) / i! for i = 0 .. D + 1 at precision prec: f(X) rounded toward zero (so that
// its sign and exponent are f's: no rounding crosses a power of 2 upwards), the rest to nearest.
// Each c[i] is within a relative 2^(7 - prec) of its value: it takes at most 27 roundings (log's
// c[D + 1]: 1/x, 1/(x c), then three per order), each of relative error below 2^(1 - prec).
void taylor(Func fn, mpfr_srcptr X, mpfr_prec_t prec, Taylor& T) {
  T.set_prec(prec);
  auto& out = T.c;
  if (fn == Func::kExp || fn == Func::kExp2) {
    if (fn == Func::kExp) {
      mpfr_exp(out[0].v, X, MPFR_RNDZ);
    } else {
      mpfr_exp2(out[0].v, X, MPFR_RNDZ);
      mpfr_const_log2(T.l.v, MPFR_RNDN);
    }
    for (int i = 1; i <= D + 1; ++i) {  // f^(i)/i! = f^(i-1)/(i-1)! * c / i
      if (fn == Func::kExp) {
        mpfr_div_ui(out[i].v, out[i - 1].v, static_cast<unsigned long>(i), MPFR_RNDN);
      } else {
        mpfr_mul(out[i].v, out[i - 1].v, T.l.v, MPFR_RNDN);
        mpfr_div_ui(out[i].v, out[i].v, static_cast<unsigned long>(i), MPFR_RNDN);
      }
    }
    return;
  }
  // log: f^(i)/i! = (-1)^(i-1) / (i x^i); log2: the same / ln 2.
  mpfr_ui_div(T.t.v, 1, X, MPFR_RNDN);  // 1/x
  if (fn == Func::kLog) {
    mpfr_log(out[0].v, X, MPFR_RNDZ);
    mpfr_set(out[1].v, T.t.v, MPFR_RNDN);
  } else {
    mpfr_log2(out[0].v, X, MPFR_RNDZ);
    mpfr_const_log2(T.l.v, MPFR_RNDN);
    mpfr_div(out[1].v, T.t.v, T.l.v, MPFR_RNDN);
  }
  for (int i = 2; i <= D + 1; ++i) {  // from (1/x^(i-1)) / (i-1): times -(i-1)/(i x)
    mpfr_mul(out[i].v, out[i - 1].v, T.t.v, MPFR_RNDN);
    mpfr_mul_si(out[i].v, out[i].v, -(i - 1), MPFR_RNDN);
    mpfr_div_ui(out[i].v, out[i].v, static_cast<unsigned long>(i), MPFR_RNDN);
  }
}

double binom(int n, int k) {
  double r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

static_assert(GMP_LIMB_BITS == 64 && GMP_NAIL_BITS == 0, "to_wide reads 64-bit GMP limbs");

// A thread's working storage, kept across its packets (no allocation per packet): the Taylor
// coefficients at both ends, the scaled ones, and the integers of the differences.
struct Scratch {
  Taylor near, far;
  Mp t[D + 1], y;
  mpz_t z[D + 1], acc;
  Scratch() {
    for (auto& x : z) mpz_init2(x, 1024);
    mpz_init2(acc, 1024);
  }
  ~Scratch() {
    for (auto& x : z) mpz_clear(x);
    mpz_clear(acc);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

// floor(acc / 2^shift) mod 1 in 288 fraction bits, for shift <= 128: bits shift .. shift + 287 of
// acc in two's complement (the arithmetic shift right is the floor).
lb::Wide to_wide(mpz_srcptr acc, unsigned shift) {
  constexpr int kLimbs = (128 + kFracBits) / 64 + 2;
  uint64_t v[kLimbs];
  const mp_limb_t* a = mpz_limbs_read(acc);
  const std::size_t n = mpz_size(acc);
  const bool neg = mpz_sgn(acc) < 0;
  uint64_t carry = 1;  // -|acc| = ~|acc| + 1
  for (int i = 0; i < kLimbs; ++i) {
    const uint64_t m = static_cast<std::size_t>(i) < n ? a[i] : 0;
    if (neg) {
      v[i] = ~m + carry;
      carry = carry && v[i] == 0;
    } else {
      v[i] = m;
    }
  }
  lb::Wide r;
  r.neg = 0;
  r.w[0] = 0;
  for (int k = 0; k < kFracBits / 32; ++k) {  // w[9] is the least significant word
    const unsigned bit = shift + 32 * static_cast<unsigned>(k), limb = bit / 64, off = bit % 64;
    const unsigned __int128 x = v[limb] | (static_cast<unsigned __int128>(v[limb + 1]) << 64);
    r.w[9 - k] = static_cast<uint32_t>(x >> off);
  }
  return r;
}

}  // namespace

// Contract: pd.packet.d[j][l] is floor(2^288 Delta^l c_j(0)) mod 2^288 for the exact Taylor
// polynomial, except where 2^288 Delta^l c_j(0) lies within 2^-33 of an integer, where it may be
// one unit lower (error below 2^-320 before the truncation). Why: with N = 2^L, multiplying by
// 2^(kFixBits + j L) gives sum_m K[j][l][m] t_(j+m) 2^(kFixBits + (j+m) L), which is summed from the
// integers Z_i = round(t_i 2^(kFixBits + i L)). If |t_i 2^(i L)| < 2^(E+1) for all i and the
// precision is P >= E + kFixBits + 9, MPFR's relative error 2^(7-P) is at most 1/2 unit of Z_i and
// the rounding another 1/2, so the sum is off by at most max_row < 2^11 units, 2^(11 - 332) in the
// value. Y = |f| / ulp is below 2^p, so P = kFixBits + p + 10 (about 400 bits for p = 54) usually
// suffices at once; otherwise the coefficients are recomputed at the precision their size asks for.
PacketData make_packet(const LefevreParams& p, const Setup& s, int64_t first_interval, int64_t n_intervals,
                       int64_t N) {
  if (N < 1 || (N & (N - 1)) != 0) throw std::invalid_argument("make_packet: N must be a power of 2");
  int L = 0;
  while ((int64_t{1} << L) < N) ++L;
  if (L > 42) throw std::invalid_argument("make_packet: N above 2^42");  // to_wide: shift <= 128
  PacketData pd;
  pd.first_interval = first_interval;
  const int64_t first = first_interval * N;
  const int64_t span = std::min(n_intervals * N, static_cast<int64_t>(s.count) - first);  // arguments
  pd.packet.n = n_intervals;
  Mp X(80), XL(80);
  set_arg(X.v, s, s.i0 + static_cast<uint64_t>(first));
  set_arg(XL.v, s, s.i0 + static_cast<uint64_t>(first + span - 1));
  static thread_local Scratch scr;
  Taylor &t0 = scr.near, &t1 = scr.far;
  auto& t = scr.t;
  taylor(p.func, XL.v, kEndPrec, t1);
  mpfr_prec_t prec = kFixBits + p.precision + 10;
  long sc = 0;
  const long hx = s.E - s.p + 1;
  for (;;) {
    taylor(p.func, X.v, prec, t0);
    // f(X) and f(XL) rounded toward zero: their signs and exponents are exact.
    if (mpfr_zero_p(t0.c[0].v) || mpfr_zero_p(t1.c[0].v) || mpfr_sgn(t0.c[0].v) != mpfr_sgn(t1.c[0].v) ||
        mpfr_get_exp(t0.c[0].v) != mpfr_get_exp(t1.c[0].v)) {
      pd.direct = true;  // two result binades: per-interval polynomials
      return pd;
    }
    const long F = static_cast<long>(mpfr_get_exp(t0.c[0].v)) - 1;
    if (F < -126 || F > 127) {
      pd.direct = true;
      return pd;
    }
    sc = p.precision - 1 - F;
    // t_i: the Taylor coefficients of Y(x) = |f(X + x h)| / ulp in the argument offset x (exact
    // scaling and sign).
    long E = 0;
    for (int i = 0; i <= D; ++i) {
      if (mpfr_get_prec(t[i].v) != prec) mpfr_set_prec(t[i].v, prec);
      mpfr_mul_2si(t[i].v, t0.c[i].v, sc + i * hx, MPFR_RNDN);
      if (mpfr_sgn(t0.c[0].v) < 0) mpfr_neg(t[i].v, t[i].v, MPFR_RNDN);
      if (!mpfr_zero_p(t[i].v)) E = std::max(E, static_cast<long>(mpfr_get_exp(t[i].v)) + i * L);
    }
    // |exact| < 2^(E+1): the computed value's exponent, plus one for its error.
    const mpfr_prec_t need = static_cast<mpfr_prec_t>(E) + 1 + kFixBits + 8;
    if (prec >= need) break;
    prec = need + 16;
  }
  if (mpfr_get_prec(scr.y.v) != prec) mpfr_set_prec(scr.y.v, prec);
  for (int i = 0; i <= D; ++i) {
    mpfr_mul_2si(scr.y.v, t[i].v, kFixBits + i * L, MPFR_RNDN);  // exact
    mpfr_get_z(scr.z[i], scr.y.v, MPFR_RNDN);
  }
  for (int j = 0; j < 3; ++j)
    for (int l = 0; l <= D; ++l) {
      mpz_set_ui(scr.acc, 0);
      for (int m = l; m <= D - j; ++m) mpz_addmul_ui(scr.acc, scr.z[j + m], kDiff.k[j][l][m]);
      pd.packet.d[j][l] = to_wide(scr.acc, static_cast<unsigned>(kGuard + j * L));
    }
  double tabs[D + 1];
  for (int i = 0; i <= D; ++i) tabs[i] = std::fabs(mpfr_get_d(t[i].v, MPFR_RNDA));
  // Bounds in ulps: the packet's Taylor remainder (|f^(D+1)| / (D+1)! at the larger end, these
  // derivatives being monotone), |c_j(k)| <= C_j over the packet, and the terms j >= 3 that the
  // intervals' degree-2 polynomials leave out. The far end's value (64 bits, relative error below
  // 2^-57) and the near end's (2^(7 - prec)) are raised by 2^-50.
  const double s_args = static_cast<double>(span);
  const double m_next = std::max(std::fabs(mpfr_get_d(t0.c[D + 1].v, MPFR_RNDA)),
                                 std::fabs(mpfr_get_d(t1.c[D + 1].v, MPFR_RNDA))) *
                        (1 + 0x1p-50);
  const double rb = std::ldexp(m_next * std::pow(s_args, D + 1), static_cast<int>(sc + (D + 1) * hx));
  double cj[D + 1];
  for (int j = 0; j <= D; ++j) {
    cj[j] = 0;
    for (int i = j; i <= D; ++i) cj[j] += tabs[i] * binom(i, j) * std::pow(s_args, i - j);
  }
  double t3 = 0;
  for (int j = 3; j <= D; ++j) t3 += cj[j] * std::pow(static_cast<double>(N), j);
  pd.rem = (rb + t3) * (1 + 0x1p-20) + 0x1p-200;
  // c_2(k) = t_2 + (terms of t_3 .. t_D), whose magnitude is at most C_2 - |t_2|. The last term
  // (2^-50 C_2) covers a last-bit difference in t_2 or the tabs from the 800-bit code this replaced,
  // so that the interval contains the one it gave.
  const double t2 = mpfr_get_d(t[2].v, MPFR_RNDN),
               dev = (cj[2] - tabs[2]) * (1 + 0x1p-20) + tabs[2] * 0x1p-40 + cj[2] * 0x1p-50;
  pd.c2_lo = t2 - dev;
  pd.c2_hi = t2 + dev;
  return pd;
}

}  // namespace ds::tmd::lefevre_detail
