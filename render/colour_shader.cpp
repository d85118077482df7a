// GLSL colouring (see colour_shader.h): the prelude, the colouring shader and main() compiled as one
// fragment shader, a full-frame triangle, the frame's counts and smooth counts as textures, and
// the result read back from an offscreen framebuffer.
#include "colour_shader.h"

#include <glad/gl.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "render/shader_sources.h"

namespace ds::render {
namespace {

std::string embedded(const char* name) {
  for (const EmbeddedShader& s : kShaderSources)
    if (name == std::string(s.name)) return s.source;
  throw ShaderError(std::string("no embedded shader \"") + name + "\" (a build problem)");
}

// The vertex stage: one triangle covering the frame, from gl_VertexID alone.
const char* kVertex = R"(#version 330 core
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
)";

std::string log_of(unsigned object, bool program) {
  int n = 0;
  if (program)
    glGetProgramiv(object, GL_INFO_LOG_LENGTH, &n);
  else
    glGetShaderiv(object, GL_INFO_LOG_LENGTH, &n);
  std::string s(static_cast<std::size_t>(n > 0 ? n : 1), '\0');
  if (program)
    glGetProgramInfoLog(object, n, nullptr, &s[0]);
  else
    glGetShaderInfoLog(object, n, nullptr, &s[0]);
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

unsigned compile(GLenum stage, const std::vector<std::string>& parts, const std::string& origin) {
  const unsigned sh = glCreateShader(stage);
  std::vector<const char*> p;
  for (const std::string& s : parts) p.push_back(s.c_str());
  glShaderSource(sh, static_cast<GLsizei>(p.size()), p.data(), nullptr);
  glCompileShader(sh);
  int ok = 0;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string log = log_of(sh, false);
    glDeleteShader(sh);
    throw ShaderError("colouring shader " + origin + " does not compile (line numbers \"1:N\" or \"1(N)\" are the file's):\n" + log);
  }
  return sh;
}

struct Texture {
  unsigned id = 0;
  Texture() { glGenTextures(1, &id); }
  ~Texture() { glDeleteTextures(1, &id); }
};

}  // namespace

const std::vector<std::string>& builtin_shader_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const EmbeddedShader& s : kShaderSources) {
      const std::string name = s.name;
      if (name != "prelude" && name != "main") n.push_back(name);
    }
    return n;
  }();
  return names;
}

std::string builtin_shader_source(const std::string& name) {
  for (const std::string& n : builtin_shader_names())
    if (n == name) return embedded(name.c_str());
  std::string valid;
  for (const std::string& n : builtin_shader_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw ShaderError("unknown colouring shader \"" + name + "\"; built in: " + valid +
                    " (or a file: a path with '/' or ending in .glsl)");
}

std::string shader_source(const std::string& name_or_file) {
  const bool file = name_or_file.find('/') != std::string::npos ||
                    (name_or_file.size() > 5 && name_or_file.compare(name_or_file.size() - 5, 5, ".glsl") == 0);
  if (!file) return builtin_shader_source(name_or_file);
  std::ifstream in(name_or_file, std::ios::binary);
  if (!in) throw ShaderError("cannot read colouring shader \"" + name_or_file + "\"");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ColourShader::ColourShader(const std::string& source, const std::string& origin) : origin_(origin) {
  const std::string prelude = embedded("prelude"), main = embedded("main");
  // "#line 1 1": the colouring shader is source string 1 from its line 1, so the compiler's
  // messages about it carry the file's own line numbers; main() is string 2.
  const unsigned vs = compile(GL_VERTEX_SHADER, {kVertex}, "(vertex stage)");
  unsigned fs = 0;
  try {
    fs = compile(GL_FRAGMENT_SHADER, {prelude, "\n#line 1 1\n", source, "\n#line 1 2\n", main}, origin);
  } catch (...) {
    glDeleteShader(vs);
    throw;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  int ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = log_of(program_, true);
    glDeleteProgram(program_);
    program_ = 0;
    throw ShaderError("colouring shader " + origin + " does not link:\n" + log);
  }
  glGenVertexArrays(1, &vao_);
}

ColourShader::~ColourShader() {
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

void ColourShader::colour(int w, int h, const uint32_t* counts, const float* smooth, const colour::Colouring& c,
                          std::vector<uint8_t>* rgb) {
  int max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  if (w < 1 || h < 1 || w > max_size || h > max_size)
    throw ShaderError("a " + std::to_string(w) + " x " + std::to_string(h) + " frame: this GL's textures hold at most " +
                      std::to_string(max_size) + " pixels a side");
  GLint old_fb = 0, old_viewport[4] = {0, 0, 0, 0};
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &old_fb);
  glGetIntegerv(GL_VIEWPORT, old_viewport);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  Texture tc, ts, out;
  auto data_texture = [&](const Texture& t, GLenum unit, GLint internal, GLenum format, GLenum type, const void* p) {
    glActiveTexture(unit);
    glBindTexture(GL_TEXTURE_2D, t.id);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, internal, w, h, 0, format, type, p);
  };
  data_texture(tc, GL_TEXTURE0, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, counts);
  data_texture(ts, GL_TEXTURE1, GL_R32F, GL_RED, GL_FLOAT, smooth);
  glActiveTexture(GL_TEXTURE2);
  glBindTexture(GL_TEXTURE_2D, out.id);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  unsigned fb = 0;
  glGenFramebuffers(1, &fb);
  glBindFramebuffer(GL_FRAMEBUFFER, fb);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, out.id, 0);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  if (complete) {
    glViewport(0, 0, w, h);
    glUseProgram(program_);
    glUniform1i(glGetUniformLocation(program_, "ds_counts"), 0);
    glUniform1i(glGetUniformLocation(program_, "ds_smooth"), 1);
    // The shader reads 32-bit counts (R32UI): narrow frames only (kernels/mandelbrot/counts.h), whose
    // limit is below 2^32; a wide limit is clamped, never wrapped.
    glUniform1ui(glGetUniformLocation(program_, "ds_max_iter"),
                 static_cast<GLuint>(std::min<uint64_t>(c.max_iter, 0xFFFFFFFFu)));
    glUniform1i(glGetUniformLocation(program_, "ds_stops"), c.palette.stops);
    float stops[3 * colour::kMaxPaletteStops] = {};
    for (int k = 0; k < c.palette.stops; ++k) {
      stops[3 * k] = c.palette.stop[k].r;
      stops[3 * k + 1] = c.palette.stop[k].g;
      stops[3 * k + 2] = c.palette.stop[k].b;
    }
    glUniform3fv(glGetUniformLocation(program_, "ds_stop"), colour::kMaxPaletteStops, stops);
    glUniform1f(glGetUniformLocation(program_, "ds_density"), c.density);
    glUniform1f(glGetUniformLocation(program_, "ds_offset"), c.offset);
    glUniform2i(glGetUniformLocation(program_, "ds_size"), w, h);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    std::vector<uint8_t> rgba(static_cast<std::size_t>(w) * h * 4);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    rgb->resize(static_cast<std::size_t>(w) * h * 3);
    for (int y = 0; y < h; ++y) {  // GL's row 0 is the bottom one
      const uint8_t* src = &rgba[static_cast<std::size_t>(h - 1 - y) * w * 4];
      uint8_t* dst = &(*rgb)[static_cast<std::size_t>(y) * w * 3];
      for (int x = 0; x < w; ++x)
        for (int k = 0; k < 3; ++k) dst[3 * x + k] = src[4 * x + k];
    }
    glBindVertexArray(0);
    glUseProgram(0);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<unsigned>(old_fb));
  glDeleteFramebuffers(1, &fb);
  glViewport(old_viewport[0], old_viewport[1], old_viewport[2], old_viewport[3]);
  glActiveTexture(GL_TEXTURE0);
  if (!complete) throw ShaderError("the offscreen framebuffer for colouring is incomplete on this GL");
  const GLenum err = glGetError();
  if (err != GL_NO_ERROR) throw ShaderError("OpenGL error " + std::to_string(err) + " while colouring with " + origin_);
}

}  // namespace ds::render
