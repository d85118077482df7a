// The feature finder's nucleus (finder.h, find_nucleus): Newton's method by perturbation against
// the seed's MPFR orbit (53-bit, then 106-bit deltas), then MPFR steps with precision doubling;
// the size, orientation and atom domain. docs/finder.md.
#include <cmath>
#include <type_traits>
#include <vector>

#include "arith/expansion.h"
#include "kernels/perturb/finder.h"
#include "kernels/perturb/finder_detail.h"

namespace ds::perturb::finder {
namespace {

using namespace detail;

// The complex floatexp2 arithmetic of the perturbation steps.
struct C2 {
  FloatExp2 re, im;
};

// The perturbation steps' deltas: 53 bits for the first Newton steps, 106 for the last; each
// width in floatexp (any depth) and in plain doubles (double, f64x2) where no delta falls below
// kPlainFloor (below).
template <class T>
struct CT {
  T re, im;
};
using DW = Expansion<2>;

// The plain types' floor: a value at or above 2^-900 loses nothing to underflow in double or
// f64x2 (f64x2's low word is then above 2^-1008, still normal), and the absolute error of a value
// flushed to zero or a subnormal (2^-1075) is 2^-175 of anything at the floor: below both
// widths' rounding. A delta below it (none at views shallower than 2^-900 in practice) sends
// that orbit back to floatexp.
constexpr double kPlainFloor = 0x1p-900;

// The seed's orbit Z_0 .. Z_last in floatexp2, and as complex doubles and f64x2 where every Z_n
// is 0 or has a coordinate at least kPlainFloor (`plain`).
struct SeedOrbit {
  std::vector<C2> fe2;
  std::vector<CT<double>> d;
  std::vector<CT<DW>> dw;
  bool plain = false;
};
double plain_double(FloatExp2 x) { return x.hi == 0 ? 0.0 : std::ldexp(x.hi + x.lo, x.e); }
DW plain_dw(FloatExp2 x) {
  if (x.hi == 0) return DW(0.0);
  return dw_pair(std::ldexp(x.hi, x.e), std::ldexp(x.lo, x.e));
}
void add_plain(SeedOrbit* s) {
  for (const C2& z : s->fe2) {
    const bool zero = z.re.hi == 0 && z.im.hi == 0;
    // |Z_n| >= kPlainFloor or 0 (the exponent test: 1 <= |hi| < 2).
    if (!zero && !(z.re.hi != 0 && z.re.e >= -900) && !(z.im.hi != 0 && z.im.e >= -900)) return;
  }
  s->d.reserve(s->fe2.size());
  s->dw.reserve(s->fe2.size());
  for (const C2& z : s->fe2) {
    s->d.push_back({plain_double(z.re), plain_double(z.im)});
    s->dw.push_back({plain_dw(z.re), plain_dw(z.im)});
  }
  s->plain = true;
}

// The seed's point m and the delta dc at T's width.
template <class T>
CT<T> seed_at(const SeedOrbit& s, uint32_t m);
template <>
CT<FloatExp> seed_at<FloatExp>(const SeedOrbit& s, uint32_t m) {
  return {to_floatexp(s.fe2[m].re), to_floatexp(s.fe2[m].im)};
}
template <>
CT<FloatExp2> seed_at<FloatExp2>(const SeedOrbit& s, uint32_t m) {
  return {s.fe2[m].re, s.fe2[m].im};
}
template <>
CT<double> seed_at<double>(const SeedOrbit& s, uint32_t m) {
  return s.d[m];
}
template <>
CT<DW> seed_at<DW>(const SeedOrbit& s, uint32_t m) {
  return s.dw[m];
}
template <class T>
T narrow(FloatExp2 x);
template <>
FloatExp narrow<FloatExp>(FloatExp2 x) {
  return to_floatexp(x);
}
template <>
FloatExp2 narrow<FloatExp2>(FloatExp2 x) {
  return x;
}
template <>
double narrow<double>(FloatExp2 x) {
  return plain_double(x);
}
template <>
DW narrow<DW>(FloatExp2 x) {
  return plain_dw(x);
}
// The plain type of a floatexp type's width.
template <class T>
struct Plain;
template <>
struct Plain<FloatExp> {
  using type = double;
};
template <>
struct Plain<FloatExp2> {
  using type = DW;
};
template <class T>
constexpr bool kIsPlain = std::is_same_v<T, double> || std::is_same_v<T, DW>;

double lead(double x) { return x; }
double lead(const DW& x) { return x.t[0]; }
// |x|_1 for the rebasing test (its rounding does not matter there).
double norm1(const CT<double>& x) { return std::fabs(x.re) + std::fabs(x.im); }
double norm1(const CT<DW>& x) { return std::fabs(x.re.t[0]) + std::fabs(x.im.t[0]); }
FloatExp norm1(const CT<FloatExp>& x) { return abs(x.re) + abs(x.im); }
FloatExp2 norm1(const CT<FloatExp2>& x) { return abs(x.re) + abs(x.im); }
template <class T>
T twice(const T& x) {
  return mul_pow2(x, 1);
}
double twice(double x) { return 2 * x; }
// A nonzero plain delta below the floor.
template <class T>
bool below_floor(const CT<T>& x) {
  if constexpr (kIsPlain<T>) {
    const double m = std::max(std::fabs(lead(x.re)), std::fabs(lead(x.im)));
    return m < kPlainFloor && m != 0;
  } else {
    return false;
  }
}

FloatExp as_fe(FloatExp x) { return x; }
FloatExp as_fe(FloatExp2 x) { return to_floatexp(x); }
FloatExp as_fe(double x) { return FloatExp(x); }
FloatExp as_fe(const DW& x) { return FloatExp(x.t[0]); }

// What an orbit of p steps gives Newton's method, in floatexp: f = z_p, g = dz_p/dc,
// h = d2z_p/dc2 (for K = |h / 2g|, the constant of the quadratic convergence), and with `side`
// the size estimate 1 / (b l^2) (finder.h) and the atom domain's |z_q|, |dz_q/dc|.
struct OrbitFacts {
  CFe f{FloatExp(0.0), FloatExp(0.0)}, g = f, h = f, size = f;
  FloatExp zq{0.0}, dq{0.0};
  bool underflow = false;  // a plain delta fell below kPlainFloor: redo in floatexp
};

// The derivatives dz/dc, d2z/dc2 and the product l = prod 2 z_i along a perturbed orbit, as complex
// doubles with powers of two of their own (dz/dc = d 2^ed, d2z/dc2 = h 2^eh, l = l 2^el), brought
// back near 1 every 8 steps: each grows or shrinks by about |2 z| <= 2^3 a step, far inside
// double's range over 8 steps, where FloatExp renormalises after every operation (several times
// the cost). eh >= 2 ed, so the d^2 term of h's recursion is scaled down (by dd = 2^(2 ed - eh)).
//
// The size estimate 1 / (b l^2) with b = 1 + sum_{i<p} 1 / l_i needs no sum: l_n b_n follows
// z_p's derivative's recursion (l_n b_n = 2 z_n l_{n-1} b_{n-1} + 1, with l_0 b_0 = 1 = dz_1/dc),
// so b l = dz_p/dc and the size is 1 / (l dz_p/dc). The atom domain: the least |z_q| and dz_q/dc
// there.
struct Derivatives {
  double dr = 1, di = 0, hr = 0, hi = 0, lr = 1, li = 0;
  int64_t ed = 0, eh = 0, el = 0;
  double one = 1;     // 2^-ed: the +1 of dz/dc's recursion at d's scale
  double dd = 1;      // 2^(2 ed - eh): d^2 at h's scale
  FloatExp zq2{0.0};  // the least |z_q|^2 so far, and |dz_q/dc| there
  double zq2_d = 0;   // zq2 as a double (0 where it underflows: then no double |z|^2 is less)
  FloatExp dq{0.0};

  // From z_n (n < p): dz_{n+1}/dc, d2z_{n+1}/dc2, and with `side` l and the atom domain.
  void step(FloatExp zre, FloatExp zim, uint32_t n, bool side) {
    const double zr = to_double(zre), zi = to_double(zim), za = std::max(std::fabs(zr), std::fabs(zi));
    // Beyond 2^40 (an escaping orbit) 8 steps in doubles could overflow; below 2^-500, |z|^2 and
    // z d could underflow: those steps in floatexp.
    if (!(za < 0x1p40 && za > 0x1p-500)) {
      step_floatexp(CFe{zre, zim}, n, side);
      return;
    }
    step_double(zr, zi, n, side);
  }
  // The same from a plain z (at least kPlainFloor: FloatExp(z) is exact).
  void step(double zr, double zi, uint32_t n, bool side) {
    const double za = std::max(std::fabs(zr), std::fabs(zi));
    if (!(za < 0x1p40 && za > 0x1p-500)) {
      step_floatexp(CFe{FloatExp(zr), FloatExp(zi)}, n, side);
      return;
    }
    step_double(zr, zi, n, side);
  }
  void step_double(double zr, double zi, uint32_t n, bool side) {
    if (side) {
      const double az2 = zr * zr + zi * zi;
      if (n == 1 || az2 < zq2_d) {
        zq2_d = az2;
        zq2 = FloatExp(az2);
        dq = FloatExp::make(std::sqrt(dr * dr + di * di), ed);
      }
      const double t = 2 * (zr * lr - zi * li);
      li = 2 * (zr * li + zi * lr);
      lr = t;
    }
    const double nhr = 2 * (zr * hr - zi * hi + dd * (dr * dr - di * di));
    hi = 2 * (zr * hi + zi * hr + dd * 2 * dr * di);
    hr = nhr;
    const double ndr = 2 * (zr * dr - zi * di) + one;
    di = 2 * (zr * di + zi * dr);
    dr = ndr;
    if ((n & 7) == 0) renormalise();
  }
  void renormalise() {
    auto pow2_of = [](int64_t k) {
      return std::ldexp(1.0, static_cast<int>(std::max<int64_t>(-2000, std::min<int64_t>(2000, k))));
    };
    const double m = std::max(std::fabs(dr), std::fabs(di));
    if (m > 0 && std::isfinite(m)) {
      const int k = std::ilogb(m);
      const double s = std::ldexp(1.0, -k);
      dr *= s, di *= s;
      ed += k;
      one = pow2_of(-ed);
    }
    const double mh = std::max(std::fabs(hr), std::fabs(hi));
    const int64_t eh_new =
        std::max<int64_t>(mh > 0 && std::isfinite(mh) ? eh + std::ilogb(mh) : 2 * ed, 2 * ed);
    const double sh = pow2_of(eh - eh_new);
    hr *= sh, hi *= sh;
    eh = eh_new;
    dd = pow2_of(2 * ed - eh);
    const double ml = std::max(std::fabs(lr), std::fabs(li));
    if (ml > 0 && std::isfinite(ml)) {
      const int k = std::ilogb(ml);
      const double s = std::ldexp(1.0, -k);
      lr *= s, li *= s;
      el += k;
    }
  }
  // The same step in FloatExp, for |z| beyond 2^40 or below 2^-500.
  void step_floatexp(CFe zf, uint32_t n, bool side) {
    CFe d = der(), h = second(), l{FloatExp::make(lr, el), FloatExp::make(li, el)};
    if (side) {
      const FloatExp az2 = sqr(zf.re) + sqr(zf.im);
      if (n == 1 || az2 < zq2) {
        zq2 = az2;
        zq2_d = to_double(az2);
        dq = cabs(d);
      }
      const CFe u = cmul(zf, l);
      l = {mul_pow2(u.re, 1), mul_pow2(u.im, 1)};
    }
    const CFe zh = cmul(zf, h), d2 = cmul(d, d), zd = cmul(zf, d);
    h = {mul_pow2(zh.re + d2.re, 1), mul_pow2(zh.im + d2.im, 1)};
    d = {mul_pow2(zd.re, 1) + FloatExp(1.0), mul_pow2(zd.im, 1)};
    // Back to doubles with their own powers of two.
    auto split = [](CFe x, double* a, double* b, int64_t* e) {
      *e = std::max(x.re.m != 0 ? x.re.e : INT64_MIN / 4, x.im.m != 0 ? x.im.e : INT64_MIN / 4);
      if (*e == INT64_MIN / 4) *e = 0;
      *a = x.re.m == 0 ? 0.0 : std::ldexp(x.re.m, static_cast<int>(std::max<int64_t>(-2000, x.re.e - *e)));
      *b = x.im.m == 0 ? 0.0 : std::ldexp(x.im.m, static_cast<int>(std::max<int64_t>(-2000, x.im.e - *e)));
    };
    split(d, &dr, &di, &ed);
    split(h, &hr, &hi, &eh);
    split(l, &lr, &li, &el);
    renormalise();
  }
  CFe der() const { return {FloatExp::make(dr, ed), FloatExp::make(di, ed)}; }
  CFe second() const { return {FloatExp::make(hr, eh), FloatExp::make(hi, eh)}; }
  CFe size(uint32_t p) const {
    if (p == 1) return {FloatExp(1.0), FloatExp(0.0)};
    return cinv(cmul(der(), CFe{FloatExp::make(lr, el), FloatExp::make(li, el)}));
  }
};

// Newton's step for z_p(c) = 0 by perturbation: the orbit of C + dc from the seed's points Z (up
// to p, or to where the seed escaped: rebasing restarts at Z_0 there, as in perturb.cuh), with
// the derivatives in floatexp. With a plain T, `underflow` is set (and the facts are not to be
// used) where a delta fell below kPlainFloor.
template <class T>
OrbitFacts perturbed_orbit(const SeedOrbit& Z, uint32_t p, C2 dc2, bool side) {
  OrbitFacts o;
  Derivatives dv;  // dz_1/dc = 1, d2z_1/dc2 = 0
  const uint32_t last = static_cast<uint32_t>(Z.fe2.size()) - 1;
  const CT<T> dc{narrow<T>(dc2.re), narrow<T>(dc2.im)};
  if constexpr (kIsPlain<T>) {
    const bool zero = dc2.re.hi == 0 && dc2.im.hi == 0;
    if (!zero && !(dc2.re.hi != 0 && dc2.re.e >= -900) && !(dc2.im.hi != 0 && dc2.im.e >= -900)) {
      o.underflow = true;
      return o;
    }
  }
  CT<T> d = dc;  // z_1 = c = Z_1 + dc
  uint32_t m = 1;
  for (uint32_t n = 1; n < p; ++n) {
    const CT<T> zm = seed_at<T>(Z, m);
    CT<T> z{zm.re + d.re, zm.im + d.im};
    if (m >= last || norm1(z) < norm1(d)) {
      d = z;
      m = 0;
    }
    // Unless rebased, |z|_1 >= |d|_1: checking d covers z.
    if (below_floor(d)) {
      o.underflow = true;
      return o;
    }
    if constexpr (kIsPlain<T>)
      dv.step(lead(z.re), lead(z.im), n, side);
    else
      dv.step(as_fe(z.re), as_fe(z.im), n, side);
    const CT<T> a = seed_at<T>(Z, m);
    const T tr = twice(a.re) + d.re, ti = twice(a.im) + d.im;
    const CT<T> nd{(tr * d.re - ti * d.im) + dc.re, (tr * d.im + ti * d.re) + dc.im};
    d = nd;
    ++m;
  }
  const CT<T> zp = seed_at<T>(Z, m);
  o.f = CFe{as_fe(zp.re + d.re), as_fe(zp.im + d.im)};
  o.g = dv.der();
  o.h = dv.second();
  if (side) {
    o.size = dv.size(p);
    o.zq = sqrt(dv.zq2);
    o.dq = dv.dq;
  }
  return o;
}

// The facts by T's width (FloatExp: 53 bits, FloatExp2: 106): in plain doubles where the seed's
// orbit and the deltas allow (the same rounding per operation, several times cheaper), else in T.
template <class T>
OrbitFacts orbit_facts(const SeedOrbit& Z, uint32_t p, C2 dc, bool side) {
  if (Z.plain) {
    const OrbitFacts o = perturbed_orbit<typename Plain<T>::type>(Z, p, dc, side);
    if (!o.underflow) return o;
  }
  return perturbed_orbit<T>(Z, p, dc, side);
}

// The orbit of c in MPFR at z's precision, and dz/dc in MPFR at d's (lower) precision, enough
// for the bits this Newton step gains: a derivative good to 2^-q leaves an error 2^-q of the step
// (53-bit floatexp held each step to about 45 bits). zr, u1, u2: scratch at d's precision, t1, t2
// at z's. The size, the atom domain and K come from the perturbed steps (their c is within the
// step of this one: the estimates do not change).
void mpfr_orbit(const MpC& c, uint32_t p, MpC& z, MpC& d, MpC& zr, Mp& t1, Mp& t2, Mp& u1, Mp& u2) {
  z.zero();
  d.zero();
  zr.zero();
  for (uint32_t n = 1; n <= p; ++n) {
    derivative_step(d, zr, u1, u2);  // d_n = 2 z_{n-1} d_{n-1} + 1
    step(z, c, t1, t2);
    mpfr_set(zr.re.v, z.re.v, MPFR_RNDN);
    mpfr_set(zr.im.v, z.im.v, MPFR_RNDN);
  }
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
  CFe size{FloatExp(0.0), FloatExp(0.0)};  // with `side`: the last orbit's size estimate
  FloatExp zq{0.0}, dq{0.0};               // and its atom domain's |z_q|, |dz_q/dc|
};

// Newton steps by perturbation with T-wide deltas from *dc: until the step is within
// 2^-stop_bits of the distance moved (converged at T's precision) or below `floor` (the seed
// orbit's precision), or the step's own result K s^2 is already below the deltas' rounding
// (2^-rounding_bits of the distance: another step at this width would only measure that rounding,
// as the 53-bit stage's second step did at every bench location), or stops halving after the
// first free_steps. kFailed with out->message when a step is not finite or leaves `far`.
template <class T>
PerturbedNewton perturbed_newton(const SeedOrbit& Z, uint32_t period, FloatExp far, int stop_bits,
                                 int rounding_bits, int free_steps, FloatExp floor, bool side,
                                 const std::atomic<bool>* cancel, C2* dc, Nucleus* out) {
  PerturbedNewton r;
  for (int k = 0; k < 64; ++k) {
    const OrbitFacts o = orbit_facts<T>(Z, period, *dc, side);
    ++out->perturbed_steps;
    const CFe stepc = cmul(o.f, cinv(o.g));
    const FloatExp s = cabs(stepc);
    r.k = cabs(o.h) / mul_pow2(cabs(o.g), 1);
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
      const double x = to_double(zr), y = to_double(zi);
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
      perturbed_newton<FloatExp>(Z, period, far, 40, 43, 3, seed_floor, true, cancel, &dc, &out);
  if (pert.stage == NewtonStage::kCancelled) {
    out.seconds = since(t0);
    return out;
  }
  FloatExp err = error_after(pert, 43);
  if (pert.stage != NewtonStage::kFailed) {
    const FloatExp target = cmag0 * pow2(-(bits_for_size(cabs(pert.size)) - 16));
    if (!(pert.k * sqr(err) <= target * pow2(-kMarginBits)) && err > seed_floor * pow2(8)) {
      pert = perturbed_newton<FloatExp2>(Z, period, far, 100, 96, 1, seed_floor, true, cancel, &dc, &out);
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
  int b_final = bits_for_size(cabs(pert.size));
  MpC c(b_final), z(b_final), d(b_final), zr(b_final);
  Mp t1(b_final), t2(b_final), u1(b_final), u2(b_final), u3(b_final);
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
  const FloatExp K = pert.k;
  for (int k = 0; k < 16; ++k) {
    if (cancelled(cancel)) {
      out.cancelled = true;
      break;
    }
    const FloatExp cmag = mag(to_fe(c.re.v), to_fe(c.im.v));
    const FloatExp scale = cmag > out.size ? cmag : out.size;
    const FloatExp target = scale * pow2(-(b_final - 16));
    FloatExp want = K * sqr(err);  // this step's expected result
    if (!(want > target * pow2(-kMarginBits))) want = target * pow2(-kMarginBits);
    int b = b_final;
    if (std::isfinite(log2_of(want)))
      b = std::min(b_final,
                   std::max(bits + 32, static_cast<int>(std::ceil(log2_of(cmag) - log2_of(want))) + 32));
    // The derivative: good to the bits gained (err / want) and a guard for p steps of rounding.
    int bd = b;
    if (std::isfinite(log2_of(want)) && std::isfinite(log2_of(err)))
      bd = std::min(b, std::max(64, static_cast<int>(std::ceil(log2_of(err) - log2_of(want))) + 48 +
                                        static_cast<int>(std::log2(static_cast<double>(period)))));
    for (Mp* m : {&z.re, &z.im, &t1, &t2}) mpfr_set_prec(m->v, b);
    for (Mp* m : {&d.re, &d.im, &zr.re, &zr.im, &u1, &u2, &u3}) mpfr_set_prec(m->v, bd);
    mpfr_orbit(c, period, z, d, zr, t1, t2, u1, u2);
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
    newton_update(c, z, d, u1, u2, u3);
    // The step's result: K s^2 from the quadratic term, s 2^-(bd - 16 - log2 p) from the
    // derivative's rounding.
    FloatExp predicted = K * sqr(s);
    const FloatExp rounding = s * pow2(-(bd - 16 - static_cast<int>(std::log2(static_cast<double>(period)))));
    if (rounding > predicted) predicted = rounding;
    if (b == b_final && predicted <= target * pow2(-kMarginBits) && K * s <= pow2(-16)) {
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
