// Moving the parameter-plane view, and choosing its format, with the Mandelbrot view's code: a
// plane view is the Mandelbrot view of the same pixels (centre a + i b, vertical extent 4 / zoom),
// so kernels/mandelbrot/navigate.h zooms and pans it at full precision and view.h's resolution
// rule (and its messages) judge whether a format tells its pixels apart.
#include <mpfr.h>

#include <stdexcept>
#include <string>

#include "kernels/mandelbrot/navigate.h"
#include "kernels/mandelbrot/view.h"
#include "kernels/perturb/mpfr_util.h"
#include "plane.h"

namespace ds::henon {
namespace {

std::string print(const mpfr_t v) {
  char buf[64];
  mpfr_snprintf(buf, sizeof buf, "%.20Re", v);
  return buf;
}

// zoom = 4 W / (width H)  <->  width = 4 W / (zoom H): the view's height in b is 4 / zoom.
std::string swap_scale(const std::string& s, int W, int H, const char* what) {
  Mpfr x(160);
  if (mpfr_set_str(x.v, s.c_str(), 10, MPFR_RNDN) != 0 || !(mpfr_sgn(x.v) > 0) || !mpfr_number_p(x.v))
    throw std::invalid_argument(std::string("plane: ") + what + " must be a positive decimal, got " + s);
  mpfr_ui_div(x.v, 4, x.v, MPFR_RNDN);
  mpfr_mul_ui(x.v, x.v, static_cast<unsigned long>(W), MPFR_RNDN);
  mpfr_div_ui(x.v, x.v, static_cast<unsigned long>(H), MPFR_RNDN);
  return print(x.v);
}

mandel::View as_view(const PlaneView& v) {
  mandel::View m;
  m.re = v.centre_a;
  m.im = v.centre_b;
  m.width = v.width_px;
  m.height = v.height_px;
  m.zoom = swap_scale(v.width, v.width_px, v.height_px, "width");
  return m;
}

PlaneView from_view(const PlaneView& v, const mandel::View& m) {
  PlaneView out = v;
  out.centre_a = m.re;
  out.centre_b = m.im;
  out.width = swap_scale(m.zoom, v.width_px, v.height_px, "zoom");
  return out;
}

mandel::Geometry geometry_of(const PlaneView& v) {
  try {
    return mandel::geometry(as_view(v));
  } catch (const mandel::ViewError& e) {
    throw std::invalid_argument(std::string("plane: ") + e.what());
  }
}

}  // namespace

PlaneView plane_zoom_about(const PlaneView& v, double x, double y, double factor) {
  try {
    return from_view(v, mandel::zoom_about(as_view(v), x, y, factor));
  } catch (const mandel::ViewError& e) {
    throw std::invalid_argument(std::string("plane: ") + e.what());
  }
}

PlaneView plane_pan_pixels(const PlaneView& v, double dx, double dy) {
  try {
    PlaneView out = from_view(v, mandel::pan_pixels(as_view(v), dx, dy));
    out.width = v.width;  // a pan keeps the scale, digit for digit
    return out;
  } catch (const mandel::ViewError& e) {
    throw std::invalid_argument(std::string("plane: ") + e.what());
  }
}

Arith plane_auto_arith(const PlaneView& v) {
  const mandel::Geometry g = geometry_of(v);
  const Arith order[] = {Arith::kF64,   Arith::kF64x2, Arith::kF64x3, Arith::kF64x4,
                         Arith::kF64x5, Arith::kF64x6, Arith::kF64x7, Arith::kF64x8};
  for (Arith a : order)
    if (mandel::resolves(a, g)) return a;
  std::string why;
  mandel::resolves(Arith::kF64x8, g, mandel::kGuardBits, &why);
  throw std::invalid_argument("plane: no format tells this view's pixels apart: " + why);
}

void plane_check_resolves(const PlaneView& v) {
  if (arith_traits(v.arith).fixed) return;  // the scan checks the fixed formats' range
  const mandel::Geometry g = geometry_of(v);
  std::string why;
  if (mandel::resolves(v.arith, g, mandel::kForcedGuardBits, &why)) return;
  std::string alt;
  try {
    alt = std::string("; ") + arith_name(plane_auto_arith(v)) + " would work (--arith auto picks it)";
  } catch (const std::invalid_argument& e) {
    alt = std::string("; ") + e.what();
  }
  throw std::invalid_argument("plane: " + why + alt);
}

}  // namespace ds::henon
