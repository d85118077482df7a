// The feature finder's nucleus (finder.h, find_nucleus): Newton's method by perturbation against
// the seed's MPFR orbit (53-bit, then 106-bit deltas), then MPFR steps with precision doubling;
// the size, orientation and atom domain. docs/finder.md.
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "kernels/perturb/finder.h"
#include "kernels/core/backend.h"
#include "kernels/perturb/finder_detail.h"
#include "kernels/perturb/finder_fixed_orbit.h"
#include "kernels/perturb/finder_perturbed.h"
#include "kernels/perturb/finder_series.h"

namespace ds::perturb::finder {
namespace {

using namespace detail;

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
  FloatExp k4{0.0};                        // a fourth-order step's, for planning only (below)
  CFe a2{FloatExp(0.0), FloatExp(0.0)};    // z_p'' / 2 z_p' (complex) at the last orbit
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
    {
      const CFe q = cmul(o.h, cinv(o.g));
      r.a2 = CFe{mul_pow2(q.re, -1), mul_pow2(q.im, -1)};
    }
    const FloatExp a3 = cabs(o.t) / (cabs(o.g) * 6.0);
    r.k3 = mul_pow2(sqr(r.k), 1) + a3;
    // The u^4 coefficient is 5 a2^3 - 5 a2 a3 + a4; a4 (the fourth derivative's) is taken as K a3,
    // the size the others' pattern (a_k ~ K^(k-1)) gives it.
    r.k4 = sqr(r.k) * r.k * 5.0 + r.k * a3 * 6.0;
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

// The seed orbit's profile (finder_series.h: log2 |2 Z_k|, and log2 |dZ_k/dc| by a floatexp
// recursion along it, a little above), or none where it escaped before p.
OrbitProfile seed_orbit_profile(const SeedOrbit& Z, uint32_t period) {
  OrbitProfile r;
  if (Z.fe2.size() != static_cast<size_t>(period) + 1) return r;
  r.lz.assign(period, -INFINITY);
  r.ld.assign(period, -INFINITY);
  CFe d{FloatExp(0.0), FloatExp(0.0)};
  for (uint32_t k = 0; k < period; ++k) {
    const CFe z{to_floatexp(Z.fe2[k].re), to_floatexp(Z.fe2[k].im)};
    if (k > 0) {
      r.lz[k] = 1.0 + log2_of(cabs(z));
      r.ld[k] = log2_of(cabs(d)) + 1e-6;
    }
    const CFe p = cmul(z, d);
    d = CFe{mul_pow2(p.re, 1) + FloatExp(1.0), mul_pow2(p.im, 1)};
  }
  r.ldp = log2_of(cabs(d));
  return r;
}

}  // namespace

std::string nucleus_memory_problem(uint32_t period) {
  const uint64_t need = nucleus_memory_bytes(period), host = host_memory_bytes();
  if (!host || need <= usable_memory_bytes(host)) return "";
  char b[256];
  std::snprintf(b, sizeof b,
                "the nucleus of period %u needs about %.2f GiB for its orbit (%d bytes a step), over three "
                "quarters of this machine's %.2f GiB: at most period %llu here",
                period, static_cast<double>(need) / (1 << 30), static_cast<int>(kNucleusBytesPerStep),
                static_cast<double>(host) / (1 << 30),
                static_cast<unsigned long long>(usable_memory_bytes(host) / kNucleusBytesPerStep - 1));
  return b;
}

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
  out.message = nucleus_memory_problem(period);
  if (!out.message.empty()) return out;
  // The seed's orbit Z_0 .. Z_p (or to its escape) in MPFR, kept to 106 bits (cut from the limbs:
  // rounding through MPFR calls cost as much as the orbit).
  SeedOrbit Z;
  Z.fe2.reserve(period + 1);
  OrbitProfile seed_prof;  // made here where the seed's orbit ran on a schedule, else when needed
  {
    MpC c(bits), z(bits), zprev(bits);
    Mpfr t1(bits), t2(bits);
    parse(c.re.v, re);
    parse(c.im.v, im);
    // In fixed point where it fits a few limbs (finder_fixed_orbit.h: no more rounding per step
    // than MPFR at `bits`, about half its time at 8 limbs).
    FixedOrbit fixed;
    const int limbs = FixedOrbit::limbs_for(bits);
    const bool use_fixed = limbs <= kFixedOrbitMaxLimbs && fixed.reset(c.re.v, c.im.v, limbs);
    // In MPFR, on a precision schedule (finder_series.h, precision_schedule) made as it goes: z_n
    // at bits - floor(L_n) + G, L_n = log2 |z_p' / prod_{k=n}^{p-1} 2 z_k|, taken as A + log2
    // |prod_{k=1}^{n-1} 2 z_k| with A = log2 |z_p' / prod_{k=1}^{p-1} 2 z_k| guessed at -4 (z_p'
    // is that product and the later, smaller ones: -0.7 at e1200); checked once the orbit is
    // there, from its own products and z_p', and run again at `bits` throughout where any z_n had
    // fewer bits than that asks (or the orbit escaped).
    const int G = schedule_guard(period);
    const int seed_min_bits = 192;  // (its points are kept to 106 bits)
    std::vector<int> used;
    for (int attempt = 0; attempt < 2; ++attempt) {
      const bool scheduled = !use_fixed && attempt == 0 && bits > seed_min_bits + 64;
      if (attempt == 1) {
        Z.fe2.clear();
        set_prec({&z.re, &z.im, &t1, &t2}, bits);
      }
      if (scheduled) used.assign(static_cast<size_t>(period) + 1, bits);
      z.zero();
      int cur = bits;
      double prefix = 0;  // log2 |prod_{k=1}^{n-1} 2 z_k|
      Z.fe2.push_back(C2{FloatExp2(0.0), FloatExp2(0.0)});
      for (uint32_t n = 1; n <= period; ++n) {
        FloatExp2 zr, zi;
        if (use_fixed) {
          fixed.step();  // (a coordinate at 4 or more: |z| > 2, the loop ends below)
          zr = fixed.re();
          zi = fixed.im();
        } else {
          int want = cur;
          if (scheduled) {
            want = scheduled_bits(bits, seed_min_bits, G, -4.0 + prefix);
            used[n] = want;
          }
          step_at_bits(want, &cur, z, zprev, c, t1, t2);
          zr = mpfr_util::to_fe2_cut(z.re.v);
          zi = mpfr_util::to_fe2_cut(z.im.v);
          if (scheduled) prefix += 1.0 + log2_of(mag(to_floatexp(zr), to_floatexp(zi)));
        }
        Z.fe2.push_back(C2{zr, zi});
        const double x = plain_double(zr), y = plain_double(zi);
        if (x * x + y * y > 4.0) break;  // escaped: pixels rebase to Z_0 from here
        if ((n & 1023) == 0 && cancelled(cancel)) {
          out.cancelled = true;
          out.seconds = since(t0);
          return out;
        }
      }
      if (!scheduled) break;
      // The check: every z_n at least at the bits its own orbit's products and z_p' ask for.
      seed_prof = seed_orbit_profile(Z, period);
      bool ok = !seed_prof.lz.empty() && std::isfinite(seed_prof.ldp);
      double S = 0;
      for (uint32_t n = period; ok && n >= 1; --n) {
        if (n < period) S += seed_prof.lz[n];
        const double L = seed_prof.ldp - S;
        if (!std::isfinite(L)) {
          ok = false;
          break;
        }
        if (used[n] < std::min<long>(bits, needed_bits(bits, G, L))) ok = false;
      }
      if (ok) break;
      seed_prof = OrbitProfile{};
      ++out.mpfr_steps;  // (counted: an orbit run again)
    }
    ++out.mpfr_steps;
    add_plain(&Z, DeltaWidth::k53);
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
    Mpfr a(64), b(64);
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
    // (Not where one MPFR step reaches the target: a Newton step, or a third-order one whose a2 the
    // perturbed orbit holds to the bits it needs, below.)
    const FloatExp goal = target * pow2(-kMarginBits), e2 = pert.k * sqr(err);
    const bool one_step =
        !(e2 > goal) || (pert.k3 * sqr(err) * err <= goal && e2 <= goal * pow2(kPerturbedA2Bits - 8));
    if (!one_step && err > seed_floor * pow2(8)) {
      add_plain(&Z, DeltaWidth::k106);
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
    Mpfr t(bits + 32), sr(bits + 32), si(bits + 32);
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
  // Higher orders where they save an orbit (finder_series.h): where Newton's step would fall short
  // of the target but a third-order (Chebyshev) step would not (K3 e^3, K3 = 2 K^2 +
  // |d3z_p/dc3 / 6 z_p'| from the perturbed orbit, 2^-kMarginBits below the target), that step is
  // taken at b_final instead of another doubling; it ends the search like a Newton step, where its
  // predicted error (K3 s^3, and the derivatives' rounding) is 2^-kMarginBits below the target.
  // Where neither a Newton nor a third-order step from here would leave an error that one
  // third-order step takes to the target, but a fourth-order step (K4 e^4) would, that is taken:
  // its K4 is an estimate (PerturbedNewton::k4), so it never ends the search, and the next step's
  // orbit measures where it landed (2^-5260 against the 2^-5265 planned at e1200). At
  // rust-fractal's e1200 the orbits at 4,498, 5,314, 6,905 and 7,509 bits (orders 2, 2, 2, 2)
  // became 5,258 and 7,509 (orders 4, 3).
  int b_final = bits_for_size(cabs(pert.size));
  MpC c(b_final);
  Mpfr t1(b_final), t2(b_final);
  SeriesStep mpfr_step(b_final);
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
  if (period > 1) out.domain_size = pert.zq / pert.dq;
  const FloatExp K = pert.k, K3 = pert.k3, K4 = pert.k4;
  const int log2p = static_cast<int>(std::log2(static_cast<double>(period)));
  // The last orbit's profile and how far c has moved from it, for the next MPFR orbit's precision
  // schedule (finder_series.h): first the seed's (made when an orbit needs it: below), |dc| away.
  OrbitProfile profile;
  bool seed_profile = false;
  FloatExp moved = pert.dist;
  MpC c_before(b_final);
  for (int k = 0; k < 16; ++k) {
    if (cancelled(cancel)) {
      out.cancelled = true;
      break;
    }
    const FloatExp cmag = mag(to_fe(c.re.v), to_fe(c.im.v));
    const FloatExp scale = cmag > out.size ? cmag : out.size;
    const FloatExp target = scale * pow2(-(b_final - 16));
    const FloatExp goal = target * pow2(-kMarginBits);
    // The step's order and expected result (above).
    const FloatExp e2 = K * sqr(err), e3 = K3 * sqr(err) * err, e4 = K4 * sqr(sqr(err));
    int order = 2;
    FloatExp want = e2;
    if (!(e2 > goal)) {
      want = goal;
    } else if (e3 <= goal) {
      order = 3;
      want = goal;
    } else if (!(K3 * sqr(e2) * e2 <= goal) && !(K3 * sqr(e3) * e3 <= goal) &&
               K3 * sqr(e4) * e4 <= goal * pow2(-kMarginBits)) {
      order = 4;
      want = e4;
    }
    int b = b_final;
    if (std::isfinite(log2_of(want)))
      b = std::min(b_final,
                   std::max(bits + 32, static_cast<int>(std::ceil(log2_of(cmag) - log2_of(want))) + 32));
    // Each derivative: good to the bits its term gains (from its size, e for the first, e2 and
    // e3 for the next, to want) and a guard for p steps of rounding.
    auto bits_between = [&](FloatExp from, int cap) {
      if (!std::isfinite(log2_of(want)) || !std::isfinite(log2_of(from))) return cap;
      return std::min(cap,
                      std::max(64, static_cast<int>(std::ceil(log2_of(from) - log2_of(want))) + 48 + log2p));
    };
    // A third-order step's a2 from the perturbed orbit where its 2^-kPerturbedA2Bits leave the
    // term's error (e2 2^-40) 2^-8 below the result.
    const bool a2_perturbed = order == 3 && e2 <= want * pow2(kPerturbedA2Bits - 8);
    const int bd = bits_between(err, b);
    const int bh = order >= 3 && !a2_perturbed ? bits_between(e2, bd) : 64;
    const int bt = order >= 4 ? bits_between(e3, bh) : 64;
    // Late in the orbit z needs fewer bits (precision_schedule); only for orbits MPFR runs (beyond
    // kFixedOrbitMaxLimbs), at least the derivative's bits and a guard.
    std::vector<int> schedule;
    if (FixedOrbit::limbs_for(b) > kFixedOrbitMaxLimbs) {
      if (!seed_profile && profile.lz.empty())
        profile = !seed_prof.lz.empty() ? std::move(seed_prof) : seed_orbit_profile(Z, period);
      seed_profile = true;
      schedule = precision_schedule(profile, moved, b, bd + log2p + 8, period);
    }
    mpfr_step.orbit(c, period, order, b, bd, bh, bt, a2_perturbed ? &pert.a2 : nullptr,
                    schedule.empty() ? nullptr : &schedule);
    ++out.mpfr_steps;
    profile = mpfr_step.profile();
    const FloatExp s = mpfr_step.newton_distance();
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
    // The step's result: K s^2 from the quadratic term (K3 s^3, K4 s^4 for the higher orders,
    // and their terms' rounding at bh and bt), s 2^-(bd - 16 - log2 p) from the derivative's.
    copy(c_before, c);
    mpfr_step.update(c);
    {
      Mpfr dr(64), di(64);
      mpfr_sub(dr.v, c.re.v, c_before.re.v, MPFR_RNDU);
      mpfr_sub(di.v, c.im.v, c_before.im.v, MPFR_RNDU);
      moved = mag(to_fe(dr.v), to_fe(di.v)) * (1.0 + 1e-15);
    }
    FloatExp predicted = order == 2 ? K * sqr(s) : order == 3 ? K3 * sqr(s) * s : K4 * sqr(sqr(s));
    auto at_least = [&](FloatExp x) {
      if (x > predicted) predicted = x;
    };
    at_least(s * pow2(-(bd - 16 - log2p)));
    if (order >= 3) at_least(K * sqr(s) * pow2(a2_perturbed ? -kPerturbedA2Bits : -(bh - 16 - log2p)));
    if (order >= 4) at_least(K3 * sqr(s) * s * pow2(-(bt - 16 - log2p)));
    // (K s and, for a third-order step, K3 s^2 small: the series' next terms are far below. A
    // fourth-order step's K4 is an estimate: it does not end the search.)
    const bool series_small = K * s <= pow2(-16) && (order == 2 || K3 * sqr(s) <= pow2(-16));
    if (b == b_final && order <= 3 && predicted <= goal && series_small) {
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
