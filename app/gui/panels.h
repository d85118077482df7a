// The window's workspaces: one panel per workspace, each drawing itself inside its tab.
#pragma once
#include <memory>
#include <string>

namespace ds::gui {

class Panel {
 public:
  virtual ~Panel() = default;
  virtual const char* title() const = 0;
  // Draws the panel's contents into the current ImGui window (called every frame while visible).
  virtual void draw() = 0;
  // True while background work that changes what the panel shows is still running.
  virtual bool busy() const { return false; }
  // A file dropped on the window; returns true when this panel took it.
  virtual bool open_file(const std::string&) { return false; }
};

std::unique_ptr<Panel> make_mandelbrot_panel();
std::unique_ptr<Panel> make_henon_panel();
std::unique_ptr<Panel> make_tmd_panel();
std::unique_ptr<Panel> make_drift_panel();

}  // namespace ds::gui
