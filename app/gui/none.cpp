// The window entry points in builds without the GUI (no GLFW/GL/ImGui at configure time).
#include "app/cli/commands.h"
#include "gl_probe.h"

#include <iostream>

namespace ds::app {

int cmd_gui(const ArgList&) {
  std::cerr << "deepscope: this build has no window (configured without GLFW/OpenGL/Dear ImGui).\n"
               "Run headless instead, e.g.: deepscope render --out view.png   (see deepscope --help)\n";
  return 2;
}

std::string gl_renderer_description() { return "none (built without the GUI)"; }

}  // namespace ds::app
