// `render --shader` and `--palette FILE.kfp`: built-in and file shaders colour the PNG and are
// recorded in it (a file by path and source hash); a file that does not compile exits 2 with the
// compiler's line of that file, a missing file or unknown name exits 2, a bad --shader-param exits
// 2; a .kfp palette colours as KF's table and a malformed one exits 2 naming its line. Nothing is
// written on an error.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "app/io/colouring.h"
#include "app/io/image_io.h"
#include "app/io/location.h"
#include "arith/error.h"
#include "kernels/core/atomic_file.h"
#include "render/colour_shader.h"
#include "render_in_process.h"
#include "test_files.h"

extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace {

using namespace ds;

using test::slurp;

std::string tmpdir() { return test::make_tmpdir("shader"); }

int render(app::ArgList args, std::string* message = nullptr) {
  const app::ArgList view = {"--re", "-0.7453", "--im",  "0.1127",    "--zoom", "100",    "--iter",
                             "500",  "--size",  "64x40", "--backend", "cpu",    "--quiet"};
  args.insert(args.begin(), view.begin(), view.end());
  return test::render_in_process(args, message);
}

int run_status(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

std::string record_of(const std::string& png_path) {
  std::string r;
  EXPECT_TRUE(app::png_find_text(slurp(png_path), app::kPngColourKey, &r)) << png_path;
  return r;
}

TEST(RenderShader, BuiltInsAndFilesAreRecorded) {
  const std::string dir = tmpdir();
  ASSERT_EQ(render({"--out", dir + "/palette.png"}), 0);
  std::string rec = record_of(dir + "/palette.png");
  EXPECT_NE(rec.find("shader = palette\n"), std::string::npos) << rec;
  EXPECT_NE(rec.find("coloured_by = GLSL"), std::string::npos) << rec;
  ASSERT_EQ(render({"--shader", "slopes", "--shader-param", "slope_angle=120", "--shader-param",
                    "slope_power=10", "--out", dir + "/slopes.png"}),
            0);
  rec = record_of(dir + "/slopes.png");
  EXPECT_NE(rec.find("shader = slopes\n"), std::string::npos) << rec;
  EXPECT_NE(rec.find("param slope_angle = 120\n"), std::string::npos) << rec;
  EXPECT_NE(rec.find("param slope_power = 10\n"), std::string::npos) << rec;

  const std::string src =
      "// the count's parity\nvec3 colour() {\n  return vec3(float(ds_count() & 1u), 0.0, 0.0);\n}\n";
  std::ofstream(dir + "/parity.glsl") << src;
  ASSERT_EQ(render({"--shader", dir + "/parity.glsl", "--out", dir + "/parity.png"}), 0);
  rec = record_of(dir + "/parity.png");
  EXPECT_NE(rec.find("shader = " + dir + "/parity.glsl\n"), std::string::npos) << rec;
  EXPECT_NE(rec.find("shader_source_fnv1a64 = " + render::shader_hash(src) + "\n"), std::string::npos) << rec;
  EXPECT_NE(slurp(dir + "/parity.png"), slurp(dir + "/palette.png"));
}

TEST(RenderShader, BadShadersExitTwoWithTheLine) {
  const std::string dir = tmpdir();
  std::ofstream(dir + "/broken.glsl")
      << "vec3 colour() {\n  float t = ds_smooth_count();\n  return vec3(t, nonsense, 0.0);\n}\n";
  std::string msg;
  EXPECT_EQ(render({"--shader", dir + "/broken.glsl", "--out", dir + "/a.png"}, &msg), 2);
  EXPECT_NE(msg.find("broken.glsl"), std::string::npos) << msg;
  EXPECT_NE(msg.find(dir + "/broken.glsl:3:"), std::string::npos) << msg;
  EXPECT_EQ(render({"--shader", dir + "/missing.glsl", "--out", dir + "/b.png"}, &msg), 2);
  EXPECT_NE(msg.find("missing.glsl"), std::string::npos) << msg;
  EXPECT_EQ(render({"--shader", "sepia", "--out", dir + "/c.png"}, &msg), 2);
  EXPECT_NE(msg.find("slopes"), std::string::npos) << msg;  // the list of built-ins
  EXPECT_EQ(render({"--shader", "slopes", "--shader-param", "slope_anlge=3", "--out", dir + "/d.png"}, &msg),
            2);
  EXPECT_NE(msg.find("slope_angle"), std::string::npos) << msg;  // the valid names
  EXPECT_EQ(render({"--shader-param", "x", "--out", dir + "/e.png"}, &msg), 2);
  EXPECT_EQ(
      render({"--shader", "distance", "--shader-param", "de_pixels=wide", "--out", dir + "/f.png"}, &msg), 2);
  for (const char* f : {"a", "b", "c", "d", "e", "f"})
    EXPECT_NE(access((dir + "/" + f + ".png").c_str(), F_OK), 0) << f;
  // The executable says the same on stderr and exits 2 (when it is built beside this test).
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = 0;
  std::string exe(self);
  exe = exe.substr(0, exe.find_last_of('/')) + "/../app/deepscope";
  if (access(exe.c_str(), X_OK) != 0) GTEST_SKIP() << "no executable at " << exe;
  const std::string cmd = exe + " render --size 32x20 --backend cpu --shader " + dir + "/broken.glsl --out " +
                          dir + "/g.png 2>" + dir + "/err.txt";
  const int status = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
  const std::string err = slurp(dir + "/err.txt");
  EXPECT_NE(err.find(dir + "/broken.glsl:3:"), std::string::npos) << err;
}

std::string exe_beside() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = 0;
  std::string exe(self);
  return exe.substr(0, exe.find_last_of('/')) + "/../app/deepscope";
}

// Where no EGL context can be made (here: libglvnd given no vendor library), the palette shader's
// C++ reference colours the PNG, with a note on stderr and in the PNG, and the same pixels as the
// shader; any other shader exits 2.
TEST(RenderShader, WithoutOpenGLThePaletteFallsBackAndSaysSo) {
  const std::string exe = exe_beside();
  if (access(exe.c_str(), X_OK) != 0) GTEST_SKIP() << "no executable at " << exe;
  const std::string dir = tmpdir();
  const std::string view =
      " render --re -0.7453 --im 0.1127 --zoom 100 --iter 500 --size 64x40 --backend cpu";
  const std::string no_gl = "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json ";
  ASSERT_EQ(run_status(no_gl + exe + view + " --out " + dir + "/cpp.png 2>" + dir + "/err.txt"), 0);
  const std::string err = slurp(dir + "/err.txt");
  EXPECT_NE(err.find("no OpenGL context"), std::string::npos) << err;
  EXPECT_NE(err.find("colour_pixel"), std::string::npos) << err;
  const std::string rec = record_of(dir + "/cpp.png");
  EXPECT_NE(rec.find("coloured_by = C++ colour_pixel (fallback: "), std::string::npos) << rec;
  ASSERT_EQ(run_status(exe + view + " --out " + dir + "/gl.png 2>/dev/null"), 0);
  EXPECT_NE(record_of(dir + "/gl.png").find("coloured_by = GLSL"), std::string::npos);
  // The linear scale: the same bytes. The log scale (the default): within one level, GLSL's log
  // and the C library's logf differing in the last bit; both record the same base and scale.
  ASSERT_EQ(run_status(no_gl + exe + view + " --scale linear --out " + dir + "/cpp-linear.png 2>/dev/null"), 0);
  ASSERT_EQ(run_status(exe + view + " --scale linear --out " + dir + "/gl-linear.png 2>/dev/null"), 0);
  for (const bool linear : {true, false}) {
    SCOPED_TRACE(linear ? "linear" : "log");
    const std::string ca = dir + (linear ? "/cpp-linear.png" : "/cpp.png");
    const std::string gb = dir + (linear ? "/gl-linear.png" : "/gl.png");
    const std::string ra = record_of(ca), rb = record_of(gb);
    EXPECT_EQ(ra.substr(ra.find("scale = ")), rb.substr(rb.find("scale = ")));
    int w1 = 0, h1 = 0, w2 = 0, h2 = 0, c = 0;
    unsigned char* a = stbi_load(ca.c_str(), &w1, &h1, &c, 3);
    unsigned char* b = stbi_load(gb.c_str(), &w2, &h2, &c, 3);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(w1 * h1, w2 * h2);
    int differ = 0, worse = 0;
    for (int k = 0; k < w1 * h1 * 3; ++k) {
      differ += a[k] != b[k];
      worse += std::abs(a[k] - b[k]) > 1;
    }
    std::printf("%s: %d channel values differ, %d by more than 1\n", linear ? "linear" : "log", differ, worse);
    if (linear) {
      EXPECT_EQ(differ, 0);
    }
    EXPECT_EQ(worse, 0);
    EXPECT_LE(differ, w1 * h1 * 3 / 100);
    stbi_image_free(a);
    stbi_image_free(b);
  }
  EXPECT_EQ(
      run_status(no_gl + exe + view + " --shader distance --out " + dir + "/de.png 2>" + dir + "/err2.txt"),
      2);
  EXPECT_NE(slurp(dir + "/err2.txt").find("needs OpenGL"), std::string::npos);
  EXPECT_NE(access((dir + "/de.png").c_str(), F_OK), 0);
}

TEST(RenderShader, KfpPalette) {
  const std::string dir = tmpdir();
  std::ofstream(dir + "/two.kfp") << "Colors: 255,0,0,0,0,255,\nIterDiv: 0.5\nColorOffset: 10\nSmooth: 1\n";
  ASSERT_EQ(render({"--palette", dir + "/two.kfp", "--out", dir + "/kfp.png"}), 0);
  const app::Location loc = app::read_location_file(dir + "/kfp.png");
  EXPECT_EQ(*loc.palette, dir + "/two.kfp");
  EXPECT_NEAR(*loc.density, 32.0 / 512.0, 1e-7);  // 32 / (1024 IterDiv)
  EXPECT_NEAR(*loc.offset, 10.0 / 1024.0, 1e-7);
  // Reopening the PNG finds the .kfp again: the same bytes.
  ASSERT_EQ(render({"--location", dir + "/kfp.png", "--out", dir + "/again.png"}), 0);
  EXPECT_EQ(slurp(dir + "/again.png"), slurp(dir + "/kfp.png"));
  std::ofstream(dir + "/bad.kfp") << "IterDiv: 1\nColorOffset: 0\nColors: 1,2,3,4\n";
  std::string msg;
  EXPECT_EQ(render({"--palette", dir + "/bad.kfp", "--out", dir + "/bad.png"}, &msg), 2);
  EXPECT_NE(msg.find("bad.kfp:3"), std::string::npos) << msg;
  EXPECT_NE(access((dir + "/bad.png").c_str(), F_OK), 0);
}

}  // namespace
