// The finder's proofs (finder.h: prove_nucleus, prove_misiurewicz): before a nucleus or a
// Misiurewicz point is reported, an orbit of its own at c checks that it is a root, that Newton's
// method converged there, that the period (and preperiod) is the least, and that the size is
// plausible. docs/finder.md, "Proof".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels/perturb/finder.h"
#include "kernels/perturb/finder_detail.h"
#include "kernels/perturb/finder_fixed_orbit.h"

namespace ds::perturb::finder {
namespace {

using namespace detail;

// How far below the tolerance a divisor's (or a lower preperiod's) Newton distance must stay for c
// to count as a root there: at such a root it is about the distance to it, at most about tol; at a
// root of least period p it is the distance to another root, many orders of magnitude above tol
// (tol is 2^-96 of the size or below).
constexpr int kRootGapBits = 32;
// The slack on the measured Newton distance against tol: the check orbit's own rounding (about
// 2^-bits (16 + |c|) |z_p'| on z_p) and the finder's prediction (2^-8 below tol).
constexpr int kConvergedSlackBits = 4;
// Kantorovich's condition, with room: K r <= 2^-16.
constexpr int kKantorovichBits = 16;
// The bits a nucleus needs beyond its size (the finder's working precision is -log2 |size| + 112).
constexpr int kSizeBits = 80;

std::string fe(FloatExp x) { return to_string(x, 3); }

std::vector<uint32_t> proper_divisors(uint32_t p) {
  std::vector<uint32_t> lo, hi;
  for (uint32_t d = 1; static_cast<uint64_t>(d) * d <= p; ++d)
    if (p % d == 0) {
      lo.push_back(d);
      if (d != p / d) hi.push_back(p / d);
    }
  lo.insert(lo.end(), hi.rbegin(), hi.rend());
  lo.pop_back();  // p itself
  return lo;
}

// z <- z^2 + c in fixed point where c's orbit fits (finder_fixed_orbit.h: no more rounding per step
// than MPFR at the same bits), else in MPFR; z read in floatexp.
class CheckOrbit {
 public:
  CheckOrbit(const std::string& re, const std::string& im, int bits)
      : c_(bits), z_(bits), t1_(bits), t2_(bits) {
    parse(c_.re.v, re);
    parse(c_.im.v, im);
    z_.zero();
    const int limbs = FixedOrbit::limbs_for(bits);
    fixed_ok_ = limbs <= kFixedOrbitMaxLimbs && fixed_.reset(c_.re.v, c_.im.v, limbs);
  }
  FloatExp cmag() const { return mag(to_fe(c_.re.v), to_fe(c_.im.v)); }
  // False once |z| > 2 (escaped).
  bool step() {
    if (fixed_ok_) {
      if (!fixed_.step()) return false;
      z_fe_ = CFe{to_floatexp(fixed_.re()), to_floatexp(fixed_.im())};
    } else {
      step_two_products(z_, c_, t1_, t2_);
      z_fe_ = CFe{to_fe(z_.re.v), to_fe(z_.im.v)};
    }
    return !(cabs(z_fe_) > FloatExp(2.0));
  }
  CFe z() const { return z_fe_; }
  // z exactly, into an MpC of the orbit's bits.
  void get(MpC& out) const {
    if (fixed_ok_)
      fixed_.get(out.re.v, out.im.v);
    else
      copy(out, z_);
  }

 private:
  MpC c_, z_;
  Mpfr t1_, t2_;
  FixedOrbit fixed_;
  bool fixed_ok_ = false;
  CFe z_fe_{FloatExp(0.0), FloatExp(0.0)};
};

// The rounding of an orbit's z_n: each step adds at most 2^-bits (16 + |c|) per coordinate (MPFR's
// 7 roundings, or the fixed point's cut, finder_fixed_orbit.h), which the later steps multiply by
// |2 z_k|: A_n = 2 |z_{n-1}| A_{n-1} + 1 (A_n >= |z_n'|, with equality where nothing cancels), and
// z_n is within 2^-bits (16 + |c|) sqrt(2) A_n of the exact orbit's (to first order).
FloatExp rounding_step(FloatExp a, CFe z) { return mul_pow2(cabs(z) * a, 1) + FloatExp(1.0); }
FloatExp rounding_of(FloatExp a, FloatExp cmag, int bits) {
  return a * (cmag + FloatExp(16.0)) * 1.5 * pow2(-bits);
}

CFe cadd1(CFe a) { return {a.re + FloatExp(1.0), a.im}; }
CFe ctwice(CFe a) { return {mul_pow2(a.re, 1), mul_pow2(a.im, 1)}; }
CFe csub(CFe a, CFe b) { return {a.re - b.re, a.im - b.im}; }

}  // namespace

NucleusProof prove_nucleus(const std::string& re, const std::string& im, uint32_t period, int bits,
                           const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  NucleusProof r;
  r.bits = bits;
  r.least_period = period;
  if (period < 1) {
    r.reason = "the period must be at least 1";
    return r;
  }
  CheckOrbit orbit(re, im, bits);
  const std::vector<uint32_t> divisors = proper_divisors(period);
  std::vector<FloatExp> divisor_distance;
  divisor_distance.reserve(divisors.size());
  size_t next_divisor = 0;
  const CFe zero{FloatExp(0.0), FloatExp(0.0)};
  // z_n, dz_n/dc, d2z_n/dc2 from n = 0; l = prod_{i=1}^{n} 2 z_i (to p - 1); the atom domain's
  // least |z_q| (q < p) and |dz_q/dc| there.
  CFe z = zero, d = zero, h = zero, l{FloatExp(1.0), FloatExp(0.0)};
  FloatExp zq = kHuge, dq(1.0), a(0.0);
  for (uint32_t n = 1; n <= period; ++n) {
    h = ctwice(CFe{cmul(d, d).re + cmul(z, h).re, cmul(d, d).im + cmul(z, h).im});
    d = cadd1(ctwice(cmul(z, d)));
    a = rounding_step(a, z);
    if (!orbit.step()) {
      r.reason =
          "c's orbit escapes at step " + std::to_string(n) + ", before the period " + std::to_string(period);
      r.seconds = since(t0);
      return r;
    }
    z = orbit.z();
    if (n < period) {
      const FloatExp az = cabs(z);
      if (az < zq) {
        zq = az;
        dq = cabs(d);
      }
      l = ctwice(cmul(l, z));
      if (next_divisor < divisors.size() && divisors[next_divisor] == n) {
        divisor_distance.push_back(az / cabs(d));
        ++next_divisor;
      }
    }
    if ((n & 1023) == 0 && cancelled(cancel)) {
      r.cancelled = true;
      r.seconds = since(t0);
      return r;
    }
  }
  const FloatExp ad = cabs(d);
  // |z_p / z_p'| with z_p no smaller than its rounding (at least that is known of it).
  const FloatExp rounding = rounding_of(a, orbit.cmag(), bits);
  r.newton_distance = (cabs(z) > rounding ? cabs(z) : rounding) / ad;
  r.k = cabs(h) / mul_pow2(ad, 1);
  const CFe size = period == 1 ? CFe{FloatExp(1.0), FloatExp(0.0)} : cinv(cmul(l, d));
  r.size = cabs(size);
  r.orientation = std::atan2(to_double(size.im / r.size), to_double(size.re / r.size));
  if (period > 1) r.domain_size = zq / dq;
  const bool size_finite = std::isfinite(r.size.m) && r.size.m != 0 && r.size < kHuge;
  FloatExp scale = size_finite && r.size < FloatExp(1.0) ? r.size : FloatExp(1.0);
  const FloatExp cm = orbit.cmag();
  if (cm > scale) scale = cm;
  r.tolerance = scale * pow2(-(bits - 16));
  for (size_t i = 0; i < divisors.size(); ++i)
    if (r.divisor == 0 || divisor_distance[i] < r.divisor_distance) {
      r.divisor = divisors[i];
      r.divisor_distance = divisor_distance[i];
    }
  const std::string per = std::to_string(period);
  // The least period first: at a nucleus of a proper divisor d, z_p vanishes too (and the size
  // from l, which holds z_d, means nothing).
  for (size_t i = 0; i < divisors.size(); ++i)
    if (!(divisor_distance[i] > r.tolerance * pow2(kRootGapBits))) {
      r.least_period = divisors[i];
      r.reason = "the point Newton's method reached for period " + per + " is a nucleus of period " +
                 std::to_string(divisors[i]) + " (|z_d/z_d'| = " + fe(divisor_distance[i]) +
                 " at d = " + std::to_string(divisors[i]) + ", tolerance " + fe(r.tolerance) + "): " + per +
                 " is not its least period";
      r.seconds = since(t0);
      return r;
    }
  if (!std::isfinite(r.newton_distance.m) || r.newton_distance > r.tolerance * pow2(kConvergedSlackBits)) {
    r.reason = "Newton's method did not converge: |z_p/z_p'| = " + fe(r.newton_distance) +
               " at the point, above " + fe(r.tolerance * pow2(kConvergedSlackBits)) +
               " (16 times the tolerance at " + std::to_string(bits) + " bits)";
  } else if (!(r.k * r.newton_distance <= pow2(-kKantorovichBits))) {
    r.reason = "Newton's convergence is not certain: K |z_p/z_p'| = " + fe(r.k * r.newton_distance) +
               " is above 2^-16 (K = |z_p''/2z_p'| = " + fe(r.k) + ")";
  } else if (!size_finite || r.size > FloatExp(1.0)) {
    r.reason = "the size estimate " + fe(r.size) +
               " is not plausible (no minibrot is larger than the main cardioid, size 1)";
  } else if (bits < static_cast<int>(std::ceil(-log2_of(r.size))) + kSizeBits) {
    r.reason = "the nucleus is known to " + std::to_string(bits) + " bits, fewer than its size " +
               fe(r.size) + " needs (-log2 size + 80)";
  } else {
    r.ok = true;
  }
  r.seconds = since(t0);
  return r;
}

MisiurewiczProof prove_misiurewicz(const std::string& re, const std::string& im, int preperiod, int period,
                                   int bits, const std::atomic<bool>* cancel) {
  const auto t0 = Clock::now();
  MisiurewiczProof r;
  r.bits = bits;
  r.least_preperiod = preperiod;
  r.least_period = period;
  if (preperiod < 1 || period < 1) {
    r.reason = "the preperiod and the period must be at least 1";
    return r;
  }
  const FloatExp cm = CheckOrbit(re, im, 64).cmag();
  r.tolerance = (cm.m == 0 ? FloatExp(1.0) : cm) * pow2(-(bits - 16));
  const FloatExp root = r.tolerance * pow2(kRootGapBits);
  const CFe zero{FloatExp(0.0), FloatExp(0.0)};
  // r_{q,k} = |z_{q+k} - z_q| / |z'_{q+k} - z'_q| (the difference of the z in MPFR: they agree to
  // nearly every bit; no smaller than the two z's rounding) for k = each proper divisor of p and p
  // itself, from one orbit; for k = p also K = |f'' / 2 f'|.
  FloatExp k_last(0.0);
  auto distances = [&](int q, const std::vector<int>& ks, std::vector<FloatExp>* out) -> std::string {
    CheckOrbit orbit(re, im, bits);
    MpC zq(bits), zn(bits);
    zq.zero();
    CFe z = zero, d = zero, h = zero, dqv = zero, hqv = zero;
    FloatExp a(0.0), aq(0.0);
    size_t next = 0;
    const int last = q + ks.back();
    for (int n = 1; n <= last; ++n) {
      h = ctwice(CFe{cmul(d, d).re + cmul(z, h).re, cmul(d, d).im + cmul(z, h).im});
      d = cadd1(ctwice(cmul(z, d)));
      a = rounding_step(a, z);
      if (!orbit.step()) return "c's orbit escapes at step " + std::to_string(n);
      z = orbit.z();
      if (n == q) {
        orbit.get(zq);
        dqv = d;
        hqv = h;
        aq = a;
      }
      while (next < ks.size() && n == q + ks[next]) {
        orbit.get(zn);
        mpfr_sub(zn.re.v, zn.re.v, zq.re.v, MPFR_RNDN);
        mpfr_sub(zn.im.v, zn.im.v, zq.im.v, MPFR_RNDN);
        FloatExp f = mag(to_fe(zn.re.v), to_fe(zn.im.v));
        const FloatExp rounding = rounding_of(a + aq, orbit.cmag(), bits);
        if (rounding > f) f = rounding;
        const FloatExp g = cabs(csub(d, dqv));
        out->push_back(f / g);
        k_last = cabs(csub(h, hqv)) / mul_pow2(g, 1);
        ++next;
      }
      if ((n & 1023) == 0 && cancelled(cancel)) return "cancelled";
    }
    return "";
  };
  auto finish = [&](const std::string& why) -> MisiurewiczProof {
    r.reason = why;
    r.cancelled = why == "cancelled";
    r.seconds = since(t0);
    return r;
  };
  if (preperiod < 2) {
    // z_{1+p} = z_1 = c means z_p = 0: a nucleus (a double root of f, which Newton's method
    // approaches only linearly), never a Misiurewicz point.
    r.least_preperiod = 0;
    return finish("a Misiurewicz point's preperiod is at least 2 (z_{1+p} = z_1 means z_p = 0, a nucleus)");
  }
  std::vector<int> ks;
  for (uint32_t k : proper_divisors(static_cast<uint32_t>(period))) ks.push_back(static_cast<int>(k));
  ks.push_back(period);
  std::vector<FloatExp> rk;
  if (std::string e = distances(preperiod, ks, &rk); !e.empty()) return finish(e);
  r.newton_distance = rk.back();
  const FloatExp k = k_last;
  for (size_t i = 0; i + 1 < ks.size(); ++i)
    if (!(rk[i] > root)) {
      r.least_period = ks[i];
      break;
    }
  {
    // Periodic: z_P(c) = 0 at a nucleus of period P (or a divisor), where z_{j+P} = z_j for every j.
    CheckOrbit orbit(re, im, bits);
    CFe z = zero, d = zero;
    FloatExp a(0.0);
    bool escaped = false;
    for (int n = 1; n <= r.least_period && !escaped; ++n) {
      d = cadd1(ctwice(cmul(z, d)));
      a = rounding_step(a, z);
      escaped = !orbit.step();
      z = orbit.z();
    }
    // A nucleus is a double root of f (z'_{j+P} = z'_j there too), which Newton's method approaches
    // only linearly, to about the square root of the tolerance: that is the scale here.
    const FloatExp rounding = rounding_of(a, orbit.cmag(), bits);
    const FloatExp near = r.tolerance * pow2((bits - 16) / 2 + 16);
    if (!escaped && !((cabs(z) > rounding ? cabs(z) : rounding) / cabs(d) > (near > root ? near : root)))
      r.least_preperiod = 0;
  }
  // The least preperiod at the least period: z_{j+P} = z_j for every j from it on, for none below.
  // Walked down from q - 1 while the pair still holds (one orbit each: preperiods are short).
  for (int j = preperiod - 1; j >= 2 && r.least_preperiod != 0; --j) {
    std::vector<FloatExp> rj;
    if (std::string e = distances(j, {r.least_period}, &rj); !e.empty()) return finish(e);
    if (rj[0] > root) break;
    r.least_preperiod = j;
  }
  const std::string pair = "(" + std::to_string(preperiod) + ", " + std::to_string(period) + ")";
  if (r.least_preperiod == 0)
    return finish("the point Newton's method reached for " + pair + " is periodic (a nucleus of period " +
                  std::to_string(r.least_period) + "), not a Misiurewicz point");
  if (r.least_preperiod != preperiod || r.least_period != period)
    return finish("the point Newton's method reached for preperiod and period " + pair +
                  " has the least preperiod " + std::to_string(r.least_preperiod) + " and period " +
                  std::to_string(r.least_period));
  if (!std::isfinite(r.newton_distance.m))
    return finish("f' vanishes at the point (a double root of f = z_{q+p} - z_q)");
  if (r.newton_distance > r.tolerance * pow2(kConvergedSlackBits))
    return finish("Newton's method did not converge: |f/f'| = " + fe(r.newton_distance) +
                  " at the point, above " + fe(r.tolerance * pow2(kConvergedSlackBits)));
  // (Near a double root, f ~ a e^2, K r is about 1/4: a nucleus, where every f_{q,p} with the
  // nucleus's period dividing p has one, is approached that way.)
  if (!(k * r.newton_distance <= pow2(-kKantorovichBits)))
    return finish("Newton's convergence is not certain: K |f/f'| = " + fe(k * r.newton_distance) +
                  " is above 2^-16 (a double root: a nucleus nearby?)");
  r.ok = true;
  r.seconds = since(t0);
  return r;
}

}  // namespace ds::perturb::finder
