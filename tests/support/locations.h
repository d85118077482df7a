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

// A Kalles Fraktaler benchmark file of tests/data/kf-benchmarks (Re, Im, Zoom, Iterations) as a view
// of w x h pixels.
inline mandel::View kfr_view(const std::string& name, int w, int h) {
  const std::string text = slurp(std::string(DEEPSCOPE_TEST_DATA) + "/kf-benchmarks/" + name);
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    kv[line.substr(0, colon)] = value;
  }
  mandel::View v;
  v.re = kv["Re"];
  v.im = kv["Im"];
  v.zoom = kv["Zoom"];
  v.max_iter = std::stoull(kv.count("Iterations") ? kv["Iterations"] : "1000");
  v.width = w;
  v.height = h;
  return v;
}

// A location file of ours (docs/mandelbrot.md: "key = value" lines, # comments) under tests/data as
// a view of w x h pixels: re, im, zoom and iterations (files with an identity pixel map only).
inline mandel::View loc_view(const std::string& rel, int w, int h) {
  const std::string text = slurp(std::string(DEEPSCOPE_TEST_DATA) + "/" + rel);
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    auto trim = [](std::string x) {
      while (!x.empty() && (x.back() == '\r' || x.back() == ' ')) x.pop_back();
      while (!x.empty() && x.front() == ' ') x.erase(0, 1);
      return x;
    };
    kv[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  mandel::View v;
  v.re = kv["re"];
  v.im = kv["im"];
  v.zoom = kv["zoom"];
  v.max_iter = std::stoull(kv.count("iterations") ? kv["iterations"] : "1000");
  v.width = w;
  v.height = h;
  return v;
}

}  // namespace ds::test
