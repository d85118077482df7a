// The PNG of a rendered Mandelbrot view with its location embedded as a tEXt chunk: the one
// function behind both `deepscope render` and the window's screenshots.
#pragma once
#include <string>

#include "kernels/mandelbrot.h"
#include "kernels/palette.h"
#include "location.h"

namespace ds::app {

// The location record of a view and the colouring it was drawn with.
Location location_of(const mandel::View& v, const std::string& palette_name, const mandel::Colouring& c,
                     const std::string& format_used);
// Colours `r` and encodes it as PNG bytes with location_of(...) embedded.
std::string mandelbrot_png(const mandel::View& v, const mandel::RenderResult& r, const std::string& palette_name,
                           const mandel::Colouring& c);

}  // namespace ds::app
