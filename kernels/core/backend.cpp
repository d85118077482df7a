// Backend names, selection and memory queries for every kernel family.
#include "backend.h"

#include <unistd.h>

#include "device.h"

namespace ds {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::kAuto:
      return "auto";
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
  }
  return "?";
}

Backend select_backend(Backend requested, std::string* note) {
  if (requested == Backend::kCpu) return Backend::kCpu;
  const bool have = built_with_cuda() && cuda_device_count() > 0;
  if (requested == Backend::kCuda) {
    if (!have) throw BackendError("--backend cuda: no usable CUDA device (" + cuda_unavailable_reason() + ")");
    return Backend::kCuda;
  }
  if (have) return Backend::kCuda;
  if (note) *note = "no usable CUDA device (" + cuda_unavailable_reason() + "): running on the CPU";
  return Backend::kCpu;
}

uint64_t host_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(size);
}

uint64_t device_memory_bytes(int index) {
  for (const auto& d : cuda_devices())
    if (d.index == index) return d.memory_bytes;
  return 0;
}

}  // namespace ds
