// `render --location F.kfr` colours as the file says: KF's benchmark files are drawn by the kf
// shader with the file's ColorMethod and Differences (recorded in the PNG), and every exterior
// pixel's colour is one of KF's 1024 table entries made from the file's Colors, or a blend of two
// neighbouring entries (Smooth 1).
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "app/io/colouring.h"
#include "app/io/image_io.h"
#include "app/io/kfp.h"
#include "render_in_process.h"
#include "test_files.h"

extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }

namespace {

using namespace ds;

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Check {
  int exterior = 0, from_palette = 0;
  std::set<int> entries;  // the table entries (of the lower end of a blend) seen
};

// Each pixel against the table: an entry k with every channel between entry k's and entry k+1's
// (KF blends linearly and rounds; one level of slack for the rounding).
Check against_table(const std::string& png, const colour::Palette& t) {
  Check c;
  int w = 0, h = 0, comp = 0;
  unsigned char* px = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()),
                                            static_cast<int>(png.size()), &w, &h, &comp, 3);
  EXPECT_NE(px, nullptr);
  if (!px) return c;
  for (int q = 0; q < w * h; ++q) {
    const unsigned char* p = px + 3 * q;
    if (p[0] == 0 && p[1] == 0 && p[2] == 0) continue;  // interior (and table entries that are black)
    ++c.exterior;
    for (int k = 0; k < t.stops; ++k) {
      const colour::Rgb8 a = t.stop[k], b = t.stop[(k + 1) % t.stops];
      auto between = [](int v, int x, int y) { return v >= std::min(x, y) - 1 && v <= std::max(x, y) + 1; };
      if (between(p[0], a.r, b.r) && between(p[1], a.g, b.g) && between(p[2], a.b, b.b)) {
        ++c.from_palette;
        c.entries.insert(k);
        break;
      }
    }
  }
  stbi_image_free(px);
  return c;
}

std::string render_kfr(const std::string& name, const std::string& size, std::string* record) {
  char tmpl[] = "/tmp/deepscope-kfr-colour-XXXXXX";
  const std::string out = std::string(mkdtemp(tmpl)) + "/" + name + ".png";
  std::string message;
  const int rc = test::render_in_process({"--location", test::source_path("tests/data/kf-benchmarks/" + name + ".kfr"),
                                          "--size", size, "--backend", "cpu", "--quiet", "--out", out},
                                         &message);
  EXPECT_EQ(rc, 0) << message;
  const std::string png = slurp(out);
  EXPECT_TRUE(app::png_find_text(png, app::kPngColourKey, record)) << out;
  return png;
}

TEST(RenderKfrColour, BenchmarkUsesTheFilesPaletteAndMethod) {
  if (!app::headless_gl_unavailable().empty()) GTEST_SKIP() << "no OpenGL: " << app::headless_gl_unavailable();
  // 1e14: ColorMethod 0 (standard), IterDiv 1, 128 colours.
  std::string record;
  const std::string png = render_kfr("1e14", "96x54", &record);
  EXPECT_NE(record.find("shader = kf\n"), std::string::npos) << record;
  EXPECT_NE(record.find("param color_method = 0\n"), std::string::npos) << record;
  const app::KfPalette kp = app::read_kfp(test::source_path("tests/data/kf-benchmarks/1e14.kfr"));
  const Check c = against_table(png, app::kf_table(kp));
  std::printf("1e14: %d exterior pixels, %d from the table, %zu entries\n", c.exterior, c.from_palette,
              c.entries.size());
  EXPECT_GT(c.exterior, 96 * 54 / 2);
  EXPECT_EQ(c.from_palette, c.exterior);
  EXPECT_GT(c.entries.size(), 20u);  // a spread of the file's colours, not one
  // The built-in palette's colours are not KF's: the check above can fail.
  const Check classic = against_table(png, colour::palette_by_name("classic"));
  EXPECT_LT(classic.from_palette, c.exterior / 2);
}

TEST(RenderKfrColour, DistanceLogBenchmarkUsesItsDifferences) {
  if (!app::headless_gl_unavailable().empty()) GTEST_SKIP() << "no OpenGL: " << app::headless_gl_unavailable();
  // 5e113: ColorMethod 7 (distance log), Differences 3 (diagonal 2x2), IterDiv 0.5: KF's value is
  // 2 log(1 + |gradient| W / 640), a few entries from the start of the table.
  std::string record;
  const std::string png = render_kfr("5e113", "64x36", &record);
  EXPECT_NE(record.find("param color_method = 7\n"), std::string::npos) << record;
  EXPECT_NE(record.find("param differences = 3\n"), std::string::npos) << record;
  const app::KfPalette kp = app::read_kfp(test::source_path("tests/data/kf-benchmarks/5e113.kfr"));
  const Check c = against_table(png, app::kf_table(kp));
  std::printf("5e113: %d exterior pixels, %d from the table, entries %d..%d\n", c.exterior, c.from_palette,
              c.entries.empty() ? -1 : *c.entries.begin(), c.entries.empty() ? -1 : *c.entries.rbegin());
  EXPECT_EQ(c.from_palette, c.exterior);
  ASSERT_FALSE(c.entries.empty());
  EXPECT_LT(*c.entries.rbegin(), 64);  // log compresses: no pixel past entry 64 of 1024
}

}  // namespace
