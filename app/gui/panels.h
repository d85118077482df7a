// The window's workspaces: one panel per workspace, each drawing itself inside its tab.
#pragma once
#include <memory>
#include <string>

namespace ds::gui {

// The most samples a pixel the window's antialiasing takes: N x N up to this N (64 renders a view).
constexpr int kMaxWindowAa = 8;

// Where a panel's image lies in the window: its rectangle in ImGui (window) coordinates and its
// size in image pixels (framebuffer pixels, so larger than the rectangle on HiDPI displays).
struct ImageRect {
  float x = 0, y = 0, w = 0, h = 0;
  int pixels_w = 0, pixels_h = 0;
};

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
  // Hooks for scripted sessions (script.h). The image drawn last frame, if the panel has one.
  virtual bool image_rect(ImageRect*) const { return false; }
  // Shows one of the panel's views ("plane" in the Hénon tab) from the next frame; false if it has none.
  virtual bool open_view(const std::string&) { return false; }
  // Sets the path its screenshot (F12) goes to, as typing it would; false if it has none.
  virtual bool set_screenshot_path(const std::string&) { return false; }
  // Chooses the colouring shader (a built-in or a .glsl file) or the palette (a built-in or a .kfp),
  // as the panel's controls would; false if it has none. A shader that does not compile is shown
  // as the controls show it, not refused here.
  virtual bool set_shader(const std::string&) { return false; }
  virtual bool set_palette(const std::string&) { return false; }
  // Opens the "shader" or "palette" file picker, as its Browse button would (scripts).
  virtual bool open_picker(const std::string&) { return false; }
  // Sets the antialiasing to N x N samples a pixel (1: off, up to kMaxWindowAa), as the panel's
  // control would; false if it has none. busy() stays true until the refinement is finished.
  virtual bool set_antialias(int) { return false; }
  // Presses Verify with N samples, as its control and button would (scripts); false where the
  // panel has none or its frame is not finished. busy() stays true until the check ends.
  virtual bool start_verify_with(int) { return false; }
  // Sets the named controls (space-separated NAME=VALUE words, docs/window.md) and starts the
  // panel's computation, as its Run button would (scripts). False if it has none (`error` empty)
  // or if a setting is not accepted (`error` names it).
  virtual bool run_with(const std::string&, std::string* /*error*/) { return false; }
  // The layout of the panel's widgets drawn last frame that a script's `layout` command prints
  // (lines of text, window pixels), or "" where it reports none.
  virtual std::string layout_report() const { return ""; }
};

std::unique_ptr<Panel> make_mandelbrot_panel();
std::unique_ptr<Panel> make_henon_panel();
std::unique_ptr<Panel> make_tmd_panel();
std::unique_ptr<Panel> make_drift_panel();

}  // namespace ds::gui
