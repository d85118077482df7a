// FrameLowest (frame_stats.h): a reduction pass over the colouring shader's data textures.
#include "frame_stats.h"

#include <glad/gl.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "colour_shader.h"

namespace ds::render {
namespace {

constexpr int kBlock = colour::kLogBlock;

const char* kVertex = R"(#version 330 core
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
)";

// (found, high word, low word, fraction's bits) of the block's lowest escaped pixel, ordered by
// the whole count, then the fraction: the fraction as colour_pixel takes it (a narrow frame's
// float smooth count less float(count)).
const char* kFragment = R"(#version 330 core
uniform usampler2D counts;
uniform sampler2D smooth_counts;
uniform usampler2D counts_high;
uniform bool wide;
uniform uvec2 max_iter;  // pixels at this count and above are left out
uniform bool highest;    // the highest whole count instead of the lowest smooth count
uniform ivec2 size;
out uvec4 result;
void main() {
  ivec2 b = ivec2(gl_FragCoord.xy) * BLOCK;
  bool any = false;
  uint bh = 0u, bl = 0u;
  float bf = 0.0;
  for (int y = b.y; y < min(b.y + BLOCK, size.y); ++y)
    for (int x = b.x; x < min(b.x + BLOCK, size.x); ++x) {
      uint lo = texelFetch(counts, ivec2(x, y), 0).r;
      uint hi = wide ? texelFetch(counts_high, ivec2(x, y), 0).r : 0u;
      if (lo == 0u && hi == 0u) continue;
      if (hi > max_iter.y || (hi == max_iter.y && lo >= max_iter.x)) continue;
      float s = texelFetch(smooth_counts, ivec2(x, y), 0).r;
      float f = wide ? s : s - float(lo);
      bool better = highest ? (hi > bh || (hi == bh && lo > bl))
                            : (hi < bh || (hi == bh && (lo < bl || (lo == bl && f < bf))));
      if (!any || better) {
        any = true;
        bh = hi;
        bl = lo;
        bf = f;
      }
    }
  result = uvec4(any ? 1u : 0u, bh, bl, floatBitsToUint(bf));
}
)";

unsigned compile_stage(GLenum stage, const std::string& src) {
  const unsigned s = glCreateShader(stage);
  const char* p = src.c_str();
  glShaderSource(s, 1, &p, nullptr);
  glCompileShader(s);
  int ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    throw ShaderError(std::string("the frame's lowest-count pass does not compile: ") + log);
  }
  return s;
}

}  // namespace

FrameLowest::~FrameLowest() {
  if (fb_) glDeleteFramebuffers(1, &fb_);
  if (out_) glDeleteTextures(1, &out_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

colour::LogBase FrameLowest::find(unsigned counts, unsigned smooth, unsigned high, int w, int h, bool wide,
                                  uint64_t max_iter) {
  return colour::log_base_from_blocks(blocks(counts, smooth, high, w, h, wide, max_iter, false));
}

bool FrameLowest::count_range(unsigned counts, unsigned smooth, unsigned high, int w, int h, bool wide,
                              uint64_t limit, uint64_t* low, uint64_t* highest) {
  const std::vector<colour::LogBase> lo = blocks(counts, smooth, high, w, h, wide, limit, false);
  if (lo.empty()) return false;
  const std::vector<colour::LogBase> hi = blocks(counts, smooth, high, w, h, wide, limit, true);
  *low = lo[0].count;
  *highest = hi[0].count;
  for (const colour::LogBase& b : lo) *low = std::min(*low, b.count);
  for (const colour::LogBase& b : hi) *highest = std::max(*highest, b.count);
  return true;
}

std::vector<colour::LogBase> FrameLowest::blocks(unsigned counts, unsigned smooth, unsigned high, int w,
                                                 int h, bool wide, uint64_t max_iter, bool highest) {
  if (!program_) {
    std::string fs = kFragment;
    fs.insert(fs.find('\n') + 1, "#define BLOCK " + std::to_string(kBlock) + "\n");
    const unsigned v = compile_stage(GL_VERTEX_SHADER, kVertex);
    unsigned f = 0;
    try {
      f = compile_stage(GL_FRAGMENT_SHADER, fs);
    } catch (...) {
      glDeleteShader(v);
      throw;
    }
    program_ = glCreateProgram();
    glAttachShader(program_, v);
    glAttachShader(program_, f);
    glLinkProgram(program_);
    glDeleteShader(v);
    glDeleteShader(f);
    int ok = 0;
    glGetProgramiv(program_, GL_LINK_STATUS, &ok);
    if (!ok) {
      glDeleteProgram(program_);
      program_ = 0;
      throw ShaderError("the frame's lowest-count pass does not link");
    }
    glGenVertexArrays(1, &vao_);
    glGenFramebuffers(1, &fb_);
    glGenTextures(1, &out_);
  }
  const int ow = (w + kBlock - 1) / kBlock, oh = (h + kBlock - 1) / kBlock;
  GLint old_fb = 0, old_read_fb = 0, old_viewport[4] = {0, 0, 0, 0}, old_program = 0, old_vao = 0,
        old_unit = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &old_fb);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &old_read_fb);
  glGetIntegerv(GL_VIEWPORT, old_viewport);
  glGetIntegerv(GL_CURRENT_PROGRAM, &old_program);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &old_vao);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &old_unit);
  // Units 0..2 for the data; the caller's bindings there are put back below.
  GLint old_units[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    glActiveTexture(GL_TEXTURE0 + k);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &old_units[k]);
  }
  glActiveTexture(GL_TEXTURE0);
  if (ow != out_w_ || oh != out_h_) {
    glBindTexture(GL_TEXTURE_2D, out_);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32UI, ow, oh, 0, GL_RGBA_INTEGER, GL_UNSIGNED_INT, nullptr);
    out_w_ = ow;
    out_h_ = oh;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, fb_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, out_, 0);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  std::vector<uint32_t> px(static_cast<std::size_t>(ow) * oh * 4, 0u);
  if (complete) {
    glUseProgram(program_);
    const unsigned tex[3] = {counts, smooth, wide ? high : counts};
    const char* names[3] = {"counts", "smooth_counts", "counts_high"};
    for (int k = 0; k < 3; ++k) {
      glActiveTexture(GL_TEXTURE0 + k);
      glBindTexture(GL_TEXTURE_2D, tex[k]);
      glUniform1i(glGetUniformLocation(program_, names[k]), k);
    }
    glUniform1i(glGetUniformLocation(program_, "wide"), wide ? 1 : 0);
    glUniform2ui(glGetUniformLocation(program_, "max_iter"), static_cast<GLuint>(max_iter & 0xFFFFFFFFu),
                 static_cast<GLuint>(max_iter >> 32));
    glUniform2i(glGetUniformLocation(program_, "size"), w, h);
    glUniform1i(glGetUniformLocation(program_, "highest"), highest ? 1 : 0);
    glViewport(0, 0, ow, oh);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, ow, oh, GL_RGBA_INTEGER, GL_UNSIGNED_INT, px.data());
  }
  for (int k = 2; k >= 0; --k) {
    glActiveTexture(GL_TEXTURE0 + k);
    glBindTexture(GL_TEXTURE_2D, static_cast<unsigned>(old_units[k]));
  }
  glActiveTexture(static_cast<GLenum>(old_unit));
  glBindVertexArray(static_cast<unsigned>(old_vao));
  glUseProgram(static_cast<unsigned>(old_program));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<unsigned>(old_fb));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<unsigned>(old_read_fb));
  glViewport(old_viewport[0], old_viewport[1], old_viewport[2], old_viewport[3]);
  if (!complete) throw ShaderError("the lowest-count pass's framebuffer is incomplete on this GL");
  const GLenum err = glGetError();
  if (err != GL_NO_ERROR)
    throw ShaderError("OpenGL error " + std::to_string(err) + " in the lowest-count pass");
  std::vector<colour::LogBase> out;
  for (std::size_t k = 0; k < px.size(); k += 4) {
    if (!px[k]) continue;
    colour::LogBase p;
    p.count = (static_cast<uint64_t>(px[k + 1]) << 32) | px[k + 2];
    static_assert(sizeof p.fraction == sizeof px[k + 3], "float bits");
    std::memcpy(&p.fraction, &px[k + 3], sizeof p.fraction);
    out.push_back(p);
  }
  return out;
}

}  // namespace ds::render
