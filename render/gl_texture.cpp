// OpenGL texture upload and framebuffer readback.
#include "gl_texture.h"

#include <glad/gl.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ds::render {

Texture2D::~Texture2D() {
  if (id_) glDeleteTextures(1, &id_);
}

void Texture2D::upload_rgba(const uint8_t* pixels, int w, int h) {
  if (!id_) {
    glGenTextures(1, &id_);
    glBindTexture(GL_TEXTURE_2D, id_);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  }
  glBindTexture(GL_TEXTURE_2D, id_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  if (w != w_ || h != h_) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    w_ = w;
    h_ = h;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  }
  check_gl("texture upload");
}

std::vector<uint8_t> Texture2D::read_rgba() const {
  std::vector<uint8_t> out(static_cast<size_t>(w_) * h_ * 4);
  if (!id_) return out;
  glBindTexture(GL_TEXTURE_2D, id_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, out.data());
  check_gl("glGetTexImage");
  return out;
}

void read_framebuffer_rgba(int w, int h, uint8_t* out) {
  std::vector<uint8_t> tmp(static_cast<size_t>(w) * h * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, tmp.data());
  check_gl("glReadPixels");
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y) std::memcpy(out + y * row, tmp.data() + (h - 1 - y) * row, row);
}

void check_gl(const char* where) {
#ifndef NDEBUG
  GLenum err = glGetError();
  if (err != GL_NO_ERROR) throw std::runtime_error(std::string("OpenGL error ") + std::to_string(err) + " at " + where);
#else
  (void)where;
#endif
}

}  // namespace ds::render
