// The reference orbit's step on several threads (kernels/perturb/reference_step.h): the same orbit,
// bit for bit, as single-thread MPFR; every stored point MPFR's own rounding of it; and the automatic
// choice by precision.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>

#include "kernels/perturb/mpfr_util.h"
#include "kernels/perturb/perturb.h"
#include "kernels/perturb/reference_step.h"
#include "reference_compare.h"

namespace {

using namespace ds;

// KF's 5e113 benchmark centre (its reference escapes after 22,906 points at 450 bits): thousands of
// handovers at a precision where each product is short, the hardest case for the handover's
// ordering, and a real orbit that escapes.
TEST(ReferenceStep, ThreadedOrbitEqualsSingleThreadMpfrAtKf5e113) {
  const std::string re =
      "-1.47981577613247326072298452597877854692240725774045369689878510139864920741002293820250517329282011"
      "227363313053159203914640783415609608168660705123082446357179491909705403381200";
  const std::string im =
      "-0.00063911193261361727152139632255671572957303918943984736047394936471220951961813321928573067036466"
      "151147195436388486168819318341208023229522609015461543581599807510715681229605";
  const FloatExp step = FloatExp::make(1.0, -386);
  // Two threads over the whole escaping orbit; three over its first 6,000 steps (on a 2-core
  // machine three spinning threads wait for a core at every handover: the whole orbit took most
  // of this test's 44 to 56 s there).
  for (const auto& [threads, limit] : {std::pair<int, uint64_t>{2, 40000}, std::pair<int, uint64_t>{3, 6000}}) {
    const auto one = perturb::compute_reference(re, im, 450, limit, step, nullptr, nullptr, false, 1);
    ASSERT_TRUE(one);
    EXPECT_EQ(one->step_threads, 1);
    const auto many = perturb::compute_reference(re, im, 450, limit, step, nullptr, nullptr, false, threads);
    ASSERT_TRUE(many);
    EXPECT_EQ(many->step_threads, threads);
    test::expect_same_orbit(*one, *many);
    if (threads == 2) {
      EXPECT_TRUE(one->escaped);
      EXPECT_GT(one->length(), 1000u);
    } else {
      EXPECT_EQ(one->length(), limit + 1);  // cut at the limit, thousands of handovers
    }
  }
}

// Every stored point is MPFR's own rounding of the MPFR orbit: the step computed again here in
// MPFR (mpfr_util::orbit_step: the same operations and roundings) and each point rounded by MPFR's
// calls (to_fe, then tail_of's exact remainder), not by the limb reading that the orbit uses.
TEST(ReferenceStep, StoredPointsAreMpfrsRoundingsAtKf5e113) {
  const std::string re =
      "-1.47981577613247326072298452597877854692240725774045369689878510139864920741002293820250517329282011"
      "227363313053159203914640783415609608168660705123082446357179491909705403381200";
  const std::string im =
      "-0.00063911193261361727152139632255671572957303918943984736047394936471220951961813321928573067036466"
      "151147195436388486168819318341208023229522609015461543581599807510715681229605";
  const auto ref = perturb::compute_reference(re, im, 450, 40000, FloatExp::make(1.0, -386), nullptr, nullptr,
                                              false, 1);
  ASSERT_TRUE(ref && ref->escaped);
  Mpfr cr(ref->bits), ci(ref->bits), x(ref->bits), y(ref->bits), s1(ref->bits), s2(ref->bits), tmp(ref->bits);
  mpfr_util::parse(cr.v, re);
  mpfr_util::parse(ci.v, im);
  mpfr_set_zero(x.v, 1);
  mpfr_set_zero(y.v, 1);
  const auto bits_of = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
  };
  const auto same = [&](FloatExp a, FloatExp b) { return bits_of(a.m) == bits_of(b.m) && a.e == b.e; };
  uint64_t differ = 0;
  for (uint64_t n = 1; n < ref->length(); ++n) {
    mpfr_util::orbit_step(x.v, y.v, cr.v, ci.v, s1.v, s2.v);
    const FloatExp fr = mpfr_util::to_fe(x.v), fi = mpfr_util::to_fe(y.v);
    const double lr = mpfr_util::tail_of(x.v, fr, tmp.v), li = mpfr_util::tail_of(y.v, fi, tmp.v);
    FloatExp pr, pi;
    double plr, pli;
    ref->point(n, &pr, &pi, &plr, &pli);
    if (!same(fr, pr) || !same(fi, pi) || bits_of(lr) != bits_of(plr) || bits_of(li) != bits_of(pli)) ++differ;
  }
  EXPECT_EQ(differ, 0u) << "of " << ref->length() - 1 << " points";
  EXPECT_GT(ref->length(), 20000u);
}

// Where the split is chosen: long mantissas (a point inside the main cardioid with digits to 40,000
// bits, whose orbit neither escapes nor stops).
TEST(ReferenceStep, ThreadedOrbitEqualsSingleThreadMpfrAtFortyThousandBits) {
  std::string re = "-0.1", im = "0.6";
  uint64_t s = 12345;
  for (int k = 0; k < 12100; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    re += static_cast<char>('0' + (s >> 60) % 10);
    im += static_cast<char>('0' + (s >> 56) % 10);
  }
  const FloatExp step = FloatExp::make(1.0, -39936);
  const auto one = perturb::compute_reference(re, im, 40000, 60, step, nullptr, nullptr, false, 1);
  const auto three = perturb::compute_reference(re, im, 40000, 60, step, nullptr, nullptr, false, 3);
  ASSERT_TRUE(one && three);
  EXPECT_EQ(one->length(), 61u);
  test::expect_same_orbit(*one, *three);
}

TEST(ReferenceStep, AutomaticChoiceSplitsOnlyLongMantissasWhereCoresExist) {
  EXPECT_EQ(perturb::reference_step_threads(512, 16), 1);
  EXPECT_EQ(perturb::reference_step_threads(4096, 16), 1);
  EXPECT_EQ(perturb::reference_step_threads(8192, 16), 3);
  EXPECT_EQ(perturb::reference_step_threads(32768, 16), 3);
  EXPECT_EQ(perturb::reference_step_threads(1 << 20, 3), 1);
  EXPECT_EQ(perturb::reference_step_threads(1 << 20, 1), 1);
  EXPECT_EQ(perturb::reference_step_threads(1 << 20, 2), 1);
  EXPECT_EQ(perturb::reference_step_threads(1 << 20, 16), 3);
}

}  // namespace

// A render's host arrays of a reference's points (cpu.cpp, prepared) that would not fit the machine
// are refused before they are made (ViewError, exit 2 in the CLI), with the figures and what to do
// instead: 2e9 points of f64 deltas (16 bytes) beside a packed orbit of 3 GiB on an 8 GiB machine.
// The same arrays fit a 64 GiB machine, and a machine of unknown memory (0) is not checked.
TEST(ReferenceMemory, HostArraysPastTheMachineAreRefusedWithTheFigures) {
  const uint64_t gib = uint64_t{1} << 30;
  try {
    perturb::check_host_point_arrays(2'000'000'000ULL, 16, 3 * gib, 8 * gib, "the render's points",
                                     "Render on a GPU.");
    ADD_FAILURE() << "32 GB of arrays fit an 8 GiB machine";
  } catch (const mandel::ViewError& e) {
    EXPECT_STREQ(e.what(),
                 "the render's points would take 29.8 GiB of host memory (2000000000 points, 16 bytes each) "
                 "beside the reference orbit's own 3 GiB: more than three quarters of this machine's 8 GiB. "
                 "Render on a GPU.");
  }
  EXPECT_NO_THROW(perturb::check_host_point_arrays(2'000'000'000ULL, 16, 3 * gib, 64 * gib, "x", "y"));
  // Three quarters is the line: 6 GiB of arrays and orbit together fit 8 GiB, a byte more does not.
  EXPECT_NO_THROW(perturb::check_host_point_arrays(3 * gib / 16, 16, 3 * gib, 8 * gib, "x", "y"));
  EXPECT_THROW(perturb::check_host_point_arrays(3 * gib / 16, 16, 3 * gib + 1, 8 * gib, "x", "y"),
               mandel::ViewError);
  EXPECT_NO_THROW(perturb::check_host_point_arrays(2'000'000'000ULL, 16, 3 * gib, 0, "x", "y"));
}

// A reference that would outgrow the memory it may use stops with ViewError (exit 2 in the CLI),
// naming the iteration, the bytes it held and what the iterations asked could need. Inside the main
// cardioid away from a nucleus the orbit neither escapes nor stops as periodic, so only the budget
// ends it. Past an eighth of the budget (2,730 points of 48 bytes) the orbit is packed
// (orbit_codec.h), so 1 MiB, counted twice, holds far more than the 10,922 points it held unpacked
// (the check stopped it at iteration 8192 then).
TEST(ReferenceMemory, AnOrbitPastItsBudgetIsRefusedWithTheFigures) {
  const ds::FloatExp step = ds::FloatExp::make(1.0, -60);
  try {
    perturb::compute_reference("-0.1", "0.6", 128, 1'000'000'000'000ULL, step, nullptr, nullptr, false, 1, 1 << 20);
    ADD_FAILURE() << "a 1e12-iteration orbit fit in 1 MiB";
  } catch (const mandel::ViewError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("needs more memory"), std::string::npos) << m;
    EXPECT_NE(m.find("bytes a point, compressed"), std::string::npos) << m;
    const std::size_t at = m.find("at iteration ");
    ASSERT_NE(at, std::string::npos) << m;
    const unsigned long long n = std::stoull(m.substr(at + 13));
    EXPECT_GT(n, 100000u) << m;  // over 9x what fit unpacked
    EXPECT_EQ(n % 4096, 0u) << m;
  }
  // The same orbit within its budget: 5,000 iterations in 1 MiB.
  const auto ref = perturb::compute_reference("-0.1", "0.6", 128, 5000, step, nullptr, nullptr, false, 1, 1 << 20);
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ(ref->length(), 5001u);
}
