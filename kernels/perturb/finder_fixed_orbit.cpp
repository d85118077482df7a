// The nucleus finder's fixed-point seed orbit (finder_fixed_orbit.h). docs/finder.md.
#include "kernels/perturb/finder_fixed_orbit.h"

#include <algorithm>
#include <utility>

namespace ds::perturb::finder::detail {
namespace {

static_assert(GMP_NUMB_BITS == 64, "64-bit limbs");

// x 2^F rounded to an integer, as n limbs and a sign; false where |x| >= 8.
bool to_fixed(const mpfr_t x, int n, int F, std::vector<mp_limb_t>* out, bool* negative) {
  out->assign(static_cast<size_t>(n), 0);
  *negative = false;
  if (mpfr_zero_p(x)) return true;
  if (!mpfr_number_p(x) || mpfr_cmpabs_ui(x, 8) >= 0) return false;
  mpfr_t s;
  mpfr_init2(s, mpfr_get_prec(x));
  mpfr_mul_2si(s, x, F, MPFR_RNDN);  // exact
  mpz_t z;
  mpz_init(z);
  mpfr_get_z(z, s, MPFR_RNDN);
  *negative = mpz_sgn(z) < 0;
  const size_t k = mpz_size(z);
  for (size_t j = 0; j < k && j < out->size(); ++j) (*out)[j] = mpz_getlimbn(z, static_cast<mp_size_t>(j));
  mpz_clear(z);
  mpfr_clear(s);
  return true;
}

}  // namespace

bool FixedOrbit::reset(const mpfr_t re, const mpfr_t im, int n) {
  const int F = 64 * n - 8;
  std::vector<mp_limb_t> cr, ci;
  bool ncr = false, nci = false;
  if (!to_fixed(re, n, F, &cr, &ncr) || !to_fixed(im, n, F, &ci, &nci)) return false;
  n_ = n;
  f_ = F;
  cr_ = std::move(cr);
  ci_ = std::move(ci);
  ncr_ = ncr;
  nci_ = nci;
  zr_.assign(static_cast<size_t>(n), 0);
  zi_.assign(static_cast<size_t>(n), 0);
  nr_ = ni_ = false;
  for (auto* v : {&a_, &b_, &m_}) v->assign(2 * static_cast<size_t>(n), 0);
  t_.assign(static_cast<size_t>(n) + 1, 0);
  return true;
}

bool FixedOrbit::step() {
  const mp_size_t n = n_;
  // zr^2 - zi^2 and 2 zr zi exactly at 2^-2F, then cut to 2^-F: bits F.. of the 2n-limb
  // results (F = 64 (n - 1) + 56), the values below 2^(64n - 4).
  mpn_sqr(a_.data(), zr_.data(), n);
  mpn_sqr(b_.data(), zi_.data(), n);
  mpn_mul_n(m_.data(), zr_.data(), zi_.data(), n);
  const bool nm = nr_ != ni_;  // zr zi's sign
  const bool nre = signed_add(a_.data(), a_.data(), false, b_.data(), true, 2 * n);
  mpn_rshift(t_.data(), a_.data() + (n - 1), n + 1, 56);
  nr_ = signed_add(zr_.data(), t_.data(), nre, cr_.data(), ncr_, n);
  mpn_rshift(t_.data(), m_.data() + (n - 1), n + 1, 55);  // 2 zr zi
  ni_ = signed_add(zi_.data(), t_.data(), nm, ci_.data(), nci_, n);
  // Below 4 = 2^(F + 2) = 2^(64n - 6): the top limb below 2^58. (From there the next step stays
  // below 2 * 4^2 + |c| < 2^6, inside the format.)
  constexpr mp_limb_t kFour = mp_limb_t{1} << 58;
  return zr_[static_cast<size_t>(n - 1)] < kFour && zi_[static_cast<size_t>(n - 1)] < kFour;
}

void FixedOrbit::get(mpfr_t re, mpfr_t im) const {
  set_fixed(re, im, zr_.data(), nr_, zi_.data(), ni_, n_, -f_);
}

FloatExp2 FixedOrbit::fe2(const mp_limb_t* x, bool negative) const {
  int top = n_ - 1;
  while (top >= 0 && x[top] == 0) --top;
  if (top < 0) return FloatExp2(0.0);
  const int lz = __builtin_clzll(x[top]);
  // The 128 bits from the leading one: w1 (its top bit set) and w0.
  const mp_limb_t x1 = x[top], x0 = top >= 1 ? x[top - 1] : 0, xm = top >= 2 ? x[top - 2] : 0;
  const mp_limb_t w1 = lz == 0 ? x1 : (x1 << lz) | (x0 >> (64 - lz));
  const mp_limb_t w0 = lz == 0 ? x0 : (x0 << lz) | (xm >> (64 - lz));
  const double hi = static_cast<double>(w1 >> 11) * 0x1p-53;  // in [0.5, 1)
  const double lo = static_cast<double>(((w1 & 0x7FF) << 42) | (w0 >> 22)) * 0x1p-106;
  const double sign = negative ? -1.0 : 1.0;
  // The leading one is bit 64 top + 63 - lz of X, so x = 0.1... 2^(64 top + 64 - lz - F).
  return FloatExp2::normalise(sign * hi, sign * lo, 64 * static_cast<int64_t>(top) + 64 - lz - f_);
}

}  // namespace ds::perturb::finder::detail
