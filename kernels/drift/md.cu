// The Lennard-Jones engine on CUDA: one thread per atom over the per-atom functions of
// md.cuh, a cell list rebuilt every step (atomic binning, then each cell sorted by atom index
// so the force sums run in the same order as on the CPU, and every run is reproducible to the bit;
// the fixed-point mode's sums do not depend on the order at all).
#include <memory>
#include <vector>

#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "drift.h"
#include "md.cuh"
#include "md_common.h"

namespace ds::drift::detail {
namespace {

constexpr int kBlock = 128;
// The force kernel's blocks are smaller, so that a 4,000-atom system still spreads over 63 of an
// H100's 132 SMs (each thread's work is long: hundreds of candidate pairs).
constexpr int kForceBlock = 64;

template <class S, class R, class A>
__global__ void kick_drift_kernel(MdView<S, R, A> m, int* fault) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m.n && kick_drift_atom(m, i)) *fault = 1;
}

template <class S, class R, class A>
__global__ void bin_kernel(MdView<S, R, A> m, int* overflow) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m.n) return;
  const int c = cell_of(m, i);
  const int q = atomicAdd(m.cell_count + c, 1);
  if (q < m.cap)
    m.cell_atoms[static_cast<int64_t>(c) * m.cap + q] = i;
  else
    *overflow = 1;
}

// Insertion sort of each cell's atoms (a few dozen at most) into index order.
__global__ void sort_cells_kernel(const int* count, int* atoms, int cells, int cap) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  int* a = atoms + static_cast<int64_t>(c) * cap;
  const int n = count[c] < cap ? count[c] : cap;
  for (int k = 1; k < n; ++k) {
    const int v = a[k];
    int j = k - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

// range: set when an atom's fixed-point sums could have left int64 (force_atom's check).
template <class S, class R, class A, bool E>
__global__ void force_kernel(MdView<S, R, A> m, int* range) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m.n && force_atom<S, R, E, A>(m, i)) *range = 1;
}

template <class S, class R, class A, bool E>
__global__ void kick_kernel(MdView<S, R, A> m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m.n) kick_atom<S, R, E, A>(m, i);
}

template <class S, class R, class A>
__global__ void kinetic_kernel(MdView<S, R, A> m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m.n) kinetic_atom(m, i);
}

template <class S, class R, class A>
class MdCuda final : public MdEngine {
 public:
  explicit MdCuda(const MdSetup& s)
      : n_(static_cast<int>(s.n)),
        cells_(s.ncell * s.ncell * s.ncell),
        state_(sizeof(S) * 9 * static_cast<std::size_t>(n_)),
        saved_(sizeof(S) * 9 * static_cast<std::size_t>(n_)),
        energy_(sizeof(S) * 2 * static_cast<std::size_t>(n_)),
        count_(sizeof(int) * static_cast<std::size_t>(cells_)),
        atoms_(std::make_unique<DeviceBuffer>(sizeof(int) * static_cast<std::size_t>(cells_) * s.cap)),
        overflow_(sizeof(int)),
        fault_(sizeof(int)),
        range_(sizeof(int)) {
    fill_view(s, &m_);
    S* base = state_.as<S>();
    for (int k = 0; k < 3; ++k) {
      m_.x[k] = base + static_cast<std::size_t>(k) * n_;
      m_.v[k] = base + static_cast<std::size_t>(3 + k) * n_;
      m_.f[k] = base + static_cast<std::size_t>(6 + k) * n_;
    }
    m_.pe = energy_.as<S>();
    m_.ke = energy_.as<S>() + n_;
    m_.cell_count = count_.as<int>();
    m_.cell_atoms = atoms_->as<int>();
    std::vector<S> h(9 * static_cast<std::size_t>(n_), S(0.0));
    for (std::size_t q = 0; q < 3 * static_cast<std::size_t>(n_); ++q) {
      h[q] = S(s.x[q]);
      h[3 * static_cast<std::size_t>(n_) + q] = S(s.v[q]);
    }
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(base, h.data(), sizeof(S) * h.size(), cudaMemcpyHostToDevice));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(overflow_.p, 0, sizeof(int)));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(fault_.p, 0, sizeof(int)));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(range_.p, 0, sizeof(int)));
    build_cells();
    force_kernel<S, R, A, true><<<grid(n_, kForceBlock), kForceBlock>>>(m_, range_.as<int>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    kinetic_kernel<<<grid(n_), kBlock>>>(m_);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void step(int64_t n, bool energy) override {
    for (int64_t s = 0; s < n; ++s) {
      const bool e = energy && s + 1 == n;
      kick_drift_kernel<<<grid(n_), kBlock>>>(m_, fault_.as<int>());
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
      build_cells();
      if (e) {
        force_kernel<S, R, A, true><<<grid(n_, kForceBlock), kForceBlock>>>(m_, range_.as<int>());
        DEEPSCOPE_CUDA_CHECK_LAUNCH();
        kick_kernel<S, R, A, true><<<grid(n_), kBlock>>>(m_);
      } else {
        force_kernel<S, R, A, false><<<grid(n_, kForceBlock), kForceBlock>>>(m_, range_.as<int>());
        DEEPSCOPE_CUDA_CHECK_LAUNCH();
        kick_kernel<S, R, A, false><<<grid(n_), kBlock>>>(m_);
      }
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
    }
    DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }

  void energies(double* ke, double* pe) override {
    std::vector<S> h(2 * static_cast<std::size_t>(n_));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(h.data(), energy_.p, sizeof(S) * h.size(), cudaMemcpyDeviceToHost));
    *pe = sum_state(h.data(), n_);
    *ke = sum_state(h.data() + n_, n_);
  }
  void save() override {
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(saved_.p, state_.p, sizeof(S) * 9 * n_, cudaMemcpyDeviceToDevice));
  }
  void restore() override {
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(state_.p, saved_.p, sizeof(S) * 9 * n_, cudaMemcpyDeviceToDevice));
  }
  // The state (x, v, f) and the energies (pe, ke) are contiguous on the device, in pack_state's
  // order: two copies each way.
  std::vector<unsigned char> export_state() override {
    const std::size_t n = static_cast<std::size_t>(n_);
    std::vector<S> h(kStateArrays * n);
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(h.data(), state_.p, sizeof(S) * 9 * n, cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(h.data() + 9 * n, energy_.p, sizeof(S) * 2 * n, cudaMemcpyDeviceToHost));
    const S* a[kStateArrays];
    for (int k = 0; k < kStateArrays; ++k) a[k] = h.data() + k * n;
    return pack_state<S>(n_, m_.cap, 0, a);
  }
  void import_state(const std::vector<unsigned char>& bytes) override {
    const std::size_t n = static_cast<std::size_t>(n_);
    EngineStateHeader head;
    const std::vector<S> h = unpack_state_flat<S>(bytes, n_, &head);
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(state_.p, h.data(), sizeof(S) * 9 * n, cudaMemcpyHostToDevice));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(energy_.p, h.data() + 9 * n, sizeof(S) * 2 * n, cudaMemcpyHostToDevice));
    set_cell_capacity(head.cap);
    DEEPSCOPE_CUDA_CHECK(cudaMemset(overflow_.p, 0, sizeof(int)));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(fault_.p, 0, sizeof(int)));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(range_.p, 0, sizeof(int)));
    DEEPSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  uint64_t state_hash() override {
    std::vector<S> h(6 * static_cast<std::size_t>(n_));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(h.data(), state_.p, sizeof(S) * h.size(), cudaMemcpyDeviceToHost));
    return fnv1a(kFnvOffset, h.data(), sizeof(S) * h.size());
  }
  void set_cell_capacity(int cap) override {
    atoms_.reset();
    atoms_ = std::make_unique<DeviceBuffer>(sizeof(int) * static_cast<std::size_t>(cells_) * cap);
    m_.cap = cap;
    m_.cell_atoms = atoms_->as<int>();
  }
  int cell_capacity() const override { return m_.cap; }
  bool screen_fault() override {
    int f = 0;
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&f, fault_.p, sizeof(int), cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(fault_.p, 0, sizeof(int)));
    return f != 0;
  }
  bool range_fault() override {
    int f = 0;
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&f, range_.p, sizeof(int), cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(range_.p, 0, sizeof(int)));
    return f != 0;
  }
  bool overflowed() override {
    int o = 0;
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(&o, overflow_.p, sizeof(int), cudaMemcpyDeviceToHost));
    DEEPSCOPE_CUDA_CHECK(cudaMemset(overflow_.p, 0, sizeof(int)));
    return o != 0;
  }

 private:
  static int grid(int n, int block = kBlock) { return (n + block - 1) / block; }
  void build_cells() {
    DEEPSCOPE_CUDA_CHECK(cudaMemsetAsync(count_.p, 0, sizeof(int) * cells_));
    bin_kernel<<<grid(n_), kBlock>>>(m_, overflow_.as<int>());
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    // The fixed-point sums do not depend on the order of a cell's atoms: the cells stay in the
    // order the atomics left them (which varies from run to run), and the trajectory is still the
    // CPU's to the bit (DriftDevice.MdMatchesCpuAndIsDeterministic).
    if constexpr (!IsFixed<A>::kValue) {
      sort_cells_kernel<<<grid(cells_), kBlock>>>(count_.as<int>(), atoms_->as<int>(), cells_, m_.cap);
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
    }
  }

  int n_, cells_;
  DeviceBuffer state_, saved_, energy_, count_;
  std::unique_ptr<DeviceBuffer> atoms_;
  DeviceBuffer overflow_, fault_, range_;
  MdView<S, R, A> m_{};
};

}  // namespace

std::unique_ptr<MdEngine> make_md_cuda(const MdSetup& s, Precision p) {
  std::unique_ptr<MdEngine> e;
  dispatch_precision(p, [&](auto types) {
    using Ty = decltype(types);
    e = std::make_unique<MdCuda<typename Ty::State, typename Ty::Pair, typename Ty::Acc>>(s);
  });
  return e;
}

}  // namespace ds::drift::detail
