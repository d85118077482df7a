// `deepscope info`'s GL line: the renderer of a hidden 3.3 core context on the current display.
#include <glad/gl.h>
// glad first
#include <GLFW/glfw3.h>

#include <cstdlib>
#include <string>

#include "gl_probe.h"

namespace ds::app {

std::string gl_renderer_description() {
  const char* d = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  if (!((d && *d) || (w && *w))) return "no display";
  glfwSetErrorCallback(nullptr);
  if (!glfwInit()) return "no display (GLFW could not initialise)";
  glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* win = glfwCreateWindow(64, 64, "probe", nullptr, nullptr);
  std::string out = "no OpenGL 3.3 core context on this display";
  if (win) {
    glfwMakeContextCurrent(win);
    if (gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
      out = std::string(reinterpret_cast<const char*>(glGetString(GL_RENDERER))) + ", OpenGL " +
            reinterpret_cast<const char*>(glGetString(GL_VERSION));
    }
    glfwDestroyWindow(win);
  }
  glfwTerminate();
  return out;
}

}  // namespace ds::app
