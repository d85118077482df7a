// The feature finder's host API (plain C++): the period of a region by the ball method, the
// nucleus of that period by Newton's method with its size, orientation and atom domain, and
// Misiurewicz points. The methods follow Claude Heiland-Allen's mandelbrot-numerics and Robert
// Munafo's size estimate; the arithmetic is ours (MPFR, with floatexp2 perturbation for the
// Newton steps). docs/finder.md.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
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
  // Atom domain radius: |z_q| / |dz_q/dc| at the q < p with least |z_q|. None at period 1: the
  // atom domain of period p is where |z_p| < |z_q| for every q < p, and with no q < 1 that is the
  // whole plane (mandelbrot-numerics' m_d_domain_size returns |z_1| / 1 = 0 there: no radius).
  std::optional<FloatExp> domain_size;
  std::string message;       // why not converged
  double seconds = 0;
};
Nucleus find_nucleus(const std::string& re, const std::string& im, uint32_t period, int bits,
                     FloatExp search_radius, const std::atomic<bool>* cancel = nullptr);
// The memory find_nucleus holds for a period-p orbit: kNucleusBytesPerStep a step (the seed's orbit
// in floatexp and plain doubles, the precision profiles and the schedule; docs/finder.md, "Memory").
constexpr uint64_t kNucleusBytesPerStep = 160;
inline uint64_t nucleus_memory_bytes(uint32_t period) { return (uint64_t{period} + 1) * kNucleusBytesPerStep; }
// "" or why a nucleus of period p cannot be searched on this machine: its orbit would take more than
// three quarters of the machine's memory (usable_memory_bytes). find_nucleus refuses such a period
// with this message before it allocates; `deepscope find --period` refuses it as bad input (exit 2).
std::string nucleus_memory_problem(uint32_t period);

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
// least over 2 <= q <= max_preperiod, p <= max_period, preferring the smallest p, then q, among
// those within a factor 16 of the least (q = 1 is left out: z_{1+p} = z_1 means z_p = 0, a nucleus).
// distance: one Newton step's length |f / f'| there.
struct MisiurewiczGuess {
  int preperiod = 0, period = 0;
  FloatExp distance;
};
MisiurewiczGuess guess_misiurewicz(const std::string& re, const std::string& im, int max_preperiod, int max_period,
                                   int bits);

// What the finder proves before it reports a feature (finder_proof.cpp; docs/finder.md, "Proof").
// A check orbit of c at `bits` (the bits c was found at), in fixed point where it fits, else in
// MPFR, with the derivatives in floatexp, independent of the Newton iteration that made c.
//
// Nucleus of period p: with tol = 2^-(bits - 16) max(|c|, min(|size|, 1)) (the finder's working
// tolerance, the size taken from this orbit and never above the main cardioid's 1):
//   - the orbit does not escape before p;
//   - converged: the Newton distance |z_p / z_p'| measured at c (|z_p| taken no smaller than the
//     orbit's rounding, 2^-bits (16 + |c|) 1.5 A_p, A_n = 2 |z_{n-1}| A_{n-1} + 1) is at most 16 tol, and
//     K |z_p / z_p'| <= 2^-16 with K = |z_p'' / 2 z_p'| at c (Kantorovich's h = 2 K r <= 1/2: a root
//     within about 2 r, where K holds over that disk);
//   - the least period: |z_d / z_d'| > 2^32 tol for every proper divisor d of p (at a nucleus of
//     period d, z_p vanishes too, and |z_d / z_d'| is about the distance to it); else least_period
//     is the least such d;
//   - the size 1 / (l z_p'), l = prod_{i<p} 2 z_i, at c itself: finite, nonzero, at most 1, and c
//     known to at least -log2 |size| + 80 bits.
struct NucleusProof {
  bool ok = false;
  bool cancelled = false;
  std::string reason;             // why not (empty when ok)
  uint32_t least_period = 0;      // a proper divisor d of p at which c is a nucleus, else p
  int bits = 0;
  FloatExp newton_distance{0.0};  // |z_p / z_p'| at c, measured
  FloatExp tolerance{0.0};        // tol (above)
  FloatExp k{0.0};                // |z_p'' / 2 z_p'| at c
  uint32_t divisor = 0;           // the proper divisor d of p with the least |z_d / z_d'| (0: p = 1)
  FloatExp divisor_distance{0.0}; // that |z_d / z_d'|
  FloatExp size{0.0};             // |size| at c, its argument, the atom domain (Nucleus's meanings)
  double orientation = 0;
  std::optional<FloatExp> domain_size;  // none at period 1 (Nucleus::domain_size)
  double seconds = 0;
};
NucleusProof prove_nucleus(const std::string& re, const std::string& im, uint32_t period, int bits,
                           const std::atomic<bool>* cancel = nullptr);

// Misiurewicz point of preperiod q and period p: with f_{q,p} = z_{q+p} - z_q and tol = 2^-(bits -
// 16) |c| (find_misiurewicz's tolerance), r_{q,p} = |f / f'|:
//   - the least period: r_{q,d} > 2^32 tol for every proper divisor d of p; else least_period is the
//     least such d;
//   - the least preperiod: r_{j,P} > 2^32 tol for 2 <= j < q (P the least period): else
//     least_preperiod is the least such j; q = 1 is refused (z_{1+p} = z_1 means z_p = 0);
//   - not periodic: |z_P / z_P'| above 2^16 sqrt(tol) (a nucleus is a double root of f, which
//     Newton's method approaches only linearly): else least_preperiod = 0;
//   - converged: f' does not vanish, r_{q,p} <= 16 tol, and K r_{q,p} <= 2^-16 (K = |f'' / 2 f'|).
// r is taken with |f| no smaller than the two z's rounding.
struct MisiurewiczProof {
  bool ok = false;
  bool cancelled = false;
  std::string reason;
  int least_preperiod = 0, least_period = 0;
  int bits = 0;
  FloatExp newton_distance{0.0};  // r_{q,p} at c, measured
  FloatExp tolerance{0.0};
  double seconds = 0;
};
MisiurewiczProof prove_misiurewicz(const std::string& re, const std::string& im, int preperiod, int period, int bits,
                                   const std::atomic<bool>* cancel = nullptr);

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
// Why o.radius_pixels cannot be searched at the view, or "" (a clause: "the search radius " or
// "--radius " goes before it). It must be a finite number above 0, and the disk it makes about the
// point must not hold the whole Mandelbrot set (|c| <= 2): a disk of radius >= |point| + 2 holds
// the period-1 nucleus 0 and every other, so the ball method answers period 1 wherever it is put
// (step 1: |z_1| = |point| <= radius), a search that says nothing about the point. Throws
// ViewError for a bad view or pixel. The view-level calls below refuse such a radius with
// ViewError ("the search radius ..."); `deepscope find` names it --radius (exit 2).
std::string search_radius_problem(const View& v, const FindOptions& o);

struct FoundView {
  bool ok = false;         // a view was found and proven (else message says why: "not found")
  bool cancelled = false;
  std::string message;
  PeriodResult period;     // when the ball method ran
  Nucleus nucleus;         // minibrot_view
  Misiurewicz misiurewicz; // misiurewicz_view
  View view;               // centred on the feature; zoom and iterations set (the size kept)
  NucleusProof nucleus_proof;          // minibrot_view: the proof of the nucleus reported (or refused)
  MisiurewiczProof misiurewicz_proof;  // misiurewicz_view: likewise
  std::string note;        // a found feature's caveat (e.g. the least period below the ball method's)
};
// The nucleus of the minibrot at the point, and a view of it: zoom = 4 fit / (2.25 |size|),
// iterations mandel::auto_iterations_for_period (max(the view's, 64 p), at most 1e8). Throws
// ViewError for a bad view or pixel. Reported only when prove_nucleus proves it and it lies in the
// searched region (within 64 search radii of the point, and within the view widened by the search
// radius); where Newton's method reached a nucleus of a proper divisor d of the ball method's
// period, that nucleus is found again at period d and reported if it proves out (note says so).
// The size, orientation and atom domain reported are the proof's (at the nucleus itself).
FoundView minibrot_view(const View& v, const FindOptions& o);
// The Misiurewicz point at the point, and the same view centred on it: reported only when
// prove_misiurewicz proves it (at the least preperiod and period, found again there where Newton's
// method reached a point of smaller ones) and it lies within the view widened by the search radius.
FoundView misiurewicz_view(const View& v, const FindOptions& o);
// The ball method's period at the point (FoundView::period; view unchanged).
FoundView period_at(const View& v, const FindOptions& o);

// An atom domain radius as the CLI and the window print it: the number to `digits` significant
// digits, or, where there is none (period 1), "none (period 1: the whole plane)".
std::string atom_domain_text(const std::optional<FloatExp>& domain_size, int digits);

// Seconds for one plain MPFR orbit z <- z^2 + c of p steps at `bits` (what a reference orbit of that
// length and precision costs): the unit of `bench finder`'s ratios.
double orbit_seconds(const std::string& re, const std::string& im, uint32_t p, int bits);

}  // namespace ds::perturb::finder
