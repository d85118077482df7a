// The window's display forms of a location (app/io/location.h): coordinates positional with all
// their digits, zooms as M.MMMeE, and the rotation and skew controls' pixel map and back.
#include <gtest/gtest.h>

#include <cmath>

#include "app/io/location.h"

namespace ds::app {
namespace {

// The window's one notation: coordinates positional with every digit, zooms as M.MMMeE.
TEST(Location, DisplayNotations) {
  EXPECT_EQ(plain_decimal("-7.4509875852496783436977146e-01"), "-0.74509875852496783436977146");
  EXPECT_EQ(plain_decimal("1E3"), "1000");
  EXPECT_EQ(plain_decimal("-.5"), "-0.5");
  EXPECT_EQ(plain_decimal("0.00"), "0");
  EXPECT_EQ(plain_decimal("12.5e-3"), "0.0125");
  EXPECT_EQ(plain_decimal("-1.759817130804847813610825010561798238243999999999999999999800"),
            "-1.7598171308048478136108250105617982382439999999999999999998");
  EXPECT_EQ(plain_decimal("abc"), "abc");
  EXPECT_EQ(zoom_notation("1.00e014"), "1e14");
  EXPECT_EQ(zoom_notation("5.00e113"), "5e113");
  EXPECT_EQ(zoom_notation("1E1086"), "1e1086");
  EXPECT_EQ(zoom_notation("4.00000000000E533"), "4e533");
  EXPECT_EQ(zoom_notation("250"), "2.5e2");
  EXPECT_EQ(zoom_notation("0.5"), "5e-1");
  EXPECT_EQ(zoom_notation("1.23456789012345e20"), "1.23456789e20");
  EXPECT_EQ(zoom_notation("9.99999999996e5"), "1e6");  // rounding carries into the exponent
  EXPECT_EQ(zoom_notation("1.2345e14", 3), "1.23e14");
}

}  // namespace
}  // namespace ds::app

namespace ds::app {
namespace {

// The window's rotation and skew controls: the map of (rotation, skew angle, amount) and back.
TEST(Location, RotationAndSkewRoundTrip) {
  const PixelMap id = rotation_skew_map(0, 0, 0);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(id[i], kIdentityMap[i], 1e-15);
  const PixelMap r90 = rotation_skew_map(90, 0, 0);  // x right -> y up: a quarter turn
  EXPECT_NEAR(r90[0], 0, 1e-15);
  EXPECT_NEAR(std::fabs(r90[1]), 1, 1e-15);
  for (double rot : {-150.0, 0.0, 30.0, 170.0})
    for (double angle : {-60.0, 20.0, 75.0})
      for (double amount : {0.5, 1.5}) {
        const PixelMap m = rotation_skew_map(rot, angle, amount);
        EXPECT_NEAR(m[0] * m[3] - m[1] * m[2], 1.0, 1e-12);  // area kept
        double r = 0, a = 0, k = 0;
        ASSERT_TRUE(rotation_skew_of(m, &r, &a, &k));
        const PixelMap back = rotation_skew_map(r, a, k);
        for (int i = 0; i < 4; ++i) EXPECT_NEAR(back[i], m[i], 1e-9) << rot << " " << angle << " " << amount;
        EXPECT_NEAR(k, amount, 1e-9);
      }
  double r = 0, a = 0, k = 0;
  EXPECT_FALSE(rotation_skew_of(PixelMap{1, 0, 0, -1}, &r, &a, &k));  // a mirror
  EXPECT_FALSE(rotation_skew_of(PixelMap{2, 0, 0, 2}, &r, &a, &k));   // a scale
}

}  // namespace
}  // namespace ds::app
