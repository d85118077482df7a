// kernels/formula: the named formulas against KF's reference formulas (formula.xml, written out by
// hand below), parsing and its refusals, the binary64 direct render against MPFR orbits at 256 bits
// (trusted where 384 bits give the same count) on 32x32 views at zoom 1 and past 1e5 for every
// named formula and a hybrid, the hybrid's phase order, and the conjugate formula of mirrored views.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <set>
#include <string>

#include "kernels/formula/direct.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/mpfr_orbit.h"
#include "kernels/formula/step.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "oracle.h"

namespace {

using namespace ds::formula;
using ds::mandel::View;

// KF 2.15 formula/formula.xml's reference iterations (Xrn, Xin from Xr, Xi and C), restated.
std::complex<double> kf_step(const std::string& name, std::complex<double> z, std::complex<double> c) {
  const double x = z.real(), y = z.imag(), x2 = x * x, y2 = y * y;
  if (name == "burning-ship") return {x2 - y2 + c.real(), std::fabs(2 * x * y) + c.imag()};
  if (name == "burning-ship3")
    return {(x2 - 3 * y2) * std::fabs(x) + c.real(), (3 * x2 - y2) * std::fabs(y) + c.imag()};
  if (name == "buffalo") return {std::fabs(x2 - y2) + c.real(), 2 * std::fabs(x * y) + c.imag()};
  if (name == "celtic") return {std::fabs(x2 - y2) + c.real(), 2 * x * y + c.imag()};
  if (name == "mandelbar") return {x2 - y2 + c.real(), c.imag() - 2 * x * y};
  if (name == "mandelbar-celtic") return {std::fabs(x2 - y2) + c.real(), c.imag() - 2 * x * y};
  if (name == "perpendicular-mandelbrot") return {x2 - y2 + c.real(), c.imag() - 2 * std::fabs(x) * y};
  if (name == "perpendicular-burning-ship") return {x2 - y2 + c.real(), c.imag() - 2 * x * std::fabs(y)};
  if (name == "perpendicular-celtic") return {std::fabs(x2 - y2) + c.real(), c.imag() - 2 * std::fabs(x) * y};
  if (name == "perpendicular-buffalo")
    return {std::fabs(x2 - y2) + c.real(), c.imag() - 2 * x * std::fabs(y)};
  if (name == "mandelbrot") return z * z + c;
  for (int k = 3; k <= 8; ++k)
    if (name == "mandelbrot" + std::to_string(k)) return std::pow(z, k) + c;
  ADD_FAILURE() << "no KF definition for " << name;
  return {};
}

TEST(Formula, NamedFormulasStepAsKfDefinesThem) {
  std::mt19937_64 rng = ds::test::seeded_rng("Formula.NamedFormulasStepAsKfDefinesThem");
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  for (const std::string& name : formula_names()) {
    const Formula f = parse_formula(name);
    ASSERT_EQ(f.phases, 1) << name;
    for (int t = 0; t < 200; ++t) {
      const std::complex<double> z(u(rng), u(rng)), c(u(rng), u(rng));
      double x = z.real(), y = z.imag();
      phase_step(f.phase[0], x, y, c.real(), c.imag());
      const std::complex<double> want = kf_step(name, z, c);
      const double scale = std::pow(std::abs(z), phase_degree(f.phase[0])) + std::abs(c) + 1;
      ASSERT_NEAR(x, want.real(), 1e-14 * scale) << name << " z = " << z << " c = " << c;
      ASSERT_NEAR(y, want.imag(), 1e-14 * scale) << name << " z = " << z << " c = " << c;
      // |phase(z) - c| = |z|^d: the escape radius 2 argument of formula.h.
      const double d = phase_degree(f.phase[0]);
      EXPECT_NEAR(std::abs(std::complex<double>(x, y) - c), std::pow(std::abs(z), d), 1e-12 * scale) << name;
    }
  }
}

TEST(Formula, ParseAndPrintRoundTrip) {
  for (const std::string& name : formula_names()) {
    const Formula f = parse_formula(name);
    EXPECT_EQ(to_string(f), name);
    EXPECT_EQ(parse_formula(to_string(f)), f);
  }
  EXPECT_EQ(parse_formula("tricorn"), parse_formula("mandelbar"));
  EXPECT_EQ(parse_formula("ABSX absy  sqr add"), parse_formula("burning-ship"));
  const Formula h = parse_formula("mandelbrot, burning-ship");
  EXPECT_EQ(h.phases, 2);
  EXPECT_EQ(to_string(h), "mandelbrot,burning-ship");
  EXPECT_EQ(to_string(parse_formula("absx sqr absy add")), "absx sqr absy add");
  EXPECT_TRUE(is_mandelbrot(parse_formula("sqr add")));
  EXPECT_TRUE(is_mandelbrot(parse_formula("mandelbrot,mandelbrot")));  // one period kept
  EXPECT_EQ(to_string(parse_formula("celtic,buffalo,celtic,buffalo")), "celtic,buffalo");
  EXPECT_EQ(parse_formula("celtic,buffalo,celtic").phases, 3);  // 3 is not a multiple of 2
  EXPECT_FALSE(is_mandelbrot(parse_formula("mandelbrot,mandelbar")));
  for (int k = 2; k <= 8; ++k)
    EXPECT_EQ(
        phase_degree(
            parse_formula(k == 2 ? std::string("mandelbrot") : "mandelbrot" + std::to_string(k)).phase[0]),
        k);
  EXPECT_EQ(phase_degree(parse_formula("burning-ship3").phase[0]), 3);
}

std::string parse_error(const std::string& text) {
  try {
    parse_formula(text);
  } catch (const FormulaError& e) {
    return e.what();
  }
  return "";
}

TEST(Formula, BadFormulasAreRefusedByName) {
  EXPECT_NE(parse_error("burning-boat").find("burning-boat"), std::string::npos);
  EXPECT_NE(parse_error("mandelbrot9").find("mandelbrot9"), std::string::npos);
  EXPECT_NE(parse_error("").find("empty"), std::string::npos);
  EXPECT_NE(parse_error("mandelbrot,").find("phase 2"), std::string::npos);
  EXPECT_NE(parse_error("absx sqr").find("must end with \"add\""), std::string::npos);
  EXPECT_NE(parse_error("sqr add sqr add").find("once, last"), std::string::npos);
  EXPECT_NE(parse_error("absx add").find("degree 1"), std::string::npos);
  EXPECT_NE(parse_error("mandelbrot,mandelbrot,mandelbrot,mandelbrot,mandelbrot,mandelbrot,mandelbrot,"
                        "mandelbrot,mandelbrot")
                .find("more than 8 phases"),
            std::string::npos);
  EXPECT_NE(parse_error("sqr sqr sqr sqr sqr sqr sqr add").find("at most 64"), std::string::npos);
}

TEST(Formula, KfNumbering) {
  EXPECT_EQ(kf_formula(0, 2), "mandelbrot");
  EXPECT_EQ(kf_formula(0, 5), "mandelbrot5");
  EXPECT_EQ(kf_formula(1, 2), "burning-ship");
  EXPECT_EQ(kf_formula(1, 3), "burning-ship3");
  EXPECT_EQ(kf_formula(2, 2), "buffalo");
  EXPECT_EQ(kf_formula(3, 2), "celtic");
  EXPECT_EQ(kf_formula(4, 2), "mandelbar");
  EXPECT_EQ(kf_formula(5, 2), "mandelbar-celtic");
  EXPECT_EQ(kf_formula(6, 2), "perpendicular-mandelbrot");
  EXPECT_EQ(kf_formula(7, 2), "perpendicular-burning-ship");
  EXPECT_EQ(kf_formula(8, 2), "perpendicular-celtic");
  EXPECT_EQ(kf_formula(9, 2), "perpendicular-buffalo");
  auto error = [](long t, long p) {
    try {
      kf_formula(t, p);
    } catch (const FormulaError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(10, 3).find("FractalType = 10"), std::string::npos);
  EXPECT_NE(error(1, 4).find("Power = 4"), std::string::npos);
  EXPECT_NE(error(0, 9).find("Power = 9"), std::string::npos);
  EXPECT_NE(error(4, 3).find("Power = 3"), std::string::npos);  // KF's Mandelbar 3 is -conj(z^3): not ours
  for (const std::string& name : formula_names()) {
    long t = -1, p = -1;
    ASSERT_TRUE(kf_fields(parse_formula(name), &t, &p)) << name;
    EXPECT_EQ(kf_formula(t, p), name);
  }
  long t = 0, p = 0;
  EXPECT_FALSE(kf_fields(parse_formula("mandelbrot,burning-ship"), &t, &p));
}

// 32x32 direct binary64 render of v against MPFR at 256 bits, trusted where 384 bits agree.
struct Agreement {
  int trusted = 0;             // MPFR: 256 and 384 bits give the same count
  int certified = 0;           // binary64's error bound decided every escape test (direct.h)
  int compared = 0;            // both
  int agree = 0;               // of those compared, binary64's count is MPFR's
  int uncertified_differ = 0;  // trusted, not certified, and binary64's count differs
  int distinct = 0;            // distinct MPFR counts in the grid
  std::string detail;
};
Agreement compare_with_mpfr(const View& v, const Formula& f) {
  Certification cert;
  const ds::mandel::RenderResult r = render_direct(v, f, {}, &cert);
  const std::vector<GridPixel> grid = mpfr_grid(v, f, 32, 256, 384);
  Agreement a;
  std::set<uint64_t> counts;
  for (const GridPixel& px : grid) {
    counts.insert(px.count);
    const std::size_t k = static_cast<std::size_t>(px.j) * v.width + px.i;
    const bool certified = cert.certified[k] != 0;
    a.certified += certified;
    if (!px.trusted()) continue;
    ++a.trusted;
    const uint64_t got = r.count(k);
    if (!certified) {
      a.uncertified_differ += got != px.count;
      continue;
    }
    ++a.compared;
    if (got == px.count)
      ++a.agree;
    else if (a.detail.size() < 400)
      a.detail += " (" + std::to_string(px.i) + "," + std::to_string(px.j) + "): f64 " + std::to_string(got) +
                  " mpfr " + std::to_string(px.count) + ";";
  }
  a.distinct = static_cast<int>(counts.size());
  return a;
}

View view32(const std::string& re, const std::string& im, const std::string& zoom, uint64_t iter) {
  View v;
  v.re = re;
  v.im = im;
  v.zoom = zoom;
  v.width = v.height = 32;
  v.max_iter = iter;
  return v;
}

// A point on the boundary of f's set, found by zooming 8x at a time (six times, to 2.6e5) into a
// pixel that escaped late beside a pixel that did not escape: every view on the way holds both.
View boundary_view(const Formula& f, uint64_t iter) {
  View v = view32("-0.5", "0", "1", iter);
  double re = -0.5, im = 0, zoom = 1;
  for (int step = 0; step < 6; ++step) {
    const ds::mandel::RenderResult r = render_direct(v, f);
    int best = -1;
    uint64_t best_count = 0;
    for (int j = 1; j < 31; ++j)
      for (int i = 1; i < 31; ++i) {
        const uint64_t c = r.count(static_cast<std::size_t>(j) * 32 + i);
        if (c >= iter || c <= best_count) continue;
        bool inside_near = false;
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di)
            inside_near |= r.count(static_cast<std::size_t>(j + dj) * 32 + i + di) >= iter;
        if (inside_near) {
          best = j * 32 + i;
          best_count = c;
        }
      }
    if (best < 0) break;
    const double s = 4.0 / (zoom * 32);
    re += (best % 32 + 0.5 - 16) * s;
    im -= (best / 32 + 0.5 - 16) * s;
    zoom *= 8;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", re);
    v.re = buf;
    std::snprintf(buf, sizeof buf, "%.17g", im);
    v.im = buf;
    std::snprintf(buf, sizeof buf, "%.17g", zoom);
    v.zoom = buf;
  }
  return v;
}

class FormulaVsMpfr : public testing::TestWithParam<std::string> {};

TEST_P(FormulaVsMpfr, DirectBinary64CountsAgreeWithMpfr) {
  const Formula f = parse_formula(GetParam());
  const View shallow = view32("-0.5", "0", "1", 200);
  const View deep = boundary_view(f, 1000);
  ASSERT_GE(std::stod(deep.zoom), 1e5) << GetParam() << ": no boundary found";
  for (int which = 0; which < 2; ++which) {
    const View& v = which == 0 ? shallow : deep;
    const Agreement a = compare_with_mpfr(v, f);
    const std::string where = GetParam() + " at " + v.re + " " + v.im + " zoom " + v.zoom;
    std::printf(
        "%s: %d/1024 trusted (MPFR 256 = 384 bits), %d certified (binary64 bound), %d compared, %d agree; "
        "%d trusted but uncertified pixels differ; %d distinct counts\n",
        where.c_str(), a.trusted, a.certified, a.compared, a.agree, a.uncertified_differ, a.distinct);
    EXPECT_GE(a.distinct, 5) << where << ": too plain a view to test anything";
    // Every count binary64's bound certifies is the exact orbit's: no exception allowed.
    EXPECT_EQ(a.agree, a.compared) << where << a.detail;
    // The bound is not vacuous: it certifies most of a zoom-1 view and some of the deep one (the abs
    // formulas' deep views found here lie in chaotic regions: docs/formulas.md has the figures).
    EXPECT_GE(a.compared, which == 0 ? 900 : 10) << where;
  }
}

INSTANTIATE_TEST_SUITE_P(Named, FormulaVsMpfr,
                         testing::Values("mandelbrot", "mandelbrot3", "mandelbrot4", "mandelbrot5",
                                         "mandelbrot6", "mandelbrot7", "mandelbrot8", "burning-ship",
                                         "burning-ship3", "mandelbar", "celtic", "buffalo",
                                         "mandelbar-celtic", "perpendicular-mandelbrot",
                                         "perpendicular-burning-ship", "perpendicular-celtic",
                                         "perpendicular-buffalo", "mandelbrot,burning-ship"),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string s;
                           for (char ch : p.param)
                             s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return s;
                         });

// The certified pixel function follows the plain one's orbit exactly (the bound only watches).
TEST(Formula, CertifiedPixelIsThePlainPixel) {
  std::mt19937_64 rng = ds::test::seeded_rng("Formula.CertifiedPixelIsThePlainPixel");
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (const std::string& name :
       {std::string("burning-ship"), std::string("mandelbrot5"), std::string("mandelbrot,burning-ship"),
        std::string("perpendicular-buffalo")}) {
    const Formula f = parse_formula(name);
    const double log_d = std::log(mean_degree(f));
    for (int t = 0; t < 2000; ++t) {
      const double cr = u(rng), ci = u(rng);
      bool certified = false;
      const auto a = formula_pixel<double>(f, log_d, 300, cr, ci, cr, ci);
      const auto b = formula_pixel_certified(f, log_d, 300, cr, ci, 1e-17, 1.0 + 0x1p-30, &certified);
      ASSERT_EQ(a.count, b.count) << name << " c = " << cr << " " << ci;
      ASSERT_EQ(a.smooth, b.smooth) << name;
    }
  }
}

int differing(const ds::mandel::RenderResult& a, const ds::mandel::RenderResult& b) {
  int n = 0;
  for (std::size_t k = 0; k < a.counts.size(); ++k) n += a.count(k) != b.count(k);
  return n;
}

TEST(Formula, HybridPhaseOrderMatters) {
  View v = view32("-0.5", "0", "1", 200);
  v.width = v.height = 64;
  const auto m = render_direct(v, parse_formula("mandelbrot"));
  const auto b = render_direct(v, parse_formula("burning-ship"));
  const auto mb = render_direct(v, parse_formula("mandelbrot,burning-ship"));
  const auto bm = render_direct(v, parse_formula("burning-ship,mandelbrot"));
  const int px = v.width * v.height;
  std::printf(
      "of %d pixels, mandelbrot,burning-ship differs from mandelbrot at %d, burning-ship at %d, "
      "burning-ship,mandelbrot at %d\n",
      px, differing(mb, m), differing(mb, b), differing(mb, bm));
  EXPECT_GT(differing(mb, m), px / 20);
  EXPECT_GT(differing(mb, b), px / 20);
  EXPECT_GT(differing(mb, bm), px / 20);
  // Phase k of the step from z_n is n mod phases: z_2 = burning-ship(z_1) for mandelbrot,burning-ship,
  // so a pixel whose orbit escapes at n = 3 follows the definition.
  const Formula h = parse_formula("mandelbrot,burning-ship");
  const std::complex<double> c(-1.3, 0.9);
  const std::complex<double> z2 = kf_step("burning-ship", c, c), z3 = kf_step("mandelbrot", z2, c);
  double x = c.real(), y = c.imag();
  formula_step(h, 1, x, y, c.real(), c.imag());
  EXPECT_EQ(x, z2.real());
  EXPECT_EQ(y, z2.imag());
  formula_step(h, 2, x, y, c.real(), c.imag());
  EXPECT_NEAR(x, z3.real(), 1e-15);
  EXPECT_NEAR(y, z3.imag(), 1e-15);
}

// A mirrored view: the conjugate formula at the conjugate centre draws f's picture upside down,
// bit for bit (negation is exact in binary64, so the orbits are exact mirrors).
TEST(Formula, ConjugatedFormulaDrawsTheMirrorImage) {
  for (const char* name :
       {"burning-ship", "buffalo", "perpendicular-burning-ship", "mandelbrot,burning-ship"}) {
    const Formula f = parse_formula(name);
    EXPECT_FALSE(conjugation_symmetric(f)) << name;
    View v = view32("-0.4", "0.3", "1.5", 300);
    View w = v;
    w.im = "-0.3";
    Certification ca, cb;
    const auto a = render_direct(v, f, {}, &ca);
    const auto b = render_direct(w, conjugated(f), {}, &cb);
    EXPECT_EQ(ca.uncertain, cb.uncertain) << name;
    const auto plain = render_direct(w, f);
    int mirrored = 0, plain_mirrored = 0;
    for (int j = 0; j < 32; ++j)
      for (int i = 0; i < 32; ++i) {
        mirrored += a.count(j * 32 + i) == b.count((31 - j) * 32 + i);
        plain_mirrored += a.count(j * 32 + i) == plain.count((31 - j) * 32 + i);
      }
    EXPECT_EQ(mirrored, 1024) << name;
    EXPECT_LT(plain_mirrored, 1000) << name << ": the formula is symmetric after all?";
  }
  for (const char* name : {"mandelbrot", "mandelbar", "celtic", "perpendicular-mandelbrot", "mandelbrot5"})
    EXPECT_TRUE(conjugation_symmetric(parse_formula(name))) << name;
}

// The formula engine's mandelbrot against the Mandelbrot engine's binary64 (which fuses its
// multiply-adds: counts may differ where an orbit passes the bailout or a fold within rounding).
TEST(Formula, MandelbrotMatchesTheMandelbrotEngine) {
  View v = view32("-0.75", "0.1", "3", 500);
  v.width = v.height = 64;
  ds::mandel::RenderOptions o;
  o.arith = ds::Arith::kF64;
  o.backend = ds::Backend::kCpu;
  const auto a = ds::mandel::render(v, o);
  const auto b = render_direct(v, parse_formula("mandelbrot"));
  EXPECT_LE(differing(a, b), 4) << "of " << v.width * v.height;
  // The smooth counts: the same definition for d = 2, so equal where the orbits are (all but a few
  // pixels near the boundary, where the fused and unfused roundings part).
  int smooth_far = 0, escaped = 0;
  for (std::size_t k = 0; k < a.counts.size(); ++k)
    if (a.count(k) == b.count(k) && a.count(k) < v.max_iter) {
      ++escaped;
      smooth_far += std::fabs(double(a.smooth[k]) - b.smooth[k]) > 1e-4;
    }
  EXPECT_GT(escaped, 1000);
  EXPECT_LE(smooth_far, escaped / 100);
}

TEST(Formula, ViewsBeyondBinary64AreRefusedNamingTheLimit) {
  View v = view32("-1.7", "0", "1e14", 100);
  try {
    render_direct(v, parse_formula("burning-ship"));
    ADD_FAILURE() << "zoom 1e14 rendered in binary64";
  } catch (const ds::mandel::ViewError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("burning-ship"), std::string::npos) << m;
    EXPECT_NE(m.find("f64 resolves pixels only up to zoom"), std::string::npos) << m;
  }
  v.zoom = "1e6";
  v.pixel_map[1] = 0.5;
  EXPECT_THROW(render_direct(v, parse_formula("celtic")), ds::mandel::ViewError);
}

}  // namespace
