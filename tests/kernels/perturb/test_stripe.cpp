// The stripe average (RenderOptions::fields & kFieldStripe, kernels/mandelbrot/fields.cuh) against
// an independent oracle: each pixel's orbit iterated in MPFR, t_n = 1/2 + 1/2 sin(d arg z_n) from
// MPFR's atan2 and sin (not the engines' complex powers), folded with the same fall-off and read at
// the same bailout, trusted where 64 more bits give the same value. At a shallow view (direct f64)
// and at KF's benchmark views (perturbation with binary64 and floatexp deltas, BLA on), and the
// marking of values BLA leaves approximate.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "kernels/colour/canvas.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "oracle.h"

namespace {
using namespace ds::mandel;
namespace perturb = ds::perturb;
using ds::test::kfr_view;

struct StripeOracle {
  bool escaped = false;
  uint64_t count = 0;  // the first n with |z_n| > 2
  double value = 0;
};

// The stripe average at c (decimal strings) with `bits` of MPFR: samples z_1 .. z_N, N the first n
// with |z_n| > 2^8, S_n = m S_(n-1) + (1 - m) t_n from S_0 = 1/2, value = S_(N-1) + w (S_N - S_(N-1)),
// w = 1 + log2(ln 2^8 / ln|z_N|) clamped to [0, 1] (the definition in fields.cuh).
StripeOracle stripe_oracle(const std::string& re, const std::string& im, int bits, uint64_t max_iter, int density,
                           double memory) {
  mpfr_t cr, ci, x, y, x2, y2, t, a;
  mpfr_inits2(bits, cr, ci, x, y, x2, y2, t, a, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_str(cr, re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(ci, im.c_str(), 10, MPFR_RNDN);
  mpfr_set(x, cr, MPFR_RNDN);
  mpfr_set(y, ci, MPFR_RNDN);
  StripeOracle o;
  double cur = 0.5, prev = 0.5, r2 = 0;
  for (uint64_t n = 1; n < max_iter + 64; ++n) {
    if (mpfr_zero_p(x) && mpfr_zero_p(y)) {
      mpfr_set_d(a, 0.5, MPFR_RNDN);
    } else {
      mpfr_atan2(a, y, x, MPFR_RNDN);
      mpfr_mul_si(a, a, density, MPFR_RNDN);
      mpfr_sin(a, a, MPFR_RNDN);
      mpfr_mul_d(a, a, 0.5, MPFR_RNDN);
      mpfr_add_d(a, a, 0.5, MPFR_RNDN);
    }
    prev = cur;
    cur = memory * cur + (1.0 - memory) * mpfr_get_d(a, MPFR_RNDN);
    mpfr_sqr(x2, x, MPFR_RNDN);
    mpfr_sqr(y2, y, MPFR_RNDN);
    mpfr_add(t, x2, y2, MPFR_RNDN);
    r2 = mpfr_get_d(t, MPFR_RNDN);
    if (!o.escaped && r2 > 4.0) {
      if (n >= max_iter) break;  // escaped only past the limit: inside, as the engines count it
      o.escaped = true;
      o.count = n;
    }
    if (r2 > 65536.0) break;
    mpfr_mul(t, x, y, MPFR_RNDN);
    mpfr_sub(x, x2, y2, MPFR_RNDN);
    mpfr_add(x, x, cr, MPFR_RNDN);
    mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
    mpfr_add(y, t, ci, MPFR_RNDN);
  }
  if (o.escaped) {
    double w = 1.0 + std::log2(std::log(256.0) / (0.5 * std::log(r2)));
    w = std::min(1.0, std::max(0.0, w));
    o.value = prev + w * (cur - prev);
  }
  mpfr_clears(cr, ci, x, y, x2, y2, t, a, static_cast<mpfr_ptr>(nullptr));
  return o;
}

RenderResult render_stripe(const View& v, Method m, RenderOptions o = {}) {
  o.method = m;
  o.backend = ds::Backend::kCpu;
  o.fields = kFieldStripe;
  return render(v, o);
}

struct Checked {
  int checked = 0, approximate = 0, untrusted = 0, inside = 0;
  double worst = 0;  // the largest |engine - oracle| checked
};

// The render's stripe values at `pixels` against the oracle: equal to `tol` where the engine does not
// mark them approximate (marked ones are counted and left out).
Checked check_stripe(const View& v, const RenderResult& r, const RenderOptions& o,
                     const std::vector<std::pair<int, int>>& pixels, double tol) {
  const Geometry g = geometry(v);
  const int bits = static_cast<int>(std::ceil(g.log2_zoom + std::log2(v.height))) + 100;
  Checked c;
  for (auto [i, j] : pixels) {
    const std::size_t k = static_cast<std::size_t>(j) * v.width + i;
    std::string re, im;
    perturb::pixel_c(g, v, i, j, bits + 64, &re, &im);
    const StripeOracle a = stripe_oracle(re, im, bits, v.max_iter, o.stripe_density, o.stripe_memory);
    const StripeOracle b = stripe_oracle(re, im, bits + 64, v.max_iter, o.stripe_density, o.stripe_memory);
    if (a.escaped != b.escaped || a.count != b.count || std::fabs(a.value - b.value) > 1e-9) {
      ++c.untrusted;
      continue;
    }
    if (!a.escaped) {
      ++c.inside;
      EXPECT_EQ(r.count(k), v.max_iter) << "pixel (" << i << ", " << j << ")";
      continue;
    }
    if (r.count(k) == 0) continue;  // undecided (drawn magenta), not a stripe question
    EXPECT_EQ(r.count(k), a.count) << "pixel (" << i << ", " << j << ")";
    const float stored = r.stripe[k];
    if (stored < 0.0f) {
      ++c.approximate;
      continue;
    }
    ++c.checked;
    c.worst = std::max(c.worst, std::fabs(stored - a.value));
    EXPECT_NEAR(stored, a.value, tol) << v.zoom << " pixel (" << i << ", " << j << ")";
  }
  std::cout << v.zoom << ": stripe checked at " << c.checked << " pixels (largest difference " << c.worst << "); " << c.approximate
            << " marked approximate, " << c.inside << " inside, " << c.untrusted << " where the oracle is not sure\n";
  return c;
}

std::vector<std::pair<int, int>> grid(int w, int h, int step) {
  std::vector<std::pair<int, int>> p;
  for (int j = step / 2; j < h; j += step)
    for (int i = (j / step) % 2; i < w; i += step) p.push_back({i, j});
  return p;
}

// The direct engines fold the orbit they compute: with f64x2 (106 bits) it is MPFR's to binary64's
// last bits, so the value is too. Binary64's own orbit near the seahorse valley drifts from the
// exact one over its 2000 steps (the counts still agree), so f64 is held only to 5e-3.
TEST(Stripe, DirectMatchesMpfr) {
  View v;
  v.re = "-0.7453";
  v.im = "0.1127";
  v.zoom = "300";
  v.width = v.height = 32;
  v.max_iter = 2000;
  for (const char* arith : {"f64x2", "f64"}) {
    RenderOptions o;
    o.arith = ds::parse_arith(arith);
    const RenderResult r = render_stripe(v, Method::kDirect, o);
    ASSERT_EQ(r.stripe.size(), r.counts.size());
    EXPECT_TRUE(r.dex.empty() && r.phase.empty());  // only what was asked
    EXPECT_EQ(r.stripe_density, o.stripe_density);
    EXPECT_EQ(r.stripe_approximate, 0u);  // no BLA: every value exact
    const Checked c = check_stripe(v, r, o, grid(32, 32, 4), std::string(arith) == "f64" ? 5e-3 : 1e-6);
    EXPECT_GE(c.checked, 40) << arith;
    EXPECT_EQ(c.approximate, 0) << arith;
  }
}

// KF's benchmark views: binary64 deltas with BLA (1e14, 5e113) and floatexp deltas with BLA (4e533).
void stripe_matches_mpfr_at(const char* name) {
  const bool deep = std::string(name) == "4e533.kfr";
  const View v = kfr_view(name, 24, 24);
  perturb::clear_reference_cache();
  RenderOptions o;
  o.stripe_density = 5;
  o.stripe_memory = 0.7;
  const RenderResult r = render_stripe(v, Method::kPerturb, o);
  ASSERT_EQ(r.method, Method::kPerturb);
  if (std::string(name) != "1e14.kfr") {
    EXPECT_GT(r.perturb.bla_skipped, 0u) << name;
  }
  if (deep) {
    EXPECT_EQ(r.perturb.delta, DeltaFormat::kFloatExp);
  }
  // Each oracle pixel is two MPFR orbits (the second with 64 more bits): a sparse grid.
  const Checked c = check_stripe(v, r, o, grid(24, 24, deep ? 12 : 6), 1e-6);
  EXPECT_GE(c.checked, deep ? 2 : 8) << name;
}

TEST(Stripe, PerturbationMatchesMpfrAtKfLocations) {
  for (const char* name : {"1e14.kfr", "5e113.kfr"}) stripe_matches_mpfr_at(name);
}

// 4e533's MPFR orbits took most of the 11 minutes the test above took on two cores: the GPU
// session runs it (docs/quality.md, "Test time").
TEST(Stripe, PerturbationMatchesMpfrAtKf4e533) {
  DEEPSCOPE_REQUIRE_LONG();
  stripe_matches_mpfr_at("4e533.kfr");
}

// A long memory reaches back past the BLA steps: those pixels are marked (and counted), never
// silently approximate; without BLA the same view has none marked and agrees with MPFR.
TEST(Stripe, ValuesThatBlaMakesApproximateAreMarked) {
  const View v = kfr_view("5e113.kfr", 16, 16);
  RenderOptions o;
  o.stripe_memory = 0.995;
  perturb::clear_reference_cache();
  const RenderResult with_bla = render_stripe(v, Method::kPerturb, o);
  EXPECT_GT(with_bla.stripe_approximate, 0u);
  uint64_t marked = 0;
  for (float s : with_bla.stripe) {
    marked += s < 0.0f;
    EXPECT_GE(s, -2.0f);
    EXPECT_LE(s, 1.0f);
  }
  EXPECT_EQ(marked, with_bla.stripe_approximate);
  o.bla = false;
  const RenderResult plain = render_stripe(v, Method::kPerturb, o);
  EXPECT_EQ(plain.stripe_approximate, 0u);
  EXPECT_EQ(plain.counts, with_bla.counts);
  const Checked c = check_stripe(v, plain, o, grid(16, 16, 4), 1e-6);
  EXPECT_GE(c.checked, 8);
}

// On the GPU: the values equal the CPU's, and a device-resident render (the window's canvas) counts
// the marked pixels as the host does.
TEST(StripeDevice, GpuMarksAndCountsAsTheCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  const View v = kfr_view("5e113.kfr", 64, 48);
  RenderOptions o;
  o.stripe_memory = 0.995;
  perturb::clear_reference_cache();
  const RenderResult cpu = render_stripe(v, Method::kPerturb, o);
  o.method = Method::kPerturb;
  o.backend = ds::Backend::kCuda;
  o.fields = kFieldStripe;
  const RenderResult gpu = render(v, o);
  ASSERT_EQ(gpu.backend, ds::Backend::kCuda);
  EXPECT_EQ(gpu.counts, cpu.counts);
  std::size_t differ = 0;
  for (std::size_t k = 0; k < cpu.stripe.size(); ++k) differ += std::fabs(cpu.stripe[k] - gpu.stripe[k]) > 1e-6f;
  EXPECT_EQ(differ, 0u);
  EXPECT_GT(cpu.stripe_approximate, 0u);
  EXPECT_EQ(gpu.stripe_approximate, cpu.stripe_approximate);
  ds::colour::Canvas canvas(v.width, v.height, ds::Backend::kCuda, 0);
  uint64_t resident = 0;
  for (int y0 = 0; y0 < v.height; y0 += 16) resident += canvas.render_rows(v, o, y0, y0 + 16).stripe_approximate;
  EXPECT_EQ(resident, cpu.stripe_approximate);
  std::cout << "5e113, memory 0.995: " << cpu.stripe_approximate << " of " << cpu.stripe.size()
            << " marked; GPU " << gpu.stripe_approximate << ", device-resident bands " << resident << "\n";
}

TEST(Stripe, BadParametersAreRefused) {
  View v;
  v.width = v.height = 8;
  RenderOptions o;
  o.backend = ds::Backend::kCpu;
  o.fields = kFieldStripe;
  for (int d : {0, 17, -3}) {
    o.stripe_density = d;
    EXPECT_THROW(render(v, o), ViewError) << d;
  }
  o.stripe_density = 4;
  for (double m : {0.0, 1.0, -0.5, 1.5, std::nan("")}) {
    o.stripe_memory = m;
    EXPECT_THROW(render(v, o), ViewError) << m;
  }
}

}  // namespace
