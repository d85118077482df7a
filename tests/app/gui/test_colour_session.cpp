// The window's colouring under a private Xvfb (tests/app/gui/with_xvfb.sh), CPU path: a user's
// shader file chosen in the panel colours the image; rewritten on disk, it is compiled again and
// the image follows; rewritten broken, the compiler's message with the file's line shows in the
// panel and the last good image stays; the F12 PNG is coloured by the last good shader and records
// its source hash. Also a .kfp palette loaded in the window.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/io/image_io.h"
#include "render/colour_shader.h"
#include "test_files.h"
#include "window_session.h"

namespace {


using ds::test::load;
using ds::test::Png;
using ds::test::run;
using ds::test::write;

// Share of the image area's pixels (right of the 310-pixel controls, below the tab bar) that are
// pure (r, g, b) within 8 levels.
double share_of(const Png& p, int r, int g, int b) {
  size_t n = 0, hit = 0;
  for (int y = 40; y < p.h - 8; y += 2)
    for (int x = 340; x < p.w - 8; x += 2) {
      const unsigned char* q = p.at(x, y);
      ++n;
      hit += std::abs(q[0] - r) <= 8 && std::abs(q[1] - g) <= 8 && std::abs(q[2] - b) <= 8;
    }
  return n ? static_cast<double>(hit) / n : 0;
}

// Pixels of the panel's error colour (ImVec4(1.0, 0.45, 0.4): 255, 115, 102) in the controls.
int error_text_pixels(const Png& p) {
  int hit = 0;
  for (int y = 30; y < p.h; ++y)
    for (int x = 0; x < 320 && x < p.w; ++x) {
      const unsigned char* q = p.at(x, y);
      hit += q[0] > 200 && std::abs(q[1] - 115) <= 30 && std::abs(q[2] - 102) <= 30;
    }
  return hit;
}

const char* kRed = "vec3 colour() {\n  return ds_interior() ? vec3(0.0) : vec3(1.0, 0.0, 0.0);\n}\n";
const char* kGreen =
    "// green now\nvec3 colour() {\n  return ds_interior() ? vec3(0.0) : vec3(0.0, 1.0, 0.0);\n}\n";
const char* kBroken = "// broken\nvec3 colour() {\n  return vec3(0.0, green_level, 0.0);\n}\n";


TEST(ColourSession, ShaderFileReloadsAndABrokenOneKeepsTheLastImage) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string d = ds::test::make_tmpdir("colour-session");
  write(d + "/live.glsl", kRed);
  write(d + "/green.txt", kGreen);
  write(d + "/broken.txt", kBroken);
  // The script waits in wall time (sleep) while a helper rewrites the file after each screenshot.
  write(d + "/s.script", ("wait-idle 60\nshader " + d + "/live.glsl\nwait-idle 60\nscreenshot " + d +
                          "/red.png\nsleep 2\nwait-idle 60\nscreenshot " + d +
                          "/green.png\nsleep 2\nwait-idle 60\n"
                          "screenshot " +
                          d + "/broken.png\npng " + d + "/shot.png\nkey F12\nwait-idle 60\nquit\n")
                             .c_str());
  const std::string helper =
      "( for k in $(seq 600); do [ -f " + d + "/red.png ] && break; sleep 0.05; done; cp " + d +
      "/green.txt " + d + "/live.tmp && mv " + d + "/live.tmp " + d +
      "/live.glsl; for k in $(seq 600); do [ -f " + d + "/green.png ] && break; sleep 0.05; done; cp " + d +
      "/broken.txt " + d + "/live.tmp && mv " + d + "/live.tmp " + d + "/live.glsl ) &";
  const std::string cmd =
      helper + " CUDA_VISIBLE_DEVICES= " DEEPSCOPE_WITH_XVFB " " DEEPSCOPE_EXE " --size 900x600 --script " +
      d + "/s.script > " + d + "/log.txt 2>&1";
  ASSERT_EQ(run(cmd), 0) << ds::test::slurp(d + "/log.txt");
  const Png red = load(d + "/red.png"), green = load(d + "/green.png"), broken = load(d + "/broken.png");
  ASSERT_GT(red.w, 400);
  ASSERT_EQ(green.w, red.w);
  ASSERT_EQ(broken.w, red.w);
  // The whole set at 1000 iterations: most of the image is exterior.
  EXPECT_GT(share_of(red, 255, 0, 0), 0.5);
  EXPECT_LT(share_of(red, 0, 255, 0), 0.01);
  EXPECT_GT(share_of(green, 0, 255, 0), 0.5) << "the rewritten file was not compiled again";
  EXPECT_LT(share_of(green, 255, 0, 0), 0.01);
  // Broken: the last good (green) image stays, and the error is shown in the controls.
  EXPECT_GT(share_of(broken, 0, 255, 0), 0.5);
  EXPECT_EQ(error_text_pixels(green), 0);
  EXPECT_GT(error_text_pixels(broken), 20);
  // The F12 PNG: coloured green by the last good shader, which its record names by hash.
  const std::string png = ds::test::slurp(d + "/shot.png");
  std::string record;
  ASSERT_TRUE(ds::app::png_find_text(png, "deepscope-colour", &record));
  EXPECT_NE(record.find("shader = " + d + "/live.glsl"), std::string::npos) << record;
  EXPECT_NE(record.find(ds::render::shader_hash(kGreen)), std::string::npos) << record;
  const Png shot = load(d + "/shot.png");
  size_t greens = 0;
  for (size_t k = 0; k + 2 < shot.rgb.size(); k += 3) greens += shot.rgb[k] == 0 && shot.rgb[k + 1] == 255;
  EXPECT_GT(greens, shot.rgb.size() / 3 / 2);
}

TEST(ColourSession, KfpPaletteLoadsInTheWindow) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0);
  const std::string d = ds::test::make_tmpdir("colour-kfp");
  // Two colours, pure red and pure blue: every exterior pixel is a blend of the two (no green).
  write(d + "/rb.kfp", "Colors: 255,0,0,0,0,255,\nIterDiv: 0.05\nColorOffset: 0\nSmooth: 1\n");
  // The pointer moves just before the screenshot: the period under a resting pointer (a white
  // label, drawn once its search ends, whenever that is) goes with the move.
  write(d + "/s.script", ("wait-idle 60\npalette " + d + "/rb.kfp\nwait-idle 60\nwait 3\nmove 5 5\nscreenshot " + d +
                          "/kfp.png\nquit\n")
                             .c_str());
  ASSERT_EQ(run("CUDA_VISIBLE_DEVICES= " DEEPSCOPE_WITH_XVFB " " DEEPSCOPE_EXE " --size 900x600 --script " +
                d + "/s.script > " + d + "/log.txt 2>&1"),
            0)
      << ds::test::slurp(d + "/log.txt");
  const Png p = load(d + "/kfp.png");
  ASSERT_GT(p.w, 400);
  size_t n = 0, greenish = 0, reddish = 0, bluish = 0;
  for (int y = 40; y < p.h - 8; y += 2)
    for (int x = 340; x < p.w - 8; x += 2) {
      const unsigned char* q = p.at(x, y);
      if (q[0] + q[1] + q[2] < 30) continue;  // interior
      ++n;
      greenish += q[1] > 40;
      reddish += q[0] > 200 && q[2] < 60;
      bluish += q[2] > 200 && q[0] < 60;
    }
  ASSERT_GT(n, 1000u);
  EXPECT_EQ(greenish, 0u);
  EXPECT_GT(reddish, n / 20);
  EXPECT_GT(bluish, n / 200);  // the blue key: near the boundary, where counts pass 1 / density
}

}  // namespace
