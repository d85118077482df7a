// The TMD workspace's Lefèvre/regular search: the arguments of a range, the degree-2 Taylor data of
// each interval from MPFR, and the lower-bound test records built from them.
// mpfr.h declares the intmax_t functions (mpfr_set_uj, mpfr_get_uj) only after <cstdint>.
#include <cstdint>
#define MPFR_USE_INTMAX_T 1
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "lefevre_internal.h"

namespace ds::tmd::lefevre_detail {

using lb::kOne;

Frac to_frac(mpfr_srcptr y) {  // y mod 1 truncated to 96 bits
  Mp t(std::max<mpfr_prec_t>(mpfr_get_prec(y), 200)), f(200);
  mpfr_floor(t.v, y);
  mpfr_sub(f.v, y, t.v, MPFR_RNDN);  // exact: in [0, 1)
  mpfr_mul_2ui(f.v, f.v, 96, MPFR_RNDN);
  mpz_t z;
  mpz_init(z);
  mpfr_get_z(z, f.v, MPFR_RNDZ);
  Frac r;
  r.neg = 0;
  r.w[0] = 0;
  for (int i = 3; i >= 1; --i) {
    r.w[i] = static_cast<uint32_t>(mpz_get_ui(z) & 0xffffffffu);
    mpz_tdiv_q_2exp(z, z, 32);
  }
  mpz_clear(z);
  return r;
}

// f, f', f''/2 at X (derivatives into d1, d2h), and |f'''| at X.
void derivatives(Func fn, mpfr_srcptr X, mpfr_ptr f0, mpfr_ptr d1, mpfr_ptr d2h, mpfr_ptr d3) {
  Mp t, l;
  switch (fn) {
    case Func::kExp:
      mpfr_exp(f0, X, MPFR_RNDN);
      mpfr_set(d1, f0, MPFR_RNDN);
      mpfr_div_2ui(d2h, f0, 1, MPFR_RNDN);
      mpfr_set(d3, f0, MPFR_RNDN);
      break;
    case Func::kExp2:
      mpfr_exp2(f0, X, MPFR_RNDN);
      mpfr_const_log2(l.v, MPFR_RNDN);
      mpfr_mul(d1, f0, l.v, MPFR_RNDN);
      mpfr_mul(d2h, d1, l.v, MPFR_RNDN);
      mpfr_mul(d3, d2h, l.v, MPFR_RNDN);
      mpfr_div_2ui(d2h, d2h, 1, MPFR_RNDN);
      break;
    case Func::kLog:
    case Func::kLog2:
      if (fn == Func::kLog) {
        mpfr_log(f0, X, MPFR_RNDN);
        mpfr_set_ui(l.v, 1, MPFR_RNDN);
      } else {
        mpfr_log2(f0, X, MPFR_RNDN);
        mpfr_const_log2(l.v, MPFR_RNDN);
      }
      mpfr_mul(t.v, X, l.v, MPFR_RNDN);  // x c: f' = 1/(x c), f''/2 = -1/(2 x^2 c), f''' = 2/(x^3 c)
      mpfr_ui_div(d1, 1, t.v, MPFR_RNDN);
      mpfr_div(d2h, d1, X, MPFR_RNDN);
      mpfr_div(d3, d2h, X, MPFR_RNDN);
      mpfr_mul_2ui(d3, d3, 1, MPFR_RNDN);
      mpfr_div_2ui(d2h, d2h, 1, MPFR_RNDN);
      mpfr_neg(d2h, d2h, MPFR_RNDN);
      break;
    default:
      throw std::invalid_argument("the Lefèvre and regular searches take exp, exp2, log or log2");
  }
  mpfr_abs(d3, d3, MPFR_RNDN);
}

// X = 2^E (1 + i 2^(1-p)) exactly (X has precision >= 64).
void set_arg(mpfr_ptr X, const Setup& s, uint64_t i) {
  mpfr_set_uj(X, (uintmax_t{1} << (s.p - 1)) + i, MPFR_RNDN);
  mpfr_mul_2si(X, X, s.E - s.p + 1, MPFR_RNDN);
}

Interval make_interval(const LefevreParams& p, const Setup& s, int64_t first, int64_t n) {
  Interval iv;
  iv.first = first;
  iv.n = n;
  Mp X(72), XL(72), f0, d1, d2h, d3, g0, g1, g2, g3;
  set_arg(X.v, s, s.i0 + static_cast<uint64_t>(first));
  set_arg(XL.v, s, s.i0 + static_cast<uint64_t>(first + n - 1));
  derivatives(p.func, X.v, f0.v, d1.v, d2h.v, d3.v);
  derivatives(p.func, XL.v, g0.v, g1.v, g2.v, g3.v);
  if (mpfr_zero_p(f0.v) || mpfr_zero_p(g0.v) || mpfr_sgn(f0.v) != mpfr_sgn(g0.v) ||
      mpfr_get_exp(f0.v) != mpfr_get_exp(g0.v)) {
    iv.direct = true;
    return iv;
  }
  const long F = static_cast<long>(mpfr_get_exp(f0.v)) - 1;  // |f| in [2^F, 2^(F+1)) on the interval
  if (!result_in_range(p.precision, F)) {
    iv.n = 0;  // results outside the format's normal range (binary32's overflow): no argument counts
    return iv;
  }
  // Scale: Y = |f| 2^(p-1-F); per argument step h = 2^(E-p+1).
  const long sc = p.precision - 1 - F, hx = s.E - s.p + 1;
  const int sign = mpfr_sgn(f0.v) < 0 ? -1 : 1;
  Mp y;
  mpfr_mul_2si(y.v, f0.v, sc, MPFR_RNDN);
  if (sign < 0) mpfr_neg(y.v, y.v, MPFR_RNDN);
  iv.y0 = to_frac(y.v);
  mpfr_mul_2si(y.v, d1.v, sc + hx, MPFR_RNDN);
  if (sign < 0) mpfr_neg(y.v, y.v, MPFR_RNDN);
  iv.y1 = to_frac(y.v);
  mpfr_mul_2si(y.v, d2h.v, sc + 2 * hx, MPFR_RNDN);
  if (sign < 0) mpfr_neg(y.v, y.v, MPFR_RNDN);
  iv.y2 = to_frac(y.v);
  const double y2 = mpfr_get_d(y.v, MPFR_RNDN);  // relative error 2^-53, widened below
  iv.y2_lo = y2 - std::fabs(y2) * 0x1p-40;
  iv.y2_hi = y2 + std::fabs(y2) * 0x1p-40;
  // |f'''| is monotone for these functions: its larger end value bounds it.
  const double m3 = std::max(mpfr_get_d(d3.v, MPFR_RNDU), mpfr_get_d(g3.v, MPFR_RNDU)) * (1 + 0x1p-30);
  iv.rem = std::ldexp(m3 * std::pow(static_cast<double>(n), 3) / 6.0, static_cast<int>(sc + 3 * hx)) *
           (1 + 0x1p-30);
  return iv;
}

Setup validate(const LefevreParams& p) {
  if (p.func != Func::kExp && p.func != Func::kExp2 && p.func != Func::kLog && p.func != Func::kLog2)
    throw std::invalid_argument(
        std::string("the Lefèvre and regular searches take exp, exp2, log or log2, not ") +
        func_name(p.func));
  const bool wide = !p.x_lo.empty() || !p.x_hi.empty();
  const int pmax = wide ? kMaxWidePrecision : kMaxPrecision;
  if (p.precision < kMinPrecision || p.precision > pmax)
    throw std::invalid_argument("unsupported precision " + std::to_string(p.precision) + " (8 to " +
                                std::to_string(pmax) + " bits" +
                                (wide ? ")" : "; up to 64 with a real range)"));
  if (p.k < kMinK || p.k > kMaxK) throw std::invalid_argument("k must be in [1, 50]");
  if (p.log2_n < 2 || p.log2_n > 20) throw std::invalid_argument("log2 N must be in [2, 20]");
  if (p.split < 1 || (p.split & (p.split - 1)) != 0 || p.split > (1 << p.log2_n))
    throw std::invalid_argument("the phase-2 split must be a power of 2 no larger than N");
  if (p.max_cases < 1 || p.max_cases > kMaxMaxCases)
    throw std::invalid_argument("max cases must be in [1, 1e8]");
  if (p.log2_block < 5 || p.log2_block > 24) throw std::invalid_argument("log2 block must be in [5, 24]");
  if (p.log2_packet < 0 || p.log2_packet > p.log2_block)
    throw std::invalid_argument("log2 packet must be in [0, log2 block]");
  if (p.div_threshold < 0 || p.div_threshold > 64)
    throw std::invalid_argument("division threshold in [0, 64]");
  Setup s;
  s.p = p.precision;
  if (wide) {
    Mp lo(4096), hi(4096), t(4096);
    if (mpfr_set_str(lo.v, p.x_lo.c_str(), 0, MPFR_RNDN) != 0 ||
        mpfr_set_str(hi.v, p.x_hi.c_str(), 0, MPFR_RNDN) != 0)
      throw std::invalid_argument("the range bounds must be exact numbers (decimal or hex float), got \"" +
                                  p.x_lo + "\" and \"" + p.x_hi + "\"");
    if (!mpfr_number_p(lo.v) || !mpfr_number_p(hi.v) || mpfr_sgn(lo.v) <= 0 || mpfr_cmp(lo.v, hi.v) >= 0)
      throw std::invalid_argument(
          "empty or reversed range (positive bounds, lo < hi; arguments in [lo, hi))");
    s.E = static_cast<int>(mpfr_get_exp(lo.v)) - 1;
    mpfr_set_ui_2exp(t.v, 1, s.E + 1, MPFR_RNDN);
    if (mpfr_cmp(hi.v, t.v) > 0)
      throw std::invalid_argument("the range must lie in one binade [2^E, 2^(E+1))");
    s.bits_mode = false;
    // i = X 2^(p-1-E) - 2^(p-1) for X in [lo, hi).
    // (The 2^(p-1) comes off in MPFR: at p = 64 the binade's end, 2^64, does not fit a uint64.)
    auto index_ceil = [&](mpfr_srcptr x) {
      mpfr_mul_2si(t.v, x, s.p - 1 - s.E, MPFR_RNDN);
      mpfr_ceil(t.v, t.v);
      Mp half(64);
      mpfr_set_ui_2exp(half.v, 1, s.p - 1, MPFR_RNDN);
      mpfr_sub(t.v, t.v, half.v, MPFR_RNDN);  // exact at 4,096 bits
      return static_cast<uint64_t>(mpfr_get_uj(t.v, MPFR_RNDN));
    };
    s.i0 = index_ceil(lo.v);
    const uint64_t i1 = index_ceil(hi.v);
    if (i1 <= s.i0) throw std::invalid_argument("the range holds no precision-p argument");
    s.count = i1 - s.i0;
    // Counts are signed 64-bit (and intervals round them up): a whole binade at precision 64 holds
    // 2^63 arguments, which overflowed into std::bad_alloc before this check.
    if (s.count > (uint64_t{1} << 62))
      throw std::invalid_argument("the range holds " + std::to_string(s.count) +
                                  " arguments; a search takes at most 2^62: split the range (e.g. at the "
                                  "binade's midpoint) and search the parts");
    if (s.E < -126 || s.E > 127)
      throw std::invalid_argument("the range must lie in the binary32 exponent range");
    return s;
  }
  if (p.lo > p.hi) throw std::invalid_argument("empty or reversed range");
  const uint32_t e_lo = (p.lo >> 23) & 0xff, e_hi = (p.hi >> 23) & 0xff;
  if ((p.lo >> 31) || (p.hi >> 31) || e_lo == 0 || e_lo == 0xff || e_lo != e_hi)
    throw std::invalid_argument("the range must hold positive normal binary32 numbers of one binade");
  s.E = static_cast<int>(e_lo) - 127;
  s.exp_bits = e_lo << 23;
  const int shift = 24 - p.precision;
  const uint64_t m_lo = p.lo & 0x7fffff, m_hi = p.hi & 0x7fffff;
  s.i0 = (m_lo + (uint64_t{1} << shift) - 1) >> shift;
  const uint64_t i1 = m_hi >> shift;
  if (i1 < s.i0) throw std::invalid_argument("the range holds no precision-p argument");
  s.count = i1 - s.i0 + 1;
  return s;
}

}  // namespace ds::tmd::lefevre_detail
