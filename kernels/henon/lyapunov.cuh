// Per-item math of the Hénon Lyapunov exponent, host and device: the orbit in the format T and
// its tangent vector in double, renormalised each step (Benettin et al. 1980; the standard
// two-dimensional version, e.g. Sprott, "Chaos and Time-Series Analysis", section 5.6).
#pragma once
#include <cmath>
#include <cstdint>

#include "advance.cuh"

namespace ds::henon {

// The tangent vector (unit length between steps) and the sum of log growth factors so far.
struct TangentState {
  double u = 1, w = 0;
  double log_sum = 0;
};

// n steps of the orbit (x, y) (y in the format's stored form, stored_y) with the tangent vector
// carried by J(x) = [[-2 a x, 1], [b, 0]] at the point before each step. Returns false as soon as
// the orbit leaves the escape box (the state is then meaningless). A vanishing vector (only for
// b = 0 with x = 0 exactly) makes log_sum -inf, which later finite terms leave -inf.
template <class T>
DEEPSCOPE_HD bool lyapunov_steps(const MapParams<T>& p, T& x, T& y, TangentState& s, int64_t n) {
  const double a = to_double(p.a), b = to_double(p.b);
  for (int64_t i = 0; i < n; ++i) {
    const double xd = to_double(x);
    const double nu = -2.0 * a * xd * s.u + s.w;
    const double nw = b * s.u;
    step(p.a, p.b, x, y);
    if (outside(x, y, p.bound)) return false;
    const double norm = std::sqrt(nu * nu + nw * nw);
    if (norm > 0.0) {
      s.log_sum += std::log(norm);
      s.u = nu / norm;
      s.w = nw / norm;
    } else {
      s.log_sum = -HUGE_VAL;
      s.u = 1.0;
      s.w = 0.0;
    }
  }
  return true;
}

}  // namespace ds::henon
