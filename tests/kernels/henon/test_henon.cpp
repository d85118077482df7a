// The Hénon workspace: fixed point and 2-cycle against their closed forms (MPFR), eigenvalues and
// the sink decision, escapes, bad input, resumed scans, and (device section) CPU == CUDA to the bit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <random>
#include <cstdio>
#include <fstream>
#include <string>

#include "kernels/henon/cycle.cuh"
#include "kernels/henon/henon.h"
#include "oracle.h"

namespace {

using namespace ds;
using namespace ds::henon;

std::string sci(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3e", v);
  return buf;
}

// Close-return tolerance for a format: a thousand units of its resolution.
std::string tol_for(Arith a) {
  const FormatTraits t = arith_traits(a);
  return sci(std::max(1e3 * t.eps, 1e-290));
}

// |got - exact| from a decimal string, in units of the format's resolution.
double err_units(const std::string& got, mpfr_srcptr exact, Arith a) {
  test::Mp g;
  mpfr_set_str(g, got.c_str(), 10, MPFR_RNDN);
  return test::abs_err(g, exact) / arith_traits(a).eps;
}

// Fixed point of h for a = 0.2, b = 0.3: x* = (b - 1 + sqrt((1 - b)^2 + 4a)) / (2a), y* = b x*;
// attracting, with J = [[-2 a x*, 1], [b, 0]].
TEST(Henon, FixedPointMatchesClosedFormInEveryFormat) {
  test::Mp a, b, x, y, t;
  mpfr_set_str(a, "0.2", 10, MPFR_RNDN);
  mpfr_set_str(b, "0.3", 10, MPFR_RNDN);
  mpfr_ui_sub(t, 1, b, MPFR_RNDN);
  mpfr_sqr(t, t, MPFR_RNDN);
  mpfr_mul_ui(x, a, 4, MPFR_RNDN);
  mpfr_add(t, t, x, MPFR_RNDN);
  mpfr_sqrt(t, t, MPFR_RNDN);
  mpfr_sub_ui(x, b, 1, MPFR_RNDN);
  mpfr_add(x, x, t, MPFR_RNDN);
  mpfr_div(x, x, a, MPFR_RNDN);
  mpfr_div_ui(x, x, 2, MPFR_RNDN);
  mpfr_mul(y, b, x, MPFR_RNDN);
  const double xd = mpfr_get_d(x, MPFR_RNDN);
  const double tr = -2 * 0.2 * xd, disc = tr * tr + 4 * 0.3;
  const double l1 = (tr - std::sqrt(disc)) / 2, l2 = (tr + std::sqrt(disc)) / 2;  // |l1| > |l2|
  for (Arith ar : all_ariths()) {
    SCOPED_TRACE(arith_name(ar));
    PeriodParams p;
    p.map.arith = ar;
    p.map.a = "0.2";
    p.map.b = "0.3";
    p.map.x0 = "0.5";
    p.map.y0 = "0.1";
    p.n_transient = 4000;  // contraction 0.81 per step: below 2^-992 after about 3300 steps
    p.p_max = 20;
    p.tol = tol_for(ar);
    const PeriodResult r = detect_period(p);
    ASSERT_EQ(r.period, 1);
    ASSERT_EQ(r.cycle.size(), 1u);
    // The map in the format has a and b rounded to it: allow a few hundred units.
    EXPECT_LT(err_units(r.cycle[0].first, x, ar), 400) << r.cycle[0].first;
    EXPECT_LT(err_units(r.cycle[0].second, y, ar), 400) << r.cycle[0].second;
    EXPECT_TRUE(r.is_sink);
    EXPECT_FALSE(r.complex);
    const double rel = std::max(1e-12, 100 * arith_traits(ar).eps);
    EXPECT_NEAR(r.l1_re.value, l1, 4 * rel);
    EXPECT_NEAR(r.l2_re.value, l2, 4 * rel);
    EXPECT_NEAR(r.det.value, -0.3, rel);
  }
}

// The 2-cycle for a = 0.5, b = 0.3 (past the period doubling at a = 3 (1-b)^2 / 4): x1 + x2 =
// (1 - b)/a = s, x1 x2 = ((1 - b) s - 2 + a s^2) / (2a) = p. The cycle's product has trace
// 4 a^2 p + 2 b and determinant b^2: here complex eigenvalues with |l| = b.
TEST(Henon, TwoCycleMatchesClosedForm) {
  const double a = 0.5, b = 0.3, s = (1 - b) / a, pr = ((1 - b) * s - 2 + a * s * s) / (2 * a);
  const double x1 = (s + std::sqrt(s * s - 4 * pr)) / 2, x2 = (s - std::sqrt(s * s - 4 * pr)) / 2;
  const double tr = 4 * a * a * pr + 2 * b, det = b * b;
  for (Arith ar : all_ariths()) {
    SCOPED_TRACE(arith_name(ar));
    PeriodParams p;
    p.map.arith = ar;
    p.map.a = "0.5";
    p.map.b = "0.3";
    p.n_transient = 3000;
    p.p_max = 50;
    p.tol = tol_for(ar);
    const PeriodResult r = detect_period(p);
    ASSERT_EQ(r.period, 2);
    const double tol = std::max(1e-13, 1e3 * arith_traits(ar).eps);
    double xa = std::stod(r.cycle[0].first), xb = std::stod(r.cycle[1].first);
    if (xa < xb) std::swap(xa, xb);
    EXPECT_NEAR(xa, x1, tol);
    EXPECT_NEAR(xb, x2, tol);
    EXPECT_NEAR(std::stod(r.cycle[0].second), b * std::stod(r.cycle[1].first), tol);
    EXPECT_NEAR(r.trace.value, tr, 10 * tol);
    EXPECT_NEAR(r.det.value, det, 10 * tol);
    EXPECT_TRUE(r.complex);
    EXPECT_NEAR(r.l1_re.value, tr / 2, 10 * tol);
    EXPECT_NEAR(r.l1_im.value, std::sqrt(4 * det - tr * tr) / 2, 1e3 * tol);
    EXPECT_NEAR(r.l1_abs.value, b, 10 * tol);
    EXPECT_TRUE(r.is_sink);
  }
}

// The sink decision and eigenvalues straight from trace and determinant, including a saddle and
// values far outside double's range (long cycles).
template <class T>
void check_eigen() {
  auto sc = [](double v, int e) {
    Scaled<T> s{T(v), e};
    normalize(s);
    return s;
  };
  // Saddle: t = 3, d = 0.3: l = (3 +- sqrt(7.8)) / 2.
  Eigen<T> ev = eigenvalues(sc(3, 0), sc(0.3, 0));
  EXPECT_FALSE(ev.complex);
  EXPECT_NEAR(std::ldexp(to_double(ev.re1.m), ev.re1.e), (3 + std::sqrt(7.8)) / 2, 1e-6);
  EXPECT_NEAR(std::ldexp(to_double(ev.re2.m), ev.re2.e), (3 - std::sqrt(7.8)) / 2, 1e-6);
  EXPECT_FALSE(is_sink(sc(3, 0), sc(0.3, 0)));
  EXPECT_TRUE(is_sink(sc(0.5, 0), sc(0.3, 0)));
  EXPECT_FALSE(is_sink(sc(1.25, 0), sc(0.3, -100)));  // l1 near 1.25
  // z^2 - 0.75 z - 0.25 = (z - 1)(z + 0.25): a root on the circle is not a sink.
  EXPECT_FALSE(is_sink(sc(0.75, 0), sc(-0.25, 0)));
  EXPECT_TRUE(is_sink(sc(0.75, 0), sc(-0.125, 0)));
  EXPECT_TRUE(is_sink(sc(1, -3000), sc(1, -9000)));  // tiny: 2^-3000, beyond double
  EXPECT_FALSE(is_sink(sc(1, 3000), sc(1, -9000)));
}

TEST(Henon, EigenvaluesAndSinkDecision) {
  check_eigen<F64>();
  check_eigen<Expansion<4>>();
  check_eigen<Limb<8>>();
  check_eigen<Fx128>();
}

TEST(Henon, EscapingOrbitsAreReportedNotNaN) {
  for (Arith ar : all_ariths()) {
    SCOPED_TRACE(arith_name(ar));
    OrbitParams o;
    o.map.arith = ar;
    o.map.a = "3";
    o.map.b = "0.3";
    o.n_points = 100;
    const OrbitResult r = orbit(o);
    EXPECT_TRUE(r.escaped);
    EXPECT_GT(r.escape_step, 0);
    EXPECT_LT(r.xs.size(), 100u);
    for (double v : r.xs) EXPECT_TRUE(std::isfinite(v) && std::fabs(v) <= 1e3);
    PeriodParams p;
    p.map = o.map;
    p.n_transient = 10;
    const PeriodResult pr = detect_period(p);
    EXPECT_TRUE(pr.escaped);
    EXPECT_EQ(pr.period, 0);
    // A start point outside the box escapes at step 0.
    o.map.a = "1.4";
    o.map.x0 = "2000";
    const OrbitResult r0 = orbit(o);
    EXPECT_TRUE(r0.escaped);
    EXPECT_EQ(r0.escape_step, 0);
  }
}

// The blocked escape pre-test (floating formats) stops at exactly the step that testing every step
// finds, with the same final state: start points scattered in and out of the basin, low and high
// bounds (orbits that leave the box and come back), |b| below and above 0.99, every block offset.
template <class T>
void check_blocked_escape(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  const double bs[] = {0.3, -0.3, 1.2, -1.5, 0.45, -0.6};
  const double bounds[] = {1.0, 1.5, 1e3};
  int escaped = 0;
  for (int i = 0; i < 900; ++i) {
    const double b = bs[i % 6], bound = bounds[(i / 6) % 3];
    // a = 1.4 as a double (Expansion * double products) and to the format's precision.
    const T a = i % 2 ? T(1.4) : T::from_string("1.4");
    const MapParams<T> p{a, T(b), T(bound), T(1e-10)};
    const T x0(u(rng) * 0.8), y0(u(rng) * 0.3);
    if (outside(x0, y0, p.bound)) continue;
    const int64_t n = 1 + static_cast<int64_t>(rng() % (i % 5 == 0 ? 3000 : 200));
    T xa = x0, ya = y0, xb = x0, yb = y0;
    const int64_t ka = advance(p, xa, ya, n), kb = advance_exact(p, xb, yb, n);
    ASSERT_EQ(ka, kb) << T::traits().name << " start " << to_double(x0) << ", " << to_double(y0) << " b " << b
                      << " bound " << bound << " n " << n;
    ASSERT_EQ(std::memcmp(&xa, &xb, sizeof xa), 0);
    ASSERT_EQ(std::memcmp(&ya, &yb, sizeof ya), 0);
    ASSERT_EQ(outside(xa, ya, p.bound), outside(xb, yb, p.bound));
    escaped += outside(xa, ya, p.bound);
  }
  EXPECT_GT(escaped, 50) << "the sample must contain escaping orbits";
}

TEST(Henon, BlockedEscapeTestEqualsTestingEveryStep) {
  auto rng = ds::test::seeded_rng("henon blocked escape");
  check_blocked_escape<F64>(rng);
  check_blocked_escape<F32>(rng);
  check_blocked_escape<Expansion<2>>(rng);
  check_blocked_escape<Expansion<3>>(rng);
  check_blocked_escape<Composite>(rng);
  check_blocked_escape<FloatFloat>(rng);
}

TEST(Henon, BadInputIsRefused) {
  for (const char* bad : {"nan", "inf", "-inf", "abc", "", "1.4.1", "1e"}) {
    OrbitParams o;
    o.map.a = bad;
    EXPECT_THROW(orbit(o), ArithError) << bad;
    o.map.a = "1.4";
    o.map.y0 = bad;
    EXPECT_THROW(orbit(o), ArithError) << bad;
    PeriodParams p;
    p.map.b = bad;
    EXPECT_THROW(detect_period(p), ArithError) << bad;
    p.map.b = "0.3";
    p.tol = bad;
    EXPECT_THROW(detect_period(p), ArithError) << bad;
  }
  OrbitParams o;
  o.map.arith = Arith::kFx128;
  o.map.a = "1e9";  // a bound^2 would wrap the fixed-point range
  EXPECT_THROW(orbit(o), ArithError);
  o.map.a = "1.4";
  o.map.bound = std::nan("");
  EXPECT_THROW(orbit(o), ArithError);
  o.map.bound = 1e3;
  o.n_points = kMaxPoints + 1;
  EXPECT_THROW(orbit(o), std::invalid_argument);
  o.n_points = 10;
  o.n_transient = -1;
  EXPECT_THROW(orbit(o), std::invalid_argument);
  PeriodParams p;
  p.tol = "0";
  EXPECT_THROW(detect_period(p), ArithError);
  ScanParams s;
  s.na = 0;
  EXPECT_THROW(estimate_scan(s, Backend::kCpu), std::invalid_argument);
  s.na = 100000;
  s.nb = 100000;
  EXPECT_THROW(estimate_scan(s, Backend::kCpu), std::invalid_argument);
}

std::string tmpdir() {
  char tmpl[] = "/tmp/deepscope-henon-XXXXXX";
  return mkdtemp(tmpl);
}

ScanParams small_scan(const std::string& chunk_file) {
  ScanParams s;
  s.a_min = "0.2";
  s.a_step = "0.25";  // 0.2 (fixed point), 0.45, 0.7 (2-cycle), 0.95 (4-cycle), 1.2, 1.45
  s.na = 6;
  s.b_min = "0.3";
  s.b_step = "0.05";
  s.nb = 2;
  s.n_init = 6;
  s.n_transient = 3000;
  s.p_max = 64;
  s.tol = "1e-9";
  s.chunk_params = 2;
  s.chunk_file = chunk_file;
  return s;
}

TEST(Henon, ScanFindsTheFixedPointAndTheTwoCycle) {
  ScanParams s = small_scan("");
  const ScanResult r = scan(s);
  ASSERT_EQ(r.params.size(), 12u);
  const ParamResult& p0 = r.params[0];  // a = 0.2, b = 0.3
  EXPECT_EQ(p0.a.rfind("0.2000000000000000111", 0), 0u) << p0.a;
  ASSERT_FALSE(p0.cycles.empty());
  EXPECT_EQ(p0.cycles[0].period, 1);
  EXPECT_TRUE(p0.cycles[0].sink);
  EXPECT_NEAR(p0.cycles[0].x, (0.3 - 1 + std::sqrt(0.49 + 0.8)) / 0.4, 1e-9);
  EXPECT_EQ(p0.cycles[0].count + p0.escaped + p0.aperiodic, 6);
  const ParamResult& p2 = r.params[2];  // a = 0.7: past the doubling at 0.3675
  ASSERT_FALSE(p2.cycles.empty());
  EXPECT_EQ(p2.cycles[0].period, 2);
  EXPECT_TRUE(p2.cycles[0].sink);
  const std::string csv = scan_csv(r);
  EXPECT_EQ(csv.rfind("a_index,b_index,a,b,period,count,sink,x,y\n", 0), 0u);
}

TEST(Henon, ResumedScanEqualsUninterrupted) {
  const std::string dir = tmpdir();
  const ScanResult whole = scan(small_scan(dir + "/whole.chunks"));
  ASSERT_FALSE(whole.cancelled);
  EXPECT_EQ(whole.chunks, 6);
  const std::string csv = scan_csv(whole), json = scan_json(small_scan(""), whole);

  // Interrupted after two chunks through the cancel flag, then resumed twice (the second resume
  // has nothing left to do), with a damaged record appended as a crash would leave it.
  std::atomic<bool> cancel{false};
  ScanParams s = small_scan(dir + "/part.chunks");
  s.cancel = &cancel;
  int stored = 0;
  s.on_chunk = [&](int64_t, int64_t) {
    if (++stored == 2) cancel = true;
  };
  const ScanResult part = scan(s);
  EXPECT_TRUE(part.cancelled);
  EXPECT_EQ(part.chunks_run, 2);
  {
    std::ofstream f(dir + "/part.chunks", std::ios::app);
    f << "chunk 5\np 4 2 0.5";
  }
  ScanParams r = small_scan(dir + "/part.chunks");
  const ScanResult resumed = scan(r);
  EXPECT_FALSE(resumed.cancelled);
  EXPECT_EQ(resumed.chunks_loaded, 2);
  EXPECT_EQ(resumed.chunks_run, 4);
  EXPECT_EQ(scan_csv(resumed), csv);
  EXPECT_EQ(scan_json(r, resumed), json);
  const ScanResult again = scan(r);
  EXPECT_EQ(again.chunks_run, 0);
  EXPECT_EQ(scan_csv(again), csv);

  // A chunk file of another scan is refused.
  ScanParams other = small_scan(dir + "/part.chunks");
  other.n_transient = 10;
  EXPECT_THROW(scan(other), std::runtime_error);
}

// ---- device section ----

TEST(HenonDevice, OrbitMatchesCpuToTheBit) {
  DEEPSCOPE_REQUIRE_GPU();
  for (Arith ar : all_ariths()) {
    SCOPED_TRACE(arith_name(ar));
    OrbitParams o;
    o.map.arith = ar;
    o.map.x0 = "0.1";
    o.map.y0 = "-0.05";
    o.n_transient = 2000;
    o.n_points = 500;
    const OrbitResult c = orbit(o);
    o.backend = Backend::kCuda;
    const OrbitResult g = orbit(o);
    EXPECT_EQ(c.xs, g.xs);
    EXPECT_EQ(c.ys, g.ys);
    EXPECT_EQ(c.final_x, g.final_x);
    EXPECT_EQ(c.final_y, g.final_y);
    EXPECT_EQ(c.escaped, g.escaped);
  }
}

TEST(HenonDevice, ScanMatchesCpuToTheBit) {
  DEEPSCOPE_REQUIRE_GPU();
  for (Arith ar : all_ariths()) {
    SCOPED_TRACE(arith_name(ar));
    ScanParams s = small_scan("");
    s.arith = ar;
    s.tol = tol_for(ar);
    const ScanResult c = scan(s);
    s.backend = Backend::kCuda;
    const ScanResult g = scan(s);
    EXPECT_EQ(g.backend, Backend::kCuda);
    EXPECT_EQ(scan_csv(c), scan_csv(g));
  }
}

// Every device, and device 0 split into two logical devices (two workers): the same results as
// one device, with the chunks spread over the workers.
TEST(HenonDevice, ScanOverSeveralDevicesMatchesOneDevice) {
  DEEPSCOPE_REQUIRE_GPU();
  ScanParams s = small_scan("");
  s.chunk_params = 1;
  s.backend = Backend::kCuda;
  s.placement.devices = "0";
  const ScanResult one = scan(s);
  for (const char* devices : {"all", "0,0"}) {
    SCOPED_TRACE(devices);
    s.placement.devices = devices;
    const ScanResult r = scan(s);
    EXPECT_EQ(scan_csv(r), scan_csv(one));
    int64_t total = 0;
    for (const auto& w : r.per_worker) total += w.second;
    EXPECT_EQ(total, r.chunks);
  }
}

}  // namespace

// The window opens scan CSVs the batch command wrote: reading one back gives the same results.
TEST(Henon, ScanCsvReadsBack) {
  ScanParams sp;
  sp.a_min = "0.3";
  sp.a_step = "0.1";
  sp.na = 4;
  sp.b_min = "0.3";
  sp.b_step = "0.05";
  sp.nb = 2;
  sp.n_init = 8;
  sp.n_transient = 2000;
  sp.p_max = 50;
  const ScanResult r = scan(sp);
  const std::string csv = scan_csv(r);
  const ScanResult back = parse_scan_csv(csv);
  ASSERT_EQ(back.na, 4);
  ASSERT_EQ(back.nb, 2);
  EXPECT_EQ(scan_csv(back), csv);
  int cycles = 0;
  for (const ParamResult& p : back.params) cycles += static_cast<int>(p.cycles.size());
  EXPECT_GT(cycles, 0) << "the grid holds fixed points and 2-cycles";
  EXPECT_THROW(parse_scan_csv("x,y\n1,2\n"), std::invalid_argument);
  EXPECT_THROW(parse_scan_csv(csv.substr(0, csv.find('\n') + 1) + "0,0,1.4,0.3,zz,1,0,,\n"), std::invalid_argument);
}
