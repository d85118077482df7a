// The nucleus finder's fixed-point derivative (finder_derivative.h). docs/finder.md.
#include "kernels/perturb/finder_derivative.h"
#include "kernels/perturb/finder_fixed_orbit.h"  // signed_add, set_fixed

#include <algorithm>

namespace ds::perturb::finder::detail {
namespace {

static_assert(GMP_NUMB_BITS == 64, "64-bit limbs");

// x >>= sh bits (0 < sh; truncating), L limbs.
void shift_right(mp_limb_t* x, mp_size_t L, int64_t sh) {
  if (sh >= 64 * L) {
    std::fill(x, x + L, mp_limb_t{0});
    return;
  }
  const mp_size_t q = static_cast<mp_size_t>(sh / 64);
  const unsigned r = static_cast<unsigned>(sh % 64);
  if (q > 0) {
    std::copy(x + q, x + L, x);
    std::fill(x + L - q, x + L, mp_limb_t{0});
  }
  if (r > 0) mpn_rshift(x, x, L - q, r);
}

// out (n limbs) <- bits [sh, sh + 64n) of x (L limbs; x below 2^(sh + 64n)), sh possibly < 0.
void extract(mp_limb_t* out, mp_size_t n, const mp_limb_t* x, mp_size_t L, int64_t sh, mp_limb_t* tmp) {
  if (sh >= 0) {
    const mp_size_t q = static_cast<mp_size_t>(sh / 64);
    const unsigned r = static_cast<unsigned>(sh % 64);
    if (r == 0) {
      std::copy(x + q, x + q + n, out);
    } else {
      const mp_size_t m = std::min<mp_size_t>(n + 1, L - q);
      mpn_rshift(tmp, x + q, m, r);
      std::copy(tmp, tmp + n, out);
    }
    return;
  }
  const int64_t ls = -sh;
  const mp_size_t q = static_cast<mp_size_t>(ls / 64);
  const unsigned r = static_cast<unsigned>(ls % 64);
  const mp_size_t k = std::min(n - q, L);  // (x's bits all lie below limb n - q)
  std::fill(out, out + n, mp_limb_t{0});
  std::copy(x, x + k, out + q);
  if (r > 0) mpn_lshift(out + q, out + q, n - q, r);
}

// The shift that cuts the pair (x, y) (m limbs each) to n limbs from its leading bit: sh = T + 1 - 64n,
// T the index of the larger one's top bit, so that bits [sh, sh + 64n) hold both; false where both
// are 0.
bool cut_shift(const mp_limb_t* x, const mp_limb_t* y, mp_size_t m, mp_size_t n, int64_t* sh) {
  mp_size_t top = m - 1;
  while (top >= 0 && x[top] == 0 && y[top] == 0) --top;
  if (top < 0) return false;
  const int64_t T = 64 * static_cast<int64_t>(top) + 63 - __builtin_clzll(x[top] | y[top]);
  *sh = T + 1 - 64 * static_cast<int64_t>(n);
  return true;
}

// The top n limbs of x's significand into t (zeros below where x has fewer).
void top_limbs(mp_limb_t* t, mp_size_t n, const mpfr_t x) {
  const mp_size_t nb = static_cast<mp_size_t>((mpfr_get_prec(x) + 63) / 64);
  const mp_size_t k = std::min(n, nb);
  std::fill(t, t + (n - k), mp_limb_t{0});
  std::copy(x->_mpfr_d + (nb - k), x->_mpfr_d + nb, t + (n - k));
}

}  // namespace

void FixedDerivative::reset(int n) {
  n_ = n;
  zero_ = true;
  s_ = 0;
  nr_ = ni_ = false;
  const size_t L = 2 * static_cast<size_t>(n) + 2;
  for (auto* v : {&r_, &i_, &zr_, &zi_}) v->assign(static_cast<size_t>(n) + 1, 0);
  for (auto* v : {&p1_, &p2_, &p3_, &p4_, &xr_, &xi_}) v->assign(L, 0);
}

void FixedDerivative::set_one() {
  const mp_size_t n = n_;
  std::fill(r_.begin(), r_.end(), mp_limb_t{0});
  std::fill(i_.begin(), i_.end(), mp_limb_t{0});
  r_[static_cast<size_t>(n - 1)] = mp_limb_t{1} << 63;
  s_ = -(64 * static_cast<int64_t>(n) - 1);
  nr_ = ni_ = false;
  zero_ = false;
}

void FixedDerivative::step(const mpfr_t zre, const mpfr_t zim) {
  const mp_size_t n = n_;
  const bool zr_reg = mpfr_regular_p(zre), zi_reg = mpfr_regular_p(zim);
  if (zero_ || (!zr_reg && !zi_reg)) {  // 2 z d + 1 = 1 exactly
    set_one();
    return;
  }
  // z's block: the larger coordinate's exponent, the other shifted to it (cut).
  const int64_t er = zr_reg ? mpfr_get_exp(zre) : INT64_MIN, ei = zi_reg ? mpfr_get_exp(zim) : INT64_MIN;
  const int64_t ez = std::max(er, ei);
  if (zr_reg) {
    top_limbs(zr_.data(), n, zre);
    if (er < ez) shift_right(zr_.data(), n, ez - er);
  } else {
    std::fill(zr_.begin(), zr_.begin() + n, mp_limb_t{0});
  }
  if (zi_reg) {
    top_limbs(zi_.data(), n, zim);
    if (ei < ez) shift_right(zi_.data(), n, ez - ei);
  } else {
    std::fill(zi_.begin(), zi_.begin() + n, mp_limb_t{0});
  }
  step_block(zr_reg && mpfr_signbit(zre), zi_reg && mpfr_signbit(zim), ez - 64 * static_cast<int64_t>(n));
}

void FixedDerivative::step(const mp_limb_t* xr, bool nxr, const mp_limb_t* xi, bool nxi, int m, int F) {
  const mp_size_t n = n_;
  int64_t sh = 0;
  if (zero_ || !cut_shift(xr, xi, m, n, &sh)) {  // 2 z d + 1 = 1 exactly
    set_one();
    return;
  }
  // The n limbs from the larger coordinate's leading bit: bits [sh, sh + 64n) of each, at 2^(sh - F).
  extract(zr_.data(), n, xr, m, sh, p1_.data());
  extract(zi_.data(), n, xi, m, sh, p1_.data());
  step_block(nxr, nxi, sh - F);
}

void FixedDerivative::step_block(bool nzr, bool nzi, int64_t sz) {
  const mp_size_t n = n_, L = 2 * n + 2;
  // 2 z d exactly: (R ZR - I ZI) + i (R ZI + I ZR), at 2^(s + sz + 1), sz = ez - 64n.
  mpn_mul_n(p1_.data(), r_.data(), zr_.data(), n);
  mpn_mul_n(p2_.data(), i_.data(), zi_.data(), n);
  mpn_mul_n(p3_.data(), r_.data(), zi_.data(), n);
  mpn_mul_n(p4_.data(), i_.data(), zr_.data(), n);
  // (the top two limbs of p1..p4 stay 0: only mpn_mul_n's 2n limbs are written)
  bool nxr = signed_add(xr_.data(), p1_.data(), nr_ != nzr, p2_.data(), !(ni_ != nzi), L);
  const bool nxi = signed_add(xi_.data(), p3_.data(), nr_ != nzi, p4_.data(), ni_ != nzr, L);
  int64_t s = s_ + sz + 1;
  // + 1 = 2^k units, k = -s; below one unit it is dropped (less than the cut below).
  int64_t k = -s;
  const int64_t kmax = 128 * static_cast<int64_t>(n) + 1;  // the products' sums are below 2^kmax
  if (k > kmax) {  // 2 z d is far below 1: bring 1 into the buffer's range
    shift_right(xr_.data(), L, k - kmax);
    shift_right(xi_.data(), L, k - kmax);
    s += k - kmax;
    k = kmax;
  }
  if (k >= 0) {
    const mp_size_t q = static_cast<mp_size_t>(k / 64);
    const mp_limb_t bit = mp_limb_t{1} << (k % 64);
    mp_limb_t* x = xr_.data();
    if (!nxr) {
      mpn_add_1(x + q, x + q, L - q, bit);
    } else if (x[q] >= bit || !mpn_zero_p(x + q + 1, L - q - 1)) {  // |re| >= 1
      mpn_sub_1(x + q, x + q, L - q, bit);
    } else {  // 1 - |re| = 2^(64 L) - |re| + 2^k, mod 2^(64 L)
      mpn_neg(x, x, L);
      mpn_add_1(x + q, x + q, L - q, bit);
      nxr = false;
    }
  }
  // Cut back to n limbs at the larger coordinate's top bit.
  int64_t sh = 0;
  if (!cut_shift(xr_.data(), xi_.data(), L, n, &sh)) {
    zero_ = true;
    return;
  }
  extract(r_.data(), n, xr_.data(), L, sh, p2_.data());
  extract(i_.data(), n, xi_.data(), L, sh, p2_.data());
  s_ = s + sh;
  nr_ = nxr;
  ni_ = nxi;
}

void FixedDerivative::get(mpfr_t re, mpfr_t im) const {
  if (zero_) {
    mpfr_set_zero(re, 1);
    mpfr_set_zero(im, 1);
    return;
  }
  set_fixed(re, im, r_.data(), nr_, i_.data(), ni_, n_, s_);
}

}  // namespace ds::perturb::finder::detail
