// What a file picker shows of a folder (the window's shader and palette pickers,
// app/gui/file_picker.h): its sub-folders and the files with the wanted endings.
#pragma once
#include <string>
#include <vector>

namespace ds::app {

struct DirListing {
  std::string dir;                   // the folder, absolute and without "." or ".." parts
  std::vector<std::string> folders;  // names, ".." first (but at the root), then by name; hidden ones left out
  std::vector<std::string> files;    // names ending in one of the endings (case-insensitive), by name
  std::string error;                 // why the folder could not be read ("" when it could)
};

// Lists `dir` ("" is the working folder). `endings` such as {".glsl"}; empty: every file.
DirListing list_dir(const std::string& dir, const std::vector<std::string>& endings);

}  // namespace ds::app
