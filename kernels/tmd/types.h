// The TMD workspace's function and rounding-mode enums, shared by the host API (tmd.h) and the
// per-input math (tmd.cuh).
#pragma once
#include <cstdint>

namespace ds::tmd {

enum class Func : int32_t { kExp = 0, kExp2 = 1, kLog = 2, kLog2 = 3, kSin = 4, kCos = 5 };
enum class Mode : int32_t { kNearest = 0, kDirected = 1 };

// Whether results |f| in [2^e, 2^(e+1)) are normal numbers of the searched format: binary32's
// range up to precision 24, binary64's beyond (exp on [128, 256) has results up to 2^370). Results
// outside it (binary32's overflow and underflow) are not searched, nor counted as cases.
constexpr bool result_in_range(int precision, long e) {
  return precision <= 24 ? (e >= -126 && e <= 127) : (e >= -1022 && e <= 1023);
}

}  // namespace ds::tmd
