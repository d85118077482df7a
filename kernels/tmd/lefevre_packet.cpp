// The hierarchical method of the TMD workspace's Lefèvre/regular search: one MPFR Taylor polynomial
// of degree 6 per packet of consecutive intervals, turned into the forward differences of each
// interval's degree-2 coefficients (lefevre.cuh, expand_packet), with the bounds that replace
// the per-interval Taylor remainder.
#include <mpfr.h>

#include <algorithm>
#include <cmath>

#include "lefevre_internal.h"

namespace ds::tmd::lefevre_detail {
namespace {

constexpr int D = lb::kPacketDegree;
constexpr mpfr_prec_t kWork = 800;

lb::Wide to_wide(mpfr_srcptr y) {  // y mod 1 truncated to 288 bits
  Mp t(kWork), f(kWork);
  mpfr_floor(t.v, y);
  mpfr_sub(f.v, y, t.v, MPFR_RNDN);  // exact
  mpfr_mul_2ui(f.v, f.v, 288, MPFR_RNDN);
  mpz_t z;
  mpz_init(z);
  mpfr_get_z(z, f.v, MPFR_RNDZ);
  lb::Wide r;
  r.neg = 0;
  r.w[0] = 0;
  for (int i = 9; i >= 1; --i) {
    r.w[i] = static_cast<uint32_t>(mpz_get_ui(z) & 0xffffffffu);
    mpz_tdiv_q_2exp(z, z, 32);
  }
  mpz_clear(z);
  return r;
}

// f^(i)(X) / i! for i = 0 .. D + 1, into out[i] (precision kWork).
void taylor(Func fn, mpfr_srcptr X, Mp (&out)[D + 2]) {
  Mp l(kWork), t(kWork);
  if (fn == Func::kExp || fn == Func::kExp2) {
    if (fn == Func::kExp) {
      mpfr_exp(out[0].v, X, MPFR_RNDN);
      mpfr_set_ui(l.v, 1, MPFR_RNDN);
    } else {
      mpfr_exp2(out[0].v, X, MPFR_RNDN);
      mpfr_const_log2(l.v, MPFR_RNDN);
    }
    for (int i = 1; i <= D + 1; ++i) {  // f^(i)/i! = f^(i-1)/(i-1)! * c / i
      mpfr_mul(out[i].v, out[i - 1].v, l.v, MPFR_RNDN);
      mpfr_div_ui(out[i].v, out[i].v, static_cast<unsigned long>(i), MPFR_RNDN);
    }
    return;
  }
  // log: f^(i)/i! = (-1)^(i-1) / (i x^i); log2: the same / ln 2.
  if (fn == Func::kLog) {
    mpfr_log(out[0].v, X, MPFR_RNDN);
    mpfr_set_ui(l.v, 1, MPFR_RNDN);
  } else {
    mpfr_log2(out[0].v, X, MPFR_RNDN);
    mpfr_const_log2(l.v, MPFR_RNDN);
  }
  mpfr_ui_div(t.v, 1, X, MPFR_RNDN);  // 1/x
  mpfr_div(out[1].v, t.v, l.v, MPFR_RNDN);
  for (int i = 2; i <= D + 1; ++i) {  // from (1/x^(i-1)) / (i-1): times -(i-1)/(i x)
    mpfr_mul(out[i].v, out[i - 1].v, t.v, MPFR_RNDN);
    mpfr_mul_si(out[i].v, out[i].v, -(i - 1), MPFR_RNDN);
    mpfr_div_ui(out[i].v, out[i].v, static_cast<unsigned long>(i), MPFR_RNDN);
  }
}

double binom(int n, int k) {
  double r = 1;
  for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

}  // namespace

PacketData make_packet(const LefevreParams& p, const Setup& s, int64_t first_interval, int64_t n_intervals,
                       int64_t N) {
  PacketData pd;
  pd.first_interval = first_interval;
  const int64_t first = first_interval * N;
  const int64_t span = std::min(n_intervals * N, static_cast<int64_t>(s.count) - first);  // arguments
  pd.packet.n = n_intervals;
  Mp X(80), XL(80);
  set_arg(X.v, s, s.i0 + static_cast<uint64_t>(first));
  set_arg(XL.v, s, s.i0 + static_cast<uint64_t>(first + span - 1));
  Mp t0[D + 2], t1[D + 2];
  taylor(p.func, X.v, t0);
  taylor(p.func, XL.v, t1);
  if (mpfr_zero_p(t0[0].v) || mpfr_zero_p(t1[0].v) || mpfr_sgn(t0[0].v) != mpfr_sgn(t1[0].v) ||
      mpfr_get_exp(t0[0].v) != mpfr_get_exp(t1[0].v)) {
    pd.direct = true;  // two result binades: per-interval polynomials
    return pd;
  }
  const long F = static_cast<long>(mpfr_get_exp(t0[0].v)) - 1;
  if (F < -126 || F > 127) {
    pd.direct = true;
    return pd;
  }
  const long sc = p.precision - 1 - F, hx = s.E - s.p + 1;
  const int sign = mpfr_sgn(t0[0].v) < 0 ? -1 : 1;
  // t_i: the Taylor coefficients of Y(x) = |f(X + x h)| / ulp in the argument offset x.
  Mp t[D + 1];
  double tabs[D + 1];
  for (int i = 0; i <= D; ++i) {
    mpfr_mul_2si(t[i].v, t0[i].v, sc + i * hx, MPFR_RNDN);
    if (sign < 0) mpfr_neg(t[i].v, t[i].v, MPFR_RNDN);
    tabs[i] = std::fabs(mpfr_get_d(t[i].v, MPFR_RNDA));
  }
  // c_j(k) = sum_{i >= j} t_i C(i, j) (k N)^(i - j) at k = 0 .. D - j, then forward differences.
  Mp v[D + 1], kn(kWork), pw(kWork), term(kWork);
  for (int j = 0; j < 3; ++j) {
    const int deg = D - j;
    for (int k = 0; k <= deg; ++k) {
      mpfr_set_zero(v[k].v, 1);
      mpfr_set_si(kn.v, k, MPFR_RNDN);
      mpfr_mul_si(kn.v, kn.v, static_cast<long>(N), MPFR_RNDN);
      mpfr_set_ui(pw.v, 1, MPFR_RNDN);
      for (int i = j; i <= D; ++i) {  // pw = (k N)^(i - j)
        mpfr_mul_d(term.v, t[i].v, binom(i, j), MPFR_RNDN);
        mpfr_mul(term.v, term.v, pw.v, MPFR_RNDN);
        mpfr_add(v[k].v, v[k].v, term.v, MPFR_RNDN);
        mpfr_mul(pw.v, pw.v, kn.v, MPFR_RNDN);
      }
    }
    for (int i = 0; i <= D; ++i) {
      if (i <= deg) {
        pd.packet.d[j][i] = to_wide(v[0].v);
        for (int k = 0; k < deg - i; ++k) mpfr_sub(v[k].v, v[k + 1].v, v[k].v, MPFR_RNDN);
      } else {
        lb::Wide z;
        z.neg = 0;
        for (auto& w : z.w) w = 0;
        pd.packet.d[j][i] = z;
      }
    }
  }
  // Bounds in ulps: the packet's Taylor remainder (|f^(D+1)| / (D+1)! at the larger end, these
  // derivatives being monotone), |c_j(k)| <= C_j over the packet, and the terms j >= 3 that the
  // intervals' degree-2 polynomials leave out.
  const double s_args = static_cast<double>(span);
  const double m_next =
      std::max(std::fabs(mpfr_get_d(t0[D + 1].v, MPFR_RNDA)), std::fabs(mpfr_get_d(t1[D + 1].v, MPFR_RNDA)));
  const double rb = std::ldexp(m_next * std::pow(s_args, D + 1), static_cast<int>(sc + (D + 1) * hx));
  double cj[D + 1];
  for (int j = 0; j <= D; ++j) {
    cj[j] = 0;
    for (int i = j; i <= D; ++i) cj[j] += tabs[i] * binom(i, j) * std::pow(s_args, i - j);
  }
  double t3 = 0;
  for (int j = 3; j <= D; ++j) t3 += cj[j] * std::pow(static_cast<double>(N), j);
  pd.rem = (rb + t3) * (1 + 0x1p-20) + 0x1p-200;
  // c_2(k) = t_2 + (terms of t_3 .. t_D), whose magnitude is at most C_2 - |t_2|.
  const double t2 = mpfr_get_d(t[2].v, MPFR_RNDN),
               dev = (cj[2] - tabs[2]) * (1 + 0x1p-20) + tabs[2] * 0x1p-40;
  pd.c2_lo = t2 - dev;
  pd.c2_hi = t2 + dev;
  return pd;
}

}  // namespace ds::tmd::lefevre_detail
