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
// Device memory for display work (Canvas, PointCloud): allocated zeroed, copied on display_stream,
// each call complete on return. display_alloc and display_copy throw (std::runtime_error) on a
// CUDA failure or without CUDA; display_free never throws (a lost device leaves nothing to free).
void* display_alloc(std::size_t bytes, int device);
void display_free(void* p, int device) noexcept;
void display_copy(void* dst, const void* src, std::size_t bytes, bool to_device, int device);
// Why there is no device ("built without CUDA", the runtime's error string, ...); empty if any.
std::string cuda_unavailable_reason();

}  // namespace ds
