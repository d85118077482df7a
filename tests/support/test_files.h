// Files for tests: a fresh temporary directory, a file's whole contents, and the paths of the
// repository's data files and of the shared folder beside it.
#pragma once
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace ds::test {

// The program beside a test binary: build/tests/X -> build/app/deepscope ("" where /proc/self/exe
// cannot be read).
inline std::string sibling_executable() {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = 0;
  const std::string dir(self);
  return dir.substr(0, dir.find_last_of('/')) + "/../app/deepscope";
}

// A new directory /tmp/deepscope-NAME-XXXXXX.
inline std::string make_tmpdir(const std::string& name) {
  std::string tmpl = "/tmp/deepscope-" + name + "-XXXXXX";
  return mkdtemp(&tmpl[0]);
}

// The bytes of `path` ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

#ifdef DEEPSCOPE_SOURCE_DIR
// A path in the repository, from its root ("tests/data/locations").
inline std::string source_path(const std::string& rel) { return std::string(DEEPSCOPE_SOURCE_DIR) + "/" + rel; }
// Location files made by other programs (../shared/locations beside the repository's root).
inline std::string shared_locations_dir() { return source_path("../shared/locations"); }
#endif

}  // namespace ds::test
