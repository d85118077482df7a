// The opcodes of formula.h in MPFR (each operation rounded once to nearest), shared by the MPFR
// orbits of single pixels (mpfr_orbit.cpp) and the perturbation reference (perturb.cpp).
#pragma once
#include <mpfr.h>

#include "arith/mpfr_number.h"
#include "formula.h"

namespace ds::formula::detail {

// One opcode on z = (x, y) with the stored value (sx, sy) and c = (cr, ci); t1..t3 scratch. The
// square is ((x + y)(x - y), 2xy), the product (x sx - y sy, x sy + y sx). Euclidean error of one
// op at p bits, u = 2^-p (what the certified orbit and the reference's bound use): sqr <= 4u|z|^2,
// mul <= 5u|z||s|, add <= u|z + c|; abs and neg exact.
inline void mpfr_apply_op(Op op, mpfr_t x, mpfr_t y, mpfr_t sx, mpfr_t sy, const mpfr_t cr, const mpfr_t ci,
                          mpfr_t t1, mpfr_t t2, mpfr_t t3) {
  switch (op) {
    case Op::kAbsX:
      mpfr_abs(x, x, MPFR_RNDN);
      break;
    case Op::kAbsY:
      mpfr_abs(y, y, MPFR_RNDN);
      break;
    case Op::kNegX:
      mpfr_neg(x, x, MPFR_RNDN);
      break;
    case Op::kNegY:
      mpfr_neg(y, y, MPFR_RNDN);
      break;
    case Op::kSqr:
      mpfr_add(t1, x, y, MPFR_RNDN);
      mpfr_sub(t2, x, y, MPFR_RNDN);
      mpfr_mul(y, x, y, MPFR_RNDN);
      mpfr_mul_2ui(y, y, 1, MPFR_RNDN);
      mpfr_mul(x, t1, t2, MPFR_RNDN);
      break;
    case Op::kStore:
      mpfr_set(sx, x, MPFR_RNDN);
      mpfr_set(sy, y, MPFR_RNDN);
      break;
    case Op::kMul:
      mpfr_mul(t1, x, sx, MPFR_RNDN);
      mpfr_mul(t2, y, sy, MPFR_RNDN);
      mpfr_mul(t3, x, sy, MPFR_RNDN);
      mpfr_mul(y, y, sx, MPFR_RNDN);
      mpfr_add(y, y, t3, MPFR_RNDN);
      mpfr_sub(x, t1, t2, MPFR_RNDN);
      break;
    case Op::kAdd:
      mpfr_add(x, x, cr, MPFR_RNDN);
      mpfr_add(y, y, ci, MPFR_RNDN);
      break;
  }
}

// The running bound of one op at u = 2^-bits (the table above): r >= |z~ - z| before the op, rs
// for the stored value; az = |z~|, as = |s~| before the op; ec >= |c~ - c|; az1 = |z~| after an
// add. Long double: E grows with the orbit's derivative and may pass binary64's range.
inline void op_bound(Op op, long double u, long double az, long double as, long double az1, long double ec,
                     long double& r, long double& rs) {
  switch (op) {
    case Op::kSqr:
      r = r * (2 * az + r) + 4 * u * az * az;
      break;
    case Op::kStore:
      rs = r;
      break;
    case Op::kMul:
      r = r * as + rs * az + r * rs + 5 * u * az * as;
      break;
    case Op::kAdd:
      r = r + ec + u * az1;
      break;
    default:  // abs, neg: 1-Lipschitz, exact
      break;
  }
}

}  // namespace ds::formula::detail
