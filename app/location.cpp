// Location files: parsing (ours and Kalles Fraktaler's), formatting, and reading from PNGs.
#include "location.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "arith/decimal.h"
#include "kernels/atomic_file.h"
#include "image_io.h"

namespace ds::app {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

[[noreturn]] void bad(const std::string& source, int line, const std::string& why) {
  throw IoError("location " + source + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + why);
}

std::string number(const std::string& source, int line, const std::string& key, const std::string& v) {
  try {
    decimal::validate(v);
  } catch (const ArithError& e) {
    bad(source, line, key + ": " + e.what());
  }
  return v;
}

int64_t integer(const std::string& source, int line, const std::string& key, const std::string& v,
                int64_t min, int64_t max) {
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || x < min || x > max)
    bad(source, line,
        key + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got \"" +
            v + "\"");
  return x;
}

double real(const std::string& source, int line, const std::string& key, const std::string& v) {
  errno = 0;
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || errno == ERANGE || !(x == x) || x - x != 0)
    bad(source, line, key + " must be a finite number, got \"" + v + "\"");
  return x;
}

}  // namespace

Location parse_location(const std::string& text, const std::string& source) {
  Location loc;
  std::istringstream in(text);
  std::string raw;
  int line = 0;
  bool have_re = false, have_im = false, have_zoom = false;
  while (std::getline(in, raw)) {
    ++line;
    std::string l = raw;
    size_t hash = l.find_first_of("#;");
    if (hash != std::string::npos) l = l.substr(0, hash);
    l = trim(l);
    if (l.empty()) continue;
    size_t sep = l.find_first_of("=:");
    if (sep == std::string::npos) bad(source, line, "expected \"key = value\", got \"" + trim(raw) + "\"");
    std::string key = lower(trim(l.substr(0, sep)));
    std::string v = trim(l.substr(sep + 1));
    if (key == "re") {
      loc.re = number(source, line, "re", v);
      have_re = true;
    } else if (key == "im") {
      loc.im = number(source, line, "im", v);
      have_im = true;
    } else if (key == "zoom") {
      loc.zoom = number(source, line, "zoom", v);
      have_zoom = true;
    } else if (key == "iterations") {
      loc.iterations = static_cast<uint32_t>(integer(source, line, key, v, 1, 0xFFFFFFFELL));
    } else if (key == "width") {
      loc.width = static_cast<int>(integer(source, line, key, v, 1, 1 << 20));
    } else if (key == "height") {
      loc.height = static_cast<int>(integer(source, line, key, v, 1, 1 << 20));
    } else if (key == "palette") {
      if (v.empty()) bad(source, line, "palette is empty");
      loc.palette = v;
    } else if (key == "density") {
      loc.density = real(source, line, key, v);
    } else if (key == "offset") {
      loc.offset = real(source, line, key, v);
    } else if (key == "format_used") {
      loc.format_used = v;
    }
    // Anything else (a .kfr's colours, ratio, ...) is ignored.
  }
  if (!have_re || !have_im || !have_zoom)
    bad(source, 0,
        std::string("missing ") +
            (!have_re   ? "re"
             : !have_im ? "im"
                        : "zoom") +
            " (a location needs re, im and zoom)");
  return loc;
}

std::string format_location(const Location& loc) {
  std::ostringstream o;
  o << "# deepscope location (docs/mandelbrot.md)\n";
  o << "re = " << loc.re << "\n";
  o << "im = " << loc.im << "\n";
  o << "zoom = " << loc.zoom << "\n";
  if (loc.iterations) o << "iterations = " << *loc.iterations << "\n";
  if (loc.width) o << "width = " << *loc.width << "\n";
  if (loc.height) o << "height = " << *loc.height << "\n";
  if (loc.palette) o << "palette = " << *loc.palette << "\n";
  char buf[64];
  if (loc.density) {
    std::snprintf(buf, sizeof buf, "%.17g", *loc.density);
    o << "density = " << buf << "\n";
  }
  if (loc.offset) {
    std::snprintf(buf, sizeof buf, "%.17g", *loc.offset);
    o << "offset = " << buf << "\n";
  }
  if (!loc.format_used.empty()) o << "format_used = " << loc.format_used << "\n";
  return o.str();
}

std::string format_kfr(const Location& loc) {
  std::ostringstream o;
  o << "Re: " << loc.re << "\r\nIm: " << loc.im << "\r\nZoom: " << loc.zoom << "\r\n";
  if (loc.iterations) o << "Iterations: " << *loc.iterations << "\r\n";
  return o.str();
}

Location read_location_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw IoError("cannot read location \"" + path + "\": " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  const std::string data = ss.str();
  if (f.bad()) throw IoError("cannot read location \"" + path + "\"");
  if (is_png(data)) {
    std::string text;
    if (!png_find_text(data, kPngLocationKey, &text))
      throw IoError("location \"" + path + "\": this PNG carries no deepscope location (tEXt \"" +
                    kPngLocationKey + "\")");
    return parse_location(text, path);
  }
  if (data.find('\0') != std::string::npos)
    throw IoError("location \"" + path + "\": not a text file or PNG");
  return parse_location(data, path);
}

}  // namespace ds::app
