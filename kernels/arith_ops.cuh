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

// Chain start values: x = y = 1 keeps mul/sqr at 1 (every instruction still executes), add/sub
// return to x, and the Hénon orbit from (0, 0) stays on the attractor (inside every range).
template <class T, ArithOp Op>
DEEPSCOPE_HD void chain_start(T& x, T& y, int64_t k) {
  if constexpr (Op == ArithOp::kHenon) {
    x = T(1e-3 * static_cast<double>(k % 7));
    y = T(0.0);
  } else {
    x = T(1.0);
    y = T(Op == ArithOp::kAdd ? 0.5 : 1.0);
  }
}

}  // namespace ds::kernels
