// `deepscope render --auto-iter`: the seahorse valley at 100 iterations is rendered again at a limit
// raised by kernels/mandelbrot/auto_iter.h (written into the PNG's location), the whole set is not;
// --auto-iter with strips of one image, with --aa or with --no-auto-iter is bad input (exit 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "app/io/location.h"
#include "kernels/mandelbrot/auto_iter.h"
#include "kernels/mandelbrot/mandelbrot.h"

namespace {

using namespace ds;

std::string tmpdir() {
  char tmpl[] = "/tmp/deepscope-autoiter-XXXXXX";
  return mkdtemp(tmpl);
}

int render(const app::ArgList& args, std::string* message = nullptr) {
  try {
    return app::cmd_render(args);
  } catch (const cli::UsageError& e) {
    if (message) *message = e.what();
    return 2;
  }
}

TEST(RenderAutoIter, RaisesTheLimitWhereEscapesReachIt) {
  const std::string dir = tmpdir();
  const std::string out = dir + "/sea.png";
  ASSERT_EQ(render({"--re", "-0.743643887037151", "--im", "0.13182590420533", "--zoom", "100000", "--iter",
                    "100", "--size", "64x64", "--backend", "cpu", "--auto-iter", "--quiet", "--out", out}),
            0);
  const app::Location loc = app::read_location_file(out);
  ASSERT_TRUE(loc.iterations.has_value());
  EXPECT_GT(*loc.iterations, 100u);
  // The limit it stopped at satisfies the rule: rendering there raises it no further.
  mandel::View v;
  v.re = loc.re;
  v.im = loc.im;
  v.zoom = loc.zoom;
  v.max_iter = *loc.iterations;
  v.width = v.height = 64;
  mandel::RenderOptions o;
  o.backend = mandel::Backend::kCpu;
  const mandel::RenderResult r = mandel::render(v, o);
  EXPECT_EQ(mandel::auto_iterations_after_render(v.max_iter,
                                                 mandel::iteration_stats(r.counts, v.max_iter, 0, false))
                .max_iter,
            v.max_iter);

  // At 320x200 too the limit settles (a share of the pixels, not any one late escape, raises it:
  // some pixel near a boundary escapes late at every limit).
  const std::string big = dir + "/big.png";
  ASSERT_EQ(render({"--re", "-0.743643887037151", "--im", "0.13182590420533", "--zoom", "100000", "--iter",
                    "100", "--size", "320x200", "--backend", "cpu", "--auto-iter", "--quiet", "--out", big}),
            0);
  EXPECT_LE(*app::read_location_file(big).iterations, 3200u);

  const std::string whole = dir + "/whole.png";
  ASSERT_EQ(render({"--iter", "1000", "--size", "64x64", "--backend", "cpu", "--auto-iter", "--quiet",
                    "--out", whole}),
            0);
  EXPECT_EQ(*app::read_location_file(whole).iterations, 1000u);
  std::system(("rm -rf " + dir).c_str());
}

// A sequence takes --auto-iter frame by frame (video's default); strips of one image, a contradiction
// and antialiasing do not.
TEST(RenderAutoIter, NotWithStripsOrAa) {
  std::string msg;
  EXPECT_EQ(render({"--tile-rows", "8", "--auto-iter", "--out", "/tmp/x.png"}, &msg), 2);
  EXPECT_NE(msg.find("--auto-iter"), std::string::npos) << msg;
  EXPECT_EQ(render({"--auto-iter", "--no-auto-iter", "--out", "/tmp/x.png"}, &msg), 2);
  EXPECT_NE(msg.find("contradict"), std::string::npos) << msg;
  EXPECT_EQ(render({"--aa", "2", "--auto-iter", "--out", "/tmp/x.png"}, &msg), 2);
  EXPECT_NE(msg.find("--auto-iter"), std::string::npos) << msg;
}

}  // namespace
