// Batch colouring (colouring.h): one headless context and compiled shaders per thread.
#include "colouring.h"

#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "kernels/core/atomic_file.h"
#if DEEPSCOPE_WITH_GL
#include "render/colour_shader.h"
#include "render/headless_gl.h"
#endif

namespace ds::app {
namespace {

#if DEEPSCOPE_WITH_GL
// This thread's headless context (or why there is none) and its compiled shaders, by source.
struct ThreadGl {
  std::unique_ptr<render::HeadlessGl> gl;
  std::string unavailable;  // non-empty: no context could be made
  bool tried = false;
  std::map<std::string, std::unique_ptr<render::ColourShader>> shaders;
};
ThreadGl& thread_gl() {
  thread_local ThreadGl t;
  if (!t.tried) {
    t.tried = true;
    try {
      t.gl = std::make_unique<render::HeadlessGl>(-1);
    } catch (const render::GlUnavailable& e) {
      t.unavailable = e.what();
    }
  }
  return t;
}

render::ColourShader& compiled(ThreadGl& t, const ShaderSpec& s) {
  t.gl->make_current();
  auto it = t.shaders.find(s.name + '\n' + s.source);
  if (it == t.shaders.end()) {
    try {
      it = t.shaders
               .emplace(s.name + '\n' + s.source, std::make_unique<render::ColourShader>(s.source, s.name))
               .first;
    } catch (const render::ShaderError& e) {
      throw IoError(e.what());
    }
  }
  render::ColourShader& sh = *it->second;
  try {
    for (const render::ShaderParam& p : sh.params()) sh.set_param(p.name, p.default_value);
    for (const auto& p : s.params) sh.set_param(p.first, p.second);
  } catch (const render::ShaderError& e) {
    throw IoError(e.what());
  }
  return sh;
}
#endif

std::string no_gl_reason() {
#if DEEPSCOPE_WITH_GL
  return thread_gl().unavailable;
#else
  return "built without OpenGL";
#endif
}

}  // namespace

std::string headless_gl_unavailable() { return no_gl_reason(); }

bool ShaderSpec::builtin() const {
#if DEEPSCOPE_WITH_GL
  return !render::is_shader_file(name);
#else
  return name.find('/') == std::string::npos && name.find(".glsl") == std::string::npos;
#endif
}

ShaderSpec load_shader(const std::string& name, const std::vector<std::pair<std::string, float>>& params) {
  ShaderSpec s;
  s.name = name;
  s.params = params;
#if DEEPSCOPE_WITH_GL
  try {
    s.source = render::shader_source(name);
  } catch (const render::ShaderError& e) {
    throw IoError(e.what());
  }
#else
  if (name != "palette") throw IoError("colouring shader \"" + name + "\": this build has no OpenGL");
#endif
  return s;
}

unsigned shader_fields(const ShaderSpec& spec) {
  const ShaderSpec s = spec.source.empty() ? load_shader(spec.name, spec.params) : spec;
  const std::string why = no_gl_reason();
  if (!why.empty()) {
    if (s.name != "palette" || !s.params.empty())
      throw IoError("colouring shader \"" + s.name + "\" needs OpenGL, and there is none here (" + why +
                    "); only the built-in palette has a C++ fallback");
    return 0;
  }
#if DEEPSCOPE_WITH_GL
  return compiled(thread_gl(), s).fields();
#else
  return 0;
#endif
}

double sqrt_smooth_radius(const ShaderSpec& spec) {
  double r = 2.0;
  const ShaderSpec s = spec.source.empty() ? load_shader(spec.name, spec.params) : spec;
#if DEEPSCOPE_WITH_GL
  for (const render::ShaderParam& h : render::parse_param_hints(s.source))
    if (h.name == "escape_radius") r = h.default_value;
#endif
  for (const auto& p : s.params)
    if (p.first == "escape_radius") r = p.second;
  return clamp_sqrt_smooth_radius(r);
}

std::string colour_record(const ShaderSpec& s, const std::string& how) {
  std::ostringstream o;
  o << "shader = " << s.name << "\n";
  if (!s.builtin()) {
#if DEEPSCOPE_WITH_GL
    o << "shader_source_fnv1a64 = " << render::shader_hash(s.source) << "\n";
#endif
  }
  for (const auto& p : s.params) o << "param " << p.first << " = " << p.second << "\n";
  o << "coloured_by = " << how << "\n";
  return o.str();
}

std::string scale_record(const colour::Colouring& c, const colour::LogBase& base) {
  if (c.scale != colour::CountScale::kLog) return "scale = linear\n";
  char buf[160];
  std::snprintf(buf, sizeof buf, "scale = log\nlog_base = %llu %+.4f\nlog_scale = %.6g\n",
                static_cast<unsigned long long>(base.count), static_cast<double>(base.fraction),
                static_cast<double>(base.scale));
  return buf;
}

ColouredFrame colour_frame(const mandel::RenderResult& r, const colour::Colouring& c,
                           const ShaderSpec& spec) {
  const ShaderSpec s =
      spec.source.empty() && spec.name != "palette" ? load_shader(spec.name, spec.params) : spec;
  ColouredFrame out;
  const std::string why = no_gl_reason();
  if (!why.empty()) {
    if (s.name != "palette" || !s.params.empty())
      throw IoError("colouring shader \"" + s.name + "\" needs OpenGL, and there is none here (" + why + ")");
    const std::vector<uint32_t> high = r.wide() ? r.counts_high : std::vector<uint32_t>{};
    out.rgb = colour::colour_image(r.counts, r.smooth, c, high, r.width);
    out.note =
        "no OpenGL context (" + why + "): coloured by the C++ colour_pixel, the palette shader's reference";
    out.record = colour_record(s, "C++ colour_pixel (fallback: " + why + ")") +
                 scale_record(c, colour::log_base_of(r.counts, r.smooth, r.width, c.max_iter, high));
    return out;
  }
#if DEEPSCOPE_WITH_GL
  ThreadGl& t = thread_gl();
  render::ColourShader& sh = compiled(t, s.source.empty() ? load_shader(s.name, s.params) : s);
  const render::ShaderFrame f = render::shader_frame(r);
  try {
    sh.colour(f, c, &out.rgb);
  } catch (const render::ShaderError& e) {
    throw IoError(e.what());
  }
  std::string how = "GLSL, " + t.gl->description();
  const std::string missing = render::missing_fields(sh.fields(), f);
  if (!missing.empty()) {
    how += "; the engine gave no" + missing + " (read as zeros)";
    out.note =
        "shader " + s.name + " reads the" + missing + ", which this render did not compute: read as zeros";
  }
  out.record = colour_record(s, how) + scale_record(c, sh.log_base());
#endif
  return out;
}

}  // namespace ds::app
