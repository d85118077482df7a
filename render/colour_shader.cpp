// GLSL colouring (see colour_shader.h): the prelude, the colouring shader and main() compiled as one
// fragment shader, a full-frame triangle, the frame's data and the palette as textures (kept between
// frames, re-specified only when the size changes), and the result drawn into a texture.
#include "colour_shader.h"

#include <glad/gl.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "kernels/core/input_file.h"
#include "kernels/mandelbrot/mandelbrot.h"
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

// The compiler's log with each message's place written as FILE:LINE[:COLUMN]: the fragment shader's
// lines below 100000 are the colouring shader's own (from "#line 1 1"), the prelude's from 100000
// and main()'s from 200000 (shaders/prelude.glsl, ColourShader's constructor). Mesa writes
// "S:L(C): ...", NVIDIA "S(L) : ..."; other lines are kept as they are.
std::string placed_log(const std::string& log, const std::string& origin) {
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line)) {
    std::size_t p = 0;
    while (p < line.size() && line[p] == ' ') ++p;
    std::size_t q = p;
    while (q < line.size() && std::isdigit(static_cast<unsigned char>(line[q]))) ++q;
    long number = -1, column = -1;
    std::size_t rest = std::string::npos;
    if (q > p && q < line.size() && line[q] == ':') {  // Mesa: S:L(C): msg
      char* end = nullptr;
      number = std::strtol(line.c_str() + q + 1, &end, 10);
      if (end && *end == '(') {
        column = std::strtol(end + 1, &end, 10);
        if (end && end[0] == ')' && end[1] == ':') rest = static_cast<std::size_t>(end + 2 - line.c_str());
      }
    } else if (q > p && q < line.size() && line[q] == '(') {  // NVIDIA: S(L) : msg
      char* end = nullptr;
      number = std::strtol(line.c_str() + q + 1, &end, 10);
      if (end && end[0] == ')') {
        const char* e = end + 1;
        while (*e == ' ') ++e;
        if (*e == ':') rest = static_cast<std::size_t>(e + 1 - line.c_str());
      }
    }
    if (rest == std::string::npos || number < 0) {
      out += line + "\n";
      continue;
    }
    std::string where;
    if (number >= 200000)
      where = "(main.glsl):" + std::to_string(number - 200000 + 1);
    else if (number >= 100000)
      where = "(prelude.glsl, about line " + std::to_string(number - 100000) + ")";
    else
      where = origin + ":" + std::to_string(number);
    if (column >= 0 && number < 100000) where += ":" + std::to_string(column);
    std::string msg = line.substr(rest);
    while (!msg.empty() && msg[0] == ' ') msg.erase(0, 1);
    out += where + ": " + msg + "\n";
  }
  return out;
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
    throw ShaderError("colouring shader " + origin + " does not compile:\n" + placed_log(log, origin));
  }
  return sh;
}

// Texture units and sampler names, in tex_ order.
constexpr const char* kSampler[] = {"ds_counts",     "ds_smooth",    "ds_counts_high", "ds_dex",
                                    "ds_dey",        "ds_phase_tex", "ds_stripe_tex",  "ds_sqrt_smooth_tex",
                                    "ds_palette_tex"};
enum { kCounts, kSmooth, kHigh, kDex, kDey, kPhase, kStripe, kSqrtSmooth, kPalette, kUnits };
static_assert(kUnits == sizeof kSampler / sizeof kSampler[0], "a sampler name for each unit");


std::string trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// `// ds-needs FIELD when PARAM == V` lines of a source: (field bit, param, equal, value).
struct Gate {
  unsigned field;
  std::string param;
  bool equal;
  float value;
};
std::vector<Gate> parse_gates(const std::string& source) {
  std::vector<Gate> g;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    const size_t at = line.find("// ds-needs ");
    if (at == std::string::npos) continue;
    std::istringstream w(line.substr(at + 12));
    std::string field, when, param, op;
    float v = 0;
    if (!(w >> field >> when >> param >> op >> v) || when != "when" || (op != "==" && op != "!=")) continue;
    const unsigned bit = field == "distance"      ? mandel::kFieldDistance
                         : field == "phase"       ? mandel::kFieldPhase
                         : field == "stripe"      ? mandel::kFieldStripe
                         : field == "sqrt_smooth" ? mandel::kFieldSqrtSmooth
                                                  : 0u;
    if (bit) g.push_back({bit, param, op == "==", v});
  }
  return g;
}

}  // namespace

std::vector<ShaderParam> parse_param_hints(const std::string& source) {
  std::vector<ShaderParam> out;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    const std::string t = trimmed(line);
    if (t.compare(0, 14, "uniform float ") != 0) continue;
    size_t e = 14;
    while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_')) ++e;
    ShaderParam p;
    p.name = t.substr(14, e - 14);
    p.label = p.name;
    const size_t c = t.find("//", e);
    if (c != std::string::npos) {
      std::string h = trimmed(t.substr(c + 2));
      if (!h.empty() && h[0] == '[') {
        const size_t close = h.find(']');
        if (close != std::string::npos) {
          std::istringstream spec(h.substr(1, close - 1));
          std::string kind;
          spec >> kind;
          if (kind == "bool") {
            p.kind = ShaderParam::Kind::kBool;
          } else if (kind == "int" || kind == "range") {
            float lo = 0, hi = 0;
            if (spec >> lo >> hi && lo < hi) {
              p.kind = kind == "int" ? ShaderParam::Kind::kInt : ShaderParam::Kind::kRange;
              p.min = lo;
              p.max = hi;
            }
          } else if (kind == "choice") {
            std::string list, item;
            std::getline(spec, list);
            std::istringstream items(trimmed(list));
            while (std::getline(items, item, ',')) p.choices.push_back(trimmed(item));
            if (!p.choices.empty()) p.kind = ShaderParam::Kind::kChoice;
          }
          h = trimmed(h.substr(close + 1));
        }
      }
      const size_t semi = h.find(';');
      if (semi != std::string::npos) {
        p.help = trimmed(h.substr(semi + 1));
        h = trimmed(h.substr(0, semi));
      }
      if (!h.empty()) p.label = h;
    }
    p.order = static_cast<int>(out.size());
    if (!p.name.empty()) out.push_back(p);
  }
  return out;
}

const std::vector<std::string>& builtin_shader_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const EmbeddedShader& s : kShaderSources) {
      const std::string name = s.name;
      if (name != "prelude" && name != "main") n.push_back(name);
    }
    // "palette" first: the default.
    std::stable_partition(n.begin(), n.end(), [](const std::string& x) { return x == "palette"; });
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

ShaderFrame shader_frame(const mandel::RenderResult& r) {
  ShaderFrame f;
  f.width = r.width;
  f.height = r.height;
  f.counts = r.counts.data();
  f.smooth = r.smooth.data();
  if (r.wide()) f.counts_high = r.counts_high.data();
  const std::size_t n = static_cast<std::size_t>(r.width) * static_cast<std::size_t>(r.height);
  if (r.dex.size() == n && r.dey.size() == n) {
    f.dex = r.dex.data();
    f.dey = r.dey.data();
  }
  if (r.phase.size() == n) f.phase = r.phase.data();
  if (r.stripe.size() == n) f.stripe = r.stripe.data();
  if (r.sqrt_smooth.size() == n) f.sqrt_smooth = r.sqrt_smooth.data();
  return f;
}

std::string missing_fields(unsigned wanted, const ShaderFrame& f) {
  std::vector<std::string> m;
  if ((wanted & mandel::kFieldDistance) && !f.dex) m.push_back("distance estimate");
  if ((wanted & mandel::kFieldPhase) && !f.phase) m.push_back("phase");
  if ((wanted & mandel::kFieldStripe) && !f.stripe) m.push_back("stripe average");
  if ((wanted & mandel::kFieldSqrtSmooth) && !f.sqrt_smooth) m.push_back("square-root smoothing");
  std::string s;
  for (std::size_t k = 0; k < m.size(); ++k)
    s += (k == 0 ? " " : k + 1 == m.size() ? " and " : ", ") + m[k];
  return s;
}

bool is_shader_file(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.compare(s.size() - 5, 5, ".glsl") == 0);
}

std::string shader_source(const std::string& name_or_file) {
  if (!is_shader_file(name_or_file)) return builtin_shader_source(name_or_file);
  try {
    return read_input_file(name_or_file, "colouring shader", kMaxTextInputBytes);
  } catch (const IoError& e) {
    throw ShaderError(e.what());
  }
}

std::string shader_hash(const std::string& source) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : source) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

ColourShader::ColourShader(const std::string& source, const std::string& origin) : origin_(origin) {
  const std::string prelude = embedded("prelude"), main = embedded("main");
  // "#line 1 1": the colouring shader is source string 1 from its line 1, so the compiler's
  // messages about it carry the file's own line numbers (placed_log writes them FILE:LINE); the
  // prelude's lines are from 100000 and main()'s from 200000.
  const unsigned vs = compile(GL_VERTEX_SHADER, {kVertex}, "(vertex stage)");
  unsigned fs = 0;
  try {
    fs = compile(GL_FRAGMENT_SHADER, {prelude, "\n#line 1 1\n", source, "\n#line 200000 2\n", main}, origin);
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
  // What the shader reads: a sampler the linker kept is one the shader's colour() reaches.
  if (glGetUniformLocation(program_, "ds_dex") >= 0 || glGetUniformLocation(program_, "ds_dey") >= 0)
    fields_ |= mandel::kFieldDistance;
  if (glGetUniformLocation(program_, "ds_phase_tex") >= 0) fields_ |= mandel::kFieldPhase;
  if (glGetUniformLocation(program_, "ds_stripe_tex") >= 0) fields_ |= mandel::kFieldStripe;
  if (glGetUniformLocation(program_, "ds_sqrt_smooth_tex") >= 0) fields_ |= mandel::kFieldSqrtSmooth;
  // Its own parameters: the active float uniforms not named ds_*, with their initialisers, and the
  // source's hints for the window.
  const std::vector<ShaderParam> hints = parse_param_hints(source);
  for (const Gate& g : parse_gates(source)) gates_.push_back({g.field, g.param, g.equal, g.value});
  int n = 0;
  glGetProgramiv(program_, GL_ACTIVE_UNIFORMS, &n);
  for (int k = 0; k < n; ++k) {
    char name[256];
    GLsizei len = 0;
    GLint size = 0;
    GLenum type = 0;
    glGetActiveUniform(program_, static_cast<GLuint>(k), sizeof name, &len, &size, &type, name);
    const std::string s(name, static_cast<std::size_t>(len));
    if (type != GL_FLOAT || size != 1 || s.compare(0, 3, "ds_") == 0) continue;
    ShaderParam p;
    p.name = s;
    p.label = s;
    for (const ShaderParam& h : hints)
      if (h.name == s) {
        p.kind = h.kind;
        p.min = h.min;
        p.max = h.max;
        p.choices = h.choices;
        p.label = h.label;
        p.help = h.help;
        p.order = h.order;
      }
    glGetUniformfv(program_, glGetUniformLocation(program_, name), &p.default_value);
    p.value = p.default_value;
    params_.push_back(p);
  }
  std::sort(params_.begin(), params_.end(),
            [](const ShaderParam& a, const ShaderParam& b) { return a.name < b.name; });
  glGenVertexArrays(1, &vao_);
  glGenTextures(kTextures, tex_);
  glGenTextures(1, &out_);
  glGenFramebuffers(1, &fb_);
}

ColourShader::~ColourShader() {
  if (fb_) glDeleteFramebuffers(1, &fb_);
  if (out_) glDeleteTextures(1, &out_);
  if (tex_[0]) glDeleteTextures(kTextures, tex_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

unsigned ColourShader::fields() const {
  unsigned f = fields_;
  for (const FieldGate& g : gates_) {
    if (!(f & g.field)) continue;
    for (const ShaderParam& p : params_)
      if (p.name == g.param && (p.value == g.value) != g.equal) f &= ~g.field;
  }
  return f;
}

void ColourShader::set_param(const std::string& name, float value) {
  for (ShaderParam& p : params_)
    if (p.name == name) {
      p.value = value;
      return;
    }
  std::string valid;
  for (const ShaderParam& p : params_) valid += (valid.empty() ? "" : ", ") + p.name;
  throw ShaderError("colouring shader " + origin_ + " has no parameter \"" + name + "\"" +
                    (valid.empty() ? std::string(" (it has none)") : "; it has: " + valid));
}

// Each data texture on its unit; data the frame does not give is uploaded as zeros (the shader
// reads zeros), and data the shader does not read is not uploaded.
void ColourShader::upload(const ShaderFrame& f, const colour::Colouring& c) {
  int max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  if (f.width < 1 || f.height < 1 || f.width > max_size || f.height > max_size)
    throw ShaderError("a " + std::to_string(f.width) + " x " + std::to_string(f.height) +
                      " frame: this GL's textures hold at most " + std::to_string(max_size) +
                      " pixels a side");
  if (c.palette.stops < 1 || c.palette.stops > colour::kMaxPaletteStops || c.palette.stops > max_size)
    throw ShaderError("a palette of " + std::to_string(c.palette.stops) + " stops");
  // keep_data_ (redraw): the data textures hold the last frame; only the colouring changes.
  if (!keep_data_ && !f.pixel_buffer && (!f.counts || !f.smooth))
    throw ShaderError("a frame without counts or smooth counts");
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  const bool wide = keep_data_ ? frame_wide_ : f.counts_high != nullptr;
  const bool de = (fields_ & mandel::kFieldDistance) != 0, ph = (fields_ & mandel::kFieldPhase) != 0,
             st = (fields_ & mandel::kFieldStripe) != 0, sq = (fields_ & mandel::kFieldSqrtSmooth) != 0;
  std::vector<uint32_t> zeros;  // for data the shader reads and the frame does not give
  auto put = [&](int k, bool used, const void* p, GLint internal, GLenum format, GLenum type,
                 bool one_texel = false) {
    glActiveTexture(GL_TEXTURE0 + k);
    glBindTexture(GL_TEXTURE_2D, tex_[k]);
    if (!used || keep_data_) return;
    const int w = one_texel ? 1 : f.width, h = one_texel ? 1 : f.height;
    // From the frame's pixel buffer (p an offset into it; counts' may be 0), else host memory.
    const bool from_buffer = f.pixel_buffer != 0 && (p || k == kCounts);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, from_buffer ? f.pixel_buffer : 0);
    if (!p && !from_buffer) {  // uint32 0 and float 0.0f are the same bits
      zeros.assign(static_cast<std::size_t>(w) * h, 0u);
      p = zeros.data();
    }
    if (one_texel && tex_w_[k] == 1 && tex_h_[k] == 1) return;  // already the zero texel
    if (tex_w_[k] != w || tex_h_[k] != h) {
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
      glTexImage2D(GL_TEXTURE_2D, 0, internal, w, h, 0, format, type, p);
      tex_w_[k] = w;
      tex_h_[k] = h;
    } else {
      glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, format, type, p);
    }
  };
  put(kCounts, true, f.counts, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT);
  put(kSmooth, true, f.smooth, GL_R32F, GL_RED, GL_FLOAT);
  // A narrow frame's high words are never fetched (ds_wide is false): one zero texel keeps the
  // sampler complete without uploading a frame of zeros.
  put(kHigh, true, wide ? f.counts_high : nullptr, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, !wide);
  put(kDex, de, f.dex, GL_R32F, GL_RED, GL_FLOAT);
  put(kDey, de, f.dey, GL_R32F, GL_RED, GL_FLOAT);
  put(kPhase, ph, f.phase, GL_R32F, GL_RED, GL_FLOAT);
  put(kStripe, st, f.stripe, GL_R32F, GL_RED, GL_FLOAT);
  put(kSqrtSmooth, sq, f.sqrt_smooth, GL_R32F, GL_RED, GL_FLOAT);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (!keep_data_) {
    frame_w_ = f.width;
    frame_h_ = f.height;
    frame_wide_ = wide;
    base_found_ = false;
    range_found_ = false;
  }
  // The frame's whole-count range, for a shader that reads it (the kf shader's ColorMethod 4):
  // KF's GetIterations over the pixels below max_iter - 1.
  if (!range_found_ && glGetUniformLocation(program_, "ds_count_range_low") >= 0) {
    range_low_ = range_high_ = 0;
    lowest_.count_range(tex_[kCounts], tex_[kSmooth], tex_[kHigh], frame_w_, frame_h_, frame_wide_,
                        c.max_iter > 0 ? c.max_iter - 1 : 0, &range_low_, &range_high_);
    range_found_ = true;
  }
  if (c.scale == colour::CountScale::kLog && !base_found_) {
    base_ = lowest_.find(tex_[kCounts], tex_[kSmooth], tex_[kHigh], frame_w_, frame_h_, frame_wide_, c.max_iter);
    base_found_ = true;
  }
  // The palette: one RGB32F texel a stop (a uniform array of 1024 vec3 is past GL 3.3's minimum of
  // 1024 fragment uniform components).
  std::vector<float> stops(static_cast<std::size_t>(c.palette.stops) * 3);
  for (int k = 0; k < c.palette.stops; ++k) {
    stops[3 * k] = c.palette.stop[k].r;
    stops[3 * k + 1] = c.palette.stop[k].g;
    stops[3 * k + 2] = c.palette.stop[k].b;
  }
  glActiveTexture(GL_TEXTURE0 + kPalette);
  glBindTexture(GL_TEXTURE_2D, tex_[kPalette]);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGB32F, c.palette.stops, 1, 0, GL_RGB, GL_FLOAT, stops.data());
  tex_w_[kPalette] = c.palette.stops;
  tex_h_[kPalette] = 1;

  glUseProgram(program_);
  for (int k = 0; k < kUnits; ++k) glUniform1i(glGetUniformLocation(program_, kSampler[k]), k);
  glUniform1i(glGetUniformLocation(program_, "ds_wide"), wide ? 1 : 0);
  glUniform2ui(glGetUniformLocation(program_, "ds_max_iter"), static_cast<GLuint>(c.max_iter & 0xFFFFFFFFu),
               static_cast<GLuint>(c.max_iter >> 32));
  glUniform1i(glGetUniformLocation(program_, "ds_stops"), c.palette.stops);
  glUniform1f(glGetUniformLocation(program_, "ds_density"), c.density);
  glUniform1f(glGetUniformLocation(program_, "ds_offset"), c.offset);
  glUniform1i(glGetUniformLocation(program_, "ds_blend"), c.blend ? 1 : 0);
  glUniform2i(glGetUniformLocation(program_, "ds_size"), f.width, f.height);
  glUniform1i(glGetUniformLocation(program_, "ds_log_scale"), c.scale == colour::CountScale::kLog ? 1 : 0);
  glUniform2ui(glGetUniformLocation(program_, "ds_log_base"), static_cast<GLuint>(base_.count & 0xFFFFFFFFu),
               static_cast<GLuint>(base_.count >> 32));
  glUniform1f(glGetUniformLocation(program_, "ds_log_base_fraction"), base_.fraction);
  glUniform1f(glGetUniformLocation(program_, "ds_log_scale_iterations"), base_.scale);
  glUniform2ui(glGetUniformLocation(program_, "ds_count_range_low"), static_cast<GLuint>(range_low_ & 0xFFFFFFFFu),
               static_cast<GLuint>(range_low_ >> 32));
  glUniform2ui(glGetUniformLocation(program_, "ds_count_range_high"),
               static_cast<GLuint>(range_high_ & 0xFFFFFFFFu), static_cast<GLuint>(range_high_ >> 32));
  for (const ShaderParam& p : params_) glUniform1f(glGetUniformLocation(program_, p.name.c_str()), p.value);
}

void ColourShader::draw_bound(const ShaderFrame& f, const colour::Colouring& c, unsigned texture) {
  GLint old_fb = 0, old_viewport[4] = {0, 0, 0, 0}, old_program = 0, old_vao = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &old_fb);
  glGetIntegerv(GL_VIEWPORT, old_viewport);
  glGetIntegerv(GL_CURRENT_PROGRAM, &old_program);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &old_vao);
  upload(f, c);
  glBindFramebuffer(GL_FRAMEBUFFER, fb_);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  if (complete) {
    glViewport(0, 0, f.width, f.height);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
  // The window's ImGui state is left as it was.
  glBindVertexArray(static_cast<unsigned>(old_vao));
  glUseProgram(static_cast<unsigned>(old_program));
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<unsigned>(old_fb));
  glViewport(old_viewport[0], old_viewport[1], old_viewport[2], old_viewport[3]);
  glActiveTexture(GL_TEXTURE0);
  if (!complete) throw ShaderError("the offscreen framebuffer for colouring is incomplete on this GL");
}

void ColourShader::draw(const ShaderFrame& f, const colour::Colouring& c, unsigned texture) {
  draw_bound(f, c, texture);
  const GLenum err = glGetError();
  if (err != GL_NO_ERROR)
    throw ShaderError("OpenGL error " + std::to_string(err) + " while colouring with " + origin_);
}

bool ColourShader::redraw(int w, int h, const colour::Colouring& c, unsigned texture) {
  if (frame_w_ != w || frame_h_ != h || w < 1 || h < 1) return false;
  ShaderFrame f;
  f.width = w;
  f.height = h;
  keep_data_ = true;
  try {
    draw(f, c, texture);
  } catch (...) {
    keep_data_ = false;
    throw;
  }
  keep_data_ = false;
  return true;
}

void ColourShader::colour(const ShaderFrame& f, const colour::Colouring& c, std::vector<uint8_t>* rgb) {
  if (out_w_ != f.width || out_h_ != f.height) {
    glActiveTexture(GL_TEXTURE0 + kUnits);
    glBindTexture(GL_TEXTURE_2D, out_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, std::max(1, f.width), std::max(1, f.height), 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, nullptr);
    glActiveTexture(GL_TEXTURE0);
    out_w_ = f.width;
    out_h_ = f.height;
  }
  draw_bound(f, c, out_);
  GLint old_fb = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &old_fb);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fb_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  rgb->resize(static_cast<std::size_t>(f.width) * f.height * 3);
  // Row 0 of the target is the frame's top row (main.glsl), so the readback is in image order.
  glReadPixels(0, 0, f.width, f.height, GL_RGB, GL_UNSIGNED_BYTE, rgb->data());
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<unsigned>(old_fb));
  const GLenum err = glGetError();
  if (err != GL_NO_ERROR)
    throw ShaderError("OpenGL error " + std::to_string(err) + " while colouring with " + origin_);
}

void ColourShader::colour(int w, int h, const uint32_t* counts, const float* smooth,
                          const colour::Colouring& c, std::vector<uint8_t>* rgb) {
  ShaderFrame f;
  f.width = w;
  f.height = h;
  f.counts = counts;
  f.smooth = smooth;
  colour(f, c, rgb);
}

}  // namespace ds::render
