// The feature finder (finder.h): the period by the ball method, Misiurewicz points, and the
// view-level calls the window and `deepscope find` share; the nucleus is finder_nucleus.cpp's.
#include "kernels/perturb/finder.h"

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/mandelbrot/auto_iter.h"
#include "kernels/perturb/finder_detail.h"
#include "kernels/perturb/finder_fixed_orbit.h"
#include "kernels/perturb/perturb.h"

namespace ds::perturb::finder {

using namespace detail;

PeriodResult find_period(const std::string& re, const std::string& im, FloatExp radius, uint32_t max_period,
                         int bits, const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  PeriodResult out;
  MpC c(bits), z(bits);
  Mpfr t1(bits), t2(bits);
  parse(c.re.v, re);
  parse(c.im.v, im);
  z.zero();
  // The centre's orbit in fixed point where it fits kFixedOrbitMaxLimbs (finder_fixed_orbit.h: about
  // 0.65 to 0.8 of MPFR's time at 14 to 20 limbs), else in MPFR. Fixed point: c is rounded to c'
  // within sqrt(2) 2^-(F+1), so the ball about c' of radius + that holds the ball about c, and each
  // step's cut adds at most sqrt(2) 2^-F (F >= bits + 3: below MPFR's bound wherever |z| > 2^-bits).
  // An orbit that reaches a coordinate of 4 before deciding starts again in MPFR.
  FixedOrbit fixed;
  const int limbs = FixedOrbit::limbs_for(bits);
  bool use_fixed = limbs <= kFixedOrbitMaxLimbs && fixed.reset(c.re.v, c.im.v, limbs);
  const FloatExp fixed_err = use_fixed ? pow2(-fixed.fraction_bits()) * 1.5 : FloatExp(0.0);
  const FloatExp u = pow2(-bits);
  const double up = kBallRoundUp;  // covers the few floatexp roundings of a step
  for (;;) {
    const FloatExp rad = use_fixed ? (radius + fixed_err) * up : radius;
    FloatExp R(0.0), E(0.0), zprev(0.0);
    bool restart = false;
    for (uint32_t n = 1; n <= max_period; ++n) {
      FloatExp zn, err;
      if (use_fixed) {
        restart = !fixed.step();
        if (restart) break;
        zn = mag(to_floatexp(fixed.re()), to_floatexp(fixed.im()));
        err = fixed_err;
      } else {
        step(z, c, t1, t2);
        zn = mag(to_fe(z.re.v), to_fe(z.im.v));
        err = n > 1 ? u * (FloatExp(4.0) * sqr(zprev) + mul_pow2(zn, 1)) : u * zn;
      }
      R = ball_radius_step(zprev, R, rad);
      E = n > 1 ? (mul_pow2(zprev * E, 1) + sqr(E) + err) * up : err;
      out.iterations = n;
      const FloatExp low = zn * kBallRoundDown;  // |Z_n| rounded down
      if (low <= R + E) {
        out.period = n;
        break;
      }
      if (low - (R + E) > FloatExp(2.0)) {
        out.escaped_at = n;
        break;
      }
      zprev = zn * up;
      if ((n & 1023) == 0 && cancelled(cancel)) {
        out.cancelled = true;
        break;
      }
    }
    if (!restart) break;
    use_fixed = false;  // the fixed-point orbit left its range undecided: the same search in MPFR
    out = PeriodResult{};
  }
  out.seconds = since(t0);
  return out;
}

Misiurewicz find_misiurewicz(const std::string& re, const std::string& im, int preperiod, int period, int bits,
                             FloatExp search_radius, const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  Misiurewicz out;
  out.preperiod = preperiod;
  out.period = period;
  out.bits = bits;
  out.re = re;
  out.im = im;
  if (preperiod < 1 || period < 1) {
    out.message = "the preperiod and the period must be at least 1";
    return out;
  }
  MpC c(bits), seed(bits), z(bits), d(bits), zq(bits), dq(bits), f(bits), g(bits), dist(bits);
  Mpfr t1(bits), t2(bits), t3(bits);
  parse(c.re.v, re);
  parse(c.im.v, im);
  mpfr_set(seed.re.v, c.re.v, MPFR_RNDN);
  mpfr_set(seed.im.v, c.im.v, MPFR_RNDN);
  const FloatExp far = search_radius * 64.0;
  for (int k = 0; k < 64; ++k) {
    if (cancelled(cancel)) {
      out.cancelled = true;
      break;
    }
    z.zero();
    d.zero();
    for (int n = 1; n <= preperiod + period; ++n) {
      derivative_step(d, z, t1, t2);
      step(z, c, t1, t2);
      if (n == preperiod) {
        mpfr_set(zq.re.v, z.re.v, MPFR_RNDN);
        mpfr_set(zq.im.v, z.im.v, MPFR_RNDN);
        mpfr_set(dq.re.v, d.re.v, MPFR_RNDN);
        mpfr_set(dq.im.v, d.im.v, MPFR_RNDN);
      }
    }
    mpfr_sub(f.re.v, z.re.v, zq.re.v, MPFR_RNDN);
    mpfr_sub(f.im.v, z.im.v, zq.im.v, MPFR_RNDN);
    mpfr_sub(g.re.v, d.re.v, dq.re.v, MPFR_RNDN);
    mpfr_sub(g.im.v, d.im.v, dq.im.v, MPFR_RNDN);
    ++out.steps;
    const CFe ff{to_fe(f.re.v), to_fe(f.im.v)}, gf{to_fe(g.re.v), to_fe(g.im.v)};
    out.newton_distance = cabs(ff) / cabs(gf);
    if (!std::isfinite(out.newton_distance.m)) {
      out.message = "Newton's step is not finite (the derivative vanished)";
      break;
    }
    const FloatExp cmag = mag(to_fe(c.re.v), to_fe(c.im.v));
    if (out.newton_distance <= cmag * pow2(-(bits - 16))) {
      out.converged = true;
      break;
    }
    newton_update(c, f, g, t1, t2, t3);
    mpfr_sub(dist.re.v, c.re.v, seed.re.v, MPFR_RNDN);
    mpfr_sub(dist.im.v, c.im.v, seed.im.v, MPFR_RNDN);
    if (mag(to_fe(dist.re.v), to_fe(dist.im.v)) > far) {
      out.message = "Newton's method left the search region (more than 64 radii from the seed)";
      break;
    }
  }
  if (!out.converged && out.message.empty() && !out.cancelled)
    out.message = "Newton's method did not converge in 64 steps (Newton distance " +
                  to_string(out.newton_distance, 3) + ")";
  out.re = to_decimal(c.re.v);
  out.im = to_decimal(c.im.v);
  out.seconds = since(t0);
  return out;
}

MisiurewiczGuess guess_misiurewicz(const std::string& re, const std::string& im, int max_preperiod, int max_period,
                                   int bits) {
  const int n_max = max_preperiod + max_period;
  MpC c(bits);
  Mpfr t1(bits), t2(bits);
  parse(c.re.v, re);
  parse(c.im.v, im);
  std::vector<std::unique_ptr<MpC>> zs, ds;  // z_n, dz_n/dc for n = 0 .. n_max
  for (int n = 0; n <= n_max; ++n) {
    zs.push_back(std::make_unique<MpC>(bits));
    ds.push_back(std::make_unique<MpC>(bits));
  }
  zs[0]->zero();
  ds[0]->zero();
  int escaped = n_max + 1;
  for (int n = 1; n <= n_max; ++n) {
    mpfr_set(zs[n]->re.v, zs[n - 1]->re.v, MPFR_RNDN);
    mpfr_set(zs[n]->im.v, zs[n - 1]->im.v, MPFR_RNDN);
    mpfr_set(ds[n]->re.v, ds[n - 1]->re.v, MPFR_RNDN);
    mpfr_set(ds[n]->im.v, ds[n - 1]->im.v, MPFR_RNDN);
    derivative_step(*ds[n], *zs[n], t1, t2);
    step(*zs[n], c, t1, t2);
    const double zr = mpfr_get_d(zs[n]->re.v, MPFR_RNDN), zi = mpfr_get_d(zs[n]->im.v, MPFR_RNDN);
    if (zr * zr + zi * zi > 16.0) {
      escaped = n;
      break;
    }
  }
  // |f| = |z_{q+p} - z_q| for every (q, p) the orbit reaches before escaping. Near a Misiurewicz
  // point c0 the orbit shadows c0's for a while, so |f| is of the order of |c - c0| at c0's own
  // (q, p) and its multiples, and of order 1 elsewhere. (The Newton distance |f / f'| would not
  // tell them apart: f' grows like the cycle's multiplier to the power q for every pair.)
  std::vector<std::vector<FloatExp>> fm(max_preperiod + 1, std::vector<FloatExp>(max_period + 1, kHuge));
  std::vector<std::vector<FloatExp>> nd = fm;
  FloatExp best = kHuge;
  for (int q = 2; q <= max_preperiod; ++q)  // (preperiod 1 is a nucleus: below)
    for (int p = 1; p <= max_period && q + p < escaped; ++p) {
      mpfr_sub(t1.v, zs[q + p]->re.v, zs[q]->re.v, MPFR_RNDN);
      mpfr_sub(t2.v, zs[q + p]->im.v, zs[q]->im.v, MPFR_RNDN);
      fm[q][p] = mag(to_fe(t1.v), to_fe(t2.v));
      mpfr_sub(t1.v, ds[q + p]->re.v, ds[q]->re.v, MPFR_RNDN);
      mpfr_sub(t2.v, ds[q + p]->im.v, ds[q]->im.v, MPFR_RNDN);
      const FloatExp gm = mag(to_fe(t1.v), to_fe(t2.v));
      if (gm.m != 0) nd[q][p] = fm[q][p] / gm;
      if (fm[q][p] < best) best = fm[q][p];
    }
  MisiurewiczGuess g;
  g.distance = kHuge;
  // The smallest period, then preperiod, within a factor 16 of the least |f|.
  for (int p = 1; p <= max_period && g.period == 0; ++p)
    for (int q = 2; q <= max_preperiod; ++q)  // (preperiod 1: z_{1+p} = z_1 means z_p = 0)
      if (fm[q][p] <= best * 16.0) {
        g.preperiod = q;
        g.period = p;
        g.distance = nd[q][p];
        break;
      }
  return g;
}

namespace {

// The point (decimal, at bits), the ball radius and the precision for a view-level call.
struct Point {
  std::string re, im;
  FloatExp radius;
  int bits;
  uint32_t max_period;
};
// search_radius_problem at the point p (its re and im set).
std::string radius_problem(const Geometry& g, const Point& p, const FindOptions& o) {
  char b[320];
  if (!(o.radius_pixels > 0) || !std::isfinite(o.radius_pixels)) {
    std::snprintf(b, sizeof b, "must be a finite number of pixels above 0, got %g", o.radius_pixels);
    return b;
  }
  // |point| in double is plenty for this bound: views stay within |Re c|, |Im c| <= 1e12.
  const double cmag = std::hypot(std::strtod(p.re.c_str(), nullptr), std::strtod(p.im.c_str(), nullptr));
  const FloatExp step = perturb::pixel_step(g), whole(cmag + 2.0);
  if (step * o.radius_pixels < whole) return "";
  std::snprintf(b, sizeof b,
                "of %g pixels (%s in the plane) holds the whole Mandelbrot set (|c| <= 2) about a point at "
                "|c| = %.3g, so the ball method could only answer period 1: at this view it must be below "
                "%s pixels (|point| + 2)",
                o.radius_pixels, to_string(step * o.radius_pixels, 3).c_str(), cmag,
                to_string(whole / step, 3).c_str());
  return b;
}

// The point (re, im, bits) without the radius; throws ViewError for a bad view or pixel.
Point locate(const View& v, const FindOptions& o, const Geometry& g) {
  if (o.at_pixel && (o.px < 0 || o.py < 0 || o.px >= v.width || o.py >= v.height))
    throw ViewError("pixel (" + std::to_string(o.px) + ", " + std::to_string(o.py) + ") is outside the " +
                    std::to_string(v.width) + "x" + std::to_string(v.height) + " image");
  Point p;
  p.bits = perturb::view_bits(g) + 32;
  p.re = v.re;
  p.im = v.im;
  if (o.at_pixel) perturb::pixel_c(g, v, o.px, o.py, p.bits, &p.re, &p.im);
  return p;
}

Point point_of(const View& v, const FindOptions& o) {
  const Geometry g = geometry(v);  // throws ViewError
  Point p = locate(v, o, g);
  const std::string bad_radius = radius_problem(g, p, o);
  if (!bad_radius.empty()) throw ViewError("the search radius " + bad_radius);
  p.radius = perturb::pixel_step(g) * o.radius_pixels;
  p.max_period = o.max_period ? o.max_period : static_cast<uint32_t>(std::min<uint64_t>(v.max_iter, 0xFFFFFFFFu));
  return p;
}

std::string no_period_message(const FindOptions& o, const Point& p, const PeriodResult& r) {
  char b[64];
  std::snprintf(b, sizeof b, "%g", o.radius_pixels);
  return "no period up to " + std::to_string(p.max_period) + " within " + b + " pixels of the point" +
         (r.escaped_at ? " (the whole disk escaped at step " + std::to_string(r.escaped_at) + ")"
                       : std::string(": raise the period limit or the radius"));
}

// Why c = (re, im) lies outside the searched region, or "": the view widened by the search radius
// (for a pixel map or the exponential map, the disk about the centre that holds the view), and
// with max_radii > 0, within max_radii search radii of the point (Newton's allowance).
std::string region_reason(const View& v, const Point& p, const FindOptions& o, const std::string& re,
                          const std::string& im, double max_radii, const char* what) {
  const Geometry g = geometry(v);
  const int bits = p.bits + 64;
  Mpfr x(bits), y(bits), t(bits);
  auto offset = [&](const std::string& from_re, const std::string& from_im) {
    parse(x.v, re);
    parse(t.v, from_re);
    mpfr_sub(x.v, x.v, t.v, MPFR_RNDN);
    parse(y.v, im);
    parse(t.v, from_im);
    mpfr_sub(y.v, y.v, t.v, MPFR_RNDN);
    return CFe{to_fe(x.v), to_fe(y.v)};
  };
  const FloatExp s = perturb::pixel_step(g);
  char b[160];
  if (max_radii > 0) {
    const FloatExp dist = cabs(offset(p.re, p.im));
    if (dist > p.radius * max_radii) {
      std::snprintf(b, sizeof b, " lies %s search radii from the point (more than %g)",
                    to_string(dist / p.radius, 3).c_str(), max_radii);
      return std::string("the ") + what + b;
    }
  }
  const CFe d = offset(v.re, v.im);
  const double rx = to_double(d.re / s), ry = to_double(d.im / s);  // in pixels (inf: far outside)
  bool inside;
  if (g.square_pixels)
    inside = std::fabs(rx) <= v.width / 2.0 + o.radius_pixels && std::fabs(ry) <= v.height / 2.0 + o.radius_pixels;
  else
    inside = std::hypot(rx, ry) <= std::hypot(v.width, v.height) / 2.0 * g.map_norm * g.max_pixel_scale + o.radius_pixels;
  if (inside) return "";
  std::snprintf(b, sizeof b, " lies outside the view (%.3g, %.3g pixels from its centre)", rx, -ry);
  return std::string("the ") + what + b;
}

// Proves f->nucleus (prove_nucleus) and checks its region; where it is a nucleus of a proper
// divisor d of its period, finds it again at period d from there and proves that. False with
// f->message (or f->cancelled) where it does not prove out.
bool prove_found_nucleus(const View& v, const Point& p, const FindOptions& o, FoundView* f) {
  f->nucleus_proof = prove_nucleus(f->nucleus.re, f->nucleus.im, f->nucleus.period, f->nucleus.bits, o.cancel);
  if ((f->cancelled = f->nucleus_proof.cancelled)) return false;
  const uint32_t period = f->nucleus.period, d = f->nucleus_proof.least_period;
  if (!f->nucleus_proof.ok && d >= 1 && d < period) {
    const std::string why = f->nucleus_proof.reason, at = "; at period " + std::to_string(d) + ": ";
    f->nucleus = find_nucleus(f->nucleus.re, f->nucleus.im, d, p.bits, p.radius, o.cancel);
    if ((f->cancelled = f->nucleus.cancelled)) return false;
    if (!f->nucleus.converged) {
      f->message = why + at + f->nucleus.message;
      return false;
    }
    f->nucleus_proof = prove_nucleus(f->nucleus.re, f->nucleus.im, d, f->nucleus.bits, o.cancel);
    if ((f->cancelled = f->nucleus_proof.cancelled)) return false;
    if (!f->nucleus_proof.ok) {
      f->message = why + at + f->nucleus_proof.reason;
      return false;
    }
    f->note = "the ball method's period " + std::to_string(period) + " is a multiple of the least period " +
              std::to_string(d) + " of the nucleus Newton's method reached: reported at period " + std::to_string(d);
  }
  if (!f->nucleus_proof.ok) {
    f->message = f->nucleus_proof.reason;
    return false;
  }
  f->message = region_reason(v, p, o, f->nucleus.re, f->nucleus.im, 64, "nucleus");
  return f->message.empty();
}

}  // namespace

FoundView period_at(const View& v, const FindOptions& o) {
  const Point p = point_of(v, o);
  FoundView f;
  f.view = v;
  f.period = find_period(p.re, p.im, p.radius, p.max_period, p.bits, o.cancel);
  f.cancelled = f.period.cancelled;
  f.ok = f.period.period != 0;
  if (!f.ok && !f.cancelled) f.message = no_period_message(o, p, f.period);
  return f;
}

FoundView minibrot_view(const View& v, const FindOptions& o) {
  const Point p = point_of(v, o);
  FoundView f;
  f.view = v;
  uint32_t period = o.period;
  if (period == 0) {
    f.period = find_period(p.re, p.im, p.radius, p.max_period, p.bits, o.cancel);
    f.cancelled = f.period.cancelled;
    if (f.cancelled) return f;
    if (f.period.period == 0) {
      f.message = no_period_message(o, p, f.period);
      return f;
    }
    period = f.period.period;
  }
  f.nucleus = find_nucleus(p.re, p.im, period, p.bits, p.radius, o.cancel);
  f.cancelled = f.nucleus.cancelled;
  if (!f.nucleus.converged) {
    f.message = f.nucleus.message;
    return f;
  }
  if (!prove_found_nucleus(v, p, o, &f)) return f;
  // The size, orientation and atom domain at the nucleus itself (the proof's orbit), not at the
  // last perturbed step's c.
  f.nucleus.size = f.nucleus_proof.size;
  f.nucleus.orientation = f.nucleus_proof.orientation;
  f.nucleus.domain_size = f.nucleus_proof.domain_size;
  f.view.re = f.nucleus.re;
  f.view.im = f.nucleus.im;
  f.view.zoom = to_string(FloatExp(4.0 * o.fit / 2.25) / f.nucleus.size, 17);
  f.view.max_iter = mandel::auto_iterations_for_period(v.max_iter, f.nucleus.period);
  f.ok = true;
  return f;
}

FoundView misiurewicz_view(const View& v, const FindOptions& o) {
  const Point p = point_of(v, o);
  FoundView f;
  f.view = v;
  // The orbit runs q + p steps with an int count (a --period of 4e9 wrapped to a negative int and
  // was "not found: the preperiod and the period must be at least 1").
  if (o.preperiod < 0 || o.period > static_cast<uint32_t>(INT32_MAX - o.preperiod))
    throw ViewError("the Misiurewicz point's preperiod and period (--preperiod, --period) must be >= 0 with a sum "
                    "of at most 2147483647, got " + std::to_string(o.preperiod) + " and " + std::to_string(o.period));
  int q = o.preperiod, per = static_cast<int>(o.period);
  if (q == 0 || per == 0) {
    const int mq = q ? q : 64, mp = per ? per : 64;
    const MisiurewiczGuess gs = guess_misiurewicz(p.re, p.im, mq, mp, p.bits);
    if (gs.period == 0) {
      f.message = "no Misiurewicz point near the point (preperiod <= " + std::to_string(mq) + ", period <= " +
                  std::to_string(mp) + ")";
      return f;
    }
    q = q ? q : gs.preperiod;
    per = per ? per : gs.period;
  }
  // Newton may travel further than the ball here: the guess is a pair, not a nearby root.
  const FloatExp reach = p.radius * (static_cast<double>(v.height) / o.radius_pixels);
  f.misiurewicz = find_misiurewicz(p.re, p.im, q, per, p.bits, reach, o.cancel);
  f.cancelled = f.misiurewicz.cancelled;
  if (!f.misiurewicz.converged) {
    f.message = f.misiurewicz.message;
    return f;
  }
  f.misiurewicz_proof = prove_misiurewicz(f.misiurewicz.re, f.misiurewicz.im, q, per, f.misiurewicz.bits, o.cancel);
  if ((f.cancelled = f.misiurewicz_proof.cancelled)) return f;
  const MisiurewiczProof& first = f.misiurewicz_proof;
  if (!first.ok && first.least_preperiod >= 1 && (first.least_preperiod != q || first.least_period != per)) {
    // The point of the least pair, found again there from where Newton's method ended.
    const std::string why = first.reason;
    const int lq = first.least_preperiod, lp = first.least_period;
    f.misiurewicz = find_misiurewicz(f.misiurewicz.re, f.misiurewicz.im, lq, lp, p.bits, reach, o.cancel);
    if ((f.cancelled = f.misiurewicz.cancelled)) return f;
    if (!f.misiurewicz.converged) {
      f.message = why + "; at (" + std::to_string(lq) + ", " + std::to_string(lp) + "): " + f.misiurewicz.message;
      return f;
    }
    f.misiurewicz_proof = prove_misiurewicz(f.misiurewicz.re, f.misiurewicz.im, lq, lp, f.misiurewicz.bits, o.cancel);
    if ((f.cancelled = f.misiurewicz_proof.cancelled)) return f;
    if (f.misiurewicz_proof.ok)
      f.note = why + ": reported at (" + std::to_string(lq) + ", " + std::to_string(lp) + ")";
    else
      f.misiurewicz_proof.reason = why + "; at (" + std::to_string(lq) + ", " + std::to_string(lp) +
                                   "): " + f.misiurewicz_proof.reason;
  }
  if (!f.misiurewicz_proof.ok) {
    f.message = f.misiurewicz_proof.reason;
    return f;
  }
  f.message = region_reason(v, p, o, f.misiurewicz.re, f.misiurewicz.im, 0, "Misiurewicz point");
  if (!f.message.empty()) return f;
  f.view.re = f.misiurewicz.re;
  f.view.im = f.misiurewicz.im;
  f.ok = true;
  return f;
}

std::string search_radius_problem(const View& v, const FindOptions& o) {
  const Geometry g = geometry(v);  // throws ViewError
  return radius_problem(g, locate(v, o, g), o);
}

std::string atom_domain_text(const std::optional<FloatExp>& domain_size, int digits) {
  return domain_size ? to_string(*domain_size, digits) : std::string("none (period 1: the whole plane)");
}

}  // namespace ds::perturb::finder

namespace ds::perturb {

// perturb.h's locator for tests and benchmarks: the finder's Newton iteration, printed in fixed
// notation. Throws ViewError where it does not converge.
void misiurewicz_point(const std::string& seed_re, const std::string& seed_im, int preperiod, int period,
                       int bits, int digits, std::string* re, std::string* im) {
  if (preperiod < 1 || period < 1 || bits < 64 || digits < 1)
    throw ViewError("misiurewicz_point: preperiod, period >= 1, bits >= 64, digits >= 1");
  const finder::Misiurewicz m =
      finder::find_misiurewicz(seed_re, seed_im, preperiod, period, bits, FloatExp::make(1.0, 4));
  if (!m.converged) throw ViewError("misiurewicz_point: " + m.message);
  Mpfr x(bits);
  for (const auto& [from, to] : {std::pair<const std::string*, std::string*>{&m.re, re}, {&m.im, im}}) {
    mpfr_util::parse(x.v, *from);
    char* s = nullptr;
    mpfr_asprintf(&s, "%.*Rf", digits, x.v);
    *to = s;
    mpfr_free_str(s);
  }
}

}  // namespace ds::perturb

namespace ds::perturb::finder {

double orbit_seconds(const std::string& re, const std::string& im, uint32_t p, int bits) {
  const auto t0 = Clock::now();
  MpC c(bits), z(bits);
  Mpfr t1(bits), t2(bits);
  parse(c.re.v, re);
  parse(c.im.v, im);
  z.zero();
  for (uint32_t n = 0; n < p; ++n) step(z, c, t1, t2);
  return since(t0);
}

}  // namespace ds::perturb::finder
