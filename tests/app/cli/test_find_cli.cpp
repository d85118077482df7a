// `deepscope find`: the period at KF's 5e113 benchmark, the nucleus written as a location that
// `render` takes (the minibrot in the middle, proven interior), a Misiurewicz point, and the
// exit codes: 1 with a message when nothing is found, 2 for bad input; the seahorse clicks of
// issue #43 (a period-27 nucleus reported as period 54, exit 0), checked by the tests' own MPFR
// orbit (period_oracle.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/io/location.h"
#include "kernels/perturb/finder.h"
#include "period_oracle.h"
#include "test_files.h"

namespace {

using ds::app::run;

const std::string kKf5e113 = std::string(DEEPSCOPE_TEST_DATA) + "/kf-benchmarks/5e113.kfr";

TEST(FindCli, NucleusAtKf5e113IsALocationThatRenders) {
  const std::string dir = ds::test::make_tmpdir("find");
  EXPECT_EQ(run({"find", "period", "--location", kKf5e113, "--size", "1024x1024", "--quiet"}), 0);
  const std::string loc = dir + "/nucleus.loc";
  ASSERT_EQ(run({"find", "nucleus", "--location", kKf5e113, "--size", "1024x1024", "--fit", "0.5", "--quiet",
                 "--out", loc}),
            0);
  const ds::app::Location l = ds::app::read_location_file(loc);
  ASSERT_TRUE(l.iterations.has_value());
  EXPECT_EQ(*l.iterations, 64u * 11380u);
  // The minibrot fills the middle of the view: the centre pixel is inside (rendered small).
  const std::string png = dir + "/nucleus.png", counts = dir + "/nucleus.npy";
  ASSERT_EQ(run({"render", "--location", loc, "--size", "33x33", "--backend", "cpu", "--quiet", "--counts", counts,
                 "--out", png}),
            0);
  const std::string npy = ds::test::slurp(counts);
  ASSERT_GT(npy.size(), 33u * 33u * 4u);
  uint32_t centre = 0;
  std::memcpy(&centre, npy.data() + npy.size() - 33 * 33 * 4 + (16 * 33 + 16) * 4, 4);
  EXPECT_EQ(centre, 64u * 11380u);
}

TEST(FindCli, MisiurewiczPointNearI) {
  const std::string dir = ds::test::make_tmpdir("find");
  const std::string loc = dir + "/m.loc";
  ASSERT_EQ(run({"find", "misiurewicz", "--re", "0.001", "--im", "1.001", "--zoom", "100", "--quiet", "--out", loc}),
            0);
  const ds::app::Location l = ds::app::read_location_file(loc);
  EXPECT_LT(std::abs(std::stod(l.re)), 1e-15);
  EXPECT_NEAR(std::stod(l.im), 1.0, 1e-15);
}

TEST(FindCli, NothingFoundExitsOneAndBadInputTwo) {
  const std::string dir = ds::test::make_tmpdir("find");
  // No component within 10 steps of a point in the exterior.
  EXPECT_EQ(run({"find", "period", "--re", "0.3", "--im", "0.6", "--zoom", "1e6", "--max-period", "10", "--quiet"}),
            1);
  EXPECT_EQ(run({"find", "nucleus", "--re", "0.3", "--im", "0.6", "--zoom", "1e6", "--max-period", "10", "--out",
                 dir + "/x.loc"}),
            1);
  EXPECT_NE(access((dir + "/x.loc").c_str(), F_OK), 0);  // nothing written
  EXPECT_EQ(run({"find", "nucleus", "--re", "-1.75", "--im", "0"}), 2);               // no --out
  EXPECT_EQ(run({"find", "wiggle", "--re", "-1.75", "--im", "0"}), 2);                // unknown feature
  EXPECT_EQ(run({"find", "period", "--re", "x", "--im", "0", "--zoom", "1"}), 2);     // malformed
  EXPECT_EQ(run({"find", "period", "--re", "-1.75", "--im", "0", "--zoom", "0"}), 2); // zoom <= 0
  EXPECT_EQ(run({"find", "period", "--re", "-1.75", "--im", "0", "--at", "5000,1"}), 2);
  EXPECT_EQ(run({"find", "period", "--re", "-1.75", "--im", "0", "--radius", "-1"}), 2);
  EXPECT_EQ(run({"find", "--help"}), 0);
  // find period writes no location: --out is refused, naming it, and nothing is written.
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({"find", "period", "--re", "-1.75", "--im", "0", "--out", dir + "/p.loc"}), 2);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("--out"), std::string::npos);
  EXPECT_NE(access((dir + "/p.loc").c_str(), F_OK), 0);
}

// `find nucleus` at the seahorse view (assets/locations/seahorse.loc, 768x961), stdout and exit.
int find_at(const std::string& at, const std::string& out, std::string* stdout_text) {
  testing::internal::CaptureStdout();
  const int rc = run({"find", "nucleus", "--location", ds::test::source_path("assets/locations/seahorse.loc"),
                      "--size", "768x961", "--at", at, "--quiet", "--out", out});
  *stdout_text = testing::internal::GetCapturedStdout();
  return rc;
}

TEST(FindCli, SeahorseClicksOfIssue43ReportOnlyProvenNuclei) {
  const std::string dir = ds::test::make_tmpdir("find");
  // (474, 468): the ball method's period is 54, and Newton's method reached the nucleus of period
  // 27; it was reported as period 54 with zoom 3.8e-13. (600, 200): period 100 and size 1.6e37.
  // Now: the least period's nucleus, found again at that period and proven, with a note.
  struct Case {
    const char* at;
    uint32_t ball, least;
  };
  for (const Case& k : {Case{"474,468", 54, 27}, Case{"600,200", 100, 25}}) {
    SCOPED_TRACE(k.at);
    const std::string loc = dir + "/n.loc";
    std::string out;
    ASSERT_EQ(find_at(k.at, loc, &out), 0) << out;
    EXPECT_NE(out.find("period " + std::to_string(k.ball) + "\n"), std::string::npos) << out;
    EXPECT_NE(out.find("nucleus of period " + std::to_string(k.least) + "\n"), std::string::npos) << out;
    EXPECT_EQ(out.find("nucleus of period " + std::to_string(k.ball)), std::string::npos) << out;
    EXPECT_NE(out.find("note: the ball method's period " + std::to_string(k.ball)), std::string::npos) << out;
    EXPECT_NE(out.find("proven: least period " + std::to_string(k.least)), std::string::npos) << out;
    // The location: the tests' own MPFR orbit finds a nucleus of least period `least` there, whose
    // size gives the zoom written (zoom = 4 fit / (2.25 |size|), fit 0.5), in the view.
    const ds::app::Location l = ds::app::read_location_file(loc);
    const double log2_size = std::log2(4.0 * 0.5 / (2.25 * std::stod(l.zoom)));
    EXPECT_EQ(ds::test::check_reported_nucleus(l.re, l.im, k.least, log2_size, 256), "");
    EXPECT_GT(std::stod(l.zoom), 100.0);  // the minibrot is smaller than the view (zoom 100)
    EXPECT_LT(std::stod(l.zoom), 1e4);
    const double s = 4.0 / (100.0 * 961);
    EXPECT_LT(std::fabs(std::stod(l.re) + 0.7453) / s, 768 / 2.0);
    EXPECT_LT(std::fabs(std::stod(l.im) - 0.1127) / s, 961 / 2.0);
    ASSERT_TRUE(l.iterations.has_value());
    EXPECT_EQ(*l.iterations, 64u * k.least);
    std::remove(loc.c_str());
  }
  // With --max-period 26 the ball method finds no period at (474, 468): "not found", exit 1,
  // nothing written, and no nucleus line.
  std::string out;
  testing::internal::CaptureStdout();
  EXPECT_EQ(run({"find", "nucleus", "--location", ds::test::source_path("assets/locations/seahorse.loc"), "--size",
                 "768x961", "--at", "474,468", "--max-period", "26", "--quiet", "--out", dir + "/x.loc"}),
            1);
  out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.rfind("not found: ", 0), 0u) << out;
  EXPECT_EQ(out.find("nucleus of period"), std::string::npos) << out;
  EXPECT_NE(access((dir + "/x.loc").c_str(), F_OK), 0);
}

// A nucleus Newton's method converged to but the checks refuse is not reported (before issue #43 it
// was, exit 0): at this view (a random view of the finder's campaign, by the period-2 disc) Newton's
// method for the click's ball period 10 goes to the nucleus -1 of period 2 (proven there), 130
// pixels outside the 192x108 view. "not found: the nucleus lies outside the view", exit 1, nothing
// written.
TEST(FindCli, ANucleusOutsideTheViewIsNotFound) {
  const std::string dir = ds::test::make_tmpdir("find");
  const std::vector<std::string> view = {"--re", "-1.2083505698272574", "--im", "0.10797195684679822", "--zoom",
                                         "22.3896", "--iter", "2711", "--size", "192x108", "--quiet"};
  std::vector<std::string> args = {"find", "nucleus"};
  args.insert(args.end(), view.begin(), view.end());
  for (const std::string& x : {"--at", "65,52", "--out"}) args.push_back(x);
  args.push_back(dir + "/b.loc");
  testing::internal::CaptureStdout();
  EXPECT_EQ(run(args), 1);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.rfind("period 10\nnot found: the nucleus lies outside the view", 0), 0u) << out;
  EXPECT_EQ(out.find("nucleus of period"), std::string::npos) << out;
  EXPECT_NE(access((dir + "/b.loc").c_str(), F_OK), 0);
}

// Period 1 has no atom domain (|z_p| < |z_q| for every q < p: no q < 1, the whole plane). It was
// printed as a made-up 2^(2^29); now "none", and the window gets no radius (std::nullopt).
TEST(FindCli, PeriodOneHasNoAtomDomain) {
  const std::string dir = ds::test::make_tmpdir("find");
  testing::internal::CaptureStdout();
  ASSERT_EQ(run({"find", "nucleus", "--re", "-0.1", "--im", "0.05", "--zoom", "1", "--radius", "100", "--quiet",
                 "--out", dir + "/p1.loc"}),
            0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("nucleus of period 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("atom domain none (period 1: the whole plane)"), std::string::npos) << out;
  namespace fnd = ds::perturb::finder;
  ds::mandel::View v;
  v.re = "-0.1";
  v.im = "0.05";
  v.zoom = "1";
  fnd::FindOptions o;
  o.radius_pixels = 100;
  const fnd::FoundView one = fnd::minibrot_view(v, o);
  ASSERT_TRUE(one.ok) << one.message;
  EXPECT_EQ(one.nucleus.period, 1u);
  EXPECT_FALSE(one.nucleus.domain_size.has_value());
  EXPECT_FALSE(one.nucleus_proof.domain_size.has_value());
  // Period 2 has one: |z_1| / |dz_1/dc| = |c| / 1 = 1 at the nucleus -1.
  v.re = "-1.0001";
  v.im = "0";
  v.zoom = "10";
  o.radius_pixels = 4;
  const fnd::FoundView two = fnd::minibrot_view(v, o);
  ASSERT_TRUE(two.ok) << two.message;
  EXPECT_EQ(two.nucleus.period, 2u);
  ASSERT_TRUE(two.nucleus.domain_size.has_value());
  EXPECT_NEAR(ds::to_double(*two.nucleus.domain_size), 1.0, 1e-12);
  EXPECT_EQ(fnd::atom_domain_text(two.nucleus.domain_size, 3), "1");
}

// --radius is bounded by what the ball method can tell: a disk that holds the whole set (radius >=
// |point| + 2) answers period 1 wherever it is. The default view (centre -0.5, 1280x720 at zoom 1:
// 4/720 a pixel) allows below 2.5 / (4/720) = 450 pixels.
TEST(FindCli, RadiusIsBoundedByTheWholeSet) {
  namespace fnd = ds::perturb::finder;
  fnd::FindOptions o;
  const ds::mandel::View v;
  for (double ok : {1e-9, 4.0, 449.9}) {
    o.radius_pixels = ok;
    EXPECT_EQ(fnd::search_radius_problem(v, o), "") << ok;
  }
  for (double bad : {450.1, 1e300, 0.0, -1.0, std::nan(""), HUGE_VAL}) {
    o.radius_pixels = bad;
    EXPECT_NE(fnd::search_radius_problem(v, o), "") << bad;
    EXPECT_THROW(fnd::period_at(v, o), ds::mandel::ViewError) << bad;  // the window's path
  }
  // At a pixel: the bound is the pixel's |c| + 2 (pixel (0, 0) of the default view: |c| about 3).
  o.at_pixel = true;
  o.radius_pixels = 460;  // refused at the centre (above)
  EXPECT_EQ(fnd::search_radius_problem(v, o), "");
  o.radius_pixels = 1200;  // (4.52 + 2) / (4/720) = 1174
  EXPECT_NE(fnd::search_radius_problem(v, o), "");
  const std::string dir = ds::test::make_tmpdir("find");
  for (const char* bad : {"1e300", "450.1", "0", "-1"}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(run({"find", "nucleus", "--radius", bad, "--out", dir + "/r.loc"}), 2) << bad;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.rfind("deepscope: --radius ", 0), 0u) << err;
  }
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({"find", "period", "--radius", "1e300"}), 2);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("whole Mandelbrot set"), std::string::npos);
  EXPECT_NE(access((dir + "/r.loc").c_str(), F_OK), 0);
}

// A nucleus period whose orbit would not fit in memory is refused before anything is allocated
// (it was std::bad_alloc, exit 1): by the CLI as --period (exit 2), by the library as not found.
TEST(FindCli, APeriodBeyondMemoryIsRefusedUpFront) {
  namespace fnd = ds::perturb::finder;
  EXPECT_EQ(fnd::nucleus_memory_problem(1000000), "");
  const std::string why = fnd::nucleus_memory_problem(4000000000u);
  EXPECT_NE(why.find("GiB"), std::string::npos) << why;
  const fnd::Nucleus n = fnd::find_nucleus("-0.1", "0", 4000000000u, 128, ds::FloatExp(1e-3));
  EXPECT_FALSE(n.converged);
  EXPECT_EQ(n.message, why);
  const std::string dir = ds::test::make_tmpdir("find");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({"find", "nucleus", "--period", "4000000000", "--out", dir + "/x.loc"}), 2);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.rfind("deepscope: --period 4000000000: the nucleus of period 4000000000 needs about", 0), 0u)
      << err;
  EXPECT_NE(access((dir + "/x.loc").c_str(), F_OK), 0);
}

// --at 4294967296,0 was cast to int before the image check: pixel (0, 0), answered without a word.
TEST(FindCli, APixelPastAnIntIsOutsideTheImage) {
  for (const char* at : {"4294967296,0", "0,4294967297", "64,0", "-1,3"}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(run({"find", "period", "--size", "64x64", "--at", at}), 2) << at;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err.rfind(std::string("deepscope: --at ") + at + ": pixel (", 0), 0u) << err;
    EXPECT_NE(err.find("is outside the 64x64 image"), std::string::npos) << err;
  }
  testing::internal::CaptureStdout();
  EXPECT_EQ(run({"find", "period", "--re", "-1", "--im", "0", "--zoom", "4", "--size", "64x64", "--at", "32,32",
                 "--quiet"}),
            0);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "period 2\n");
}

// A Misiurewicz period past an int was wrapped negative: "not found: the preperiod and the period
// must be at least 1", exit 1. Now bad input naming the options.
TEST(FindCli, AMisiurewiczPeriodPastAnIntIsBadInput) {
  const std::string dir = ds::test::make_tmpdir("find");
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({"find", "misiurewicz", "--preperiod", "2", "--period", "4000000000", "--out", dir + "/m.loc"}), 2);
  EXPECT_NE(testing::internal::GetCapturedStderr().find("--period"), std::string::npos);
  EXPECT_NE(access((dir + "/m.loc").c_str(), F_OK), 0);
}

}  // namespace
