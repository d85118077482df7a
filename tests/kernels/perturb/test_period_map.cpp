// The period map (kernels/perturb/period_map.h): a wrapping reference's whole period as one
// polynomial step. Its values agree with the period's steps within its stated bound (in long
// double, at points drawn across its domain); renders with it give the counts of BLA alone, while
// it takes most of the iterations; and where a view has it, the render says so.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <atomic>
#include <chrono>
#include <complex>
#include <random>
#include <string>
#include <thread>

#include "kernels/perturb/cpu_detail.h"
#include "kernels/perturb/period_map.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"

namespace {

using namespace ds;
using namespace ds::mandel;
using LD = long double;
using CLD = std::complex<LD>;

// The period-135 minibrot (tests/support/locations.h).
const char* const kNucleusRe = ds::test::kMinibrot135Re;
const char* const kNucleusIm = ds::test::kMinibrot135Im;
using ds::test::shifted;
const char* kView25Re = "0.356992006738525396399695724115347205";
const char* kView25Im = "0.0691411005282446050826514373514151521";

LD to_ld(const FloatExp2& x) { return std::ldexp(static_cast<LD>(x.hi) + static_cast<LD>(x.lo), x.e); }
LD to_ld(FloatExp x) { return std::ldexp(static_cast<LD>(x.m), x.e); }

// The view's reference (as a render takes it) and its map over the view's dc.
struct Built {
  std::shared_ptr<const perturb::Reference> ref;
  perturb::PeriodMap pm;
};
Built build_for(const View& v) {
  perturb::clear_reference_cache();
  const Geometry g = geometry(v);
  bool reused = false;
  Built b;
  b.ref = perturb::reference_for(g, v, nullptr, nullptr, &reused);
  if (b.ref) b.pm = perturb::build_period_map(*b.ref, perturb::cpu_detail::view_dcmax(v, g, *b.ref));
  return b;
}

// At points (t, v) of the map's domain (|t| up to its radius, |v| up to rv), F(t, v) against the
// period's steps dz <- 2 Z dz + dz^2 + v in long double from dz_1 = t: within the map's error bound
// plus the steps' own roundings (a few 2^-64 of the scale per step at most).
void expect_map_matches_steps(const Built& b) {
  ASSERT_TRUE(b.ref);
  const perturb::PeriodMap& pm = b.pm;
  ASSERT_GT(pm.degree, 0) << pm.why;
  const uint64_t last = b.ref->length() - 1;
  ASSERT_EQ(pm.steps, last - 1);
  std::vector<CLD> z(last + 1);
  for (uint64_t k = 0; k <= last; ++k) z[k] = CLD(to_ld(b.ref->re106(k)), to_ld(b.ref->im106(k)));
  const LD radius = to_ld(pm.radius[0]), rt = to_ld(pm.rt), rv = to_ld(pm.rv);
  const LD scale = to_ld(pm.scale[0]), bound = to_ld(pm.error[0]);
  std::mt19937_64 gen(25);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const int n = pm.degree;
  for (int trial = 0; trial < 12; ++trial) {
    // From the domain's edge down to 10^-11 of it.
    const LD r = radius * std::pow(LD(10), -LD(trial)) * LD(0.7);
    const CLD t(r * unit(gen), r * unit(gen)), v(rv * 0.7 * unit(gen), rv * 0.7 * unit(gen));
    CLD dz = t;
    for (uint64_t k = 1; k < last; ++k) dz = LD(2) * z[k] * dz + dz * dz + v;
    const CLD x = t / rt, y = v / rv;
    CLD f = 0;
    for (int i = 0; i <= n; ++i)
      for (int j = 0; i + j <= n; ++j)
        f += pm.coef[perturb::period_map_index(i, j, n)] * std::pow(x, i) * std::pow(y, j);
    // The least rung of domain 0 that holds t (as the pixels take it), and its bound.
    std::size_t c = static_cast<std::size_t>(pm.first_rung[0]);
    while (c + 1 < pm.rung_radius.size() && std::abs(t) < to_ld(pm.rung_radius[c + 1])) ++c;
    const LD here = to_ld(pm.rung_error[c]);
    EXPECT_LE(here, bound);
    const LD steps_rounding = LD(1e-18) * std::sqrt(static_cast<LD>(last)) * std::abs(dz);
    EXPECT_LE(std::abs(f - dz), here + steps_rounding)
        << "trial " << trial << ": |t| " << static_cast<double>(std::abs(t)) << ", |F - steps| "
        << static_cast<double>(std::abs(f - dz)) << ", bound " << static_cast<double>(here) << ", scale "
        << static_cast<double>(scale);
    // The map is not trivially small: it carries the period's values.
    EXPECT_GT(std::abs(dz), scale * LD(1e-30));
  }
  EXPECT_LE(bound, scale * LD(perturb::kPeriodMapTolerance) * LD(1.0001));
}

TEST(PeriodMap, NucleusPeriodMatchesTheStepsWithinItsBound) {
  // 1.3e-51 off the nucleus: the view's reference is the nucleus's period of 135 steps.
  const View v = ds::test::make_view(shifted(kNucleusRe, 1.3e-51), shifted(kNucleusIm, -0.7e-51), "4e50",
                                     uint64_t{1} << 21, 24, 24);
  const Built b = build_for(v);
  ASSERT_TRUE(b.ref);
  EXPECT_TRUE(b.ref->periodic);
  expect_map_matches_steps(b);
}

// FractalShark's view 25: the centre's orbit cut at the ball's period 100,000 (the nucleus is 25
// half-diagonals off), where BLA skipped 0.05 % of the iterations: the map serves the pixels' t up
// to |Z_100000|^2 (about 2.3e-16) and beyond.
TEST(PeriodMap, FractalSharkView25PeriodMatchesTheStepsWithinItsBound) {
  const View v = ds::test::make_view(kView25Re, kView25Im, "1e19", 10000000, 16, 9);
  const Built b = build_for(v);
  ASSERT_TRUE(b.ref);
  EXPECT_EQ(b.ref->ball_period, 100000u);
  expect_map_matches_steps(b);
  EXPECT_GE(to_ld(b.pm.radius[0]), LD(2.3e-16));
  // The double words' domains for the tier: 2^-70 (coarse pass) and 2^-90 (fine pass), nested.
  ASSERT_TRUE(b.pm.wide);
  for (int w = 1; w <= 2; ++w) {
    ASSERT_GT(to_ld(b.pm.radius[w]), LD(0)) << "domain " << w;
    EXPECT_LE(to_ld(b.pm.error[w]),
              to_ld(b.pm.scale[w]) * LD(w == 1 ? perturb::kPeriodMapToleranceWide : perturb::kPeriodMapToleranceFine));
    EXPECT_LE(to_ld(b.pm.radius[w]), to_ld(b.pm.radius[w - 1]));
  }
}

// The build pays only where pixels x iterations are many times its products: view 25 as
// FractalShark renders it (1920x1080 to 1.1e9), not 8x6 to 10^7; a short period at any size.
TEST(PeriodMap, BuiltOnlyWhereTheViewPaysForIt) {
  const View v = ds::test::make_view(kView25Re, kView25Im, "1e19", 10000000, 16, 9);
  const Built b = build_for(v);
  ASSERT_TRUE(b.ref);
  EXPECT_TRUE(perturb::period_map_worth(*b.ref, 1920 * 1080, 1100100100));
  EXPECT_FALSE(perturb::period_map_worth(*b.ref, 8 * 6, 10000000));
  const View mb = ds::test::make_view(shifted(kNucleusRe, 1.3e-51), shifted(kNucleusIm, -0.7e-51), "4e50",
                                      uint64_t{1} << 21, 16, 16);
  const Built n = build_for(mb);
  ASSERT_TRUE(n.ref);
  EXPECT_TRUE(perturb::period_map_worth(*n.ref, 16 * 16, uint64_t{1} << 21));
}

// FractalShark's view 13 (1e4406; the centre's orbit wraps at 69,078, with points out of the
// double words' range, so the map would be long double's): long double's roundings alone end at
// about 2^-54 of the map's scale there, past the 2^-60 it must keep, so the build stops within its
// first hundred steps and says why (it ran all 69,077 steps first: 3.5 s on 2 cores, 12 s of the
// GPU host's 15 s render at 1920x1080).
TEST(PeriodMap, LongDoublesRoundingsStopTheBuildEarly) {
  const auto kv = ds::test::data_file_keys("../../assets/locations/fractalshark/view13.loc", '=');
  ASSERT_FALSE(kv.at("re").empty());
  const View v = ds::test::keyed_view(kv, "re", "im", "zoom", "iterations", 16, 9);
  const Built b = build_for(v);
  ASSERT_TRUE(b.ref);
  EXPECT_EQ(b.ref->ball_period, 69078u);
  EXPECT_EQ(b.pm.degree, 0);
  EXPECT_FALSE(b.pm.wide);
  EXPECT_NE(b.pm.why.find("its roundings pass 2^-58 of the map by step"), std::string::npos) << b.pm.why;
  const std::size_t at = b.pm.why.find("by step ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_LT(std::stoul(b.pm.why.substr(at + 8)), 1000u) << b.pm.why;
}

// A build that stops early ends on every thread: the calling thread sets the stop for the next
// barrier, so no worker leaves a step early and none is waited for at a barrier it never reaches.
// With a plain flag read after each barrier, FractalShark's view 5 at 10^6 iterations (its centre's
// orbit cut at a period where every domain reaches |z| = 2) hung in the condition wait for minutes
// (`render --location assets/locations/fractalshark/view05.loc --size 8x5 --iter 1000000 --backend
// cpu --period-map-always`, its first try), and this test on that code ran into its 100 s timeout.
// Two builds, each at its own dcmax (the cache keeps one).
TEST(PeriodMap, ABuildThatStopsEarlyNeverHangs) {
  const auto kv = ds::test::data_file_keys("../../assets/locations/fractalshark/view05.loc", '=');
  View v = ds::test::keyed_view(kv, "re", "im", "zoom", "iterations", 8, 5);
  v.max_iter = 1000000;
  const Built b = build_for(v);
  ASSERT_TRUE(b.ref);
  const FloatExp dcmax = perturb::cpu_detail::view_dcmax(v, geometry(v), *b.ref);
  for (int k = 1; k <= 2; ++k) {
    const perturb::PeriodMap pm = perturb::build_period_map(*b.ref, dcmax * FloatExp(1.0 + k * 0x1p-20));
    ASSERT_EQ(pm.degree, 0);
    ASSERT_NE(pm.why.find("every domain reaches |z| = 2 within the period (by step"), std::string::npos) << pm.why;
  }
}

// Ctrl-C during the build (5 to 6 s for view 25's period of 100,000 on 2 cores): it stops within
// 64 of its steps, says "cancelled", and is not kept, so the next build of the same map is whole.
TEST(PeriodMap, ACancelStopsTheBuildAndIsNotKept) {
  const View v = ds::test::make_view(kView25Re, kView25Im, "1e19", 10000000, 16, 9);
  perturb::clear_reference_cache();
  const Geometry g = geometry(v);
  bool reused = false;
  const auto ref = perturb::reference_for(g, v, nullptr, nullptr, &reused);
  ASSERT_TRUE(ref);
  // Its own dcmax, so that no map an earlier test built is taken from the cache.
  const FloatExp dcmax = perturb::cpu_detail::view_dcmax(v, g, *ref) * FloatExp(1.0 + 0x1p-30);
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel.store(true);
  });
  const auto t0 = std::chrono::steady_clock::now();
  const perturb::PeriodMap cut = perturb::build_period_map(*ref, dcmax, &cancel);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();
  EXPECT_EQ(cut.degree, 0);
  EXPECT_EQ(cut.why, "cancelled");
  EXPECT_LT(seconds, 1.5);
  const perturb::PeriodMap whole = perturb::build_period_map(*ref, dcmax);
  EXPECT_GT(whole.degree, 0) << whole.why;
}

RenderResult render_cpu(const View& v, bool period_map) {
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.period_map = period_map;
  o.period_map_always = true;  // these small views would not pay for it (period_map_worth)
  return render(v, o);
}

// The same counts with and without the map, which takes most of the iterations where BLA took
// few: at the minibrot (nucleus reference, 2^21 iterations) and at view 25 (10^7 iterations).
// Two of view 25's pixels, near the minibrot cardioid's cusp, pin MPFR's counts (`deepscope oracle`
// at each pixel's c: certified at 150 bits, confirmed at 225): a map whose 1 / rt was rounded to
// 53 bits gave the 106-bit tier 7,748,293 and 8,321,500 there, undecided by nothing.
TEST(PeriodMap, RendersTheCountsOfBlaAlone) {
  const View minibrot = ds::test::make_view(shifted(kNucleusRe, 1.3e-51), shifted(kNucleusIm, -0.7e-51),
                                            "4e50", uint64_t{1} << 21, 16, 16);
  const View view25 = ds::test::make_view(kView25Re, kView25Im, "1e19", 10000000, 8, 6);
  for (int k = 0; k < 2; ++k) {
    const View& v = k == 0 ? minibrot : view25;
    const RenderResult with = render_cpu(v, true);
    const RenderResult without = render_cpu(v, false);
    ASSERT_FALSE(with.cancelled);
    EXPECT_GT(with.perturb.period_map_degree, 0) << with.perturb.period_map_note;
    EXPECT_EQ(without.perturb.period_map_degree, 0);
    EXPECT_EQ(with.counts, without.counts);
    EXPECT_EQ(with.perturb.glitch_unresolved, without.perturb.glitch_unresolved);
    // The first pass's skips: a few more at the minibrot (its interior pixels are proven within
    // a few periods), over ten times BLA's at view 25.
    const double factor = k == 1 ? 10.0 : 1.0;
    EXPECT_GT(static_cast<double>(with.perturb.bla_skipped), factor * static_cast<double>(without.perturb.bla_skipped))
        << with.perturb.bla_skipped << " skipped with the map, " << without.perturb.bla_skipped << " without";
    if (k == 1) {
      EXPECT_EQ(with.counts[5], 7748337u);                      // (5, 0)
      EXPECT_EQ(with.counts[2 * view25.width + 3], 8321498u);  // (3, 2)
    }
  }
}

// The 106-bit tier's fine pass takes the map's 2^-90 domain first, then its table alone for what
// that leaves: view 25 at 16x9 to 10^7 sends one pixel there (the coarse pass decides the other
// 59), and every count equals the render without any map: kNoMapCounts, written by `render
// --location assets/locations/fractalshark/view25.loc --size 16x9 --iter 10000000 --no-period-map
// --backend cpu --counts` at 10c7e4f (BLA alone, 15 s on 2 cores: stored, so that this test
// renders once; RendersTheCountsOfBlaAlone compares the two paths live at 8x6, and pins two pixels
// to MPFR). At 64x36 and the full 1.1e9 on 2 cores: the fine pass 8.7 s -> 3.3 s, the same 28 of 30
// pixels, the same counts.
TEST(PeriodMap, TheFinePassWithTheMapGivesTheCountsOfBlaAlone) {
  static const uint64_t kNoMapCounts[16 * 9] = {
      1814971, 2137106, 1954421, 2262157, 2068320, 2219837, 2740701, 2844356, 3140491, 4881322, 6578880, 7326677, 4832432, 3920838, 3342330, 2200443,
      1910188, 1980890, 1879620, 1924452, 2027768, 2159891, 2979578, 3208566, 2875931, 3181538, 3591388, 8216107, 6815055, 4069339, 5257460, 2066460,
      1734616, 1781176, 1852118, 2145719, 2094399, 2147584, 2384328, 3332158, 3164266, 3386389, 4016543, 5397299, 5555310, 6524727, 8055319, 2297447,
      2345111, 1987030, 1886958, 1963643, 2023153, 2452488, 3959145, 9246808, 4238161, 9177293, 9182325, 4121699, 9841094, 6109568, 3951898, 2619381,
      1755403, 2094264, 2296870, 2120248, 2766334, 2854879, 3627608, 10000000, 6057217, 8315742, 3150043, 5078177, 4284386, 8832720, 2819615, 2152194,
      1754685, 2462652, 2128553, 2131081, 2232603, 2793028, 4442678, 3154069, 2413138, 2206279, 3470765, 6078880, 3521494, 2444328, 3079478, 1677311,
      1689458, 4943851, 2790104, 2737999, 5354302, 3486309, 3750330, 5140501, 1990474, 2137749, 2251180, 3934742, 2135379, 3443537, 1753087, 1504864,
      1449255, 1637385, 2231708, 3286789, 3087307, 2241661, 6854588, 3781219, 1647320, 3022460, 2862667, 3391721, 1925670, 1425346, 1330277, 1427325,
      1409663, 1380812, 1858409, 1616695, 1833760, 4008724, 1823569, 1585852, 1551362, 2720452, 1694112, 1425200, 1334412, 1412690, 1558954, 1269232};
  const View v = ds::test::make_view(kView25Re, kView25Im, "1e19", 10000000, 16, 9);
  const RenderResult with = render_cpu(v, true);
  ASSERT_FALSE(with.cancelled);
  ASSERT_GT(with.perturb.period_map_degree, 0) << with.perturb.period_map_note;
  EXPECT_GE(with.perturb.refine_pass_pixels[1], 1u);
  EXPECT_EQ(with.perturb.refine_pass_decided[1], with.perturb.refine_pass_pixels[1]);
  EXPECT_EQ(with.perturb.glitch_unresolved, 0u);
  ASSERT_EQ(with.counts.size(), 16u * 9u);
  for (std::size_t k = 0; k < with.counts.size(); ++k) EXPECT_EQ(with.count(k), kNoMapCounts[k]) << "pixel " << k;
}

// Interior proofs across the map's steps (perturb.cuh: a map step carries g'' from the map's
// polynomial, with Cauchy's bounds on its truncation): at view 25 (16x9, 1.1e9 iterations; at a
// deeper zoom the ball finds a period above the map's 2^18), pixels inside the period-100,000
// minibrot reach the limit through about 11,000 map steps each, and while the map's steps counted
// as BLA's (no g'') none was proven (`render --location assets/locations/fractalshark/view25.loc
// --size 64x36 --backend cpu`: 0 interior pixels of 5 at the limit; now 5, the same counts). The
// proofs change no count: the render with the interior test off gives the same.
TEST(PeriodMap, InteriorProofsRunAcrossTheMapsSteps) {
  const View v = ds::test::make_view(kView25Re, kView25Im, "1e19", 1100100100, 16, 9);
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.period_map_always = true;  // as a render of this view at 1920x1080 would build it
  const RenderResult proven = render(v, o);
  ASSERT_FALSE(proven.cancelled);
  ASSERT_GT(proven.perturb.period_map_degree, 0) << proven.perturb.period_map_note;
  EXPECT_GE(proven.perturb.interior_pixels, 1u);
  o.interior = false;
  const RenderResult plain = render(v, o);
  EXPECT_EQ(plain.perturb.interior_pixels, 0u);
  EXPECT_EQ(proven.counts, plain.counts);
  uint64_t at_limit = 0;
  for (std::size_t k = 0; k < proven.counts.size(); ++k) at_limit += proven.count(k) == v.max_iter;
  EXPECT_GE(at_limit, proven.perturb.interior_pixels);
}

}  // namespace
