// An RGBA8 OpenGL texture that the window shows and the CPU backend uploads into.
#pragma once
#include <cstdint>
#include <vector>

namespace ds::render {

class Texture2D {
 public:
  Texture2D() = default;
  ~Texture2D();
  Texture2D(const Texture2D&) = delete;
  Texture2D& operator=(const Texture2D&) = delete;

  // (Re)allocates when the size changes, then uploads w*h RGBA8 pixels, row 0 at the top. With a
  // GL_PIXEL_UNPACK_BUFFER bound, `pixels` is an offset into that buffer (interop passes nullptr).
  void upload_rgba(const uint8_t* pixels, int w, int h);
  // The texture's pixels as RGBA8, row 0 at the top (tests, benchmarks).
  std::vector<uint8_t> read_rgba() const;
  unsigned id() const { return id_; }
  int width() const { return w_; }
  int height() const { return h_; }

 private:
  unsigned id_ = 0;
  int w_ = 0, h_ = 0;
};

// Reads the default framebuffer's w*h pixels as RGBA8, row 0 at the top.
void read_framebuffer_rgba(int w, int h, uint8_t* out);

// Checks glGetError in debug builds; throws std::runtime_error naming `where`.
void check_gl(const char* where);

}  // namespace ds::render
