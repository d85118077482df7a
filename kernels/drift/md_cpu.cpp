// The Lennard-Jones engine on the CPU: the per-atom functions of md.cuh on all cores, and a
// sequential cell-list build (atoms enter their cell in index order, as the CUDA engine's sort
// leaves them).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/core/cpu_parallel.h"
#include "drift.h"
#include "md.cuh"
#include "md_common.h"

namespace ds::drift::detail {
namespace {

template <class S, class R, class A>
class MdCpu final : public MdEngine {
 public:
  MdCpu(const MdSetup& s)
      : n_(static_cast<int>(s.n)), threads_(static_cast<unsigned>(s.cpu_threads)), shuffle_seed_(s.pair_order_seed) {
    for (int k = 0; k < 3; ++k) {
      x_[k].resize(n_);
      v_[k].resize(n_);
      f_[k].assign(n_, S(0.0));
      for (int i = 0; i < n_; ++i) {
        x_[k][i] = S(s.x[static_cast<std::size_t>(k) * n_ + i]);
        v_[k][i] = S(s.v[static_cast<std::size_t>(k) * n_ + i]);
      }
    }
    pe_.assign(n_, S(0.0));
    ke_.assign(n_, S(0.0));
    count_.assign(static_cast<std::size_t>(s.ncell) * s.ncell * s.ncell, 0);
    atoms_.assign(count_.size() * static_cast<std::size_t>(s.cap), 0);
    fill_view(s, &m_);
    for (int k = 0; k < 3; ++k) {
      m_.x[k] = x_[k].data();
      m_.v[k] = v_[k].data();
      m_.f[k] = f_[k].data();
    }
    m_.pe = pe_.data();
    m_.ke = ke_.data();
    m_.cell_count = count_.data();
    m_.cell_atoms = atoms_.data();
    build_cells();
    std::atomic<bool> range{false};
    for_atoms([&](int i) {
      if (force_atom<S, R, true, A>(m_, i)) range = true;
    });
    if (range) range_fault_ = true;
    for_atoms([&](int i) { kinetic_atom(m_, i); });
  }

  void step(int64_t n, bool energy) override {
    for (int64_t s = 0; s < n; ++s) {
      const bool e = energy && s + 1 == n;
      std::atomic<bool> fault{false};
      for_atoms([&](int i) {
        if (kick_drift_atom(m_, i)) fault = true;
      });
      if (fault) screen_fault_ = true;
      build_cells();
      if (forces_and_kick(m_, e, [&](auto&& body) { for_atoms(body); })) range_fault_ = true;
    }
  }

  void energies(double* ke, double* pe) override {
    *ke = sum_state(ke_.data(), n_);
    *pe = sum_state(pe_.data(), n_);
  }

  void save() override {
    for (int k = 0; k < 3; ++k) {
      sx_[k] = x_[k];
      sv_[k] = v_[k];
      sf_[k] = f_[k];
    }
  }
  void restore() override {
    for (int k = 0; k < 3; ++k) {
      x_[k] = sx_[k];
      v_[k] = sv_[k];
      f_[k] = sf_[k];
    }
  }
  std::vector<unsigned char> export_state() override {
    const S* a[kStateArrays] = {x_[0].data(), x_[1].data(), x_[2].data(), v_[0].data(),
                                v_[1].data(), v_[2].data(), f_[0].data(), f_[1].data(),
                                f_[2].data(), pe_.data(),   ke_.data()};
    return pack_state<S>(n_, m_.cap, builds_, a);
  }
  void import_state(const std::vector<unsigned char>& bytes) override {
    S* a[kStateArrays] = {x_[0].data(), x_[1].data(), x_[2].data(), v_[0].data(), v_[1].data(), v_[2].data(),
                          f_[0].data(), f_[1].data(), f_[2].data(), pe_.data(),   ke_.data()};
    const EngineStateHeader h = unpack_state<S>(bytes, n_, a);
    set_cell_capacity(h.cap);
    builds_ = h.builds;
    overflow_ = screen_fault_ = range_fault_ = false;
  }
  uint64_t state_hash() override {
    uint64_t h = kFnvOffset;
    for (int k = 0; k < 3; ++k) h = fnv1a(h, x_[k].data(), x_[k].size() * sizeof(S));
    for (int k = 0; k < 3; ++k) h = fnv1a(h, v_[k].data(), v_[k].size() * sizeof(S));
    return h;
  }
  void set_cell_capacity(int cap) override {
    m_.cap = cap;
    atoms_.assign(count_.size() * static_cast<std::size_t>(cap), 0);
    m_.cell_atoms = atoms_.data();
  }
  int cell_capacity() const override { return m_.cap; }
  bool screen_fault() override {
    const bool f = screen_fault_;
    screen_fault_ = false;
    return f;
  }
  bool range_fault() override {
    const bool f = range_fault_;
    range_fault_ = false;
    return f;
  }
  bool overflowed() override {
    const bool o = overflow_;
    overflow_ = false;
    return o;
  }

 private:
  // Each atom's force and kick touch only that atom's data (forces read positions only), so a
  // fused loop over atoms is the same computation as the CUDA engine's separate kernels.
  template <class Body>
  void for_atoms(Body&& body) {
    ParallelOptions opt;
    opt.threads = threads_;
    parallel_for(
        static_cast<std::size_t>(n_), 256,
        [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) body(static_cast<int>(i));
        },
        opt);
  }
  void build_cells() {
    std::fill(count_.begin(), count_.end(), 0);
    for (int i = 0; i < n_; ++i) {
      const int c = cell_of(m_, i);
      const int q = count_[c]++;
      if (q < m_.cap)
        atoms_[static_cast<std::size_t>(c) * m_.cap + q] = i;
      else
        overflow_ = true;
    }
    if (shuffle_seed_ != 0) shuffle_cells();
  }
  // Diagnostic (MdParams::pair_order_seed): each cell's atoms in a pseudo-random order, drawn
  // afresh at every rebuild, so that every atom's pair terms are summed in another order.
  void shuffle_cells() {
    ++builds_;
    for (std::size_t c = 0; c < count_.size(); ++c) {
      int* a = atoms_.data() + c * static_cast<std::size_t>(m_.cap);
      const int n = std::min(count_[c], m_.cap);
      for (int k = n - 1; k > 0; --k) {
        const uint64_t r = splitmix64(shuffle_seed_ ^ (builds_ * 0x9E3779B97F4A7C15ULL) ^ (c << 20) ^ k);
        std::swap(a[k], a[r % static_cast<uint64_t>(k + 1)]);
      }
    }
  }
  static uint64_t splitmix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  int n_;
  unsigned threads_;       // 0: all cores
  uint64_t shuffle_seed_;  // 0: each cell's atoms in index order
  uint64_t builds_ = 0;
  std::vector<S> x_[3], v_[3], f_[3], sx_[3], sv_[3], sf_[3], pe_, ke_;
  std::vector<int> count_, atoms_;
  MdView<S, R, A> m_{};
  bool overflow_ = false, screen_fault_ = false, range_fault_ = false;
};

}  // namespace

std::unique_ptr<MdEngine> make_md_cpu(const MdSetup& s, Precision p) {
  std::unique_ptr<MdEngine> e;
  dispatch_precision(p, [&](auto types) {
    using Ty = decltype(types);
    e = std::make_unique<MdCpu<typename Ty::State, typename Ty::Pair, typename Ty::Acc>>(s);
  });
  return e;
}

}  // namespace ds::drift::detail
