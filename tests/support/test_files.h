// Files for tests that run commands: a fresh temporary directory and a file's whole contents.
#pragma once
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>

namespace ds::test {

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

}  // namespace ds::test
