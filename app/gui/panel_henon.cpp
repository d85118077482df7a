// The Hénon workspace's tab. Its engine is not built yet (issue 6); the tab says so plainly
// rather than showing controls that would do nothing.
#include <imgui.h>

#include "panels.h"

namespace ds::gui {
namespace {

class HenonPanel final : public Panel {
 public:
  const char* title() const override { return "Hénon"; }
  void draw() override {
    ImGui::TextWrapped("%s", "Hénon map h(x, y) = (1 + y - a x^2, b x): live orbit plots with sliders for a, b and the start point, period detection with the Jacobian eigenvalues of the cycle, and GPU sink searches over parameter grids.");
    ImGui::Spacing();
    ImGui::TextDisabled("%s", "Not available in this build: the Hénon engine has not landed yet.");
  }
};

}  // namespace

std::unique_ptr<Panel> make_henon_panel() { return std::make_unique<HenonPanel>(); }

}  // namespace ds::gui
