// The MPFR oracle: direct iteration of single pixels with a rigorous running error bound (disc
// arithmetic), the precision ladder, sample grids on all cores, and the check of a rendered image.
// Independent of the renderers; it shares only the count and smooth definitions (mandelbrot.cuh).
#include "oracle.h"

#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

#include "arith/floatexp.h"
#include "kernels/core/cpu_parallel.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
#include "kernels/perturb/mpfr_util.h"

namespace ds::perturb::oracle {
namespace {

// Bits of the pixel-map products m * k (53 + 22 bits) and of their sum, so that the offset in
// half-steps is exact or within 2^-192 of itself before it meets the run's precision.
constexpr mpfr_prec_t kOffsetBits = 192;

// One run at one precision.
struct Run {
  bool certified = false;
  bool cancelled = false;
  uint64_t count = 0;
  float smooth = 0;
  uint64_t lost_at = 0;  // uncertified: the iteration whose disc straddled |z| = 2
  double log2_bound = 0;
};

// c of pixel (i, j) at `bits` into cr, ci; *ec gets a bound on |c - exact c| in units of 2^-bits.
// Exact c: centre + h (m0 kx + m1 ky, m2 kx + m3 ky), with the decimal strings of g and the doubles
// of v.pixel_map taken as exact. Each of centre, h, h * offset and the sum is rounded once to
// nearest (relative error <= u = 2^-bits) and the offset within 2^-192 <= u, so per component
//   |c~ - c| <= u (|centre| + |c~|) + (3u + u^2) |h offset| <= u (|centre| + |c~| + 4 |t|),
// t = h * offset; the 1.01 and the 2^-1000 below cover the doubles' rounding and underflow.
void pixel_c(const Geometry& g, const View& v, int i, int j, mpfr_prec_t bits, mpfr_t cr, mpfr_t ci,
             double* ec) {
  Mpfr hs(bits), a(kOffsetBits), b(kOffsetBits), ox(kOffsetBits), oy(kOffsetBits), t(bits);
  char* end = nullptr;
  mpfr_strtofr(hs.v, g.half_step.c_str(), &end, 10, MPFR_RNDN);
  // The offset in half-steps, y up: exact integers, or the exponential map's binary64 offsets (taken
  // as exact, as the engines take them).
  double kx = pixel_offset(i, v.width), ky = -pixel_offset(j, v.height);
  if (v.exp_map) exp_map_offset(i, j, v.width, v.height, &kx, &ky);
  const double* m = v.pixel_map;
  auto offset = [&](mpfr_t out, double mx, double my) {
    mpfr_set_d(a.v, mx, MPFR_RNDN);  // exact: 53 bits
    mpfr_mul_d(a.v, a.v, kx, MPFR_RNDN);  // exact: 106 bits <= kOffsetBits
    mpfr_set_d(b.v, my, MPFR_RNDN);
    mpfr_mul_d(b.v, b.v, ky, MPFR_RNDN);
    mpfr_add(out, a.v, b.v, MPFR_RNDN);
  };
  offset(ox.v, m[0], m[1]);
  offset(oy.v, m[2], m[3]);
  double bound = 0;
  auto component = [&](mpfr_t out, const std::string& centre, mpfr_t o) {
    mpfr_strtofr(out, centre.c_str(), &end, 10, MPFR_RNDN);
    const double cd = std::fabs(mpfr_get_d(out, MPFR_RNDN));
    mpfr_mul(t.v, hs.v, o, MPFR_RNDN);
    mpfr_add(out, out, t.v, MPFR_RNDN);
    bound += cd + std::fabs(mpfr_get_d(out, MPFR_RNDN)) + 4 * std::fabs(mpfr_get_d(t.v, MPFR_RNDN));
  };
  component(cr, g.re, ox.v);
  component(ci, g.im, oy.v);
  *ec = 1.01 * bound + 0x1p-1000;
}

// Pixel (i, j) iterated at `bits`, tracking r_n >= |z_n - z~_n| (z~ the MPFR orbit, z the exact
// orbit of the exact c). With e_c >= |c - c~| and e_n >= the rounding of z~^2 + c~ in MPFR:
//   r_1 = e_c,   r_{n+1} = r_n (2 |z~_n| + r_n) + e_c + e_n,
// since |z^2 - z~^2| = |z - z~| |z + z~| <= r (2 |z~| + r): a disc's square lies in the disc of
// radius r (2|z~| + r), exactly so to first order in the complex plane (no wrapping effect), so
// the bound tracks the true error up to the triangle inequality over the steps. Rounding of one
// step (x2 = x^2, y2 = y^2, xy, x2 - y2, + cr; 2xy exact, + ci; each RN at u = 2^-bits):
//   |e_n| <= u (5 |z~|^2 + |cr| + |ci|) + 4 u^2 |z~|^2 <= u (6 |z~|^2 + |cr| + |ci|).
// z_n has escaped (|z_n|^2 > 4) for sure when |z~_n| - r_n > 2, and not when |z~_n| + r_n <= 2;
// a disc across |z| = 2 leaves the count undecided at this precision: the run stops there. A
// decided count is also required to have r_n <= 2^-30 |z~_n| at the escape, so the smooth count
// (from z_n in binary64) is that of the exact orbit too.
// r is a FloatExp (2^-bits is far below binary64 at deep zooms) rounded to nearest: three
// roundings a step lose at most a factor (1 - 2^-53)^(3 * 2^32) > 1 - 2^-19 over an orbit of up to
// 2^32 steps, which the factor 1 + 2^-16 on r in both tests covers; past 2^32 (64-bit counts) the
// factor is exp(3 max_iter 2^-52) >= (1 - 2^-53)^(-3 max_iter), infinite (nothing certified) where
// that overflows, past about 1e18 steps. |z~| comes from the doubles of x, y (relative error
// < 2^-50), widened by 2^-49 each way and floored at 2^-490 (squares of tinier doubles underflow).
Run run_at(const Geometry& g, const View& v, int i, int j, int bits, const std::atomic<bool>* cancel) {
  const double kSlack = v.max_iter <= 0xFFFFFFFFull ? 1.0 + 0x1p-16
                                                     : std::exp(std::ldexp(3.0 * static_cast<double>(v.max_iter), -52));
  const mpfr_prec_t p = bits;
  Mpfr cr(p), ci(p), x(p), y(p), x2(p), y2(p);
  double ec = 0;
  pixel_c(g, v, i, j, p, cr.v, ci.v, &ec);
  const double cr_d = mpfr_get_d(cr.v, MPFR_RNDN), ci_d = mpfr_get_d(ci.v, MPFR_RNDN);
  const double c1 = 1.01 * (std::fabs(cr_d) + std::fabs(ci_d)) + 0x1p-1000 + ec;
  mpfr_set(x.v, cr.v, MPFR_RNDN);
  mpfr_set(y.v, ci.v, MPFR_RNDN);
  FloatExp r = FloatExp::make(ec, -bits);
  Run out;
  for (uint64_t n = 1; n < v.max_iter; ++n) {
    if ((n & 4095u) == 0 && cancel && cancel->load(std::memory_order_relaxed)) {
      out.cancelled = true;
      return out;
    }
    const double xd = mpfr_get_d(x.v, MPFR_RNDN), yd = mpfr_get_d(y.v, MPFR_RNDN);
    const double az = std::sqrt(xd * xd + yd * yd);
    const double az_up = std::max(az * (1.0 + 0x1p-49), 0x1p-490), az_lo = az * (1.0 - 0x1p-49);
    const FloatExp rs = r * kSlack;
    if (FloatExp(az_lo) - rs > FloatExp(2.0)) {  // escaped for sure
      if (rs > FloatExp(az_lo * 0x1p-30)) {
        out.lost_at = n;
        return out;
      }
      out.certified = true;
      out.count = n;
      out.smooth = smooth_tail(n, xd, yd, cr_d, ci_d, wide_counts(v.max_iter));
      out.log2_bound = std::log2(r.m) + r.e;
      return out;
    }
    if (!(FloatExp(az_up) + rs <= FloatExp(2.0))) {  // the disc straddles |z| = 2
      out.lost_at = n;
      return out;
    }
    mpfr_util::orbit_step(x.v, y.v, cr.v, ci.v, x2.v, y2.v);  // the same roundings, operation for operation
    r = r * (FloatExp(2.0 * az_up) + r) + FloatExp::make(6.0 * az_up * az_up + c1, -bits);
  }
  out.certified = true;  // every z_n, n < max_iter, certified inside |z| <= 2
  out.count = v.max_iter;
  out.smooth = smooth_at_limit(v.max_iter);
  out.log2_bound = r.m == 0 ? -std::numeric_limits<double>::infinity() : std::log2(r.m) + r.e;
  return out;
}

}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::kTrusted:
      return "trusted";
    case Status::kUncertain:
      return "uncertain";
    case Status::kUnconfirmed:
      return "unconfirmed";
    case Status::kContradicted:
      return "contradicted";
    case Status::kCancelled:
      return "cancelled";
  }
  return "?";
}

int start_bits(const Geometry& g, const View& v) {
  const double need = std::ceil(-g.log2_step) + 64 + std::ceil(std::log2(static_cast<double>(v.max_iter)));
  return static_cast<int>(std::max(64.0, need));
}

int next_bits(int bits) { return bits + std::max(64, bits / 2); }

OraclePixel oracle_pixel(const Geometry& g, const View& v, int i, int j, const OracleOptions& opt) {
  if (i < 0 || j < 0 || i >= v.width || j >= v.height)
    throw ViewError("oracle: pixel (" + std::to_string(i) + ", " + std::to_string(j) + ") lies outside the " +
                    std::to_string(v.width) + "x" + std::to_string(v.height) + " image");
  constexpr int kNoCap = 1 << 24;  // 16M bits: beyond any view's need, within MPFR's limit
  const int cap = opt.max_bits > 0 ? std::min(opt.max_bits, kNoCap) : kNoCap;
  int bits = std::min(opt.start_bits > 0 ? opt.start_bits : start_bits(g, v), cap);
  bits = std::max<int>(bits, MPFR_PREC_MIN);
  OraclePixel px;
  px.log2_bound = -std::numeric_limits<double>::infinity();
  Run first;  // the first certified run
  for (int escalations = 0;;) {
    const Run r = run_at(g, v, i, j, bits, opt.cancel);
    ++px.runs;
    px.top_bits = bits;
    if (r.cancelled) {
      px.status = Status::kCancelled;
      return px;
    }
    if (!first.certified) {
      if (r.certified) {
        first = r;
        px.bits = bits;
        px.count = r.count;
        px.smooth = r.smooth;
        px.log2_bound = r.log2_bound;
        if (!opt.confirm) {
          px.status = Status::kTrusted;
          return px;
        }
      } else {
        px.lost_at = r.lost_at;
        if (escalations++ >= opt.max_escalations) {
          px.status = Status::kUncertain;
          return px;
        }
      }
    } else {
      // The confirming run: the same certified count at higher precision.
      if (!r.certified) {
        px.lost_at = r.lost_at;
        px.status = Status::kUnconfirmed;
      } else if (r.count != first.count) {
        px.status = Status::kContradicted;
      } else {
        px.status = Status::kTrusted;
        px.confirm_bits = bits;
        px.smooth = r.smooth;
      }
      return px;
    }
    if (bits >= cap) {
      px.status = first.certified ? Status::kUnconfirmed : Status::kUncertain;
      return px;
    }
    bits = std::min(next_bits(bits), cap);
  }
}

std::vector<OraclePixel> oracle_pixels(const Geometry& g, const View& v, const std::vector<PixelIndex>& where,
                                       const OracleOptions& opt, const std::function<void(double)>& progress,
                                       unsigned threads) {
  std::vector<OraclePixel> out(where.size());
  for (OraclePixel& p : out) p.status = Status::kCancelled;  // until computed
  ParallelOptions po;
  po.cancel = opt.cancel;
  po.progress = progress;
  po.threads = threads;
  // One pixel per chunk: costs differ by orders of magnitude (escape at 10 or at max_iter).
  parallel_for(
      where.size(), 1,
      [&](size_t b, size_t e) {
        for (size_t k = b; k < e; ++k) out[k] = oracle_pixel(g, v, where[k].i, where[k].j, opt);
      },
      po);
  return out;
}

OracleGrid oracle_grid(const Geometry& g, const View& v, int n, const OracleOptions& opt,
                       const std::function<void(double)>& progress, unsigned threads) {
  if (n < 1 || n > std::min(v.width, v.height))
    throw ViewError("oracle: the grid must be 1 to " + std::to_string(std::min(v.width, v.height)) +
                    " pixels a side (the image's smaller side), got " + std::to_string(n));
  const auto t0 = std::chrono::steady_clock::now();
  OracleGrid out;
  out.n = n;
  out.where = grid_pixels(v, n);
  out.pixels = oracle_pixels(g, v, out.where, opt, progress, threads);
  for (const OraclePixel& p : out.pixels) out.cancelled |= p.status == Status::kCancelled;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

// --- Checking a rendered image -----------------------------------------------------------------

namespace {
// The side of the sample grid: floor(sqrt(samples)), at most the image's smaller side.
int verify_grid_side(const View& v, int samples) {
  int side = 0;
  while (static_cast<int64_t>(side + 1) * (side + 1) <= samples) ++side;
  return std::min({side, v.width, v.height});
}
}  // namespace

std::vector<PixelIndex> verify_pixels(const View& v, int samples, uint64_t seed) {
  if (samples < 1) return {};
  std::vector<PixelIndex> out = grid_pixels(v, verify_grid_side(v, samples));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> di(0, v.width - 1), dj(0, v.height - 1);
  while (static_cast<int>(out.size()) < samples) {
    const int i = di(rng), j = dj(rng);
    out.push_back({i, j});
  }
  return out;
}

void VerifyReport::add(const VerifySample& s) {
  if (s.oracle.status == Status::kCancelled) cancelled = true;
  if (!s.oracle.trusted()) {
    ++untrusted;
    if (s.oracle.status == Status::kContradicted) ++contradicted;
  } else {
    const int64_t d = static_cast<int64_t>(s.rendered) - static_cast<int64_t>(s.oracle.count);
    if (d == 0)
      ++agree;
    else if (d == 1 || d == -1)
      ++within_one;
    else
      ++wrong;
  }
  detail.push_back(s);
}

std::string VerifyReport::summary(bool ascii) const {
  std::string s = "verify: " + std::to_string(agree) + "/" + std::to_string(samples) +
                  " sampled pixels agree with MPFR (" + std::to_string(within_one) + " within " +
                  (ascii ? "+-1" : "\u00b11") + ", " + std::to_string(untrusted) +
                  " untrusted oracle pixels)";
  if (wrong > 0) s += "; " + std::to_string(wrong) + " differ by more than 1: the render is WRONG";
  if (contradicted > 0)
    s += "; " + std::to_string(contradicted) + " oracle pixels contradicted themselves (an oracle bug)";
  if (cancelled) s += " (cancelled: not every sample was checked)";
  return s;
}

std::string VerifyReport::metadata() const {
  std::ostringstream o;
  o << summary(true) << "\n";
  o << "result = " << (failed() ? "wrong" : cancelled ? "incomplete" : "passed") << "\n";
  o << "samples = " << samples << " (" << grid << "x" << grid << " grid, " << samples - grid * grid
    << " random, seed " << seed << ")\n";
  o << "oracle = MPFR direct iteration with a running error bound, confirmed one precision higher\n";
  int shown = 0;
  for (const VerifySample& s : detail) {
    const bool exact = s.oracle.trusted() && s.oracle.count == s.rendered;
    if (exact) continue;
    if (++shown > 64) {
      o << "...\n";
      break;
    }
    o << "pixel " << s.at.i << " " << s.at.j << ": rendered " << s.rendered << ", oracle " << s.oracle.count
      << " (" << status_name(s.oracle.status) << ", " << s.oracle.bits << "/" << s.oracle.confirm_bits
      << " bits)\n";
  }
  return o.str();
}

VerifyReport begin_verify(const View& v, const RenderResult& r, int samples, uint64_t seed,
                          std::vector<PixelIndex>* where) {
  if (r.width != v.width || r.height != v.height ||
      r.counts.size() != static_cast<size_t>(v.width) * static_cast<size_t>(v.height))
    throw std::invalid_argument("verify: the render is not the whole " + std::to_string(v.width) + "x" +
                                std::to_string(v.height) + " image with its counts on the host");
  VerifyReport rep;
  rep.seed = seed;
  *where = verify_pixels(v, samples, seed);
  rep.samples = static_cast<int>(where->size());
  rep.grid = verify_grid_side(v, rep.samples);
  return rep;
}

VerifyReport verify_render(const View& v, const RenderResult& r, const VerifyOptions& opt,
                           const std::function<void(double)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<PixelIndex> where;
  VerifyReport rep = begin_verify(v, r, opt.samples, opt.seed, &where);
  const Geometry g = geometry(v);
  const std::vector<OraclePixel> px = oracle_pixels(g, v, where, opt.oracle, progress, opt.threads);
  for (size_t k = 0; k < where.size(); ++k) {
    VerifySample s;
    s.at = where[k];
    s.rendered = r.count(static_cast<size_t>(where[k].j) * v.width + where[k].i);
    s.oracle = px[k];
    rep.add(s);
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

}  // namespace ds::perturb::oracle
