// Moving a Mandelbrot view at full precision: zoom about a point of the image and pan by pixels.
// The window's mouse handling and scripted tests use these; the centre strings keep every digit
// the new zoom needs, never passing through a double.
#pragma once
#include <vector>

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

// The image point of the complex coordinate (re, im): point_at's inverse. False where the point is
// more than 2^40 pixels from the centre (no double holds it) or the view or the numbers are bad.
bool pixel_of(const View& v, const std::string& re, const std::string& im, double* x, double* y);

// The views of an animated zoom from `from` to `to` (of the same size): each step zooms by the same
// factor about the pixel where `to`'s centre lies (so that point keeps its pixel) and pans that
// point 1/frames of its first offset towards the image's centre, so log zoom and the point's place
// on the screen move linearly. Returns `frames` views, the last one `to` itself; more frames than
// asked where one step would exceed a factor 2^512. Throws ViewError for bad views, or when `to`'s
// centre is not within 2^40 pixels of `from`'s.
std::vector<View> zoom_path(const View& from, const View& to, int frames);

}  // namespace ds::mandel
