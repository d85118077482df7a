// Device discovery for builds without CUDA: there is never a device.
#include "device.h"

#include <stdexcept>

namespace ds {

bool built_with_cuda() { return false; }
int cuda_device_count() { return 0; }
std::vector<CudaDeviceInfo> cuda_devices() { return {}; }
void set_current_device(int index) {
  throw std::runtime_error("CUDA device " + std::to_string(index) + " requested in a build without CUDA");
}
void* display_stream(int) { return nullptr; }
void* display_alloc(std::size_t, int) { throw std::runtime_error("device memory requested in a build without CUDA"); }
void display_free(void*, int) noexcept {}
void display_copy(void*, const void*, std::size_t, bool, int) {
  throw std::runtime_error("a device copy requested in a build without CUDA");
}
std::string cuda_unavailable_reason() { return "built without CUDA (DEEPSCOPE_CUDA=OFF or no nvcc)"; }

}  // namespace ds
