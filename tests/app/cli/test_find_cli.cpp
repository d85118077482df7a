// `deepscope find`: the period at KF's 5e113 benchmark, the nucleus written as a location that
// `render` takes (the minibrot in the middle, proven interior), a Misiurewicz point, and the
// exit codes: 1 with a message when nothing is found, 2 for bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "app/cli/commands.h"
#include "app/io/location.h"
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
}

}  // namespace
