// The period map (docs/perturbation/references.md, "The period map"): for a reference that the pixels go
// round again and again (periodic at a nucleus, or the centre's orbit cut at the ball's period),
// the whole way from its point 1 to its last point as one polynomial in the pixel's delta there
// and its dc, so that a pixel near a minibrot takes a period in one step where BLA, being linear,
// takes none. Knighty's idea (nanomb, fractalforums 2016) in the form of a Taylor model: the
// truncated bivariate polynomial with a proven bound on what truncation drops.
//
// With t = dz_1 (the pixel's delta at reference point 1) and v = dc, the steps
//   dz_{k+1} = 2 Z_k dz_k + dz_k^2 + v,   k = 1 .. L - 1   (L = the reference's last point)
// map t to dz_L = F(t, v), a polynomial of degree 2^(L-1). In the normalised variables
// x = t / rt, y = v / rv (rv = the table's dcmax), F is kept to total degree N in (x, y):
//   F(t, v) = sum_{i + j <= N} b_ij x^i y^j,
// built step by step in long double (64 bits; for the 106-bit tier in double words) with the
// reference's points to 106 bits. For every
// |x| <= rho and |y| <= 1 the truncation's error stays below a bound E carried along the steps:
//   E' = H + (2 |Z_k| + 2 S) E + E^2,  S = sum |b_ij| rho^i,  H = the dropped products' sum,
// and |Z_k| + S + E < 2 at every step, so no pixel in that domain escapes inside the period.
// rho is the largest of a ladder of candidates (rt 2^-c) whose E stays below 2^-50 S at the end;
// the build's own roundings add an estimate (in quadrature, as the pixels' error estimate does).
// Where at view 25 of FractalShark (period 100,000) BLA skipped 0.05 % of the iterations, one
// evaluation of 91 terms replaces 99,999 steps.
// Host only: the table's coefficients travel with the BLA entries (bla.h, BlaTable::pm_offset).
#pragma once
#include <atomic>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "arith/floatexp.h"
#include "arith/hd.h"
#include "dw_delta.h"

namespace ds::perturb {

struct Reference;

// The degree kept, and the longest reference it is built for (its cost grows with the steps
// times (N + 1)(N + 2)(N + 3)(N + 4) / 24 products; 2^18 steps take about 2 s at N = 12).
constexpr int kPeriodMapDegree = 12;
constexpr int kPeriodMapDegreeWide = 16;  // the double words' map: 2^-70 over about the same domain
constexpr uint64_t kPeriodMapMaxSteps = uint64_t{1} << 18;
// The error the map may carry, relative to its scale S (at the chosen rho): for binary64 and
// floatexp deltas, and for the 106-bit tier's double words (built in double words: its pixels
// are those binary64 could not decide, and a map at 2^-50 left 30 of view 25's 78 undecided).
constexpr double kPeriodMapTolerance = 8.6736173798840355e-19;      // 2^-60
constexpr double kPeriodMapToleranceWide = 8.4703294725430034e-22;  // 2^-70
// The tier's fine pass (its BLA table at 2^-106): what the coarse pass left needs more than 2^-70.
constexpr double kPeriodMapToleranceFine = 8.0779356694631609e-28;  // 2^-90

struct PeriodMap {
  int degree = 0;     // 0: none (why says why)
  bool wide = false;  // built in double words (wide_re, wide_im; domain 1 too)
  uint64_t steps = 0;  // L - 1: the reference's points 1 .. L
  // Coefficient b_ij at index period_map_index(i, j, degree), in z units (the normalised variables'
  // scales rt and rv are folded in).
  std::vector<std::complex<long double>> coef;
  std::vector<DwDelta> wide_re, wide_im;  // wide: the coefficients to 106 bits
  FloatExp rt{0.0}, rv{0.0};  // x = t / rt, y = v / rv
  // Two domains of the same coefficients: [0] within kPeriodMapTolerance (binary64 and floatexp
  // deltas), [1] within kPeriodMapToleranceWide (the 106-bit tier; wide maps only; radius 0: none).
  // [2] within kPeriodMapToleranceFine (the tier's fine pass; wide maps only).
  FloatExp radius[3] = {FloatExp(0.0), FloatExp(0.0), FloatExp(0.0)};  // rho rt: the map serves |t| <= radius (and |v| <= rv)
  FloatExp error[3] = {FloatExp(0.0), FloatExp(0.0), FloatExp(0.0)};  // E + the roundings' estimate, absolute (z units)
  FloatExp scale[3] = {FloatExp(0.0), FloatExp(0.0), FloatExp(0.0)};  // S at rho: the largest |F| there (an upper bound)
  // The ladder of domains |t| <= rung_radius[c] (decreasing) with their bounds rung_error[c]; domain
  // w's own is rung first_rung[w] (a pixel takes the least rung from there that holds its t).
  std::vector<FloatExp> rung_radius, rung_error;
  int first_rung[3] = {-1, -1, -1};
  double seconds = 0;
  std::string why;  // where degree = 0
};

DEEPSCOPE_HD constexpr int period_map_terms(int degree) { return (degree + 1) * (degree + 2) / 2; }
// Terms ordered by i, then j (j <= degree - i).
DEEPSCOPE_HD constexpr int period_map_index(int i, int j, int degree) { return i * (degree + 1) - i * (i - 1) / 2 + j; }

// A long double in floatexp (no underflow) and in the double word (exact where its 64 bits stay
// in binary64's range): the map's scales and coefficients on their way into the tables.
FloatExp floatexp_from_ld(long double x);
DwDelta dw_from_ld(long double x);

// Whether a view of `pixels` pixels to max_iter pays for the map of `ref`: a wrapping reference of
// at most kPeriodMapMaxSteps steps, and pixels x max_iter at least kPeriodMapWorkRatio times the
// build's products (steps x pairs at kPeriodMapDegreeWide). The build costs about 2 10^4 plain
// perturbation steps a step of the period (view 25: 5.2 s for 100,000 steps on 2 cores), and
// only pixels that go round many times gain: an ordinary view with a wrapping reference (KF's,
// the campaign's) is left without it.
constexpr double kPeriodMapWorkRatio = 16.0;
bool period_map_worth(const Reference& ref, uint64_t pixels, uint64_t max_iter);

// The map for `ref` (periodic or wrapping, at most kPeriodMapMaxSteps steps) over |v| <= dcmax: in
// double words to degree kPeriodMapDegreeWide where every point is in their range, else in long
// double to kPeriodMapDegree; or degree 0 with `why`. On all cores (the terms split among them).
// Once *cancel is set the build stops within 64 steps (degree 0, why "cancelled"; not kept).
PeriodMap build_period_map(const Reference& ref, FloatExp dcmax, const std::atomic<bool>* cancel = nullptr);

}  // namespace ds::perturb
