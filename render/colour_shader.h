// Colouring as GLSL fragment shaders (shaders/*.glsl, embedded at build time): a colouring shader
// defines `vec3 colour()` over the frame's per-pixel data (shaders/prelude.glsl lists what it may
// call), and ColourShader runs it over a frame in whatever OpenGL 3.3 context is current: the
// window's, or a headless EGL one (render/headless_gl.h; Mesa's llvmpipe where there is no GPU).
// Built in: "palette" (kernels/colour's colour_pixel, channel for channel), "distance", "slopes",
// "decomposition". A user's file goes through the same code, and its compiler errors name the
// lines of that file.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/colour/palette.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "render/frame_stats.h"

namespace ds::render {

// A colouring shader that does not compile or link (the message holds the compiler's log, whose
// line numbers are the shader file's own), an unknown built-in name or parameter, or a frame the GL
// cannot hold.
struct ShaderError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The built-in colouring shaders' names ("palette", ...), and a built-in's source. Throws
// ShaderError listing the names for an unknown one.
const std::vector<std::string>& builtin_shader_names();
std::string builtin_shader_source(const std::string& name);
// Whether `name_or_file` names a file: it has a '/' or ends in ".glsl".
bool is_shader_file(const std::string& name_or_file);
// A colouring shader's source from a built-in name or a file (is_shader_file). Throws ShaderError
// naming a missing or unreadable file.
std::string shader_source(const std::string& name_or_file);
// FNV-1a 64 of a shader's source, 16 hex digits (the PNG's record of a user's file).
std::string shader_hash(const std::string& source);

// A frame's per-pixel data, row-major, row 0 at the top (mandel::RenderResult's arrays). counts and
// smooth are required; counts_high for a wide frame (max_iter >= 2^32: smooth then holds smooth
// count - count, kernels/mandelbrot/counts.h); dex, dey, phase when the shader reads them
// (ColourShader::fields()): a shader that reads one given none sees zeros.
struct ShaderFrame {
  int width = 0, height = 0;
  const uint32_t* counts = nullptr;
  const float* smooth = nullptr;
  const uint32_t* counts_high = nullptr;
  const float* dex = nullptr;
  const float* dey = nullptr;
  const float* phase = nullptr;
  const float* stripe = nullptr;  // as stored (kernels/mandelbrot/fields.cuh: stripe_store)
  const float* sqrt_smooth = nullptr;  // KF's square-root smoothing fraction (fields.cuh)
  // Non-zero: a GL pixel-unpack buffer holding the data (CUDA-GL interop), and the pointers above
  // are byte offsets into it (counts may be at offset 0; a field at 0 is absent).
  unsigned pixel_buffer = 0;
};

// The frame of a render's host arrays (its fields where it has them, for the whole frame).
ShaderFrame shader_frame(const mandel::RenderResult& r);
// The fields among `wanted` (mandel::Field bits) that f does not give, in words ("" when none):
// " distance estimate and phase", for a message that the shader reads them as zeros.
std::string missing_fields(unsigned wanted, const ShaderFrame& f);

// A shader's own parameter: `uniform float NAME = DEFAULT;` in its source. A comment after it on the
// same line may say how the window shows it and with what label:
//   // [bool] LABEL            a checkbox (0 or 1)
//   // [int MIN MAX] LABEL     a whole number in [MIN, MAX]
//   // [range MIN MAX] LABEL   a number in [MIN, MAX]
//   // [choice A,B,C] LABEL    one of the names, stored as its index 0, 1, 2, ...
// or just a LABEL; a "; HELP" after the label is its tooltip. Without a comment the parameter is a
// float labelled by its name.
struct ShaderParam {
  enum class Kind { kFloat, kBool, kInt, kRange, kChoice };
  std::string name;
  float value = 0, default_value = 0;
  Kind kind = Kind::kFloat;
  float min = 0, max = 0;            // kInt, kRange
  std::vector<std::string> choices;  // kChoice
  std::string label;                 // the comment's label (up to a ';'), or the name
  std::string help;                  // the comment after the ';' (a tooltip), or ""
  int order = 0;                     // its place among the source's declarations (the window's order)
};
// The hints of a shader source's parameters, by name (the parsing ColourShader does).
std::vector<ShaderParam> parse_param_hints(const std::string& source);

class ColourShader {
 public:
  // Compiles and links `source` (a colouring shader: it defines vec3 colour()) between the prelude
  // and main(), in the current GL context. `origin` names it in messages ("palette", a path).
  // Throws ShaderError with the compiler's or linker's log.
  ColourShader(const std::string& source, const std::string& origin);
  ~ColourShader();
  ColourShader(const ColourShader&) = delete;
  ColourShader& operator=(const ColourShader&) = delete;

  const std::string& origin() const { return origin_; }
  // The mandel::Field bits (kFieldDistance, kFieldPhase, kFieldStripe, kFieldSqrtSmooth) of the data this shader reads: the ones
  // whose samplers stay active after linking, so a render asks the engine for those only. A source
  // line `// ds-needs FIELD when PARAM == V` (or `!= V`; FIELD distance, phase, stripe or sqrt_smooth) drops the
  // field while the parameter's value says the shader does not read it (the kf shader reads the
  // distance estimate only for Differences 7, the phase only for a phase strength).
  unsigned fields() const;
  // The shader's own float parameters with their defaults (the uniforms not named ds_*), by name.
  const std::vector<ShaderParam>& params() const { return params_; }
  // Sets a parameter for the next colour()/draw(). Throws ShaderError naming the valid ones.
  void set_param(const std::string& name, float value);

  // With Colouring::scale kLog the base is the frame's own lowest escaped count, found on the GL
  // (c.log_base is not read): log_base() says what it was.
  // Colours the frame into `rgb` (3 bytes a pixel, rows top to bottom), drawing into an offscreen
  // framebuffer and reading it back. Throws ShaderError when the frame is larger than the GL's
  // textures allow, or on a GL error.
  void colour(const ShaderFrame& f, const colour::Colouring& c, std::vector<uint8_t>* rgb);
  // The narrow frame of counts and smooth counts only.
  void colour(int w, int h, const uint32_t* counts, const float* smooth, const colour::Colouring& c,
              std::vector<uint8_t>* rgb);
  // Colours the frame into `texture`, an RGBA8 GL texture of the frame's size (row 0 at the top, as
  // render::Texture2D keeps it), with no readback: the window's path.
  void draw(const ShaderFrame& f, const colour::Colouring& c, unsigned texture);
  // Draws the frame last given to colour() or draw() again, with another colouring or parameter
  // values, without uploading its data (a palette or slider change in the window). False, drawing
  // nothing, when no w x h frame was given.
  bool redraw(int w, int h, const colour::Colouring& c, unsigned texture);
  // The base the last kLog colouring took (the frame's lowest escaped count; {0, 0} when none).
  colour::LogBase log_base() const { return base_; }

 private:
  void upload(const ShaderFrame& f, const colour::Colouring& c);
  void draw_bound(const ShaderFrame& f, const colour::Colouring& c, unsigned texture);

  unsigned program_ = 0, vao_ = 0, fb_ = 0, out_ = 0;
  // counts, smooth, counts_high, dex, dey, phase, stripe, sqrt_smooth, palette
  static constexpr int kTextures = 9;
  unsigned tex_[kTextures] = {};
  int tex_w_[kTextures] = {}, tex_h_[kTextures] = {};
  int out_w_ = 0, out_h_ = 0;
  int frame_w_ = 0, frame_h_ = 0;  // the frame the data textures hold (redraw)
  bool frame_wide_ = false, keep_data_ = false;
  unsigned fields_ = 0;
  struct FieldGate {
    unsigned field;
    std::string param;
    bool equal;  // needed while param == value (else while param != value)
    float value;
  };
  std::vector<FieldGate> gates_;
  std::vector<ShaderParam> params_;
  std::string origin_;
  // CountScale::kLog: the frame's lowest escaped count, found once per frame's data (frame_stats.h).
  FrameLowest lowest_;
  colour::LogBase base_;
  bool base_found_ = false;
  // ds_count_range_low/high (KF's ColorMethod 4), found once per frame's data for a shader that reads them.
  uint64_t range_low_ = 0, range_high_ = 0;
  bool range_found_ = false;
};

}  // namespace ds::render
