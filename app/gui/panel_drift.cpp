// The MD drift workspace's tab. Its engine is not built yet (issue 8); the tab says so plainly
// rather than showing controls that would do nothing.
#include <imgui.h>

#include "panels.h"

namespace ds::gui {
namespace {

class DriftPanel final : public Panel {
 public:
  const char* title() const override { return "MD drift"; }
  void draw() override {
    ImGui::TextWrapped("%s", "Energy drift: global summation and do/undo suites, and Lennard-Jones NVE molecular dynamics in float, double, composite, float-float and mixed precision, with live energy plots and fitted drift slopes.");
    ImGui::Spacing();
    ImGui::TextDisabled("%s", "Not available in this build: the MD drift engine has not landed yet.");
  }
};

}  // namespace

std::unique_ptr<Panel> make_drift_panel() { return std::make_unique<DriftPanel>(); }

}  // namespace ds::gui
