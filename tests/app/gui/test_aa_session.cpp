// The window's progressive antialiasing under a private Xvfb (tests/app/gui/with_xvfb.sh), CPU
// path: after `aa N` and wait-idle, the image the window shows and the PNG its F12 writes must be
// `deepscope render --aa N` of the same view, pixel for pixel (the same samples, the same GLSL
// colouring on Mesa, the same mean: app::SampleMean), at a direct-format view and at KF's 1e14
// perturbation location. A click and a palette change must start the refinement again for the new
// view and colouring, with no stale sample mixed in.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/io/image_io.h"
#include "app/io/location.h"
#include "test_files.h"
#include "window_session.h"

namespace {


using ds::test::load;
using ds::test::Png;
using ds::test::run;
using ds::test::write;


// Pixels (not channels) where a and b differ; a and b of one size.
size_t pixels_differing(const Png& a, const Png& b) {
  size_t n = 0;
  for (size_t k = 0; k + 2 < a.rgb.size(); k += 3)
    n += a.rgb[k] != b.rgb[k] || a.rgb[k + 1] != b.rgb[k + 1] || a.rgb[k + 2] != b.rgb[k + 2];
  return n;
}

// Whether `img` lies in `frame` at some offset exactly (the window's framebuffer shows the image
// texel for texel: the image is drawn at its own size in framebuffer pixels).
bool contains_exactly(const Png& frame, const Png& img) {
  for (int oy = 0; oy + img.h <= frame.h; ++oy)
    for (int ox = 0; ox + img.w <= frame.w; ++ox) {
      bool same = true;
      for (int y = 0; y < img.h && same; ++y) {
        const unsigned char* f = &frame.rgb[(static_cast<size_t>(oy + y) * frame.w + ox) * 3];
        const unsigned char* i = &img.rgb[static_cast<size_t>(y) * img.w * 3];
        for (int x = 0; x < 3 * img.w; ++x)
          if (f[x] != i[x]) {
            same = false;
            break;
          }
      }
      if (same) return true;
    }
  return false;
}

class AaSession : public ::testing::Test {
 public:
  void SetUp() override {
    ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
    dir_ = ds::test::make_tmpdir("aa-session");
    // Filaments and the set's edge across the image: antialiasing changes many pixels.
    write(dir_ + "/edge.txt", "re = -0.1\nim = 0.8\nzoom = 6\niterations = 400\npalette = classic\n");
  }
  // The window at `location` (default: edge.txt) on `script` (with $D replaced by the test's
  // folder), on the CPU; its output in NAME.log.
  int session(const std::string& name, std::string script, std::string location = "") {
    if (location.empty()) location = dir_ + "/edge.txt";
    for (size_t k; (k = script.find("$D")) != std::string::npos;) script.replace(k, 2, dir_);
    write(dir_ + "/" + name + ".script", script);
    return run("CUDA_VISIBLE_DEVICES= " DEEPSCOPE_WITH_XVFB " " DEEPSCOPE_EXE " --size 640x400 --location " +
               location + " --script " + dir_ + "/" + name + ".script > " + dir_ + "/" + name + ".log 2>&1");
  }
  // `deepscope render` of LOCATION at w x h with `args`, to OUT.
  int render(const std::string& location, int w, int h, const std::string& args, const std::string& out) {
    return run("CUDA_VISIBLE_DEVICES= " DEEPSCOPE_EXE " render --quiet --location " + location + " --size " +
               std::to_string(w) + "x" + std::to_string(h) + " " + args + " --out " + out + " > " + out +
               ".log 2>&1");
  }
  std::string dir_;
};

TEST_F(AaSession, RefinedImageIsRenderAaByteForByte) {
  ASSERT_EQ(session("aa2",
                    "wait-idle 120\naa 2\nwait-idle 300\nscreenshot $D/window.png\npng $D/aa2.png\n"
                    "key F12\nwait-idle 60\nquit\n"),
            0)
      << ds::test::slurp(dir_ + "/aa2.log");
  const Png win = load(dir_ + "/aa2.png");
  ASSERT_GT(win.w, 100) << ds::test::slurp(dir_ + "/aa2.log");
  ASSERT_GT(win.h, 100);
  std::string aa;
  ASSERT_TRUE(ds::app::png_find_text(ds::test::slurp(dir_ + "/aa2.png"), "deepscope-aa", &aa));
  EXPECT_EQ(aa.rfind("samples = 2x2\n", 0), 0u) << aa;

  ASSERT_EQ(render(dir_ + "/edge.txt", win.w, win.h, "--aa 2", dir_ + "/cli2.png"), 0)
      << ds::test::slurp(dir_ + "/cli2.png.log");
  ASSERT_EQ(render(dir_ + "/edge.txt", win.w, win.h, "", dir_ + "/cli1.png"), 0)
      << ds::test::slurp(dir_ + "/cli1.png.log");
  const Png cli2 = load(dir_ + "/cli2.png"), cli1 = load(dir_ + "/cli1.png");
  ASSERT_EQ(cli2.w, win.w);
  ASSERT_EQ(cli2.h, win.h);
  EXPECT_EQ(pixels_differing(win, cli2), 0u) << "the window's 2x2 mean is not render --aa 2's";
  // And antialiasing did something: edges differ from the plain render.
  EXPECT_GT(pixels_differing(win, cli1), static_cast<size_t>(win.w) * win.h / 50);
  // The same PNG text as the file's, but for the times.
  std::string cli_aa;
  ASSERT_TRUE(ds::app::png_find_text(ds::test::slurp(dir_ + "/cli2.png"), "deepscope-aa", &cli_aa));
  EXPECT_EQ(aa, cli_aa);

  // What the window showed is that image, texel for texel.
  const Png frame = load(dir_ + "/window.png");
  ASSERT_GT(frame.w, win.w);
  EXPECT_TRUE(contains_exactly(frame, win)) << "the window did not show the antialiased image";
}

// Perturbation (KF's 1e14 location, perturb/f64 with corrected glitches): the window's samples go
// through the same engine call as the file's, so the 2x2 mean is the file's here too.
TEST_F(AaSession, PerturbationViewIsRenderAaByteForByte) {
  const std::string kfr = ds::test::source_path("assets/locations/kf-1e14.kfr");
  ASSERT_EQ(
      session("deep", "wait-idle 300\naa 2\nwait-idle 600\npng $D/deep.png\nkey F12\nwait-idle 60\nquit\n",
              kfr),
      0)
      << ds::test::slurp(dir_ + "/deep.log");
  const Png win = load(dir_ + "/deep.png");
  ASSERT_GT(win.w, 100) << ds::test::slurp(dir_ + "/deep.log");
  const ds::app::Location loc = ds::app::read_location_file(dir_ + "/deep.png");
  EXPECT_EQ(loc.format_used.rfind("perturb", 0), 0u) << loc.format_used;
  // The window's PNG as the location: its view and colouring exactly.
  ASSERT_EQ(render(dir_ + "/deep.png", win.w, win.h, "--aa 2", dir_ + "/deep-cli.png"), 0)
      << ds::test::slurp(dir_ + "/deep-cli.png.log");
  const Png cli = load(dir_ + "/deep-cli.png");
  ASSERT_EQ(cli.w, win.w);
  ASSERT_EQ(cli.h, win.h);
  EXPECT_EQ(pixels_differing(win, cli), 0u);
}

// A change during or after a 4x4 refinement (`change`: script lines) must start it again: the end
// is render --aa 4 of the view and colouring after the change, with no stale sample in the mean.
// A second after `aa 4` some samples must be on screen (not the plain frame), or the test would
// prove nothing; whether the refinement is still under way then or done, a missed restart leaves
// samples of the view or colouring before in the mean.
void expect_restart(AaSession& t, const std::string& name, const std::string& change) {
  SCOPED_TRACE(name);
  ASSERT_EQ(t.session(name, "wait-idle 120\naa 4\nsleep 1\nscreenshot $D/" + name + "-mid.png\n" + change +
                                "wait-idle 300\npng $D/" + name + ".png\nkey F12\nwait-idle 60\nquit\n"),
            0)
      << ds::test::slurp(t.dir_ + "/" + name + ".log");
  const std::string png = t.dir_ + "/" + name + ".png";
  const Png win = load(png);
  ASSERT_GT(win.w, 100) << ds::test::slurp(t.dir_ + "/" + name + ".log");
  ASSERT_EQ(t.render(t.dir_ + "/edge.txt", win.w, win.h, "", t.dir_ + "/plain.png"), 0);
  const Png plain = load(t.dir_ + "/plain.png"), mid = load(t.dir_ + "/" + name + "-mid.png");
  ASSERT_GT(mid.w, win.w);
  EXPECT_FALSE(contains_exactly(mid, plain)) << "no sample had landed before the change";
  // The window's PNG as the location: its view and palette exactly.
  ASSERT_EQ(t.render(png, win.w, win.h, "--aa 4", t.dir_ + "/cli4.png"), 0)
      << ds::test::slurp(t.dir_ + "/cli4.png.log");
  const Png cli4 = load(t.dir_ + "/cli4.png");
  ASSERT_EQ(cli4.w, win.w);
  ASSERT_EQ(cli4.h, win.h);
  EXPECT_EQ(pixels_differing(win, cli4), 0u)
      << "a stale sample (the view or colouring before) is in the mean";
}

TEST_F(AaSession, ClickRestartsTheRefinement) {
  expect_restart(*this, "click", "click 100 80\n");
  const ds::app::Location loc = ds::app::read_location_file(dir_ + "/click.png");
  EXPECT_NE(loc.zoom, "6") << "the click did not zoom";
}

TEST_F(AaSession, PaletteChangeRestartsTheRefinement) {
  expect_restart(*this, "palette", "palette fire\n");
  const ds::app::Location loc = ds::app::read_location_file(dir_ + "/palette.png");
  ASSERT_TRUE(loc.palette.has_value());
  EXPECT_EQ(*loc.palette, "fire");
  EXPECT_EQ(loc.zoom, "6");
}

}  // namespace
