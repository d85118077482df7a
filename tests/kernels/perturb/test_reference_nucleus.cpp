// References at the nucleus (kernels/perturb/reference_nucleus.cpp, docs/perturbation.md): a view of
// 2^20 iterations and more, off the centre of the minibrot it holds, perturbs from one period of the
// nucleus's orbit instead of the centre's orbit to the limit, with the same counts as the centre's
// reference and as the MPFR oracle; a view whose nearest nucleus is out of reach keeps the centre's;
// and an orbit that could never fit its memory budget is refused early, with the figures.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "arith/error.h"
#include "kernels/perturb/cpu_detail.h"
#include "kernels/perturb/finder.h"
#include "kernels/perturb/oracle.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "oracle.h"

namespace {

using namespace ds;
using namespace ds::mandel;

// The period-135 minibrot (tests/support/locations.h).
const char* const kNucleusRe = ds::test::kMinibrot135Re;
const char* const kNucleusIm = ds::test::kMinibrot135Im;
using ds::test::shifted;

RenderResult render_cpu(const View& v, bool at_nucleus) {
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.reference_at_nucleus = at_nucleus;
  return render(v, o);
}

// MPFR on an n x n grid of the image: every pixel the oracle trusts (certified and confirmed) has
// its count in `counts`; at least min_trusted of them.
void expect_oracle_counts(const View& v, const std::vector<uint32_t>& counts, int n, int min_trusted) {
  perturb::oracle::OracleOptions oo;
  const Geometry g = geometry(v);
  const auto where = perturb::oracle::grid_pixels(v, n);
  const auto px = perturb::oracle::oracle_pixels(g, v, where, oo, nullptr);
  int trusted = 0;
  for (std::size_t k = 0; k < where.size(); ++k) {
    if (!px[k].trusted()) continue;
    ++trusted;
    EXPECT_EQ(counts[static_cast<std::size_t>(where[k].j) * v.width + where[k].i], px[k].count)
        << where[k].i << "," << where[k].j;
  }
  EXPECT_GE(trusted, min_trusted);
}

// The view's centre lies a tenth of the image's width off the nucleus (zoom 4e50: the image is
// about 1e-50 wide), and the limit is 2^21: the nucleus's orbit of 136 points serves every pixel,
// and the counts equal those from the centre's orbit of 2^21 points and MPFR's on a grid.
TEST(ReferenceNucleus, OffCentreViewPerturbsFromOnePeriodOfTheNucleus) {
  const View v = ds::test::make_view(shifted(kNucleusRe, 1.3e-51), shifted(kNucleusIm, -0.7e-51), "4e50",
                                     uint64_t{1} << 21, 24, 24);
  const RenderResult nuc = render_cpu(v, true);
  ASSERT_FALSE(nuc.cancelled);
  EXPECT_TRUE(nuc.perturb.reference_periodic) << nuc.perturb.reference_cache;
  EXPECT_EQ(nuc.perturb.reference_length, 136u) << nuc.perturb.reference_cache;
  EXPECT_NE(nuc.perturb.reference_cache.find("period-135 nucleus"), std::string::npos)
      << nuc.perturb.reference_cache;
  EXPECT_GT(nuc.perturb.interior_pixels, 0u);
  EXPECT_EQ(nuc.perturb.glitch_unresolved, 0u);

  const RenderResult centre = render_cpu(v, false);
  EXPECT_FALSE(centre.perturb.reference_periodic);
  EXPECT_GT(centre.perturb.reference_length, 136u);
  EXPECT_EQ(nuc.counts, centre.counts);

  expect_oracle_counts(v, nuc.counts, 4, 8);
}

// The wrap: a view of the same minibrot whose centre lies about 7 half-diagonals off the nucleus,
// beyond kNucleusReferenceReach, so the nucleus is refused and the centre's orbit is cut at the
// ball's period. Pixels rebase to Z_0 at its end; their counts equal those from the centre's full
// orbit and MPFR's on a grid.
TEST(ReferenceNucleus, WrappedCentreOrbitGivesTheFullOrbitsCounts) {
  const View v = ds::test::make_view(shifted(kNucleusRe, 4.0e-50), shifted(kNucleusIm, -3.0e-50), "4e50",
                                     uint64_t{1} << 21, 16, 16);
  const RenderResult wrap = render_cpu(v, true);
  ASSERT_FALSE(wrap.cancelled);
  EXPECT_NE(wrap.perturb.reference_cache.find("the centre's orbit to the period"), std::string::npos)
      << wrap.perturb.reference_cache;
  EXPECT_LT(wrap.perturb.reference_length, uint64_t{1} << 20) << wrap.perturb.reference_cache;
  EXPECT_EQ(wrap.perturb.glitch_unresolved, 0u);
  const RenderResult centre = render_cpu(v, false);
  EXPECT_EQ(wrap.counts, centre.counts);
  // The wrap at Z_p (near 0) keeps the pixels' bits: no more pixels are flagged than with the
  // centre's full orbit. (Wrapping one step later, at Z_{p+1} ~ C, flagged all 256.)
  EXPECT_LE(wrap.perturb.glitch_pixels, centre.perturb.glitch_pixels)
      << wrap.perturb.glitch_pixels << " flagged with the wrap, " << centre.perturb.glitch_pixels << " without";
  expect_oracle_counts(v, wrap.counts, 3, 5);
}

// A reference the pixels go round (here the centre's orbit cut at the ball's period 135) has
// suffix entries (bla.h): from each point of the canonical path to its end in one BLA step. Each
// pixel takes them at every wrap (the path's last step of 2, below the table's first level, was two
// plain steps: now part of the skip), with the counts of the table without them.
TEST(ReferenceNucleus, SuffixEntriesTakeAWrappedPixelRoundInOneStep) {
  const View v = ds::test::make_view(shifted(kNucleusRe, 4.0e-50), shifted(kNucleusIm, -3.0e-50), "4e50",
                                     uint64_t{1} << 21, 8, 8);
  perturb::clear_reference_cache();
  const Geometry g = geometry(v);
  bool reused = false;
  const auto ref = perturb::reference_for(g, v, nullptr, nullptr, &reused);
  ASSERT_TRUE(ref);
  ASSERT_NE(ref->ball_period, 0u);
  const FloatExp dcmax = perturb::cpu_detail::view_dcmax(v, g, *ref);
  const auto prep = perturb::cpu_detail::prepared<FloatExp>(ref, dcmax, true);
  const uint64_t kk = ref->length() - 2;
  EXPECT_EQ(prep->bla.suffix, __builtin_popcountll(kk));
  ASSERT_EQ(prep->bla.entries.size(), prep->bla.level_offset[perturb::kMaxBlaLevels] + prep->bla.suffix);
  // The path's points and only they have a suffix entry.
  int on_path = 0;
  for (uint64_t k = 0; k < kk; ++k) on_path += perturb::bla_suffix_index(k, kk) >= 0;
  EXPECT_EQ(on_path, prep->bla.suffix);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  FloatExp off_re, off_im;
  perturb::centre_offset(*ref, g, &off_re, &off_im);
  perturb::PerturbParams<FloatExp> with = perturb::cpu_detail::params_for(
      v, g, o, *ref, prep->zr.data(), prep->zi.data(), prep->bla, off_re, off_im,
      FloatExp::from_string(g.half_step), false);
  perturb::PerturbParams<FloatExp> without = with;
  without.bla_suffix = 0;
  int escaped = 0;
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      const perturb::PerturbPixel a = perturb::perturb_pixel(with, i, j);
      const perturb::PerturbPixel b = perturb::perturb_pixel(without, i, j);
      EXPECT_EQ(a.count, b.count) << i << "," << j;
      if (a.count == 0 || a.count == v.max_iter || a.rebases < 2) continue;
      ++escaped;
      EXPECT_GT(a.skipped, b.skipped) << i << "," << j << ": " << a.rebases << " wraps";
    }
  EXPECT_GE(escaped, 10);
}

// An orbit cut at the ball's period serves every tile of its own view (the oracle suite renders
// pixel by pixel: it was computed again for each, 525 s instead of 5), and no other view.
TEST(ReferenceNucleus, AWrappedOrbitServesEveryTileOfItsView) {
  const View v = ds::test::make_view(shifted(kNucleusRe, 4.0e-50), shifted(kNucleusIm, -3.0e-50), "4e50",
                                     uint64_t{1} << 21, 16, 16);
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  const RenderResult whole = render(v, o);
  ASSERT_NE(whole.perturb.reference_cache.find("the centre's orbit to the period"), std::string::npos);
  const RenderResult tile = render(v, o, Tile{3, 5, 1, 1});
  EXPECT_TRUE(tile.perturb.reference_reused);
  EXPECT_EQ(tile.counts[0], whole.counts[5 * 16 + 3]);
  View other = v;
  other.width = 32;  // another disk
  const RenderResult o2 = render(other, o);
  EXPECT_FALSE(o2.perturb.reference_reused);
}

// Pixels that a wrapped orbit leaves undecided get secondary references cut at the same period
// (cpu_flagged.cpp, render_blob; with the 106-bit tier on, none at all where uncut orbits are dear): uncut, each ran to its pixel's escape (at FractalShark's view 14,
// 1.8e8 MPFR steps at 21,777 bits: hours). FractalShark's view 13 (1e4 digits, the centre's orbit
// wraps at 69,078) at 16x9 with the 106-bit tier off sends every flagged pixel to them: their orbits
// hold one period each, and every pixel decided both ways has the count the 106-bit tier gives.
TEST(ReferenceNucleus, SecondaryReferencesOnAWrappedOrbitStopAtItsPeriod) {
  const auto kv = ds::test::data_file_keys("../../assets/locations/fractalshark/view13.loc", '=');
  ASSERT_FALSE(kv.at("re").empty());
  const View v = ds::test::keyed_view(kv, "re", "im", "zoom", "iterations", 16, 9);
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.refine = false;
  const RenderResult cut = render(v, o);
  ASSERT_FALSE(cut.cancelled);
  ASSERT_NE(cut.perturb.reference_cache.find("the centre's orbit to the period"), std::string::npos)
      << cut.perturb.reference_cache;
  const uint64_t period = cut.perturb.reference_length - 1;
  ASSERT_GT(cut.perturb.secondary_references, 0) << cut.perturb.glitch_pixels << " flagged";
  EXPECT_LE(cut.perturb.secondary_points, static_cast<uint64_t>(cut.perturb.secondary_references) * (period + 1));
  o.refine = true;
  const RenderResult tier = render(v, o);
  ASSERT_FALSE(tier.cancelled);
  int both = 0;
  for (std::size_t k = 0; k < cut.counts.size(); ++k) {
    if (cut.counts[k] == 0 || tier.counts[k] == 0) continue;
    ++both;
    EXPECT_EQ(cut.counts[k], tier.counts[k]) << "pixel " << k;
  }
  // (Since the estimate carries BLA's drops and coefficient roundings per entry and its own square,
  // 8 pixels stay undecided without the tier and 6 with it: test_campaign_findings.cpp.)
  EXPECT_GE(both, 130);
  // With the tier, what it leaves on this dear wrapping orbit gets no reference (cpu_flagged.cpp):
  // every unresolved pixel is counted as such, and none costs an MPFR orbit.
  EXPECT_EQ(tier.perturb.secondary_references, 0);
  EXPECT_EQ(tier.perturb.unresolved_unreferenced, tier.perturb.glitch_unresolved);
  std::printf("view 13, 16x9: %llu flagged, %d secondary references of %llu points in all (period %llu), "
              "%llu unresolved (%llu without a reference); with the 106-bit tier %llu unresolved\n",
              static_cast<unsigned long long>(cut.perturb.glitch_pixels), cut.perturb.secondary_references,
              static_cast<unsigned long long>(cut.perturb.secondary_points),
              static_cast<unsigned long long>(period),
              static_cast<unsigned long long>(cut.perturb.glitch_unresolved),
              static_cast<unsigned long long>(cut.perturb.unresolved_unreferenced),
              static_cast<unsigned long long>(tier.perturb.glitch_unresolved));
}

// The ball method riding along the centre's orbit (BallStop) stops it at the period the finder's own
// ball search finds for the same disk, with Z_p its last point: one orbit instead of two (at
// FractalShark's view 14 the separate search cost as much as the reference, 6 to 8 s each).
TEST(ReferenceNucleus, TheBallRidingOnTheCentresOrbitStopsAtTheFindersPeriod) {
  const View v = ds::test::make_view(shifted(kNucleusRe, 4.0e-50), shifted(kNucleusIm, -3.0e-50), "4e50",
                                     uint64_t{1} << 21, 16, 16);
  const Geometry g = geometry(v);
  const ds::perturb::BallStop b = ds::perturb::view_ball(g, v);
  EXPECT_EQ(b.max_period, (uint64_t{1} << 21) - 1);  // any period below the limit
  const auto ref = ds::perturb::compute_reference(g.re, g.im, ds::perturb::reference_bits(g), v.max_iter,
                                                  ds::perturb::pixel_step(g), nullptr, nullptr, false, 0, 0, "",
                                                  60.0, nullptr, ReferencePath::kAuto,
                                                  ds::perturb::kReferenceShiftLog2, b);
  ASSERT_TRUE(ref);
  const ds::perturb::finder::PeriodResult pr = ds::perturb::finder::find_period(
      g.re, g.im, b.radius, static_cast<uint32_t>(b.max_period), ds::perturb::view_bits(g) + 32, nullptr);
  ASSERT_GT(pr.period, 0u);
  EXPECT_EQ(ref->ball_period, pr.period);
  EXPECT_EQ(ref->length(), uint64_t{pr.period} + 1);
  EXPECT_FALSE(ref->escaped);
  // Without the stop the same orbit runs past the ball's period (to the limit or a periodic stop).
  const auto full = ds::perturb::compute_reference(g.re, g.im, ds::perturb::reference_bits(g), 4096,
                                                   ds::perturb::pixel_step(g), nullptr, nullptr);
  EXPECT_EQ(full->ball_period, 0u);
  EXPECT_GT(full->length(), ref->length());
}

// Below 2^20 iterations, and where the ball finds no period in the view (a view inside the main
// cardioid's interior, far from its nucleus 0), the centre's orbit to the limit is used.
TEST(ReferenceNucleus, CentreOrbitWhereNoNucleusIsInReach) {
  View v = ds::test::make_view("-0.1", "0.1", "1e12", uint64_t{1} << 20, 8, 8);
  const RenderResult r = render_cpu(v, true);
  ASSERT_FALSE(r.cancelled);
  EXPECT_NE(r.perturb.reference_cache.find("no nucleus reference"), std::string::npos) << r.perturb.reference_cache;
  EXPECT_FALSE(r.perturb.reference_periodic);
  EXPECT_EQ(r.perturb.reference_length, v.max_iter + 1) << r.perturb.reference_cache;
  for (uint32_t c : r.counts) EXPECT_EQ(c, v.max_iter);  // all inside
  v.max_iter = 1000;
  const RenderResult short_view = render_cpu(v, true);
  EXPECT_EQ(short_view.perturb.reference_cache.find("nucleus"), std::string::npos)
      << short_view.perturb.reference_cache;
}

// Memory before work: 2^40 iterations of a reference that neither escapes nor turns periodic, with
// a budget of 64 MiB, are refused once the orbit is 2^23 points long and compressed (seconds), with
// the iterations asked, what they would take and the budget; not after filling the budget.
TEST(ReferenceNucleus, AnOrbitThatCannotFitIsRefusedEarlyWithTheFigures) {
  View v = ds::test::make_view("-0.1", "0.1", "1e30", 1000, 4, 4);
  v.max_iter = uint64_t{1} << 40;
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.reference_memory = uint64_t{64} << 20;
  o.reference_at_nucleus = false;
  perturb::clear_reference_cache();
  try {
    (void)render(v, o);
    FAIL() << "a reference of 2^40 points within 64 MiB was not refused";
  } catch (const ViewError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("1099511627776 iterations"), std::string::npos) << m;
    EXPECT_NE(m.find("the budget is"), std::string::npos) << m;
    EXPECT_NE(m.find("compressed"), std::string::npos) << m;
  }
}

// KF's 5e227 at 384x384 and its pixel (362, 349), flagged, through correct_flagged with `wide` tiers
// on or off: the pixel's count in *count, the result's counters in *res.
void correct_5e227_pixel(bool wide, uint64_t* count, RenderResult* res, perturb::oracle::OraclePixel* mpfr,
                         uint64_t* ball_period) {
  const View v = ds::test::kfr_view("5e227.kfr", 384, 384);
  const Geometry g = geometry(v);
  perturb::clear_reference_cache();
  bool reused = false;
  const auto ref = perturb::reference_for(g, v, nullptr, nullptr, &reused);
  ASSERT_TRUE(ref);
  ASSERT_NE(ref->ball_period, 0u) << "the centre's orbit no longer wraps at 5e227: pick another pixel";
  *ball_period = ref->ball_period;
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.wide_tiers = wide;
  const int i = 362, j = 349;
  const std::vector<std::size_t> flagged{static_cast<std::size_t>(j) * 384 + i};
  std::vector<float> smooth(1);
  res->backend = Backend::kCpu;
  perturb::cpu_detail::correct_flagged(v, g, Tile{0, 0, 384, 384}, o, ref, flagged, count, smooth.data(), nullptr,
                                       FieldPtrs{}, res);
  *mpfr = perturb::oracle::oracle_pixel(g, v, i, j, perturb::oracle::OracleOptions{});
}

// Where an uncut orbit is cheap, a pixel that a wrapped orbit leaves undecided gets one
// (cpu_flagged.cpp, kUncutOrbitBudget). KF's 5e227 at 384x384: the centre's orbit wraps at its ball
// period 567,135, and pixel (362, 349) escapes in the second period, where neither the 106-bit tier
// nor its own orbit cut at the period decides it (before: 10 such pixels left unresolved at
// 384x384, 85 at 1024x1024 on the H200). Uncut, its own orbit is certified: MPFR's count, trusted.
// (The wide tiers decide it before any secondary reference: the next test; here they are off.)
TEST(ReferenceNucleus, AWrappedOrbitsUndecidedPixelGetsItsOwnUncutOrbitWhereCheap) {
  uint64_t count = 0, period = 0;
  RenderResult res;
  perturb::oracle::OraclePixel m;
  correct_5e227_pixel(false, &count, &res, &m, &period);
  ASSERT_FALSE(res.cancelled);
  EXPECT_EQ(res.perturb.glitch_unresolved, 0u);
  EXPECT_EQ(res.perturb.secondary_references, 1);
  EXPECT_GT(res.perturb.secondary_points, period + 1);  // it ran past the period
  ASSERT_TRUE(m.trusted()) << perturb::oracle::status_name(m.status);
  EXPECT_EQ(count, m.count);
  std::printf("5e227 384x384 pixel (362, 349): period %llu, count %llu (MPFR %llu at %d and %d bits)\n",
              static_cast<unsigned long long>(period), static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(m.count), m.bits, m.confirm_bits);
}

// The same pixel with the wide tiers on (the default): 106 bits leave it, floatexp4 or floatexp8
// against the wide orbit decide it, with MPFR's certified count, and no secondary reference is made.
TEST(ReferenceNucleus, TheWideTiersDecideThatPixelAsMpfrDoes) {
  uint64_t count = 0, period = 0;
  RenderResult res;
  perturb::oracle::OraclePixel m;
  correct_5e227_pixel(true, &count, &res, &m, &period);
  ASSERT_FALSE(res.cancelled);
  EXPECT_EQ(res.perturb.glitch_unresolved, 0u);
  EXPECT_EQ(res.perturb.secondary_references, 0);
  EXPECT_EQ(res.perturb.refine_pass_decided[3] + res.perturb.refine_pass_decided[4], 1u);
  ASSERT_TRUE(m.trusted()) << perturb::oracle::status_name(m.status);
  EXPECT_EQ(count, m.count);
  std::printf("5e227 384x384 pixel (362, 349), wide tiers: count %llu (MPFR %llu at %d and %d bits)\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(m.count), m.bits,
              m.confirm_bits);
}

// The reference the ball chose (a nucleus's orbit, or the centre's cut at the ball's period) is kept
// in `--reference-cache` under a key with the view's disk (reference_view.cpp): a second render loads
// it and gives the same counts (before, such orbits were never saved: view 10's 14.6e6-point orbit
// took 23.7 s on the CPU at every render).
TEST(ReferenceNucleus, TheBallsReferenceIsKeptInTheCacheFolder) {
  char tmpl[] = "/tmp/deepscope-ballcache-XXXXXX";
  const char* d = mkdtemp(tmpl);
  ASSERT_NE(d, nullptr);
  const std::string dir = d;
  struct Case {
    double dre, dim;
    const char* kind;
  };
  for (const Case& c : {Case{1.3e-51, -0.7e-51, "a nucleus's orbit of period 135)"},
                        Case{4.0e-50, -3.0e-50, "the centre's orbit to the period"}}) {
    const View v = ds::test::make_view(shifted(kNucleusRe, c.dre), shifted(kNucleusIm, c.dim), "4e50",
                                       uint64_t{1} << 21, 16, 16);
    RenderOptions o;
    o.backend = Backend::kCpu;
    o.method = Method::kPerturb;
    o.reference_cache = dir;
    perturb::clear_reference_cache();
    const RenderResult first = render(v, o);
    ASSERT_FALSE(first.cancelled);
    EXPECT_NE(first.perturb.reference_cache.find("; saved " + dir + "/ref-"), std::string::npos)
        << first.perturb.reference_cache;
    perturb::clear_reference_cache();
    const RenderResult second = render(v, o);
    EXPECT_EQ(second.perturb.reference_cache.rfind("loaded " + dir + "/ref-", 0), 0u)
        << second.perturb.reference_cache;
    EXPECT_NE(second.perturb.reference_cache.find(c.kind), std::string::npos) << second.perturb.reference_cache;
    EXPECT_TRUE(second.perturb.reference_reused);
    EXPECT_EQ(second.perturb.reference_length, first.perturb.reference_length);
    EXPECT_EQ(second.counts, first.counts);
    EXPECT_EQ(second.smooth, first.smooth);
  }
  perturb::clear_reference_cache();
  EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}

}  // namespace
