// The nucleus finder's first derivative dz/dc in fixed point with one exponent per complex number
// (finder_series.cpp): the recursion d <- 2 z d + 1 at a few limbs, where MPFR's per-call cost
// made a 4-limb derivative cost as much as the 10-limb orbit beside it. Private to the finder.
//
// A complex number is (R + i I) 2^s, with R and I non-negative n-limb integers and signs of their
// own, normalised so that the larger has its top bit set (bit 64n - 1). z comes from an MPFR
// orbit (or the n limbs from the leading bit of a fixed-point one), the smaller shifted to the
// larger's exponent, cut (truncated): each coordinate is off by less than one unit 2^s, so |z~ - z| < 2^0.5
// 2^-(64n-1) |z|. The step 2 z~ d + 1 is exact in 2n + 2 limbs (the four n x n products with GMP's mpn; a + 1
// below the products' last bit is dropped, less than the cut), and the result is cut back to n
// limbs the same way: |d~ - (2 z~ d + 1)| < 2^0.5 2^-(64n-1) |d~|.
//
// The bound: per step, a relative error below 2^-(64n - 1.5) from z's cut and one from d's; both
// cuts go toward zero, so they add up over p steps to at most 2 p 2^-(64n - 1.5) of |d_p| where
// 2 z d + 1 does not cancel (where it does, the relative error grows by the same factor as MPFR's
// would). With n = limbs_for(bd) = ceil((bd + 4) / 64), that is below p 2^-(bd + 1.5): far inside
// what the finder allows for the derivative's rounding at bd bits, s 2^-(bd - 16 - log2 p)
// (finder_nucleus.cpp). Measured over 11,380 steps (tests/kernels/perturb/
// test_finder_derivative.cpp): 0.8 bits under the bound, 4 to 6 bits more than MPFR's own
// round-to-nearest error at 64n - 4 bits (whose errors partly cancel), 20 bits inside the
// allowance.
#pragma once
#include <gmp.h>
#include <mpfr.h>

#include <cstdint>
#include <vector>

namespace ds::perturb::finder::detail {

class FixedDerivative {
 public:
  // The limbs for a derivative the finder takes as good to bd bits (above).
  static int limbs_for(int bd) { return (bd + 3 + 1 + 63) / 64; }
  // d <- 0 with n limbs.
  void reset(int n);
  // d <- 2 z d + 1, z from an MPFR number pair (any precision; its top n limbs are used).
  void step(const mpfr_t zre, const mpfr_t zim);
  // The same with z = (XR + i XI) 2^-F from a fixed-point orbit (m limbs each; signs apart), cut
  // the same way from its leading bit.
  void step(const mp_limb_t* xr, bool nxr, const mp_limb_t* xi, bool nxi, int m, int F);
  // d rounded to re's and im's precision.
  void get(mpfr_t re, mpfr_t im) const;

 private:
  int n_ = 0;
  bool zero_ = true;
  int64_t s_ = 0;  // d = (R + i I) 2^s_
  std::vector<mp_limb_t> r_, i_;
  bool nr_ = false, ni_ = false;  // signs (true: negative)
  // d <- 2 z d + 1 from z's block in zr_, zi_ (signs nzr, nzi) at 2^sz.
  void step_block(bool nzr, bool nzi, int64_t sz);
  void set_one();
  // z's block (n limbs), scratch for the products (2n + 2 limbs each).
  std::vector<mp_limb_t> zr_, zi_, p1_, p2_, p3_, p4_, xr_, xi_;
};

}  // namespace ds::perturb::finder::detail
