// CPU backend of arith_ops: the per-item functions of arith_ops.cuh in plain loops.
#include <chrono>

#include "arith_ops.cuh"

namespace ds {

const char* arith_op_name(ArithOp op) {
  switch (op) {
    case ArithOp::kAdd: return "add";
    case ArithOp::kSub: return "sub";
    case ArithOp::kMul: return "mul";
    case ArithOp::kSqr: return "sqr";
    case ArithOp::kDiv: return "div";
    case ArithOp::kSqrt: return "sqrt";
    case ArithOp::kHenon: return "henon";
  }
  return "?";
}

bool arith_op_supported(Arith a, ArithOp op) {
  if (op != ArithOp::kDiv && op != ArithOp::kSqrt) return true;
  return dispatch(a, [](auto tag) { return decltype(tag)::type::kHasDivSqrt; });
}

std::size_t arith_storage_size(Arith a) {
  return dispatch(a, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

void arith_ops_cpu(Arith a, ArithOp op, const void* x, const void* y, void* out, std::size_t n) {
  if (!arith_op_supported(a, op))
    throw ArithError(std::string(arith_op_name(op)) + " is not defined for " + arith_name(a));
  dispatch(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xs = static_cast<const T*>(x);
    const T* ys = static_cast<const T*>(y);
    T* os = static_cast<T*>(out);
    for (std::size_t i = 0; i < n; ++i) os[i] = kernels::apply_op(op, xs[i], ys[i]);
  });
}

namespace {

template <class T, ArithOp Op>
Throughput cpu_chains(int64_t chains, int64_t steps) {
  constexpr int kLanes = 8;  // independent chains interleaved, so latency does not hide throughput
  // Through a volatile, so the optimiser cannot see the start values.
  volatile double seed_x = kernels::chain_seed<Op>().x, seed_y = kernels::chain_seed<Op>().y;
  const kernels::ChainSeed seed{seed_x, seed_y};
  double checksum = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t c = 0; c < chains; c += kLanes) {
    T x[kLanes], y[kLanes];
    for (int l = 0; l < kLanes; ++l) kernels::chain_start<T, Op>(x[l], y[l], c + l, seed);
    for (int64_t s = 0; s < steps; ++s) {
      DEEPSCOPE_UNROLL
      for (int l = 0; l < kLanes; ++l) kernels::chain_step<T, Op>(x[l], y[l]);
    }
    for (int l = 0; l < kLanes; ++l) checksum += to_double(x[l]);
  }
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int64_t total_chains = (chains + kLanes - 1) / kLanes * kLanes;
  double ops = static_cast<double>(total_chains) * static_cast<double>(steps) * (Op == ArithOp::kAdd ? 2.0 : 1.0);
  return {sec, ops / sec, checksum};
}

}  // namespace

Throughput arith_throughput_cpu(Arith a, ArithOp op, int64_t chains, int64_t steps) {
  return dispatch(a, [&](auto tag) -> Throughput {
    using T = typename decltype(tag)::type;
    switch (op) {
      case ArithOp::kAdd: return cpu_chains<T, ArithOp::kAdd>(chains, steps);
      case ArithOp::kMul: return cpu_chains<T, ArithOp::kMul>(chains, steps);
      case ArithOp::kSqr: return cpu_chains<T, ArithOp::kSqr>(chains, steps);
      case ArithOp::kHenon: return cpu_chains<T, ArithOp::kHenon>(chains, steps);
      default: throw ArithError(std::string("no throughput chain for ") + arith_op_name(op));
    }
  });
}

}  // namespace ds
