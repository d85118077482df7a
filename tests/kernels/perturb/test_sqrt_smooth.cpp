// The square-root smoothing field (kFieldSqrtSmooth: Kalles Fraktaler's SmoothingMethod 1) against
// KF's definition evaluated independently in MPFR, keeping z_(m-1) itself: KF's value
// m + 1 - (|z_m| - R) / (|z_m| - |z_(m-1)|) at the first m with |z_m| > R, less the first n with
// |z_n| > 2 (our count), at R = 2 and at KF's other radii, for the direct engine and perturbation at
// KF's own benchmark views; and the GPU's values against the CPU's.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "oracle.h"

namespace {
using namespace ds::mandel;
namespace perturb = ds::perturb;
using ds::test::kfr_view;

// KF's square-root value at escape radius R >= 2 at c (decimal strings) in MPFR at `bits`: *n the
// escape count at radius 2 (z_1 = c), *frac KF's value m + 1 - trans less n. False where no n < limit
// escapes.
bool kf_sqrt_fraction(const std::string& re, const std::string& im, int bits, uint64_t limit, uint64_t* n,
                      double* frac, double radius = 2.0) {
  mpfr_t cr, ci, x, y, x2, y2, t, prev, now;
  mpfr_inits2(bits, cr, ci, x, y, x2, y2, t, prev, now, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_str(cr, re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(ci, im.c_str(), 10, MPFR_RNDN);
  mpfr_set(x, cr, MPFR_RNDN);
  mpfr_set(y, ci, MPFR_RNDN);
  mpfr_set_zero(prev, 1);  // |z_0|^2 = 0
  bool escaped = false;
  *n = 0;
  for (uint64_t k = 1; k < limit + 80; ++k) {  // past the limit only to reach R after an escape
    mpfr_sqr(x2, x, MPFR_RNDN);
    mpfr_sqr(y2, y, MPFR_RNDN);
    mpfr_add(now, x2, y2, MPFR_RNDN);
    if (*n == 0 && mpfr_cmp_ui(now, 4) > 0) {
      if (k >= limit) break;
      *n = k;
    }
    if (*n != 0 && mpfr_cmp_d(now, radius * radius) > 0) {
      const double a = std::sqrt(mpfr_get_d(now, MPFR_RNDN)), b = std::sqrt(mpfr_get_d(prev, MPFR_RNDN));
      *frac = static_cast<double>(k - *n) + 1.0 - (a - radius) / (a - b);
      escaped = true;
      break;
    }
    mpfr_set(prev, now, MPFR_RNDN);
    mpfr_mul(t, x, y, MPFR_RNDN);
    mpfr_sub(x, x2, y2, MPFR_RNDN);
    mpfr_add(x, x, cr, MPFR_RNDN);
    mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
    mpfr_add(y, t, ci, MPFR_RNDN);
  }
  mpfr_clears(cr, ci, x, y, x2, y2, t, prev, now, static_cast<mpfr_ptr>(nullptr));
  return escaped;
}

RenderResult render_sqrt(const View& v, Method m, Backend b, double radius = 2.0) {
  RenderOptions o;
  o.method = m;
  o.backend = b;
  o.fields = kFieldSqrtSmooth;
  o.sqrt_smooth_radius = radius;
  return render(v, o);
}

// Every pixel of the render on a grid of samples against the oracle; returns how many were checked
// (pixels whose count differs from the oracle's, at the rounding of |z| = 2, are counted apart).
int check(const View& v, const RenderResult& r, int step, double tol, double radius = 2.0) {
  const Geometry g = geometry(v);
  const int bits = static_cast<int>(std::ceil(g.log2_zoom + std::log2(v.height))) + 80;
  int checked = 0, inside = 0, other_count = 0;
  double worst = 0;
  for (int j = step / 2; j < v.height; j += step)
    for (int i = step / 2; i < v.width; i += step) {
      const std::size_t k = static_cast<std::size_t>(j) * v.width + i;
      if (r.count(k) == 0 || r.count(k) >= v.max_iter) {
        EXPECT_EQ(r.sqrt_smooth[k], 0.0f);
        ++inside;
        continue;
      }
      std::string re, im;
      perturb::pixel_c(g, v, i, j, bits, &re, &im);
      uint64_t n = 0;
      double frac = 0;
      if (!kf_sqrt_fraction(re, im, bits, v.max_iter, &n, &frac, radius)) {
        ADD_FAILURE() << "the oracle's orbit did not escape at pixel " << i << "," << j;
        continue;
      }
      if (n != r.count(k)) {
        ++other_count;
        continue;
      }
      EXPECT_NEAR(r.sqrt_smooth[k], frac, tol)
          << v.zoom << " R " << radius << " pixel (" << i << ", " << j << ")";
      EXPECT_GE(r.sqrt_smooth[k], 0.0f);
      if (radius == 2.0) {
        EXPECT_LE(r.sqrt_smooth[k], 1.0f);
      }
      worst = std::max(worst, std::fabs(r.sqrt_smooth[k] - frac));
      ++checked;
    }
  std::cout << v.zoom << " R " << radius << ": " << checked << " pixels checked, worst difference " << worst
            << "; left out " << inside << " not escaped, " << other_count << " at another count\n";
  EXPECT_LE(other_count, checked / 50 + 1);
  return checked;
}

// The direct engine (f64) at a shallow view: the fraction spans [0, 1] and is KF's formula on the
// f64 orbit, iterated here with z_(n-1) kept and the engine's roundings (fma, docs/mandelbrot.md).
// (Against MPFR the long orbits' f64 z_n drifts, as their smooth counts do: perturbation, below,
// is the test against MPFR.)
TEST(SqrtSmooth, DirectIsKfsFraction) {
  // The whole set (Fields.PhaseIsTheEscapedArgument's view): no pixel there needs a wider format.
  const View v = ds::test::make_view("-0.5", "0", "0.8", 500, 40, 30);
  const RenderResult r = render_sqrt(v, Method::kDirect, ds::Backend::kCpu);
  ASSERT_EQ(r.arith, ds::Arith::kF64);
  ASSERT_TRUE(r.recheck.empty()) << r.recheck;
  ASSERT_EQ(r.sqrt_smooth.size(), r.counts.size());
  EXPECT_TRUE(r.dex.empty());  // only what was asked
  const Geometry g = geometry(v);
  int checked = 0;
  double lo = 1, hi = 0, most = 0;
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      const std::size_t k = static_cast<std::size_t>(j) * v.width + i;
      const double cr = g.re_d + (2.0 * i + 1 - v.width) * g.half_step_d;
      const double ci = g.im_d - (2.0 * j + 1 - v.height) * g.half_step_d;
      double x = cr, y = ci, prev = 0, r2 = x * x + y * y;
      uint64_t n = 1;
      while (n < v.max_iter && r2 <= 4.0) {
        prev = r2;
        const double t = std::fma(x, x, std::fma(-y, y, cr));
        y = std::fma(x + x, y, ci);
        x = t;
        r2 = x * x + y * y;
        ++n;
      }
      if (n >= v.max_iter) {
        EXPECT_EQ(r.sqrt_smooth[k], 0.0f);
        continue;
      }
      ASSERT_EQ(r.count(k), n);
      const double a = std::sqrt(r2), b = std::sqrt(prev);
      const double frac = 1.0 - (a - 2.0) / (a - b);
      EXPECT_NEAR(r.sqrt_smooth[k], frac, 1e-6) << i << "," << j;
      lo = std::min(lo, frac), hi = std::max(hi, frac);
      // It is not the logarithmic fraction (which the smooth count carries).
      most = std::max(most, std::fabs((r.smooth[k] - static_cast<double>(n)) - r.sqrt_smooth[k]));
      ++checked;
    }
  std::cout << checked << " pixels checked, fractions " << lo << " .. " << hi << "\n";
  EXPECT_GT(checked, 600);
  EXPECT_LT(lo, 0.1);
  EXPECT_GT(hi, 0.9);
  EXPECT_GT(most, 0.1);
}

// Perturbation at KF's 1e14 and 5e113 benchmarks (views KF's author made).
TEST(SqrtSmooth, PerturbationIsKfsFractionAtKfLocations) {
  for (const char* name : {"1e14.kfr", "5e113.kfr"}) {
    perturb::clear_reference_cache();
    const View v = kfr_view(name, 32, 24);
    const RenderResult r = render_sqrt(v, Method::kPerturb, ds::Backend::kCpu);
    ASSERT_EQ(r.method, Method::kPerturb);
    ASSERT_EQ(r.sqrt_smooth.size(), r.counts.size());
    EXPECT_GT(check(v, r, 3, 1e-5), 40) << name;
  }
}

// KF's other escape radii (a custom 3 and 64, its high preset 10000, and 1e6): the engines escape at
// 2 and carry z on to R, against MPFR iterating to R itself. At 10000 every pixel's value is at
// least 2 past our count (|z| past 2 needs two squarings to pass 10000), so the radius is used.
TEST(SqrtSmooth, PerturbationIsKfsValueAtOtherRadii) {
  const View v = kfr_view("1e14.kfr", 32, 24);
  for (double radius : {3.0, 64.0, 10000.0, 1e6}) {
    perturb::clear_reference_cache();
    const RenderResult r = render_sqrt(v, Method::kPerturb, ds::Backend::kCpu, radius);
    ASSERT_EQ(r.method, Method::kPerturb);
    EXPECT_GT(check(v, r, 3, 1e-5, radius), 40) << radius;
    if (radius == 10000.0) {
      float least = 1e9f;
      for (std::size_t k = 0; k < r.counts.size(); ++k)
        if (r.count(k) < v.max_iter) least = std::min(least, r.sqrt_smooth[k]);
      EXPECT_GE(least, 2.0f);
    }
  }
}

// The direct engine at KF's high radius: the orbit to our escape at 2 as the engine rounds it (fma,
// as DirectIsKfsFraction; long f64 orbits drift from MPFR's), then on to R in long double with
// z_(m-1) kept, KF's value m + 1 - trans less n.
TEST(SqrtSmooth, DirectIsKfsValueAtRadius10000) {
  const View v = ds::test::make_view("-0.5", "0", "0.8", 500, 40, 30);
  const double radius = 10000;
  const RenderResult r = render_sqrt(v, Method::kDirect, ds::Backend::kCpu, radius);
  ASSERT_EQ(r.arith, ds::Arith::kF64);
  const Geometry g = geometry(v);
  int checked = 0;
  double worst = 0, most = 0;
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      const std::size_t k = static_cast<std::size_t>(j) * v.width + i;
      const double cr = g.re_d + (2.0 * i + 1 - v.width) * g.half_step_d;
      const double ci = g.im_d - (2.0 * j + 1 - v.height) * g.half_step_d;
      double x = cr, y = ci, r2 = x * x + y * y;
      uint64_t n = 1;
      while (n < v.max_iter && r2 <= 4.0) {
        const double t = std::fma(x, x, std::fma(-y, y, cr));
        y = std::fma(x + x, y, ci);
        x = t;
        r2 = x * x + y * y;
        ++n;
      }
      if (n >= v.max_iter) continue;
      ASSERT_EQ(r.count(k), n);
      long double lx = x, ly = y, lr2 = r2, prev = 0;
      const long double dr = lx - cr, di = ly - ci;
      prev = std::sqrt(dr * dr + di * di);  // |z_(n-1)|^2 = |z_n - c|
      uint64_t m = n;
      while (lr2 <= static_cast<long double>(radius) * radius) {
        prev = lr2;
        const long double t = lx * lx - ly * ly + cr;
        ly = 2 * lx * ly + ci;
        lx = t;
        lr2 = lx * lx + ly * ly;
        ++m;
      }
      const long double a = std::sqrt(lr2), b = std::sqrt(prev);
      const double want = static_cast<double>((m - n) + 1 - (a - radius) / (a - b));
      EXPECT_NEAR(r.sqrt_smooth[k], want, 1e-5) << i << "," << j;
      worst = std::max(worst, std::fabs(r.sqrt_smooth[k] - want));
      most = std::max(most, want);
      ++checked;
    }
  std::cout << checked << " pixels checked at R = 10000, worst difference " << worst << ", largest value "
            << most << "\n";
  EXPECT_GT(checked, 600);
}

// A radius the engines cannot honour is refused with its name, not drawn at another.
TEST(SqrtSmooth, RefusesARadiusOutside2To1e100) {
  const View v = ds::test::make_view("-0.5", "0", "0.8", 100, 8, 6);
  for (double radius : {1.5, 1e101}) {
    try {
      render_sqrt(v, Method::kDirect, ds::Backend::kCpu, radius);
      ADD_FAILURE() << "radius " << radius << " was not refused";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("escape radius"), std::string::npos) << e.what();
    }
  }
}

// Asking for it changes no count or smooth count.
TEST(SqrtSmooth, CountsAreTheSameWithAndWithoutIt) {
  const View v = kfr_view("1e14.kfr", 24, 16);
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = ds::Backend::kCpu;
  const RenderResult a = render(v, o);
  o.fields = kFieldSqrtSmooth;
  const RenderResult b = render(v, o);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.smooth, b.smooth);
}

// The GPU's value equals the CPU's (direct and perturbation, device-side fields copied back), at
// KF's radius 2 and at its high radius 10000 (z carried on past the escape in the shared code).
TEST(SqrtSmoothDevice, GpuMatchesCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  View d;
  d.re = "-0.7436";
  d.im = "0.1318";
  d.zoom = "200";
  d.width = 96;
  d.height = 64;
  d.max_iter = 3000;
  struct Case {
    View v;
    Method m;
  };
  for (const double radius : {2.0, 10000.0})
    for (const Case& c : {Case{d, Method::kDirect}, Case{kfr_view("5e113.kfr", 96, 64), Method::kPerturb}}) {
      perturb::clear_reference_cache();
      const RenderResult a = render_sqrt(c.v, c.m, ds::Backend::kCpu, radius);
      const RenderResult b = render_sqrt(c.v, c.m, ds::Backend::kCuda, radius);
      ASSERT_EQ(b.backend, ds::Backend::kCuda);
      ASSERT_EQ(b.sqrt_smooth.size(), a.sqrt_smooth.size());
      EXPECT_EQ(a.counts, b.counts) << c.v.zoom;
      std::size_t differ = 0;
      for (std::size_t k = 0; k < a.counts.size(); ++k)
        differ += std::fabs(a.sqrt_smooth[k] - b.sqrt_smooth[k]) > 1e-6 * std::max(1.0f, a.sqrt_smooth[k]);
      std::cout << c.v.zoom << " R " << radius << ": square-root smoothing CPU vs GPU, " << differ << " of "
                << a.counts.size() << " pixels differ by more than 1e-6 (relative above 1)\n";
      EXPECT_EQ(differ, 0u) << c.v.zoom << " R " << radius;
    }
}

}  // namespace
