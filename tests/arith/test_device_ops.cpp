// Host and GPU give bit-identical results: every format and operation through arith_ops on random
// inputs (device section), plus the format table and its one dispatch (host).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "arith/format.h"
#include "kernels/arith_ops/arith_ops.h"
#include "oracle.h"

namespace {

using namespace ds;

TEST(Formats, NamesAliasesAndErrors) {
  EXPECT_EQ(parse_arith("dd"), Arith::kF64x2);
  EXPECT_EQ(parse_arith("qd"), Arith::kF64x4);
  for (Arith a : all_ariths()) EXPECT_EQ(parse_arith(arith_name(a)), a);
  EXPECT_THROW(parse_arith("f128"), ArithError);
  EXPECT_THROW(parse_arith(""), ArithError);
  EXPECT_THROW(dispatch(static_cast<Arith>(999), [](auto) { return 0; }), ArithError);
  EXPECT_EQ(all_ariths().size(), 19u);
  for (Arith a : all_ariths()) {
    FormatTraits t = arith_traits(a);
    EXPECT_GT(t.bits, 0) << t.name;
    EXPECT_GT(t.eps, 0) << t.name;
    EXPECT_GT(t.max_abs, 1.0) << t.name;
    EXPECT_GT(t.rel_cost, 0) << t.name;
  }
}

// n random values of format a in [-2, 2) with random exponents, as raw storage bytes.
std::vector<unsigned char> random_values(Arith a, std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> m(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-20, 1);
  std::size_t sz = arith_storage_size(a);
  std::vector<unsigned char> out(n * sz);
  dispatch(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t i = 0; i < n; ++i) {
      // A full-precision value: a double plus a second, lower-order random part.
      T v = T::from_double(std::ldexp(m(rng), e(rng)));
      v = v + T::from_double(std::ldexp(m(rng), e(rng) - 60));
      std::memcpy(&out[i * sz], &v, sz);
    }
  });
  return out;
}

TEST(DeviceOps, GpuMatchesCpuBitForBit) {
  DEEPSCOPE_REQUIRE_GPU();
  auto rng = test::seeded_rng("DeviceOps.GpuMatchesCpuBitForBit");
  const std::size_t n = 20000;
  for (Arith a : all_ariths()) {
    auto x = random_values(a, n, rng), y = random_values(a, n, rng);
    // Divisors and square-root arguments away from zero and positive where it matters.
    for (ArithOp op : {ArithOp::kAdd, ArithOp::kSub, ArithOp::kMul, ArithOp::kSqr, ArithOp::kDiv, ArithOp::kSqrt,
                       ArithOp::kHenon}) {
      if (!arith_op_supported(a, op)) continue;
      std::vector<unsigned char> xs = x;
      if (op == ArithOp::kSqrt || op == ArithOp::kDiv) {
        dispatch(a, [&](auto tag) {
          using T = typename decltype(tag)::type;
          T* p = reinterpret_cast<T*>(op == ArithOp::kSqrt ? xs.data() : nullptr);
          if (p)
            for (std::size_t i = 0; i < n; ++i) p[i] = abs(p[i]) + T(0.5);
        });
      }
      std::vector<unsigned char> ys = y;
      if (op == ArithOp::kDiv) {
        dispatch(a, [&](auto tag) {
          using T = typename decltype(tag)::type;
          T* p = reinterpret_cast<T*>(ys.data());
          for (std::size_t i = 0; i < n; ++i) p[i] = abs(p[i]) + T(0.25);
        });
      }
      std::vector<unsigned char> cpu(x.size(), 0xAB), gpu(x.size(), 0xCD);
      arith_ops_cpu(a, op, xs.data(), ys.data(), cpu.data(), n);
      arith_ops_cuda(a, op, xs.data(), ys.data(), gpu.data(), n);
      EXPECT_EQ(std::memcmp(cpu.data(), gpu.data(), cpu.size()), 0)
          << arith_name(a) << " " << arith_op_name(op) << ": host and device results differ";
    }
  }
}

TEST(DeviceOps, ThroughputChainsAgreeWithCpu) {
  DEEPSCOPE_REQUIRE_GPU();
  // 128 Hénon orbits of 1000 steps: the same starts on both sides, summed in the same order.
  for (Arith a : all_ariths()) {
    Throughput c = arith_throughput_cpu(a, ArithOp::kHenon, 128, 1000);
    Throughput g = arith_throughput_cuda(a, ArithOp::kHenon, 128, 1000);
    EXPECT_TRUE(std::isfinite(c.checksum)) << arith_name(a);
    EXPECT_EQ(c.checksum, g.checksum) << arith_name(a);
  }
}

}  // namespace
