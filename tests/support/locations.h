// Views (and how to make one) the Mandelbrot, perturbation and strip-render tests share.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/mandelbrot/view.h"
#include "kernels/mandelbrot/locations.h"

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

}  // namespace ds::test
