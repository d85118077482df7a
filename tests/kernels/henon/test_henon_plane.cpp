// The Hénon parameter plane, Lyapunov exponents and basins (kernels/henon/plane.h): the plane
// against the scan on a grid written by hand and against MPFR iteration, the Lyapunov exponent
// against the published value and against the cycle's eigenvalue, basins against detect_period,
// explicit scan start points, bad input, and (device section) CUDA == CPU.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "kernels/henon/henon.h"
#include "kernels/henon/plane.h"
#include "oracle.h"
#include "test_files.h"

namespace {

using namespace ds;
using namespace ds::henon;

// ---- MPFR oracle: the scan's period detection (cycle.cuh) and sink test, at 200 bits ----

struct MpPoint {
  test::Mp x{200}, y{200};
};

class MpHenon {
 public:
  MpHenon(const std::string& a, const std::string& b) {
    mpfr_set_str(a_, a.c_str(), 10, MPFR_RNDN);
    mpfr_set_str(b_, b.c_str(), 10, MPFR_RNDN);
  }
  // (x, y) <- (1 + y - a x^2, b x)
  void step(MpPoint& p) {
    mpfr_sqr(t_, p.x, MPFR_RNDN);
    mpfr_mul(t_, t_, a_, MPFR_RNDN);
    mpfr_add_ui(u_, p.y, 1, MPFR_RNDN);
    mpfr_sub(u_, u_, t_, MPFR_RNDN);
    mpfr_mul(p.y, p.x, b_, MPFR_RNDN);
    mpfr_set(p.x, u_, MPFR_RNDN);
  }
  bool outside(const MpPoint& p, double bound) {
    return mpfr_cmpabs_ui(p.x, static_cast<unsigned long>(bound)) > 0 ||
           mpfr_cmpabs_ui(p.y, static_cast<unsigned long>(bound)) > 0;
  }
  bool close(const MpPoint& p, const MpPoint& q, double tol) {
    mpfr_sub(t_, p.x, q.x, MPFR_RNDN);
    if (mpfr_cmpabs(t_, tol_of(tol)) >= 0) return false;
    mpfr_sub(t_, p.y, q.y, MPFR_RNDN);
    return mpfr_cmpabs(t_, tol_of(tol)) < 0;
  }
  // -1 escape, 0 no attracting period within p_max, else the period of the sink reached.
  int attracting_period(double x0, double y0, int64_t n_transient, int p_max, double tol, double bound) {
    MpPoint p;
    mpfr_set_d(p.x, x0, MPFR_RNDN);
    mpfr_set_d(p.y, y0, MPFR_RNDN);
    for (int64_t i = 0; i < n_transient; ++i) {
      step(p);
      if (outside(p, bound)) return -1;
    }
    step(p);
    if (outside(p, bound)) return -1;
    MpPoint c;
    mpfr_set(c.x, p.x, MPFR_RNDN);
    mpfr_set(c.y, p.y, MPFR_RNDN);
    for (int k = 1; k <= p_max; ++k) {
      step(c);
      if (outside(c, bound)) return -1;
      if (!close(p, c, tol)) continue;
      MpPoint u, v;
      mpfr_set(u.x, p.x, MPFR_RNDN);
      mpfr_set(u.y, p.y, MPFR_RNDN);
      mpfr_set(v.x, c.x, MPFR_RNDN);
      mpfr_set(v.y, c.y, MPFR_RNDN);
      bool ok = true;
      for (int i = 2; i <= k && ok; ++i) {
        step(u);
        step(v);
        ok = close(u, v, tol);
      }
      if (ok) return sink(p, k) ? k : 0;
    }
    return 0;
  }

 private:
  // Jury: |det| < 1 and |trace| < 1 + det of the product of J = [[-2 a x, 1], [b, 0]] over the cycle.
  bool sink(const MpPoint& start, int k) {
    MpPoint p;
    mpfr_set(p.x, start.x, MPFR_RNDN);
    mpfr_set(p.y, start.y, MPFR_RNDN);
    test::Mp m00(400), m01(400), m10(400), m11(400), n00(400), n01(400), j(400), tr(400), det(400);
    mpfr_set_ui(m00, 1, MPFR_RNDN);
    mpfr_set_ui(m11, 1, MPFR_RNDN);
    for (int i = 0; i < k; ++i) {
      mpfr_mul(j, a_, p.x, MPFR_RNDN);
      mpfr_mul_2ui(j, j, 1, MPFR_RNDN);  // 2 a x
      mpfr_mul(n00, j, m00, MPFR_RNDN);
      mpfr_sub(n00, m10, n00, MPFR_RNDN);
      mpfr_mul(n01, j, m01, MPFR_RNDN);
      mpfr_sub(n01, m11, n01, MPFR_RNDN);
      mpfr_mul(m10, b_, m00, MPFR_RNDN);
      mpfr_mul(m11, b_, m01, MPFR_RNDN);
      mpfr_set(m00, n00, MPFR_RNDN);
      mpfr_set(m01, n01, MPFR_RNDN);
      step(p);
    }
    mpfr_add(tr, m00, m11, MPFR_RNDN);
    mpfr_mul(det, m00, m11, MPFR_RNDN);
    mpfr_mul(j, m01, m10, MPFR_RNDN);
    mpfr_sub(det, det, j, MPFR_RNDN);
    if (mpfr_cmpabs_ui(det, 1) >= 0) return false;
    mpfr_add_ui(j, det, 1, MPFR_RNDN);
    return mpfr_cmpabs(tr, j) < 0;
  }
  mpfr_srcptr tol_of(double tol) {
    mpfr_set_d(tol_, tol, MPFR_RNDN);
    return tol_;
  }
  test::Mp a_{200}, b_{200}, t_{200}, u_{200}, tol_{200};
};

std::string dec(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// ---- the plane ----

// Centre (1.0, 0.2), width 0.8 over 8 x 4 pixels: a = 0.65 + 0.1 i, b = 0.05 + 0.1 ib, written by hand.
PlaneView hand_view() {
  PlaneView v;
  v.centre_a = "1.0";
  v.centre_b = "0.2";
  v.width = "0.8";
  v.width_px = 8;
  v.height_px = 4;
  v.n_init = 3;
  v.n_transient = 3000;
  v.p_max = 32;
  v.tol = "1e-9";
  v.chunk_params = 5;
  return v;
}

TEST(HenonPlane, AgreesWithTheScanOnTheSameGrid) {
  const PlaneView v = hand_view();
  const ScanParams g = plane_scan_params(v);
  EXPECT_EQ(std::stod(g.a_min), 0.65) << g.a_min;
  EXPECT_EQ(std::stod(g.a_step), 0.1) << g.a_step;
  EXPECT_EQ(std::stod(g.b_min), 0.05) << g.b_min;
  EXPECT_EQ(g.na, 8);
  EXPECT_EQ(g.nb, 4);

  ScanParams s;
  s.a_min = "0.65";
  s.a_step = "0.1";
  s.na = 8;
  s.b_min = "0.05";
  s.b_step = "0.1";
  s.nb = 4;
  s.n_init = 3;
  s.n_transient = 3000;
  s.p_max = 32;
  s.tol = "1e-9";
  const ScanResult sr = scan(s);
  const PlaneResult pr = plane(v);
  ASSERT_EQ(pr.width, 8);
  ASSERT_EQ(pr.height, 4);
  ASSERT_EQ(pr.period.size(), 32u);
  std::set<int32_t> seen;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 8; ++i) {
      const ParamResult& p = sr.params[static_cast<std::size_t>((3 - j) * 8 + i)];
      int32_t want = 0;  // the lowest sink period, by hand
      for (const CycleFound& c : p.cycles)
        if (c.sink && (want == 0 || c.period < want)) want = c.period;
      if (want == 0 && p.cycles.empty() && p.aperiodic == 0) want = -1;
      EXPECT_EQ(pr.period[static_cast<std::size_t>(j * 8 + i)], want) << "a " << p.a << " b " << p.b;
      seen.insert(want);
    }
  // A pixel's parameter (the window's click) is the one the scan used, row 0 at the top.
  for (int j : {0, 3})
    for (int i : {0, 5}) {
      const auto ab = plane_pixel(v, i, j);
      const ParamResult& p = sr.params[static_cast<std::size_t>((3 - j) * 8 + i)];
      EXPECT_NEAR(std::stod(ab.first), std::stod(p.a), 1e-15) << i << "," << j;
      EXPECT_NEAR(std::stod(ab.second), std::stod(p.b), 1e-15) << i << "," << j;
    }
  EXPECT_EQ(std::stod(plane_pixel(v, 7, 0).second), 0.35);
  EXPECT_THROW(plane_pixel(v, 8, 0), std::invalid_argument);
  // The grid crosses the fixed point, the 2-cycle and the 4-cycle regions.
  EXPECT_GE(seen.size(), 3u);
  EXPECT_EQ(pr.escaped + pr.no_period + pr.with_period, 32);
}

// The window's bands: rows [j0, j1) of a view, computed alone, are those rows of the whole plane
// (the same parameters to the bit: the scan's b axis starts at the band's grid index).
TEST(HenonPlane, BandsAreRowsOfTheWholePlane) {
  PlaneView v = hand_view();
  v.width_px = 16;
  v.height_px = 9;
  v.width = "0.9";
  v.centre_b = "0.25";
  const PlaneResult whole = plane(v);
  int rows = 0;
  for (int j0 = 0; j0 < v.height_px; j0 += 4) {
    PlaneView band = v;
    band.row_begin = j0;
    band.row_end = std::min(j0 + 4, v.height_px);
    const PlaneResult r = plane(band);
    ASSERT_EQ(r.height, band.row_end - j0);
    ASSERT_EQ(r.width, 16);
    for (int j = j0; j < band.row_end; ++j)
      for (int i = 0; i < 16; ++i)
        EXPECT_EQ(r.period[static_cast<std::size_t>((j - j0) * 16 + i)], whole.period[static_cast<std::size_t>(j * 16 + i)])
            << i << "," << j;
    const ScanParams sp = plane_scan_params(band);
    EXPECT_EQ(sp.b_first, v.height_px - band.row_end);
    rows += r.height;
  }
  EXPECT_EQ(rows, 9);
  PlaneView bad = v;
  bad.row_begin = 3;
  bad.row_end = 3;
  EXPECT_THROW(plane_scan_params(bad), std::invalid_argument);
  bad.row_end = 10;
  EXPECT_THROW(plane_scan_params(bad), std::invalid_argument);
}

// Navigation is the Mandelbrot view's: the point under the cursor stays there, a drag moves the
// centre by the pixels dragged, and a zoom in and out returns the view.
TEST(HenonPlane, ZoomAndPanKeepThePointUnderTheCursor) {
  PlaneView v;
  v.centre_a = "1.2";
  v.centre_b = "0.15";
  v.width = "1";
  v.width_px = 200;
  v.height_px = 100;
  // About the centre of pixel (50, 25): that pixel keeps its parameter, and pixel (49, 24), one
  // pixel of v up and left, is 4 pixels of the zoomed view away: its pixel (46, 21).
  const PlaneView z = plane_zoom_about(v, 50.5, 25.5, 4.0);
  EXPECT_NEAR(std::stod(z.width), 0.25, 1e-15);
  for (const auto& [i, j, zi, zj] : {std::array<int, 4>{50, 25, 50, 25}, std::array<int, 4>{49, 24, 46, 21}}) {
    const auto before = plane_pixel(v, i, j);
    const auto after = plane_pixel(z, zi, zj);
    EXPECT_NEAR(std::stod(after.first), std::stod(before.first), 1e-15) << i << "," << j;
    EXPECT_NEAR(std::stod(after.second), std::stod(before.second), 1e-15) << i << "," << j;
  }
  const PlaneView back = plane_zoom_about(z, 50.5, 25.5, 0.25);
  EXPECT_NEAR(std::stod(back.centre_a), 1.2, 1e-15);
  EXPECT_NEAR(std::stod(back.centre_b), 0.15, 1e-15);
  EXPECT_NEAR(std::stod(back.width), 1.0, 1e-15);
  // A drag 20 px right and 10 px down: the centre moves 0.1 left in a and 0.05 up in b.
  const PlaneView p = plane_pan_pixels(v, 20, 10);
  EXPECT_NEAR(std::stod(p.centre_a), 1.1, 1e-15);
  EXPECT_NEAR(std::stod(p.centre_b), 0.2, 1e-15);
  EXPECT_EQ(p.width, v.width);
  // Deep: 60 halvings keep the centre's digits exact (no double in between).
  PlaneView d = v;
  for (int k = 0; k < 60; ++k) d = plane_zoom_about(d, 100.25, 50, 2.0);
  EXPECT_NEAR(std::stod(d.width), std::ldexp(1.0, -60), 1e-30);
  EXPECT_GT(d.centre_a.size(), 20u) << d.centre_a;
  EXPECT_THROW(plane_zoom_about(v, 1, 1, 0.0), std::invalid_argument);
}

// "auto" by zoom: f64 for the classical plane, f64x2 once f64 no longer tells pixels 1e-17 apart;
// a format forced past its limit is refused with the Mandelbrot view's message.
TEST(HenonPlane, AutoFormatFollowsTheZoom) {
  PlaneView v;
  v.centre_a = "1.2";
  v.centre_b = "0.15";
  v.width = "2.5";
  v.width_px = 1920;
  v.height_px = 1080;
  EXPECT_EQ(plane_auto_arith(v), Arith::kF64);
  v.width = "1e-11";  // pixels 5.2e-15 apart: within f64's 24 guard bits? no (needs 2^-53 * 2 * 2^24)
  EXPECT_EQ(plane_auto_arith(v), Arith::kF64x2);
  v.width = "1e-30";  // pixels 5e-34 ~ 2^-110.6 apart: f64x3 (2^-159 * 2 * 2^24 = 2^-134)
  EXPECT_EQ(plane_auto_arith(v), Arith::kF64x3);
  v.width = "1e-40";  // 2^-144: f64x3 no longer, f64x4 does
  EXPECT_EQ(plane_auto_arith(v), Arith::kF64x4);
  v.arith = Arith::kF64;
  v.width = "1e-14";
  try {
    plane_check_resolves(v);
    ADD_FAILURE() << "f64 at pixels 5e-18 apart was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("f64 resolves pixels only up to zoom"), std::string::npos) << m;
    EXPECT_NE(m.find("f64x2 would work"), std::string::npos) << m;
  }
  EXPECT_THROW(plane_scan_params(v), std::invalid_argument);
  v.arith = Arith::kF64x2;
  EXPECT_NO_THROW(plane_scan_params(v));
}

// The paper's scan row b = 0.3 and its neighbours: a = 1.0, 1.05, ..., 1.4 and b = 0.25, 0.3, 0.35
// (centre (1.2, 0.3), width 0.45, 9 x 3 pixels), each pixel against MPFR iteration at 200 bits
// from the same start point with the same transient, tolerance and period search.
TEST(HenonPlane, AgreesWithMpfrIterationAroundThePapersRow) {
  PlaneView v;
  v.centre_a = "1.2";
  v.centre_b = "0.3";
  v.width = "0.45";
  v.width_px = 9;
  v.height_px = 3;
  v.n_transient = 4000;
  v.p_max = 40;
  v.tol = "1e-10";
  const PlaneResult pr = plane(v);
  ASSERT_EQ(pr.period.size(), 27u);
  ScanParams one = plane_scan_params(v);
  const std::vector<double> start = init_points(one);
  const char* bs[3] = {"0.35", "0.3", "0.25"};  // rows from the top
  int sinks = 0, others = 0;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 9; ++i) {
      char a[16];
      std::snprintf(a, sizeof a, "%.2f", 1.0 + 0.05 * i);
      MpHenon m(a, bs[j]);
      const int want = m.attracting_period(start[0], start[1], v.n_transient, v.p_max, 1e-10, v.bound);
      EXPECT_EQ(pr.period[static_cast<std::size_t>(j * 9 + i)], want) << "a = " << a << ", b = " << bs[j];
      (want > 0 ? sinks : others) += 1;
    }
  EXPECT_GT(sinks, 0);
  EXPECT_GT(others, 0);
  // (a, b) = (1.0, 0.3): the attracting cycle there, by MPFR.
  EXPECT_EQ(pr.period[9 * 1 + 0], 4);
}

TEST(HenonPlane, BadViewsNameTheField) {
  auto message = [](PlaneView v) -> std::string {
    try {
      plane(v);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no exception)";
  };
  PlaneView v = hand_view();
  v.width = "0";
  EXPECT_NE(message(v).find("width"), std::string::npos) << message(v);
  v.width = "-1";
  EXPECT_NE(message(v).find("width"), std::string::npos) << message(v);
  v.width = "nan";
  EXPECT_NE(message(v).find("width"), std::string::npos) << message(v);
  v = hand_view();
  v.centre_a = "nan";
  EXPECT_NE(message(v).find("centre_a"), std::string::npos) << message(v);
  v = hand_view();
  v.centre_b = "inf";
  EXPECT_NE(message(v).find("centre_b"), std::string::npos) << message(v);
  v = hand_view();
  v.centre_b = "1.45";  // the top row at b = 1.55
  EXPECT_NE(message(v).find("b must stay within"), std::string::npos) << message(v);
  v = hand_view();
  v.width_px = 0;
  EXPECT_NE(message(v).find("width_px"), std::string::npos) << message(v);
  v = hand_view();
  v.height_px = -3;
  EXPECT_NE(message(v).find("height_px"), std::string::npos) << message(v);
  v = hand_view();
  v.p_max = 0;
  EXPECT_NE(message(v).find("p_max"), std::string::npos) << message(v);
  v = hand_view();
  EXPECT_THROW(plane_lyapunov(v, 0), std::invalid_argument);
}

// ---- Lyapunov exponents ----

PlaneView point_view(const char* a, const char* b) {
  PlaneView v;
  v.centre_a = a;
  v.centre_b = b;
  v.width = "0.001";
  v.width_px = 1;
  v.height_px = 1;
  v.n_transient = 1000;
  return v;
}

// Sprott, "Chaos and Time-Series Analysis" (2003), table of Lyapunov exponents: 0.41922 for the
// Hénon map at (1.4, 0.3).
TEST(HenonLyapunov, ClassicalAttractorMatchesThePublishedValue) {
  const LyapunovResult r = plane_lyapunov(point_view("1.4", "0.3"), 10'000'000);
  ASSERT_EQ(r.exponent.size(), 1u);
  EXPECT_NEAR(r.exponent[0], 0.41922, 5e-4);
  EXPECT_EQ(r.escaped, 0);
}

// At a sink the exponent is (1/k) log |l1| of the cycle's leading eigenvalue (detect_period's).
TEST(HenonLyapunov, SinkExponentIsTheCyclesEigenvalue) {
  const PlaneView v = point_view("1.0", "0.3");
  const LyapunovResult r = plane_lyapunov(v, 200000);
  ASSERT_EQ(r.exponent.size(), 1u);
  const std::vector<double> start = init_points(plane_scan_params(v));
  PeriodParams p;
  p.map.a = "1.0";
  p.map.b = "0.3";
  p.map.x0 = dec(start[0]);
  p.map.y0 = dec(start[1]);
  p.n_transient = 1000;
  p.p_max = 64;
  const PeriodResult c = detect_period(p);
  ASSERT_GT(c.period, 0);
  ASSERT_TRUE(c.is_sink);
  const double want = std::log(c.l1_abs.value) / c.period;
  EXPECT_LT(r.exponent[0], 0.0);
  EXPECT_NEAR(r.exponent[0], want, 1e-4) << "period " << c.period;
}

TEST(HenonLyapunov, EscapingPixelsAreNaN) {
  PlaneView v = point_view("3", "0.3");
  v.width = "0.5";
  v.width_px = 2;
  const LyapunovResult r = plane_lyapunov(v, 1000);
  ASSERT_EQ(r.exponent.size(), 2u);
  EXPECT_TRUE(std::isnan(r.exponent[0]));
  EXPECT_TRUE(std::isnan(r.exponent[1]));
  EXPECT_EQ(r.escaped, 2);
}

// ---- explicit start points and basins ----

TEST(HenonScan, ExplicitStartPointsEqualOneBoxPointEach) {
  const double pts[3][2] = {{0.1, 0.05}, {-0.7, 0.2}, {0.9, -0.3}};
  ScanParams s;
  s.a_min = "0.2";
  s.a_step = "0.5";
  s.na = 3;
  s.n_init = 1;
  s.n_transient = 2000;
  s.p_max = 32;
  s.tol = "1e-9";
  s.chunk_params = 2;
  for (const auto& p : pts) {
    s.start_points.push_back(p[0]);
    s.start_points.push_back(p[1]);
  }
  const ScanResult r = scan(s);
  ASSERT_EQ(r.params.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ScanParams one;
    one.a_min = i == 0 ? "0.2" : i == 1 ? "0.7" : "1.2";
    one.n_init = 1;
    one.init_box[0] = one.init_box[1] = pts[i][0];
    one.init_box[2] = one.init_box[3] = pts[i][1];
    one.n_transient = 2000;
    one.p_max = 32;
    one.tol = "1e-9";
    const ScanResult alone = scan(one);
    const ParamResult& want = alone.params[0];
    const ParamResult& got = r.params[static_cast<std::size_t>(i)];
    EXPECT_EQ(got.escaped, want.escaped);
    EXPECT_EQ(got.aperiodic, want.aperiodic);
    ASSERT_EQ(got.cycles.size(), want.cycles.size());
    for (std::size_t k = 0; k < got.cycles.size(); ++k) {
      EXPECT_EQ(got.cycles[k].period, want.cycles[k].period);
      EXPECT_EQ(got.cycles[k].x, want.cycles[k].x);
      EXPECT_EQ(got.cycles[k].y, want.cycles[k].y);
    }
  }
  EXPECT_EQ(init_points(s), s.start_points);

  ScanParams bad = s;
  bad.start_points.pop_back();
  EXPECT_THROW(scan(bad), std::invalid_argument);
  bad = s;
  bad.n_init = 2;
  EXPECT_THROW(scan(bad), std::invalid_argument);
  bad = s;
  bad.start_points[1] = std::nan("");
  EXPECT_THROW(scan(bad), std::invalid_argument);
  bad = s;
  bad.start_points[0] = 2e3;
  EXPECT_THROW(scan(bad), std::invalid_argument);

  // A chunk file remembers the start points: other points are refused, the same ones resume.
  const std::string dir = test::make_tmpdir("henon-plane");
  ScanParams f = s;
  f.chunk_file = dir + "/starts.chunks";
  ASSERT_FALSE(scan(f).cancelled);
  EXPECT_EQ(scan(f).chunks_run, 0);
  f.start_points[0] = 0.11;
  EXPECT_THROW(scan(f), std::runtime_error);
}

void write_file(const std::string& path, const std::string& body) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  std::fwrite(body.data(), 1, body.size(), f);
  std::fclose(f);
}

BasinView basin_view(const char* a, const char* b) {
  BasinView v;
  v.a = a;
  v.b = b;
  v.centre_x = 0;
  v.centre_y = 0;
  v.width = 80;  // corners at |x|, |y| = 40: far outside every attractor
  v.width_px = 41;
  v.height_px = 41;
  v.n_transient = 2000;
  v.p_max = 32;
  v.tol = "1e-9";
  return v;
}

// The plane and basin keep their own chunk records (4 bytes a pixel, one item a pixel): a run
// cancelled after its first chunks resumes from the file to the uninterrupted result, a plane's
// file is refused by a basin (and by the scan), and a record of the wrong size is reported.
TEST(HenonPlane, ResumedPlaneAndBasinEqualUninterrupted) {
  const std::string dir = test::make_tmpdir("henon-plane-resume");
  const PlaneView v = hand_view();  // 32 pixels, chunks of 5
  const PlaneResult whole = plane(v);
  PlaneView part = v;
  part.chunk_file = dir + "/p.chunks";
  ASSERT_FALSE(plane(part).cancelled);
  // Cut the file after its third record and half into the fourth, as a crash would leave it.
  const std::string full = test::slurp(part.chunk_file);
  std::size_t cut = full.find('\n') + 1;
  for (int k = 0; k < 3; ++k) cut = full.find("end ", full.find("chunk ", cut));
  cut = full.find('\n', cut) + 1;
  write_file(part.chunk_file, full.substr(0, cut + 12));
  const PlaneResult resumed = plane(part);
  EXPECT_FALSE(resumed.cancelled);
  EXPECT_EQ(resumed.chunks_loaded, 3);
  EXPECT_EQ(resumed.chunks_run, resumed.chunks - 3);
  EXPECT_EQ(resumed.period, whole.period);
  EXPECT_EQ(resumed.max_period, whole.max_period);
  EXPECT_EQ(plane(part).chunks_run, 0);

  // The same file offered to the scan behind the plane belongs to another job.
  ScanParams sp = plane_scan_params(part);
  EXPECT_THROW(scan(sp), std::runtime_error);

  BasinView b = basin_view("1.0", "0.3");
  b.chunk_params = 200;
  const BasinResult bw = basin(b);
  b.chunk_file = dir + "/b.chunks";
  ASSERT_FALSE(basin(b).cancelled);
  const BasinResult br = basin(b);
  EXPECT_EQ(br.chunks_run, 0);
  EXPECT_EQ(br.id, bw.id);
  ASSERT_EQ(br.attractors.size(), bw.attractors.size());
  EXPECT_EQ(br.attractors[0].x, bw.attractors[0].x);

  // A plane record of 3 bytes for its 5 pixels: the header is the plane's, the record whole.
  const std::string text = test::slurp(part.chunk_file);
  const std::string header = text.substr(0, text.find('\n') + 1);
  ASSERT_EQ(header.rfind("deepscope-henon-plane v1 ", 0), 0u) << header;
  const std::string bad_file = dir + "/bad.chunks";
  write_file(bad_file, header + "chunk 0 3\nabc" + "end 0\n");
  PlaneView damaged = v;
  damaged.chunk_file = bad_file;
  try {
    plane(damaged);
    ADD_FAILURE() << "a damaged record was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("damaged plane chunk"), std::string::npos) << e.what();
  }
}

// (1.0, 0.3): one attracting cycle and escape. The far corners escape; the attractor's period and
// canonical point are those detect_period finds from a start point in its basin.
TEST(HenonBasin, SinkAndEscapeBothAppear) {
  const BasinView v = basin_view("1.0", "0.3");
  const BasinResult r = basin(v);
  ASSERT_EQ(r.id.size(), 41u * 41u);
  EXPECT_EQ(r.id[0], -1);
  EXPECT_EQ(r.id[40], -1);
  EXPECT_EQ(r.id[41 * 40], -1);
  EXPECT_EQ(r.id[41 * 41 - 1], -1);
  ASSERT_EQ(r.attractors.size(), 1u);
  const Attractor& at = r.attractors[0];
  EXPECT_EQ(at.id, 1);
  EXPECT_GT(at.pixels, 0);
  EXPECT_GT(r.escaped, 0);
  EXPECT_EQ(r.escaped + r.no_period + at.pixels, 41 * 41);
  // The centre pixel (0, 0) lies in the basin.
  ASSERT_EQ(r.id[20 * 41 + 20], 1);
  PeriodParams p;
  p.map.a = "1.0";
  p.map.b = "0.3";
  p.n_transient = 2000;
  p.p_max = 32;
  p.tol = "1e-9";
  const PeriodResult c = detect_period(p);
  ASSERT_EQ(c.period, at.period);
  double min_x = 1e300, min_y = 0;
  for (const auto& pt : c.cycle)
    if (std::stod(pt.first) < min_x) {
      min_x = std::stod(pt.first);
      min_y = std::stod(pt.second);
    }
  EXPECT_NEAR(at.x, min_x, 1e-8);
  EXPECT_NEAR(at.y, min_y, 1e-8);
}

// Each attractor of a basin image against detect_period and MPFR from a pixel of its basin: the
// same period, a sink, the same canonical point.
void check_attractors(const BasinView& v, const BasinResult& r) {
  for (const Attractor& at : r.attractors) {
    SCOPED_TRACE("attractor " + std::to_string(at.id));
    std::size_t q = 0;
    while (q < r.id.size() && r.id[q] != at.id) ++q;
    ASSERT_LT(q, r.id.size());
    const double px = v.width / v.width_px;
    const double x0 = v.centre_x - v.width / 2 + (static_cast<double>(q % v.width_px) + 0.5) * px;
    const double y0 = v.centre_y + px * v.height_px / 2 - (static_cast<double>(q / v.width_px) + 0.5) * px;
    PeriodParams p;
    p.map.a = v.a;
    p.map.b = v.b;
    p.map.x0 = dec(x0);
    p.map.y0 = dec(y0);
    p.n_transient = v.n_transient;
    p.p_max = v.p_max;
    p.tol = v.tol;
    const PeriodResult c = detect_period(p);
    EXPECT_EQ(c.period, at.period);
    EXPECT_TRUE(c.is_sink);
    double min_x = 1e300;
    for (const auto& pt : c.cycle) min_x = std::min(min_x, std::stod(pt.first));
    EXPECT_NEAR(at.x, min_x, 1e-8);
    MpHenon m(v.a, v.b);
    EXPECT_EQ(m.attracting_period(x0, y0, v.n_transient, v.p_max, std::stod(v.tol), v.bound), at.period);
  }
}

// (0.92, -0.9): a fixed point and a period-3 sink coexist (found with `henon basin`; the 4 x 4 box
// also holds escaping start points). Distinct ids, each confirmed from a pixel of its basin.
TEST(HenonBasin, CoexistingAttractorsGetDistinctIds) {
  BasinView v = basin_view("0.92", "-0.9");
  v.width = 4;
  v.n_transient = 20000;
  v.p_max = 64;
  const BasinResult r = basin(v);
  ASSERT_EQ(r.attractors.size(), 2u) << "escaped " << r.escaped << ", no period " << r.no_period;
  EXPECT_EQ(r.attractors[0].period, 1);
  EXPECT_EQ(r.attractors[1].period, 3);
  EXPECT_GT(r.escaped, 0);
  check_attractors(v, r);
}

// (0.925, 0.54): two distinct period-8 sinks (found by `henon scan` with 64 start points per
// parameter over a in [0, 2], b in [0.3, 1]; the same two after 10x the transient). Told apart by
// their cycle points with the smallest x: distinct ids, ordered by x.
TEST(HenonBasin, TwoSinksOfTheSamePeriodGetDistinctIds) {
  BasinView v = basin_view("0.925", "0.54");
  v.width = 4;
  v.n_transient = 20000;
  v.p_max = 64;
  v.tol = "1e-10";
  const BasinResult r = basin(v);
  ASSERT_EQ(r.attractors.size(), 2u) << "escaped " << r.escaped << ", no period " << r.no_period;
  EXPECT_EQ(r.attractors[0].period, 8);
  EXPECT_EQ(r.attractors[1].period, 8);
  EXPECT_LT(r.attractors[0].x, r.attractors[1].x - 0.1);
  EXPECT_GT(r.attractors[0].pixels, 0);
  EXPECT_GT(r.attractors[1].pixels, 0);
  check_attractors(v, r);
}

TEST(HenonBasin, BadViewsNameTheField) {
  auto message = [](BasinView v) -> std::string {
    try {
      basin(v);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(no exception)";
  };
  BasinView v = basin_view("1.4", "0.3");
  v.width = 0;
  EXPECT_NE(message(v).find("width"), std::string::npos) << message(v);
  v.width = std::nan("");
  EXPECT_NE(message(v).find("width"), std::string::npos) << message(v);
  v = basin_view("1.4", "0.3");
  v.centre_x = std::nan("");
  EXPECT_NE(message(v).find("centre_x"), std::string::npos) << message(v);
  v = basin_view("nan", "0.3");
  EXPECT_NE(message(v).find("basin: a"), std::string::npos) << message(v);
  v = basin_view("1.4", "2");
  EXPECT_NE(message(v).find("basin: b"), std::string::npos) << message(v);
  v = basin_view("1.4", "0.3");
  v.width = 3000;  // leaves the escape box |x| <= 1000
  EXPECT_NE(message(v).find("escape box"), std::string::npos) << message(v);
  v = basin_view("1.4", "0.3");
  v.height_px = 0;
  EXPECT_NE(message(v).find("height_px"), std::string::npos) << message(v);
}

// ---- device section ----

TEST(HenonPlaneDevice, PlaneAndBasinMatchCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  for (Arith ar : {Arith::kF64, parse_arith("f64x2")}) {
    SCOPED_TRACE(arith_name(ar));
    PlaneView v = hand_view();
    v.arith = ar;
    const PlaneResult c = plane(v);
    v.backend = Backend::kCuda;
    const PlaneResult g = plane(v);
    EXPECT_EQ(g.backend, Backend::kCuda);
    EXPECT_EQ(c.period, g.period);
    BasinView b = basin_view("1.0", "0.3");
    b.arith = ar;
    const BasinResult bc = basin(b);
    b.backend = Backend::kCuda;
    const BasinResult bg = basin(b);
    EXPECT_EQ(bc.id, bg.id);
  }
}

// Device log and sqrt may differ from the host's in the last place: agreement to 1e-9.
TEST(HenonPlaneDevice, LyapunovMatchesCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  PlaneView v = hand_view();
  v.n_transient = 500;
  const LyapunovResult c = plane_lyapunov(v, 5000);
  v.backend = Backend::kCuda;
  const LyapunovResult g = plane_lyapunov(v, 5000);
  ASSERT_EQ(c.exponent.size(), g.exponent.size());
  for (std::size_t q = 0; q < c.exponent.size(); ++q) {
    if (std::isnan(c.exponent[q])) {
      EXPECT_TRUE(std::isnan(g.exponent[q])) << q;
    } else {
      EXPECT_NEAR(c.exponent[q], g.exponent[q], 1e-9) << q;
    }
  }
}

}  // namespace
