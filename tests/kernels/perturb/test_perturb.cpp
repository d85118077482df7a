// Perturbation engine (kernels/perturb/perturb.h): agreement with direct limb rendering at 1e30 and 1e60
// (escape counts on >= 99.9% of pixels, smooth counts within kSmoothTol), with an independent
// MPFR per-pixel oracle at 1e300 (floatexp deltas) and beyond f64's range (flagged pixels
// re-evaluated), BLA on and off, reference reuse, method selection, cancel and progress, and
// (device section) CUDA against the CPU.
#include <gtest/gtest.h>

#include "kernels/core/device.h"
#include <mpfr.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>

#include "kernels/core/cpu_parallel.h"
#include "kernels/perturb/bla.h"
#include "kernels/perturb/oracle.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "oracle.h"
#include "test_files.h"

namespace {

using namespace ds;
using namespace ds::mandel;

const char* kSeedRe = ds::test::kMisiurewiczRe;
const char* kSeedIm = ds::test::kMisiurewiczIm;

// Smooth counts of two correct renders differ only through the rounding of z at escape.
constexpr double kSmoothTol = 1e-3;

// The Misiurewicz point of preperiod 11 and period 3 near -0.4844 + 0.6419i (the seed is
// test_mandelbrot's 1e60 centre), refined by MPFR Newton to `bits` bits, `digits` digits.
void misiurewicz(int bits, int digits, std::string* re, std::string* im) {
  perturb::misiurewicz_point(kSeedRe, kSeedIm, 11, 3, bits, digits, re, im);
}

using ds::test::kfr_view;
using ds::test::make_view;

const std::string& deep_re() {
  static std::string re, im;
  if (re.empty()) misiurewicz(4400, 1200, &re, &im);
  return re;
}
const std::string& deep_im() {
  static std::string re, im;
  if (re.empty()) misiurewicz(4400, 1200, &re, &im);
  return im;
}

RenderResult perturb_cpu(const View& v, DeltaFormat d = DeltaFormat::kAuto, bool bla = true) {
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.delta = d;
  o.bla = bla;
  return render(v, o);
}

// The cheapest limb format that resolves the view with auto's guard bits.
Arith limb_for(const View& v) {
  const Geometry g = geometry(v);
  for (Arith a : {Arith::kLimb4, Arith::kLimb6, Arith::kLimb8, Arith::kLimb12, Arith::kLimb16})
    if (resolves(a, g)) return a;
  ADD_FAILURE() << "no limb format resolves the view";
  return Arith::kLimb16;
}

struct Agreement {
  double count_share = 0;  // share of pixels with equal counts
  double max_smooth = 0;   // largest smooth difference where counts agree
};
Agreement compare(const std::vector<uint32_t>& ca, const std::vector<float>& sa,
                  const std::vector<uint32_t>& cb, const std::vector<float>& sb) {
  EXPECT_EQ(ca.size(), cb.size());
  Agreement a;
  size_t same = 0;
  for (size_t k = 0; k < ca.size() && k < cb.size(); ++k) {
    if (ca[k] != cb[k]) continue;
    ++same;
    a.max_smooth = std::max(a.max_smooth, std::fabs(static_cast<double>(sa[k]) - sb[k]));
  }
  a.count_share = ca.empty() ? 1.0 : static_cast<double>(same) / ca.size();
  return a;
}

void expect_agrees_with_direct(const View& v) {
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.arith = limb_for(v);
  const RenderResult direct = render(v, o);
  for (DeltaFormat d : {DeltaFormat::kAuto, DeltaFormat::kFloatExp}) {
    for (bool bla : {true, false}) {
      const RenderResult p = perturb_cpu(v, d, bla);
      ASSERT_EQ(p.method, Method::kPerturb);
      const Agreement a = compare(p.counts, p.smooth, direct.counts, direct.smooth);
      std::cout << "zoom " << v.zoom << " " << format_label(p) << (bla ? " bla" : " no-bla") << " vs "
                << arith_name(direct.arith) << ": counts equal on " << 100 * a.count_share
                << "%, max smooth diff " << a.max_smooth << ", BLA skipped " << p.perturb.bla_skipped
                << " of " << p.iterations << " iterations, rebases " << p.perturb.rebases << ", flagged "
                << p.perturb.glitch_pixels << "\n";
      EXPECT_GE(a.count_share, 0.999);
      EXPECT_LE(a.max_smooth, kSmoothTol);
      if (!bla) {
        EXPECT_EQ(p.perturb.bla_skipped, 0u);
      }
    }
  }
}

// Independent oracle: every pixel iterated in MPFR at `prec` bits (c exact from the decimal
// centre and s/2 = 2/(zoom height); z_1 = c; first n >= 1 with |z_n|^2 > 4, or max_iter), with the
// engine's smooth formula evaluated in binary64 from z at escape.
void mpfr_render(const View& v, mpfr_prec_t prec, std::vector<uint32_t>* counts, std::vector<float>* smooth) {
  counts->assign(static_cast<size_t>(v.width) * v.height, 0);
  smooth->assign(counts->size(), 0.0f);
  ds::parallel_for(static_cast<size_t>(v.height), 1, [&](size_t r0, size_t r1) {
    mpfr_t re, im, hs, cr, ci, x, y, x2, y2, t;
    mpfr_inits2(prec, re, im, hs, cr, ci, x, y, x2, y2, t, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_str(re, v.re.c_str(), 10, MPFR_RNDN);
    mpfr_set_str(im, v.im.c_str(), 10, MPFR_RNDN);
    mpfr_set_str(hs, v.zoom.c_str(), 10, MPFR_RNDN);
    mpfr_mul_ui(hs, hs, static_cast<unsigned long>(v.height), MPFR_RNDN);
    mpfr_ui_div(hs, 2, hs, MPFR_RNDN);
    for (size_t r = r0; r < r1; ++r)
      for (int i = 0; i < v.width; ++i) {
        mpfr_mul_si(t, hs, 2 * i + 1 - v.width, MPFR_RNDN);
        mpfr_add(cr, re, t, MPFR_RNDN);
        mpfr_mul_si(t, hs, 2 * static_cast<long>(r) + 1 - v.height, MPFR_RNDN);
        mpfr_sub(ci, im, t, MPFR_RNDN);
        mpfr_set(x, cr, MPFR_RNDN);
        mpfr_set(y, ci, MPFR_RNDN);
        uint32_t n = 1;
        double xd = 0, yd = 0;
        bool escaped = false;
        for (; n < v.max_iter; ++n) {
          xd = mpfr_get_d(x, MPFR_RNDN);
          yd = mpfr_get_d(y, MPFR_RNDN);
          if (xd * xd + yd * yd > 4.0) {
            escaped = true;
            break;
          }
          mpfr_sqr(x2, x, MPFR_RNDN);
          mpfr_sqr(y2, y, MPFR_RNDN);
          mpfr_mul(t, x, y, MPFR_RNDN);
          mpfr_sub(x, x2, y2, MPFR_RNDN);
          mpfr_add(x, x, cr, MPFR_RNDN);
          mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
          mpfr_add(y, t, ci, MPFR_RNDN);
        }
        const size_t k = r * v.width + i;
        (*counts)[k] = escaped ? n : v.max_iter;
        float s = static_cast<float>(v.max_iter);
        if (escaped) {
          // binary64 tail to |z| > 2^8, then m + 1 - log2(log2 |z|)
          const double crd = mpfr_get_d(cr, MPFR_RNDN), cid = mpfr_get_d(ci, MPFR_RNDN);
          double m = n, r2 = xd * xd + yd * yd;
          for (int q = 0; q < 64 && r2 <= 65536.0; ++q) {
            const double nx = xd * xd - yd * yd + crd;
            yd = 2.0 * xd * yd + cid;
            xd = nx;
            r2 = xd * xd + yd * yd;
            m += 1.0;
          }
          const double mu = m + 1.0 - std::log2(0.5 * std::log2(r2));
          s = static_cast<float>(mu > 0 ? mu : 0);
        }
        (*smooth)[k] = s;
      }
    mpfr_clears(re, im, hs, cr, ci, x, y, x2, y2, t, static_cast<mpfr_ptr>(nullptr));
  });
}

TEST(Perturb, AgreesWithDirectLimbAtKf1e14) {
  expect_agrees_with_direct(make_view(ds::test::kKf1e14Re, ds::test::kKf1e14Im,
                                      "1e14", 4036, 64, 64));
}

// A view centred on the period-3 nucleus ("airplane"): the reference stops after one period and
// every pixel rebases there; the image still matches direct rendering.
TEST(Perturb, PeriodicReferenceAtANucleus) {
  const View v = make_view("-1.754877666246692760049508896358528691894606617772793143989283970646081", "0",
                           "1e20", 1000, 64, 64);
  const RenderResult p = perturb_cpu(v);
  EXPECT_TRUE(p.perturb.reference_periodic);
  EXPECT_EQ(p.perturb.reference_length, 4u);  // Z_0 .. Z_3, Z_3 ~ 0
  expect_agrees_with_direct(v);
}

TEST(Perturb, AgreesWithDirectLimbAt1e30) {
  expect_agrees_with_direct(
      make_view(deep_re().substr(0, 120), deep_im().substr(0, 120), "1e30", 3000, 64, 64));
}

TEST(Perturb, AgreesWithDirectLimbAt1e60) {
  expect_agrees_with_direct(
      make_view(deep_re().substr(0, 120), deep_im().substr(0, 120), "3e60", 3000, 64, 64));
}

// Pixel spacing 2^-1001: past binary64, so auto takes the scaled binary64 deltas; floatexp forced
// gives the same picture.
TEST(Perturb, AgreesWithMpfrAt1e300) {
  const View v = make_view(deep_re().substr(0, 400), deep_im().substr(0, 400), "2e300", 6000, 16, 16);
  std::vector<uint32_t> oc;
  std::vector<float> os;
  mpfr_render(v, 1200, &oc, &os);
  for (DeltaFormat d : {DeltaFormat::kAuto, DeltaFormat::kFloatExp}) {
    const RenderResult p = perturb_cpu(v, d);
    EXPECT_EQ(p.perturb.delta, d == DeltaFormat::kAuto ? DeltaFormat::kF64Scaled : DeltaFormat::kFloatExp);
    const Agreement a = compare(p.counts, p.smooth, oc, os);
    const auto mm = std::minmax_element(oc.begin(), oc.end());
    std::cout << "1e300 " << format_label(p) << ": counts " << *mm.first << ".." << *mm.second
              << ", equal on " << 100 * a.count_share << "%, max smooth diff " << a.max_smooth
              << ", BLA skipped " << p.perturb.bla_skipped << " of " << p.iterations << "\n";
    EXPECT_GE(a.count_share, 0.999);
    EXPECT_LE(a.max_smooth, kSmoothTol);
    EXPECT_GT(p.perturb.bla_skipped, 0u);
    EXPECT_GT(*mm.second, *mm.first);  // the view is not flat
  }
}

// The scaled binary64 deltas (perturb.cuh) at both ends of the spacings auto gives them (2^-905.6
// and 2^-1396.2, 16 pixels high) agree with MPFR and with floatexp, fields included; just past
// their range auto takes floatexp.
TEST(Perturb, ScaledDeltasAgreeWithMpfrAcrossTheirRange) {
  for (const char* zoom : {"1e272", "5e419"}) {
    SCOPED_TRACE(zoom);
    const View v = make_view(deep_re().substr(0, 500), deep_im().substr(0, 500), zoom, 6000, 16, 16);
    const int bits = static_cast<int>(std::ceil(geometry(v).log2_zoom + std::log2(v.height))) + 80;
    std::vector<uint32_t> oc;
    std::vector<float> os;
    mpfr_render(v, bits, &oc, &os);
    RenderOptions o;
    o.backend = Backend::kCpu;
    o.method = Method::kPerturb;
    o.fields = kFieldDistance | kFieldPhase;
    const RenderResult s = render(v, o);
    o.delta = DeltaFormat::kFloatExp;
    const RenderResult f = render(v, o);
    EXPECT_EQ(s.perturb.delta, DeltaFormat::kF64Scaled);
    const Agreement a = compare(s.counts, s.smooth, oc, os);
    const auto mm = std::minmax_element(oc.begin(), oc.end());
    std::cout << zoom << " " << format_label(s) << ": counts " << *mm.first << ".." << *mm.second
              << ", equal to MPFR on " << 100 * a.count_share << "%, max smooth diff " << a.max_smooth
              << ", flagged " << s.perturb.glitch_pixels << "\n";
    EXPECT_GE(a.count_share, 0.999);
    EXPECT_LE(a.max_smooth, kSmoothTol);
    EXPECT_GT(*mm.second, *mm.first);
    EXPECT_GT(s.perturb.bla_skipped, 0u);
    EXPECT_EQ(s.counts, f.counts);
    EXPECT_LE(s.perturb.glitch_pixels, f.perturb.glitch_pixels);  // nothing flagged that floatexp decides
    EXPECT_EQ(s.perturb.bla_skipped, f.perturb.bla_skipped);
    ASSERT_EQ(s.dex.size(), f.dex.size());
    ASSERT_FALSE(s.dex.empty());
    double worst = 0;
    for (size_t k = 0; k < s.dex.size(); ++k) {
      const double d = std::hypot(s.dex[k] - f.dex[k], s.dey[k] - f.dey[k]);
      worst = std::max(worst, d / std::max(1e-30, std::hypot(static_cast<double>(f.dex[k]), f.dey[k])));
      EXPECT_NEAR(s.phase[k], f.phase[k], 1e-5);
    }
    EXPECT_LE(worst, 1e-5);  // the distance estimate's vector, relative
  }
  View past = make_view(deep_re(), deep_im(), "1e421", 6000, 16, 16);
  EXPECT_EQ(perturb::auto_delta(geometry(past)), DeltaFormat::kFloatExp);
  past.zoom = "1e270";
  EXPECT_EQ(perturb::auto_delta(geometry(past)), DeltaFormat::kF64);
}

// A minibrot past binary64's range at another program's location: rust-fractal's mitosis view,
// its central minibrot (period 22,002, zoom 3.38e362) as our finder gave it (the file's header).
// Its escaping pixels follow the minibrot's period about ten times, passing close to 0 each time.
// The scaled binary64 deltas give floatexp's counts and agree with the MPFR oracle (certified and
// confirmed one rung higher) on a 3 x 3 grid.
TEST(Perturb, ScaledDeltasAgreeWithMpfrAtRustFractalsMitosisMinibrot) {
  const View v = ds::test::loc_view("locations/rf-mitosis-minibrot.loc", 32, 18);
  perturb::clear_reference_cache();
  const RenderResult s = perturb_cpu(v);
  const RenderResult f = perturb_cpu(v, DeltaFormat::kFloatExp);
  ASSERT_EQ(s.perturb.delta, DeltaFormat::kF64Scaled);
  EXPECT_TRUE(s.perturb.reference_periodic);
  EXPECT_GT(std::count(s.counts.begin(), s.counts.end(), static_cast<uint32_t>(v.max_iter)),
            0);  // the minibrot
  size_t equal = 0;
  for (size_t k = 0; k < s.counts.size(); ++k) {
    equal += s.counts[k] == f.counts[k];
    EXPECT_LE(std::abs(static_cast<int64_t>(s.counts[k]) - static_cast<int64_t>(f.counts[k])), 1) << k;
  }
  EXPECT_GE(equal, s.counts.size() * 99 / 100);
  EXPECT_LE(s.perturb.glitch_pixels, f.perturb.glitch_pixels);
  namespace orc = ds::perturb::oracle;
  const orc::OracleGrid grid = orc::oracle_grid(geometry(v), v, 3, orc::OracleOptions{});
  int trusted = 0, same = 0;
  for (size_t q = 0; q < grid.pixels.size(); ++q) {
    if (!grid.pixels[q].trusted()) continue;
    ++trusted;
    const uint64_t got = s.counts[static_cast<size_t>(grid.where[q].j) * v.width + grid.where[q].i];
    same += got == grid.pixels[q].count;
    EXPECT_LE(std::abs(static_cast<int64_t>(got) - static_cast<int64_t>(grid.pixels[q].count)), 1) << q;
  }
  const auto mm = std::minmax_element(s.counts.begin(), s.counts.end());
  std::cout << "mitosis minibrot 32x18 " << format_label(s) << ": counts " << *mm.first << ".." << *mm.second
            << ", equal to floatexp on " << equal << " of " << s.counts.size() << ", to MPFR on " << same
            << " of " << trusted << " trusted (" << grid.seconds << " s); " << s.seconds
            << " s against floatexp's " << f.seconds << " s\n";
  EXPECT_GE(trusted, 7);
  EXPECT_GE(same, trusted - 1);
  EXPECT_GT(*mm.second, *mm.first);
}

// f64 deltas forced where they underflow: every pixel is flagged and re-rendered with floatexp2
// deltas (the 106-bit tier, with its own 106-bit BLA table), so the image still equals the oracle.
TEST(Perturb, FlaggedPixelsAreEvaluatedDirectly) {
  const View v = make_view(deep_re().substr(0, 420), deep_im().substr(0, 420), "1e320", 6000, 8, 8);
  std::vector<uint32_t> oc;
  std::vector<float> os;
  mpfr_render(v, 1300, &oc, &os);
  const RenderResult p = perturb_cpu(v, DeltaFormat::kF64);
  EXPECT_EQ(p.perturb.glitch_pixels, 64u);
  EXPECT_GT(p.perturb.refine_skipped, 0u);  // the tier's BLA steps ran (and the counts still agree)
  EXPECT_EQ(p.perturb.glitch_refined_dw, 0u);  // 1e320 is below the double word's floor: floatexp2 decides
  const Agreement a = compare(p.counts, p.smooth, oc, os);
  EXPECT_EQ(a.count_share, 1.0);
  EXPECT_LE(a.max_smooth, kSmoothTol);
  for (uint32_t c : p.counts) EXPECT_GT(c, 0u);
}

// KF's 5e113 benchmark, a view near (not on) a minibrot made by another program: the reference's
// orbit passes within 2^-64 of 0 long before it escapes, and the old stopping rule made every pixel
// rebase onto the wrong orbit (one flat count, 13,762, where MPFR gives 22,3xx to 23,6xx). The
// oracle: MPFR at log2(zoom height) + 80 bits, trusted where a run with 320 more bits agrees.
TEST(Perturb, Kf5e113AgreesWithMpfr) {
  const View v = kfr_view("5e113.kfr", 16, 16);
  const int bits = static_cast<int>(std::ceil(geometry(v).log2_zoom + std::log2(v.height))) + 80;
  std::vector<uint32_t> lo, hi;
  std::vector<float> slo, shi;
  mpfr_render(v, bits, &lo, &slo);
  mpfr_render(v, bits + 320, &hi, &shi);
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = Backend::kCpu;
  const RenderResult p = render(v, o);  // auto: perturbation
  ASSERT_EQ(p.method, Method::kPerturb);
  EXPECT_NE(p.perturb.reference_stop, "periodic");
  size_t trusted = 0, same = 0, near = 0;
  for (size_t k = 0; k < hi.size(); ++k) {
    if (lo[k] != hi[k]) continue;
    ++trusted;
    same += p.counts[k] == hi[k];
    near += (p.counts[k] > hi[k] ? p.counts[k] - hi[k] : hi[k] - p.counts[k]) <= 1;
  }
  const auto mm = std::minmax_element(p.counts.begin(), p.counts.end());
  std::cout << "KF 5e113 16x16: oracle trusted on " << trusted << " of " << hi.size() << ", equal on " << same
            << ", within 1 on " << near << "; counts " << *mm.first << ".." << *mm.second << "\n";
  EXPECT_GE(trusted, hi.size() * 9 / 10);
  EXPECT_GE(same, trusted * 999 / 1000);
  EXPECT_EQ(near, trusted);
  EXPECT_GT(*mm.second, *mm.first + 100);  // not flat
}

// KF's 1e50 benchmark at 128x128: with binary64 deltas some escapes hang on more than 53 bits (run
// 1 of docs/bench/perturbation-kf.md drew two of its 1024 grid pixels wrong). Those pixels are
// flagged, and the 106-bit tier decides every one of them against the same reference, with no
// secondary reference. Where its count differs from what binary64 alone gave (the render without
// the error estimate), MPFR (trusted where 320 more bits agree) must side with the tier.
TEST(Perturb, UndecidedPixelsAreDecidedAt106Bits) {
  const View v = kfr_view("1e50.kfr", 128, 128);
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.max_secondary_references = 0;  // anything the tier leaves would stay unresolved
  const RenderResult with = render(v, o);
  o.error_bound = false;
  const RenderResult plain = render(v, o);
  o.error_bound = true;
  std::cout << "KF 1e50 128x128: " << with.perturb.glitch_pixels << " flagged, " << with.perturb.glitch_refined
            << " decided at 106 bits, " << with.perturb.glitch_unresolved << " unresolved\n";
  EXPECT_GT(with.perturb.glitch_pixels, 0u);
  EXPECT_EQ(with.perturb.glitch_refined, with.perturb.glitch_pixels);
  EXPECT_EQ(with.perturb.glitch_refined_dw, with.perturb.glitch_refined);  // all by the double word
  EXPECT_EQ(with.perturb.glitch_unresolved, 0u);
  EXPECT_EQ(with.perturb.secondary_references, 0);
  // floatexp2 alone decides the same pixels the same way (the tiers share one error estimate, and
  // the double word holds every delta exactly where it runs).
  o.refine_dw = false;
  const RenderResult fe2 = render(v, o);
  EXPECT_EQ(fe2.perturb.glitch_refined_dw, 0u);
  EXPECT_EQ(fe2.perturb.glitch_refined, with.perturb.glitch_refined);
  EXPECT_EQ(fe2.counts, with.counts);
  for (size_t k = 0; k < with.smooth.size(); ++k) ASSERT_NEAR(fe2.smooth[k], with.smooth[k], 1e-4) << k;
  o.refine_dw = true;
  const Geometry g = geometry(v);
  const int bits = static_cast<int>(std::ceil(g.log2_zoom + std::log2(v.height))) + 80;
  int differ = 0, checked = 0;
  for (size_t k = 0; k < with.counts.size() && checked < 12; ++k) {
    if (with.counts[k] == plain.counts[k]) continue;
    ++differ;
    const int i = static_cast<int>(k % v.width), j = static_cast<int>(k / v.width);
    uint64_t lo = 0, hi = 0;
    float s = 0;
    perturb::direct_pixel(g, v, i, j, bits, &lo, &s);
    perturb::direct_pixel(g, v, i, j, bits + 320, &hi, &s);
    if (lo != hi) continue;
    ++checked;
    EXPECT_EQ(with.counts[k], hi) << "pixel (" << i << ", " << j << "): binary64 alone gave " << plain.counts[k];
  }
  std::cout << differ << " pixels differ from binary64 alone; " << checked << " checked against MPFR\n";
  EXPECT_GT(checked, 0);
}

// Interior detection at a minibrot of period 135 near 1e50 (the view holds its interior and
// boundary): pixels proven inside stop early with count max_iter, and the image equals both the
// render without the detection and MPFR's (trusted where 320 more bits agree).
TEST(Perturb, InteriorPixelsStopEarlyAndAgreeWithMpfr) {
  const View v = make_view("-0.484395956262377591912828656474685238049864177911741926079999402043058848843181343925466199",
                           "0.641892409913951884435415149631949404987297663004783532052451370814162802443102775516871075",
                           "4e50", 20000, 16, 16);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  const RenderResult with = render(v, o);
  o.prove_interior_always = true;
  const RenderResult always = render(v, o);
  EXPECT_EQ(always.counts, with.counts);
  EXPECT_GE(always.perturb.interior_pixels, with.perturb.interior_pixels);
  o.interior = false;
  const RenderResult without = render(v, o);
  // A default render proves a pixel inside only where the proof's plain windows cost less than
  // finishing the orbit: with the suffix entries (bla.h) each period of the wrapped reference is
  // one plain and one BLA step, and 148 periods to the limit of 20,000 cost less than a proof.
  // Proving always must find them.
  EXPECT_GT(always.perturb.interior_pixels, 0u);
  EXPECT_EQ(without.perturb.interior_pixels, 0u);
  EXPECT_EQ(with.counts, without.counts);
  const int bits = static_cast<int>(std::ceil(geometry(v).log2_zoom + std::log2(v.height))) + 80;
  std::vector<uint32_t> lo, hi;
  std::vector<float> slo, shi;
  mpfr_render(v, bits, &lo, &slo);
  mpfr_render(v, bits + 320, &hi, &shi);
  size_t trusted = 0, same = 0, inside = 0;
  for (size_t k = 0; k < hi.size(); ++k) {
    if (lo[k] != hi[k]) continue;
    ++trusted;
    same += with.counts[k] == hi[k];
    inside += hi[k] == v.max_iter;
  }
  std::cout << "minibrot 1e50: " << with.perturb.interior_pixels << " pixels proven interior ("
            << always.perturb.interior_pixels << " with prove_interior_always), " << inside
            << " at max_iter in MPFR; " << with.seconds << " s against " << without.seconds
            << " s without the test; equal to MPFR on " << same << " of " << trusted << " trusted\n";
  EXPECT_GE(trusted, hi.size() * 9 / 10);
  EXPECT_EQ(same, trusted);
  EXPECT_GT(inside, 0u);
}

// The interior proof runs its windows without BLA. At a minibrot's view with 64 periods of
// iterations (rust-fractal's mitosis minibrot, period 22,002) that costs more plain steps than
// finishing every interior pixel's orbit with BLA, so by default it is skipped there: the same
// counts, no pixel proven, far fewer plain steps. prove_interior_always (auto iterations) proves
// them as before.
TEST(Perturb, InteriorProofsRunOnlyWhereCheaperThanFinishingTheOrbit) {
  const View v = ds::test::loc_view("locations/rf-mitosis-minibrot.loc", 32, 18);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  const RenderResult gated = render(v, o);
  o.prove_interior_always = true;
  const RenderResult always = render(v, o);
  o.interior = false;
  const RenderResult none = render(v, o);
  EXPECT_EQ(gated.counts, always.counts);
  EXPECT_EQ(gated.counts, none.counts);
  EXPECT_EQ(gated.perturb.interior_pixels, 0u);
  EXPECT_GT(always.perturb.interior_pixels, 0u);
  const uint64_t plain_gated = gated.iterations - gated.perturb.bla_skipped;
  const uint64_t plain_always = always.iterations - always.perturb.bla_skipped;
  std::cout << "mitosis minibrot 32x18: plain steps " << plain_gated << " (proofs where cheaper), "
            << plain_always << " (always: " << always.perturb.interior_pixels << " proven), "
            << none.iterations - none.perturb.bla_skipped << " (no test)\n";
  EXPECT_LT(plain_gated * 4, plain_always);
}

// The same minibrot at 10^8 iterations: every pixel that reaches max_iter must have been proven
// inside, none iterated to the end (one would take about a second; the whole image about a
// second). Its centre (the orbit's first passage is closer to 0 than the cycle it settles on, so
// the gap between close approaches says 6, not 135) and its period-270 satellite (single windows
// of 135 alternate between |g'| < 1 and > 1) failed the test before the candidates were
// alternated and windows composed. The exterior pixels agree with the render without the test.
TEST(Perturb, InteriorProofsMakeHundredMillionIterationsCheap) {
  const std::string re = "-0.484395956262377591912828656474685238049864177911741926079999402043058848843181343925466199";
  const std::string im = "0.641892409913951884435415149631949404987297663004783532052451370814162802443102775516871075";
  const View v = make_view(re, im, "4e50", 100000000, 32, 32);
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  const RenderResult r = render(v, o);
  size_t at_max = 0;
  for (uint32_t c : r.counts) at_max += c == v.max_iter;
  std::cout << "minibrot 1e50 at 1e8 iterations, 32x32: " << r.perturb.interior_pixels << " proven interior, "
            << at_max << " at max_iter, " << r.seconds << " s\n";
  EXPECT_GT(at_max, r.counts.size() / 3);
  EXPECT_EQ(r.perturb.interior_pixels, at_max);
  // Exterior pixels: the same counts with the test off, at a max_iter they all escape within.
  uint32_t outside_max = 0;
  for (uint32_t c : r.counts)
    if (c != v.max_iter) outside_max = std::max(outside_max, c);
  View w = v;
  w.max_iter = outside_max + 1;
  o.interior = false;
  const RenderResult plain = render(w, o);
  for (size_t k = 0; k < r.counts.size(); ++k)
    if (r.counts[k] != v.max_iter) EXPECT_EQ(r.counts[k], plain.counts[k]) << k;
    else EXPECT_EQ(plain.counts[k], w.max_iter) << k;
}

TEST(Perturb, MethodSelection) {
  RenderOptions o;
  EXPECT_EQ(select_method(geometry(make_view("-0.75", "0.1", "1e3", 500, 64, 64)), o), Method::kDirect);
  EXPECT_EQ(
      select_method(
          geometry(make_view(deep_re().substr(0, 60), deep_im().substr(0, 60), "1e14", 500, 64, 64)), o),
      Method::kPerturb);
  // Beyond every direct format's limit auto still renders.
  EXPECT_EQ(select_method(geometry(make_view(deep_re(), deep_im(), "1e1000", 500, 64, 64)), o),
            Method::kPerturb);
  o.arith = Arith::kLimb8;
  EXPECT_EQ(select_method(geometry(make_view(deep_re(), deep_im(), "1e30", 500, 64, 64)), o),
            Method::kDirect);
  o.arith.reset();
  o.method = Method::kPerturb;
  EXPECT_EQ(select_method(geometry(make_view("-0.75", "0.1", "1e3", 500, 64, 64)), o), Method::kPerturb);
}

// Where the reference orbit could not fit (billions of iterations) and a software format resolves
// the view, auto renders directly and says why; past every direct format it stays perturbation.
TEST(Perturb, AutoRendersDirectlyWhereTheReferenceCannotFit) {
  const uint64_t huge = uint64_t{1} << 40;  // 44 TB of reference at 40 bytes a point
  ASSERT_TRUE(reference_too_large(huge));
  EXPECT_FALSE(reference_too_large(1000000));
  RenderOptions o;
  const Geometry g = geometry(make_view(deep_re().substr(0, 60), deep_im().substr(0, 60), "1e20", 500, 8, 8));
  EXPECT_EQ(select_method(g, o, 500), Method::kPerturb);
  EXPECT_EQ(select_method(g, o, huge), Method::kDirect);
  EXPECT_EQ(select_method(geometry(make_view(deep_re(), deep_im(), "1e1000", 500, 8, 8)), o, huge), Method::kPerturb);
  // Every pixel escapes at once (|c| > 2), so the direct render is quick whatever the limit.
  View v = make_view("2.5000000000000000000001", "0", "1e20", 1000, 4, 4);
  v.max_iter = huge;
  o.backend = Backend::kCpu;
  const RenderResult r = render(v, o);
  EXPECT_EQ(r.method, Method::kDirect);
  EXPECT_NE(r.note.find("auto rendered directly"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("could need"), std::string::npos) << r.note;
}

TEST(Perturb, ReferenceIsReusedWhilePanning) {
  perturb::clear_reference_cache();
  const View a = make_view(deep_re().substr(0, 120), deep_im().substr(0, 120), "1e50", 3000, 48, 48);
  const RenderResult ra = perturb_cpu(a);
  EXPECT_FALSE(ra.perturb.reference_reused);
  EXPECT_GT(ra.perturb.reference_seconds, 0.0);
  View b = a;  // pan by about 10 pixels to the right
  b.re = a.re.substr(0, 60) + "7" + a.re.substr(61);
  const RenderResult rb = perturb_cpu(b);
  perturb::clear_reference_cache();
  const RenderResult fresh = perturb_cpu(b);
  EXPECT_TRUE(rb.perturb.reference_reused);
  EXPECT_FALSE(fresh.perturb.reference_reused);
  EXPECT_GE(compare(rb.counts, rb.smooth, fresh.counts, fresh.smooth).count_share, 0.999);
}

TEST(Perturb, CancelAndProgress) {
  perturb::clear_reference_cache();
  const View v = make_view(deep_re(), deep_im(), "1e1000", 20000, 32, 32);
  std::atomic<bool> cancel{true};
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.method = Method::kPerturb;
  o.cancel = &cancel;
  EXPECT_TRUE(render(v, o).cancelled);
  cancel = false;
  std::mutex mu;
  double last = -1;
  bool monotone = true;
  o.progress = [&](double x) {
    std::lock_guard<std::mutex> lock(mu);
    monotone = monotone && x >= last;
    last = x;
  };
  const RenderResult r = render(v, o);
  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(last, 1.0);
  EXPECT_TRUE(monotone);
  EXPECT_EQ(r.perturb.delta, DeltaFormat::kFloatExp);
  EXPECT_GT(r.perturb.bla_skipped, r.iterations / 2);  // deep spirals: BLA does most of the work
  for (uint32_t c : r.counts) EXPECT_GT(c, 1000u);
}

TEST(PerturbDevice, CudaMatchesCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  for (const char* zoom : {"1e60", "1e300", "1e330", "1e1000"}) {  // f64, f64-scaled (two), floatexp
    const View v = make_view(deep_re(), deep_im(), zoom, 20000, 96, 64);
    RenderOptions o;
    o.method = Method::kPerturb;
    o.backend = Backend::kCpu;
    const RenderResult c = render(v, o);
    o.backend = Backend::kCuda;
    const RenderResult g = render(v, o);
    ASSERT_EQ(g.backend, Backend::kCuda);
    EXPECT_EQ(g.counts, c.counts) << zoom;
    EXPECT_EQ(g.perturb.bla_skipped, c.perturb.bla_skipped) << zoom;
    EXPECT_LE(compare(g.counts, g.smooth, c.counts, c.smooth).max_smooth, 1e-4) << zoom;
  }
}

// Out of GPU memory: with the device's memory taken (display_alloc blocks until nothing more fits),
// a CUDA render falls back to the CPU, says so in its note, and gives the CPU's counts.
TEST(PerturbDevice, OutOfGpuMemoryFallsBackToTheCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  const View v = make_view(deep_re(), deep_im(), "1e300", 20000, 96, 64);
  RenderOptions o;
  o.method = Method::kPerturb;
  o.backend = Backend::kCpu;
  perturb::clear_reference_cache();
  const RenderResult c = render(v, o);
  // The tables an earlier test's CUDA render left on the device: freed before the memory is taken,
  // so this render must allocate its own (else it frees those and fits in what they held).
  perturb::release_device_tables();
  std::vector<void*> blocks;
  for (std::size_t size : {std::size_t{1} << 30, std::size_t{1} << 26, std::size_t{1} << 22, std::size_t{1} << 18})
    for (;;) {
      try {
        blocks.push_back(display_alloc(size, 0));
      } catch (const std::exception&) {
        break;
      }
    }
  o.backend = Backend::kCuda;
  RenderResult g;
  std::string error;
  try {
    g = render(v, o);
  } catch (const std::exception& e) {
    error = e.what();
  }
  for (void* b : blocks) display_free(b, 0);
  std::printf("held %zu blocks; render: %s\n", blocks.size(), error.empty() ? g.note.c_str() : error.c_str());
  ASSERT_EQ(error, "");
  EXPECT_EQ(g.backend, Backend::kCpu);
  EXPECT_NE(g.note.find("ran out of memory"), std::string::npos) << g.note;
  EXPECT_EQ(g.counts, c.counts);
  // The device is usable again once the memory is back: the handled error does not linger in the
  // runtime's last error for the next launch check to report.
  const RenderResult again = render(v, o);
  EXPECT_EQ(again.backend, Backend::kCuda) << again.note;
  EXPECT_EQ(again.counts, c.counts);
}

// The kernel's interior test and pixel map against the CPU's: a minibrot view with interior
// pixels, and KF's 1e1086 with its Ratio stretch (a non-identity map) at a small size.
TEST(PerturbDevice, InteriorAndPixelMapMatchCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  View a = make_view("-0.484395956262377591912828656474685238049864177911741926079999402043058848843181343925466199",
                     "0.641892409913951884435415149631949404987297663004783532052451370814162802443102775516871075",
                     "4e50", 200000, 64, 64);
  View b = kfr_view("1e1086.kfr", 48, 32);
  b.pixel_map[0] = 1.0;
  b.pixel_map[1] = 0.35;
  b.pixel_map[2] = 0.0;
  b.pixel_map[3] = 0.9;
  for (const View& v : {a, b}) {
    RenderOptions o;
    o.method = Method::kPerturb;
    o.backend = Backend::kCpu;
    perturb::clear_reference_cache();
    const RenderResult c = render(v, o);
    o.backend = Backend::kCuda;
    const RenderResult g = render(v, o);
    ASSERT_EQ(g.backend, Backend::kCuda);
    EXPECT_EQ(g.counts, c.counts) << v.zoom;
    EXPECT_EQ(g.perturb.interior_pixels, c.perturb.interior_pixels) << v.zoom;
    std::cout << v.zoom << ": interior " << g.perturb.interior_pixels << " (GPU) " << c.perturb.interior_pixels
              << " (CPU), GPU " << g.seconds << " s, CPU " << c.seconds << " s\n";
  }
  EXPECT_GT(render(a, RenderOptions{}).perturb.interior_pixels, 0u);
}

// The 106-bit tier on the device (render_list_cuda, one thread per flagged pixel) against the
// CPU's: KF's 1e50 at 128x128 flags pixels that binary64 cannot decide; both backends decide them
// all at 106 bits, with the same counts, whether the device hands its slowest pixels to the host's
// cores (host_tail, the default) or finishes them all itself.
TEST(PerturbDevice, RefinedPixelsMatchCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  const View v = kfr_view("1e50.kfr", 128, 128);
  RenderOptions o;
  o.method = Method::kPerturb;
  o.backend = Backend::kCpu;
  o.max_secondary_references = 0;
  perturb::clear_reference_cache();
  const RenderResult c = render(v, o);
  o.backend = Backend::kCuda;
  const RenderResult g = render(v, o);
  ASSERT_EQ(g.backend, Backend::kCuda);
  o.host_tail = false;  // every pixel finished on the device, over as many launches as it takes
  const RenderResult d = render(v, o);
  const auto& gp = g.perturb;
  std::cout << "finished on the host's cores: " << gp.refine_pass_host[0] << ", " << gp.refine_pass_host[1] << ", "
            << gp.refine_pass_host[2] << " of " << gp.refine_pass_pixels[0] << ", " << gp.refine_pass_pixels[1]
            << ", " << gp.refine_pass_pixels[2] << "\n";
  EXPECT_EQ(d.perturb.refine_pass_host[0] + d.perturb.refine_pass_host[1] + d.perturb.refine_pass_host[2], 0u);
  EXPECT_EQ(d.counts, c.counts);
  EXPECT_EQ(d.perturb.refine_skipped, c.perturb.refine_skipped);
  EXPECT_LE(compare(g.counts, g.smooth, d.counts, d.smooth).max_smooth, 1e-4);  // log: device's or glibc's
  std::cout << "KF 1e50 128x128: flagged " << g.perturb.glitch_pixels << " (GPU) " << c.perturb.glitch_pixels
            << " (CPU), decided at 106 bits " << g.perturb.glitch_refined << " (GPU) " << c.perturb.glitch_refined
            << " (CPU)\n";
  EXPECT_GT(c.perturb.glitch_refined, 0u);
  EXPECT_EQ(g.perturb.glitch_pixels, c.perturb.glitch_pixels);
  EXPECT_EQ(g.perturb.glitch_refined, c.perturb.glitch_refined);
  EXPECT_EQ(g.perturb.glitch_refined_dw, c.perturb.glitch_refined_dw);  // the double word's, on both
  EXPECT_EQ(g.perturb.refine_skipped, c.perturb.refine_skipped);  // the same 106-bit BLA steps
  EXPECT_GT(c.perturb.refine_skipped, 0u);
  EXPECT_EQ(g.perturb.glitch_unresolved, 0u);
  EXPECT_EQ(g.counts, c.counts);
}

}  // namespace

namespace {

bool same_fe2(FloatExp2 a, FloatExp2 b) { return a.hi == b.hi && a.lo == b.lo && (a.hi == 0 || a.e == b.e); }

// A table built from a higher first level (the 106-bit tier's, for long references: bla.h) keeps
// every entry of the levels it builds bit for bit as the full table has them, and leaves the levels
// below empty; bla_first_level_within picks the lowest level that fits.
TEST(Bla, TablesFromAHigherFirstLevelKeepTheFullTablesEntries) {
  const std::shared_ptr<const perturb::Reference> ref = perturb::compute_reference(
      "-0.743643887037158704752191506114774", "0.131825904205311970493132056385139", 200, 20000,
      FloatExp::make(1.0, -100), nullptr, nullptr);
  ASSERT_TRUE(ref);
  ASSERT_GT(ref->length(), 5000u);
  const FloatExp dcmax = FloatExp::make(1.0, -90);
  const perturb::BlaTable<FloatExp2> full = perturb::build_bla<FloatExp2>(*ref, dcmax);
  for (int first : {3, 5, 8}) {
    const perturb::BlaTable<FloatExp2> part = perturb::build_bla<FloatExp2>(*ref, dcmax, first);
    ASSERT_EQ(part.levels, full.levels);
    for (int l = 0; l < full.levels; ++l) {
      const uint64_t n = part.level_offset[l + 1] - part.level_offset[l];
      if (l < first) {
        EXPECT_EQ(n, 0u) << "level " << l;
        continue;
      }
      ASSERT_EQ(n, full.level_offset[l + 1] - full.level_offset[l]) << "level " << l;
      for (uint64_t k = 0; k < n; ++k) {
        const perturb::BlaEntry<FloatExp2>& a = part.entries[part.level_offset[l] + k];
        const perturb::BlaEntry<FloatExp2>& b = full.entries[full.level_offset[l] + k];
        ASSERT_TRUE(same_fe2(a.ar, b.ar) && same_fe2(a.ai, b.ai) && same_fe2(a.br, b.br) &&
                    same_fe2(a.bi, b.bi) && same_fe2(a.r, b.r))
            << "level " << l << " entry " << k;
      }
    }
  }
  const std::size_t e = sizeof(perturb::BlaEntry<FloatExp2>);
  const uint64_t len = ref->length();
  EXPECT_EQ(perturb::bla_first_level_within(len, e, full.entries.size() * e), 2);
  const int f = perturb::bla_first_level_within(len, e, full.entries.size() * e / 5);
  EXPECT_GT(f, 2);
  EXPECT_LE(perturb::build_bla<FloatExp2>(*ref, dcmax, f).entries.size() * e, full.entries.size() * e / 5);
  EXPECT_GT(perturb::build_bla<FloatExp2>(*ref, dcmax, f - 1).entries.size() * e,
            full.entries.size() * e / 5);
  EXPECT_EQ(perturb::bla_first_level_within(len, e, e - 1), perturb::kMaxBlaLevels + 1);
}

}  // namespace
