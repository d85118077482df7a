// Two reference orbits equal field by field and point by point, bit for bit (the threaded step
// against single-thread MPFR, a loaded file against the orbit that was saved).
#pragma once
#include <gtest/gtest.h>

#include "kernels/perturb/perturb.h"

namespace ds::test {

inline void expect_same_orbit(const perturb::Reference& a, const perturb::Reference& b) {
  EXPECT_EQ(a.re, b.re);
  EXPECT_EQ(a.im, b.im);
  EXPECT_EQ(a.bits, b.bits);
  EXPECT_EQ(a.bits_asked, b.bits_asked);
  EXPECT_EQ(a.max_iter, b.max_iter);
  EXPECT_EQ(a.escaped, b.escaped);
  EXPECT_EQ(a.periodic, b.periodic);
  EXPECT_EQ(a.escape_certified, b.escape_certified);
  EXPECT_TRUE(a.error_shift == b.error_shift && a.step == b.step && a.last_error == b.last_error &&
              a.nucleus_distance == b.nucleus_distance);
  ASSERT_EQ(a.length(), b.length());
  // Packed or not (Reference::point reads either).
  for (uint64_t k = 0; k < a.length(); ++k) {
    FloatExp ar, ai, br, bi;
    double arl, ail, brl, bil;
    a.point(k, &ar, &ai, &arl, &ail);
    b.point(k, &br, &bi, &brl, &bil);
    ASSERT_TRUE(ar == br && ai == bi) << "point " << k;
    ASSERT_EQ(arl, brl) << "point " << k;
    ASSERT_EQ(ail, bil) << "point " << k;
  }
}

}  // namespace ds::test
