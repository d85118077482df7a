// The TMD tab's results table at 1280x800 under Xvfb: every column is as wide as its widest entry
// (the 256-bit f(x) included), and every column lies in the table's visible part (at 1280x800 all
// six do) or within reach of its sideways scroll. Measured from the table's layout as the script's `layout`
// command prints it, and checked on the screenshot's pixels (text in every visible column's cells).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "test_files.h"
#include "window_session.h"

namespace {

using ds::test::load;
using ds::test::Png;
using ds::test::run;

struct Column {
  std::string name;
  double text = 0, given = 0, x0 = 0, x1 = 0, work0 = 0, work1 = 0;
};
struct Table {
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0, scroll = 0, scroll_max = 0;
  std::size_t rows = 0;
  std::vector<Column> columns;
};

// The last table report in a session's log (app/gui/panel_tmd.cpp, report_table).
Table parse(const std::string& log) {
  Table t;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    Table u;
    if (std::sscanf(line.c_str(), "tmd table: visible x %lf..%lf y %lf..%lf, scroll x %lf of %lf, rows %zu",
                    &u.x0, &u.x1, &u.y0, &u.y1, &u.scroll, &u.scroll_max, &u.rows) == 7) {
      t = u;
      continue;
    }
    int k = 0;
    if (std::sscanf(line.c_str(), "tmd column %d", &k) != 1) continue;
    const std::size_t q0 = line.find('"'), q1 = line.find('"', q0 + 1);
    Column c;
    c.name = line.substr(q0 + 1, q1 - q0 - 1);
    if (std::sscanf(line.c_str() + q1 + 1, ": text %lf, given %lf, cell %lf..%lf, work %lf..%lf", &c.text,
                    &c.given, &c.x0, &c.x1, &c.work0, &c.work1) == 6)
      t.columns.push_back(c);
  }
  return t;
}

// Pixels brighter than the table's background and row colours (ImGui's dark style: text 255).
int text_pixels(const Png& p, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = std::max(0, y0); y < std::min(p.h, y1); ++y)
    for (int x = std::max(0, x0); x < std::min(p.w, x1); ++x) {
      const unsigned char* q = p.at(x, y);
      n += q[0] > 200 && q[1] > 200 && q[2] > 200;
    }
  return n;
}

// A regular search of exp over [1, 1.125) at k = 12 (the cases the plot session draws): the
// table's six columns, the last the 256-bit f(x) in hexadecimal.
TEST(TmdTableSession, EveryColumnIsReadableAt1280x800) {
  ASSERT_EQ(run("command -v Xvfb > /dev/null"), 0) << "Xvfb is missing: ./setup.sh test installs it";
  const std::string dir = ds::test::make_tmpdir("tmd_table");
  ds::test::write(dir + "/s.script",
                  "tab tmd\n"
                  "run search=regular function=exp k=12 from=0x3f800000 to=0x3f8fffff backend=cpu\n"
                  "wait-idle 300\nleave\nwait 3\nlayout\nscreenshot " +
                      dir + "/table.png\nquit\n");
  const int rc = run(std::string("CUDA_VISIBLE_DEVICES= " DEEPSCOPE_WITH_XVFB " ") + DEEPSCOPE_EXE +
                     " --size 1280x800 --script " + dir + "/s.script > " + dir + "/s.log 2>&1");
  const std::string log = ds::test::slurp(dir + "/s.log");
  ASSERT_EQ(rc, 0) << log;
  const Table t = parse(log);
  ASSERT_EQ(t.columns.size(), 6u) << log;
  ASSERT_GT(t.rows, 0u) << log;
  std::printf("table visible x %.0f..%.0f, y %.0f..%.0f; scroll %.0f of %.0f; %zu rows\n", t.x0, t.x1, t.y0,
              t.y1, t.scroll, t.scroll_max, t.rows);
  // The table's visible part lies in the window.
  EXPECT_GE(t.x0, 0);
  EXPECT_LE(t.x1, 1280);
  EXPECT_LE(t.y1, 800);
  EXPECT_GT(t.y1 - t.y0, 100) << "too few rows visible";
  // f(x) to 256 bits in hexadecimal: "0x1." and 64 digits at most, and more than 32 (the cases
  // are not exact, so the significand runs well past binary32's).
  EXPECT_EQ(t.columns[5].name, "f(x) (MPFR, 256 bits)");
  EXPECT_GT(t.columns[5].text, 40 * 6.0) << "f(x) is not the 256-bit text";
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    const Column& k = t.columns[c];
    std::printf("column %zu \"%s\": text %.0f px, given %.0f, cell %.0f..%.0f\n", c, k.name.c_str(), k.text,
                k.given, k.x0, k.x1);
    SCOPED_TRACE(k.name);
    // As wide as its widest entry: no text cut inside its cell.
    EXPECT_GE(k.work1 - k.work0 + 0.5, k.text);
    EXPECT_GE(k.given + 0.5, k.text);
    if (c > 0) {
      EXPECT_NEAR(k.x0, t.columns[c - 1].x1, 2.0) << "columns overlap or leave a gap";
    }
  }
  // Every column in view, or within reach of the sideways scroll (the frozen first one in view).
  const double overflow = t.columns.back().x1 - t.x1;
  std::printf("columns end at %.0f: %.0f px past the visible part\n", t.columns.back().x1, overflow);
  EXPECT_GE(t.columns[0].x0, t.x0 - 1);
  EXPECT_LE(t.columns[0].x1, t.x1);
  if (overflow > 1) {
    EXPECT_GE(t.scroll_max + 1, overflow) << "columns beyond the reach of the scrollbar";
  }
  // At 1280x800 all six fit: no sideways scrolling needed to read f(x).
  EXPECT_LE(overflow, 0.5);
  EXPECT_EQ(t.scroll_max, 0);

  // The screenshot: text in each column within view, in the rows below the header.
  const Png png = load(dir + "/table.png");
  ASSERT_EQ(png.w, 1280) << log;
  for (const Column& k : t.columns) {
    const int x0 = static_cast<int>(std::max(k.work0, t.x0)), x1 = static_cast<int>(std::min(k.work1, t.x1));
    if (x1 - x0 < 10) continue;
    EXPECT_GT(text_pixels(png, x0, static_cast<int>(t.y0) + 20, x1, static_cast<int>(t.y1)), 20)
        << "no text in column " << k.name;
  }
}

}  // namespace
