// Device discovery for builds without CUDA: there is never a device.
#include "device.h"

namespace ds {

bool built_with_cuda() { return false; }
int cuda_device_count() { return 0; }
std::vector<CudaDeviceInfo> cuda_devices() { return {}; }
std::string cuda_unavailable_reason() { return "built without CUDA (DEEPSCOPE_CUDA=OFF or no nvcc)"; }

}  // namespace ds
