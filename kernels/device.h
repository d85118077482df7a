// CUDA device discovery in plain C++: the app and the tests include this without the CUDA runtime,
// and it answers "no device" in builds without CUDA.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ds {

struct CudaDeviceInfo {
  int index;
  std::string name;
  int sm_count;
  int cc_major, cc_minor;
  std::size_t memory_bytes;
};

// True when the kernels library was built with CUDA.
bool built_with_cuda();
// Number of usable CUDA devices; 0 without CUDA, without a driver, or without a device.
int cuda_device_count();
// One entry per usable device.
std::vector<CudaDeviceInfo> cuda_devices();
// Makes CUDA device `index` current on the calling thread (every later CUDA call of the thread
// uses it). Throws std::runtime_error without CUDA or for a device that does not exist.
void set_current_device(int index);
// The CUDA stream (a cudaStream_t, opaque here) that display work on `device` runs on: colouring
// for the screen and CUDA-GL interop's buffer mapping. It is non-blocking, so display work never
// waits for a render or an orbit in progress on a worker thread. nullptr without CUDA.
void* display_stream(int device);
// Why there is no device ("built without CUDA", the runtime's error string, ...); empty if any.
std::string cuda_unavailable_reason();

}  // namespace ds
