// References at the nucleus (docs/perturbation.md, "References at the nucleus"): for a view of
// many iterations, the orbit of a minibrot's nucleus in the view's reach, one period long, instead
// of the centre's orbit to the iteration limit. The pixels perturb from it like from any other
// reference off the centre, rebasing to Z_0 at its end (the wrap).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "finder.h"
#include "perturb.h"

namespace ds::perturb {

namespace {

std::string fmt_g(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

// The centre's orbit to step `period` only, Z_0 .. Z_p: the view's orbit comes back near 0 there
// (the ball method's period), and every pixel rebases to Z_0 at its end (perturb.cuh), which is
// exact at any length; what it saves is the orbit past the period and Newton's orbits. The last
// point must be Z_p itself, the one near 0: one step further, Z_{p+1} ~ C, the wrap would make
// every pixel's delta as large as z (|z| ~ |C|), and its bits below binary64's rounding of C,
// which is all that tells the pixels apart at depth, would be lost (at FractalShark's view 14 the
// error estimate then flagged 11 of 12 pixels within 70 steps of the wrap).
std::shared_ptr<const Reference> wrap_reference(const Geometry& g, uint64_t period, const std::atomic<bool>* cancel,
                                                uint64_t memory_budget, ReferencePath path, const std::string& why,
                                                const std::string& timing, std::string* note) {
  std::shared_ptr<const Reference> ref = compute_reference(g.re, g.im, reference_bits(g), period, pixel_step(g),
                                                           cancel, nullptr, false, 0, memory_budget, "", 60.0,
                                                           nullptr, path);
  if (!ref) return nullptr;  // cancelled
  if (note)
    *note = why + "the centre's orbit to the period " + std::to_string(period) + " (" +
            std::to_string(ref->length()) + " points, " + (ref->escaped ? "escaped" : ref->periodic ? "periodic" : "wraps") +
            "; " + timing + ")";
  return ref;
}

}  // namespace

std::shared_ptr<const Reference> nucleus_reference(const Geometry& g, const View& v, const std::atomic<bool>* cancel,
                                                   uint64_t memory_budget, ReferencePath path, std::string* note) {
  const auto say = [&](const std::string& s) {
    if (note) *note = s;
  };
  if (v.max_iter < kNucleusReferenceFromIter) return nullptr;
  // The ball method over the disk that holds the whole view (its half-diagonal): the lowest period
  // of a hyperbolic component the view may meet. Periods up to 1/32 of the iterations, so that the
  // search, Newton's orbits and the periodic reference together cost a fraction of the centre's
  // full orbit where no nucleus is found.
  const double half_diag = 0.5 * std::hypot(static_cast<double>(v.width), static_cast<double>(v.height));
  const FloatExp radius = pixel_step(g) * half_diag;
  const uint64_t max_period64 = std::min<uint64_t>(v.max_iter / 32, kNucleusReferenceMaxPeriod);
  const uint32_t max_period = static_cast<uint32_t>(max_period64);
  const int bits = view_bits(g) + 32;
  const finder::PeriodResult pr = finder::find_period(g.re, g.im, radius, max_period, bits, cancel);
  if (pr.cancelled) return nullptr;
  if (pr.period == 0) {
    say("no nucleus reference: no period up to " + std::to_string(max_period) + " in the view (ball method)");
    return nullptr;
  }
  const std::string ball_time = fmt_g(pr.seconds) + " s ball";
  if (pr.period > kNucleusNewtonMaxPeriod)
    return wrap_reference(g, pr.period, cancel, memory_budget, path, "", ball_time, note);
  const finder::Nucleus nu = finder::find_nucleus(g.re, g.im, pr.period, bits, radius, cancel);
  if (nu.cancelled) return nullptr;
  if (!nu.converged)
    return wrap_reference(g, pr.period, cancel, memory_budget, path,
                          "no nucleus (Newton's method for period " + std::to_string(pr.period) +
                              " did not converge: " + nu.message + "); ",
                          ball_time, note);
  // The orbit of the nucleus, at the centre's precision (the reference check may add bits), to
  // one period and a little more: a true nucleus of period p stops there as periodic, its own
  // check proving a nucleus within 2^-24 pixel spacing of it; anything else (a wrong period, a
  // nucleus that Newton did not reach) runs to the limit without that stop and is refused.
  const uint64_t limit = std::min<uint64_t>(v.max_iter, static_cast<uint64_t>(pr.period) + 2);
  std::shared_ptr<const Reference> ref = compute_reference(nu.re, nu.im, reference_bits(g), limit, pixel_step(g),
                                                           cancel, nullptr, false, 0, memory_budget, "", 60.0,
                                                           nullptr, path);
  if (!ref) return nullptr;  // cancelled
  // The periodic stop is the proof, whatever n it comes at: a nucleus of period n within 2^-24
  // pixel spacing of C (n = p for a nucleus of period p >= 2; the stop's test starts at n = 2, so
  // p = 1 stops at 2; a Newton that converged to the nucleus of a divisor q of p stops at q).
  if (!ref->periodic)
    return wrap_reference(g, pr.period, cancel, memory_budget, path,
                          "no nucleus (the orbit of the period-" + std::to_string(pr.period) +
                              " point that Newton found " +
                              (ref->escaped ? "escaped" : "did not return to 0 within " + std::to_string(limit) +
                                                              " iterations") + "); ",
                          ball_time, note);
  const uint64_t period = ref->length() - 1;
  // Within reach: every pixel's delta from the nucleus at most a few half-diagonals, so binary64
  // and floatexp deltas keep their bits (reference_for's reuse allows 64).
  FloatExp dre, dim;
  centre_offset(*ref, g, &dre, &dim);
  const FloatExp off = sqrt(sqr(dre) + sqr(dim));
  const double off_diag = to_double(off / radius);
  if (!(off_diag <= kNucleusReferenceReach))
    return wrap_reference(g, pr.period, cancel, memory_budget, path,
                          "no nucleus (the period-" + std::to_string(period) + " nucleus lies " + fmt_g(off_diag) +
                              " half-diagonals from the centre); ",
                          ball_time, note);
  say("reference at the period-" + std::to_string(period) + " nucleus, " + fmt_g(off_diag) +
      " half-diagonals from the centre (" + fmt_g(pr.seconds) + " s ball, " + fmt_g(nu.seconds) + " s Newton)");
  return ref;
}

}  // namespace ds::perturb
