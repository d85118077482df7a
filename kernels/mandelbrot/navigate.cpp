// Full-precision view navigation with MPFR.
#include "navigate.h"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "arith/mpfr_number.h"

namespace ds::mandel {
namespace {

// Bits that hold the centre to far below one pixel at `log2_zoom` (coordinates up to 2^40).
mpfr_prec_t bits_for(double log2_zoom, int height) {
  double b = std::max(log2_zoom, 0.0) + std::log2(std::max(height, 1)) + 40 + 64;
  return static_cast<mpfr_prec_t>(std::min(b, 4.0e6));
}

// Decimal digits for a value that must resolve 2^-(log2_zoom + log2 height + 20).
std::string to_decimal(const Mpfr& x, double log2_zoom, int height) {
  double digits = (std::max(log2_zoom, 0.0) + std::log2(std::max(height, 1)) + 24) * 0.30103 + 4;
  if (mpfr_zero_p(x.v)) return "0";
  mpfr_exp_t e10 = 0;
  // Significant digits: integer digits of x plus the fraction digits the zoom needs.
  double int_digits = std::max(0.0, std::ceil(mpfr_get_exp(x.v) * 0.30103));
  size_t n = static_cast<size_t>(digits + int_digits);
  char* raw = mpfr_get_str(nullptr, &e10, 10, n, x.v, MPFR_RNDN);
  std::string d = raw;
  mpfr_free_str(raw);
  bool neg = d[0] == '-';
  if (neg) d.erase(0, 1);
  // value = 0.d1 d2 ... * 10^e10, written in positional notation
  std::string out = neg ? "-" : "";
  if (e10 <= 0) {
    out += "0." + std::string(static_cast<size_t>(-e10), '0') + d;
  } else if (static_cast<size_t>(e10) >= d.size()) {
    out += d + std::string(static_cast<size_t>(e10) - d.size(), '0');
  } else {
    out += d.substr(0, static_cast<size_t>(e10)) + "." + d.substr(static_cast<size_t>(e10));
  }
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

// The new centre (re, im) = P + (C - P) * k, where P is the point under (x, y), k = 1/factor.
void transform(const View& v, double x, double y, double k, std::string* re, std::string* im, double log2_zoom_out) {
  Geometry g = geometry(v);
  mpfr_prec_t p = bits_for(std::max(g.log2_zoom, log2_zoom_out), v.height);
  Mpfr s(p), cre(p), cim(p), dx(p), dy(p);
  mpfr_set_str(s.v, g.half_step.c_str(), 10, MPFR_RNDN);
  mpfr_mul_2ui(s.v, s.v, 1, MPFR_RNDN);  // s = pixel spacing
  mpfr_set_str(cre.v, g.re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(cim.v, g.im.c_str(), 10, MPFR_RNDN);
  // offset of P from the centre, in pixels (exact in a double), times s
  mpfr_mul_d(dx.v, s.v, x - v.width / 2.0, MPFR_RNDN);
  mpfr_mul_d(dy.v, s.v, -(y - v.height / 2.0), MPFR_RNDN);
  // new centre = C + offset * (1 - k)
  mpfr_mul_d(dx.v, dx.v, 1.0 - k, MPFR_RNDN);
  mpfr_mul_d(dy.v, dy.v, 1.0 - k, MPFR_RNDN);
  mpfr_add(cre.v, cre.v, dx.v, MPFR_RNDN);
  mpfr_add(cim.v, cim.v, dy.v, MPFR_RNDN);
  *re = to_decimal(cre, log2_zoom_out, v.height);
  *im = to_decimal(cim, log2_zoom_out, v.height);
}

}  // namespace

View zoom_about(const View& v, double x, double y, double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) throw ViewError("zoom factor must be a positive number");
  Geometry g = geometry(v);
  View out = v;
  double new_log2 = g.log2_zoom + std::log2(factor);
  transform(v, x, y, 1.0 / factor, &out.re, &out.im, new_log2);
  // zoom * factor, printed with 17 significant digits (the zoom itself needs no more)
  mpfr_prec_t p = 128;
  Mpfr z(p);
  mpfr_set_str(z.v, v.zoom.c_str(), 10, MPFR_RNDN);
  mpfr_mul_d(z.v, z.v, factor, MPFR_RNDN);
  mpfr_exp_t e10;
  char* raw = mpfr_get_str(nullptr, &e10, 10, 17, z.v, MPFR_RNDN);
  std::string d = raw;
  mpfr_free_str(raw);
  while (d.size() > 1 && d.back() == '0') d.pop_back();
  out.zoom = d.substr(0, 1) + (d.size() > 1 ? "." + d.substr(1) : "") + "e" + std::to_string(static_cast<long>(e10) - 1);
  return out;
}

View pan_pixels(const View& v, double dx, double dy) {
  View out = v;
  Geometry g = geometry(v);
  // Moving the centre to the point at (W/2 - dx, H/2 - dy) makes the picture follow the drag.
  transform(v, v.width / 2.0 - dx, v.height / 2.0 - dy, 0.0, &out.re, &out.im, g.log2_zoom);
  return out;
}

void point_at(const View& v, double x, double y, std::string* re, std::string* im) {
  Geometry g = geometry(v);
  transform(v, x, y, 0.0, re, im, g.log2_zoom);
}

bool pixel_of(const View& v, const std::string& re, const std::string& im, double* x, double* y) {
  Geometry g;
  try {
    g = geometry(v);
  } catch (const ViewError&) {
    return false;
  }
  const mpfr_prec_t p = bits_for(g.log2_zoom, v.height);
  Mpfr s(p), a(p), b(p);
  char* end = nullptr;
  mpfr_set_str(s.v, g.half_step.c_str(), 10, MPFR_RNDN);
  mpfr_mul_2ui(s.v, s.v, 1, MPFR_RNDN);
  if (mpfr_strtofr(a.v, re.c_str(), &end, 10, MPFR_RNDN), re.empty() || *end) return false;
  if (mpfr_strtofr(b.v, im.c_str(), &end, 10, MPFR_RNDN), im.empty() || *end) return false;
  Mpfr c(p);
  mpfr_set_str(c.v, g.re.c_str(), 10, MPFR_RNDN);
  mpfr_sub(a.v, a.v, c.v, MPFR_RNDN);
  mpfr_div(a.v, a.v, s.v, MPFR_RNDN);
  mpfr_set_str(c.v, g.im.c_str(), 10, MPFR_RNDN);
  mpfr_sub(b.v, b.v, c.v, MPFR_RNDN);
  mpfr_div(b.v, b.v, s.v, MPFR_RNDN);
  const double dx = mpfr_get_d(a.v, MPFR_RNDN), dy = mpfr_get_d(b.v, MPFR_RNDN);
  if (!(std::fabs(dx) <= 0x1p40) || !(std::fabs(dy) <= 0x1p40)) return false;
  *x = v.width / 2.0 + dx;
  *y = v.height / 2.0 - dy;
  return true;
}

std::vector<View> zoom_path(const View& from, const View& to, int frames) {
  const Geometry g0 = geometry(from), g1 = geometry(to);
  double x = 0, y = 0;
  if (!pixel_of(from, to.re, to.im, &x, &y))
    throw ViewError("the target is too far from the view to animate the zoom to it");
  const double dlog2 = g1.log2_zoom - g0.log2_zoom;
  frames = std::max(frames, 1);
  frames = std::max(frames, static_cast<int>(std::ceil(std::fabs(dlog2) / 512)));
  const double factor = std::exp2(dlog2 / frames);
  const double ox = x - from.width / 2.0, oy = y - from.height / 2.0;  // the target's first offset
  std::vector<View> out;
  View v = from;
  for (int i = 1; i < frames; ++i) {
    v = zoom_about(v, x, y, factor);  // the target keeps its pixel (x, y)
    const double nx = from.width / 2.0 + ox * (1.0 - static_cast<double>(i) / frames);
    const double ny = from.height / 2.0 + oy * (1.0 - static_cast<double>(i) / frames);
    // The target's pixel measured again (the rounding of each step would grow by `factor` a frame).
    if (!pixel_of(v, to.re, to.im, &x, &y))
      throw ViewError("the target is too far from the view to animate the zoom to it");
    v = pan_pixels(v, nx - x, ny - y);  // the picture, and the target with it, moves by (nx - x, ny - y)
    if (!pixel_of(v, to.re, to.im, &x, &y))
      throw ViewError("the target is too far from the view to animate the zoom to it");
    v.max_iter = from.max_iter;
    out.push_back(v);
  }
  out.push_back(to);
  return out;
}

}  // namespace ds::mandel
