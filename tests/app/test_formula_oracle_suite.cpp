// The MPFR-checked suite of formula locations made by other people (tests/data/oracle/formula-suite.txt):
// each location file read as a user's would be (app/io's reader, its formula included), rendered whole
// at the grid's size by formula::render (the CPU engine `render --formula` runs), and every pixel the
// stored oracle grid trusts (deepscope oracle --formula: two precisions agree) compared with it: equal,
// or flagged (not certified: unresolved), never a different count. "long" entries run where
// DEEPSCOPE_LONG_TESTS is set (the GPU host's session).
#include <gtest/gtest.h>

#include <cctype>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/io/image_io.h"
#include "app/io/location.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/render.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "oracle.h"
#include "oracle_suite.h"
#include "test_files.h"

namespace {

using namespace ds;

const std::string kData = DEEPSCOPE_TEST_DATA;

using Entry = ds::test::OracleSuiteEntry;
using ds::test::load_npy;

std::vector<Entry> suite() {
  return ds::test::read_oracle_suite(kData + "/oracle/formula-suite.txt", {"cpu", "long"});
}

class FormulaOracleSuite : public testing::TestWithParam<Entry> {};

TEST(FormulaOracleSuiteList, HasCheapAndLongEntries) {
  int cheap = 0, deep = 0;
  for (const Entry& e : suite()) (e.cpu ? cheap : deep) += 1;
  EXPECT_GT(cheap, 0);
  EXPECT_GT(deep, 0);
}

TEST_P(FormulaOracleSuite, TrustedPixelsEqualMpfrOrAreFlagged) {
  const Entry& e = GetParam();
  if (!e.cpu) DEEPSCOPE_REQUIRE_LONG();
  const app::Location loc = app::read_location_file(kData + "/" + e.location);
  mandel::View v;
  formula::Formula f = formula::parse_formula("mandelbrot");
  app::apply_to_view(loc, &v, false, &f);
  ASSERT_FALSE(formula::is_mandelbrot(f)) << e.location << ": the reader lost the formula";
  v.width = e.width;
  v.height = e.height;
  const size_t n = static_cast<size_t>(e.grid) * e.grid;
  const std::string stem = kData + "/oracle/" + e.name;
  const std::vector<uint32_t> oracle = load_npy<uint32_t>(stem + ".npy", n);
  const std::vector<uint8_t> trusted = load_npy<uint8_t>(stem + "_trusted.npy", n);
  ASSERT_EQ(oracle.size(), n);
  ASSERT_EQ(trusted.size(), n);
  const auto t0 = std::chrono::steady_clock::now();
  formula::FormulaReport rep;
  const mandel::RenderResult r = formula::render(v, f, formula::FormulaOptions{}, &rep);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::vector<mandel::PixelIndex> where = mandel::grid_pixels(v, e.grid);
  ASSERT_EQ(where.size(), n);
  size_t ntrusted = 0, agree = 0, flagged = 0;
  std::set<uint64_t> distinct, oracle_distinct;
  std::string detail;
  for (size_t k = 0; k < n; ++k) {
    const size_t at = static_cast<size_t>(where[k].j) * v.width + where[k].i;
    distinct.insert(r.count(at));
    if (!trusted[k]) continue;
    oracle_distinct.insert(oracle[k]);
    ++ntrusted;
    if (!rep.certified[at]) {
      ++flagged;
      continue;
    }
    if (r.count(at) == oracle[k]) {
      ++agree;
    } else if (detail.size() < 2000) {
      detail += "\n  (" + std::to_string(where[k].i) + ", " + std::to_string(where[k].j) + "): rendered " +
                std::to_string(r.count(at)) + ", MPFR " + std::to_string(oracle[k]);
    }
  }
  std::printf("%s (%s, %s, %dx%d): %s; MPFR trusts %zu of %zu, %zu agree, %zu flagged (not certified), "
              "%zu differ; %zu distinct counts (MPFR %zu); in the image %llu undecided in binary64, %llu decided by "
              "their MPFR orbits, %llu unresolved; render %.2f s\n",
              e.name.c_str(), e.location.c_str(), formula::to_string(f).c_str(), e.width, e.height,
              formula::method_name(rep).c_str(), ntrusted, n, agree, flagged, ntrusted - agree - flagged,
              distinct.size(), oracle_distinct.size(), static_cast<unsigned long long>(rep.undecided),
              static_cast<unsigned long long>(rep.fallback), static_cast<unsigned long long>(rep.unresolved), seconds);
  EXPECT_EQ(agree + flagged, ntrusted) << e.name << ": certified counts that differ from MPFR:" << detail;
  // Not a vacuous pass: the oracle trusts most of the grid and the render certifies most of that.
  EXPECT_GE(ntrusted * 4, n * 3) << e.name << ": the oracle grid trusts too few pixels";
  EXPECT_GE(agree * 10, ntrusted * 9) << e.name << ": too many trusted pixels flagged";
  EXPECT_GT(oracle_distinct.size(), 1u) << e.name << ": the oracle grid itself is flat";
  EXPECT_GE(distinct.size(), std::min<size_t>(10, oracle_distinct.size())) << e.name << ": a flat image";
}

// Past zoom ~1e1050 at fractalshades' deep Julia view the reference comes back closer to 0 than
// binary64 holds (its step 35,012): with binary64 reference states every FloatExp pixel was left
// undecided there and went to its own MPFR orbit (64 of 64 at 1e1100). With the states kept with an
// exponent (kernels/formula/perturb.h) the perturbation alone decides them all; the suite entry
// above checks the counts against MPFR.
TEST(FormulaOracleSuiteDeep, PastTheBinary64WallPerturbationDecidesWithoutMpfr) {
  const app::Location loc = app::read_location_file(kData + "/formula/fs-burning-ship-15-deep-julia-1e1100.loc");
  mandel::View v;
  formula::Formula f = formula::parse_formula("mandelbrot");
  app::apply_to_view(loc, &v, false, &f);
  v.width = 8;
  v.height = 8;
  formula::FormulaReport rep;
  const mandel::RenderResult r = formula::render(v, f, formula::FormulaOptions{}, &rep);
  ASSERT_FALSE(r.cancelled);
  EXPECT_EQ(r.perturb.delta, mandel::DeltaFormat::kFloatExp);
  EXPECT_EQ(rep.undecided, 0u);
  EXPECT_EQ(rep.fallback, 0u);
  EXPECT_EQ(rep.unresolved, 0u);
}

INSTANTIATE_TEST_SUITE_P(Locations, FormulaOracleSuite, testing::ValuesIn(suite()),
                         [](const testing::TestParamInfo<Entry>& p) {
                           std::string s;
                           for (char c : p.param.name) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return s;
                         });

}  // namespace
