// Per-item arithmetic shared by the CPU backend and the CUDA wrappers of arith_ops.
#pragma once
#include "arith/format.h"
#include "arith/hd.h"
#include "arith_ops.h"

namespace ds::kernels {

template <class T>
DEEPSCOPE_HD T apply_op(ArithOp op, T x, T y) {
  switch (op) {
    case ArithOp::kAdd: return x + y;
    case ArithOp::kSub: return x - y;
    case ArithOp::kMul: return x * y;
    case ArithOp::kSqr: return sqr(x);
    case ArithOp::kDiv:
      if constexpr (T::kHasDivSqrt) return x / y;
      break;
    case ArithOp::kSqrt:
      if constexpr (T::kHasDivSqrt) return sqrt(x);
      break;
    case ArithOp::kHenon: return (T(1.0) + y) - sqr(x) * 1.4;
  }
  return x;
}

// One throughput step on (x, y); see arith_throughput_* for what each op counts.
template <class T, ArithOp Op>
DEEPSCOPE_HD void chain_step(T& x, T& y) {
  if constexpr (Op == ArithOp::kAdd) {
    x = x + y;
    x = x - y;
  } else if constexpr (Op == ArithOp::kMul) {
    x = x * y;
  } else if constexpr (Op == ArithOp::kSqr) {
    x = sqr(x);
  } else if constexpr (Op == ArithOp::kHenon) {
    T nx = (T(1.0) + y) - sqr(x) * 1.4;
    y = x * 0.3;
    x = nx;
  }
}

// Chain start values, passed in at run time so that no compiler can fold a chain away:
// x = y = 1 keeps mul/sqr at 1 (every instruction still executes), add/sub return to x, and the
// Hénon orbit from (0.001 k mod 7, 0) stays on the attractor (inside every range).
struct ChainSeed {
  double x, y;
};
template <ArithOp Op>
inline ChainSeed chain_seed() {
  if constexpr (Op == ArithOp::kHenon) return {1e-3, 0.0};
  return {1.0, Op == ArithOp::kAdd ? 0.5 : 1.0};
}
template <class T, ArithOp Op>
DEEPSCOPE_HD void chain_start(T& x, T& y, int64_t k, ChainSeed seed) {
  if constexpr (Op == ArithOp::kHenon) {
    x = T(seed.x * static_cast<double>(k % 7));
  } else {
    x = T(seed.x);
  }
  y = T(seed.y);
}

}  // namespace ds::kernels
