// Input checks shared by the Hénon workspace's host side (orbit.cpp, scan.cpp): parameters and
// start values parsed in the format, the map's constants checked against its range, and the
// CPU's cancel polling.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "advance.cuh"

namespace ds::henon {

inline constexpr int64_t kSlice = 1 << 14;  // steps between cancel checks on the CPU

inline bool cancelled(const std::atomic<bool>* c) { return c && c->load(std::memory_order_relaxed); }

template <class T>
T parse_value(const std::string& what, const std::string& s) {
  try {
    return T::from_string(s);
  } catch (const ArithError& e) {
    throw ArithError(what + ": " + e.what());
  }
}

// The map's constants in T, checked so that no step from inside the escape box can overflow or
// wrap: |a| bound^2 + bound + 1 and |b| bound stay below a quarter of the format's range.
template <class T>
MapParams<T> make_params(const std::string& a, const std::string& b, double bound, const std::string& tol) {
  const FormatTraits tr = T::traits();
  if (!std::isfinite(bound) || bound < 1.0 || bound > 1e6)
    throw ArithError("escape bound must be in [1, 1e6], got " + std::to_string(bound));
  MapParams<T> p;
  p.a = parse_value<T>("a", a);
  p.b = parse_value<T>("b", b);
  p.bound = T::from_double(bound);
  p.tol = parse_value<T>("tol", tol);
  if (!(p.tol > T(0.0))) throw ArithError("tol must be positive in " + std::string(tr.name) + ", got " + tol);
  const double ad = std::fabs(to_double(p.a)), bd = std::fabs(to_double(p.b));
  const double limit = tr.max_abs / 4;
  if (!(ad * bound * bound + bound + 1 < limit) || !(bd * bound < limit))
    throw ArithError("a = " + a + ", b = " + b + " with escape bound " + std::to_string(bound) +
                     " can leave the range of " + tr.name + "; use smaller values or a floating format");
  return p;
}

inline void check_range(const char* what, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    throw std::invalid_argument(std::string(what) + " must be in [" + std::to_string(lo) + ", " +
                                std::to_string(hi) + "], got " + std::to_string(v));
}

}  // namespace ds::henon
