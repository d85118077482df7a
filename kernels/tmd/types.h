// The TMD workspace's function and rounding-mode enums, shared by the host API (tmd.h) and the
// per-input math (tmd.cuh).
#pragma once
#include <cstdint>

namespace ds::tmd {

enum class Func : int32_t { kExp = 0, kExp2 = 1, kLog = 2, kLog2 = 3, kSin = 4, kCos = 5 };
enum class Mode : int32_t { kNearest = 0, kDirected = 1 };

}  // namespace ds::tmd
