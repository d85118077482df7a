// Host-side pieces both Lennard-Jones engines share: the view's constants from the setup, the
// energy totals summed in the state type, the FNV-1a hash of the state's bytes, and the layout of
// an engine's exported state (checkpoints).
#pragma once
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "drift.h"
#include "md.cuh"

namespace ds::drift::detail {

constexpr uint64_t kFnvOffset = 1469598103934665603ULL;
inline uint64_t fnv1a(uint64_t h, const void* p, std::size_t n) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

// Constants of the view (pointers are the engine's business).
template <class S, class R, class A>
void fill_view(const MdSetup& s, MdView<S, R, A>* m) {
  m->n = static_cast<int>(s.n);
  m->ncell = s.ncell;
  m->cap = s.cap;
  m->box = S(s.box);
  m->dt = S(s.dt);
  m->half_dt = S(0.5 * s.dt);
  m->half_box = static_cast<R>(0.5 * s.box);
  m->rc2 = static_cast<R>(s.cutoff * s.cutoff);
  m->ecut = static_cast<R>(s.ecut);
  m->fcut = static_cast<R>(s.fcut);
  m->rc = static_cast<R>(s.cutoff);
  m->cell_scale = static_cast<double>(s.ncell) / s.box;
  m->fixed_scale = std::ldexp(1.0, s.fixed_bits);
  m->fixed_inv = std::ldexp(1.0, -s.fixed_bits);
  if constexpr (TwoWord<S>::kIs) {
    m->box_hi = TwoWord<S>::hi(m->box);
    m->half_box_hi = 0.5f * m->box_hi;
    const float r = static_cast<float>(s.cutoff) + kScreenMargin;
    m->screen2 = r * r;
  }
}

// The total of n per-atom values, added in index order in S (the thesis's global sum in the
// state's arithmetic), as a double.
template <class S>
double sum_state(const S* a, int n) {
  S t(0.0);
  for (int i = 0; i < n; ++i) t = t + a[i];
  return to_double(t);
}

// MdEngine::export_state's layout, the same for every engine: a header (magic "MDE1", sizeof(S),
// the atom count, the cell capacity, the CPU engine's shuffle counter) and then kStateArrays arrays
// of n values of S, in the order x, y, z, vx, vy, vz, fx, fy, fz, pe, ke (the CUDA engine's device
// order), in the host's byte order.
constexpr int kStateArrays = 11;
struct EngineStateHeader {
  char magic[4] = {'M', 'D', 'E', '1'};
  uint32_t state_size = 0;
  int64_t n = 0;
  int32_t cap = 0;
  int32_t reserved = 0;
  uint64_t builds = 0;
};

template <class S>
std::vector<unsigned char> pack_state(int64_t n, int cap, uint64_t builds, const S* const* arrays) {
  EngineStateHeader h;
  h.state_size = static_cast<uint32_t>(sizeof(S));
  h.n = n;
  h.cap = cap;
  h.builds = builds;
  const std::size_t one = sizeof(S) * static_cast<std::size_t>(n);
  std::vector<unsigned char> b(sizeof h + kStateArrays * one);
  std::memcpy(b.data(), &h, sizeof h);
  for (int k = 0; k < kStateArrays; ++k) std::memcpy(b.data() + sizeof h + k * one, arrays[k], one);
  return b;
}

// Checks the header against this engine (n atoms of S) and copies the arrays out; returns the header.
template <class S>
EngineStateHeader unpack_state(const std::vector<unsigned char>& b, int64_t n, S* const* arrays) {
  EngineStateHeader h;
  const std::size_t one = sizeof(S) * static_cast<std::size_t>(n);
  if (b.size() < sizeof h)
    throw std::invalid_argument("engine state: " + std::to_string(b.size()) + " bytes, too short");
  std::memcpy(&h, b.data(), sizeof h);
  if (std::memcmp(h.magic, "MDE1", 4) != 0)
    throw std::invalid_argument("engine state: not an MD engine state");
  if (h.state_size != sizeof(S))
    throw std::invalid_argument("engine state: values of " + std::to_string(h.state_size) +
                                " bytes, this precision's are " + std::to_string(sizeof(S)));
  if (h.n != n)
    throw std::invalid_argument("engine state: " + std::to_string(h.n) + " atoms, this run has " +
                                std::to_string(n));
  if (h.cap < 1 || h.cap > n)
    throw std::invalid_argument("engine state: cell capacity " + std::to_string(h.cap) +
                                " outside [1, atoms]");
  if (b.size() != sizeof h + kStateArrays * one)
    throw std::invalid_argument("engine state: " + std::to_string(b.size()) + " bytes, expected " +
                                std::to_string(sizeof h + kStateArrays * one));
  for (int k = 0; k < kStateArrays; ++k) std::memcpy(arrays[k], b.data() + sizeof h + k * one, one);
  return h;
}

// unpack_state into one host buffer of kStateArrays x n values (array k from k n on).
template <class S>
std::vector<S> unpack_state_flat(const std::vector<unsigned char>& b, int64_t n, EngineStateHeader* head) {
  const std::size_t m = static_cast<std::size_t>(n);
  std::vector<S> h(kStateArrays * m, S(0.0));
  S* a[kStateArrays];
  for (int k = 0; k < kStateArrays; ++k) a[k] = h.data() + k * m;
  *head = unpack_state<S>(b, n, a);
  return h;
}

// A step's second half on the host engines: each atom that for_each visits gets its forces (and
// its energy where `energy`) and the closing half kick. True where a fixed-point sum could have
// left its range.
template <class S, class R, class A, class ForEach>
bool forces_and_kick(const MdView<S, R, A>& m, bool energy, ForEach&& for_each) {
  std::atomic<bool> range{false};
  if (energy) {
    for_each([&](int i) {
      if (force_atom<S, R, true, A>(m, i)) range = true;
      kick_atom<S, R, true>(m, i);
    });
  } else {
    for_each([&](int i) {
      if (force_atom<S, R, false, A>(m, i)) range = true;
      kick_atom<S, R, false>(m, i);
    });
  }
  return range;
}

}  // namespace ds::drift::detail
