// Moving a Mandelbrot view at full precision: zoom about a point of the image and pan by pixels.
// The window's mouse handling and scripted tests use these; the centre strings keep every digit
// the new zoom needs, never passing through a double.
#pragma once
#include "view.h"

namespace ds::mandel {

// The view zoomed by `factor` (> 1 zooms in) about the image point (x, y), in pixels from the
// image's top-left corner (fractional; pixel (i, j) covers [i, i+1) x [j, j+1)). The point under
// (x, y) stays under (x, y). Throws ViewError for a non-positive or non-finite factor.
View zoom_about(const View& v, double x, double y, double factor);
// The view whose centre is moved by (-dx, -dy) pixels, so that the picture follows a drag by (dx, dy).
View pan_pixels(const View& v, double dx, double dy);
// The complex coordinate under image point (x, y), as decimal strings with enough digits for the zoom.
void point_at(const View& v, double x, double y, std::string* re, std::string* im);

}  // namespace ds::mandel
