// The randomized MPFR campaign (issue #43, campaign.h): seeded random locations down the boundary,
// each rendered 32x32 by the auto path on the CPU and compared with the MPFR oracle's trusted
// pixels. Asserted: 0 silent pixels (off by more than one, not flagged) and off by one on at most
// 0.01% of the trusted pixels. The CI slice is a fixed seed range; the long run (GPU session,
// DEEPSCOPE_LONG_TESTS=1) takes its range and sizes from the environment (docs/bench/campaign.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "campaign.h"
#include "oracle.h"

namespace {

using namespace ds::campaign;

double env_number(const char* name, double fallback) {
  const char* s = std::getenv(name);
  return s && *s ? std::strtod(s, nullptr) : fallback;
}

// Runs the seed indices [from, from + count), printing every location as it goes, and checks the
// campaign's goals.
// With `ledger`, every finding goes there as one line ("seed N pixel (I, J) KIND ours X MPFR Y
// FORMAT") and the goals are left to the caller (the CI slice compares with its ledger file).
Tally run_campaign(uint64_t from, uint64_t count, const GenOptions& go, const RunOptions& ro,
                   std::vector<std::string>* ledger = nullptr) {
  std::cout << "campaign: seeds " << from << ".." << from + count - 1 << ", zoom 1e" << go.log10_zoom_min
            << "..1e" << go.log10_zoom_max << ", iterations 1e" << go.log10_iter_min << "..1e"
            << go.log10_iter_max << ", " << ro.size << "x" << ro.size << " render, oracle grid " << ro.grid
            << "x" << ro.grid
            << (ro.oracle_seconds > 0
                    ? ", oracle budget " + std::to_string(ro.oracle_seconds) + " s a location"
                    : "")
            << std::endl;
  Tally tally;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t s = from; s < from + count; ++s) {
    const Location loc = make_location(s, go);
    std::cout << "campaign " << describe(loc) << std::endl;  // before the work: a hang is replayable
    const LocationResult r = run_location(loc, ro);
    std::cout << describe(r) << std::endl;
    EXPECT_TRUE(r.error.empty()) << describe(r);
    // Every count 0 is an unresolved pixel that the render owns up to.
    EXPECT_EQ(r.zero_counts, r.glitch_unresolved) << describe(r);
    if (ledger)
      for (const Finding& f : r.findings) {
        std::ostringstream line;
        line << "seed " << s << " pixel (" << f.i << ", " << f.j << ") " << f.kind << " ours " << f.ours << " MPFR "
             << f.mpfr << " " << r.format;
        ledger->push_back(line.str());
      }
    tally.add(r);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "campaign: " << count << " locations in " << wall << " s\n" << tally.table() << std::flush;
  if (ledger) return tally;
  const Counts& c = tally.total;
  std::ostringstream listed;
  for (const std::string& f : tally.findings) listed << f << "\n";
  EXPECT_EQ(c.silent, 0u) << "SILENT PIXELS: the render is off by more than one where MPFR is trusted, and "
                             "nothing flags it (issue #43's goal is 0; findings, not to be tolerated):\n"
                          << listed.str();
  EXPECT_LE(c.off_by_one * 10000, c.trusted()) << "off by one on more than 0.01% of the trusted pixels ("
                                               << c.off_by_one << " of " << c.trusted() << "):\n"
                                               << listed.str();
  return tally;
}

TEST(Campaign, LocationsAreReplayableFromTheirSeedIndex) {
  const GenOptions go{3, 30, 3, 4};
  for (uint64_t s : {1u, 2u, 3u}) {
    const Location a = make_location(s, go), b = make_location(s, go);
    EXPECT_EQ(a.re, b.re);
    EXPECT_EQ(a.im, b.im);
    EXPECT_EQ(a.zoom, b.zoom);
    EXPECT_EQ(a.max_iter, b.max_iter);
    EXPECT_GE(a.log10_zoom, go.log10_zoom_min - 1e-9) << describe(a);
    EXPECT_LE(a.log10_zoom, go.log10_zoom_max + 1e-9) << describe(a);
    EXPECT_GE(a.max_iter, 1000u);
    EXPECT_LE(a.max_iter, 10000u);
  }
  EXPECT_NE(make_location(1, go).re, make_location(2, go).re);
}

// The CI slice: a fixed seed range (1 to 100), depths 1e3 to 1e60, iterations 1e3 to 1e5, every
// pixel of each 32x32 render checked (grid 32); 29.6 s on the idle 2-core development machine, 64 s
// with the suite running beside it (over the 60 s a CPU test may take), so it runs as two halves.
// Issue #43's goal is 0 silent pixels; the slice's ledger, tests/data/campaign/ci-slice-findings.txt,
// is empty since the direct formats' error estimate (its f64 lines; docs/mandelbrot.md, "Undecided
// pixels"). A half's findings must equal the ledger's lines for its seeds, line for line: a new
// wrong pixel fails the test, and so does a fixed one (then take it off the ledger).
void check_slice_against_ledger(uint64_t from, uint64_t count) {
  const GenOptions go{3, 60, 3, 5};
  RunOptions ro;
  ro.size = 32;
  ro.grid = 32;
  ro.threads = 2;
  std::vector<std::string> found;
  const Tally t = run_campaign(from, count, go, ro, &found);
  // Not vacuous: most pixels were compared, at several formats.
  EXPECT_GE(t.total.trusted(), t.total.locations * 1024 * 9 / 10);
  EXPECT_GE(t.by_format.size(), 2u);
  std::ifstream in(std::string(DEEPSCOPE_TEST_DATA) + "/campaign/ci-slice-findings.txt");
  ASSERT_TRUE(in.good()) << "no tests/data/campaign/ci-slice-findings.txt";
  std::vector<std::string> known;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '%') continue;
    unsigned long long seed = 0;
    if (std::sscanf(line.c_str(), "seed %llu", &seed) != 1) {
      ADD_FAILURE() << "a ledger line without its seed: " << line;
      continue;
    }
    if (seed >= from && seed < from + count) known.push_back(line);
  }
  std::sort(found.begin(), found.end());
  std::sort(known.begin(), known.end());
  std::vector<std::string> fresh, gone;
  std::set_difference(found.begin(), found.end(), known.begin(), known.end(), std::back_inserter(fresh));
  std::set_difference(known.begin(), known.end(), found.begin(), found.end(), std::back_inserter(gone));
  std::ostringstream a, b;
  for (const std::string& f : fresh) a << "  " << f << "\n";
  for (const std::string& f : gone) b << "  " << f << "\n";
  EXPECT_TRUE(fresh.empty()) << "NEW WRONG PIXELS (not on the ledger):\n" << a.str();
  EXPECT_TRUE(gone.empty()) << "pixels on the ledger that are now right: take them off it\n" << b.str();
  std::cout << "campaign CI slice, seeds " << from << " to " << from + count - 1 << ": " << found.size()
            << " findings (" << t.total.silent << " silent, " << t.total.off_by_one
            << " off by one); the ledger holds " << known.size() << " for them\n";
}

TEST(Campaign, CpuSliceFindingsEqualTheLedgerSeeds1To50) { check_slice_against_ledger(1, 50); }
TEST(Campaign, CpuSliceFindingsEqualTheLedgerSeeds51To100) { check_slice_against_ledger(51, 50); }

// The long run: DEEPSCOPE_CAMPAIGN_FROM (first seed index, 1000), DEEPSCOPE_CAMPAIGN_COUNT (10000),
// DEEPSCOPE_CAMPAIGN_DEEP=1 (zoom to 1e320 and iterations to 1e7; else 1e60 and 1e5),
// DEEPSCOPE_CAMPAIGN_GRID (32), DEEPSCOPE_CAMPAIGN_ORACLE_SECONDS (0: no budget).
TEST(Campaign, LongRunHasNoSilentPixels) {
  DEEPSCOPE_REQUIRE_LONG();
  const bool deep = env_number("DEEPSCOPE_CAMPAIGN_DEEP", 0) != 0;
  const GenOptions go{3, deep ? 320.0 : 60.0, 3, deep ? 7.0 : 5.0};
  RunOptions ro;
  ro.grid = static_cast<int>(env_number("DEEPSCOPE_CAMPAIGN_GRID", 32));
  ro.oracle_seconds = env_number("DEEPSCOPE_CAMPAIGN_ORACLE_SECONDS", 0);
  run_campaign(static_cast<uint64_t>(env_number("DEEPSCOPE_CAMPAIGN_FROM", 1000)),
               static_cast<uint64_t>(env_number("DEEPSCOPE_CAMPAIGN_COUNT", 10000)), go, ro);
}

// A printed location again: DEEPSCOPE_CAMPAIGN_REPLAY="RE IM ZOOM ITER". To see which stage made a
// pixel wrong: DEEPSCOPE_CAMPAIGN_NO_REFINE=1 (no 106-bit tier), DEEPSCOPE_CAMPAIGN_NO_BLA=1,
// DEEPSCOPE_CAMPAIGN_DELTA=floatexp (floatexp deltas throughout).
TEST(Campaign, Replay) {
  const char* s = std::getenv("DEEPSCOPE_CAMPAIGN_REPLAY");
  if (!s || !*s) GTEST_SKIP() << "set DEEPSCOPE_CAMPAIGN_REPLAY=\"RE IM ZOOM ITER\" to replay a location";
  Location loc;
  std::istringstream in(s);
  ASSERT_TRUE(static_cast<bool>(in >> loc.re >> loc.im >> loc.zoom >> loc.max_iter)) << s;
  loc.log10_zoom = log10_decimal(loc.zoom);
  loc.iter_cap = loc.max_iter;
  RunOptions ro;
  ro.grid = static_cast<int>(env_number("DEEPSCOPE_CAMPAIGN_GRID", 32));
  ro.render.refine = env_number("DEEPSCOPE_CAMPAIGN_NO_REFINE", 0) == 0;
  ro.render.bla = env_number("DEEPSCOPE_CAMPAIGN_NO_BLA", 0) == 0;
  const char* delta = std::getenv("DEEPSCOPE_CAMPAIGN_DELTA");
  if (delta && std::string(delta) == "floatexp") ro.render.delta = ds::mandel::DeltaFormat::kFloatExp;
  const LocationResult r = run_location(loc, ro);
  std::cout << describe(r) << std::endl;
  EXPECT_TRUE(r.error.empty());
  EXPECT_EQ(r.counts.silent, 0u) << describe(r);
}

}  // namespace
