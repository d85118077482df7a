// What the window's scripted-session tests (tests/app/gui, under with_xvfb.sh) share: running a
// command, reading a PNG's RGB, writing a small text file (a script, a shader, a location).
#pragma once
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ds::test {

// The exit status of a shell command (-1 when it did not exit normally).
inline int run(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

struct Png {
  int w = 0, h = 0;
  std::vector<unsigned char> rgb;  // 3 bytes a pixel, rows top to bottom; empty when unreadable
  const unsigned char* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * w + x) * 3]; }
};

inline Png load(const std::string& path) {
  Png p;
  int comp = 0;
  unsigned char* px = stbi_load(path.c_str(), &p.w, &p.h, &comp, 3);
  if (px) p.rgb.assign(px, px + static_cast<size_t>(p.w) * p.h * 3);
  stbi_image_free(px);
  return p;
}

// Writes `text` to `path` (a failed open fails the test).
inline void write(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr) << path;
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

}  // namespace ds::test
