// The script format's parser (docs/window.md, "Scripted sessions"). Pure: no display needed.
#include "script.h"

#include <GLFW/glfw3.h>  // key and mouse button codes only

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "app/cli/cli.h"
#include "kernels/core/input_file.h"
#include "panels.h"

namespace ds::gui {

const char* const kTabNames[4] = {"mandelbrot", "henon", "tmd", "drift"};

namespace {

struct BadLine {
  std::string why;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

double number(const std::string& what, const std::string& s) {
  const char* p = s.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(p, &end);
  if (s.empty() || end != p + s.size() || errno == ERANGE || !std::isfinite(v))
    throw BadLine{what + " must be a number, got \"" + s + "\""};
  return v;
}

// A GLFW key code by name: F1..F25, letters, digits, and the named keys below (case-insensitive).
int key_code(const std::string& name) {
  const std::string n = lower(name);
  if (n.size() == 1 && n[0] >= 'a' && n[0] <= 'z') return GLFW_KEY_A + (n[0] - 'a');
  if (n.size() == 1 && n[0] >= '0' && n[0] <= '9') return GLFW_KEY_0 + (n[0] - '0');
  if (n.size() >= 2 && n.size() <= 3 && n[0] == 'f' && std::isdigit(static_cast<unsigned char>(n[1])) &&
      (n.size() == 2 || std::isdigit(static_cast<unsigned char>(n[2])))) {
    int k = std::atoi(n.c_str() + 1);
    if (k >= 1 && k <= 25) return GLFW_KEY_F1 + (k - 1);
  }
  static const struct {
    const char* name;
    int code;
  } kNamed[] = {{"home", GLFW_KEY_HOME},           {"end", GLFW_KEY_END},
                {"pageup", GLFW_KEY_PAGE_UP},      {"pagedown", GLFW_KEY_PAGE_DOWN},
                {"insert", GLFW_KEY_INSERT},       {"delete", GLFW_KEY_DELETE},
                {"backspace", GLFW_KEY_BACKSPACE}, {"enter", GLFW_KEY_ENTER},
                {"escape", GLFW_KEY_ESCAPE},       {"tab", GLFW_KEY_TAB},
                {"space", GLFW_KEY_SPACE},         {"left", GLFW_KEY_LEFT},
                {"right", GLFW_KEY_RIGHT},         {"up", GLFW_KEY_UP},
                {"down", GLFW_KEY_DOWN},           {"minus", GLFW_KEY_MINUS},
                {"equal", GLFW_KEY_EQUAL},         {"menu", GLFW_KEY_MENU}};
  for (const auto& k : kNamed)
    if (n == k.name) return k.code;
  throw BadLine{"unknown key \"" + name +
                "\" (F1..F25, a..z, 0..9, Home, End, PageUp, PageDown, Insert, Delete, "
                "Backspace, Enter, Escape, Tab, Space, Left, Right, Up, Down, Minus, Equal, Menu)"};
}

// "ctrl+shift+z" -> key and modifier bits.
void parse_key(const std::string& spec, ScriptStep* s) {
  std::string rest = spec;
  for (;;) {
    size_t plus = rest.find('+');
    if (plus == std::string::npos || plus + 1 == rest.size()) break;
    const std::string mod = lower(rest.substr(0, plus));
    if (mod == "ctrl")
      s->mods |= GLFW_MOD_CONTROL;
    else if (mod == "shift")
      s->mods |= GLFW_MOD_SHIFT;
    else if (mod == "alt")
      s->mods |= GLFW_MOD_ALT;
    else if (mod == "super")
      s->mods |= GLFW_MOD_SUPER;
    else
      throw BadLine{"unknown modifier \"" + rest.substr(0, plus) + "\" (ctrl, shift, alt, super)"};
    rest = rest.substr(plus + 1);
  }
  s->key = key_code(rest);
}

ScriptStep parse_line(const std::vector<std::string>& w, const std::string& rest_after_command) {
  ScriptStep s;
  const std::string& cmd = w[0];
  auto want = [&](size_t lo, size_t hi, const char* form) {
    if (w.size() - 1 < lo || w.size() - 1 > hi) throw BadLine{std::string("expected \"") + form + "\""};
  };
  auto point = [&](const char* form) {
    s.x = number("X", w[1]);
    s.y = number("Y", w[2]);
    if (s.x < 0 || s.y < 0) throw BadLine{std::string("image coordinates are >= 0 (") + form + ")"};
  };
  if (cmd == "wait") {
    want(1, 1, "wait FRAMES");
    const double n = number("FRAMES", w[1]);
    if (n < 1 || n > 1e6 || n != std::floor(n))
      throw BadLine{"FRAMES must be a whole number in [1, 1000000]"};
    s.op = ScriptStep::Op::kWait;
    s.amount = n;
  } else if (cmd == "wait-idle") {
    want(0, 1, "wait-idle [SECONDS]");
    s.op = ScriptStep::Op::kWaitIdle;
    s.amount = w.size() > 1 ? number("SECONDS", w[1]) : 120.0;
    if (!(s.amount > 0 && s.amount <= 86400)) throw BadLine{"SECONDS must be in (0, 86400]"};
  } else if (cmd == "sleep") {
    // Frames go on (file reloads, renders) for SECONDS of wall time, however fast they are.
    want(1, 1, "sleep SECONDS");
    s.op = ScriptStep::Op::kSleep;
    s.amount = number("SECONDS", w[1]);
    if (!(s.amount > 0 && s.amount <= 3600)) throw BadLine{"SECONDS must be in (0, 3600]"};
  } else if (cmd == "move") {
    want(2, 2, "move X Y");
    s.op = ScriptStep::Op::kMove;
    point("move X Y");
  } else if (cmd == "click") {
    want(2, 3, "click X Y [left|right|middle]");
    s.op = ScriptStep::Op::kClick;
    point("click X Y");
    const std::string b = w.size() > 3 ? lower(w[3]) : "left";
    if (b == "left")
      s.button = GLFW_MOUSE_BUTTON_LEFT;
    else if (b == "right")
      s.button = GLFW_MOUSE_BUTTON_RIGHT;
    else if (b == "middle")
      s.button = GLFW_MOUSE_BUTTON_MIDDLE;
    else
      throw BadLine{"the button is left, right or middle, got \"" + w[3] + "\""};
  } else if (cmd == "scroll") {
    want(3, 3, "scroll X Y STEPS");
    s.op = ScriptStep::Op::kScroll;
    point("scroll X Y STEPS");
    s.amount = number("STEPS", w[3]);
    if (s.amount == 0 || std::fabs(s.amount) > 100)
      throw BadLine{"STEPS must be non-zero and within [-100, 100]"};
  } else if (cmd == "key") {
    want(1, 1, "key NAME (e.g. F12, Home, ctrl+z)");
    s.op = ScriptStep::Op::kKey;
    parse_key(w[1], &s);
  } else if (cmd == "png" || cmd == "screenshot") {
    if (rest_after_command.empty()) throw BadLine{"expected \"" + cmd + " PATH\""};
    s.op = cmd == "png" ? ScriptStep::Op::kPng : ScriptStep::Op::kScreenshot;
    s.path = rest_after_command;
  } else if (cmd == "shader" || cmd == "palette") {
    if (rest_after_command.empty()) throw BadLine{"expected \"" + cmd + " NAME|FILE\""};
    s.op = cmd == "shader" ? ScriptStep::Op::kShader : ScriptStep::Op::kPalette;
    s.path = rest_after_command;
  } else if (cmd == "browse") {
    want(1, 1, "browse shader|palette");
    if (w[1] != "shader" && w[1] != "palette") throw BadLine{"browse takes shader or palette"};
    s.op = ScriptStep::Op::kBrowse;
    s.path = w[1];
  } else if (cmd == "aa") {
    want(1, 1, "aa N");
    const double n = number("N", w[1]);
    if (n < 1 || n > kMaxWindowAa || n != std::floor(n))
      throw BadLine{"N must be a whole number in [1, " + std::to_string(kMaxWindowAa) + "] (1: off)"};
    s.op = ScriptStep::Op::kAa;
    s.amount = n;
  } else if (cmd == "verify") {
    want(1, 1, "verify N");
    const double n = number("N", w[1]);
    if (n < 1 || n > 65536 || n != std::floor(n)) throw BadLine{"N must be a whole number in [1, 65536]"};
    s.op = ScriptStep::Op::kVerify;
    s.amount = n;
  } else if (cmd == "tab") {
    want(1, 1, "tab mandelbrot|henon|henon-plane|tmd|drift");
    s.op = ScriptStep::Op::kTab;
    for (const char* t : kTabNames)
      if (w[1] == t) s.path = t;
    if (w[1] == "henon-plane") s.path = w[1];  // the Hénon tab with its Plane view open
    if (s.path.empty())
      throw BadLine{"the tab is mandelbrot, henon, henon-plane, tmd or drift, got \"" + w[1] + "\""};
  } else if (cmd == "run") {
    // The settings are checked by the open tab when the step runs (Panel::run_with).
    for (std::size_t k = 1; k < w.size(); ++k)
      if (w[k].find('=') == std::string::npos || w[k].front() == '=')
        throw BadLine{"run takes NAME=VALUE settings, got \"" + w[k] + "\""};
    s.op = ScriptStep::Op::kRun;
    s.path = rest_after_command;
  } else if (cmd == "layout") {
    want(0, 0, "layout");
    s.op = ScriptStep::Op::kLayout;
  } else if (cmd == "leave") {
    want(0, 0, "leave");
    s.op = ScriptStep::Op::kLeave;
  } else if (cmd == "quit") {
    want(0, 0, "quit");
    s.op = ScriptStep::Op::kQuit;
  } else {
    throw BadLine{
        "unknown command \"" + cmd +
        "\" (wait, wait-idle, sleep, move, click, scroll, key, png, screenshot, tab, shader, palette, aa, "
        "verify, run, layout, leave, quit)"};
  }
  return s;
}

}  // namespace

std::vector<ScriptStep> parse_script(const std::string& text, const std::string& source) {
  std::vector<ScriptStep> steps;
  std::istringstream in(text);
  std::string line;
  int number_of_line = 0;
  while (std::getline(in, line)) {
    ++number_of_line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t a = line.find_first_not_of(" \t");
    if (a == std::string::npos || line[a] == '#') continue;
    size_t b = line.find_last_not_of(" \t");
    const std::string body = line.substr(a, b - a + 1);
    std::vector<std::string> words;
    std::istringstream ws(body);
    for (std::string t; ws >> t;) words.push_back(t);
    size_t after = body.find_first_of(" \t");
    std::string rest = after == std::string::npos ? "" : body.substr(body.find_first_not_of(" \t", after));
    try {
      ScriptStep s = parse_line(words, rest);
      s.line = number_of_line;
      s.text = body;
      steps.push_back(std::move(s));
    } catch (const BadLine& e) {
      throw cli::UsageError(source + ":" + std::to_string(number_of_line) + ": " + e.why + ": \"" + body +
                            "\"");
    }
  }
  if (steps.empty()) throw cli::UsageError(source + ": the script has no commands");
  return steps;
}

std::vector<ScriptStep> read_script(const std::string& path) {
  try {
    return parse_script(read_input_file(path, "script", kMaxTextInputBytes), path);
  } catch (const IoError& e) {
    throw cli::UsageError(std::string("--script: ") + e.what());
  }
}

}  // namespace ds::gui
