// Element-wise arithmetic and throughput chains for every format, on the CPU and on CUDA: the
// device sections of the arith tests compare the two bit for bit, and `bench arith` times them.
#pragma once
#include <cstddef>
#include <cstdint>

#include "arith/format.h"

namespace ds {

enum class ArithOp : int { kAdd, kSub, kMul, kSqr, kDiv, kSqrt, kHenon };

const char* arith_op_name(ArithOp op);
// Division and square root exist only where the format has them (traits' kHasDivSqrt).
bool arith_op_supported(Arith a, ArithOp op);
// Bytes of one stored value of the format.
std::size_t arith_storage_size(Arith a);

// out[i] = x[i] op y[i] for i < n (sqr and sqrt ignore y; kHenon is the x-update of one Hénon
// step, 1 + y - 1.4 x^2). x, y and out hold n values of the format's storage.
void arith_ops_cpu(Arith a, ArithOp op, const void* x, const void* y, void* out, std::size_t n);
// Same on the first CUDA device (copies in, launches, copies out). Throws if there is none.
void arith_ops_cuda(Arith a, ArithOp op, const void* x, const void* y, void* out, std::size_t n);

// Throughput: `chains` independent dependent chains of `steps` operations each. kAdd counts one
// add and one sub per step; kHenon counts one full step (x, y) -> (1 + y - 1.4 x^2, 0.3 x).
struct Throughput {
  double seconds;
  double ops_per_second;  // operations (or Hénon steps) per second
  double checksum;        // to_double of the chains' final values, so no work is dead
};
// One host thread, 8 interleaved chains per call.
Throughput arith_throughput_cpu(Arith a, ArithOp op, int64_t chains, int64_t steps);
// Enough CUDA threads to fill the device, one chain each.
Throughput arith_throughput_cuda(Arith a, ArithOp op, int64_t chains, int64_t steps);

}  // namespace ds
