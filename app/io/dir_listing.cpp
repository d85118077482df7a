// list_dir: std::filesystem, errors as text (a picker shows them instead of closing).
#include "dir_listing.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace ds::app {
namespace {

bool ends_with_nocase(const std::string& s, const std::string& e) {
  if (s.size() < e.size()) return false;
  for (std::size_t k = 0; k < e.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - e.size() + k])) !=
        std::tolower(static_cast<unsigned char>(e[k])))
      return false;
  return true;
}

}  // namespace

DirListing list_dir(const std::string& dir, const std::vector<std::string>& endings) {
  namespace fs = std::filesystem;
  DirListing out;
  std::error_code ec;
  fs::path p = dir.empty() ? fs::current_path(ec) : fs::path(dir);
  if (!ec) p = fs::weakly_canonical(fs::absolute(p, ec), ec);
  out.dir = p.string();
  if (ec) {
    out.error = "cannot resolve \"" + dir + "\": " + ec.message();
    return out;
  }
  fs::directory_iterator it(p, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    out.error = "cannot read " + out.dir + ": " + ec.message();
    return out;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      out.error = "cannot read all of " + out.dir + ": " + ec.message();
      break;
    }
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    if (it->is_directory(e2)) {
      out.folders.push_back(name);
    } else if (endings.empty() ||
               std::any_of(endings.begin(), endings.end(), [&](const std::string& e) { return ends_with_nocase(name, e); })) {
      out.files.push_back(name);
    }
  }
  std::sort(out.folders.begin(), out.folders.end());
  std::sort(out.files.begin(), out.files.end());
  if (p.has_parent_path() && p != p.root_path()) out.folders.insert(out.folders.begin(), "..");
  return out;
}

}  // namespace ds::app
