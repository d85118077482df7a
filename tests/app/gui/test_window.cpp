// Runs the real deepscope window under a private Xvfb (with_xvfb.sh) for a few frames, saves a
// screenshot, and checks that the ImGui chrome and the fractal both drew (non-uniform pixels in
// each region).
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

namespace {

int run(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

struct Image {
  int w = 0, h = 0;
  unsigned char* px = nullptr;
  ~Image() { stbi_image_free(px); }
  // Number of distinct RGB colours in the rectangle [x0, x1) x [y0, y1).
  size_t colours(int x0, int y0, int x1, int y1) const {
    std::set<unsigned> seen;
    for (int y = y0; y < y1; ++y)
      for (int x = x0; x < x1; ++x) {
        const unsigned char* p = px + (static_cast<size_t>(y) * w + x) * 4;
        seen.insert(p[0] << 16 | p[1] << 8 | p[2]);
      }
    return seen.size();
  }
};

TEST(Window, DrawsChromeAndFractalUnderXvfb) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string shot = std::string(DEEPSCOPE_TEST_TMP) + "/window_shot.png";
  std::remove(shot.c_str());
  const std::string cmd = std::string(DEEPSCOPE_WITH_XVFB " ") + DEEPSCOPE_EXE +
                          " --frames 10 --size 960x640 --screenshot " + shot;
  ASSERT_EQ(run(cmd), 0) << cmd;
  Image img;
  int comp = 0;
  img.px = stbi_load(shot.c_str(), &img.w, &img.h, &comp, 4);
  ASSERT_NE(img.px, nullptr) << "screenshot not written: " << shot;
  EXPECT_EQ(img.w, 960);
  EXPECT_EQ(img.h, 640);
  // The tab bar along the top: background, tabs and their labels.
  EXPECT_GE(img.colours(0, 0, img.w, 30), 3u) << "ImGui chrome did not draw";
  // The controls column on the left: widgets and text.
  EXPECT_GE(img.colours(0, 40, 250, img.h), 5u) << "control panel did not draw";
  // The fractal on the right: a coloured escape-time image has many colours.
  EXPECT_GE(img.colours(img.w / 2, img.h / 4, img.w - 20, img.h * 3 / 4), 50u) << "fractal did not draw";
}

TEST(Window, WithoutDisplayExplainsAndFails) {
  const std::string cmd = std::string("env -u DISPLAY -u WAYLAND_DISPLAY ") + DEEPSCOPE_EXE + " > /dev/null 2>&1";
  EXPECT_EQ(run(cmd), 2);
}

}  // namespace

namespace {

// The window opens a Kalles Fraktaler location deeper than f64 resolves and draws it (auto picks
// a wider format); a malformed location file is refused with exit code 2 before any window opens.
TEST(Window, OpensADeepKfrLocation) {
  const std::string dir = DEEPSCOPE_TEST_TMP;
  const std::string kfr = dir + "/deep.kfr", shot = dir + "/deep_shot.png", bad = dir + "/bad.kfr";
  {
    FILE* f = std::fopen(kfr.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("Re: -1.759817130804847813610825010561798238243999999999999999999800\r\n"
               "Im: -0.012593310799749865383746631843264858450340000000000000000000\r\n"
               "Zoom: 1e14\r\nIterations: 4036\r\n", f);
    std::fclose(f);
    f = std::fopen(bad.c_str(), "w");
    std::fputs("Re: 1.2.3\r\nIm: 0\r\nZoom: 1\r\n", f);
    std::fclose(f);
  }
  std::remove(shot.c_str());
  const std::string cmd = std::string(DEEPSCOPE_WITH_XVFB " ") + DEEPSCOPE_EXE +
                          " --location " + kfr + " --frames 5 --size 640x400 --screenshot " + shot;
  ASSERT_EQ(run(cmd), 0) << cmd;
  Image img;
  int comp = 0;
  img.px = stbi_load(shot.c_str(), &img.w, &img.h, &comp, 4);
  ASSERT_NE(img.px, nullptr);
  EXPECT_GE(img.colours(img.w / 2, 40, img.w - 10, img.h - 10), 50u) << "the deep view did not draw";
  EXPECT_EQ(run(std::string(DEEPSCOPE_EXE) + " --location " + bad + " > /dev/null 2>&1"), 2);
}

}  // namespace

namespace {

// A Hénon scan CSV given with --open (as if dropped) opens the Hénon tab's scan view: the right side
// shows the parameter strip (a few flat colours, among them the sinks' saturated ones) instead of
// the Mandelbrot image (many colours); an unreadable --open path is bad input.
TEST(Window, OpensAHenonScanCsvInTheScanView) {
  const std::string dir = DEEPSCOPE_TEST_TMP;
  const std::string csv = dir + "/scan.csv", shot = dir + "/scan_shot.png";
  {
    FILE* f = std::fopen(csv.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("a_index,b_index,a,b,period,count,sink,x,y\n", f);
    for (int i = 0; i < 60; ++i) {
      std::fprintf(f, "%d,0,1.%04d,0.3,0,%d,0,,\n", i, i, 64 - (i % 3 == 0 ? 8 : 0));
      if (i % 3 == 0) std::fprintf(f, "%d,0,1.%04d,0.3,%d,8,1,0.5,0.1\n", i, i, 1 + i % 7);
    }
    std::fclose(f);
  }
  std::remove(shot.c_str());
  const std::string cmd = std::string(DEEPSCOPE_WITH_XVFB " ") + DEEPSCOPE_EXE + " --open " + csv +
                          " --frames 8 --size 960x640 --screenshot " + shot;
  ASSERT_EQ(run(cmd), 0) << cmd;
  Image img;
  int comp = 0;
  img.px = stbi_load(shot.c_str(), &img.w, &img.h, &comp, 4);
  ASSERT_NE(img.px, nullptr);
  // The strip is drawn as the smallest period over a (henon_scan_view.cpp): the 20 sinks as green
  // markers, the other 40 parameters (no period) as grey ones, on the right side of the window.
  const int x0 = img.w / 2, x1 = img.w - 20, y0 = 40, y1 = img.h - 20;
  int sink = 0, none = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const unsigned char* p = img.px + (static_cast<size_t>(y) * img.w + x) * 4;
      sink += std::abs(p[0] - 90) <= 10 && std::abs(p[1] - 220) <= 10 && std::abs(p[2] - 110) <= 10;
      none += std::abs(p[0] - 150) <= 10 && std::abs(p[1] - 150) <= 10 && std::abs(p[2] - 160) <= 10;
    }
  EXPECT_GT(sink, 100) << "no sink drawn";
  EXPECT_GT(none, 150) << "no parameter without a period drawn";
  EXPECT_EQ(run(std::string(DEEPSCOPE_EXE) + " --open " + dir + "/missing.csv > /dev/null 2>&1"), 2);
}

}  // namespace
