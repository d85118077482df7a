// Where a kernel family runs: the backend choice shared by every workspace, its resolution against
// the devices present, and the memory figures that batch commands check before allocating.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ds {

enum class Backend { kAuto, kCpu, kCuda };

const char* backend_name(Backend b);

// No usable CUDA device for Backend::kCuda, or work that does not fit the machine's memory.
struct BackendError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Resolves kAuto to CUDA when a device is usable, else to the CPU, saying why in *note (if given).
// kCuda without a usable device throws BackendError.
Backend select_backend(Backend requested, std::string* note = nullptr);

// Physical memory of this machine (sysconf), and of CUDA device `index` (0 without CUDA).
uint64_t host_memory_bytes();
// What a render may take of a machine's `host` bytes for its reference orbit and the arrays made
// from it: three quarters (the rest for the image, the tables and everything else running).
constexpr uint64_t usable_memory_bytes(uint64_t host) { return host / 4 * 3; }
uint64_t device_memory_bytes(int index);

}  // namespace ds
