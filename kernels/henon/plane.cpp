// The Hénon parameter plane and basins as scans: a view's pixels become the scan's parameter grid
// (plane) or its explicit start points (basin), and each pixel's ParamResult becomes one int32.
#include "plane.h"

#include <mpfr.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

#include "arith/decimal.h"
#include "kernels/perturb/mpfr_util.h"

namespace ds::henon {
namespace {

// MPFR precision of the views' arithmetic: wide enough for every format's decimal strings (f64x8: 424
// bits).
constexpr mpfr_prec_t kBits = 1024;

void parse_decimal(const std::string& what, const std::string& s, mpfr_t out) {
  try {
    decimal::validate(s);
  } catch (const ArithError& e) {
    throw std::invalid_argument(what + ": " + e.what());
  }
  mpfr_set_str(out, s.c_str(), 10, MPFR_RNDN);
}

std::string to_decimal(const mpfr_t v, int digits) {
  std::vector<char> buf(static_cast<std::size_t>(digits) + 40);
  mpfr_snprintf(buf.data(), buf.size(), "%.*Re", digits - 1, v);
  return buf.data();
}

void check_side(const char* what, int v) {
  if (v < 1 || v > kMaxImageSide)
    throw std::invalid_argument(std::string(what) + " must be in [1, " + std::to_string(kMaxImageSide) +
                                "], got " + std::to_string(v));
}

// The scan's limit of 1e9 parameters (validate_scan: "na * nb"), named as the image's size.
void check_pixels(const char* what, int w, int h) {
  const int64_t n = int64_t{w} * h;
  if (n > 1'000'000'000)
    throw std::invalid_argument(std::string(what) + ": size " + std::to_string(w) + "x" + std::to_string(h) +
                                " is " + std::to_string(n) + " pixels, over the scan's 1e9");
}

std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

ScanParams plane_scan_params(const PlaneView& v) {
  check_side("plane: width_px", v.width_px);
  check_side("plane: height_px", v.height_px);
  check_pixels("plane", v.width_px, v.height_px);
  Mpfr ca(kBits), cb(kBits), w(kBits), da(kBits), a_min(kBits), b_min(kBits), b_max(kBits), t(kBits);
  parse_decimal("plane: centre_a", v.centre_a, ca.v);
  parse_decimal("plane: centre_b", v.centre_b, cb.v);
  parse_decimal("plane: width", v.width, w.v);
  if (!(mpfr_sgn(w.v) > 0)) throw std::invalid_argument("plane: width must be positive, got " + v.width);
  if (!v.placement.shard.whole()) throw std::invalid_argument("plane: shards are not supported");
  const bool band = v.row_begin != 0 || v.row_end != 0;
  if (band && !(0 <= v.row_begin && v.row_begin < v.row_end && v.row_end <= v.height_px))
    throw std::invalid_argument("plane: band rows [" + std::to_string(v.row_begin) + ", " +
                                std::to_string(v.row_end) + ") must lie within the " +
                                std::to_string(v.height_px) + " rows and hold at least one");
  // da = w / W; a_min = ca - w/2 + da/2; b_min = cb - H da / 2 + da/2; b_max = b_min + (H - 1) da.
  mpfr_div_ui(da.v, w.v, static_cast<unsigned long>(v.width_px), MPFR_RNDN);
  mpfr_sub(t.v, da.v, w.v, MPFR_RNDN);
  mpfr_div_2ui(t.v, t.v, 1, MPFR_RNDN);
  mpfr_add(a_min.v, ca.v, t.v, MPFR_RNDN);
  mpfr_mul_ui(t.v, da.v, static_cast<unsigned long>(v.height_px - 1), MPFR_RNDN);
  mpfr_div_2ui(t.v, t.v, 1, MPFR_RNDN);
  mpfr_sub(b_min.v, cb.v, t.v, MPFR_RNDN);
  mpfr_add(b_max.v, cb.v, t.v, MPFR_RNDN);
  const double lo = mpfr_get_d(b_min.v, MPFR_RNDN), hi = mpfr_get_d(b_max.v, MPFR_RNDN);
  if (!(std::fabs(lo) <= kMaxPlaneB) || !(std::fabs(hi) <= kMaxPlaneB))
    throw std::invalid_argument("plane: b must stay within [-1.5, 1.5]; the view spans b in [" + fmt(lo) +
                                ", " + fmt(hi) + "] (centre_b " + v.centre_b + ", width " + v.width + ")");
  plane_check_resolves(v);
  const int digits = decimal::digits_for_bits(arith_traits(v.arith).bits) + 5;
  ScanParams sp;
  sp.arith = v.arith;
  sp.a_min = to_decimal(a_min.v, digits);
  sp.a_step = to_decimal(da.v, digits);
  sp.na = v.width_px;
  sp.b_min = to_decimal(b_min.v, digits);
  sp.b_step = sp.a_step;
  sp.nb = v.height_px;
  if (band) {  // scan rows ib = H - row_end .. H - row_begin - 1 of the whole grid
    sp.nb = v.row_end - v.row_begin;
    sp.b_first = v.height_px - v.row_end;
  }
  sp.n_init = v.n_init;
  std::copy(v.init_box, v.init_box + 4, sp.init_box);
  sp.n_transient = v.n_transient;
  sp.p_max = v.p_max;
  sp.tol = v.tol;
  sp.bound = v.bound;
  sp.chunk_params = v.chunk_params;
  sp.backend = v.backend;
  sp.chunk_file = v.chunk_file;
  sp.cancel = v.cancel;
  sp.progress = v.progress;
  sp.placement = v.placement;
  return sp;
}

std::pair<std::string, std::string> plane_pixel(const PlaneView& v, int i, int j) {
  const ScanParams sp = plane_scan_params(v);
  if (i < 0 || i >= v.width_px || j < 0 || j >= v.height_px)
    throw std::invalid_argument("plane: pixel (" + std::to_string(i) + ", " + std::to_string(j) +
                                ") is outside the " + std::to_string(v.width_px) + " x " +
                                std::to_string(v.height_px) + " view");
  Mpfr a(kBits), b(kBits), t(kBits);
  mpfr_set_str(a.v, sp.a_min.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(t.v, sp.a_step.c_str(), 10, MPFR_RNDN);
  mpfr_mul_ui(t.v, t.v, static_cast<unsigned long>(i), MPFR_RNDN);
  mpfr_add(a.v, a.v, t.v, MPFR_RNDN);
  mpfr_set_str(b.v, sp.b_min.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(t.v, sp.b_step.c_str(), 10, MPFR_RNDN);
  mpfr_mul_ui(t.v, t.v, static_cast<unsigned long>(v.height_px - 1 - j), MPFR_RNDN);
  mpfr_add(b.v, b.v, t.v, MPFR_RNDN);
  const int digits = decimal::digits_for_bits(arith_traits(v.arith).bits) + 5;
  return {to_decimal(a.v, digits), to_decimal(b.v, digits)};
}

namespace {
void run_of(const ScanResult& r, ImageScanRun* out) {
  out->backend = r.backend;
  out->chunks = r.chunks;
  out->chunks_loaded = r.chunks_loaded;
  out->chunks_run = r.chunks_run;
  out->writer = r.writer;
  out->cancelled = r.cancelled;
  out->seconds = r.seconds;
}
}  // namespace

int32_t attracting_period(const ParamResult& r) {
  for (const CycleFound& c : r.cycles)  // by period
    if (c.sink) return c.period;
  if (r.cycles.empty() && r.aperiodic == 0 && r.escaped > 0) return -1;
  return 0;
}

namespace {

// A chunk's payload of fixed-size binary values, one per parameter, read back with its size checked.
template <class V>
void take_binary(const char* what, int64_t q0, int64_t q1, const std::string& payload, V* dst) {
  const std::size_t n = static_cast<std::size_t>(q1 - q0);
  if (payload.size() != n * sizeof(V))
    throw std::runtime_error(std::string("damaged ") + what + " chunk: " + std::to_string(payload.size()) +
                             " bytes for " + std::to_string(n) + " pixels");
  std::memcpy(dst + q0, payload.data(), payload.size());
}

}  // namespace

constexpr const char* kPlaneMagic = "deepscope-henon-plane v1 ";
constexpr const char* kBasinMagic = "deepscope-henon-basin v1 ";

std::string plane_chunk_header(const PlaneView& v) { return detail::chunk_header(kPlaneMagic, plane_scan_params(v)); }
std::string basin_chunk_header(const BasinView& v) { return detail::chunk_header(kBasinMagic, basin_scan_params(v)); }

PlaneResult plane(const PlaneView& v) {
  const ScanParams sp = plane_scan_params(v);
  const int64_t W = sp.na, H = sp.nb;
  // One int32 per parameter (attracting_period), in the scan's order (row ib = 0 at the bottom):
  // the chunks carry 4 bytes a pixel instead of text records.
  std::vector<int32_t> by_param;
  if (work::is_writer()) by_param.assign(static_cast<std::size_t>(W * H), 0);
  detail::ScanCodec codec;
  codec.magic = kPlaneMagic;
  codec.encode = [](const detail::ChunkItems& c, std::string* payload) {
    payload->resize(static_cast<std::size_t>(c.q1 - c.q0) * sizeof(int32_t));
    for (int64_t q = c.q0; q < c.q1; ++q) {
      ParamResult r;
      detail::merge_items(c.out + (q - c.q0) * c.n_init, c.n_init, c.tol, &r);
      const int32_t k = attracting_period(r);
      std::memcpy(&(*payload)[static_cast<std::size_t>(q - c.q0) * sizeof k], &k, sizeof k);
    }
  };
  codec.take = [&](int64_t q0, int64_t q1, const std::string& payload) {
    take_binary("plane", q0, q1, payload, by_param.data());
  };
  const ScanResult r = detail::scan_with(sp, codec);
  PlaneResult out;
  out.width = static_cast<int>(W);
  out.height = static_cast<int>(H);
  run_of(r, &out);
  if (!r.writer || r.cancelled) return out;
  out.period.resize(static_cast<std::size_t>(W * H));
  for (int64_t j = 0; j < H; ++j)
    for (int64_t i = 0; i < W; ++i) {
      const int32_t k = by_param[static_cast<std::size_t>((H - 1 - j) * W + i)];
      out.period[static_cast<std::size_t>(j * W + i)] = k;
      if (k < 0)
        ++out.escaped;
      else if (k == 0)
        ++out.no_period;
      else
        ++out.with_period;
      out.max_period = std::max(out.max_period, k);
    }
  return out;
}

ScanParams basin_scan_params(const BasinView& v) {
  check_side("basin: width_px", v.width_px);
  check_side("basin: height_px", v.height_px);
  check_pixels("basin", v.width_px, v.height_px);
  Mpfr a(kBits), b(kBits);
  parse_decimal("basin: a", v.a, a.v);
  parse_decimal("basin: b", v.b, b.v);
  if (!(std::fabs(mpfr_get_d(b.v, MPFR_RNDN)) <= kMaxPlaneB))
    throw std::invalid_argument("basin: b must be within [-1.5, 1.5], got " + v.b);
  if (!std::isfinite(v.centre_x)) throw std::invalid_argument("basin: centre_x must be finite");
  if (!std::isfinite(v.centre_y)) throw std::invalid_argument("basin: centre_y must be finite");
  if (!std::isfinite(v.width) || !(v.width > 0))
    throw std::invalid_argument("basin: width must be positive and finite, got " + fmt(v.width));
  if (!v.placement.shard.whole()) throw std::invalid_argument("basin: shards are not supported");
  const double px = v.width / v.width_px, half_h = 0.5 * px * v.height_px;
  const double x_lo = v.centre_x - 0.5 * v.width, x_hi = v.centre_x + 0.5 * v.width;
  const double y_lo = v.centre_y - half_h, y_hi = v.centre_y + half_h;
  if (!(std::max(std::fabs(x_lo), std::fabs(x_hi)) <= v.bound) ||
      !(std::max(std::fabs(y_lo), std::fabs(y_hi)) <= v.bound))
    throw std::invalid_argument("basin: the view [" + fmt(x_lo) + ", " + fmt(x_hi) + "] x [" + fmt(y_lo) +
                                ", " + fmt(y_hi) +
                                "] must lie inside the escape box |x|, |y| <= " + fmt(v.bound));
  ScanParams sp;
  sp.arith = v.arith;
  sp.a_min = v.a;
  sp.a_step = "0";
  sp.na = v.width_px;
  sp.b_min = v.b;
  sp.b_step = "0";
  sp.nb = v.height_px;
  sp.n_init = 1;
  const int64_t W = v.width_px, H = v.height_px;
  sp.start_points.resize(static_cast<std::size_t>(2 * W * H));
  for (int64_t j = 0; j < H; ++j)
    for (int64_t i = 0; i < W; ++i) {
      const std::size_t q = static_cast<std::size_t>(j * W + i);
      sp.start_points[2 * q] = x_lo + (static_cast<double>(i) + 0.5) * px;
      sp.start_points[2 * q + 1] = y_hi - (static_cast<double>(j) + 0.5) * px;
    }
  sp.n_transient = v.n_transient;
  sp.p_max = v.p_max;
  sp.tol = v.tol;
  sp.bound = v.bound;
  sp.chunk_params = v.chunk_params;
  sp.backend = v.backend;
  sp.chunk_file = v.chunk_file;
  sp.cancel = v.cancel;
  sp.progress = v.progress;
  sp.placement = v.placement;
  return sp;
}

BasinResult basin(const BasinView& v) {
  const ScanParams sp = basin_scan_params(v);
  // One item per pixel (n_init = 1), kept as the kernel wrote it: 24 bytes a pixel in the chunks.
  std::vector<detail::ItemOut> items;
  if (work::is_writer()) items.assign(static_cast<std::size_t>(sp.na * sp.nb), detail::ItemOut{-1, 0, 0.0, 0.0});
  detail::ScanCodec codec;
  codec.magic = kBasinMagic;
  codec.encode = [](const detail::ChunkItems& c, std::string* payload) {
    payload->assign(reinterpret_cast<const char*>(c.out),
                    static_cast<std::size_t>(c.q1 - c.q0) * sizeof(detail::ItemOut));
  };
  codec.take = [&](int64_t q0, int64_t q1, const std::string& payload) {
    take_binary("basin", q0, q1, payload, items.data());
  };
  const ScanResult r = detail::scan_with(sp, codec);
  BasinResult out;
  out.width = v.width_px;
  out.height = v.height_px;
  run_of(r, &out);
  if (!r.writer || r.cancelled) return out;
  const std::size_t n = items.size();
  // Cycles of the same period whose canonical points lie within the scan's grouping distance
  // (add_item in scan.cpp) are one attractor.
  const double tol = std::strtod(v.tol.c_str(), nullptr);
  std::map<int32_t, std::vector<std::size_t>> by_period;  // indices into found
  std::vector<Attractor> found;
  std::vector<int64_t> pixel_attractor(n, -1);
  out.id.assign(n, 0);
  for (std::size_t q = 0; q < n; ++q) {
    ParamResult pr;  // one start point: the tolerance plays no part in the merge
    detail::merge_items(&items[q], 1, tol, &pr);
    if (pr.escaped > 0) {
      out.id[q] = -1;
      ++out.escaped;
      continue;
    }
    if (pr.cycles.empty() || !pr.cycles[0].sink) {
      if (!pr.cycles.empty()) ++out.non_sink;
      ++out.no_period;
      continue;
    }
    const CycleFound& c = pr.cycles[0];
    const double g = std::max(100 * tol, 1e-12 * std::max(1.0, std::fabs(c.x)));
    std::vector<std::size_t>& same = by_period[c.period];
    int64_t hit = -1;
    for (std::size_t k : same)
      if (std::fabs(found[k].x - c.x) <= g && std::fabs(found[k].y - c.y) <= g) {
        hit = static_cast<int64_t>(k);
        break;
      }
    if (hit < 0) {
      Attractor at;
      at.period = c.period;
      at.x = c.x;
      at.y = c.y;
      hit = static_cast<int64_t>(found.size());
      found.push_back(at);
      same.push_back(static_cast<std::size_t>(hit));
    }
    ++found[static_cast<std::size_t>(hit)].pixels;
    pixel_attractor[q] = hit;
  }
  std::vector<std::size_t> order(found.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) {
    return found[p].period != found[q].period ? found[p].period < found[q].period : found[p].x < found[q].x;
  });
  std::vector<int32_t> id_of(found.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    id_of[order[k]] = static_cast<int32_t>(k + 1);
    Attractor at = found[order[k]];
    at.id = static_cast<int32_t>(k + 1);
    out.attractors.push_back(at);
  }
  for (std::size_t q = 0; q < n; ++q)
    if (pixel_attractor[q] >= 0) out.id[q] = id_of[static_cast<std::size_t>(pixel_attractor[q])];
  return out;
}

}  // namespace ds::henon
