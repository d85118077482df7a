// The feature finder's nucleus (finder.h, find_nucleus): Newton's method by perturbation against
// the seed's MPFR orbit (53-bit, then 106-bit deltas), then MPFR steps with precision doubling;
// the size, orientation and atom domain. docs/finder.md.
#include <cmath>
#include <vector>

#include "kernels/perturb/finder.h"
#include "kernels/perturb/finder_detail.h"
#include "kernels/perturb/finder_perturbed.h"

namespace ds::perturb::finder {
namespace {

using namespace detail;

// The second derivative's recursion in MPFR for a third-order step, at its own (lower)
// precision: h_n = 2 (z_{n-1} h_{n-1} + d_{n-1}^2), from z and d rounded to it (zh, dh); a, b:
// scratch.
struct SecondDerivative {
  MpC h, zh, dh;
  Mp a, b;
  explicit SecondDerivative(mpfr_prec_t p) : h(p), zh(p), dh(p), a(p), b(p) {}
  void set_prec(mpfr_prec_t p) {
    for (Mp* m : {&h.re, &h.im, &zh.re, &zh.im, &dh.re, &dh.im, &a, &b}) mpfr_set_prec(m->v, p);
    h.zero();
    zh.zero();
    dh.zero();
  }
  void step() {
    mpfr_mul(a.v, zh.re.v, h.re.v, MPFR_RNDN);
    mpfr_mul(b.v, zh.im.v, h.im.v, MPFR_RNDN);
    mpfr_sub(a.v, a.v, b.v, MPFR_RNDN);
    mpfr_sqr(b.v, dh.re.v, MPFR_RNDN);
    mpfr_add(a.v, a.v, b.v, MPFR_RNDN);
    mpfr_sqr(b.v, dh.im.v, MPFR_RNDN);
    mpfr_sub(a.v, a.v, b.v, MPFR_RNDN);
    mpfr_mul(b.v, zh.re.v, h.im.v, MPFR_RNDN);
    mpfr_mul(h.im.v, zh.im.v, h.re.v, MPFR_RNDN);
    mpfr_add(h.im.v, h.im.v, b.v, MPFR_RNDN);
    mpfr_mul(b.v, dh.re.v, dh.im.v, MPFR_RNDN);
    mpfr_mul_2ui(b.v, b.v, 1, MPFR_RNDN);
    mpfr_add(h.im.v, h.im.v, b.v, MPFR_RNDN);
    mpfr_mul_2ui(h.im.v, h.im.v, 1, MPFR_RNDN);
    mpfr_mul_2ui(h.re.v, a.v, 1, MPFR_RNDN);
  }
};

// The orbit of c in MPFR at z's precision, and dz/dc in MPFR at d's (lower) precision, enough
// for the bits this Newton step gains: a derivative good to 2^-q leaves an error 2^-q of the step
// (53-bit floatexp held each step to about 45 bits); with sd, d2z/dc2 at sd's precision too. zr,
// u1, u2: scratch at d's precision, t1, t2 at z's. The size, the atom domain and K come from the
// perturbed steps (their c is within the step of this one: the estimates do not change).
void mpfr_orbit(const MpC& c, uint32_t p, MpC& z, MpC& d, MpC& zr, Mp& t1, Mp& t2, Mp& u1, Mp& u2,
                SecondDerivative* sd) {
  z.zero();
  d.zero();
  zr.zero();
  for (uint32_t n = 1; n <= p; ++n) {
    if (sd) sd->step();              // h_n from z_{n-1}, d_{n-1}
    derivative_step(d, zr, u1, u2);  // d_n = 2 z_{n-1} d_{n-1} + 1
    step(z, c, t1, t2);
    mpfr_set(zr.re.v, z.re.v, MPFR_RNDN);
    mpfr_set(zr.im.v, z.im.v, MPFR_RNDN);
    if (sd) {
      for (auto [to, from] :
           {std::pair{&sd->zh.re, &z.re}, {&sd->zh.im, &z.im}, {&sd->dh.re, &d.re}, {&sd->dh.im, &d.im}})
        mpfr_set(to->v, from->v, MPFR_RNDN);
    }
  }
}

// q <- f / g (complex; t1..t3 scratch).
void complex_div(MpC& q, const MpC& f, const MpC& g, Mp& t1, Mp& t2, Mp& t3) {
  mpfr_sqr(t3.v, g.re.v, MPFR_RNDN);  // |g|^2
  mpfr_fma(t3.v, g.im.v, g.im.v, t3.v, MPFR_RNDN);
  mpfr_mul(t1.v, f.re.v, g.re.v, MPFR_RNDN);  // f conj(g)
  mpfr_fma(t1.v, f.im.v, g.im.v, t1.v, MPFR_RNDN);
  mpfr_mul(t2.v, f.re.v, g.im.v, MPFR_RNDN);
  mpfr_fms(t2.v, f.im.v, g.re.v, t2.v, MPFR_RNDN);
  mpfr_div(q.re.v, t1.v, t3.v, MPFR_RNDN);
  mpfr_div(q.im.v, t2.v, t3.v, MPFR_RNDN);
}

// The third-order (Chebyshev) step c <- c - u - q u^2, u = f / g, q = h / 2g: the Taylor series
// f + g x + (h/2) x^2 + (t/6) x^3 inverted to x = -u - q u^2 + O(u^3). u at g's precision, q u^2
// at h's (its size is K s^2: it needs the bits from there to the target, no more). uq: scratch at
// g's precision; qq, w, v1, v2 (and sd's a, b) at h's; t1..t3 at g's.
void chebyshev_update(MpC& c, const MpC& f, const MpC& g, SecondDerivative& sd, MpC& uq, MpC& qq, MpC& w,
                      Mp& t1, Mp& t2, Mp& t3, Mp& v1, Mp& v2) {
  complex_div(uq, f, g, t1, t2, t3);  // u
  mpfr_sub(c.re.v, c.re.v, uq.re.v, MPFR_RNDN);
  mpfr_sub(c.im.v, c.im.v, uq.im.v, MPFR_RNDN);
  complex_div(qq, sd.h, g, sd.a, sd.b, v1);  // 2 q = h / g
  mpfr_sqr(v1.v, uq.re.v, MPFR_RNDN);        // w = u^2
  mpfr_sqr(v2.v, uq.im.v, MPFR_RNDN);
  mpfr_mul(w.im.v, uq.re.v, uq.im.v, MPFR_RNDN);
  mpfr_mul_2ui(w.im.v, w.im.v, 1, MPFR_RNDN);
  mpfr_sub(w.re.v, v1.v, v2.v, MPFR_RNDN);
  mpfr_mul(v1.v, qq.re.v, w.re.v, MPFR_RNDN);  // 2 q w
  mpfr_mul(v2.v, qq.im.v, w.im.v, MPFR_RNDN);
  mpfr_sub(v1.v, v1.v, v2.v, MPFR_RNDN);
  mpfr_mul(v2.v, qq.re.v, w.im.v, MPFR_RNDN);
  mpfr_mul(w.im.v, qq.im.v, w.re.v, MPFR_RNDN);
  mpfr_add(w.im.v, w.im.v, v2.v, MPFR_RNDN);
  mpfr_div_2ui(v1.v, v1.v, 1, MPFR_RNDN);
  mpfr_div_2ui(w.im.v, w.im.v, 1, MPFR_RNDN);
  mpfr_sub(c.re.v, c.re.v, v1.v, MPFR_RNDN);
  mpfr_sub(c.im.v, c.im.v, w.im.v, MPFR_RNDN);
}

// The margin of a predicted error below the target that ends Newton's method without another
// orbit (the predictions matched the measured distances to 0.2 bits at the bench's locations).
constexpr int kMarginBits = 8;

enum class NewtonStage { kConverged, kStalled, kFailed, kCancelled };
struct PerturbedNewton {
  NewtonStage stage = NewtonStage::kStalled;
  FloatExp last_step{0.0};                 // the last step's length
  FloatExp dist{0.0};                      // |dc| after it: the deltas' rounding is relative to it
  FloatExp k{0.0};                         // |h / 2g| at the last orbit
  FloatExp k3{0.0};                        // 2 K^2 + |t / 6g|: a third-order step's constant
  CFe size{FloatExp(0.0), FloatExp(0.0)};  // with `side`: the last orbit's size estimate
  FloatExp zq{0.0}, dq{0.0};               // and its atom domain's |z_q|, |dz_q/dc|
};

// Newton steps by perturbation with w-wide deltas from *dc: until the step is within
// 2^-stop_bits of the distance moved (converged at w's precision) or below `floor` (the seed
// orbit's precision), or the step's own result K s^2 is already below the deltas' rounding
// (2^-rounding_bits of the distance: another step at this width would only measure that rounding,
// as the 53-bit stage's second step did at every bench location), or stops halving after the
// first free_steps. kFailed with out->message when a step is not finite or leaves `far`.
PerturbedNewton perturbed_newton(DeltaWidth w, const SeedOrbit& Z, uint32_t period, FloatExp far,
                                 int stop_bits, int rounding_bits, int free_steps, FloatExp floor, bool side,
                                 const std::atomic<bool>* cancel, C2* dc, Nucleus* out) {
  PerturbedNewton r;
  for (int k = 0; k < 64; ++k) {
    const OrbitFacts o = orbit_facts(Z, period, *dc, side, w);
    ++out->perturbed_steps;
    const CFe stepc = cmul(o.f, cinv(o.g));
    const FloatExp s = cabs(stepc);
    r.k = cabs(o.h) / mul_pow2(cabs(o.g), 1);
    r.k3 = mul_pow2(sqr(r.k), 1) + cabs(o.t) / (cabs(o.g) * 6.0);
    r.size = o.size;
    r.zq = o.zq;
    r.dq = o.dq;
    if (!std::isfinite(s.m)) {
      out->message = "Newton's step is not finite (the derivative vanished)";
      r.stage = NewtonStage::kFailed;
      return r;
    }
    *dc = C2{dc->re - FloatExp2::from_parts(stepc.re, 0.0), dc->im - FloatExp2::from_parts(stepc.im, 0.0)};
    const FloatExp dist = mag(to_floatexp(dc->re), to_floatexp(dc->im));
    if (dist > far) {
      out->message = "Newton's method left the search region (more than 64 radii from the seed)";
      r.stage = NewtonStage::kFailed;
      return r;
    }
    const bool stalled = k >= free_steps && !(s < r.last_step * 0.5);
    r.last_step = s;
    r.dist = dist;
    const FloatExp rounding = dist * pow2(-rounding_bits);
    if (s.m == 0 || s <= dist * pow2(-stop_bits) || s <= floor ||
        r.k * sqr(s) <= (rounding > floor ? rounding : floor)) {
      r.stage = NewtonStage::kConverged;
      return r;
    }
    if (stalled) return r;
    if (cancelled(cancel)) {
      out->cancelled = true;
      r.stage = NewtonStage::kCancelled;
      return r;
    }
  }
  return r;
}

}  // namespace

Nucleus find_nucleus(const std::string& re, const std::string& im, uint32_t period, int bits,
                     FloatExp search_radius, const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  Nucleus out;
  out.period = period;
  out.re = re;
  out.im = im;
  if (period < 1) {
    out.message = "the period must be at least 1";
    return out;
  }
  // The seed's orbit Z_0 .. Z_p (or to its escape) in MPFR, kept to 106 bits (cut from the limbs:
  // rounding through MPFR calls cost as much as the orbit).
  SeedOrbit Z;
  Z.fe2.reserve(period + 1);
  {
    MpC c(bits), z(bits);
    Mp t1(bits), t2(bits);
    parse(c.re.v, re);
    parse(c.im.v, im);
    z.zero();
    Z.fe2.push_back(C2{FloatExp2(0.0), FloatExp2(0.0)});
    for (uint32_t n = 1; n <= period; ++n) {
      step(z, c, t1, t2);
      const FloatExp2 zr = mpfr_util::to_fe2_cut(z.re.v), zi = mpfr_util::to_fe2_cut(z.im.v);
      Z.fe2.push_back(C2{zr, zi});
      const double x = plain_double(zr), y = plain_double(zi);
      if (x * x + y * y > 4.0) break;  // escaped: pixels rebase to Z_0 from here
      if ((n & 1023) == 0 && cancelled(cancel)) {
        out.cancelled = true;
        out.seconds = since(t0);
        return out;
      }
    }
    ++out.mpfr_steps;
    add_plain(&Z);
  }
  // Newton by perturbation: c = C + dc, dc in floatexp2, the step f / f' in floatexp. First with
  // 53-bit deltas (several times cheaper) until they converge (2^-40 of the distance: the
  // derivative's rounding over p steps takes some of the 53 bits) or reach the seed orbit's own
  // precision; then, only where one MPFR step from there would not reach the working precision,
  // with 106-bit deltas.
  C2 dc{FloatExp2(0.0), FloatExp2(0.0)};
  const FloatExp far = search_radius * 64.0;
  FloatExp cmag0;
  {
    Mp a(64), b(64);
    parse(a.v, re);
    parse(b.v, im);
    cmag0 = mag(to_fe(a.v), to_fe(b.v));
    if (cmag0.m == 0) cmag0 = FloatExp(1.0);
  }
  const FloatExp seed_floor = cmag0 * pow2(-(bits - 16));  // what the seed orbit's rounding allows
  // The estimate's error after a stage whose last step was s: the quadratic term, the deltas'
  // precision (2^-q of |dc|: f = Z_p + d_p cancels to the distance from the seed), the seed's
  // floor. (At the bench's locations the 53-bit stage ended 2^-43 of |dc| from the nucleus.)
  auto error_after = [&](const PerturbedNewton& r, int q) {
    FloatExp e = r.k * sqr(r.last_step);
    const FloatExp rounding = r.dist * pow2(-q);
    if (rounding > e) e = rounding;
    return seed_floor > e ? seed_floor : e;
  };
  // The working precision from a size estimate: -log2(size) + 80 bits and a 32-bit guard.
  auto bits_for_size = [&](FloatExp size) {
    int b = bits + 32;
    if (std::isfinite(size.m) && size.m != 0)
      b = std::max(b, static_cast<int>(std::ceil(-log2_of(size))) + 112);
    return b;
  };
  PerturbedNewton pert =
      perturbed_newton(DeltaWidth::k53, Z, period, far, 40, 43, 3, seed_floor, true, cancel, &dc, &out);
  if (pert.stage == NewtonStage::kCancelled) {
    out.seconds = since(t0);
    return out;
  }
  FloatExp err = error_after(pert, 43);
  if (pert.stage != NewtonStage::kFailed) {
    const FloatExp target = cmag0 * pow2(-(bits_for_size(cabs(pert.size)) - 16));
    if (!(pert.k * sqr(err) <= target * pow2(-kMarginBits)) && err > seed_floor * pow2(8)) {
      pert =
          perturbed_newton(DeltaWidth::k106, Z, period, far, 100, 96, 1, seed_floor, true, cancel, &dc, &out);
      if (pert.stage == NewtonStage::kCancelled) {
        out.seconds = since(t0);
        return out;
      }
      err = error_after(pert, 96);
    }
  }
  if (!out.message.empty()) {  // diverged: the last estimate, not converged
    Mp t(bits + 32), sr(bits + 32), si(bits + 32);
    parse(sr.v, re);
    parse(si.v, im);
    mpfr_util::set_fe2(t.v, dc.re);
    mpfr_add(sr.v, sr.v, t.v, MPFR_RNDN);
    mpfr_util::set_fe2(t.v, dc.im);
    mpfr_add(si.v, si.v, t.v, MPFR_RNDN);
    out.re = to_decimal(sr.v);
    out.im = to_decimal(si.v);
    out.seconds = since(t0);
    return out;
  }
  // Newton in MPFR from c = C + dc (exactly), with precision doubling: a step from an error e
  // leaves about K e^2 (K = |z_p'' / 2 z_p'|), so its orbit runs at -log2(K e^2) bits and a guard,
  // and its derivative at the bits the step gains; the last at the working precision b_final
  // (-log2(size) + 112 bits, from the size estimate). A step at b_final whose predicted error
  // K s^2 (with the derivative's rounding) is 2^-kMarginBits of the target ends it: that orbit is
  // the check, and none is run at the result (its Newton distance is the prediction, which the
  // tests check against their own MPFR orbits).
  //
  // Where Newton's step would fall short of the target but a third-order (Chebyshev) step would
  // not (K3 e^3, K3 = 2 K^2 + |d3z_p/dc3 / 6 z_p'| from the perturbed orbit, 2^-kMarginBits below
  // the target), that step is taken at b_final instead of another doubling, with d2z/dc2 in MPFR
  // at the bits its term K s^2 needs: at rust-fractal's e1200 the orbits at 4,498, 5,314, 6,905
  // and 7,509 bits become 4,498, 5,314 and 7,509. It ends the search like a Newton step, where its
  // predicted error (K3 s^3, and the derivatives' rounding) is 2^-kMarginBits below the target.
  int b_final = bits_for_size(cabs(pert.size));
  MpC c(b_final), z(b_final), d(b_final), zr(b_final), uq(b_final), qq(64), w(64);
  Mp t1(b_final), t2(b_final), u1(b_final), u2(b_final), u3(b_final), v1(64), v2(64);
  SecondDerivative sd(64);
  {
    MpC seed(b_final);
    parse(seed.re.v, re);
    parse(seed.im.v, im);
    mpfr_util::set_fe2(t1.v, dc.re);
    mpfr_util::set_fe2(t2.v, dc.im);
    mpfr_add(c.re.v, seed.re.v, t1.v, MPFR_RNDN);
    mpfr_add(c.im.v, seed.im.v, t2.v, MPFR_RNDN);
  }
  out.size = cabs(pert.size);
  out.orientation = std::atan2(to_double(pert.size.im / out.size), to_double(pert.size.re / out.size));
  out.domain_size = period == 1 ? kHuge : pert.zq / pert.dq;
  const FloatExp K = pert.k, K3 = pert.k3;
  const int log2p = static_cast<int>(std::log2(static_cast<double>(period)));
  for (int k = 0; k < 16; ++k) {
    if (cancelled(cancel)) {
      out.cancelled = true;
      break;
    }
    const FloatExp cmag = mag(to_fe(c.re.v), to_fe(c.im.v));
    const FloatExp scale = cmag > out.size ? cmag : out.size;
    const FloatExp target = scale * pow2(-(b_final - 16));
    const FloatExp goal = target * pow2(-kMarginBits);
    FloatExp want = K * sqr(err);  // this step's expected result
    const bool third_order = want > goal && K3 * sqr(err) * err <= goal;
    const FloatExp quadratic_term = want;
    if (third_order || !(want > goal)) want = goal;
    int b = b_final;
    if (std::isfinite(log2_of(want)))
      b = std::min(b_final,
                   std::max(bits + 32, static_cast<int>(std::ceil(log2_of(cmag) - log2_of(want))) + 32));
    // The derivative: good to the bits gained (err / want) and a guard for p steps of rounding.
    int bd = b;
    if (std::isfinite(log2_of(want)) && std::isfinite(log2_of(err)))
      bd = std::min(b, std::max(64, static_cast<int>(std::ceil(log2_of(err) - log2_of(want))) + 48 +
                                        static_cast<int>(std::log2(static_cast<double>(period)))));
    // The second derivative (third-order steps): good to the bits from its term K e^2 to want.
    int bh = 64;
    if (third_order)
      bh = std::min(bd, std::max(64, static_cast<int>(std::ceil(log2_of(quadratic_term) - log2_of(want))) +
                                         48 + log2p));
    for (Mp* m : {&z.re, &z.im, &t1, &t2}) mpfr_set_prec(m->v, b);
    for (Mp* m : {&d.re, &d.im, &zr.re, &zr.im, &u1, &u2, &u3, &uq.re, &uq.im}) mpfr_set_prec(m->v, bd);
    if (third_order) {
      sd.set_prec(bh);
      for (Mp* m : {&qq.re, &qq.im, &w.re, &w.im, &v1, &v2}) mpfr_set_prec(m->v, bh);
    }
    mpfr_orbit(c, period, z, d, zr, t1, t2, u1, u2, third_order ? &sd : nullptr);
    ++out.mpfr_steps;
    const FloatExp s = mag(to_fe(z.re.v), to_fe(z.im.v)) / mag(to_fe(d.re.v), to_fe(d.im.v));
    out.newton_distance = s;
    out.bits = b;
    if (!std::isfinite(s.m)) {
      out.message = "Newton's step is not finite (the derivative vanished)";
      break;
    }
    if (b == b_final && s <= target) {  // c is the nucleus to the working precision
      out.converged = true;
      break;
    }
    // The step's result: K s^2 from the quadratic term (K3 s^3 for a third-order step, and its
    // K s^2 term's rounding at h's precision), s 2^-(bd - 16 - log2 p) from the derivative's
    // rounding.
    FloatExp predicted;
    if (third_order) {
      chebyshev_update(c, z, d, sd, uq, qq, w, u1, u2, u3, v1, v2);
      predicted = K3 * sqr(s) * s;
      const FloatExp h_rounding = K * sqr(s) * pow2(-(bh - 16 - log2p));
      if (h_rounding > predicted) predicted = h_rounding;
    } else {
      newton_update(c, z, d, u1, u2, u3);
      predicted = K * sqr(s);
    }
    const FloatExp rounding = s * pow2(-(bd - 16 - log2p));
    if (rounding > predicted) predicted = rounding;
    // (K s and, for a third-order step, K3 s^2 small: the series' next terms are far below.)
    const bool series_small = K * s <= pow2(-16) && (!third_order || K3 * sqr(s) <= pow2(-16));
    if (b == b_final && predicted <= goal && series_small) {
      out.newton_distance = predicted;
      out.converged = true;
      break;
    }
    err = predicted;
  }
  if (!out.converged && out.message.empty() && !out.cancelled)
    out.message = "Newton's method did not reach the working precision in 16 MPFR steps (Newton distance " +
                  to_string(out.newton_distance, 3) + ")";
  out.re = to_decimal(c.re.v);
  out.im = to_decimal(c.im.v);
  out.seconds = since(t0);
  return out;
}

}  // namespace ds::perturb::finder
