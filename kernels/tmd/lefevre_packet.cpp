// The hierarchical method of the TMD workspace's Lefèvre/regular search: one MPFR Taylor polynomial
// of degree 6 per packet of consecutive intervals, turned into the forward differences of each
// interval's degree-2 coefficients (lefevre.cuh, expand_packet), with the bounds that replace
// the per-interval Taylor remainder. Runs of consecutive packets share their ends (make_packets).
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
// c_j); kGuard keeps their error below 2^-320 (fill).
constexpr int kGuard = 44;
constexpr int kFixBits = kFracBits + kGuard;
// The far end of the packet only gives its result binade and f^(D+1) / (D+1)!, a bound.
constexpr mpfr_prec_t kEndPrec = 64;
// make_packets derives exp and exp2 at each end from the previous one by one product, restarting
// from MPFR's function after kChain products: f(X) then carries at most 2 kChain + 1 roundings
// (f(H)'s and the product's, per product), and with the derivatives' at most 27 more, 60 < 2^7
// roundings of relative error below 2^(1 - P) each: a relative error below 2^(8 - P).
constexpr int kChain = 16;
static_assert(2 * kChain + 1 + 27 < 128, "the chained coefficients' error bound");

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

bool exp_like(Func fn) { return fn == Func::kExp || fn == Func::kExp2; }

// T.c[1 .. D + 1] = f^(i)(X) / i! from T.c[0] = f(X) (exp, exp2) or from X (log, log2), to nearest.
void higher_orders(Func fn, mpfr_srcptr X, Taylor& T) {
  auto& out = T.c;
  if (exp_like(fn)) {
    if (fn == Func::kExp2) mpfr_const_log2(T.l.v, MPFR_RNDN);
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
    mpfr_set(out[1].v, T.t.v, MPFR_RNDN);
  } else {
    mpfr_const_log2(T.l.v, MPFR_RNDN);
    mpfr_div(out[1].v, T.t.v, T.l.v, MPFR_RNDN);
  }
  for (int i = 2; i <= D + 1; ++i) {  // from (1/x^(i-1)) / (i-1): times -(i-1)/(i x)
    mpfr_mul(out[i].v, out[i - 1].v, T.t.v, MPFR_RNDN);
    mpfr_mul_si(out[i].v, out[i].v, -(i - 1), MPFR_RNDN);
    mpfr_div_ui(out[i].v, out[i].v, static_cast<unsigned long>(i), MPFR_RNDN);
  }
}

// T.c[i] = f^(i)(X) / i! for i = 0 .. D + 1 at precision prec: f(X) rounded toward zero (so that
// its sign and exponent are f's: no rounding crosses a power of 2 upwards), the rest to nearest.
// Each c[i] is within a relative 2^(7 - prec) of its value: it takes at most 27 roundings (log's
// c[D + 1]: 1/x, 1/(x c), then three per order), each of relative error below 2^(1 - prec).
void taylor(Func fn, mpfr_srcptr X, mpfr_prec_t prec, Taylor& T) {
  T.set_prec(prec);
  switch (fn) {
    case Func::kExp:
      mpfr_exp(T.c[0].v, X, MPFR_RNDZ);
      break;
    case Func::kExp2:
      mpfr_exp2(T.c[0].v, X, MPFR_RNDZ);
      break;
    case Func::kLog:
      mpfr_log(T.c[0].v, X, MPFR_RNDZ);
      break;
    default:
      mpfr_log2(T.c[0].v, X, MPFR_RNDZ);
      break;
  }
  higher_orders(fn, X, T);
}

// True when |y| lies within a relative 2^-41 of a power of 2: a value with a relative error far
// below that and not near one has the exponent of the exact value.
bool near_power_of_2(mpfr_srcptr y) {
  long e = 0;
  const double m = std::fabs(mpfr_get_d_2exp(&e, y, MPFR_RNDN));  // in [1/2, 1]
  return m < 0.5 + 0x1p-41 || m > 1 - 0x1p-41;
}

// f(X) and f(X') are nonzero, of the same sign and exponent (exact at both: see taylor).
bool same_binade(mpfr_srcptr a, mpfr_srcptr b) {
  return !mpfr_zero_p(a) && !mpfr_zero_p(b) && mpfr_sgn(a) == mpfr_sgn(b) &&
         mpfr_get_exp(a) == mpfr_get_exp(b);
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
  Taylor ends[2], far, single;
  Mp t[D + 1], X[2], XL, H, eh;
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

// What a packet needs of its far end: whether f there lies in the near end's binade (nonzero, same
// sign and exponent), and a bound on |f^(D+1)| / (D+1)! there.
struct FarEnd {
  bool same = false;
  double m = 0;
};

// The far end at the packet's last argument XL, at 64 bits: an exact binade, and |f^(D+1)| / (D+1)!
// within 2^-57 (27 roundings), raised by 2^-50.
FarEnd far_end(Func fn, mpfr_srcptr XL, mpfr_srcptr near_f, Taylor& T) {
  taylor(fn, XL, kEndPrec, T);
  return {same_binade(near_f, T.c[0].v), std::fabs(mpfr_get_d(T.c[D + 1].v, MPFR_RNDA)) * (1 + 0x1p-50)};
}

// The packet from its near end's coefficients (precision prec, each within a relative 2^(8 - prec),
// f's sign and exponent exact) and its far end; false, with the precision they need in *need, when
// prec is too low for them. Contract: pd.packet.d[j][l] is floor(2^288 v) mod 2^288 for a v within
// 2^-320 of Delta^l c_j(0), that of the exact Taylor polynomial (so the exact difference truncated,
// or one unit of 2^-288 from it where it lies within 2^-32 units of a multiple of 2^-288). Why: with
// N = 2^L, 2^(kFixBits + j L) Delta^l c_j(0) = sum_m K[j][l][m] t_(j+m) 2^(kFixBits + (j+m) L), summed
// exactly from the integers Z_i = round(t_i 2^(kFixBits + i L)) of the computed t_i. If
// |t_i 2^(i L)| < 2^(E+1) for all i and P >= E + kFixBits + 10, the relative error 2^(8-P) is at
// most 1/2 unit of Z_i and the rounding another 1/2, so the sum is off by at most max_row < 2^11
// units, 2^(11 - 332) in the value.
// Y = |f| / ulp is below 2^p, so P = kFixBits + p + 11 (about 400 bits for p = 54) usually suffices.
bool fill(const LefevreParams& p, const Setup& s, int64_t span, int64_t N, int L, const Taylor& near,
          const FarEnd& far, mpfr_prec_t prec, Scratch& scr, PacketData* pd, mpfr_prec_t* need) {
  const mpfr_srcptr f0 = near.c[0].v;
  if (!far.same || mpfr_zero_p(f0)) {
    pd->direct = true;  // two result binades: per-interval polynomials
    return true;
  }
  const long F = static_cast<long>(mpfr_get_exp(f0)) - 1;
  if (!result_in_range(p.precision, F)) {
    pd->direct = true;
    return true;
  }
  const long sc = p.precision - 1 - F, hx = s.E - s.p + 1;
  // t_i: the Taylor coefficients of Y(x) = |f(X + x h)| / ulp in the argument offset x (exact
  // scaling and sign).
  auto& t = scr.t;
  long E = 0;
  for (int i = 0; i <= D; ++i) {
    if (mpfr_get_prec(t[i].v) != prec) mpfr_set_prec(t[i].v, prec);
    mpfr_mul_2si(t[i].v, near.c[i].v, sc + i * hx, MPFR_RNDN);
    if (mpfr_sgn(f0) < 0) mpfr_neg(t[i].v, t[i].v, MPFR_RNDN);
    if (!mpfr_zero_p(t[i].v)) E = std::max(E, static_cast<long>(mpfr_get_exp(t[i].v)) + i * L);
  }
  // |exact| < 2^(E+1): the computed value's exponent, plus one for its error.
  *need = static_cast<mpfr_prec_t>(E) + 1 + kFixBits + 9;
  if (prec < *need) return false;
  for (int i = 0; i <= D; ++i) {
    const long sh = static_cast<long>(mpfr_get_z_2exp(scr.z[i], t[i].v)) + kFixBits + i * L;  // t = z 2^e
    if (sh >= 0) {
      mpz_mul_2exp(scr.z[i], scr.z[i], static_cast<unsigned long>(sh));
    } else {  // round half up: floor((floor(z / 2^(k-1)) + 1) / 2)
      mpz_fdiv_q_2exp(scr.z[i], scr.z[i], static_cast<unsigned long>(-sh - 1));
      mpz_add_ui(scr.z[i], scr.z[i], 1);
      mpz_fdiv_q_2exp(scr.z[i], scr.z[i], 1);
    }
  }
  for (int j = 0; j < 3; ++j)
    for (int l = 0; l <= D; ++l) {
      mpz_set_ui(scr.acc, 0);
      for (int m = l; m <= D - j; ++m) mpz_addmul_ui(scr.acc, scr.z[j + m], kDiff.k[j][l][m]);
      pd->packet.d[j][l] = to_wide(scr.acc, static_cast<unsigned>(kGuard + j * L));
    }
  // Bounds in ulps: the packet's Taylor remainder (|f^(D+1)| / (D+1)! at the larger end, these
  // derivatives being monotone), |c_j(k)| <= C_j over the packet, and the terms j >= 3 that the
  // intervals' degree-2 polynomials leave out. The powers are products of doubles (relative error
  // below 2^-49, inside the 2^-20 margin).
  double tabs[D + 1], sp[D + 2], np[D + 1];
  sp[0] = np[0] = 1;
  for (int i = 1; i <= D + 1; ++i) sp[i] = sp[i - 1] * static_cast<double>(span);
  for (int i = 1; i <= D; ++i) np[i] = np[i - 1] * static_cast<double>(N);  // exact
  for (int i = 0; i <= D; ++i) tabs[i] = std::fabs(mpfr_get_d(t[i].v, MPFR_RNDA));
  const double m_next = std::max(std::fabs(mpfr_get_d(near.c[D + 1].v, MPFR_RNDA)) * (1 + 0x1p-50), far.m);
  const double rb = std::ldexp(m_next * sp[D + 1], static_cast<int>(sc + (D + 1) * hx));
  double cj[D + 1];
  for (int j = 0; j <= D; ++j) {
    cj[j] = 0;
    for (int i = j; i <= D; ++i) cj[j] += tabs[i] * binom(i, j) * sp[i - j];
  }
  double t3 = 0;
  for (int j = 3; j <= D; ++j) t3 += cj[j] * np[j];
  pd->rem = (rb + t3) * (1 + 0x1p-20) + 0x1p-200;
  // c_2(k) = t_2 + (terms of t_3 .. t_D), whose magnitude is at most C_2 - |t_2|. The last term
  // (2^-50 C_2) covers a last-bit difference in t_2 or the tabs from the 800-bit code this replaced,
  // so that the interval contains the one it gave.
  const double t2 = mpfr_get_d(t[2].v, MPFR_RNDN),
               dev = (cj[2] - tabs[2]) * (1 + 0x1p-20) + tabs[2] * 0x1p-40 + cj[2] * 0x1p-50;
  pd->c2_lo = t2 - dev;
  pd->c2_hi = t2 + dev;
  return true;
}

int log2_of(int64_t N) {
  if (N < 1 || (N & (N - 1)) != 0) throw std::invalid_argument("make_packet: N must be a power of 2");
  int L = 0;
  while ((int64_t{1} << L) < N) ++L;
  if (L > 42) throw std::invalid_argument("make_packet: N above 2^42");  // to_wide: shift <= 128
  return L;
}

Scratch& scratch() {
  static thread_local Scratch scr;
  return scr;
}

}  // namespace

PacketData make_packet(const LefevreParams& p, const Setup& s, int64_t first_interval, int64_t n_intervals,
                       int64_t N) {
  const int L = log2_of(N);
  Scratch& scr = scratch();
  PacketData pd;
  pd.first_interval = first_interval;
  pd.packet.n = n_intervals;
  const int64_t first = first_interval * N;
  const int64_t span = std::min(n_intervals * N, static_cast<int64_t>(s.count) - first);  // arguments
  Mp X(80), XL(80);
  set_arg(X.v, s, s.i0 + static_cast<uint64_t>(first));
  set_arg(XL.v, s, s.i0 + static_cast<uint64_t>(first + span - 1));
  Taylor& near = scr.single;  // not ends[]: make_packets calls this amid a run
  mpfr_prec_t prec = kFixBits + p.precision + 11, need = 0;
  taylor(p.func, X.v, prec, near);
  const FarEnd far = far_end(p.func, XL.v, near.c[0].v, scr.far);
  while (!fill(p, s, span, N, L, near, far, prec, scr, &pd, &need)) {
    prec = need + 16;
    taylor(p.func, X.v, prec, near);
  }
  return pd;
}

// Packet k's far end is packet k + 1's near end X_(k+1): where f there has the near end's binade,
// so has f at the last argument between them (f is monotone), and |f^(D+1)| (monotone) is at most
// its value at X_k or X_(k+1); otherwise (a binade change, rare) the last argument decides at 64
// bits as in make_packet. For exp and exp2, f(X_(k+1)) = f(X_k) f(H) with H = n N h, to nearest,
// at most kChain times from one MPFR evaluation: its exponent is f's unless it lies within 2^-41 of
// a power of 2, where it is evaluated afresh (rounded toward zero).
std::vector<PacketData> make_packets(const LefevreParams& p, const Setup& s, int64_t first_interval,
                                     int64_t count, int64_t n_intervals, int64_t N) {
  std::vector<PacketData> out(static_cast<std::size_t>(std::max<int64_t>(count, 0)));
  if (count <= 0) return out;
  const int L = log2_of(N);
  Scratch& scr = scratch();
  const mpfr_prec_t prec = kFixBits + p.precision + 11;
  const long hx = s.E - s.p + 1;
  auto arg = [&](int64_t k, mpfr_ptr X) {  // X_k; past the range for its end: still exact
    if (mpfr_get_prec(X) < 80) mpfr_set_prec(X, 80);
    set_arg(X, s, s.i0 + static_cast<uint64_t>((first_interval + k * n_intervals) * N));
  };
  Taylor* cur = &scr.ends[0];
  Taylor* next = &scr.ends[1];
  mpfr_ptr Xc = scr.X[0].v;
  mpfr_ptr Xn = scr.X[1].v;
  arg(0, Xc);
  taylor(p.func, Xc, prec, *cur);
  const bool chained = exp_like(p.func);
  if (chained) {  // f(H), H = n N h exactly
    mpfr_set_prec(scr.eh.v, prec);
    mpfr_set_prec(scr.H.v, 80);
    mpfr_set_si_2exp(scr.H.v, static_cast<long>(n_intervals * N), hx, MPFR_RNDN);
    if (p.func == Func::kExp)
      mpfr_exp(scr.eh.v, scr.H.v, MPFR_RNDN);
    else
      mpfr_exp2(scr.eh.v, scr.H.v, MPFR_RNDN);
  }
  int products = 0;  // since the last evaluation of f
  for (int64_t k = 0; k < count; ++k) {
    arg(k + 1, Xn);
    next->set_prec(prec);
    if (chained && products < kChain) {
      mpfr_mul(next->c[0].v, cur->c[0].v, scr.eh.v, MPFR_RNDN);
      ++products;
      if (near_power_of_2(next->c[0].v)) {
        taylor(p.func, Xn, prec, *next);
        products = 0;
      } else {
        higher_orders(p.func, Xn, *next);
      }
    } else {
      taylor(p.func, Xn, prec, *next);
      products = 0;
    }
    PacketData& pd = out[static_cast<std::size_t>(k)];
    pd.first_interval = first_interval + k * n_intervals;
    pd.packet.n = n_intervals;
    const int64_t first = pd.first_interval * N;
    const int64_t span = std::min(n_intervals * N, static_cast<int64_t>(s.count) - first);
    FarEnd far;
    if (same_binade(cur->c[0].v, next->c[0].v)) {
      far = {true, std::fabs(mpfr_get_d(next->c[D + 1].v, MPFR_RNDA)) * (1 + 0x1p-50)};
    } else {
      if (mpfr_get_prec(scr.XL.v) < 80) mpfr_set_prec(scr.XL.v, 80);
      set_arg(scr.XL.v, s, s.i0 + static_cast<uint64_t>(first + span - 1));
      far = far_end(p.func, scr.XL.v, cur->c[0].v, scr.far);
    }
    mpfr_prec_t need = 0;
    if (!fill(p, s, span, N, L, *cur, far, prec, scr, &pd, &need))
      pd = make_packet(p, s, pd.first_interval, n_intervals, N);  // larger coefficients: afresh
    std::swap(cur, next);
    std::swap(Xc, Xn);
  }
  return out;
}

}  // namespace ds::tmd::lefevre_detail
