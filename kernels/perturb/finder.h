// The feature finder's host API (plain C++): the period of a region by the ball method, the
// nucleus of that period by Newton's method with its size, orientation and atom domain, and
// Misiurewicz points. The methods follow Claude Heiland-Allen's mandelbrot-numerics and Robert
// Munafo's size estimate; the arithmetic is ours (MPFR, with floatexp2 perturbation for the
// Newton steps). docs/finder.md.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "arith/floatexp.h"
#include "kernels/mandelbrot/view.h"

namespace ds::perturb::finder {

using mandel::View;

// The ball method: the smallest n in [1, max_period] for which the set {z_n(c) : |c - centre| <=
// radius} may hold 0. Rigorous: z_n(c) lies in the ball about the centre's orbit Z_n of radius
// R_n, R_1 = radius, R_{n+1} = (2|Z_n| + R_n) R_n + radius, and Z_n's own MPFR error (bounded as
// the reference's) is added; magnitudes are rounded up. The first n with |Z_n| <= R_n + E_n is
// the lowest period of a hyperbolic component the disk may meet.
struct PeriodResult {
  uint32_t period = 0;     // 0: none within max_period
  uint32_t escaped_at = 0; // the whole disk escaped at this step (no period), else 0
  uint32_t iterations = 0;
  bool cancelled = false;
  double seconds = 0;
};
PeriodResult find_period(const std::string& re, const std::string& im, FloatExp radius, uint32_t max_period,
                         int bits, const std::atomic<bool>* cancel = nullptr);

// Newton's method for the nucleus of period p (z_p(c) = 0) from the seed. The first steps run by
// perturbation against the seed's MPFR orbit (53-bit floatexp deltas, then 106-bit floatexp2
// ones where needed), one cheap orbit of p steps each; then MPFR steps with precision doubling,
// the last at b = -log2(size) + 112 bits (at least the seed's + 32). Converged when the Newton
// distance |z_p / z_p'| at the result is within 2^-(b - 16) of max(|c|, size), the working
// precision: measured by an MPFR orbit there, or predicted 2^-8 below that bound by the last
// step's quadratic convergence (K s^2, K = |z_p'' / 2 z_p'|) and its derivative's rounding.
// docs/finder.md.
struct Nucleus {
  bool converged = false;
  bool cancelled = false;
  std::string re, im;        // the nucleus, or the last estimate
  uint32_t period = 0;
  int bits = 0;              // MPFR precision of the last orbit
  int perturbed_steps = 0;   // Newton steps by perturbation
  int mpfr_steps = 0;        // MPFR orbits: the seed's, the Newton steps' and any check
  FloatExp newton_distance;  // |z_p / z_p'| at the result (measured, or the last step's prediction)
  // Size estimate (Munafo; mandelbrot-numerics m_*_size): 1/(b l^2) with l = prod 2 z_i and
  // b = sum 1/l over i < p: the minibrot is about c + size * (the whole set's shape), so its
  // cardioid spans about 1.5 |size| and it is turned by arg(size). From the last perturbed orbit
  // (its c within the last step of the nucleus), like the atom domain.
  FloatExp size;
  double orientation = 0;    // arg(size), radians
  FloatExp domain_size;      // atom domain radius: |z_q| / |dz_q/dc| at the q < p with least |z_q|
  std::string message;       // why not converged
  double seconds = 0;
};
Nucleus find_nucleus(const std::string& re, const std::string& im, uint32_t period, int bits,
                     FloatExp search_radius, const std::atomic<bool>* cancel = nullptr);

// Newton's method for the Misiurewicz point of preperiod q and period p (z_{q+p}(c) = z_q(c)) from
// the seed, in MPFR at `bits`, until the step is below 2^-(bits-16) of |c| or 64 steps.
struct Misiurewicz {
  bool converged = false;
  bool cancelled = false;
  std::string re, im;
  int preperiod = 0, period = 0;
  int bits = 0;
  int steps = 0;
  FloatExp newton_distance;  // |f / f'| at the result, f = z_{q+p} - z_q
  std::string message;
  double seconds = 0;
};
Misiurewicz find_misiurewicz(const std::string& re, const std::string& im, int preperiod, int period, int bits,
                             FloatExp search_radius, const std::atomic<bool>* cancel = nullptr);

// The (preperiod, period) of the Misiurewicz point the point's orbit shadows: |f| = |z_{q+p} - z_q|
// least over q <= max_preperiod, p <= max_period, preferring the smallest p, then q, among those
// within a factor 16 of the least. distance: one Newton step's length |f / f'| there.
struct MisiurewiczGuess {
  int preperiod = 0, period = 0;
  FloatExp distance;
};
MisiurewiczGuess guess_misiurewicz(const std::string& re, const std::string& im, int max_preperiod, int max_period,
                                   int bits);

// The view-level calls that the window and `deepscope find` share: the feature at the view's
// centre, or at pixel (px, py) when at_pixel, with a ball of radius_pixels pixel spacings.
struct FindOptions {
  bool at_pixel = false;
  int px = 0, py = 0;
  double radius_pixels = 4;
  uint32_t max_period = 0;  // 0: the view's iterations
  uint32_t period = 0;      // 0: found by the ball method
  int preperiod = 0;        // Misiurewicz: 0 with period 0: guessed (up to 64 each)
  double fit = 0.5;         // the minibrot's extent (2.25 |size|) over the view's height
  const std::atomic<bool>* cancel = nullptr;
};
struct FoundView {
  bool ok = false;         // a view was found (else message says why)
  bool cancelled = false;
  std::string message;
  PeriodResult period;     // when the ball method ran
  Nucleus nucleus;         // minibrot_view
  Misiurewicz misiurewicz; // misiurewicz_view
  View view;               // centred on the feature; zoom and iterations set (the size kept)
};
// The nucleus of the minibrot at the point, and a view of it: zoom = 4 fit / (2.25 |size|),
// iterations mandel::auto_iterations_for_period (max(the view's, 64 p), at most 1e8). Throws
// ViewError for a bad view or pixel.
FoundView minibrot_view(const View& v, const FindOptions& o);
// The Misiurewicz point at the point, and the same view centred on it.
FoundView misiurewicz_view(const View& v, const FindOptions& o);
// The ball method's period at the point (FoundView::period; view unchanged).
FoundView period_at(const View& v, const FindOptions& o);

// Seconds for one plain MPFR orbit z <- z^2 + c of p steps at `bits` (what a reference orbit of that
// length and precision costs): the unit of `bench finder`'s ratios.
double orbit_seconds(const std::string& re, const std::string& im, uint32_t p, int bits);

}  // namespace ds::perturb::finder
