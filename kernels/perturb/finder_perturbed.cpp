// The nucleus finder's perturbed Newton orbits (finder_perturbed.h): deltas and derivatives along
// the orbit of C + dc against the seed's orbit. docs/finder.md.
#include "kernels/perturb/finder_perturbed.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace ds::perturb::finder::detail {
namespace {

DW plain_dw(FloatExp2 x) {
  if (x.hi == 0) return DW(0.0);
  return dw_pair(scaled(x.hi, x.e), scaled(x.lo, x.e));
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

// The derivatives dz/dc, d2z/dc2 and the product l = prod 2 z_i along a perturbed orbit, as complex
// doubles with powers of two of their own (dz/dc = d 2^ed, d2z/dc2 = h 2^eh, l = l 2^el), brought
// back near 1 every 8 steps: each grows or shrinks by about |2 z| <= 2^3 a step, far inside
// double's range over 8 steps, where FloatExp renormalises after every operation (several times
// the cost). eh >= 2 ed, so the d^2 term of h's recursion is scaled down (by dd = 2^(2 ed - eh));
// likewise the third derivative (t 2^et, t_{n+1} = 2 (z_n t_n + 3 d_n h_n), et >= ed + eh, dh =
// 2^(ed + eh - et)), for the constant of a third-order step (finder_nucleus.cpp).
//
// The size estimate 1 / (b l^2) with b = 1 + sum_{i<p} 1 / l_i needs no sum: l_n b_n follows
// z_p's derivative's recursion (l_n b_n = 2 z_n l_{n-1} b_{n-1} + 1, with l_0 b_0 = 1 = dz_1/dc),
// so b l = dz_p/dc and the size is 1 / (l dz_p/dc). The atom domain: the least |z_q| and dz_q/dc
// there.
struct Derivatives {
  double dr = 1, di = 0, hr = 0, hi = 0, tr = 0, ti = 0, lr = 1, li = 0;
  int64_t ed = 0, eh = 0, et = 0, el = 0;
  double dh = 1;      // 2^(ed + eh - et): d h at t's scale
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
    const double ntr = 2 * (zr * tr - zi * ti + 3 * dh * (dr * hr - di * hi));
    ti = 2 * (zr * ti + zi * tr + 3 * dh * (dr * hi + di * hr));
    tr = ntr;
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
    // (a, b) 2^e with the larger of |a|, |b| in [1, 2) (unchanged when both are 0 or not finite).
    auto normalise = [](double& a, double& b, int64_t& e) {
      const double m = std::max(std::fabs(a), std::fabs(b));
      if (!(m > 0 && std::isfinite(m))) return false;
      const int k = std::ilogb(m);
      const double s = std::ldexp(1.0, -k);
      a *= s, b *= s;
      e += k;
      return true;
    };
    if (normalise(dr, di, ed)) one = pow2_of(-ed);
    const double mh = std::max(std::fabs(hr), std::fabs(hi));
    const int64_t eh_new =
        std::max<int64_t>(mh > 0 && std::isfinite(mh) ? eh + std::ilogb(mh) : 2 * ed, 2 * ed);
    const double sh = pow2_of(eh - eh_new);
    hr *= sh, hi *= sh;
    eh = eh_new;
    dd = pow2_of(2 * ed - eh);
    const double mt = std::max(std::fabs(tr), std::fabs(ti));
    const int64_t et_new =
        std::max<int64_t>(mt > 0 && std::isfinite(mt) ? et + std::ilogb(mt) : ed + eh, ed + eh);
    const double st = pow2_of(et - et_new);
    tr *= st, ti *= st;
    et = et_new;
    dh = pow2_of(ed + eh - et);
    normalise(lr, li, el);
  }
  // The same step in FloatExp, for |z| beyond 2^40 or below 2^-500.
  void step_floatexp(CFe zf, uint32_t n, bool side) {
    CFe d = der(), h = second(), t = third(), l{FloatExp::make(lr, el), FloatExp::make(li, el)};
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
    const CFe zt = cmul(zf, t), dh3 = cmul(d, h);
    t = {mul_pow2(zt.re + dh3.re * 3.0, 1), mul_pow2(zt.im + dh3.im * 3.0, 1)};
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
    split(t, &tr, &ti, &et);
    split(l, &lr, &li, &el);
    renormalise();
  }
  CFe der() const { return {FloatExp::make(dr, ed), FloatExp::make(di, ed)}; }
  CFe second() const { return {FloatExp::make(hr, eh), FloatExp::make(hi, eh)}; }
  CFe third() const { return {FloatExp::make(tr, et), FloatExp::make(ti, et)}; }
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
  o.t = dv.third();
  if (side) {
    o.size = dv.size(p);
    o.zq = sqrt(dv.zq2);
    o.dq = dv.dq;
  }
  return o;
}

// The facts at T's width: in T's plain type where the seed's orbit and the deltas allow, else in T.
template <class T>
OrbitFacts orbit_facts_at(const SeedOrbit& Z, uint32_t p, C2 dc, bool side) {
  const bool filled = std::is_same_v<T, FloatExp> ? !Z.d.empty() : !Z.dw.empty();
  if (Z.plain && filled) {
    const OrbitFacts o = perturbed_orbit<typename Plain<T>::type>(Z, p, dc, side);
    if (!o.underflow) return o;
  }
  return perturbed_orbit<T>(Z, p, dc, side);
}

}  // namespace

void add_plain(SeedOrbit* s, DeltaWidth w) {
  const size_t n = s->fe2.size();
  if (w == DeltaWidth::k53) {
    for (const C2& z : s->fe2) {
      const bool zero = z.re.hi == 0 && z.im.hi == 0;
      // |Z_n| >= kPlainFloor or 0 (the exponent test: 1 <= |hi| < 2).
      if (!zero && !(z.re.hi != 0 && z.re.e >= -900) && !(z.im.hi != 0 && z.im.e >= -900)) return;
    }
    s->plain = true;
    s->d.resize(n);
    for (size_t i = 0; i < n; ++i) s->d[i] = {plain_double(s->fe2[i].re), plain_double(s->fe2[i].im)};
  } else if (s->plain && s->dw.empty()) {
    s->dw.resize(n);
    for (size_t i = 0; i < n; ++i) s->dw[i] = {plain_dw(s->fe2[i].re), plain_dw(s->fe2[i].im)};
  }
}

OrbitFacts orbit_facts(const SeedOrbit& Z, uint32_t p, C2 dc, bool side, DeltaWidth w) {
  return w == DeltaWidth::k53 ? orbit_facts_at<FloatExp>(Z, p, dc, side)
                              : orbit_facts_at<FloatExp2>(Z, p, dc, side);
}

}  // namespace ds::perturb::finder::detail
