// A file picker for the window (Debian's Dear ImGui has no file dialog): a "Browse" button that
// opens a popup of a folder's sub-folders and its files with the wanted endings (app/io/dir_listing.h);
// a folder opens it, a file is picked.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ds::gui {

struct FilePicker {
  std::string dir;  // the folder shown ("" until first opened: the folder of the path, or the working one)
  bool open_requested = false;  // opens at the next draw, as a click on the button would (scripts)
  // Draws the button (ImGui label `label`) and, while open, the popup. True in the frame a file is
  // picked, with its path in `path` (a char buffer of `size` bytes, as the InputText beside it).
  bool draw(const char* label, const std::vector<std::string>& endings, char* path, std::size_t size);
};

}  // namespace ds::gui
