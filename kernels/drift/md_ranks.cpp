// The Lennard-Jones engine split over ranks by domain decomposition (docs/drift.md, "Ranks"): each
// rank owns the atoms of a slab of whole cell layers along z (md_slabs.h), receives the positions of
// the layers just below and above its slab from its two neighbours every step (point-to-point),
// computes its own atoms' forces with md.cuh's force_atom and integrates them, and hands atoms that
// left its slab to their new owner. Each cell's atoms are listed in global index order, as in the
// one-process engine (md_cpu.cpp), and positions are never shifted (the periodic images are
// force_atom's own), so every force is summed in the same order from the same numbers: the
// trajectory is the one-process engine's to the bit. Energies and the state hash are gathered to
// rank 0 and formed there in global index order, then sent to every rank, so that every rank takes
// the same decisions in run_md.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "drift.h"
#include "kernels/core/comm.h"
#include "kernels/core/cpu_parallel.h"
#include "md.cuh"
#include "md_common.h"
#include "md_slabs.h"

namespace ds::drift::detail {
namespace {

using work::Bytes;
using work::Comm;

// Message tags of the engine (below work::kCommTagBase, above the work scheduler's).
constexpr int kTagMigrate = 200, kTagHaloUp = 201, kTagHaloDown = 202;

template <class T>
void put(Bytes* b, const T& v) {
  const std::size_t at = b->size();
  b->resize(at + sizeof(T));
  std::memcpy(b->data() + at, &v, sizeof(T));
}
template <class T>
T get(const Bytes& b, std::size_t* at) {
  T v;
  std::memcpy(&v, b.data() + *at, sizeof(T));
  *at += sizeof(T);
  return v;
}

template <class S, class R, class A>
class MdRanks final : public MdEngine {
 public:
  MdRanks(const MdSetup& s, Comm& comm)
      : comm_(comm),
        rank_(comm.rank()),
        slabs_(s.ncell, comm.size()),
        n_(s.n),
        threads_(static_cast<unsigned>(s.cpu_threads)) {
    fill_view(s, &m_);
    count_.assign(static_cast<std::size_t>(s.ncell) * s.ncell * s.ncell, 0);
    atoms_.assign(count_.size() * static_cast<std::size_t>(s.cap), 0);
    const std::size_t n = static_cast<std::size_t>(s.n);
    for (std::size_t i = 0; i < n; ++i) {
      const S z(s.x[2 * n + i]);
      const int layer = cell_coord(z, m_.cell_scale, m_.ncell);
      if (layer < slabs_.begin(rank_) || layer >= slabs_.end(rank_)) continue;
      gid_.push_back(static_cast<int64_t>(i));
      for (int k = 0; k < 3; ++k) {
        x_[k].push_back(S(s.x[k * n + i]));
        v_[k].push_back(S(s.v[k * n + i]));
        f_[k].push_back(S(0.0));
      }
      pe_.push_back(S(0.0));
      ke_.push_back(S(0.0));
    }
    exchange_halo();
    build_cells();
    std::atomic<bool> range{false};
    for_owned([&](int i) {
      if (force_atom<S, R, true, A>(m_, i)) range = true;
    });
    if (range) range_fault_ = true;
    for_owned([&](int i) { kinetic_atom(m_, i); });
  }

  void step(int64_t n, bool energy) override {
    for (int64_t s = 0; s < n; ++s) {
      const bool e = energy && s + 1 == n;
      std::atomic<bool> fault{false};
      for_owned([&](int i) {
        if (kick_drift_atom(m_, i)) fault = true;
      });
      if (fault) screen_fault_ = true;
      migrate();
      exchange_halo();
      build_cells();
      if (forces_and_kick(m_, e, [&](auto&& body) { for_owned(body); })) range_fault_ = true;
    }
  }

  // The per-atom energies of every rank, placed by global index on rank 0 and summed there in index
  // order in S, exactly as md_cpu.cpp sums them; every rank gets the totals.
  void energies(double* ke, double* pe) override {
    Bytes mine;
    for (int i = 0; i < own(); ++i) {
      put(&mine, gid_[i]);
      put(&mine, ke_[i]);
      put(&mine, pe_[i]);
    }
    const std::vector<Bytes> all = work::gather_to_root(comm_, mine);
    Bytes totals;
    if (rank_ == 0) {
      std::vector<S> k(static_cast<std::size_t>(n_), S(0.0)), p(static_cast<std::size_t>(n_), S(0.0));
      for (const Bytes& b : all)
        for (std::size_t at = 0; at < b.size();) {
          const int64_t g = get<int64_t>(b, &at);
          k[static_cast<std::size_t>(g)] = get<S>(b, &at);
          p[static_cast<std::size_t>(g)] = get<S>(b, &at);
        }
      put(&totals, sum_state(k.data(), static_cast<int>(n_)));
      put(&totals, sum_state(p.data(), static_cast<int>(n_)));
    }
    const Bytes got = work::broadcast_from_root(comm_, totals);
    std::size_t at = 0;
    *ke = get<double>(got, &at);
    *pe = get<double>(got, &at);
  }

  void save() override {
    saved_gid_ = gid_;
    for (int k = 0; k < 3; ++k) {
      sx_[k].assign(x_[k].begin(), x_[k].begin() + own());
      sv_[k] = v_[k];
      sf_[k] = f_[k];
    }
    spe_ = pe_;
    ske_ = ke_;
  }
  void restore() override {
    gid_ = saved_gid_;
    for (int k = 0; k < 3; ++k) {
      x_[k] = sx_[k];
      v_[k] = sv_[k];
      f_[k] = sf_[k];
    }
    pe_ = spe_;
    ke_ = ske_;
    point_view();
  }
  // md_cpu.cpp's hash: all x in index order, then y, z, then the velocities, as bytes of S.
  uint64_t state_hash() override {
    Bytes mine;
    for (int i = 0; i < own(); ++i) {
      put(&mine, gid_[i]);
      for (int k = 0; k < 3; ++k) put(&mine, x_[k][i]);
      for (int k = 0; k < 3; ++k) put(&mine, v_[k][i]);
    }
    const std::vector<Bytes> all = work::gather_to_root(comm_, mine);
    Bytes h;
    if (rank_ == 0) {
      std::vector<S> xv[6];
      for (auto& a : xv) a.assign(static_cast<std::size_t>(n_), S(0.0));
      for (const Bytes& b : all)
        for (std::size_t at = 0; at < b.size();) {
          const auto g = static_cast<std::size_t>(get<int64_t>(b, &at));
          for (auto& a : xv) a[g] = get<S>(b, &at);
        }
      uint64_t hash = kFnvOffset;
      for (auto& a : xv) hash = fnv1a(hash, a.data(), a.size() * sizeof(S));
      put(&h, hash);
    }
    const Bytes got = work::broadcast_from_root(comm_, h);
    std::size_t at = 0;
    return get<uint64_t>(got, &at);
  }
  void set_cell_capacity(int cap) override {
    m_.cap = cap;
    atoms_.assign(count_.size() * static_cast<std::size_t>(cap), 0);
    m_.cell_atoms = atoms_.data();
  }
  int cell_capacity() const override { return m_.cap; }
  bool screen_fault() override { return take_any(&screen_fault_); }
  bool range_fault() override { return take_any(&range_fault_); }
  bool overflowed() override { return take_any(&overflow_); }
  bool agree(bool mine) override { return work::any_rank(comm_, mine); }
  // Checkpoints: the owned atoms' state gathered to rank 0, placed by global index into
  // pack_state's layout (the one-process engines' bytes, to the bit), and sent to every rank, so that
  // every rank's checkpoint is the same. A collective call.
  std::vector<unsigned char> export_state() override {
    Bytes mine;
    for (int i = 0; i < own(); ++i) {
      put(&mine, gid_[i]);
      for (const S* a : owned_arrays()) put(&mine, a[i]);
    }
    const std::vector<Bytes> all = work::gather_to_root(comm_, mine);
    std::vector<unsigned char> packed;
    if (rank_ == 0) {
      const std::size_t n = static_cast<std::size_t>(n_);
      std::vector<S> h(kStateArrays * n, S(0.0));
      for (const Bytes& b : all)
        for (std::size_t at = 0; at < b.size();) {
          const auto g = static_cast<std::size_t>(get<int64_t>(b, &at));
          for (int k = 0; k < kStateArrays; ++k) h[k * n + g] = get<S>(b, &at);
        }
      const S* a[kStateArrays];
      for (int k = 0; k < kStateArrays; ++k) a[k] = h.data() + k * n;
      packed = pack_state<S>(n_, m_.cap, 0, a);
    }
    const Bytes got = work::broadcast_from_root(comm_, Bytes(packed.begin(), packed.end()));
    return std::vector<unsigned char>(got.begin(), got.end());
  }
  // Every rank holds the whole state (run_md is called with the same checkpoint on every rank) and
  // keeps the atoms whose layer is in its slab, in global index order: at an interval's end each rank
  // owns exactly those (migration follows every drift), sorted so, and its halo is exchanged at the
  // next step, as after restore().
  void import_state(const std::vector<unsigned char>& bytes) override {
    const std::size_t n = static_cast<std::size_t>(n_);
    EngineStateHeader head;
    const std::vector<S> h = unpack_state_flat<S>(bytes, n_, &head);
    const S* a[kStateArrays];
    for (int k = 0; k < kStateArrays; ++k) a[k] = h.data() + k * n;
    gid_.clear();
    for (int k = 0; k < 3; ++k) x_[k].clear(), v_[k].clear(), f_[k].clear();
    pe_.clear();
    ke_.clear();
    for (std::size_t g = 0; g < n; ++g) {
      const int layer = cell_coord(a[2][g], m_.cell_scale, m_.ncell);
      if (layer < slabs_.begin(rank_) || layer >= slabs_.end(rank_)) continue;
      gid_.push_back(static_cast<int64_t>(g));
      for (int k = 0; k < 3; ++k) {
        x_[k].push_back(a[k][g]);
        v_[k].push_back(a[3 + k][g]);
        f_[k].push_back(a[6 + k][g]);
      }
      pe_.push_back(a[9][g]);
      ke_.push_back(a[10][g]);
    }
    set_cell_capacity(head.cap);
    overflow_ = screen_fault_ = range_fault_ = false;
    point_view();
  }

 private:
  int own() const { return static_cast<int>(gid_.size()); }
  // pack_state's order: x, y, z, vx, vy, vz, fx, fy, fz, pe, ke.
  std::vector<const S*> owned_arrays() const {
    return {x_[0].data(), x_[1].data(), x_[2].data(), v_[0].data(), v_[1].data(), v_[2].data(),
            f_[0].data(), f_[1].data(), f_[2].data(), pe_.data(),   ke_.data()};
  }
  bool take_any(bool* flag) {
    const bool f = *flag;
    *flag = false;
    return work::any_rank(comm_, f);
  }
  std::vector<int> layers() const {
    std::vector<int> z(static_cast<std::size_t>(own()));
    for (int i = 0; i < own(); ++i)
      z[static_cast<std::size_t>(i)] = cell_coord(x_[2][i], m_.cell_scale, m_.ncell);
    return z;
  }
  void point_view() {
    for (int k = 0; k < 3; ++k) {
      m_.x[k] = x_[k].data();
      m_.v[k] = v_[k].data();
      m_.f[k] = f_[k].data();
    }
    m_.pe = pe_.data();
    m_.ke = ke_.data();
    m_.cell_count = count_.data();
    m_.cell_atoms = atoms_.data();
    m_.n = own();
  }

  // Atoms whose layer left the slab go to the rank that owns their new layer (any rank: a blown-up
  // system's atoms can jump), with their whole state; every rank then sorts its atoms by global
  // index. One message to each other rank per step, empty when nothing moves.
  void migrate() {
    const Migration plan = plan_migration(slabs_, rank_, layers());
    std::vector<Comm::Out> out;
    std::vector<Comm::In> in;
    for (int q = 0; q < comm_.size(); ++q) {
      if (q == rank_) continue;
      Bytes b;
      for (int i : plan.to[static_cast<std::size_t>(q)]) {
        put(&b, gid_[i]);
        for (int k = 0; k < 3; ++k) put(&b, x_[k][i]), put(&b, v_[k][i]), put(&b, f_[k][i]);
        put(&b, pe_[i]);
        put(&b, ke_[i]);
      }
      out.push_back({q, kTagMigrate, std::move(b)});
      in.push_back({q, kTagMigrate});
    }
    const std::vector<Bytes> got = comm_.exchange(out, in);
    // Survivors (in their order, which is by global index), then arrivals; then one sort.
    std::vector<int64_t> gid;
    std::vector<S> x[3], v[3], f[3], pe, ke;
    for (int i : plan.stay) {
      gid.push_back(gid_[i]);
      for (int k = 0; k < 3; ++k)
        x[k].push_back(x_[k][i]), v[k].push_back(v_[k][i]), f[k].push_back(f_[k][i]);
      pe.push_back(pe_[i]);
      ke.push_back(ke_[i]);
    }
    for (const Bytes& b : got)
      for (std::size_t at = 0; at < b.size();) {
        gid.push_back(get<int64_t>(b, &at));
        for (int k = 0; k < 3; ++k) {
          x[k].push_back(get<S>(b, &at));
          v[k].push_back(get<S>(b, &at));
          f[k].push_back(get<S>(b, &at));
        }
        pe.push_back(get<S>(b, &at));
        ke.push_back(get<S>(b, &at));
      }
    std::vector<int> order(gid.size());
    std::iota(order.begin(), order.end(), 0);
    if (gid.size() != plan.stay.size())
      std::sort(order.begin(), order.end(), [&](int a, int b) { return gid[a] < gid[b]; });
    auto permute = [&](const auto& from, auto* to) {
      to->resize(order.size());
      for (std::size_t q = 0; q < order.size(); ++q) (*to)[q] = from[static_cast<std::size_t>(order[q])];
    };
    permute(gid, &gid_);
    for (int k = 0; k < 3; ++k) {
      permute(x[k], &x_[k]);
      permute(v[k], &v_[k]);
      permute(f[k], &f_[k]);
    }
    permute(pe, &pe_);
    permute(ke, &ke_);
    point_view();
  }

  // The positions of the layers below and above the slab, from the two neighbours, appended after
  // the owned atoms (each list in global index order: the sender's atoms are sorted).
  void exchange_halo() {
    x_[0].resize(static_cast<std::size_t>(own()));
    x_[1].resize(static_cast<std::size_t>(own()));
    x_[2].resize(static_cast<std::size_t>(own()));
    const HaloSend h = plan_halo(slabs_, rank_, layers());
    auto pack = [&](const std::vector<int>& idx) {
      Bytes b;
      for (int i : idx)
        for (int k = 0; k < 3; ++k) put(&b, x_[k][i]);
      return b;
    };
    const int lo = slabs_.rank_below(rank_), hi = slabs_.rank_above(rank_);
    // From the rank below: its top layer (sent "up"); from the rank above: its bottom layer.
    const std::vector<Bytes> got =
        comm_.exchange({{lo, kTagHaloDown, pack(h.down)}, {hi, kTagHaloUp, pack(h.up)}},
                       {{lo, kTagHaloUp}, {hi, kTagHaloDown}});
    for (int side = 0; side < 2; ++side) {
      if (side == 1 && slabs_.one_halo_layer(rank_)) break;  // the same layer: taken once
      const Bytes& b = got[static_cast<std::size_t>(side)];
      for (std::size_t at = 0; at < b.size();)
        for (int k = 0; k < 3; ++k) x_[k].push_back(get<S>(b, &at));
    }
    point_view();
  }

  // md_cpu.cpp's cell list restricted to the slab and its halo: atoms enter their cell in global
  // index order (owned atoms sorted; each halo layer from one sender, in its sorted order).
  void build_cells() {
    std::fill(count_.begin(), count_.end(), 0);
    const int total = static_cast<int>(x_[0].size());
    for (int i = 0; i < total; ++i) {
      const int c = cell_of(m_, i);
      const int q = count_[static_cast<std::size_t>(c)]++;
      if (q < m_.cap)
        atoms_[static_cast<std::size_t>(c) * m_.cap + q] = i;
      else
        overflow_ = true;
    }
  }

  template <class Body>
  void for_owned(Body&& body) {
    ParallelOptions opt;
    opt.threads = threads_;
    parallel_for(
        static_cast<std::size_t>(own()), 256,
        [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) body(static_cast<int>(i));
        },
        opt);
  }

  Comm& comm_;
  int rank_;
  Slabs slabs_;
  int64_t n_;
  unsigned threads_;
  std::vector<int64_t> gid_, saved_gid_;  // owned atoms' global indices, increasing
  // x: owned atoms, then the halo below, then the halo above; v, f, pe, ke: owned atoms.
  std::vector<S> x_[3], v_[3], f_[3], sx_[3], sv_[3], sf_[3], pe_, ke_, spe_, ske_;
  std::vector<int> count_, atoms_;
  MdView<S, R, A> m_{};
  bool overflow_ = false, screen_fault_ = false, range_fault_ = false;
};

}  // namespace

std::unique_ptr<MdEngine> make_md_ranks(const MdSetup& s, Precision p, work::Comm& comm) {
  std::unique_ptr<MdEngine> e;
  dispatch_precision(p, [&](auto types) {
    using Ty = decltype(types);
    e = std::make_unique<MdRanks<typename Ty::State, typename Ty::Pair, typename Ty::Acc>>(s, comm);
  });
  return e;
}

}  // namespace ds::drift::detail
