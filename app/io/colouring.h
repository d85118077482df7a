// The batch side of the one colouring path: a frame is coloured by a GLSL colouring shader
// (render/colour_shader.h) in a headless EGL context of the calling thread (the NVIDIA driver on a
// GPU machine, Mesa's llvmpipe without one), the same shader and the same ColourShader call the
// window makes. Where no EGL context can be made at all, the "palette" shader falls back to the C++
// colour_pixel (tested equal to it) with a note; any other shader is refused.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "kernels/colour/palette.h"
#include "kernels/mandelbrot/mandelbrot.h"

namespace ds::app {

// tEXt keyword of the colouring record: the shader, its source hash for a file, its parameters, and
// how it ran ("GLSL on RENDERER" or the fallback and why).
constexpr const char* kPngColourKey = "deepscope-colour";

struct ShaderSpec {
  std::string name = "palette";                       // a built-in name or a .glsl file
  std::vector<std::pair<std::string, float>> params;  // --shader-param NAME=VALUE, in order
  std::string source;                                 // the shader's text (load_shader)
  bool builtin() const;
};

// Reads the shader's source. Throws IoError (exit 2) for an unknown built-in or a missing file.
ShaderSpec load_shader(const std::string& name,
                       const std::vector<std::pair<std::string, float>>& params = {});

// Why this thread cannot make a headless OpenGL context ("" when it can): the fallback's reason.
std::string headless_gl_unavailable();

// Compiles the shader in this thread's headless context and returns the mandel::Field bits it reads
// (0 on the fallback). Throws IoError (exit 2) with the compiler's log for a shader that does not
// compile, an unknown parameter, or a non-palette shader where there is no OpenGL.
unsigned shader_fields(const ShaderSpec& s);
// KF's escape radius for the square-root smoothing field (mandel::RenderOptions::sqrt_smooth_radius):
// the shader's escape_radius parameter (given, else its default), 2 where it has none, held to
// [2, mandel::kMaxSqrtSmoothRadius] (kf_not_reproduced names a radius outside).
double sqrt_smooth_radius(const ShaderSpec& s);
inline double clamp_sqrt_smooth_radius(double r) {
  return r >= 2.0 ? (r <= mandel::kMaxSqrtSmoothRadius ? r : mandel::kMaxSqrtSmoothRadius) : 2.0;
}

struct ColouredFrame {
  std::vector<uint8_t> rgb;  // 3 bytes a pixel, rows top to bottom
  std::string record;        // kPngColourKey's text
  std::string note;          // non-empty on the C++ fallback or missing data: say it on stderr
};

// Colours `r` (narrow or wide; with dex, dey, phase when the shader reads them).
ColouredFrame colour_frame(const mandel::RenderResult& r, const colour::Colouring& c, const ShaderSpec& s);

// The record's lines for a shader run by `how` ("GLSL on ..." or the fallback's reason).
std::string colour_record(const ShaderSpec& s, const std::string& how);
// The record's line for the count's scale: "scale = linear", or "scale = log" and the base taken
// ("log_base = COUNT +FRACTION": the frame's lowest escaped smooth count).
std::string scale_record(const colour::Colouring& c, const colour::LogBase& base);

}  // namespace ds::app
