// The window script format's parser (app/gui/script.h): what each line becomes, and the message
// and line number for each kind of malformed line. No display needed.
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "app/cli/cli.h"
#include "app/gui/script.h"

namespace {

using ds::gui::ScriptStep;
using Op = ScriptStep::Op;

TEST(Script, ParsesEveryCommand) {
  const std::string text =
      "# a comment\n"
      "\n"
      "wait-idle\n"
      "  wait-idle 30  \n"
      "wait 5\r\n"
      "move 10 20.5\n"
      "click 300 200\n"
      "click 1 2 right\n"
      "scroll 7 8 -2\n"
      "key F12\n"
      "key ctrl+shift+Z\n"
      "key home\n"
      "png /tmp/a dir/shot #1.png\n"
      "screenshot win.png\n"
      "tab henon\n"
      "quit\n";
  const auto s = ds::gui::parse_script(text, "t.script");
  ASSERT_EQ(s.size(), 14u);
  EXPECT_EQ(s[0].op, Op::kWaitIdle);
  EXPECT_EQ(s[0].line, 3);
  EXPECT_EQ(s[0].amount, 120.0);
  EXPECT_EQ(s[1].amount, 30.0);
  EXPECT_EQ(s[1].text, "wait-idle 30");
  EXPECT_EQ(s[2].op, Op::kWait);
  EXPECT_EQ(s[2].amount, 5.0);
  EXPECT_EQ(s[3].op, Op::kMove);
  EXPECT_EQ(s[3].x, 10.0);
  EXPECT_EQ(s[3].y, 20.5);
  EXPECT_EQ(s[4].op, Op::kClick);
  EXPECT_EQ(s[4].button, GLFW_MOUSE_BUTTON_LEFT);
  EXPECT_EQ(s[5].button, GLFW_MOUSE_BUTTON_RIGHT);
  EXPECT_EQ(s[6].op, Op::kScroll);
  EXPECT_EQ(s[6].amount, -2.0);
  EXPECT_EQ(s[7].key, GLFW_KEY_F12);
  EXPECT_EQ(s[7].mods, 0);
  EXPECT_EQ(s[8].key, GLFW_KEY_Z);
  EXPECT_EQ(s[8].mods, GLFW_MOD_CONTROL | GLFW_MOD_SHIFT);
  EXPECT_EQ(s[9].key, GLFW_KEY_HOME);
  EXPECT_EQ(s[10].op, Op::kPng);
  EXPECT_EQ(s[10].path, "/tmp/a dir/shot #1.png");  // the rest of the line, spaces and '#' included
  EXPECT_EQ(s[11].op, Op::kScreenshot);
  EXPECT_EQ(s[12].op, Op::kTab);
  EXPECT_EQ(s[12].path, "henon");
  EXPECT_EQ(s[13].op, Op::kQuit);
  EXPECT_EQ(s[13].line, 16);
}

// The Menu key (the Mandelbrot image's menu, docs/window.md) by name, any case.
TEST(Script, ParsesTheMenuKey) {
  const auto s = ds::gui::parse_script("key menu\nkey Menu\n", "m.script");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].key, GLFW_KEY_MENU);
  EXPECT_EQ(s[1].key, GLFW_KEY_MENU);
}

// The colouring commands and the wall-time wait.
TEST(Script, ParsesColouringAndSleep) {
  const auto s = ds::gui::parse_script(
      "shader slopes\nshader /tmp/my shader.glsl\npalette /p/kf.kfp\nsleep 1.5\n", "c.script");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].op, Op::kShader);
  EXPECT_EQ(s[0].path, "slopes");
  EXPECT_EQ(s[1].path, "/tmp/my shader.glsl");
  EXPECT_EQ(s[2].op, Op::kPalette);
  EXPECT_EQ(s[2].path, "/p/kf.kfp");
  EXPECT_EQ(s[3].op, Op::kSleep);
  EXPECT_EQ(s[3].amount, 1.5);
}

// The antialiasing level: N x N samples a pixel, 1 off.
TEST(Script, ParsesAntialiasing) {
  const auto s = ds::gui::parse_script("aa 4\naa 1\n", "a.script");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].op, Op::kAa);
  EXPECT_EQ(s[0].amount, 4.0);
  EXPECT_EQ(s[1].amount, 1.0);
}

TEST(Script, ParsesBrowse) {
  const auto s = ds::gui::parse_script("browse shader\nbrowse palette\n", "b.script");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].op, Op::kBrowse);
  EXPECT_EQ(s[0].path, "shader");
  EXPECT_EQ(s[1].path, "palette");
}

TEST(Script, ParsesLayout) {
  const auto s = ds::gui::parse_script("layout\n", "l.script");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].op, Op::kLayout);
}

// The message of the UsageError parse_script throws ("" if it does not throw).
std::string error_of(const std::string& text) {
  try {
    ds::gui::parse_script(text, "my.script");
  } catch (const ds::cli::UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Script, MalformedLinesNameTheLine) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"wait-idle\njump 1 2\n", "my.script:2: unknown command \"jump\""},
      {"click 1\n", "my.script:1: expected \"click X Y [left|right|middle]\""},
      {"click 1 2 3 4\n", "my.script:1: expected"},
      {"click x 2\n", "my.script:1: X must be a number, got \"x\""},
      {"click 1 2e400\n", "my.script:1: Y must be a number"},
      {"click -1 2\n", "my.script:1: image coordinates are >= 0"},
      {"click 1 2 up\n", "my.script:1: the button is left, right or middle"},
      {"move 1 nan\n", "my.script:1: Y must be a number"},
      {"scroll 1 2 0\n", "my.script:1: STEPS must be non-zero"},
      {"scroll 1 2\n", "my.script:1: expected \"scroll X Y STEPS\""},
      {"layout all\n", "my.script:1: expected \"layout\""},
      {"wait 0\n", "my.script:1: FRAMES must be a whole number"},
      {"wait 1.5\n", "my.script:1: FRAMES must be a whole number"},
      {"wait\n", "my.script:1: expected \"wait FRAMES\""},
      {"wait-idle -3\n", "my.script:1: SECONDS must be in (0, 86400]"},
      {"\n\nkey F26\n", "my.script:3: unknown key \"F26\""},
      {"key hyper+a\n", "my.script:1: unknown modifier \"hyper\""},
      {"key\n", "my.script:1: expected \"key NAME"},
      {"png\n", "my.script:1: expected \"png PATH\""},
      {"screenshot   \n", "my.script:1: expected \"screenshot PATH\""},
      {"tab window\n", "my.script:1: the tab is mandelbrot, henon, henon-plane, tmd or drift"},
      {"quit now\n", "my.script:1: expected \"quit\""},
      {"shader\n", "my.script:1: expected \"shader NAME|FILE\""},
      {"palette \n", "my.script:1: expected \"palette NAME|FILE\""},
      {"sleep 0\n", "my.script:1: SECONDS must be in (0, 3600]"},
      {"sleep\n", "my.script:1: expected \"sleep SECONDS\""},
      {"aa\n", "my.script:1: expected \"aa N\""},
      {"aa 0\n", "my.script:1: N must be a whole number in [1, 8] (1: off)"},
      {"aa 9\n", "my.script:1: N must be a whole number in [1, 8]"},
      {"aa 2.5\n", "my.script:1: N must be a whole number in [1, 8]"},
      {"verify\n", "my.script:1: expected \"verify N\""},
      {"verify 0\n", "my.script:1: N must be a whole number in [1, 65536]"},
      {"verify 1.5\n", "my.script:1: N must be a whole number in [1, 65536]"},
      {"browse\n", "my.script:1: expected \"browse shader|palette\""},
      {"browse colours\n", "my.script:1: browse takes shader or palette"},
      {"# only a comment\n\n", "my.script: the script has no commands"},
  };
  for (const Case& c : cases) {
    const std::string e = error_of(c.text);
    EXPECT_EQ(e.rfind(c.expect, 0), 0u) << "script: " << c.text << "error: " << e;
  }
  // The message quotes the line as written.
  EXPECT_NE(error_of("wait-idle\n  click 1 2 sideways \n").find("\"click 1 2 sideways\""), std::string::npos);
}

TEST(Script, UnreadableFileIsAUsageError) {
  EXPECT_THROW(ds::gui::read_script("/nonexistent/dir/s.script"), ds::cli::UsageError);
  const std::string path = std::string(DEEPSCOPE_TEST_TMP) + "/parse_ok.script";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("wait 2\nquit\n", f);
  std::fclose(f);
  EXPECT_EQ(ds::gui::read_script(path).size(), 2u);
}

}  // namespace
