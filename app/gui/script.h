// Scripted window sessions (`deepscope --script FILE`): a line format of input events and waits,
// parsed before the window opens, and a runner that injects the events frame by frame through the
// handlers the GLFW callbacks call (Dear ImGui's GLFW backend). Format: docs/window.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

struct GLFWwindow;

namespace ds::gui {

class Panel;

// The workspaces' names for --tab and the script's `tab` command, in tab order.
extern const char* const kTabNames[4];

struct ScriptStep {
  enum class Op {
    kWait,
    kWaitIdle,
    kSleep,
    kMove,
    kClick,
    kScroll,
    kKey,
    kPng,
    kScreenshot,
    kTab,
    kShader,
    kPalette,
    kAa,
    kVerify,
    kBrowse,
    kRun,
    kLeave,
    kLayout,
    kQuit
  };
  Op op = Op::kWait;
  int line = 0;         // 1-based line of the script
  std::string text;     // the line as written, for messages
  double x = 0, y = 0;  // move, click, scroll: image coordinates (docs/window.md)
  double amount = 0;    // wait: frames; wait-idle: timeout in seconds; sleep: seconds; scroll: wheel
                        // steps; aa: N (N x N samples a pixel); verify: N samples
  int button = 0;       // click: 0 left, 1 right, 2 middle (GLFW_MOUSE_BUTTON_*)
  int key = 0;          // key: GLFW key code
  int mods = 0;         // key: GLFW_MOD_* bits (ctrl, shift, alt, super)
  std::string path;     // png, screenshot: file; tab: workspace name; shader, palette: name or file;
                        // run: the NAME=VALUE settings
};

// Parses a script. Throws cli::UsageError "SOURCE:LINE: what is wrong: \"the line\"".
std::vector<ScriptStep> parse_script(const std::string& text, const std::string& source);
// Reads and parses a script file; an unreadable file is a cli::UsageError too.
std::vector<ScriptStep> read_script(const std::string& path);

// Runs parsed steps in the window's frame loop. One call of before_frame per frame, after
// glfwPollEvents and before ImGui's NewFrame; after_frame once the frame is drawn (before the
// swap). Each step takes one or more frames (docs/window.md lists how many).
class ScriptRunner {
 public:
  ScriptRunner(std::vector<ScriptStep> steps, GLFWwindow* window);
  // `shown`: the panel whose tab was drawn in the previous frame (null before the first frame).
  void before_frame(Panel* shown);
  void after_frame();
  // A workspace name to open next frame, or ""; cleared when read.
  std::string take_tab();
  // A path to save the window's framebuffer to after this frame, or ""; cleared when read.
  std::string take_screenshot();
  // True once `quit` ran or a step failed; the window then closes with exit_code().
  bool finished() const { return finished_; }
  // 0 after `quit`; 1 when wait-idle timed out; 2 when a step could not run (message on stderr).
  int exit_code() const { return exit_code_; }

 private:
  enum class Phase { kMove, kLeave, kButton, kWheel, kKeyDown, kKeyUp, kSettle, kTab, kScreenshot };
  void start(const ScriptStep& s, Panel* shown);
  void run(Phase p, Panel* shown);
  bool place_pointer(Panel* shown);
  void fail(const std::string& why, int code);

  std::vector<ScriptStep> steps_;
  GLFWwindow* window_;
  size_t next_ = 0;
  const ScriptStep* current_ = nullptr;
  std::vector<Phase> phases_;  // the current step's per-frame actions, one per before_frame
  size_t phase_ = 0;
  int64_t wait_frames_ = 0;
  double idle_deadline_ = 0;
  bool check_pointer_ = false;  // after_frame checks that ImGui saw the pointer where it was put
  float pointer_x_ = 0, pointer_y_ = 0;
  std::string tab_, screenshot_;
  bool finished_ = false;
  int exit_code_ = 0;
};

}  // namespace ds::gui
