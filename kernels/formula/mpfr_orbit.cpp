// Formula orbits in MPFR: the opcodes of formula.h at a chosen precision, and trusted grids.
#include "mpfr_orbit.h"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "arith/mpfr_number.h"
#include "kernels/core/cpu_parallel.h"
#include "mpfr_ops.h"

namespace ds::formula {

namespace {

// The orbit of pixel (i, j) at `bits`; with `certified` given, beside it the running bound of
// mpfr_ops.h (op_bound at u = 2^-bits) and *certified = whether it decided every escape test.
uint64_t count_at(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i, int j, int bits,
                  bool* certified, const JuliaSeed& julia, const std::atomic<bool>* cancel = nullptr) {
  if (i < 0 || j < 0 || i >= v.width || j >= v.height)
    throw mandel::ViewError("formula orbit: pixel (" + std::to_string(i) + ", " + std::to_string(j) +
                            ") lies outside the image");
  if (!g.square_pixels)
    throw mandel::ViewError(
        "formula orbit: only views with square, unrotated pixels (no pixel map or "
        "exponential map)");
  const mpfr_prec_t p = bits;
  Mpfr cr(p), ci(p), h(p), x(p), y(p), sx(p), sy(p), t1(p), t2(p), t3(p);
  char* end = nullptr;
  mpfr_strtofr(h.v, g.half_step.c_str(), &end, 10, MPFR_RNDN);
  mpfr_strtofr(cr.v, g.re.c_str(), &end, 10, MPFR_RNDN);
  mpfr_strtofr(ci.v, g.im.c_str(), &end, 10, MPFR_RNDN);
  // Offsets in half-steps are exact small integers.
  mpfr_mul_si(t1.v, h.v, 2L * i + 1 - v.width, MPFR_RNDN);
  mpfr_add(cr.v, cr.v, t1.v, MPFR_RNDN);
  mpfr_mul_si(t1.v, h.v, v.height - 2L * j - 1, MPFR_RNDN);
  mpfr_add(ci.v, ci.v, t1.v, MPFR_RNDN);
  mpfr_set(x.v, cr.v, MPFR_RNDN);
  mpfr_set(y.v, ci.v, MPFR_RNDN);
  // The bound starts at |c~ - c|: the centre's, s/2's, the product's and the sum's roundings, each
  // at most u times its result's magnitude (per component; the Euclidean norm is at most the sum).
  const long double u = std::ldexp(1.0L, -bits);
  const long double kx = std::fabs(2.0L * i + 1 - v.width), ky = std::fabs(v.height - 2.0L * j - 1);
  const long double hd = std::fabs(static_cast<long double>(mpfr_get_ld(h.v, MPFR_RNDN)));
  const long double ec =
      1.01L * u *
      (std::fabs(static_cast<long double>(g.re_d)) + std::fabs(static_cast<long double>(g.im_d)) +
       2 * (kx + ky) * hd + std::fabs(static_cast<long double>(mpfr_get_ld(cr.v, MPFR_RNDN))) +
       std::fabs(static_cast<long double>(mpfr_get_ld(ci.v, MPFR_RNDN))));
  long double r = ec;
  // A Julia set: the pixel is z_1 (its error ec, above) and c the seed, rounded once per component.
  long double ec_add = ec;
  if (julia.on()) {
    mpfr_strtofr(cr.v, julia.re.c_str(), &end, 10, MPFR_RNDN);
    mpfr_strtofr(ci.v, julia.im.c_str(), &end, 10, MPFR_RNDN);
    ec_add = 1.01L * u *
             (std::fabs(static_cast<long double>(mpfr_get_ld(cr.v, MPFR_RNDN))) +
              std::fabs(static_cast<long double>(mpfr_get_ld(ci.v, MPFR_RNDN))));
  }
  bool tracking = certified != nullptr;
  if (certified) *certified = true;
  // The bound's own roundings in long double (2^-64 each, at most 16 an opcode).
  int max_ops = 0;
  for (int k = 0; k < f.phases; ++k) max_ops = std::max(max_ops, f.phase[k].count);
  const long double slack =
      std::exp(std::ldexp(16.0L * (max_ops + 2) * static_cast<long double>(v.max_iter), -64)) +
      std::ldexp(1.0L, -40);
  auto modulus = [](const mpfr_t a, const mpfr_t b) {
    const long double ra = mpfr_get_ld(a, MPFR_RNDN), rb = mpfr_get_ld(b, MPFR_RNDN);
    return std::sqrt(ra * ra + rb * rb) * (1 + std::ldexp(1.0L, -60));
  };
  for (uint64_t n = 1; n < v.max_iter; ++n) {
    if (cancel && (n & 1023) == 0 && cancel->load(std::memory_order_relaxed)) {
      if (certified) *certified = false;
      return 0;
    }
    // |z|^2 > 4, decided at this precision (x^2 + y^2 rounded: a count at the bailout's edge is
    // what the confirming run at more bits, or the bound, is for).
    mpfr_sqr(t1.v, x.v, MPFR_RNDN);
    mpfr_sqr(t2.v, y.v, MPFR_RNDN);
    mpfr_add(t1.v, t1.v, t2.v, MPFR_RNDN);
    const bool out = mpfr_cmp_ui(t1.v, 4) > 0;
    if (tracking) {
      const long double az = std::sqrt(static_cast<long double>(mpfr_get_ld(t1.v, MPFR_RNDN)));
      const long double e = r * slack + az * std::ldexp(1.0L, -50);
      if (out ? !(az - e > 2) : !(az + e <= 2)) {
        *certified = false;
        tracking = false;
      }
    }
    if (out) return n;
    const Phase& ph = f.phase[n % static_cast<uint64_t>(f.phases)];
    mpfr_set(sx.v, x.v, MPFR_RNDN);
    mpfr_set(sy.v, y.v, MPFR_RNDN);
    long double rs = r;
    for (int k = 0; k < ph.count; ++k) {
      const Op op = ph.ops[k];
      long double az = 0, as = 0;
      if (tracking && (op == Op::kSqr || op == Op::kMul)) az = modulus(x.v, y.v);
      if (tracking && op == Op::kMul) as = modulus(sx.v, sy.v);
      detail::mpfr_apply_op(op, x.v, y.v, sx.v, sy.v, cr.v, ci.v, t1.v, t2.v, t3.v);
      if (tracking) {
        const long double az1 = op == Op::kAdd ? modulus(x.v, y.v) : 0;
        detail::op_bound(op, u, az, as, az1, ec_add, r, rs);
        if (!(r < 1)) {  // nothing left to decide with (or not finite)
          *certified = false;
          tracking = false;
        }
      }
    }
  }
  return v.max_iter;
}

}  // namespace

uint64_t mpfr_count(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i, int j,
                    int bits, const JuliaSeed& julia) {
  return count_at(g, v, f, i, j, bits, nullptr, julia);
}

uint64_t mpfr_count_certified(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i,
                              int j, int bits, bool* certified, const JuliaSeed& julia,
                              const std::atomic<bool>* cancel) {
  return count_at(g, v, f, i, j, bits, certified, julia, cancel);
}

bool mpfr_decide(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i, int j, int bits,
                 int max_bits, uint64_t* count, int* bits_used, const JuliaSeed& julia,
                 const std::atomic<bool>* cancel) {
  for (int b = bits;; b = std::min(max_bits, 2 * b)) {
    bool ok = false;
    const uint64_t n = mpfr_count_certified(g, v, f, i, j, b, &ok, julia, cancel);
    if (cancel && cancel->load(std::memory_order_relaxed)) return false;
    if (bits_used) *bits_used = b;
    if (ok) {
      *count = n;
      return true;
    }
    if (b >= max_bits) return false;
  }
}

std::vector<GridPixel> mpfr_grid(const mandel::View& v, const Formula& f, int n, int bits, int confirm_bits,
                                 unsigned threads, const JuliaSeed& julia) {
  const mandel::Geometry g = mandel::geometry(v);
  if (n < 1 || n > v.width || n > v.height)
    throw mandel::ViewError("formula grid: n = " + std::to_string(n) +
                            " must lie in [1, min(width, height)]");
  const std::vector<mandel::PixelIndex> where = mandel::grid_pixels(v, n);
  std::vector<GridPixel> out(where.size());
  for (std::size_t k = 0; k < where.size(); ++k) {
    out[k].i = where[k].i;
    out[k].j = where[k].j;
  }
  ParallelOptions po;
  po.threads = threads;
  parallel_for(
      out.size(), 1,
      [&](std::size_t k0, std::size_t k1) {
        for (std::size_t k = k0; k < k1; ++k) {
          out[k].count = mpfr_count(g, v, f, out[k].i, out[k].j, bits, julia);
          out[k].confirm = mpfr_count(g, v, f, out[k].i, out[k].j, confirm_bits, julia);
        }
      },
      po);
  return out;
}

}  // namespace ds::formula
