// FilePicker: list_dir in an ImGui popup.
#include "file_picker.h"

#include <imgui.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "app/io/dir_listing.h"

namespace ds::gui {

bool FilePicker::draw(const char* label, const std::vector<std::string>& endings, char* path, std::size_t size) {
  const std::string popup = std::string(label) + "##picker";
  if (ImGui::Button(label) || open_requested) {
    open_requested = false;
    if (dir.empty()) dir = std::filesystem::path(path).parent_path().string();
    ImGui::OpenPopup(popup.c_str());
  }
  bool picked = false;
  if (ImGui::BeginPopup(popup.c_str())) {
    const app::DirListing l = app::list_dir(dir, endings);
    ImGui::TextUnformatted(l.dir.c_str());
    if (!l.error.empty()) ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", l.error.c_str());
    ImGui::Separator();
    ImGui::BeginChild("entries", ImVec2(ImGui::GetFontSize() * 28, ImGui::GetFontSize() * 18));
    std::string next_dir;
    for (const std::string& f : l.folders)
      if (ImGui::Selectable((f + "/").c_str())) next_dir = (std::filesystem::path(l.dir) / f).lexically_normal().string();
    for (const std::string& f : l.files)
      if (ImGui::Selectable(f.c_str())) {
        const std::string full = (std::filesystem::path(l.dir) / f).string();
        std::snprintf(path, size, "%s", full.c_str());
        picked = std::strlen(path) == full.size();  // a path longer than the field is not picked
        ImGui::CloseCurrentPopup();
      }
    if (l.folders.empty() && l.files.empty()) ImGui::TextDisabled("(no folders or matching files here)");
    ImGui::EndChild();
    if (!next_dir.empty()) dir = next_dir;
    ImGui::EndPopup();
  }
  return picked;
}

}  // namespace ds::gui
