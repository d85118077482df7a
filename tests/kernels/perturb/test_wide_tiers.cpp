// The wide tiers (cpu_tiers.cpp, wide_tiers; docs/perturbation/errors.md, "Undecided pixels"): on an orbit
// that wraps, the pixels that 106-bit deltas leave undecided go to floatexp4 and then floatexp8
// deltas against a wide orbit of the same centre (wide_reference: 424-bit points, its error as a
// shift of c 2^-448 of the first orbit's). At FractalShark's view 13 (1e4406, the centre's orbit
// wraps at 69,078; pixels go round it up to 1,600 times and their deltas lose about 0.39 bits a
// turn) they decide most of what 106 bits left.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "kernels/perturb/cpu_detail.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"

namespace {

using namespace ds;
using namespace ds::mandel;

View view13(int w, int h) {
  const auto kv = ds::test::data_file_keys("../../assets/locations/fractalshark/view13.loc", '=');
  return ds::test::keyed_view(kv, "re", "im", "zoom", "iterations", w, h);
}

// The wide orbit: the same length and stop as the first, its points agreeing with the first's to
// the first's 106 bits, and its error as a shift of c far below the first's.
TEST(WideTiers, TheWideOrbitIsTheSameOrbitWider) {
  using namespace ds::perturb;
  const View v = view13(16, 9);
  const Geometry g = geometry(v);
  bool reused = false;
  const auto ref = reference_for(g, v, nullptr, {}, &reused);
  ASSERT_TRUE(ref);
  ASSERT_EQ(ref->ball_period, 69078u);
  std::string why;
  const auto wide = wide_reference(ref, nullptr, &why);
  ASSERT_TRUE(wide) << why;
  EXPECT_EQ(wide->length(), ref->length());
  EXPECT_EQ(wide->ball_period, ref->ball_period);
  EXPECT_EQ(wide->wide_terms, kWideTerms);
  EXPECT_GE(wide->bits, ref->bits + kWideExtraBits);
  EXPECT_LT(to_double(wide->error_shift / ref->error_shift), 0x1p-300);
  for (uint64_t k = 1; k < ref->length(); k += 997) {
    const FloatExp2 a = ref->re106(k), b = to_floatexp2(wide->re_wide<8>(k));
    const double rel = to_double(to_floatexp(abs(a - b)) / to_floatexp(abs(a)));
    ASSERT_LT(rel, 0x1p-100) << "point " << k;
  }
  // Cached: the same object for the same orbit.
  EXPECT_EQ(wide_reference(ref, nullptr, &why), wide);
}

// The wide orbit computed beside the first pass (WidePrefetch, cpu.cpp: the device's renders): the
// tiers' wide_reference waits for it and gets the very orbit it would have computed itself; a
// prefetch stopped by its end (no pixel wanted it) leaves nothing cached, and the tiers compute it;
// a cancel while they wait stops the prefetch and is answered "cancelled". Each case on its own copy
// of the first orbit (the cache is keyed by the orbit's object).
TEST(WideTiers, ThePrefetchedWideOrbitIsTheOneTheTiersWouldCompute) {
  using namespace ds::perturb;
  const View v = view13(16, 9);
  bool reused = false;
  const auto ref = reference_for(geometry(v), v, nullptr, {}, &reused);
  ASSERT_TRUE(ref);
  std::string why;
  double waited = -1;
  const auto direct = wide_reference(ref, nullptr, &why, &waited);
  ASSERT_TRUE(direct) << why;
  EXPECT_EQ(waited, -1) << "no prefetch ran";
  const auto same_points = [&](const Reference& w) {
    ASSERT_EQ(w.length(), direct->length());
    EXPECT_EQ(w.bits, direct->bits);
    EXPECT_EQ(w.ball_period, direct->ball_period);
    EXPECT_TRUE(w.zr_lo == direct->zr_lo && w.zi_lo == direct->zi_lo);
    EXPECT_TRUE(w.zr_w == direct->zr_w && w.zi_w == direct->zi_w);
    for (uint64_t k = 0; k < w.length(); ++k)
      ASSERT_TRUE(w.zr[k].m == direct->zr[k].m && w.zr[k].e == direct->zr[k].e && w.zi[k].m == direct->zi[k].m &&
                  w.zi[k].e == direct->zi[k].e)
          << "point " << k;
  };

  const auto ref2 = std::make_shared<const Reference>(*ref);
  {
    WidePrefetch prefetch(ref2);
    ASSERT_TRUE(prefetch.started());
    const auto w = wide_reference(ref2, nullptr, &why, &waited);
    ASSERT_TRUE(w) << why;
    EXPECT_GE(waited, 0) << "the tiers waited for the prefetch";
    same_points(*w);
    waited = -1;
    EXPECT_EQ(wide_reference(ref2, nullptr, &why, &waited), w) << "and it is cached";
    EXPECT_EQ(waited, 0) << "as a prefetched orbit";
  }

  const auto ref3 = std::make_shared<const Reference>(*ref);
  { WidePrefetch stopped(ref3); }  // ended at once, as by a render whose tiers never asked
  waited = -1;
  const auto w3 = wide_reference(ref3, nullptr, &why, &waited);
  ASSERT_TRUE(w3) << why;
  EXPECT_EQ(waited, -1);
  same_points(*w3);

  const auto ref4 = std::make_shared<const Reference>(*ref);
  WidePrefetch prefetch(ref4);
  ASSERT_TRUE(prefetch.started());
  const std::atomic<bool> cancel{true};
  why.clear();
  EXPECT_FALSE(wide_reference(ref4, &cancel, &why));
  EXPECT_EQ(why, "cancelled");
}

// floatexp4 and floatexp8 against the wide orbit, pixel by pixel over view 13 at 48x27: where both
// decide, the same count, and where the first pass (floatexp deltas against the first orbit)
// decided, the same count as that; floatexp8 decides every pixel floatexp4 does and more.
TEST(WideTiers, Floatexp4AndFloatexp8AgreeWithEachOtherAndTheFirstPass) {
  using namespace ds::perturb;
  using namespace ds::perturb::cpu_detail;
  const View v = view13(48, 27);
  const Geometry g = geometry(v);
  bool reused = false;
  const auto ref = reference_for(g, v, nullptr, {}, &reused);
  ASSERT_TRUE(ref);
  std::string why;
  const auto wide = wide_reference(ref, nullptr, &why);
  ASSERT_TRUE(wide) << why;
  RenderOptions o;
  const FloatExp dcmax = view_dcmax(v, g, *ref);
  // The first pass's parameters (floatexp deltas at this depth).
  const auto first = prepared<FloatExp>(ref, dcmax, true);
  FloatExp fre, fim;
  centre_offset(*ref, g, &fre, &fim);
  FloatExp2 hs2, r2, i2;
  centre_offset(*ref, g, &r2, &i2, &hs2);
  const PerturbParams<FloatExp> p1 = params_for(v, g, o, *ref, first->zr.data(), first->zi.data(), first->bla, fre,
                                                fim, to_floatexp(hs2), false);
  const auto tier4 = prepared<FloatExpN<4>>(wide, view_dcmax(v, g, *wide), true);
  const auto tier8 = prepared<FloatExpN<8>>(wide, view_dcmax(v, g, *wide), true);
  PerturbParams<FloatExpN<4>> p4 = params_for(v, g, o, *wide, tier4->zr.data(), tier4->zi.data(), tier4->bla,
                                              FloatExp(0.0), FloatExp(0.0), FloatExp(0.0), false);
  PerturbParams<FloatExpN<8>> p8 = params_for(v, g, o, *wide, tier8->zr.data(), tier8->zi.data(), tier8->bla,
                                              FloatExp(0.0), FloatExp(0.0), FloatExp(0.0), false);
  centre_offset(*wide, g, &p4.off_re, &p4.off_im, &p4.half_step);
  centre_offset(*wide, g, &p8.off_re, &p8.off_im, &p8.half_step);
  int first_decided = 0, d4 = 0, d8 = 0, compared = 0;
  // The middle rows, where the view's flagged pixels lie.
  for (int j = 6; j < 20; j += 2)
    for (int i = 16; i < 30; ++i) {
      const PerturbPixel a = perturb_pixel<FloatExp>(p1, i, j);
      const PerturbPixel b = perturb_pixel<FloatExpN<4>>(p4, i, j);
      const PerturbPixel c = perturb_pixel<FloatExpN<8>>(p8, i, j);
      first_decided += a.count != 0;
      d4 += b.count != 0;
      d8 += c.count != 0;
      if (b.count != 0) EXPECT_NE(c.count, 0u) << i << "," << j << ": floatexp8 left what floatexp4 decided";
      if (b.count != 0 && c.count != 0) {
        ++compared;
        EXPECT_EQ(b.count, c.count) << i << "," << j;
      }
      if (a.count != 0 && c.count != 0) EXPECT_EQ(a.count, c.count) << i << "," << j;
    }
  std::printf("view 13, 98 pixels: first pass decided %d, floatexp4 %d, floatexp8 %d (%d compared)\n",
              first_decided, d4, d8, compared);
  EXPECT_GT(d8, d4);
  EXPECT_GT(d4, first_decided);
}

// The whole render: the wide passes run after the 106-bit ones and decide pixels those left, and
// the PNG's unresolved count is what is left (36 of 55 flagged were left before them). Then the
// interior proofs (cpu_tiers.cpp, interior_proofs) take what every tier left (15 of 131 pixels,
// on the inner edge of the minibrot's region) and decide most of it (13): each pixel they decide is
// inside (max_iter), and every pixel decided with the interior test off has the same count with it.
TEST(WideTiers, TheRenderDecidesWhat106BitsLeft) {
  const View v = view13(48, 27);
  RenderOptions o;
  o.backend = Backend::kCpu;
  const RenderResult r = render(v, o);
  const PerturbInfo& p = r.perturb;
  RenderOptions plain = o;
  plain.interior = false;
  const RenderResult q = render(v, plain);
  EXPECT_EQ(q.perturb.refine_pass_pixels[5], 0u);
  std::printf("view 13 at 48x27: the interior proofs decided %llu of %llu; %llu unresolved, %llu without the "
              "interior test\n",
              static_cast<unsigned long long>(p.refine_pass_decided[5]),
              static_cast<unsigned long long>(p.refine_pass_pixels[5]),
              static_cast<unsigned long long>(p.glitch_unresolved),
              static_cast<unsigned long long>(q.perturb.glitch_unresolved));
  EXPECT_GT(p.refine_pass_decided[5], 0u);
  EXPECT_TRUE(p.proof_note.empty()) << p.proof_note;
  EXPECT_LT(p.glitch_unresolved * 4, q.perturb.glitch_unresolved);
  std::size_t gained = 0;
  for (std::size_t k = 0; k < r.counts.size(); ++k) {
    if (q.counts[k] != 0 && r.counts[k] != 0) EXPECT_EQ(q.counts[k], r.counts[k]) << "pixel " << k;
    if (q.counts[k] == 0 && r.counts[k] != 0) {
      ++gained;
      EXPECT_EQ(r.counts[k], v.max_iter) << "pixel " << k << ": decided by the proofs, so inside";
    }
  }
  EXPECT_GT(gained, 0u);
  std::printf("view 13 at 48x27: %llu flagged, %llu unresolved; floatexp4 %llu of %llu, floatexp8 %llu of %llu\n",
              static_cast<unsigned long long>(p.glitch_pixels), static_cast<unsigned long long>(p.glitch_unresolved),
              static_cast<unsigned long long>(p.refine_pass_decided[3]),
              static_cast<unsigned long long>(p.refine_pass_pixels[3]),
              static_cast<unsigned long long>(p.refine_pass_decided[4]),
              static_cast<unsigned long long>(p.refine_pass_pixels[4]));
  EXPECT_GT(p.refine_pass_pixels[3], 0u);
  EXPECT_GT(p.refine_pass_decided[3], 0u);
  EXPECT_GT(p.refine_pass_decided[4], 0u);
  EXPECT_EQ(p.refine_pass_pixels[4], p.refine_pass_pixels[3] - p.refine_pass_decided[3]);
  EXPECT_LT(p.glitch_unresolved * 2, p.refine_pass_pixels[3]);
  uint64_t zeros = 0;
  for (uint64_t c : r.counts) zeros += c == 0;
  EXPECT_EQ(zeros, p.glitch_unresolved);
  // floatexp4's sample first (wide_sample_from lowered from 512): here it decides more than an
  // eighth of it, so the tiers go on over the rest, and the image is the same pixel for pixel.
  RenderOptions sampled = o;
  sampled.wide_sample_from = 8;
  const RenderResult s = render(v, sampled);
  EXPECT_TRUE(s.perturb.wide_note.empty()) << s.perturb.wide_note;
  EXPECT_EQ(s.perturb.refine_pass_pixels[3], p.refine_pass_pixels[3]);
  EXPECT_EQ(s.perturb.refine_pass_decided[3], p.refine_pass_decided[3]);
  EXPECT_EQ(s.counts, r.counts);
}

View view14(int w, int h) {
  const auto kv = ds::test::data_file_keys("../../assets/locations/fractalshark/view14.loc", '=');
  return ds::test::keyed_view(kv, "re", "im", "zoom", "iterations", w, h);
}

// Where floatexp4 decides under an eighth of its sample, the wide tiers stop there and say so: at
// view 14 (1e6516) they decided 72 of 939 pixels at 192x108 for 7.9 s on the H200, here 0 of 5 at
// 16x9 (wide_sample_from lowered from 512, so a sample of 1). The rest stay undecided (count 0,
// marked), floatexp8 does not run, and every pixel decided is the one the full passes decide.
TEST(WideTiers, ASampleThatDecidesLittleStopsThem) {
  const View v = view14(16, 9);
  RenderOptions o;
  o.backend = Backend::kCpu;
  const RenderResult full = render(v, o);
  RenderOptions sampled = o;
  sampled.wide_sample_from = 4;
  const RenderResult r = render(v, sampled);
  const PerturbInfo& p = r.perturb;
  std::printf("view 14 at 16x9: floatexp4 %llu of %llu (full: %llu of %llu); %llu unresolved (full: %llu); %s\n",
              static_cast<unsigned long long>(p.refine_pass_decided[3]),
              static_cast<unsigned long long>(p.refine_pass_pixels[3]),
              static_cast<unsigned long long>(full.perturb.refine_pass_decided[3]),
              static_cast<unsigned long long>(full.perturb.refine_pass_pixels[3]),
              static_cast<unsigned long long>(p.glitch_unresolved),
              static_cast<unsigned long long>(full.perturb.glitch_unresolved), p.wide_note.c_str());
  ASSERT_GE(full.perturb.refine_pass_pixels[3], 4u);
  EXPECT_EQ(full.perturb.refine_pass_decided[3], 0u);
  EXPECT_NE(p.wide_note.find("floatexp4 decided 0 of an evenly spread sample of"), std::string::npos) << p.wide_note;
  EXPECT_LT(p.refine_pass_pixels[3], full.perturb.refine_pass_pixels[3]);
  EXPECT_EQ(p.refine_pass_pixels[4], 0u);
  EXPECT_GE(p.glitch_unresolved, full.perturb.glitch_unresolved);
  for (std::size_t k = 0; k < r.counts.size(); ++k)
    if (r.counts[k] != 0) EXPECT_EQ(r.counts[k], full.counts[k]) << "pixel " << k;
}

}  // namespace
