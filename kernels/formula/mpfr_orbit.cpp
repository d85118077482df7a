// Formula orbits in MPFR: the opcodes of formula.h at a chosen precision, and trusted grids.
#include "mpfr_orbit.h"

#include <mpfr.h>

#include <string>

#include "arith/mpfr_number.h"
#include "kernels/core/cpu_parallel.h"

namespace ds::formula {

uint64_t mpfr_count(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i, int j,
                    int bits) {
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
  for (uint64_t n = 1; n < v.max_iter; ++n) {
    // |z|^2 > 4, decided at this precision (x^2 + y^2 rounded: a count at the bailout's edge is
    // what the confirming run at more bits is for).
    mpfr_sqr(t1.v, x.v, MPFR_RNDN);
    mpfr_sqr(t2.v, y.v, MPFR_RNDN);
    mpfr_add(t1.v, t1.v, t2.v, MPFR_RNDN);
    if (mpfr_cmp_ui(t1.v, 4) > 0) return n;
    const Phase& ph = f.phase[n % static_cast<uint64_t>(f.phases)];
    mpfr_set(sx.v, x.v, MPFR_RNDN);
    mpfr_set(sy.v, y.v, MPFR_RNDN);
    for (int k = 0; k < ph.count; ++k) {
      switch (ph.ops[k]) {
        case Op::kAbsX:
          mpfr_abs(x.v, x.v, MPFR_RNDN);
          break;
        case Op::kAbsY:
          mpfr_abs(y.v, y.v, MPFR_RNDN);
          break;
        case Op::kNegX:
          mpfr_neg(x.v, x.v, MPFR_RNDN);
          break;
        case Op::kNegY:
          mpfr_neg(y.v, y.v, MPFR_RNDN);
          break;
        case Op::kSqr:  // (x + y)(x - y), 2xy
          mpfr_add(t1.v, x.v, y.v, MPFR_RNDN);
          mpfr_sub(t2.v, x.v, y.v, MPFR_RNDN);
          mpfr_mul(y.v, x.v, y.v, MPFR_RNDN);
          mpfr_mul_2ui(y.v, y.v, 1, MPFR_RNDN);
          mpfr_mul(x.v, t1.v, t2.v, MPFR_RNDN);
          break;
        case Op::kStore:
          mpfr_set(sx.v, x.v, MPFR_RNDN);
          mpfr_set(sy.v, y.v, MPFR_RNDN);
          break;
        case Op::kMul:  // (x sx - y sy, x sy + y sx)
          mpfr_mul(t1.v, x.v, sx.v, MPFR_RNDN);
          mpfr_mul(t2.v, y.v, sy.v, MPFR_RNDN);
          mpfr_mul(t3.v, x.v, sy.v, MPFR_RNDN);
          mpfr_mul(y.v, y.v, sx.v, MPFR_RNDN);
          mpfr_add(y.v, y.v, t3.v, MPFR_RNDN);
          mpfr_sub(x.v, t1.v, t2.v, MPFR_RNDN);
          break;
        case Op::kAdd:
          mpfr_add(x.v, x.v, cr.v, MPFR_RNDN);
          mpfr_add(y.v, y.v, ci.v, MPFR_RNDN);
          break;
      }
    }
  }
  return v.max_iter;
}

std::vector<GridPixel> mpfr_grid(const mandel::View& v, const Formula& f, int n, int bits, int confirm_bits,
                                 unsigned threads) {
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
          out[k].count = mpfr_count(g, v, f, out[k].i, out[k].j, bits);
          out[k].confirm = mpfr_count(g, v, f, out[k].i, out[k].j, confirm_bits);
        }
      },
      po);
  return out;
}

}  // namespace ds::formula
