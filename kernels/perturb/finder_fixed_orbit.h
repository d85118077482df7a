// The nucleus finder's orbits in fixed point (the seed's, finder_nucleus.cpp, and an MPFR step's
// where only dz/dc goes with it, finder_series.cpp): z <- z^2 + c with GMP's mpn at a few limbs,
// where MPFR's per-call cost made up half of each step. Private to the finder.
//
// Each coordinate is a signed n-limb integer X standing for X 2^-F, F = 64n - 8 (so |values| <
// 2^8; in the loop they stay below 4 + |c| < 12: the caller stops at |z| > 2, and c must be below
// 8 in each coordinate, else reset() refuses). c is rounded to 2^-F once; each step's squares and
// product are exact in 2n limbs and cut (truncated) back to 2^-F: an absolute error below 2^-F per
// coordinate and step, with c's rounding 2^-(F+1). MPFR at b bits rounds each of the step's 7
// operations to 2^-b of its result (up to 4 + |c|), so F >= b + 3, which limbs_for(b) gives,
// makes the orbit's rounding per step no larger than that of MPFR at the view's precision b; the
// finder's use of the seed's orbit (its floor, cmag 2^-(b - 16)) stands as it was.
#pragma once
#include <gmp.h>
#include <mpfr.h>

#include <vector>

#include "arith/floatexp2.h"

namespace ds::perturb::finder::detail {

// out <- (a, negative na) + (b, negative nb), magnitudes of L limbs each; out may be a or b. A
// carry out of the top limb is lost: callers keep room for it. Returns out's sign.
inline bool signed_add(mp_limb_t* out, const mp_limb_t* a, bool na, const mp_limb_t* b, bool nb,
                       mp_size_t L) {
  if (na == nb) {
    mpn_add_n(out, a, b, L);
    return na;
  }
  if (mpn_cmp(a, b, L) >= 0) {
    mpn_sub_n(out, a, b, L);
    return na;
  }
  mpn_sub_n(out, b, a, L);
  return nb;
}

// (re, im) <- (X + i Y) 2^e, X and Y magnitudes of n limbs with signs nx and ny (true: negative),
// each rounded to its destination's precision.
inline void set_fixed(mpfr_t re, mpfr_t im, const mp_limb_t* x, bool nx, const mp_limb_t* y, bool ny,
                      mp_size_t n, mpfr_exp_t e) {
  mpz_t t;
  mpfr_set_z_2exp(re, mpz_roinit_n(t, x, nx ? -n : n), e, MPFR_RNDN);
  mpfr_set_z_2exp(im, mpz_roinit_n(t, y, ny ? -n : n), e, MPFR_RNDN);
}

// The most limbs at which an orbit runs in fixed point rather than in MPFR: in a plain loop on the
// development machine it took 45% of MPFR's time at 8 limbs, 65% at 14, 70% at 16, 78% at 19,
// 89% at 20, and more than MPFR from 24 (MPFR's short products).
constexpr int kFixedOrbitMaxLimbs = 20;

class FixedOrbit {
 public:
  // The limbs whose F = 64n - 8 is at least bits + 3.
  static int limbs_for(int bits) { return (bits + 3 + 8 + 63) / 64; }
  // z <- 0, c from (re, im) rounded to 2^-F at n limbs; false (nothing set) where a coordinate of c
  // is 8 or more in magnitude.
  bool reset(const mpfr_t re, const mpfr_t im, int n);
  // z <- z^2 + c; false once a coordinate of z is 4 or more (then |z| > 2 and the next step could
  // leave the format's range: the caller stops or falls back to MPFR).
  bool step();
  // z's coordinates cut to their leading 106 bits (as mpfr_util::to_fe2_cut).
  FloatExp2 re() const { return fe2(zr_.data(), nr_); }
  FloatExp2 im() const { return fe2(zi_.data(), ni_); }
  // z exactly (rounded to re's and im's precision where they hold fewer than 64n bits).
  void get(mpfr_t re, mpfr_t im) const;
  // z's coordinates as they are: n limbs each (magnitudes), their signs, X 2^-F.
  int limbs() const { return n_; }
  int fraction_bits() const { return f_; }
  const mp_limb_t* re_limbs() const { return zr_.data(); }
  const mp_limb_t* im_limbs() const { return zi_.data(); }
  bool re_negative() const { return nr_; }
  bool im_negative() const { return ni_; }

 private:
  int n_ = 0, f_ = 0;
  std::vector<mp_limb_t> cr_, ci_, zr_, zi_, a_, b_, m_, t_;
  bool ncr_ = false, nci_ = false, nr_ = false, ni_ = false;
  FloatExp2 fe2(const mp_limb_t* x, bool negative) const;
};

}  // namespace ds::perturb::finder::detail
