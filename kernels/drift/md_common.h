// Host-side pieces both Lennard-Jones engines share: the view's constants from the setup, the
// energy totals summed in the state type, and the FNV-1a hash of the state's bytes.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

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

}  // namespace ds::drift::detail
