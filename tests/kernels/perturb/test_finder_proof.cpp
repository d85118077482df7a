// The finder's proofs (kernels/perturb/finder.h: prove_nucleus, prove_misiurewicz, and the
// view-level calls that use them): a nucleus of a proper divisor of the period is told apart,
// an unconverged point refused, a Misiurewicz point's least preperiod and period found; and the
// seahorse clicks of issue #43, where the finder reported a period-27 nucleus as period 54 and a
// size of 1.6e37, now report only what the tests' own MPFR orbit confirms.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "kernels/perturb/finder.h"
#include "locations.h"
#include "period_oracle.h"
#include "test_files.h"

namespace {

using namespace ds;
using namespace ds::perturb;

double log2_of(FloatExp x) { return x.e + std::log2(std::fabs(x.m)); }

const char* kIsland3 = "-1.754877666246692760049508896358528691894";
const char* kRabbitRe = "-0.1225611668766536199752455518207356166376";
const char* kRabbitIm = "0.7448617666197442365931704286043923407167";

TEST(FinderProof, NucleiOfTheirLeastPeriodProveOut) {
  const finder::NucleusProof two = finder::prove_nucleus("-1", "0", 2, 128);
  EXPECT_TRUE(two.ok) << two.reason;
  EXPECT_NEAR(to_double(two.size), 0.5, 1e-12);
  EXPECT_EQ(two.divisor, 1u);
  const finder::NucleusProof three = finder::prove_nucleus(kIsland3, "0", 3, 128);
  EXPECT_TRUE(three.ok) << three.reason;
  EXPECT_NEAR(to_double(three.size), 0.0190, 5e-4);
  const finder::NucleusProof rabbit = finder::prove_nucleus(kRabbitRe, kRabbitIm, 3, 128);
  EXPECT_TRUE(rabbit.ok) << rabbit.reason;
  const finder::NucleusProof one = finder::prove_nucleus("0", "0", 1, 128);
  EXPECT_TRUE(one.ok) << one.reason;
  EXPECT_NEAR(to_double(one.size), 1.0, 1e-15);
}

TEST(FinderProof, ANucleusOfADivisorIsNotReportedAtTheMultiple) {
  // c = -1 solves z_4 = 0 and z_6 = 0 too; its least period is 2. The island's nucleus solves z_6.
  for (uint32_t p : {4u, 6u, 8u}) {
    const finder::NucleusProof r = finder::prove_nucleus("-1", "0", p, 128);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.least_period, 2u) << r.reason;
    EXPECT_NE(r.reason.find("is a nucleus of period 2"), std::string::npos) << r.reason;
  }
  const finder::NucleusProof r = finder::prove_nucleus(kIsland3, "0", 6, 128);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.least_period, 3u) << r.reason;
  // (Period 1 at c = 0 divides everything.)
  EXPECT_EQ(finder::prove_nucleus("0", "0", 5, 128).least_period, 1u);
}

TEST(FinderProof, APointThatIsNoRootIsRefused) {
  // 2^-60 from the period-3 nucleus at 128 bits: far above the tolerance 2^-112 |c|.
  const finder::NucleusProof r = finder::prove_nucleus("-1.7548776662466927609", "0", 3, 128);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("did not converge"), std::string::npos) << r.reason;
  // Outside the set: the orbit escapes.
  const finder::NucleusProof e = finder::prove_nucleus("0.5", "0.5", 10, 128);
  EXPECT_FALSE(e.ok);
  EXPECT_NE(e.reason.find("escapes"), std::string::npos) << e.reason;
}

TEST(FinderProof, MisiurewiczLeastPreperiodAndPeriod) {
  const finder::MisiurewiczProof i = finder::prove_misiurewicz("0", "1", 2, 2, 128);
  EXPECT_TRUE(i.ok) << i.reason;
  const finder::MisiurewiczProof later = finder::prove_misiurewicz("0", "1", 4, 2, 128);
  EXPECT_FALSE(later.ok);
  EXPECT_EQ(later.least_preperiod, 2);
  EXPECT_EQ(later.least_period, 2);
  const finder::MisiurewiczProof twice = finder::prove_misiurewicz("0", "1", 2, 6, 128);
  EXPECT_FALSE(twice.ok);
  EXPECT_EQ(twice.least_period, 2);
  EXPECT_EQ(twice.least_preperiod, 2);
  // -2 is (2, 1); -1 is periodic (a nucleus), not a Misiurewicz point.
  EXPECT_TRUE(finder::prove_misiurewicz("-2", "0", 2, 1, 128).ok);
  const finder::MisiurewiczProof nucleus = finder::prove_misiurewicz("-1", "0", 3, 2, 128);
  EXPECT_FALSE(nucleus.ok);
  EXPECT_EQ(nucleus.least_preperiod, 0);
  EXPECT_NE(nucleus.reason.find("periodic"), std::string::npos) << nucleus.reason;
}

// The seahorse view of issue #43 (assets/locations/seahorse.loc at 768x961).
mandel::View seahorse() {
  mandel::View v = ds::test::make_view("-0.7453", "0.1127", "100", 1000, 768, 961);
  return v;
}

// A reported nucleus as the tests' own MPFR orbit sees it ("" when right), at 64 bits more than the
// decimal's digits hold.
std::string verdict(const finder::FoundView& f) {
  const int bits = static_cast<int>(f.nucleus.re.size() * 3.33) + 64;
  return ds::test::check_reported_nucleus(f.nucleus.re, f.nucleus.im, f.nucleus.period,
                                          log2_of(f.nucleus.size), bits);
}

TEST(FinderProof, SeahorseClicksOfIssue43) {
  finder::FindOptions o;
  o.at_pixel = true;
  o.px = 474;
  o.py = 468;
  // The ball method's period is 54; Newton's method reached the nucleus of period 27, which the
  // finder reported as period 54 (size 4e12). Now: the period-27 nucleus, proven, with a note.
  const finder::FoundView a = finder::minibrot_view(seahorse(), o);
  EXPECT_EQ(a.period.period, 54u);
  if (a.ok) {
    EXPECT_EQ(verdict(a), "");
    EXPECT_EQ(a.nucleus.period, 27u);
    EXPECT_NE(a.note.find("least period 27"), std::string::npos) << a.note;
    EXPECT_LT(to_double(a.nucleus.size), 1.0);
  } else {
    EXPECT_FALSE(a.message.empty());
  }
  std::cout << "(474, 468): "
            << (a.ok ? "period " + std::to_string(a.nucleus.period) : "not found: " + a.message) << "\n";
  // Period 100 with size 1.6e37 before.
  o.px = 600;
  o.py = 200;
  const finder::FoundView b = finder::minibrot_view(seahorse(), o);
  EXPECT_EQ(b.period.period, 100u);
  if (b.ok) {
    EXPECT_EQ(verdict(b), "");
    EXPECT_LT(to_double(b.nucleus.size), 1.0);
  } else {
    EXPECT_FALSE(b.message.empty());
  }
  std::cout << "(600, 200): "
            << (b.ok ? "period " + std::to_string(b.nucleus.period) : "not found: " + b.message) << "\n";
}

}  // namespace
