// Colouring as GLSL fragment shaders (shaders/*.glsl, embedded at build time): a colouring shader
// defines `vec3 colour()` over the frame's per-pixel data (shaders/prelude.glsl lists what it may
// call), and ColourShader runs it over a frame in whatever OpenGL 3.3 context is current: the
// window's, or a headless EGL one (render/headless_gl.h; Mesa's llvmpipe where there is no GPU).
// Built in: "palette" (kernels/colour's colour_pixel, channel for channel). A user's file goes
// through the same code, and its compiler errors name the lines of that file.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/colour/palette.h"

namespace ds::render {

// A colouring shader that does not compile or link (the message holds the compiler's log, whose
// line numbers are the shader file's own), an unknown built-in name, or a frame the GL cannot hold.
struct ShaderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The built-in colouring shaders' names ("palette", ...), and a built-in's source. Throws
// ShaderError listing the names for an unknown one.
const std::vector<std::string>& builtin_shader_names();
std::string builtin_shader_source(const std::string& name);
// A colouring shader's source from a built-in name or, for anything with a '/' or a ".glsl" ending,
// from that file. Throws ShaderError naming a missing or unreadable file.
std::string shader_source(const std::string& name_or_file);

class ColourShader {
 public:
  // Compiles and links `source` (a colouring shader: it defines vec3 colour()) between the prelude
  // and main(), in the current GL context. `origin` names it in messages ("palette", a path).
  // Throws ShaderError with the compiler's or linker's log.
  ColourShader(const std::string& source, const std::string& origin);
  ~ColourShader();
  ColourShader(const ColourShader&) = delete;
  ColourShader& operator=(const ColourShader&) = delete;

  // Colours a w x h frame (counts and smooth counts row-major, row 0 at the top) into `rgb`
  // (3 bytes a pixel, rows top to bottom), drawing into an offscreen framebuffer. Throws
  // ShaderError when the frame is larger than the GL's textures allow.
  void colour(int w, int h, const uint32_t* counts, const float* smooth, const colour::Colouring& c,
              std::vector<uint8_t>* rgb);

 private:
  unsigned program_ = 0, vao_ = 0;
  std::string origin_;
};

}  // namespace ds::render
