// The PNG of a rendered Mandelbrot view with its location embedded as a tEXt chunk: the one
// function behind both `deepscope render` and the window's screenshots.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "colouring.h"
#include "kernels/colour/palette.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "location.h"

namespace ds::app {

// tEXt keywords beside kPngLocationKey: what a perturbation render did (glitch counts, why the
// reference stopped), and the result of `render --verify` (kernels/perturb/oracle.h).
constexpr const char* kPngPerturbKey = "deepscope-perturb";
constexpr const char* kPngVerifyKey = "deepscope-verify";
// What a direct render's error estimate did (direct_text): undecided pixels, decided by wider
// formats, unresolved.
constexpr const char* kPngDirectKey = "deepscope-direct";
// The stripe average's parameters and how many pixels BLA left approximate (stripe_text).
constexpr const char* kPngStripeKey = "deepscope-stripe";

// The location record of a view and the colouring it was drawn with.
Location location_of(const mandel::View& v, const std::string& palette_name, const colour::Colouring& c,
                     const std::string& format_used);
// "key = value" lines of r.perturb's glitch counts and reference stop (kPngPerturbKey's text).
std::string perturb_text(const mandel::RenderResult& r);
// The first lines of stripe_text: "density = D\nmemory = M\n" (what a frame's colouring is compared by).
std::string stripe_parameters(int density, double memory);
// "key = value" lines of a direct render's undecided pixels (kPngDirectKey's text).
std::string direct_text(const mandel::RenderResult& r);
// "key = value" lines of the stripe average (kPngStripeKey), "" when r has none.
std::string stripe_text(const mandel::RenderResult& r);
// The text chunks of a view's file: (kPngLocationKey, location), (kPngColourKey, colour_record), and
// (kPngPerturbKey, perturb_text(r)) for a perturbation render, (kPngDirectKey, direct_text(r)) for a
// direct one (PNG and EXR headers alike).
std::vector<std::pair<std::string, std::string>> view_text(const mandel::View& v, const mandel::RenderResult& r,
                                                           const std::string& palette_name,
                                                           const colour::Colouring& c,
                                                           const std::string& colour_record);
// Colours `r` with `shader` (colour_frame: GLSL in a headless context, or the C++ fallback) and
// encodes it as PNG bytes with location_of(...) embedded, the colouring record (kPngColourKey),
// perturb_text(r) for a perturbation render, and the `extra` (keyword, text) chunks. *note gets
// colour_frame's note (the fallback's, or data the shader reads and the render lacks).
std::string mandelbrot_png(const mandel::View& v, const mandel::RenderResult& r,
                           const std::string& palette_name, const colour::Colouring& c,
                           const std::vector<std::pair<std::string, std::string>>& extra = {},
                           const ShaderSpec& shader = ShaderSpec{}, std::string* note = nullptr);
// The same with the colours given (the window colours in its own GL context): rgb, 3 bytes a pixel.
std::string mandelbrot_png_rgb(const mandel::View& v, const mandel::RenderResult& r,
                               const std::string& palette_name, const colour::Colouring& c,
                               const std::vector<uint8_t>& rgb, const std::string& colour_record,
                               const std::vector<std::pair<std::string, std::string>>& extra = {});

}  // namespace ds::app
