// Views (and how to make one) the Mandelbrot, perturbation and strip-render tests share.
#pragma once
#include <mpfr.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>

#include "kernels/mandelbrot/view.h"
#include "kernels/mandelbrot/locations.h"
#include "test_files.h"

namespace ds::test {

// A view from its centre, zoom, iteration limit and size.
inline mandel::View make_view(const std::string& re, const std::string& im, const std::string& zoom,
                              uint32_t iter, int w = 64, int h = 64) {
  mandel::View v;
  v.re = re;
  v.im = im;
  v.zoom = zoom;
  v.max_iter = iter;
  v.width = w;
  v.height = h;
  return v;
}

// The period-135 minibrot's nucleus near -0.4844 + 0.6419i (assets/locations/minibrot-1e50.loc).
inline const char* const kMinibrot135Re =
    "-0.484395956262377591912828656474685238049864177911741926079999402043058848843181343925466199";
inline const char* const kMinibrot135Im =
    "0.641892409913951884435415149631949404987297663004783532052451370814162802443102775516871075";

// x + dx, printed with 120 digits after the point (exact at 600 bits).
inline std::string shifted(const char* x, double dx) {
  mpfr_t a;
  mpfr_init2(a, 600);
  mpfr_set_str(a, x, 10, MPFR_RNDN);
  mpfr_add_d(a, a, dx, MPFR_RNDN);
  char buf[200];
  mpfr_snprintf(buf, sizeof buf, "%.120Rf", a);
  mpfr_clear(a);
  return buf;
}

// The shared locations (kernels/mandelbrot/locations.h): KF's 1e14 benchmark and a Misiurewicz point.
using mandel::locations::kKf1e14Im;
using mandel::locations::kKf1e14Re;
using mandel::locations::kMisiurewiczIm;
using mandel::locations::kMisiurewiczRe;

// The "key<sep>value" lines of a file under tests/data (values trimmed of spaces and CR; lines
// without sep, and # comments, skipped).
inline std::map<std::string, std::string> data_file_keys(const std::string& rel, char sep) {
  const std::string text = slurp(std::string(DEEPSCOPE_TEST_DATA) + "/" + rel);
  auto trim = [](std::string x) {
    while (!x.empty() && (x.back() == '\r' || x.back() == ' ')) x.pop_back();
    while (!x.empty() && x.front() == ' ') x.erase(0, 1);
    return x;
  };
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(sep);
    if (line.empty() || line[0] == '#' || at == std::string::npos) continue;
    kv[trim(line.substr(0, at))] = trim(line.substr(at + 1));
  }
  return kv;
}

// A view of w x h pixels from a file's centre, zoom and iterations keys (1000 iterations if none).
inline mandel::View keyed_view(std::map<std::string, std::string> kv, const char* re, const char* im,
                               const char* zoom, const char* iterations, int w, int h) {
  mandel::View v;
  v.re = kv[re];
  v.im = kv[im];
  v.zoom = kv[zoom];
  v.max_iter = std::stoull(kv.count(iterations) ? kv[iterations] : "1000");
  v.width = w;
  v.height = h;
  return v;
}

// A Kalles Fraktaler benchmark file of tests/data/kf-benchmarks (Re, Im, Zoom, Iterations) as a view
// of w x h pixels.
inline mandel::View kfr_view(const std::string& name, int w, int h) {
  return keyed_view(data_file_keys("kf-benchmarks/" + name, ':'), "Re", "Im", "Zoom", "Iterations", w, h);
}

// A location file of ours (docs/mandelbrot.md: "key = value" lines, # comments) under tests/data as
// a view of w x h pixels: re, im, zoom and iterations (files with an identity pixel map only).
inline mandel::View loc_view(const std::string& rel, int w, int h) {
  return keyed_view(data_file_keys(rel, '='), "re", "im", "zoom", "iterations", w, h);
}

}  // namespace ds::test
