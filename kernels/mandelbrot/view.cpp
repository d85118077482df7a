// View validation, exact pixel geometry (MPFR) and the precision rule behind `auto`.
#include "view.h"

#include <mpfr.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "arith/decimal.h"
#include "arith/mpfr_number.h"

namespace ds::mandel {
namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Validates a decimal field and parses it into `out` (rounded to nearest at out's precision).
void parse_field(const char* field, const std::string& text, mpfr_t out) {
  try {
    decimal::validate(text);
  } catch (const ArithError& e) {
    throw ViewError(std::string(field) + ": " + e.what());
  }
  std::string t = trim(text);
  char* end = nullptr;
  mpfr_strtofr(out, t.c_str(), &end, 10, MPFR_RNDN);
}

// "0.<digits>e<exp>" with `digits` significant digits of x (x != 0).
std::string decimal_string(mpfr_t x, int digits) {
  mpfr_exp_t e10 = 0;
  char* raw = mpfr_get_str(nullptr, &e10, 10, static_cast<size_t>(digits), x, MPFR_RNDN);
  std::string d = raw;
  mpfr_free_str(raw);
  std::string sign;
  if (!d.empty() && d[0] == '-') {
    sign = "-";
    d.erase(0, 1);
  }
  return sign + "0." + d + "e" + std::to_string(static_cast<long>(e10));
}

}  // namespace

std::string format_pow2(double log2_value) {
  if (std::isnan(log2_value)) return "nan";
  if (std::isinf(log2_value)) return log2_value > 0 ? "inf" : "0";
  double l10 = log2_value * 0.30102999566398120;
  double e = std::floor(l10);
  double m = std::pow(10.0, l10 - e);
  if (m >= 9.995) {  // "10.0e13" -> "1.0e14"
    m /= 10;
    e += 1;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2fe%+d", m, static_cast<int>(e));
  return buf;
}

bool parse_iterations(const std::string& text, uint64_t* out) {
  // Digits with at most one '.', then an optional exponent: the value is digits * 10^(exp - decimals),
  // computed exactly in integers (no double: 2^63 - 1 is not a double).
  std::size_t i = 0;
  if (i < text.size() && text[i] == '+') ++i;
  std::string digits;
  long long decimals = 0;
  bool point = false, any = false;
  for (; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch >= '0' && ch <= '9') {
      any = true;
      if (point) ++decimals;
      if (!(digits.empty() && ch == '0')) digits += ch;
      else if (point) digits += ch;  // zeros after the point still scale
    } else if (ch == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!any) return false;
  long long exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) neg = text[i++] == '-';
    if (i >= text.size()) return false;
    for (; i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      if (exponent > 1000) continue;  // far past any count; decided below
      exponent = exponent * 10 + (text[i] - '0');
    }
    if (neg) exponent = -exponent;
  }
  if (i != text.size()) return false;
  // Drop leading zeros (a "0.000" prefix) and the zeros that the exponent divides away.
  std::size_t lead = digits.find_first_not_of('0');
  if (lead == std::string::npos) return false;  // zero
  digits.erase(0, lead);
  long long scale = exponent - decimals;  // value = digits * 10^scale
  while (scale < 0 && !digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++scale;
  }
  if (scale < 0) return false;  // not an integer
  if (scale > 19 || digits.size() + static_cast<std::size_t>(scale) > 19) return false;
  digits.append(static_cast<std::size_t>(scale), '0');
  unsigned __int128 v = 0;
  for (char ch : digits) v = v * 10 + static_cast<unsigned>(ch - '0');
  if (v < 1 || v > kMaxIterations) return false;
  *out = static_cast<uint64_t>(v);
  return true;
}

Geometry geometry(const View& v) {
  if (v.width < 1 || v.height < 1)
    throw ViewError("image size must be at least 1x1, got " + std::to_string(v.width) + "x" +
                    std::to_string(v.height));
  if (v.max_iter < 1 || v.max_iter > kMaxIterations)
    throw ViewError("the iteration limit must be in [1, " + std::to_string(kMaxIterations) + "], got " +
                    std::to_string(v.max_iter));
  Geometry g;
  g.height = v.height;
  g.re = trim(v.re);
  g.im = trim(v.im);
  const mpfr_prec_t p = kGeometryBits;
  Mpfr re(p), im(p), zoom(p), half(p), t(p), ext(64);
  parse_field("centre re", v.re, re.v);
  parse_field("centre im", v.im, im.v);
  parse_field("zoom", v.zoom, zoom.v);
  if (mpfr_sgn(zoom.v) <= 0) throw ViewError("zoom must be positive, got \"" + trim(v.zoom) + "\"");
  g.re_d = mpfr_get_d(re.v, MPFR_RNDN);
  g.im_d = mpfr_get_d(im.v, MPFR_RNDN);

  Mpfr l(64);
  mpfr_log2(l.v, zoom.v, MPFR_RNDN);
  g.log2_zoom = mpfr_get_d(l.v, MPFR_RNDN);

  mpfr_mul_ui(t.v, zoom.v, static_cast<unsigned long>(v.height), MPFR_RNDN);
  mpfr_ui_div(half.v, 2, t.v, MPFR_RNDN);  // s/2 = 2/(zoom*height)
  g.half_step = decimal_string(half.v, decimal::digits_for_bits(kGeometryBits));
  g.half_step_d = mpfr_get_d(half.v, MPFR_RNDN);
  mpfr_log2(l.v, half.v, MPFR_RNDN);
  g.log2_step = mpfr_get_d(l.v, MPFR_RNDN) + 1.0;

  const double* m = v.pixel_map;
  for (int k = 0; k < 4; ++k) {
    if (!std::isfinite(m[k]))
      throw ViewError("pixel map (rotate/ratio): entry " + std::to_string(k) + " is not finite");
    g.pixel_map[k] = m[k];
  }
  g.exp_map = v.exp_map;
  g.square_pixels = v.pixel_map_identity() && !v.exp_map;
  g.map_norm = v.pixel_map_identity() ? 1.0 : std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + m[3] * m[3]);
  if (v.exp_map) {
    // Neighbours on the outermost ring are R 2 pi / w apart (columns) and R ln 2 / h (rows), R the
    // half-diagonal in pixels.
    const double r = 0.5 * std::hypot(static_cast<double>(v.width), static_cast<double>(v.height));
    g.max_pixel_scale = std::max(1.0, r * std::max(6.283185307179586 / v.width, 0.6931471805599453 / v.height));
  }
  const double det = m[0] * m[3] - m[1] * m[2];
  if (!(std::fabs(det) > 1e-12 * g.map_norm * g.map_norm))
    throw ViewError("pixel map (rotate/ratio) is singular: it would draw the view as a line");

  // Half extents: vertical 2/zoom, horizontal width/height times that (times the map's norm).
  mpfr_ui_div(ext.v, 2, zoom.v, MPFR_RNDU);
  double ev = mpfr_get_d(ext.v, MPFR_RNDU);
  double eh = ev * (static_cast<double>(v.width) / v.height);
  if (v.exp_map) {
    ev = eh = std::hypot(ev, eh) * g.map_norm;  // every pixel within the half-diagonal's radius
  } else if (!g.square_pixels) {
    ev = eh = std::max(ev, eh) * g.map_norm;
  }
  g.max_coord = std::max(std::fabs(g.re_d) + eh, std::fabs(g.im_d) + ev);
  if (!(g.max_coord <= kMaxCoordinate)) {
    std::string reach = "|c| = " + format_pow2(std::log2(g.max_coord));
    if (!std::isfinite(g.max_coord)) {
      // Beyond double (a centre of 5 million digits printed "|c| = inf"): the largest of |re|,
      // |im| and the half extent, from MPFR, which is the reach within a factor 2.
      Mpfr a(64), b(64);
      mpfr_abs(a.v, re.v, MPFR_RNDN);
      mpfr_abs(b.v, im.v, MPFR_RNDN);
      mpfr_max(a.v, a.v, b.v, MPFR_RNDN);
      mpfr_max(a.v, a.v, ext.v, MPFR_RNDN);
      mpfr_log2(a.v, a.v, MPFR_RNDN);
      reach = "|c| of about " + format_pow2(mpfr_get_d(a.v, MPFR_RNDN));
    }
    throw ViewError("the view reaches " + reach +
                    "; views must stay within |Re c|, |Im c| <= 1e12 (the set lies within |c| <= 2): "
                    "raise the zoom or move the centre");
  }
  return g;
}

Tile clip_tile(const View& v, const Tile& t) {
  Tile r = t;
  if (r.width == 0) r.width = v.width - r.x0;
  if (r.height == 0) r.height = v.height - r.y0;
  if (r.x0 < 0 || r.y0 < 0 || r.width < 1 || r.height < 1 || r.x0 + r.width > v.width ||
      r.y0 + r.height > v.height)
    throw ViewError("tile " + std::to_string(t.width) + "x" + std::to_string(t.height) + "+" +
                    std::to_string(t.x0) + "+" + std::to_string(t.y0) + " is empty or leaves the " +
                    std::to_string(v.width) + "x" + std::to_string(v.height) + " image");
  return r;
}

int grid_index(int k, int n, int extent) {
  return static_cast<int>((static_cast<int64_t>(2 * k + 1) * extent) / (2 * static_cast<int64_t>(n)));
}

std::vector<PixelIndex> grid_pixels(const View& v, int n) {
  std::vector<PixelIndex> out;
  out.reserve(static_cast<size_t>(n) * static_cast<size_t>(n));
  for (int b = 0; b < n; ++b)
    for (int a = 0; a < n; ++a) out.push_back({grid_index(a, n, v.width), grid_index(b, n, v.height)});
  return out;
}

double log2_zoom_limit(Arith a, const Geometry& g, int guard_bits) {
  const FormatTraits t = arith_traits(a);
  const double ninf = -std::numeric_limits<double>::infinity();
  // zoom <= 4 / (height * r * 2^g), with r the resolution needed at the view's coordinates.
  const double base = 2.0 - std::log2(static_cast<double>(g.height)) - guard_bits;
  if (t.fixed) {
    if (t.max_abs < kFixedRangeNeeded || g.max_coord > t.max_abs / 2) return ninf;
    return base - std::log2(t.eps);
  }
  if (g.max_coord > std::sqrt(t.max_abs) / 64) return ninf;
  double scale = std::max(2.0, g.max_coord);
  double by_eps = base - std::log2(t.eps) - std::log2(scale);
  double by_min = base - std::log2(t.min_abs);  // differences near pixel size must stay normal
  return std::min(by_eps, by_min);
}

int iteration_guard_bits(uint64_t max_iter) {
  if (max_iter <= 1) return 0;
  return static_cast<int>(std::ceil(0.5 * std::log2(static_cast<double>(max_iter))));
}

bool resolves(Arith a, const Geometry& g, int guard_bits, std::string* why) {
  double lim = log2_zoom_limit(a, g, guard_bits);
  if (g.log2_zoom <= lim) return true;
  if (why) {
    const FormatTraits t = arith_traits(a);
    if (std::isinf(lim)) {
      *why = std::string(t.name) + " cannot hold this view: " +
             (t.fixed ? "its range |x| < " + format_pow2(std::log2(t.max_abs)) +
                            " is too small for the coordinates or the iteration (needs 64 and 2|c|)"
                      : std::string("the coordinates are beyond its range"));
    } else {
      *why = std::string(t.name) + " resolves pixels only up to zoom " + format_pow2(lim) + " at height " +
             std::to_string(g.height) + " (" + (t.fixed ? "resolution " : "unit roundoff ") +
             format_pow2(std::log2(t.eps)) + ", " + std::to_string(guard_bits) +
             " guard bits); this view's zoom is " + format_pow2(g.log2_zoom);
    }
  }
  return false;
}

Arith choose_arith(const Geometry& g, int guard_bits) {
  bool found = false;
  Arith best = Arith::kF64;
  double best_cost = 0;
  Arith deepest = Arith::kF64;
  double deepest_lim = -std::numeric_limits<double>::infinity();
  for (Arith a : all_ariths()) {
    double lim = log2_zoom_limit(a, g, guard_bits);
    if (lim > deepest_lim) {
      deepest_lim = lim;
      deepest = a;
    }
    if (g.log2_zoom > lim) continue;
    double cost = arith_traits(a).rel_cost;
    if (!found || cost < best_cost) {
      found = true;
      best = a;
      best_cost = cost;
    }
  }
  if (!found)
    throw ViewError("no format resolves zoom " + format_pow2(g.log2_zoom) + " at height " +
                    std::to_string(g.height) + ": the most precise, " + arith_name(deepest) +
                    ", reaches zoom " + format_pow2(deepest_lim) + " (" + std::to_string(guard_bits) +
                    " guard bits)");
  return best;
}

void require_resolves(Arith a, const Geometry& g, int guard_bits, int auto_guard_bits) {
  std::string why;
  if (resolves(a, g, guard_bits, &why)) return;
  std::string alt;
  try {
    alt = std::string("; ") + arith_name(choose_arith(g, auto_guard_bits)) +
          " would work (--arith auto picks the cheapest format that does)";
  } catch (const ViewError& e) {
    alt = std::string("; ") + e.what();  // no format reaches this zoom
  }
  throw ViewError(why + alt);
}

}  // namespace ds::mandel
