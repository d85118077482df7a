// The per-pixel fields (RenderOptions::fields: the distance estimate's vector and the final phase)
// against an independent oracle: finite differences of the potential G(c) = ln|z_n| / 2^n, each
// orbit iterated in MPFR far past the engines' bailout, at views other programs made (KF's
// benchmarks) and at a shallow one; and the fields never change the counts.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "oracle.h"
#include "test_files.h"

namespace {
using namespace ds::mandel;
namespace perturb = ds::perturb;
using ds::test::kfr_view;

// The potential at c (decimal strings) at `bits`: ln|z_n| / 2^n for the first n with |z_n| > 2^64,
// in MPFR. Returns false when the orbit has not escaped by `limit` iterations.
bool potential(const std::string& re, const std::string& im, int bits, uint64_t limit, mpfr_t g) {
  mpfr_t cr, ci, x, y, x2, y2, t;
  mpfr_inits2(bits, cr, ci, x, y, x2, y2, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_str(cr, re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(ci, im.c_str(), 10, MPFR_RNDN);
  mpfr_set(x, cr, MPFR_RNDN);
  mpfr_set(y, ci, MPFR_RNDN);
  bool escaped = false;
  uint64_t n = 1;
  for (; n < limit; ++n) {
    mpfr_sqr(x2, x, MPFR_RNDN);
    mpfr_sqr(y2, y, MPFR_RNDN);
    mpfr_add(t, x2, y2, MPFR_RNDN);
    if (mpfr_cmp_d(t, 0x1p128) > 0) {
      // ln|z| = ln(|z|^2) / 2, over 2^n.
      mpfr_log(g, t, MPFR_RNDN);
      mpfr_div_2ui(g, g, static_cast<unsigned long>(n + 1), MPFR_RNDN);
      escaped = true;
      break;
    }
    mpfr_mul(t, x, y, MPFR_RNDN);
    mpfr_sub(x, x2, y2, MPFR_RNDN);
    mpfr_add(x, x, cr, MPFR_RNDN);
    mpfr_mul_2ui(t, t, 1, MPFR_RNDN);
    mpfr_add(y, t, ci, MPFR_RNDN);
  }
  mpfr_clears(cr, ci, x, y, x2, y2, t, static_cast<mpfr_ptr>(nullptr));
  return escaped;
}

// The distance estimate's vector at pixel (i, j) in pixels, image axes (x right, y down), from
// central differences of the potential over +-h pixels: G / |grad G| along grad G.
bool fd_distance(const View& v, int i, int j, int bits, double* dex, double* dey, double h_pixels = 1e-3) {
  const Geometry g = geometry(v);
  std::string re, im;
  perturb::pixel_c(g, v, i, j, bits, &re, &im);
  mpfr_t c0r, c0i, h, a, b, g0, gp, gm, gx, gy, t;
  mpfr_inits2(bits, c0r, c0i, h, a, b, g0, gp, gm, gx, gy, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_str(c0r, re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(c0i, im.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(h, g.half_step.c_str(), 10, MPFR_RNDN);
  mpfr_mul_d(h, h, 2 * h_pixels, MPFR_RNDN);  // h in c units (the half step is s/2)
  const uint64_t limit = v.max_iter + 64;
  auto str = [](mpfr_t x) {
    char* s = nullptr;
    mpfr_asprintf(&s, "%.*Re", static_cast<int>(mpfr_get_prec(x) * 0.302) + 2, x);
    std::string r(s);
    mpfr_free_str(s);
    return r;
  };
  bool ok = potential(re, im, bits, limit, g0);
  // d/dx: c +- h (real); d/dy: c +- i h.
  mpfr_add(a, c0r, h, MPFR_RNDN);
  ok = ok && potential(str(a), im, bits, limit, gp);
  mpfr_sub(a, c0r, h, MPFR_RNDN);
  ok = ok && potential(str(a), im, bits, limit, gm);
  if (ok) {
    mpfr_sub(gx, gp, gm, MPFR_RNDN);
    mpfr_add(b, c0i, h, MPFR_RNDN);
    ok = potential(re, str(b), bits, limit, gp);
    mpfr_sub(b, c0i, h, MPFR_RNDN);
    ok = ok && potential(re, str(b), bits, limit, gm);
    mpfr_sub(gy, gp, gm, MPFR_RNDN);
  }
  if (ok) {
    // The gradient over 2h: (gx, gy) / 2h; DE = G / |grad G| = 2h G / |(gx, gy)|, in pixels: / s.
    mpfr_sqr(a, gx, MPFR_RNDN);
    mpfr_sqr(b, gy, MPFR_RNDN);
    mpfr_add(t, a, b, MPFR_RNDN);
    mpfr_sqrt(t, t, MPFR_RNDN);  // |(gx, gy)|
    mpfr_div(a, g0, t, MPFR_RNDN);
    mpfr_mul_d(a, a, 2 * h_pixels, MPFR_RNDN);  // 2h / s: DE in pixels
    const double de = mpfr_get_d(a, MPFR_RNDN);
    mpfr_div(gx, gx, t, MPFR_RNDN);
    mpfr_div(gy, gy, t, MPFR_RNDN);
    *dex = de * mpfr_get_d(gx, MPFR_RNDN);
    *dey = -de * mpfr_get_d(gy, MPFR_RNDN);
  }
  mpfr_clears(c0r, c0i, h, a, b, g0, gp, gm, gx, gy, t, static_cast<mpfr_ptr>(nullptr));
  return ok;
}


// Checks the render's distance vectors at `pixels` against the finite-difference oracle (trusted
// where a run with 64 more bits gives the same vector to 1e-6), with differences over 1e-3 of the
// pixel's distance to the set (at most 1e-3 pixel), so the differences' own error stays near 1e-6.
// Pixels that did not escape, or lie within 1e-6 pixel of the set, are left out. Returns how many
// pixels were checked.
int check_against_oracle(const View& v, const RenderResult& r, const std::vector<std::pair<int, int>>& pixels,
                         double tol) {
  const Geometry g = geometry(v);
  const int bits = static_cast<int>(std::ceil(g.log2_zoom + std::log2(v.height))) + 140;
  int checked = 0, inside = 0, close = 0, untrusted = 0;
  for (auto [i, j] : pixels) {
    const std::size_t k = static_cast<std::size_t>(j) * v.width + i;
    if (r.count(k) == 0 || r.count(k) >= v.max_iter) {
      ++inside;
      continue;
    }
    const double ex = r.dex[k], ey = r.dey[k];
    const double h_pixels = std::min(1e-3, 1e-3 * std::hypot(ex, ey));
    if (std::hypot(ex, ey) < 1e-6) {
      ++close;
      continue;
    }
    double ox = 0, oy = 0, hx = 0, hy = 0;
    if (!fd_distance(v, i, j, bits, &ox, &oy, h_pixels) || !fd_distance(v, i, j, bits + 64, &hx, &hy, h_pixels) ||
        std::hypot(ox - hx, oy - hy) > 1e-6 * std::hypot(ox, oy)) {  // the oracle is not sure here
      ++untrusted;
      continue;
    }
    const double on = std::hypot(ox, oy);
    ++checked;
    const double err = std::hypot(ex - ox, ey - oy) / on;
    EXPECT_LT(err, tol) << v.zoom << " pixel (" << i << ", " << j << "): engine (" << ex << ", " << ey
                        << "), finite differences (" << ox << ", " << oy << ")";
    std::cout << v.zoom << " (" << i << "," << j << "): DE " << std::hypot(ex, ey) << " px, oracle " << on
              << ", relative difference " << err << "\n";
  }
  std::cout << v.zoom << ": " << checked << " pixels checked; left out: " << inside << " not escaped, " << close
            << " within 1e-6 pixel of the set, " << untrusted << " where the oracle is not sure\n";
  return checked;
}

const std::vector<std::pair<int, int>> kSamples = {{3, 5},  {12, 2},  {20, 9},  {28, 27}, {5, 22},
                                                   {16, 16}, {25, 14}, {9, 30}, {30, 3},  {14, 24}};

RenderResult render_fields(const View& v, Method m, Backend b, unsigned fields = kAllFields) {
  RenderOptions o;
  o.method = m;
  o.backend = b;
  o.fields = fields;
  return render(v, o);
}

// The direct engine (f64 on the CPU) at a shallow view in the seahorse valley.
TEST(Fields, DirectDistanceMatchesFiniteDifferences) {
  View v;
  v.re = "-0.7436";
  v.im = "0.1318";
  v.zoom = "200";
  v.width = v.height = 32;
  v.max_iter = 2000;
  const RenderResult r = render_fields(v, Method::kDirect, Backend::kCpu);
  ASSERT_EQ(r.method, Method::kDirect);
  EXPECT_GE(check_against_oracle(v, r, kSamples, 1e-4), 5);
}

// Perturbation with binary64 deltas (KF's 1e14 and 5e113) and floatexp deltas (KF's 4e533), with BLA.
TEST(Fields, PerturbationDistanceMatchesFiniteDifferencesAtKfLocations) {
  for (const char* name : {"1e14.kfr", "5e113.kfr", "4e533.kfr"}) {
    const View v = kfr_view(name, 32, 32);
    perturb::clear_reference_cache();
    const RenderResult r = render_fields(v, Method::kPerturb, Backend::kCpu);
    ASSERT_EQ(r.method, Method::kPerturb);
    std::vector<std::pair<int, int>> samples = kSamples;
    if (std::string(name) == "4e533.kfr") samples.resize(5);  // each oracle pixel costs ten long MPFR orbits
    EXPECT_GE(check_against_oracle(v, r, samples, 1e-4), 5) << name;
    if (std::string(name) != "1e14.kfr") {
      EXPECT_EQ(r.perturb.delta, std::string(name) == "4e533.kfr" ? DeltaFormat::kFloatExp : DeltaFormat::kF64);
      EXPECT_GT(r.perturb.bla_skipped, 0u) << name;
    }
  }
}

// The phase is arg(z) / 2 pi of the escaped z: the direct f64 orbit in binary64 is the oracle.
TEST(Fields, PhaseIsTheEscapedArgument) {
  View v;
  v.re = "-0.5";
  v.im = "0";
  v.zoom = "0.8";
  v.width = 40;
  v.height = 30;
  v.max_iter = 500;
  const RenderResult r = render_fields(v, Method::kDirect, Backend::kCpu, kFieldPhase);
  ASSERT_EQ(r.arith, ds::Arith::kF64);
  EXPECT_TRUE(r.dex.empty());  // only what was asked
  const Geometry g = geometry(v);
  int escaped = 0;
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      const std::size_t k = static_cast<std::size_t>(j) * v.width + i;
      const double cr = g.re_d + (2.0 * i + 1 - v.width) * g.half_step_d;
      const double ci = g.im_d - (2.0 * j + 1 - v.height) * g.half_step_d;
      double x = cr, y = ci;
      uint64_t n = 1;
      while (n < v.max_iter && x * x + y * y <= 4.0) {
        const double t = std::fma(x, x, std::fma(-y, y, cr));
        y = std::fma(x + x, y, ci);
        x = t;
        ++n;
      }
      if (n >= v.max_iter) {
        EXPECT_EQ(r.phase[k], 0.0f);
        continue;
      }
      ASSERT_EQ(r.count(k), n);
      double ph = std::atan2(y, x) / (2 * M_PI);
      if (ph < 0) ph += 1;
      EXPECT_NEAR(r.phase[k], ph, 1e-6) << i << "," << j;
      EXPECT_GE(r.phase[k], 0.0f);
      EXPECT_LT(r.phase[k], 1.0f);
      ++escaped;
    }
  EXPECT_GT(escaped, 600);
}

// Asking for the fields never changes a count or a smooth count (direct formats and perturbation).
TEST(Fields, CountsAreTheSameWithAndWithoutFields) {
  View v = kfr_view("1e50.kfr", 24, 16);
  v.max_iter = 263010;
  for (Method m : {Method::kPerturb}) {
    perturb::clear_reference_cache();
    const RenderResult a = render_fields(v, m, Backend::kCpu, 0);
    const RenderResult b = render_fields(v, m, Backend::kCpu);
    EXPECT_EQ(a.counts, b.counts);
    EXPECT_EQ(a.smooth, b.smooth);
    EXPECT_EQ(b.dex.size(), a.counts.size());
    EXPECT_EQ(b.phase.size(), a.counts.size());
  }
  View d;
  d.re = "-0.7436";
  d.im = "0.1318";
  d.zoom = "200";
  d.width = d.height = 24;
  d.max_iter = 3000;
  for (const char* arith : {"f32", "f64", "f64x2", "fx128"}) {
    RenderOptions o;
    o.method = Method::kDirect;
    o.backend = Backend::kCpu;
    o.arith = ds::parse_arith(arith);
    o.check_resolution = false;
    const RenderResult a = render(d, o);
    o.fields = kAllFields;
    const RenderResult b = render(d, o);
    EXPECT_EQ(a.counts, b.counts) << arith;
    EXPECT_EQ(a.smooth, b.smooth) << arith;
  }
}

// Bad requests: a direct format's distance estimate below 2^-900 pixel spacing, unknown bits.
TEST(Fields, RefusedWhereTheDirectDerivativeCannotHoldTheSpacing) {
  View v = kfr_view("4e533.kfr", 8, 8);
  RenderOptions o;
  o.method = Method::kDirect;
  o.arith = ds::Arith::kF64;
  o.check_resolution = false;
  o.backend = Backend::kCpu;
  o.fields = kFieldDistance;
  EXPECT_THROW(render(v, o), ViewError);
  o.fields = 8 * kFieldStripe;
  View s;
  s.width = s.height = 8;
  EXPECT_THROW(render(s, o), ViewError);
}

// The GPU's fields equal the CPU's pixel for pixel (to the rounding of atan2 and log, which the
// device and the host library may round differently), for the direct and perturbation engines.
TEST(FieldsDevice, GpuFieldsMatchCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  struct Case {
    View v;
    Method m;
  };
  std::vector<Case> cases;
  View d;
  d.re = "-0.7436";
  d.im = "0.1318";
  d.zoom = "200";
  d.width = 96;
  d.height = 64;
  d.max_iter = 3000;
  cases.push_back({d, Method::kDirect});
  cases.push_back({kfr_view("5e113.kfr", 96, 64), Method::kPerturb});
  cases.push_back({kfr_view("4e533.kfr", 64, 48), Method::kPerturb});
  for (const Case& c : cases) {
    perturb::clear_reference_cache();
    const RenderResult a = render_fields(c.v, c.m, Backend::kCpu);
    const RenderResult b = render_fields(c.v, c.m, Backend::kCuda);
    ASSERT_EQ(b.backend, Backend::kCuda);
    EXPECT_EQ(a.counts, b.counts) << c.v.zoom;
    std::size_t differ = 0;
    double worst = 0;
    for (std::size_t k = 0; k < a.counts.size(); ++k) {
      const double n = std::max(1e-30, std::hypot(static_cast<double>(a.dex[k]), static_cast<double>(a.dey[k])));
      const double e = std::hypot(a.dex[k] - b.dex[k], a.dey[k] - b.dey[k]) / n;
      const double p = std::fabs(a.phase[k] - b.phase[k]);
      worst = std::max(worst, e);
      differ += e > 1e-5 || std::min(p, 1.0 - p) > 1e-6 || std::fabs(a.stripe[k] - b.stripe[k]) > 1e-6;
    }
    std::cout << c.v.zoom << ": fields CPU vs GPU, worst relative DE difference " << worst << ", pixels beyond "
              << differ << " of " << a.counts.size() << "\n";
    EXPECT_EQ(differ, 0u) << c.v.zoom;
  }
}

}  // namespace

namespace {

// The exponential map's pixel positions against their definition, evaluated independently in MPFR:
// c = centre + s R 2^(-(j + 1/2)/h) (cos theta, sin theta), theta = 2 pi (i + 1/2) / w, R = hypot(w, h) / 2.
TEST(ExpMap, PixelsLieOnTheirRings) {
  View v = kfr_view("5e113.kfr", 64, 8);
  v.exp_map = true;
  const Geometry g = geometry(v);
  EXPECT_FALSE(g.square_pixels);
  const int bits = 500;
  mpfr_t cr, ci, s, t, u, r, th;
  mpfr_inits2(bits, cr, ci, s, t, u, r, th, static_cast<mpfr_ptr>(nullptr));
  for (auto [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {17, 3}, {63, 7}, {40, 5}}) {
    std::string re, im;
    perturb::pixel_c(g, v, i, j, bits, &re, &im);
    mpfr_set_str(s, g.half_step.c_str(), 10, MPFR_RNDN);
    mpfr_mul_2ui(s, s, 1, MPFR_RNDN);  // s
    mpfr_const_log2(r, MPFR_RNDN);
    mpfr_mul_d(r, r, -(j + 0.5) / v.height, MPFR_RNDN);
    mpfr_exp(r, r, MPFR_RNDN);
    mpfr_mul_d(r, r, 0.5 * std::hypot(64.0, 8.0), MPFR_RNDN);  // radius in pixels
    mpfr_const_pi(th, MPFR_RNDN);
    mpfr_mul_d(th, th, 2.0 * (i + 0.5) / v.width, MPFR_RNDN);
    // Re: centre + s r cos(theta); compare the offsets in pixels.
    mpfr_set_str(t, re.c_str(), 10, MPFR_RNDN);
    mpfr_set_str(u, v.re.c_str(), 10, MPFR_RNDN);
    mpfr_sub(t, t, u, MPFR_RNDN);
    mpfr_div(t, t, s, MPFR_RNDN);
    mpfr_cos(u, th, MPFR_RNDN);
    mpfr_mul(u, u, r, MPFR_RNDN);
    EXPECT_NEAR(mpfr_get_d(t, MPFR_RNDN), mpfr_get_d(u, MPFR_RNDN), 1e-9) << i << "," << j;
    mpfr_set_str(t, im.c_str(), 10, MPFR_RNDN);
    mpfr_set_str(u, v.im.c_str(), 10, MPFR_RNDN);
    mpfr_sub(t, t, u, MPFR_RNDN);
    mpfr_div(t, t, s, MPFR_RNDN);
    mpfr_sin(u, th, MPFR_RNDN);
    mpfr_mul(u, u, r, MPFR_RNDN);
    EXPECT_NEAR(mpfr_get_d(t, MPFR_RNDN), mpfr_get_d(u, MPFR_RNDN), 1e-9) << i << "," << j;
  }
  mpfr_clears(cr, ci, s, t, u, r, th, static_cast<mpfr_ptr>(nullptr));
}

// An exponential map of KF's 5e113 rendered by perturbation agrees with direct MPFR iteration at
// every pixel's c, and the direct formats refuse it.
TEST(ExpMap, RenderAgreesWithMpfr) {
  View v = kfr_view("5e113.kfr", 48, 6);
  v.exp_map = true;
  perturb::clear_reference_cache();
  RenderOptions o;
  o.backend = Backend::kCpu;
  o.fields = kFieldDistance;
  const RenderResult r = render(v, o);
  ASSERT_EQ(r.method, Method::kPerturb);
  const Geometry g = geometry(v);
  const int bits = perturb::reference_bits(g) + 64;
  int same = 0, total = 0;
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      uint64_t c = 0;
      float sm = 0;
      perturb::direct_pixel(g, v, i, j, bits, &c, &sm);
      ++total;
      same += r.count(static_cast<std::size_t>(j) * v.width + i) == c;
    }
  std::cout << "exp map of 5e113: " << same << "/" << total << " counts equal to MPFR\n";
  EXPECT_GE(same, total * 99 / 100);
  // The distance estimate's vector in the map's local axes against finite differences: the oracle's
  // c-plane vector (in spacings s) carried into local pixels through the map's Jacobian at the pixel,
  // from its definition: d offset / di = r (2 pi / w) (-sin t, cos t), d offset / dj = -r (ln 2 / h) (cos t, sin t).
  int checked = 0;
  for (auto [i, j] : std::vector<std::pair<int, int>>{{3, 1}, {20, 2}, {33, 4}, {45, 0}, {11, 5}}) {
    const std::size_t k = static_cast<std::size_t>(j) * v.width + i;
    if (r.count(k) >= v.max_iter) continue;
    const double de = std::hypot(static_cast<double>(r.dex[k]), static_cast<double>(r.dey[k]));
    const double hp = std::min(1e-3, 1e-3 * de);
    double ox = 0, oy = 0, hx = 0, hy = 0;
    if (!fd_distance(v, i, j, bits + 40, &ox, &oy, hp) || !fd_distance(v, i, j, bits + 104, &hx, &hy, hp) ||
        std::hypot(ox - hx, oy - hy) > 1e-6 * std::hypot(ox, oy))
      continue;
    const double vr = ox, vi = -oy;  // back to the c-plane (fd_distance flips y for a linear view)
    const double t = 2 * M_PI * (i + 0.5) / v.width;
    const double rad = 0.5 * std::hypot(48.0, 6.0) * std::exp(-std::log(2.0) * (j + 0.5) / v.height);
    const double l00 = -rad * 2 * M_PI / v.width * std::sin(t), l10 = rad * 2 * M_PI / v.width * std::cos(t);
    const double l01 = -rad * std::log(2.0) / v.height * std::cos(t), l11 = -rad * std::log(2.0) / v.height * std::sin(t);
    const double det = l00 * l11 - l01 * l10;
    const double qx = (l11 * vr - l01 * vi) / det, qy = (-l10 * vr + l00 * vi) / det;
    const double err = std::hypot(r.dex[k] - qx, r.dey[k] - qy) / std::hypot(qx, qy);
    std::cout << "exp map (" << i << "," << j << "): DE (" << r.dex[k] << ", " << r.dey[k] << "), oracle (" << qx
              << ", " << qy << "), relative difference " << err << "\n";
    EXPECT_LT(err, 1e-4) << i << "," << j;
    ++checked;
  }
  EXPECT_GE(checked, 3);
  o.method = Method::kDirect;
  EXPECT_THROW(render(v, o), ViewError);
}

}  // namespace
