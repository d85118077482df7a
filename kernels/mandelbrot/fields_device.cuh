// Where a CUDA render's per-pixel fields go on the device (mandelbrot.cu and perturb.cu alike): the
// caller's device arrays for a device-resident render that gives them, else scratch arrays that
// copy_to_host brings back into RenderResult's host arrays.
#pragma once
#include <cstddef>

#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "fields.cuh"
#include "mandelbrot.h"

namespace ds::mandel {

struct DeviceFields {
  DeviceBuffer dex, dey, phase, stripe, sqrt_smooth;  // scratch (1 byte where not needed)
  FieldPtrs ptrs;                                     // what the kernels write

  DeviceFields(const RenderOptions& opt, bool resident, std::size_t pixels)
      : dex(scratch(opt, resident, pixels, kFieldDistance, opt.device_dex)),
        dey(scratch(opt, resident, pixels, kFieldDistance, opt.device_dex)),
        phase(scratch(opt, resident, pixels, kFieldPhase, opt.device_phase)),
        stripe(scratch(opt, resident, pixels, kFieldStripe, opt.device_stripe)),
        sqrt_smooth(scratch(opt, resident, pixels, kFieldSqrtSmooth, opt.device_sqrt_smooth)) {
    if (opt.fields & kFieldDistance) {
      const bool given = resident && opt.device_dex;
      ptrs.dex = given ? opt.device_dex : dex.as<float>();
      ptrs.dey = given ? opt.device_dey : dey.as<float>();
    }
    if (opt.fields & kFieldPhase) ptrs.phase = resident && opt.device_phase ? opt.device_phase : phase.as<float>();
    if (opt.fields & kFieldStripe)
      ptrs.stripe = resident && opt.device_stripe ? opt.device_stripe : stripe.as<float>();
    if (opt.fields & kFieldSqrtSmooth)
      ptrs.sqrt_smooth =
          resident && opt.device_sqrt_smooth ? opt.device_sqrt_smooth : sqrt_smooth.as<float>();
  }

  // The fields into the host arrays given (null: not wanted there).
  void copy_to_host(const FieldPtrs& host, std::size_t pixels) const {
    const float* dev[5] = {ptrs.dex, ptrs.dey, ptrs.phase, ptrs.stripe, ptrs.sqrt_smooth};
    float* to[5] = {host.dex, host.dey, host.phase, host.stripe, host.sqrt_smooth};
    for (int q = 0; q < 5; ++q)
      if (dev[q] && to[q])
        DEEPSCOPE_CUDA_CHECK(cudaMemcpy(to[q], dev[q], pixels * sizeof(float), cudaMemcpyDeviceToHost));
  }

 private:
  static std::size_t scratch(const RenderOptions& opt, bool resident, std::size_t pixels, unsigned bit,
                             const float* given) {
    return (opt.fields & bit) && !(resident && given) ? pixels * sizeof(float) : 0;
  }
};

}  // namespace ds::mandel
