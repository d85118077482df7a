// Builds without CUDA: the fixed-point reference has only its CPU twin (reference_fixed.h).
#include "kernels/core/backend.h"
#include "kernels/perturb/reference_fixed.h"

namespace ds::perturb {

std::unique_ptr<FixedOrbit> gpu_fixed_orbit(const std::string&, const std::string&, int, int, const std::string&,
                                            const std::string&) {
  throw BackendError("the GPU reference needs a build with CUDA");
}

}  // namespace ds::perturb
