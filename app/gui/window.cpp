// The explorer window: GLFW + GLAD + Dear ImGui, one tab per workspace, the --frames/--screenshot
// mode, and --script sessions (script.h) that the GUI tests use.
#include <glad/gl.h>
// glad first: GLFW must not include the system GL header.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "kernels/core/atomic_file.h"
#include "app/cli/cli.h"
#include "app/io/location.h"
#include "app/cli/commands.h"
#include "panels.h"
#include "script.h"
#include "render/gl_texture.h"

namespace ds::app {
namespace {

void glfw_error(int code, const char* what) { std::cerr << "GLFW error " << code << ": " << what << "\n"; }

// Paths dropped on the window since the last frame (GLFW calls back from glfwPollEvents).
std::vector<std::string> g_dropped;
void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int k = 0; k < count; ++k) g_dropped.emplace_back(paths[k]);
}

bool display_present() {
  const char* d = std::getenv("DISPLAY");
  const char* w = std::getenv("WAYLAND_DISPLAY");
  return (d && *d) || (w && *w);
}

int no_display() {
  std::cerr << "deepscope: no display found (DISPLAY/WAYLAND_DISPLAY unset or unusable), so the window cannot open.\n"
               "Run headless instead:  deepscope render --out view.png   (deepscope --help lists every command)\n";
  return 2;
}

void write_png_rgba(const std::string& path, int w, int h, const std::vector<uint8_t>& rgba) {
  std::string png;
  stbi_write_png_to_func(
      [](void* ctx, void* data, int size) { static_cast<std::string*>(ctx)->append(static_cast<char*>(data), size); },
      &png, w, h, 4, rgba.data(), w * 4);
  if (png.empty()) throw IoError("PNG encoding failed for " + path);
  write_file_atomically(path, png);
}

// Saves the current framebuffer (the frame just drawn, before the swap) to a PNG; false on failure.
bool save_window(const std::string& path, int fb_w, int fb_h) {
  std::vector<uint8_t> rgba(static_cast<size_t>(fb_w) * fb_h * 4);
  render::read_framebuffer_rgba(fb_w, fb_h, rgba.data());
  try {
    write_png_rgba(path, fb_w, fb_h, rgba);
    std::cerr << "screenshot written: " << path << " (" << fb_w << "x" << fb_h << ")\n";
    return true;
  } catch (const IoError& e) {
    std::cerr << "deepscope: " << e.what() << "\n";
    return false;
  }
}

}  // namespace

int cmd_gui(const ArgList& args) {
  cli::Args a(args, {"frames", "screenshot", "size", "location", "open", "tab", "script", "ui-scale"}, {});
  // --tab: the workspace shown first (its panel's index below).
  const std::string tab = a.get("tab", "mandelbrot");
  int first_tab = -1;
  for (int i = 0; i < 4; ++i)
    if (tab == gui::kTabNames[i]) first_tab = i;
  if (first_tab < 0) throw cli::UsageError("--tab must be mandelbrot, henon, tmd or drift, got \"" + tab + "\"");
  if (!a.positional().empty()) throw cli::UsageError("unexpected argument \"" + a.positional()[0] + "\"");
  const int64_t frames = a.get_int("frames", 0, 1, 1000000);
  const std::string shot = a.get("screenshot", "");
  int win_w = 1280, win_h = 800;
  if (a.has("size")) cli::parse_size(a.get("size", ""), 16384, &win_w, &win_h);
  if (!shot.empty()) check_writable(shot);
  const std::string location = a.get("location", "");
  if (!location.empty()) read_location_file(location);  // a bad file is bad input: exit 2 before any window
  // --open FILE: as if FILE were dropped on the window (a location, a deepscope PNG, a Hénon scan
  // CSV); a file no workspace takes is bad input.
  const std::string open = a.get("open", "");
  if (!open.empty() && access(open.c_str(), R_OK) != 0)
    throw cli::UsageError("--open: cannot read \"" + open + "\"");
  // --script FILE: a scripted session (docs/window.md); a bad script is bad input, before any window.
  std::vector<gui::ScriptStep> script_steps;
  if (a.has("script")) {
    if (a.has("frames") || a.has("screenshot"))
      throw cli::UsageError(
          "--script runs until its quit command: use its screenshot command, not --frames/--screenshot");
    script_steps = gui::read_script(a.get("script", ""));
    for (const gui::ScriptStep& st : script_steps)
      if (st.op == gui::ScriptStep::Op::kPng || st.op == gui::ScriptStep::Op::kScreenshot) try {
          check_writable(st.path);
        } catch (const IoError& e) {
          throw cli::UsageError(a.get("script", "") + ":" + std::to_string(st.line) + ": " + e.what());
        }
  }
  // --ui-scale S: the UI scale a HiDPI monitor's content scale would give (fonts, spacing).
  const double ui_scale = a.get_double("ui-scale", 0.0);
  if (a.has("ui-scale") && !(ui_scale >= 0.5 && ui_scale <= 4.0))
    throw cli::UsageError("--ui-scale must be in [0.5, 4], got " + a.get("ui-scale", ""));
  if (!display_present()) return no_display();

  glfwSetErrorCallback(glfw_error);
  if (!glfwInit()) return no_display();
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
#ifndef NDEBUG
  glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, GLFW_TRUE);
#endif
  GLFWwindow* window = glfwCreateWindow(win_w, win_h, "deepscope", nullptr, nullptr);
  if (!window) {
    glfwTerminate();
    std::cerr << "deepscope: could not create an OpenGL 3.3 core window on this display.\n";
    return no_display();
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  glfwSetDropCallback(window, on_drop);
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(glfwGetProcAddress))) {
    glfwDestroyWindow(window);
    glfwTerminate();
    throw std::runtime_error("could not load OpenGL 3.3 functions");
  }

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // layout is fixed; nothing to persist
  float xscale = 1.0f, yscale = 1.0f;
  glfwGetWindowContentScale(window, &xscale, &yscale);
  if (ui_scale > 0) xscale = static_cast<float>(ui_scale);
  ImGui::StyleColorsDark();
  if (xscale > 1.0f || ui_scale > 0) {
    ImGui::GetStyle().ScaleAllSizes(xscale);
    io.FontGlobalScale = xscale;
  }
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  int result = 0;
  {
    std::vector<std::unique_ptr<gui::Panel>> panels;
    panels.push_back(gui::make_mandelbrot_panel());
    panels.push_back(gui::make_henon_panel());
    panels.push_back(gui::make_tmd_panel());
    panels.push_back(gui::make_drift_panel());
    if (!location.empty()) panels[0]->open_file(location);
    if (!open.empty()) g_dropped.push_back(open);
    // The tab to open next frame: --tab's at first, later a panel that took a dropped file.
    gui::Panel* select = panels[static_cast<std::size_t>(first_tab)].get();

    std::unique_ptr<gui::ScriptRunner> script;
    if (!script_steps.empty()) script = std::make_unique<gui::ScriptRunner>(std::move(script_steps), window);
    gui::Panel* shown = nullptr;  // the panel whose tab is open this frame

    int64_t frame = 0;
    const auto started = std::chrono::steady_clock::now();
    while (!glfwWindowShouldClose(window)) {
      glfwPollEvents();
      if (script) {
        script->before_frame(shown);
        if (script->finished()) {
          result = script->exit_code();
          break;
        }
        const std::string t = script->take_tab();
        for (int i = 0; i < 4; ++i)
          if (t == gui::kTabNames[i]) select = panels[static_cast<std::size_t>(i)].get();
        if (t == "henon-plane")
          for (int i = 0; i < 4; ++i)
            if (std::string(gui::kTabNames[i]) == "henon") {
              select = panels[static_cast<std::size_t>(i)].get();
              select->open_view("plane");
            }
      }
      for (const std::string& path : g_dropped) {
        // The Mandelbrot panel takes any other file (and reports a malformed location in its
        // UI), so it is asked last.
        gui::Panel* taker = nullptr;
        for (auto it = panels.rbegin(); it != panels.rend() && !taker; ++it)
          if ((*it)->open_file(path)) taker = it->get();
        if (taker) {
          select = taker;
        } else {
          std::cerr << "deepscope: no workspace opens \"" << path << "\" (locations, deepscope PNGs, Hénon scan CSVs)\n";
          if (path == open) {
            result = 2;
            glfwSetWindowShouldClose(window, GLFW_TRUE);
          }
        }
      }
      g_dropped.clear();
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();

      const ImGuiViewport* vp = ImGui::GetMainViewport();
      ImGui::SetNextWindowPos(vp->WorkPos);
      ImGui::SetNextWindowSize(vp->WorkSize);
      ImGui::Begin("deepscope", nullptr,
                   ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                       ImGuiWindowFlags_NoBringToFrontOnFocus);
      shown = nullptr;
      if (ImGui::BeginTabBar("workspaces")) {
        for (auto& p : panels) {
          if (ImGui::BeginTabItem(p->title(), nullptr, p.get() == select ? ImGuiTabItemFlags_SetSelected : 0)) {
            shown = p.get();
            p->draw();
            ImGui::EndTabItem();
          }
        }
        ImGui::EndTabBar();
        select = nullptr;
      }
      ImGui::End();

      ImGui::Render();
      int fb_w, fb_h;
      glfwGetFramebufferSize(window, &fb_w, &fb_h);
      glViewport(0, 0, fb_w, fb_h);
      glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      render::check_gl("frame");
      if (script) {
        script->after_frame();
        const std::string path = script->take_screenshot();
        if (!path.empty() && !save_window(path, fb_w, fb_h)) {
          result = 2;
          break;
        }
      }

      ++frame;
      if (frames > 0 && frame >= frames) {
        // Only the open tab matters: hidden panels do no work until they are shown.
        const bool busy = shown && shown->busy();
        double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        if (busy && waited < 120.0) {
          // Scripted runs wait for the first image, so the screenshot shows what a user would see.
          glfwSwapBuffers(window);
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
          continue;
        }
        if (busy) {
          std::cerr << "deepscope: the " << shown->title()
                    << " view was still rendering after 120 s; the frame is saved as it is\n";
          result = 1;
        }
        if (!shot.empty() && !save_window(shot, fb_w, fb_h)) result = 2;
        glfwSwapBuffers(window);
        break;
      }
      glfwSwapBuffers(window);
    }
  }

  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return result;
}

}  // namespace ds::app
