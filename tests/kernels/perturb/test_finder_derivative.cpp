// The nucleus finder's fixed-point derivative (kernels/perturb/finder_derivative.h): d <- 2 z d + 1
// along MPFR orbits against the same recursion in MPFR at 200 bits more, within the stated bound
// (each step cuts z and d to 64n - 1.5 bits, both toward zero, so over p steps the relative error
// is at most about 2 p 2^-(64n - 1.5) where nothing cancels) and within what the finder allows
// for the derivative's rounding at the bits limbs_for gives n limbs for (bd = 64n - 4: s 2^-(bd -
// 16 - log2 p)); MPFR at bd is printed beside it (its round-to-nearest errors partly cancel, and
// it came out 4 to 6 bits closer); the same with z read from a fixed-point orbit
// (finder_fixed_orbit.h). The edge cases: a real orbit (z's imaginary part 0), z = 0
// throughout, and 2 z d far below the + 1.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <string>

#include "kernels/perturb/finder_derivative.h"
#include "kernels/perturb/finder_detail.h"
#include "kernels/perturb/finder_fixed_orbit.h"
#include "kernels/perturb/mpfr_util.h"

namespace {

using ds::Mpfr;
using ds::perturb::finder::detail::derivative_step;
using ds::perturb::finder::detail::FixedDerivative;
using ds::perturb::finder::detail::FixedOrbit;
using ds::perturb::finder::detail::MpC;

// log2 of |a - b| / |b| (complex), -inf when equal.
double log2_rel(const MpC& a, const MpC& b) {
  Mpfr er(2000), ei(2000), m(2000);
  mpfr_sub(er.v, a.re.v, b.re.v, MPFR_RNDN);
  mpfr_sub(ei.v, a.im.v, b.im.v, MPFR_RNDN);
  mpfr_hypot(er.v, er.v, ei.v, MPFR_RNDN);
  mpfr_hypot(m.v, b.re.v, b.im.v, MPFR_RNDN);
  mpfr_div(er.v, er.v, m.v, MPFR_RNDN);
  return std::log2(mpfr_get_d(er.v, MPFR_RNDN));
}

struct Errors {
  double fixed = 0, mpfr = 0;  // log2 of the relative errors at the end
  long exponent = 0;           // of the reference's real part
};

// p steps of c's orbit at zbits; the fixed derivative at n limbs and MPFR at bd bits against MPFR at
// 64n + 200 bits, all from the same z_n.
Errors run(const char* re, const char* im, uint32_t p, int zbits, int n, int bd) {
  MpC c(zbits), z(zbits);
  Mpfr s1(zbits), s2(zbits);
  mpfr_set_str(c.re.v, re, 10, MPFR_RNDN);
  mpfr_set_str(c.im.v, im, 10, MPFR_RNDN);
  z.zero();
  const int hb = 64 * n + 200;
  MpC h(hb), d(bd), zr(bd);
  Mpfr h1(hb), h2(hb), d1(bd), d2(bd);
  h.zero();
  d.zero();
  FixedDerivative f;
  f.reset(n);
  for (uint32_t k = 1; k <= p; ++k) {
    derivative_step(h, z, h1, h2);
    ds::perturb::finder::detail::copy(zr, z);
    derivative_step(d, zr, d1, d2);
    f.step(z.re.v, z.im.v);
    ds::mpfr_util::orbit_step(z.re.v, z.im.v, c.re.v, c.im.v, s1.v, s2.v);
  }
  MpC fd(64 * n);
  f.get(fd.re.v, fd.im.v);
  Errors e;
  e.fixed = log2_rel(fd, h);
  e.mpfr = log2_rel(d, h);
  e.exponent = mpfr_get_exp(h.re.v);
  return e;
}

TEST(FinderDerivative, WithinItsBoundAndTheFindersAllowance) {
  // Near the seahorse valley's deep-zoom point: the orbit stays bounded for 11,380 steps (KF's
  // 5e113 period) and the derivative grows and shrinks along it.
  const uint32_t p = 11380;
  for (int n : {1, 2, 4, 7}) {
    const int bd = 64 * n - 4;  // the bits limbs_for(bd) gives n limbs for
    ASSERT_EQ(FixedDerivative::limbs_for(bd), n);
    const Errors e =
        run("-0.743643887037158704752191506114774", "0.131825904205311970493132056385139", p, 617, n, bd);
    const double bound = std::log2(2.0 * p) - (64 * n - 1.5);
    std::cout << n << " limbs: fixed 2^" << e.fixed << ", MPFR at " << bd << " bits 2^" << e.mpfr
              << ", bound 2^" << bound << "\n";
    EXPECT_LE(e.fixed, bound);
    // The finder's prediction for MPFR at bd (finder_nucleus.cpp: 2^-(bd - 16 - log2 p)) holds it.
    EXPECT_LE(e.fixed, -(bd - 16 - std::log2(static_cast<double>(p))));
  }
}

TEST(FinderDerivative, FromAFixedPointOrbit) {
  // z from FixedOrbit at 617 bits (10 limbs), read as it is; the reference from the same z.
  const uint32_t p = 11380;
  const int zbits = 617;
  MpC c(zbits);
  mpfr_set_str(c.re.v, "-0.743643887037158704752191506114774", 10, MPFR_RNDN);
  mpfr_set_str(c.im.v, "0.131825904205311970493132056385139", 10, MPFR_RNDN);
  FixedOrbit z;
  ASSERT_TRUE(z.reset(c.re.v, c.im.v, FixedOrbit::limbs_for(zbits)));
  for (int n : {1, 4, 7}) {
    ASSERT_TRUE(z.reset(c.re.v, c.im.v, FixedOrbit::limbs_for(zbits)));
    const int hb = 64 * n + 200;
    MpC h(hb), zx(64 * z.limbs());
    Mpfr h1(hb), h2(hb);
    h.zero();
    FixedDerivative f;
    f.reset(n);
    for (uint32_t k = 1; k <= p; ++k) {
      z.get(zx.re.v, zx.im.v);  // exact
      derivative_step(h, zx, h1, h2);
      f.step(z.re_limbs(), z.re_negative(), z.im_limbs(), z.im_negative(), z.limbs(), z.fraction_bits());
      ASSERT_TRUE(z.step()) << k;
    }
    MpC fd(64 * n);
    f.get(fd.re.v, fd.im.v);
    const double e = log2_rel(fd, h);
    std::cout << n << " limbs from a fixed-point orbit: 2^" << e << "\n";
    EXPECT_LE(e, std::log2(2.0 * p) - (64 * n - 1.5));
  }
}

TEST(FinderDerivative, RealOrbitZeroOrbitAndTinyProducts) {
  // Real c: z's imaginary part is 0 at every step, and so is d's.
  Errors e = run("-1.40115518909205060052", "0", 4000, 617, 4, 252);
  EXPECT_LE(e.fixed, std::log2(2.0 * 4000) - (256 - 1.5));
  // c = 0: z = 0 throughout, d = 1 exactly.
  e = run("0", "0", 100, 617, 4, 252);
  EXPECT_TRUE(std::isinf(e.fixed) && e.fixed < 0);
  // c = 2^-400: z_n ~ c, so 2 z d ~ 2^-399 is far below the 1 it is added to (4 limbs: below the
  // products' buffer; 1 limb: inside it).
  for (int n : {1, 4}) {
    e = run("3.87259191484932e-121", "-1.0e-130", 50, 617, n, 64 * n - 4);
    EXPECT_LE(e.fixed, std::log2(2.0 * 50) - (64 * n - 1.5)) << n;
    EXPECT_EQ(e.exponent, 1);  // d ~ 1
  }
}

}  // namespace
