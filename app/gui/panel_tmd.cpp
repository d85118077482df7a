// The TMD workspace's tab. Its engine is not built yet (issue 7); the tab says so plainly
// rather than showing controls that would do nothing.
#include <imgui.h>

#include "panels.h"

namespace ds::gui {
namespace {

class TmdPanel final : public Panel {
 public:
  const char* title() const override { return "TMD"; }
  void draw() override {
    ImGui::TextWrapped("%s", "Table Maker's Dilemma: searches for hard-to-round cases of exp, exp2, log, log2, sin and cos (exhaustive for binary32, Lefevre's and the regular algorithm for binary64), every case confirmed with MPFR, with warp-divergence (NMDM) histograms.");
    ImGui::Spacing();
    ImGui::TextDisabled("%s", "Not available in this build: the TMD engine has not landed yet.");
  }
};

}  // namespace

std::unique_ptr<Panel> make_tmd_panel() { return std::make_unique<TmdPanel>(); }

}  // namespace ds::gui
