// The script runner: injects a script's events into the real frame loop through the functions the
// GLFW callbacks call (Dear ImGui's GLFW backend), so the panels see them exactly as they see a
// user's mouse and keys.
//
// The pointer: Dear ImGui 1.86's GLFW backend has no cursor-position callback; each NewFrame it
// reads glfwGetCursorPos, while the window is focused or the pointer is inside it (the backend's
// CursorEnterCallback). A `move` therefore puts the real X pointer there with glfwSetCursorPos
// (XWarpPointer: works under Xvfb without a window manager) and calls the backend's
// CursorEnterCallback, as GLFW does when the pointer enters; after the frame it checks that ImGui
// saw the pointer where it was put, and stops the script if not.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <utility>

#include "panels.h"
#include "script.h"

namespace ds::gui {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The GLFW key codes of the modifier bits, in press order.
const struct {
  int bit, key;
} kModKeys[] = {{GLFW_MOD_CONTROL, GLFW_KEY_LEFT_CONTROL},
                {GLFW_MOD_SHIFT, GLFW_KEY_LEFT_SHIFT},
                {GLFW_MOD_ALT, GLFW_KEY_LEFT_ALT},
                {GLFW_MOD_SUPER, GLFW_KEY_LEFT_SUPER}};

}  // namespace

ScriptRunner::ScriptRunner(std::vector<ScriptStep> steps, GLFWwindow* window)
    : steps_(std::move(steps)), window_(window) {}

std::string ScriptRunner::take_tab() { return std::exchange(tab_, std::string()); }
std::string ScriptRunner::take_screenshot() { return std::exchange(screenshot_, std::string()); }

void ScriptRunner::fail(const std::string& why, int code) {
  std::cerr << "deepscope: script line " << current_->line << " (\"" << current_->text << "\"): " << why
            << "\n";
  finished_ = true;
  exit_code_ = code;
}

void ScriptRunner::before_frame(Panel* shown) {
  if (!shown) return;  // steps start once a tab has been drawn
  while (!finished_) {
    if (current_) {
      if (current_->op == ScriptStep::Op::kWaitIdle) {
        if (!shown->busy()) {
          current_ = nullptr;
          continue;
        }
        if (now_seconds() > idle_deadline_) {
          char buf[200];
          std::snprintf(buf, sizeof buf, "the %s view was still busy after %g s", shown->title(),
                        current_->amount);
          fail(buf, 1);
        }
        return;
      }
      if (current_->op == ScriptStep::Op::kSleep) {
        if (now_seconds() < idle_deadline_) return;
        current_ = nullptr;
        continue;
      }
      if (current_->op == ScriptStep::Op::kWait) {
        if (wait_frames_-- > 0) return;
        current_ = nullptr;
        continue;
      }
      if (phase_ < phases_.size()) {
        run(phases_[phase_++], shown);
        return;
      }
      current_ = nullptr;
    }
    if (next_ >= steps_.size()) return;  // the script is over; the window stays open for the user
    current_ = &steps_[next_++];
    start(*current_, shown);
  }
}

// Sets up a step: its per-frame phases, or does it at once (png, quit).
void ScriptRunner::start(const ScriptStep& s, Panel* shown) {
  using Op = ScriptStep::Op;
  phases_.clear();
  phase_ = 0;
  switch (s.op) {
    case Op::kWait:
      wait_frames_ = static_cast<int64_t>(s.amount);
      break;
    case Op::kWaitIdle:
    case Op::kSleep:
      idle_deadline_ = now_seconds() + s.amount;
      break;
    case Op::kMove:
      phases_ = {Phase::kMove};
      break;
    case Op::kClick:
      // Pointer first (the panel needs it over the image); press and release next frame, which
      // ImGui 1.86 sees as the button held for that frame (MouseJustPressed) and released the
      // frame after, when the panel acts on a left click; one more frame for that.
      phases_ = {Phase::kMove, Phase::kButton, Phase::kSettle};
      break;
    case Op::kScroll:
      phases_ = {Phase::kMove, Phase::kWheel};
      break;
    case Op::kKey:
      // Down for one frame (ImGui::IsKeyPressed fires there), up the next.
      phases_ = {Phase::kKeyDown, Phase::kKeyUp};
      break;
    case Op::kTab:
      phases_ = {Phase::kTab, Phase::kSettle};  // ImGui opens a tab selected by flag a frame later
      break;
    case Op::kScreenshot:
      phases_ = {Phase::kScreenshot};
      break;
    case Op::kPng:
      if (!shown || !shown->set_screenshot_path(s.path))
        fail(std::string("the ") + (shown ? shown->title() : "window") +
                 " tab has no PNG screenshot path to set",
             2);
      break;
    case Op::kShader:
    case Op::kPalette:
      if (!shown || !(s.op == Op::kShader ? shown->set_shader(s.path) : shown->set_palette(s.path)))
        fail(std::string("the ") + (shown ? shown->title() : "window") + " tab has no colouring to set", 2);
      break;
    case Op::kBrowse:
      if (!shown || !shown->open_picker(s.path))
        fail(std::string("the ") + (shown ? shown->title() : "window") + " tab has no " + s.path +
                 " file picker",
             2);
      break;
    case Op::kAa:
      if (!shown || !shown->set_antialias(static_cast<int>(s.amount)))
        fail(std::string("the ") + (shown ? shown->title() : "window") + " tab has no antialiasing to set",
             2);
      break;
    case Op::kVerify:
      if (!shown || !shown->start_verify_with(static_cast<int>(s.amount)))
        fail(std::string("the ") + (shown ? shown->title() : "window") +
                 " tab has no finished image to verify (wait-idle first)",
             2);
      break;
    case Op::kLeave:
      phases_ = {Phase::kLeave, Phase::kSettle};
      break;
    case Op::kRun: {
      std::string why;
      if (!shown || !shown->run_with(s.path, &why))
        fail(why.empty()
                 ? std::string("the ") + (shown ? shown->title() : "window") + " tab has nothing to run"
                 : why,
             2);
      break;
    }
    case Op::kLayout: {
      const std::string report = shown ? shown->layout_report() : "";
      if (report.empty())
        fail(std::string("the ") + (shown ? shown->title() : "window") + " tab has no layout to report", 2);
      else
        std::fprintf(stderr, "script line %d: layout:\n%s", s.line, report.c_str());
      break;
    }
    case Op::kQuit:
      finished_ = true;
      exit_code_ = 0;
      break;
  }
}

// Puts the pointer over the image point of the current step (docs/window.md: image pixels from the
// image's top-left corner, as handle_mouse computes them), in window coordinates.
bool ScriptRunner::place_pointer(Panel* shown) {
  ImageRect r;
  if (!shown || !shown->image_rect(&r)) {
    fail(std::string("the ") + (shown ? shown->title() : "window") + " tab shows no image to point at", 2);
    return false;
  }
  const double x = current_->x, y = current_->y;
  if (x >= r.pixels_w || y >= r.pixels_h) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "(%g, %g) is outside the %dx%d image", x, y, r.pixels_w, r.pixels_h);
    fail(buf, 2);
    return false;
  }
  // The X server places the pointer on whole window pixels; a point between them is rounded.
  const double wx = std::round(r.x + x / r.pixels_w * r.w), wy = std::round(r.y + y / r.pixels_h * r.h);
  glfwSetCursorPos(window_, wx, wy);
  ImGui_ImplGlfw_CursorEnterCallback(window_, GLFW_TRUE);
  pointer_x_ = static_cast<float>(wx);
  pointer_y_ = static_cast<float>(wy);
  check_pointer_ = true;
  std::fprintf(stderr, "script line %d: pointer at image (%.6g, %.6g), window (%g, %g)\n", current_->line,
               (wx - r.x) / r.w * r.pixels_w, (wy - r.y) / r.h * r.pixels_h, wx, wy);
  return true;
}

void ScriptRunner::run(Phase p, Panel* shown) {
  const ScriptStep& s = *current_;
  switch (p) {
    case Phase::kMove:
      place_pointer(shown);
      break;
    case Phase::kButton:
      ImGui_ImplGlfw_MouseButtonCallback(window_, s.button, GLFW_PRESS, 0);
      ImGui_ImplGlfw_MouseButtonCallback(window_, s.button, GLFW_RELEASE, 0);
      break;
    case Phase::kWheel:
      ImGui_ImplGlfw_ScrollCallback(window_, 0.0, s.amount);
      break;
    case Phase::kKeyDown:
      for (const auto& m : kModKeys)
        if (s.mods & m.bit) ImGui_ImplGlfw_KeyCallback(window_, m.key, 0, GLFW_PRESS, s.mods);
      ImGui_ImplGlfw_KeyCallback(window_, s.key, 0, GLFW_PRESS, s.mods);
      break;
    case Phase::kKeyUp:
      ImGui_ImplGlfw_KeyCallback(window_, s.key, 0, GLFW_RELEASE, s.mods);
      for (const auto& m : kModKeys)
        if (s.mods & m.bit) ImGui_ImplGlfw_KeyCallback(window_, m.key, 0, GLFW_RELEASE, 0);
      break;
    case Phase::kLeave: {
      // Below the window (the test display is taller than the window), so nothing shows a hover.
      int w = 0, h = 0;
      glfwGetWindowSize(window_, &w, &h);
      glfwSetCursorPos(window_, w / 2.0, h + 100.0);
      ImGui_ImplGlfw_CursorEnterCallback(window_, GLFW_FALSE);
      break;
    }
    case Phase::kSettle:
      break;
    case Phase::kTab:
      tab_ = s.path;
      break;
    case Phase::kScreenshot:
      screenshot_ = s.path;
      break;
  }
}

void ScriptRunner::after_frame() {
  if (!check_pointer_ || finished_) return;
  check_pointer_ = false;
  const ImVec2 seen = ImGui::GetIO().MousePos;
  if (std::fabs(seen.x - pointer_x_) > 0.01f || std::fabs(seen.y - pointer_y_) > 0.01f) {
    char buf[200];
    std::snprintf(buf, sizeof buf, "the pointer was put at window (%g, %g) but ImGui saw it at (%g, %g)",
                  pointer_x_, pointer_y_, seen.x, seen.y);
    fail(buf, 2);
  }
}

}  // namespace ds::gui
