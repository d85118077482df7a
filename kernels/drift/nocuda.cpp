// The MD-drift workspace's CUDA entry points in builds without CUDA: they say so.
#include <stdexcept>

#include "drift.h"

namespace ds::drift::detail {

namespace {
[[noreturn]] void no_cuda() {
  throw std::runtime_error("this build has no CUDA support (DEEPSCOPE_CUDA=OFF or no nvcc)");
}
}  // namespace

std::unique_ptr<MdEngine> make_md_cuda(const MdSetup&, Precision) { no_cuda(); }
void sum_partials_cuda(SumMethod, const double*, int, int, double*) { no_cuda(); }
void doundo_cuda(const DoUndoParams&, double, double*, int64_t, double*, double*) { no_cuda(); }

}  // namespace ds::drift::detail
