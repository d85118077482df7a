// References at the nucleus (docs/perturbation/references.md, "References at the nucleus"): for a view of
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

}  // namespace

BallStop view_ball(const Geometry& g, const View& v) {
  // The disk that holds the whole view (its half-diagonal); any period below the limit: the ball
  // rides on the centre's orbit (no orbit of its own), and an orbit cut at a period, wrapped or at
  // a nucleus, costs less than the full one (FractalShark's view 10 wraps at 16,125,357, beyond
  // the 2^22 that capped the separate search this replaced).
  const double half_diag = 0.5 * std::hypot(static_cast<double>(v.width), static_cast<double>(v.height));
  BallStop b;
  b.radius = pixel_step(g) * half_diag;
  b.max_period = v.max_iter > 1 ? v.max_iter - 1 : 0;
  return b;
}

std::shared_ptr<const Reference> nucleus_reference(const Geometry& g, const View& v,
                                                   std::shared_ptr<const Reference> centre,
                                                   const std::atomic<bool>* cancel, uint64_t memory_budget,
                                                   ReferencePath path, std::string* note) {
  const uint64_t p = centre->ball_period;
  const FloatExp radius = view_ball(g, v).radius;
  const std::string ball_time = fmt_g(centre->seconds) + " s, the ball on the centre's orbit";
  // The centre's orbit cut at p, Z_0 .. Z_p: the view's orbit comes back near 0 there (the ball's
  // period), and every pixel rebases to Z_0 at its end (perturb.cuh), which is exact at any length.
  // Its last point is Z_p itself, the one near 0: one step further, Z_{p+1} ~ C, the wrap would
  // make every pixel's delta as large as z (|z| ~ |C|), and its bits below binary64's rounding of
  // C, which is all that tells the pixels apart at depth, would be lost (at FractalShark's view 14
  // the error estimate then flagged 11 of 12 pixels within 70 steps of the wrap).
  const auto wrap = [&](const std::string& why) {
    if (note)
      *note = why + "the centre's orbit to the period " + std::to_string(p) + " (" +
              std::to_string(centre->length()) + " points, wraps; " + ball_time + ")";
    return centre;
  };
  if (p > kNucleusNewtonMaxPeriod) return wrap("");
  const int bits = view_bits(g) + 32;
  const finder::Nucleus nu = finder::find_nucleus(g.re, g.im, static_cast<uint32_t>(p), bits, radius, cancel);
  if (nu.cancelled) return nullptr;
  if (!nu.converged)
    return wrap("no nucleus (Newton's method for period " + std::to_string(p) + " did not converge: " + nu.message +
                "); ");
  // The orbit of the nucleus, at the centre's precision (the reference check may add bits), to
  // one period and a little more: a true nucleus of period p stops there as periodic, its own
  // check proving a nucleus within 2^-24 pixel spacing of it; anything else (a wrong period, a
  // nucleus that Newton did not reach) runs to the limit without that stop and is refused.
  const uint64_t limit = std::min<uint64_t>(v.max_iter, p + 2);
  std::shared_ptr<const Reference> ref = compute_reference(nu.re, nu.im, reference_bits(g), limit, pixel_step(g),
                                                           cancel, nullptr, false, 0, memory_budget, "", 60.0,
                                                           nullptr, path);
  if (!ref) return nullptr;  // cancelled
  // The periodic stop is the proof, whatever n it comes at: a nucleus of period n within 2^-24
  // pixel spacing of C (n = p for a nucleus of period p >= 2; the stop's test starts at n = 2, so
  // p = 1 stops at 2; a Newton that converged to the nucleus of a divisor q of p stops at q).
  if (!ref->periodic)
    return wrap("no nucleus (the orbit of the period-" + std::to_string(p) + " point that Newton found " +
                (ref->escaped ? "escaped" : "did not return to 0 within " + std::to_string(limit) + " iterations") +
                "); ");
  const uint64_t period = ref->length() - 1;
  // Within reach: every pixel's delta from the nucleus at most a few half-diagonals, so binary64
  // and floatexp deltas keep their bits (reference_for's reuse allows 64).
  FloatExp dre, dim;
  centre_offset(*ref, g, &dre, &dim);
  const FloatExp off = sqrt(sqr(dre) + sqr(dim));
  const double off_diag = to_double(off / radius);
  if (!(off_diag <= kNucleusReferenceReach))
    return wrap("no nucleus (the period-" + std::to_string(period) + " nucleus lies " + fmt_g(off_diag) +
                " half-diagonals from the centre); ");
  if (note)
    *note = "reference at the period-" + std::to_string(period) + " nucleus, " + fmt_g(off_diag) +
            " half-diagonals from the centre (" + ball_time + ", " + fmt_g(nu.seconds) + " s Newton)";
  return ref;
}

}  // namespace ds::perturb
