// Closed double intervals [lo, hi] with outward rounding, for the certified periodic-orbit catalogue
// (orbits.h). Host only, plain C++, no rounding-mode changes.
//
// Rounding: every operation computes its end points in the default round-to-nearest mode and then
// moves each one a full ulp outward (next_down / next_up). Round-to-nearest is off by at most half
// an ulp of the result (IEEE 754, for +, -, *, /, sqrt, including subnormal results), so the
// exact end point lies between the neighbours of the rounded one: the interval encloses the exact
// result. An overflow to +-inf stays sound (next_down(+inf) = DBL_MAX is below any exact value that
// rounded to +inf). We do not use fesetround: compilers may move or constant-fold floating point
// across it (GCC ignores FENV_ACCESS), and the rounding mode is per thread; widening by an ulp
// costs a little width and nothing else. This needs IEEE doubles without -ffast-math or x87
// excess precision (SSE2 on x86-64, the default there).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace ds::henon::iv {

// The next double above x (x for +inf and NaN), by its bit pattern.
inline double next_up(double x) {
  if (!(x < std::numeric_limits<double>::infinity())) return x;  // +inf, NaN
  if (x == 0) return std::numeric_limits<double>::denorm_min();
  uint64_t u;
  std::memcpy(&u, &x, 8);
  u = x > 0 ? u + 1 : u - 1;
  std::memcpy(&x, &u, 8);
  return x;
}
// The next double below x (x for -inf and NaN).
inline double next_down(double x) { return -next_up(-x); }

struct Interval {
  double lo = 0, hi = 0;
  Interval() = default;
  constexpr explicit Interval(double v) : lo(v), hi(v) {}
  constexpr Interval(double l, double h) : lo(l), hi(h) {}
  double mid() const { return 0.5 * lo + 0.5 * hi; }  // inside [lo, hi] (no overflow)
  double width() const { return hi - lo; }            // rounded; for reporting only
  bool empty() const { return !(lo <= hi); }
  bool contains(double v) const { return lo <= v && v <= hi; }
  bool contains_zero() const { return lo <= 0 && 0 <= hi; }
};

inline Interval operator+(Interval a, Interval b) { return {next_down(a.lo + b.lo), next_up(a.hi + b.hi)}; }
inline Interval operator-(Interval a, Interval b) { return {next_down(a.lo - b.hi), next_up(a.hi - b.lo)}; }
inline Interval operator-(Interval a) { return {-a.hi, -a.lo}; }  // exact

inline Interval operator*(Interval a, Interval b) {
  const double p1 = a.lo * b.lo, p2 = a.lo * b.hi, p3 = a.hi * b.lo, p4 = a.hi * b.hi;
  return {next_down(std::min(std::min(p1, p2), std::min(p3, p4))),
          next_up(std::max(std::max(p1, p2), std::max(p3, p4)))};
}
// Point times interval (a point is an exact double).
inline Interval operator*(double a, Interval b) {
  const double p1 = a * b.lo, p2 = a * b.hi;
  return {next_down(std::min(p1, p2)), next_up(std::max(p1, p2))};
}
// {x^2 : x in a}: tighter than a * a when a straddles 0 (lower end 0, exact).
inline Interval sqr(Interval a) {
  const double l = std::fabs(a.lo), h = std::fabs(a.hi);
  const double m = std::max(l, h);
  const double lo = a.contains_zero() ? 0.0 : next_down(std::min(l, h) * std::min(l, h));
  return {std::max(0.0, lo), next_up(m * m)};
}
// Division by an interval that does not contain 0 (the caller checks; otherwise the whole line).
inline Interval operator/(Interval a, Interval b) {
  if (b.contains_zero())
    return {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  const double q1 = a.lo / b.lo, q2 = a.lo / b.hi, q3 = a.hi / b.lo, q4 = a.hi / b.hi;
  return {next_down(std::min(std::min(q1, q2), std::min(q3, q4))),
          next_up(std::max(std::max(q1, q2), std::max(q3, q4)))};
}

inline Interval hull(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
// Empty (lo > hi) when they do not meet.
inline Interval intersect(Interval a, Interval b) { return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)}; }
inline bool overlaps(Interval a, Interval b) { return a.lo <= b.hi && b.lo <= a.hi; }
// a inside the interior of b.
inline bool inside_interior(Interval a, Interval b) { return b.lo < a.lo && a.hi < b.hi; }
inline bool subset(Interval a, Interval b) { return b.lo <= a.lo && a.hi <= b.hi; }
inline double mag(Interval a) { return std::max(std::fabs(a.lo), std::fabs(a.hi)); }

}  // namespace ds::henon::iv
