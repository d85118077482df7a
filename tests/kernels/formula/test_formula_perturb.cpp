// kernels/formula's perturbation: diffabs against |X + x| - |X|, and 32x32 views of Burning Ship,
// Mandelbar, Celtic and a hybrid at depths 1e15 to 1e60 (some on the folds) rendered by
// perturbation with binary64 deltas, every count its error bound decides equal to the MPFR orbit's
// count where 256 + log2(zoom) and 384 + log2(zoom) bits agree; the MPFR fallback's pixels; and
// render's path choice.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>

#include "kernels/core/cpu_parallel.h"
#include "kernels/formula/direct.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/julia.h"
#include "kernels/formula/mpfr_orbit.h"
#include "kernels/formula/perturb.h"
#include "kernels/formula/perturb_step.h"
#include "kernels/formula/render.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "oracle.h"
#include "view_helpers.h"

namespace {

using namespace ds::formula;
using ds::mandel::View;
using namespace ds::test::formula_views;

TEST(FormulaPerturb, DISABLED_FindDeepViews) {
  struct Start {
    const char* f;
    const char* re;
    const char* im;
    double depth;
    bool axis;
  };
  for (const Start& s :
       {Start{"burning-ship", "-1.762", "-0.028", 30, false},
        Start{"burning-ship", "-0.5", "-0.5", 60, false}, Start{"burning-ship", "-1.8", "0", 30, true},
        Start{"mandelbar", "-0.5", "0", 30, false}, Start{"celtic", "-0.5", "0", 20, false},
        Start{"mandelbrot,burning-ship", "-0.5", "0", 20, false}}) {
    const Formula f = parse_formula(s.f);
    const View v =
        zoom_towards_boundary(view_n(s.re, s.im, s.axis ? "8" : "1", 500, 32), f, s.depth, 16, s.axis);
    std::printf("%s: re %s im %s zoom %s iter %llu\n", s.f, v.re.c_str(), v.im.c_str(), v.zoom.c_str(),
                static_cast<unsigned long long>(v.max_iter));
  }
}

// Past binary64's range: from the BurningShip1e60 view below, 16x at a time to zoom 1e320 (how
// BurningShip1e320 was found; prints the view every 1e20).
TEST(FormulaPerturb, DISABLED_FindFloatExpView) {
  const Formula f = parse_formula("burning-ship");
  View v = view_n("-0.52385650573873808264320817953931464697723557570940719796350161454708271638042874",
                  "-0.905063012975098048484633103441542341595677940679102394986324177838949724014396055",
                  "1.6069380442590071e60", 2000, 32);
  for (int depth = 80; depth <= 320; depth += 20) {
    v = zoom_towards_boundary(v, f, depth, 16);
    std::printf("zoom %s iter %llu re %s im %s\n", v.zoom.c_str(), static_cast<unsigned long long>(v.max_iter),
                v.re.c_str(), v.im.c_str());
    std::fflush(stdout);
  }
}

TEST(FormulaPerturb, DiffabsIsTheDifferenceOfModuli) {
  std::mt19937_64 rng = ds::test::seeded_rng("FormulaPerturb.DiffabsIsTheDifferenceOfModuli");
  std::uniform_real_distribution<double> mag(-60, 2), unit(0, 1);
  int crossed = 0;
  for (int t = 0; t < 200000; ++t) {
    const double X = (unit(rng) < 0.5 ? -1 : 1) * std::exp2(mag(rng));
    // Deltas around -X too, where X + x changes sign.
    const double x = unit(rng) < 0.5 ? (unit(rng) < 0.5 ? -1 : 1) * std::exp2(mag(rng))
                                     : -X * (1 + (unit(rng) - 0.5) * std::exp2(-20 * unit(rng)));
    const double d = diffabs(X, x);
    const long double want =
        std::fabs(static_cast<long double>(X) + x) - std::fabs(static_cast<long double>(X));
    const bool cross = (X >= 0) != (X + x >= 0) && X + x != 0;
    crossed += cross;
    if (!cross) {
      ASSERT_EQ(d, X >= 0 ? x : -x) << X << " " << x;  // exact off the fold
    } else {
      // One rounding of 2X + x (long double holds |X + x| - |X| to 64 bits: a bound on both).
      ASSERT_LE(std::fabs(d - want), 0x1p-52L * std::fabs(2.0L * X + x)) << X << " " << x;
    }
  }
  EXPECT_GT(crossed, 10000);
  EXPECT_EQ(diffabs(0.0, -3.0), 3.0);
  EXPECT_EQ(diffabs(-0.0, 2.0), 2.0);
}

// How often the reference's component under an abs opcode changes sign (the folds it crosses), and
// how many of those states are 0 (a reference on the fold).
void fold_crossings(const FormulaReference& ref, const Formula& f, int* crossings, int* zeros) {
  *crossings = *zeros = 0;
  int last[2] = {0, 0};
  for (uint64_t m = 0; m + 1 < ref.length; ++m) {
    const Phase& ph = f.phase[m % static_cast<uint64_t>(f.phases)];
    const uint64_t q = (m / f.phases) * ref.period_states + ref.prefix[m % f.phases];
    for (int k = 0; k < ph.count; ++k) {
      if (ph.ops[k] != Op::kAbsX && ph.ops[k] != Op::kAbsY) continue;
      const int c = ph.ops[k] == Op::kAbsX ? 0 : 1;
      const double w = c == 0 ? ref.wr[q + k] : ref.wi[q + k];
      *zeros += w == 0;
      const int sign = w > 0 ? 1 : w < 0 ? -1 : 0;
      if (sign != 0 && last[c] != 0 && sign != last[c]) ++*crossings;
      if (sign != 0) last[c] = sign;
    }
  }
}

struct DeepView {
  const char* name;
  const char* formula;
  const char* re;
  const char* im;
  const char* zoom;
  uint64_t iter;
  bool on_fold;       // the reference lies on a fold (Im = 0 throughout)
  int min_compared;   // grid pixels both decided and trusted, at least (measured, less a margin)
  int min_crossings;  // sign changes of the reference under an abs opcode, at least
};

// Found by DISABLED_FindDeepViews (zooming 16x at a time from the named start), 2026-11-29.
#define DEEP_VIEWS                                                                                     \
  DeepView{"BurningShip1e30",                                                                          \
           "burning-ship",                                                                             \
           "-0.989752281000521898831661265663459503552380985223124",                                   \
           "-0.528974112195614262618309520861418904169817810601377",                                   \
           "1.2676506002282359e30",                                                                    \
           8000,                                                                                       \
           false,                                                                                      \
           20,                                                                                         \
           100},                                                                                       \
      DeepView{"BurningShipOnTheFold1e31",                                                             \
               "burning-ship",                                                                         \
               "-1.749738990540381325390293428499134907572197280083504",                               \
               "0",                                                                                    \
               "1.0141204801825892e31",                                                                \
               2000,                                                                                   \
               true,                                                                                   \
               20,                                                                                     \
               0},                                                                                     \
      DeepView{"BurningShip1e60",                                                                      \
               "burning-ship",                                                                         \
               "-0.52385650573873808264320817953931464697723557570940719796350161454708271638042874",  \
               "-0.905063012975098048484633103441542341595677940679102394986324177838949724014396055", \
               "1.6069380442590071e60",                                                                \
               2000,                                                                                   \
               false,                                                                                  \
               100,                                                                                    \
               100},                                                                                   \
      DeepView{"Mandelbar1e30",                                                                        \
               "mandelbar",                                                                            \
               "0.310175907990264547510074843810928955381608532623691",                                \
               "0.452451404255531058853404179332138283843885987485153",                                \
               "1.2676506002282359e30",                                                                \
               32000,                                                                                  \
               false,                                                                                  \
               200,                                                                                    \
               0},                                                                                     \
      DeepView{"Celtic1e20",                                                                           \
               "celtic",                                                                               \
               "-0.77362395931434288945154822652948881053107",                                         \
               "0.47086562405041076453212307161421900403961",                                          \
               "2.9514790517935312e20",                                                                \
               8000,                                                                                   \
               false,                                                                                  \
               30,                                                                                     \
               100},                                                                                   \
      DeepView {                                                                                       \
    "Hybrid1e20", "mandelbrot,burning-ship", "-0.8019282266674581821045894289848968111814",            \
        "-0.16507176432579787887486640532584239151177", "2.9514790517935312e20", 8000, false, 200, 5   \
  }

class FormulaPerturbDeep : public testing::TestWithParam<DeepView> {};

// Every count the delta's bound decides equals the MPFR orbit's wherever two precisions agree, with
// no exception; the bound decides most of the view; the reference crosses the folds (or lies on one).
TEST_P(FormulaPerturbDeep, DecidedCountsAgreeWithMpfr) {
  const DeepView& d = GetParam();
  const Formula f = parse_formula(d.formula);
  const View v = view_n(d.re, d.im, d.zoom, d.iter, 32);
  ASSERT_EQ(auto_path(v), FormulaPath::kPerturb);
  // With BLA (the default) and without: both against the same MPFR grid.
  Certification cert, plain_cert;
  FormulaReference ref;
  const ds::mandel::RenderResult r = render_perturb(v, f, {}, &cert, &ref);
  DirectOptions no_bla;
  no_bla.bla = false;
  const ds::mandel::RenderResult plain = render_perturb(v, f, no_bla, &plain_cert);
  int crossings = 0, zeros = 0;
  fold_crossings(ref, f, &crossings, &zeros);
  const int b1 = formula_reference_bits(ds::mandel::geometry(v)) + 128;
  const std::vector<GridPixel> grid = mpfr_grid(v, f, 16, b1, b1 + 128);
  const Agreement a = compare_with_mpfr(v, r, cert.certified, grid);
  const Agreement b = compare_with_mpfr(v, plain, plain_cert.certified, grid);
  const double share = r.iterations ? static_cast<double>(r.perturb.bla_skipped) / r.iterations : 0.0;
  std::printf(
      "%s: %s at zoom %s, %llu iterations: reference %llu points at %d bits (%s), %d fold crossings, "
      "%d states on a fold; BLA %d levels, %.1f%% of %llu iterations by BLA; undecided of 1024: %llu with BLA, "
      "%llu without; grid 16x16: %d trusted; with BLA %d decided, %d compared, %d agree; without %d decided, "
      "%d compared, %d agree; %d distinct counts\n",
      d.name, d.formula, d.zoom, static_cast<unsigned long long>(d.iter),
      static_cast<unsigned long long>(ref.length), ref.bits, ref.escaped ? "escaped" : "to the limit",
      crossings, zeros, r.perturb.bla_levels, 100.0 * share, static_cast<unsigned long long>(r.iterations),
      static_cast<unsigned long long>(cert.uncertain), static_cast<unsigned long long>(plain_cert.uncertain),
      a.trusted, a.decided, a.compared, a.agree, b.decided, b.compared, b.agree, a.distinct);
  EXPECT_EQ(a.agree, a.compared) << d.name << " with BLA" << a.detail;
  EXPECT_EQ(b.agree, b.compared) << d.name << " without BLA" << b.detail;
  EXPECT_GE(a.compared, d.min_compared) << d.name;
  EXPECT_GE(b.compared, d.min_compared) << d.name;
  EXPECT_GE(a.distinct, 5) << d.name << ": too plain a view to test anything";
  EXPECT_EQ(plain.perturb.bla_skipped, 0u);
  if (d.on_fold) {
    EXPECT_GT(zeros, 100) << d.name;  // absy at Y = 0 every step
    // A state on the fold has BLA radius 0: the pixels cross it every step, and no entry applies.
    EXPECT_EQ(r.perturb.bla_skipped, 0u) << d.name;
  } else {
    EXPECT_GT(r.perturb.bla_skipped, 0u) << d.name;
  }
  EXPECT_GE(crossings, d.min_crossings) << d.name;
}

INSTANTIATE_TEST_SUITE_P(Views, FormulaPerturbDeep, testing::Values(DEEP_VIEWS),
                         [](const testing::TestParamInfo<DeepView>& p) { return std::string(p.param.name); });

// The pixels the bound leaves undecided go to their own MPFR orbit (certified by its bound, at the
// reference's bits and doubling): at these two views all of them are decided there, and then every
// pixel of the 16x16 render equals MPFR's count wherever two precisions agree. The undecided counts
// are asserted as measured (binary64 with -ffp-contract=off is deterministic).
TEST(FormulaPerturb, UndecidedPixelsAreDecidedByTheirMpfrOrbit) {
  struct Case {
    DeepView d;
    uint64_t undecided;
    int min_compared;  // MPFR's two precisions agree on 252 and 196 of the 256 (measured)
  };
  const DeepView views[] = {DEEP_VIEWS};
  for (const Case& c : {Case{views[2], 147, 240}, Case{views[4], 215, 180}}) {
    const Formula f = parse_formula(c.d.formula);
    const View v = view_n(c.d.re, c.d.im, c.d.zoom, c.d.iter, 16);
    FormulaReport rep;
    const ds::mandel::RenderResult r = render(v, f, FormulaOptions{}, &rep);
    std::printf("%s 16x16: %llu undecided, %llu decided in MPFR (up to %d bits, %.2f s), %llu unresolved\n",
                c.d.name, static_cast<unsigned long long>(rep.undecided),
                static_cast<unsigned long long>(rep.fallback), rep.fallback_max_bits, rep.fallback_seconds,
                static_cast<unsigned long long>(rep.unresolved));
    EXPECT_EQ(rep.path, FormulaPath::kPerturb);
    EXPECT_EQ(rep.undecided, c.undecided) << c.d.name;
    EXPECT_EQ(rep.fallback, c.undecided) << c.d.name;
    EXPECT_EQ(rep.unresolved, 0u) << c.d.name;
    const int b1 = formula_reference_bits(ds::mandel::geometry(v)) + 128;
    const Agreement a = compare_with_mpfr(v, r, rep.certified, mpfr_grid(v, f, 16, b1, b1 + 128));
    EXPECT_EQ(a.decided, 256) << c.d.name;
    EXPECT_EQ(a.agree, a.compared) << c.d.name << a.detail;
    EXPECT_GE(a.compared, c.min_compared) << c.d.name;
  }
}

// Where not even the MPFR orbit is certified within the cap (chaotic orbits: the 1e30 Burning Ship
// needs 1,848 bits for some pixels), or past max_fallback, pixels stay unresolved and are counted.
TEST(FormulaPerturb, PixelsPastTheFallbackStayUnresolvedAndCounted) {
  const DeepView views[] = {DEEP_VIEWS};
  const DeepView& d = views[0];
  const Formula f = parse_formula(d.formula);
  const View v = view_n(d.re, d.im, d.zoom, d.iter, 16);
  FormulaOptions o;
  o.fallback_bits_factor = 2;  // up to 464 bits
  FormulaReport rep;
  render(v, f, o, &rep);
  EXPECT_EQ(rep.undecided, 226u);
  EXPECT_GT(rep.unresolved, 0u);
  EXPECT_EQ(rep.fallback + rep.unresolved, rep.undecided);
  uint64_t uncertified = 0;
  for (uint8_t b : rep.certified) uncertified += b ? 0 : 1;
  EXPECT_EQ(uncertified, rep.unresolved);
  o.max_fallback = 10;
  render(v, f, o, &rep);
  EXPECT_GE(rep.unresolved, 216u);
}

// auto takes direct binary64 while it resolves the view and perturbation beyond; both agree where
// both certify a count (zoom 1e9: binary64 still resolves it).
TEST(FormulaPerturb, RenderTakesPerturbationPastBinary64) {
  const Formula f = parse_formula("burning-ship");
  EXPECT_EQ(auto_path(view_n("-1.762", "-0.028", "1e5", 500, 32)), FormulaPath::kDirect);
  EXPECT_EQ(auto_path(view_n("-1.762", "-0.028", "1e14", 500, 32)), FormulaPath::kPerturb);
  const View v = view_n("-1.7613", "-0.0281", "1e3", 1000, 32);
  FormulaOptions o;
  o.max_fallback = 0;
  FormulaReport direct, pert;
  o.path = FormulaPath::kDirect;
  const auto a = render(v, f, o, &direct);
  o.path = FormulaPath::kPerturb;
  const auto b = render(v, f, o, &pert);
  EXPECT_EQ(direct.path, FormulaPath::kDirect);
  EXPECT_EQ(pert.path, FormulaPath::kPerturb);
  int both = 0;
  for (std::size_t k = 0; k < a.counts.size(); ++k) {
    if (!direct.certified[k] || !pert.certified[k]) continue;
    ++both;
    ASSERT_EQ(a.count(k), b.count(k)) << "pixel " << k;
  }
  EXPECT_GE(both, 500);
  // Beyond binary64 deltas' range (s/2 below 2^-900) the deltas are FloatExp, said in the report,
  // with BLA while the table's dcmax is at least 2^-1000 (1e280 at 32 rows), without beyond (1e320).
  FormulaReport fe, fe2;
  render(view_n("-1.762", "-0.028", "1e280", 100, 32), f, o, &fe);
  EXPECT_TRUE(fe.floatexp);
  EXPECT_TRUE(fe.bla);
  EXPECT_EQ(method_name(fe), "perturbation (FloatExp deltas)");
  render(view_n("-1.762", "-0.028", "1e320", 100, 32), f, o, &fe2);
  EXPECT_TRUE(fe2.floatexp);
  EXPECT_FALSE(fe2.bla);
  EXPECT_FALSE(pert.floatexp);
}

// Every named formula and a hybrid (so every opcode: store and mul in the powers and burning-ship3,
// abs after sqr in Celtic and Buffalo, neg in the perpendicular ones): where perturbation from the
// view's centre and direct binary64 both certify a count, the counts are equal, and perturbation
// certifies most of a zoom-1 view (its deltas are as large as the orbit there: rebasing keeps them
// exact algebra).
TEST(FormulaPerturb, EveryFormulaAgreesWithDirectWhereBothCertify) {
  std::vector<std::string> names = formula_names();
  names.push_back("mandelbrot,burning-ship");
  names.push_back("burning-ship,mandelbar,celtic");
  for (const std::string& name : names) {
    const Formula f = parse_formula(name);
    for (const char* zoom : {"1", "5"}) {
      const View v = view_n("-0.5", "0.1", zoom, 300, 32);
      Certification dc, pc;
      const auto a = render_direct(v, f, {}, &dc);
      const auto b = render_perturb(v, f, {}, &pc);
      int both = 0, perturb_ok = 0;
      for (std::size_t k = 0; k < a.counts.size(); ++k) {
        perturb_ok += pc.certified[k];
        if (!dc.certified[k] || !pc.certified[k]) continue;
        ++both;
        ASSERT_EQ(a.count(k), b.count(k)) << name << " zoom " << zoom << " pixel " << k;
      }
      std::printf("%s zoom %s: perturbation certifies %d, both %d of 1024\n", name.c_str(), zoom, perturb_ok,
                  both);
      EXPECT_GE(perturb_ok, 700) << name << " zoom " << zoom;
      EXPECT_GE(both, 600) << name << " zoom " << zoom;
    }
  }
}

// FloatExp deltas past binary64's range (s/2 below 2^-900): Burning Ships at 3.6e280 and 2.0e320
// (found by DISABLED_FindFloatExpView from BurningShip1e60), 32x32, 4,000 iterations, rendered by
// perturbation with FloatExp deltas (BLA at 3.6e280, none at 2.0e320; and without BLA) against
// MPFR on a 16x16 grid at the reference's bits + 128 and + 256: every count the bound decided is
// MPFR's, with no exception, and render() (the
// pass and the MPFR fallback) agrees with every trusted grid pixel and leaves none unresolved.
TEST(FormulaPerturb, FloatExpDeltasPastBinary64AgreeWithMpfr) {
  struct Case {
    const char* zoom;
    const char* re;
    const char* im;
    int min_compared;  // measured 112 and 109, less a margin
    bool bla;          // the binary64 table applies (its dcmax at least 2^-1000)
  };
  const Case cases[] = {
      {"3.6304123742133165e280", "-0.523856505738738082643208179539314646977235575709407197963501534992731110285979678210870721778429562501513499703693548778605151266835708681742891527537460781483463808633736354933682346193017604225264477500334477818044057995585933937786196274662434124487283932013779758927621450534962225166219137870764551",
       "-0.905063012975098048484633103441542341595677940679102394986323801341057180406062082760472125848465320140881893229710147487079264137395565074335554181728301064612796252297519997644695043638029100633152342922992539479779865541639158923880456549184903967756589652815387236441347323556439801246876025690213076", 100, true},
      {"1.976584504954229e320", "-0.5238565057387380826432081795393146469772355757094071979635015349927311102859796782108707217784295625015134997036935487786051512668357086817428915275374607814834638086337363549336823461930176042252644775003344778180440579955859339377861962746624341244872839320137797589276214505349466365448694156885855763945711101199962768400767494540139612858",
       "-0.9050630129750980484846331034415423415956779406791023949863238013410571804060620827604721258484653201408818932297101474870792641373955650743355541817283010646127962522975199976446950436380291006331523429229925394797798655416391589238804565491849039677565896528153872364413473235564490702735576376642931309104475124948189887938301648808610370966", 100, false},
  };
  const Formula f = parse_formula("burning-ship");
  for (const Case& c : cases) {
    const View v = view_n(c.re, c.im, c.zoom, 4000, 32);
    ASSERT_EQ(auto_path(v), FormulaPath::kPerturb);
    Certification cert;
    FormulaReference ref;
    const auto t0 = std::chrono::steady_clock::now();
    const ds::mandel::RenderResult r = render_perturb(v, f, {}, &cert, &ref);
    const double pass = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.perturb.delta, ds::mandel::DeltaFormat::kFloatExp) << c.zoom;
    // BLA at 3.6e280 (the table's dcmax 2^-930.0), none at 2.0e320 (2^-1062.0, below 2^-1000).
    EXPECT_EQ(r.perturb.bla_levels > 0, c.bla) << c.zoom;
    if (!c.bla) {
      EXPECT_EQ(r.perturb.bla_skipped, 0u) << c.zoom;
    }
    DirectOptions no_bla;
    no_bla.bla = false;
    Certification plain_cert;
    const ds::mandel::RenderResult plain = render_perturb(v, f, no_bla, &plain_cert);
    const int b1 = formula_reference_bits(ds::mandel::geometry(v)) + 128;
    const std::vector<GridPixel> grid = mpfr_grid(v, f, 16, b1, b1 + 128);
    const Agreement a = compare_with_mpfr(v, r, cert.certified, grid);
    const Agreement p = compare_with_mpfr(v, plain, plain_cert.certified, grid);
    FormulaReport rep;
    const ds::mandel::RenderResult all = render(v, f, {}, &rep);
    const Agreement b = compare_with_mpfr(v, all, rep.certified, grid);
    std::printf(
        "burning-ship at zoom %s: reference %llu points at %d bits; pass %.2f s, %.1f%% of %llu iterations by BLA, "
        "%llu of 1024 undecided (%llu without BLA); grid: %d trusted, %d distinct, %d compared, %d agree (without "
        "BLA %d, %d); render: %llu by MPFR (up to %d bits), %llu unresolved, %d compared, %d agree\n",
        c.zoom, static_cast<unsigned long long>(ref.length), ref.bits, pass,
        r.iterations ? 100.0 * static_cast<double>(r.perturb.bla_skipped) / r.iterations : 0.0,
        static_cast<unsigned long long>(r.iterations), static_cast<unsigned long long>(cert.uncertain),
        static_cast<unsigned long long>(plain_cert.uncertain), a.trusted, a.distinct, a.compared, a.agree, p.compared,
        p.agree,
        static_cast<unsigned long long>(rep.fallback), rep.fallback_max_bits,
        static_cast<unsigned long long>(rep.unresolved), b.compared, b.agree);
    EXPECT_TRUE(rep.floatexp);
    EXPECT_EQ(rep.bla, c.bla);
    EXPECT_EQ(a.agree, a.compared) << c.zoom << a.detail;
    EXPECT_EQ(p.agree, p.compared) << c.zoom << " without BLA" << p.detail;
    EXPECT_EQ(b.agree, b.compared) << c.zoom << b.detail;
    EXPECT_GE(a.compared, c.min_compared) << c.zoom;
    EXPECT_GE(a.distinct, 5) << c.zoom;
    EXPECT_EQ(rep.unresolved, 0u) << c.zoom;
    EXPECT_EQ(b.compared, a.trusted) << c.zoom;
  }
}

// FloatExp deltas forced at shallow views, for every named formula and three hybrids (every opcode,
// and Julia sets too, with BLA and without): wherever they and binary64 deltas decide a count, the
// counts are equal, and FloatExp decides what binary64 does, give or take a few pixels (their
// roundings are the same but for the escape test's binary64 sum).
TEST(FormulaPerturb, FloatExpDeltasAgreeWithBinary64ForEveryFormula) {
  std::vector<std::string> names = formula_names();
  names.push_back("mandelbrot,burning-ship");
  names.push_back("burning-ship,mandelbar,celtic");
  names.push_back("mandelbrot5,perpendicular-buffalo");
  int total = 0, total_both = 0;
  for (const std::string& name : names) {
    const Formula f = parse_formula(name);
    for (const int mode : {0, 1, 2, 3}) {
      const bool julia = mode & 1, bla = mode & 2;
      DirectOptions d64, dfe;
      d64.bla = dfe.bla = bla;
      dfe.floatexp_deltas = true;
      if (julia) d64.julia = dfe.julia = parse_julia("-0.25", "-0.73");
      const View v = view_n("-0.5", "0.1", "5", 300, 32);
      Certification c64, cfe;
      const auto a = render_perturb(v, f, d64, &c64);
      const auto b = render_perturb(v, f, dfe, &cfe);
      EXPECT_EQ(b.perturb.delta, ds::mandel::DeltaFormat::kFloatExp);
      int both = 0;
      for (std::size_t k = 0; k < a.counts.size(); ++k) {
        if (!c64.certified[k] || !cfe.certified[k]) continue;
        ++both;
        ASSERT_EQ(a.count(k), b.count(k)) << name << (julia ? " Julia" : "") << (bla ? " BLA" : "") << " pixel " << k;
      }
      const int d = static_cast<int>(1024 - c64.uncertain), e = static_cast<int>(1024 - cfe.uncertain);
      EXPECT_GE(e + 8, d) << name << (julia ? " Julia" : "");
      EXPECT_GE(both + 8, d) << name << (julia ? " Julia" : "");
      total += d;
      total_both += both;
    }
  }
  std::printf("binary64 decided %d, both %d of %d pixels\n", total, total_both, 80 * 1024);
  EXPECT_GE(total_both, 60000);  // measured: 73,628 (= binary64's decided pixels)
}

// The cost of the alternative without perturbation at the 1.27e30 Burning Ship (docs/formulas.md):
// every pixel of a 256x256 render by its own certified MPFR orbit (mpfr_decide, as the fallback
// runs it), on every core. A measurement, not a check: run by hand (FORMULA_VIEW=2: the 1.61e60 view).
TEST(FormulaPerturb, DISABLED_EveryPixelInMpfrAt1e30) {
  const DeepView views[] = {DEEP_VIEWS};
  const DeepView& d = views[std::getenv("FORMULA_VIEW") ? std::atoi(std::getenv("FORMULA_VIEW")) : 0];
  const Formula f = parse_formula(d.formula);
  const View v = view_n(d.re, d.im, d.zoom, d.iter, 256);
  const ds::mandel::Geometry g = ds::mandel::geometry(v);
  const int bits = formula_reference_bits(g);
  std::atomic<uint64_t> decided{0};
  const auto t0 = std::chrono::steady_clock::now();
  ds::parallel_for(65536, 16, [&](std::size_t a, std::size_t b) {
    for (std::size_t k = a; k < b; ++k) {
      uint64_t count = 0;
      if (mpfr_decide(g, v, f, static_cast<int>(k % 256), static_cast<int>(k / 256), bits, 8 * bits, &count))
        ++decided;
    }
  });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("256x256 in MPFR from %d bits: %llu of 65536 decided, %.1f s\n", bits,
              static_cast<unsigned long long>(decided.load()), s);
  EXPECT_GT(decided.load(), 0u);
}

}  // namespace
