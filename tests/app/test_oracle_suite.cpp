// The MPFR-checked suite of real locations made by other programs (tests/data/oracle/suite.txt):
// each location's oracle grid (deepscope oracle, stored as .npy with the command in its .json) is
// rendered with the auto path (pixel by pixel on the CPU, the whole image on a GPU) and compared. CI runs the
// entries marked "cpu"; the others run where DEEPSCOPE_SUITE=all (the GPU session and bench perturb).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "app/io/image_io.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/perturb/perturb.h"
#include "kernels/perturb/oracle.h"
#include "app/io/location.h"
#include "oracle_suite.h"
#include "test_files.h"

namespace {

using namespace ds;
namespace orc = ds::perturb::oracle;

const std::string kData = DEEPSCOPE_TEST_DATA;

using Entry = ds::test::OracleSuiteEntry;
using ds::test::load_npy;

std::vector<Entry> suite() { return ds::test::read_oracle_suite(kData + "/oracle/suite.txt", {"cpu", "deep"}); }

void check(const Entry& e) {
  const app::Location loc = app::read_location_file(kData + "/" + e.location);
  mandel::View v;
  app::apply_to_view(loc, &v, false);
  v.width = e.width;
  v.height = e.height;
  const size_t n = static_cast<size_t>(e.grid) * e.grid;
  const std::string stem = kData + "/oracle/" + e.name;
  const std::vector<uint32_t> oracle = load_npy<uint32_t>(stem + ".npy", n);
  const std::vector<uint8_t> trusted = load_npy<uint8_t>(stem + "_trusted.npy", n);
  ASSERT_EQ(oracle.size(), n);
  ASSERT_EQ(trusted.size(), n);
  perturb::clear_reference_cache();
  mandel::RenderOptions o;  // the auto path: format, method and backend chosen as for a user
  const std::vector<orc::PixelIndex> where = orc::grid_pixels(v, e.grid);
  size_t ntrusted = 0, same = 0, near = 0, unresolved = 0;
  std::set<uint32_t> distinct, oracle_distinct;
  // On the CPU the grid's pixels alone, each a 1x1 tile (the same pixels a whole render gives);
  // on a GPU one whole render (a launch per pixel would cost more than the image).
  const bool whole = mandel::select_backend(mandel::Backend::kAuto) == mandel::Backend::kCuda;
  mandel::RenderResult image;
  if (whole) {
    image = mandel::render(v, o);
    unresolved += image.perturb.glitch_unresolved;
  }
  for (size_t k = 0; k < n; ++k) {
    uint32_t c = 0;
    if (whole) {
      c = image.counts[static_cast<size_t>(where[k].j) * v.width + where[k].i];
    } else {
      const mandel::RenderResult r = mandel::render(v, o, mandel::Tile{where[k].i, where[k].j, 1, 1});
      ASSERT_EQ(r.counts.size(), 1u);
      c = r.counts[0];
      unresolved += r.perturb.glitch_unresolved;
    }
    distinct.insert(c);
    if (!trusted[k]) continue;
    oracle_distinct.insert(oracle[k]);
    ++ntrusted;
    same += c == oracle[k];
    near += (c > oracle[k] ? c - oracle[k] : oracle[k] - c) <= 1;
    if ((c > oracle[k] ? c - oracle[k] : oracle[k] - c) > 1)
      ADD_FAILURE() << e.name << ": pixel (" << where[k].i << ", " << where[k].j << ") rendered " << c
                    << ", MPFR " << oracle[k];
  }
  std::cout << e.name << " (" << e.location << ", " << e.width << "x" << e.height << ", grid " << e.grid
            << "): MPFR trusted on " << ntrusted << " of " << n << "; equal on " << same << ", within 1 on "
            << near << "; " << distinct.size() << " distinct counts\n";
  EXPECT_GE(ntrusted, n * 9 / 10) << e.name << ": the oracle grid trusts too few pixels";
  EXPECT_GE(same * 1000, ntrusted * 999) << e.name;
  EXPECT_EQ(near, ntrusted) << e.name;
  EXPECT_EQ(unresolved, 0u) << e.name;
  // Not flat where MPFR is not (FractalShark's view 2 has 4 counts over its whole grid).
  EXPECT_GE(distinct.size(), std::min<size_t>(10, oracle_distinct.size())) << e.name << ": a flat image";
  EXPECT_GT(oracle_distinct.size(), 1u) << e.name << ": the oracle grid itself is flat";
}

TEST(OracleSuite, CheapLocationsAgreeWithMpfr) {
  int ran = 0;
  for (const Entry& e : suite())
    if (e.cpu) {
      check(e);
      ++ran;
    }
  EXPECT_GT(ran, 0);
}

TEST(OracleSuite, DeepLocationsAgreeWithMpfr) {
  const char* all = std::getenv("DEEPSCOPE_SUITE");
  if (!all || std::string(all) != "all")
    GTEST_SKIP() << "deep locations run with DEEPSCOPE_SUITE=all (GPU session, bench perturb)";
  for (const Entry& e : suite())
    if (!e.cpu) check(e);
}

}  // namespace
