// Bit-level views of a binary64 value, host and device: the raw bits, a double from bits, and exact
// powers of two. Shared by the number types that work on exponents (expansion.h, floatexp.h).
#pragma once
#include <cstdint>
#include <cstring>

#include "hd.h"

namespace ds::bits {

DEEPSCOPE_HD uint64_t bits_of(double x) {
#if DEEPSCOPE_DEVICE_CODE
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}

DEEPSCOPE_HD double from_bits(uint64_t b) {
#if DEEPSCOPE_DEVICE_CODE
  return __longlong_as_double(static_cast<long long>(b));
#else
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}

// 2^k for -1022 <= k <= 1023, built exactly.
DEEPSCOPE_HD double pow2(int k) { return from_bits(static_cast<uint64_t>(k + 1023) << 52); }

}  // namespace ds::bits
