// The nucleus finder's fixed-point seed orbit (kernels/perturb/finder_fixed_orbit.h): against MPFR
// 700 bits above it, within the bound its stated rounding gives (at most 2^-F per coordinate and
// step, carried along the orbit by E_{n+1} = 2 |z_n| E_n + 2^0.5 2^-F), beside MPFR's own error at
// the bits limbs_for gave the limbs for; its 106-bit points are exactly mpfr_util::to_fe2_cut of
// its values; c out of range is refused, and step() reports a coordinate at 4 or more.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <iostream>

#include "kernels/perturb/finder_fixed_orbit.h"
#include "kernels/perturb/mpfr_util.h"

namespace {

using ds::Mpfr;
using ds::perturb::finder::detail::FixedOrbit;

void mpfr_step(Mpfr& zr, Mpfr& zi, const Mpfr& cr, const Mpfr& ci, Mpfr& s1, Mpfr& s2) {
  ds::mpfr_util::orbit_step(zr.v, zi.v, cr.v, ci.v, s1.v, s2.v);
}

// log2 |a - b| (complex).
double log2_gap(const Mpfr& ar, const Mpfr& ai, const Mpfr& br, const Mpfr& bi) {
  Mpfr er(2000), ei(2000);
  mpfr_sub(er.v, ar.v, br.v, MPFR_RNDN);
  mpfr_sub(ei.v, ai.v, bi.v, MPFR_RNDN);
  mpfr_hypot(er.v, er.v, ei.v, MPFR_RNDN);
  if (mpfr_zero_p(er.v)) return -INFINITY;
  long e = 0;
  const double m = mpfr_get_d_2exp(&e, er.v, MPFR_RNDN);
  return static_cast<double>(e) + std::log2(m);
}

TEST(FinderFixedOrbit, WithinItsBoundBesideMpfrAndCutAsMpfrsPoints) {
  const int bits = 482;  // KF's 5e113 view: 8 limbs, F = 504
  const int n = FixedOrbit::limbs_for(bits), F = 64 * n - 8;
  ASSERT_GE(F, bits + 3);
  const int hb = bits + 700;
  Mpfr cr(bits), ci(bits), zr(bits), zi(bits), s1(bits), s2(bits);
  Mpfr hcr(hb), hci(hb), hr(hb), hi(hb), h1(hb), h2(hb), fr(64 * n), fi(64 * n);
  const char* re = "-0.743643887037158704752191506114774";
  const char* im = "0.131825904205311970493132056385139";
  mpfr_set_str(cr.v, re, 10, MPFR_RNDN);
  mpfr_set_str(ci.v, im, 10, MPFR_RNDN);
  mpfr_set(hcr.v, cr.v, MPFR_RNDN);  // the same c: only the orbits' rounding differs
  mpfr_set(hci.v, ci.v, MPFR_RNDN);
  for (Mpfr* x : {&zr, &zi, &hr, &hi}) mpfr_set_zero(x->v, 1);
  FixedOrbit f;
  ASSERT_TRUE(f.reset(cr.v, ci.v, n));
  // The bound: c's rounding to 2^-F (2^-(F+1) per coordinate) in the first step, 2^-F per
  // coordinate cut in each, carried by the orbit's own growth.
  double bound = 0;  // log2-free: in units of 2^-F
  for (uint32_t k = 1; k <= 11380; ++k) {
    const double za = std::hypot(mpfr_get_d(hr.v, MPFR_RNDN), mpfr_get_d(hi.v, MPFR_RNDN));
    bound = 2 * za * bound + std::sqrt(2.0) * 1.5;
    mpfr_step(hr, hi, hcr, hci, h1, h2);
    mpfr_step(zr, zi, cr, ci, s1, s2);
    f.step();
    if (k % 1000 == 0 || k == 11380) {
      f.get(fr.v, fi.v);
      const double ef = log2_gap(fr, fi, hr, hi), em = log2_gap(zr, zi, hr, hi);
      const double b = std::log2(bound) - F;
      if (k % 5000 == 0 || k == 11380)
        std::cout << k << ": fixed 2^" << ef << " (bound 2^" << b << "), MPFR at " << bits << " bits 2^" << em
                  << "\n";
      EXPECT_LE(ef, b) << k;
      // Its points are MPFR's cut of its value.
      const ds::FloatExp2 a = f.re(), c = ds::mpfr_util::to_fe2_cut(fr.v);
      EXPECT_TRUE(a.hi == c.hi && a.lo == c.lo && a.e == c.e) << k;
      const ds::FloatExp2 d = f.im(), e = ds::mpfr_util::to_fe2_cut(fi.v);
      EXPECT_TRUE(d.hi == e.hi && d.lo == e.lo && d.e == e.e) << k;
    }
  }
}

TEST(FinderFixedOrbit, ZeroAndOutOfRange) {
  Mpfr a(100), b(100), x(128), y(128);
  mpfr_set_zero(a.v, 1);
  mpfr_set_zero(b.v, 1);
  FixedOrbit f;
  ASSERT_TRUE(f.reset(a.v, b.v, 2));
  f.step();
  EXPECT_EQ(f.re().hi, 0.0);
  EXPECT_EQ(f.im().hi, 0.0);
  mpfr_set_si(a.v, -2, MPFR_RNDN);  // the tip: -2, 2, 2, ...
  ASSERT_TRUE(f.reset(a.v, b.v, 2));
  f.step();
  f.step();
  f.get(x.v, y.v);
  EXPECT_EQ(mpfr_cmp_si(x.v, 2), 0);
  EXPECT_TRUE(mpfr_zero_p(y.v));
  mpfr_set_si(a.v, 1, MPFR_RNDN);  // 1, 2, 5: step() says when a coordinate reaches 4
  ASSERT_TRUE(f.reset(a.v, b.v, 2));
  EXPECT_TRUE(f.step());
  EXPECT_TRUE(f.step());
  EXPECT_FALSE(f.step());
  f.get(x.v, y.v);
  EXPECT_EQ(mpfr_cmp_si(x.v, 5), 0);
  mpfr_set_si(a.v, 8, MPFR_RNDN);
  EXPECT_FALSE(f.reset(a.v, b.v, 2));
  mpfr_set_d(a.v, 0.5, MPFR_RNDN);
  mpfr_set_si(b.v, -9, MPFR_RNDN);
  EXPECT_FALSE(f.reset(a.v, b.v, 2));
}

}  // namespace
