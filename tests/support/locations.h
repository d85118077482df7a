// Views (and how to make one) the Mandelbrot, perturbation and strip-render tests share.
#pragma once
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
