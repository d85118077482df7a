// MPFR's verdict on one argument of the TMD workspace: f(x) correctly rounded to 256 bits, its
// distance to the rounding breakpoint of a precision-p result and the run of identical bits after
// the rounding bit. Every case the search reports comes from here.
#include <mpfr.h>

#include <cmath>
#include <cstring>

#include "arith/mpfr_number.h"
#include "tmd.h"

namespace ds::tmd {
namespace {

constexpr mpfr_prec_t kPrec = 256;

int apply(Func f, mpfr_ptr y, mpfr_srcptr x) {
  switch (f) {
    case Func::kExp:
      return mpfr_exp(y, x, MPFR_RNDN);
    case Func::kExp2:
      return mpfr_exp2(y, x, MPFR_RNDN);
    case Func::kLog:
      return mpfr_log(y, x, MPFR_RNDN);
    case Func::kLog2:
      return mpfr_log2(y, x, MPFR_RNDN);
    case Func::kSin:
      return mpfr_sin(y, x, MPFR_RNDN);
    case Func::kCos:
      return mpfr_cos(y, x, MPFR_RNDN);
  }
  return 0;
}

}  // namespace

Verdict mpfr_verdict(Func f, Mode m, int p, int k, uint32_t xb) {
  const uint32_t ex = (xb >> 23) & 0xFFu;
  if (ex == 0xFFu) return Verdict{};
  if (p < 24 && (ex == 0u || (xb & ((1u << (24 - p)) - 1u)) != 0u)) return Verdict{};
  float x;
  std::memcpy(&x, &xb, sizeof x);
  Mpfr X(24);
  mpfr_set_flt(X.v, x, MPFR_RNDN);
  return mpfr_verdict_value(f, m, p, k, static_cast<const void*>(X.v));
}

Verdict mpfr_verdict_value(Func f, Mode m, int p, int k, const void* mpfr_x) {
  const mpfr_srcptr X = static_cast<mpfr_srcptr>(mpfr_x);
  Verdict v;
  Mpfr Y(kPrec);
  const int ternary = apply(f, Y.v, X);
  if (!mpfr_number_p(Y.v) || mpfr_zero_p(Y.v)) return v;
  const long e = static_cast<long>(mpfr_get_exp(Y.v)) - 1;  // |f(x)| in [2^e, 2^(e+1))
  if (!result_in_range(p, e)) return v;
  v.valid = true;
  v.exact = ternary == 0;
  char* s = nullptr;
  if (mpfr_asprintf(&s, "%Ra", Y.v) >= 0 && s) {
    v.fx = s;
    mpfr_free_str(s);
  }
  // Z = |f(x)| 2^(p-1-e) in [2^(p-1), 2^p): one unit is one ulp of the precision-p result.
  Mpfr Z(kPrec + 64), F(kPrec + 64), D(kPrec + 64), G(kPrec + 64);
  mpfr_abs(Z.v, Y.v, MPFR_RNDN);
  mpfr_mul_2si(Z.v, Z.v, p - 1 - e, MPFR_RNDN);
  mpfr_frac(F.v, Z.v, MPFR_RNDN);  // exact
  if (m == Mode::kNearest) {
    mpfr_sub_d(D.v, F.v, 0.5, MPFR_RNDN);
    mpfr_abs(D.v, D.v, MPFR_RNDN);
  } else {
    mpfr_ui_sub(G.v, 1, F.v, MPFR_RNDN);
    mpfr_min(D.v, F.v, G.v, MPFR_RNDN);
  }
  if (mpfr_zero_p(D.v)) {
    v.log2_dist = INFINITY;
  } else {
    Mpfr L(53);
    mpfr_log2(L.v, D.v, MPFR_RNDN);
    v.log2_dist = -mpfr_get_d(L.v, MPFR_RNDN);
  }
  v.within = !v.exact && mpfr_cmp_ui_2exp(D.v, 1, -k) < 0;
  // Bits b1 b2 ... of the fraction (b1 = the rounding bit); the run starts at b2. Only the first
  // 256 - p of them are known from the 256-bit value.
  const int known = static_cast<int>(kPrec) - p;
  auto bit = [&](mpz_t z, long zexp, int i) -> int {  // b_i of F = z 2^zexp
    const long idx = -i - zexp;
    return idx < 0 ? 0 : mpz_tstbit(z, static_cast<mp_bitcnt_t>(idx));
  };
  mpz_t z;
  mpz_init(z);
  long zexp = 0;
  if (!mpfr_zero_p(F.v)) zexp = static_cast<long>(mpfr_get_z_2exp(z, F.v));
  const int b2 = bit(z, zexp, 2);
  int run = 1;
  while (2 + run <= known && bit(z, zexp, 2 + run) == b2) ++run;
  mpz_clear(z);
  v.run = run;
  v.run_capped = 2 + run > known;
  return v;
}

}  // namespace ds::tmd
