// Full-precision view navigation with MPFR.
#include "navigate.h"

#include <mpfr.h>

#include <cmath>
#include <memory>

namespace ds::mandel {
namespace {

struct M {
  mpfr_t v;
  explicit M(mpfr_prec_t p) { mpfr_init2(v, p); }
  ~M() { mpfr_clear(v); }
  M(const M&) = delete;
  M& operator=(const M&) = delete;
};

// Bits that hold the centre to far below one pixel at `log2_zoom` (coordinates up to 2^40).
mpfr_prec_t bits_for(double log2_zoom, int height) {
  double b = std::max(log2_zoom, 0.0) + std::log2(std::max(height, 1)) + 40 + 64;
  return static_cast<mpfr_prec_t>(std::min(b, 4.0e6));
}

// Decimal digits for a value that must resolve 2^-(log2_zoom + log2 height + 20).
std::string to_decimal(const M& x, double log2_zoom, int height) {
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
  M s(p), cre(p), cim(p), dx(p), dy(p);
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
  M z(p);
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

}  // namespace ds::mandel
