// Views (and how to make one) the Mandelbrot, perturbation and strip-render tests share.
#pragma once
#include <cstdint>
#include <string>

#include "kernels/view.h"

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

// A Misiurewicz point (preperiod 11, period 3), to 100 digits: deep zooms to 1e60 and beyond stay
// structured around it.
inline constexpr const char* kMisiurewiczRe =
    "-0.4843959562623775919128287421586067691596124435419865096507798028029960660414365868871991207499025159";
inline constexpr const char* kMisiurewiczIm =
    "0.6418924099139518844354150775006524215199605374875397669595578755542089273055838652129049918350557796";

}  // namespace ds::test
