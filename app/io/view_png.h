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
// Colours `r` and encodes it as PNG bytes with location_of(...) embedded, perturb_text(r) for a
// perturbation render, and the `extra` (keyword, text) chunks.
std::string mandelbrot_png(const mandel::View& v, const mandel::RenderResult& r,
                           const std::string& palette_name, const colour::Colouring& c,
                           const std::vector<std::pair<std::string, std::string>>& extra = {});

}  // namespace ds::app
