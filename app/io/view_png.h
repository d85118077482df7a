// The PNG of a rendered Mandelbrot view with its location embedded as a tEXt chunk: the one
// function behind both `deepscope render` and the window's screenshots.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/colour/palette.h"
#include "location.h"

namespace ds::app {

// tEXt keywords beside kPngLocationKey: what a perturbation render did (glitch counts, why the
// reference stopped), and the result of `render --verify` (kernels/perturb/oracle.h).
constexpr const char* kPngPerturbKey = "deepscope-perturb";
constexpr const char* kPngVerifyKey = "deepscope-verify";

// The location record of a view and the colouring it was drawn with.
Location location_of(const mandel::View& v, const std::string& palette_name, const colour::Colouring& c,
                     const std::string& format_used);
// "key = value" lines of r.perturb's glitch counts and reference stop (kPngPerturbKey's text).
std::string perturb_text(const mandel::RenderResult& r);
// The one colouring of a result that every image file goes through (PNG, antialiased frames, the
// EXR's R, G, B): 8-bit sRGB, 3 bytes a pixel, undecided pixels magenta (colour::colour_pixel).
std::vector<uint8_t> colour_view(const mandel::RenderResult& r, const colour::Colouring& c);
// The text chunks of a view's file: (kPngLocationKey, location), and (kPngPerturbKey,
// perturb_text(r)) for a perturbation render.
std::vector<std::pair<std::string, std::string>> view_text(const mandel::View& v,
                                                           const mandel::RenderResult& r,
                                                           const std::string& palette_name,
                                                           const colour::Colouring& c);
// Encodes `rgb` (colour_view's layout, r's size) as PNG bytes with view_text(...) and the `extra`
// (keyword, text) chunks.
std::string view_png(const mandel::View& v, const mandel::RenderResult& r, const std::vector<uint8_t>& rgb,
                     const std::string& palette_name, const colour::Colouring& c,
                     const std::vector<std::pair<std::string, std::string>>& extra = {});
// view_png of colour_view(r, c).
std::string mandelbrot_png(const mandel::View& v, const mandel::RenderResult& r,
                           const std::string& palette_name, const colour::Colouring& c,
                           const std::vector<std::pair<std::string, std::string>>& extra = {});

}  // namespace ds::app
