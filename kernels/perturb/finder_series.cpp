// The nucleus finder's MPFR Newton steps of order 2 to 4 (finder_series.h). docs/finder.md.
#include "kernels/perturb/finder_series.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ds::perturb::finder::detail {
namespace {

// q <- f / g (complex; s1..s3 scratch).
void complex_div(MpC& q, const MpC& f, const MpC& g, Mpfr& s1, Mpfr& s2, Mpfr& s3) {
  mpfr_sqr(s3.v, g.re.v, MPFR_RNDN);  // |g|^2
  mpfr_fma(s3.v, g.im.v, g.im.v, s3.v, MPFR_RNDN);
  mpfr_mul(s1.v, f.re.v, g.re.v, MPFR_RNDN);  // f conj(g)
  mpfr_fma(s1.v, f.im.v, g.im.v, s1.v, MPFR_RNDN);
  mpfr_mul(s2.v, f.re.v, g.im.v, MPFR_RNDN);
  mpfr_fms(s2.v, f.im.v, g.re.v, s2.v, MPFR_RNDN);
  mpfr_div(q.re.v, s1.v, s3.v, MPFR_RNDN);
  mpfr_div(q.im.v, s2.v, s3.v, MPFR_RNDN);
}

// (rr, ri) <- x y (complex, at rr's and ri's precision; they must not alias x or y; s: scratch).
void complex_mul(Mpfr& rr, Mpfr& ri, const MpC& x, const MpC& y, Mpfr& s) {
  mpfr_mul(rr.v, x.re.v, y.re.v, MPFR_RNDN);
  mpfr_mul(s.v, x.im.v, y.im.v, MPFR_RNDN);
  mpfr_sub(rr.v, rr.v, s.v, MPFR_RNDN);
  mpfr_mul(ri.v, x.re.v, y.im.v, MPFR_RNDN);
  mpfr_mul(s.v, x.im.v, y.re.v, MPFR_RNDN);
  mpfr_add(ri.v, ri.v, s.v, MPFR_RNDN);
}
void complex_mul(MpC& r, const MpC& x, const MpC& y, Mpfr& s) { complex_mul(r.re, r.im, x, y, s); }

// x <- f exactly (a 53-bit FloatExp fits any MPFR precision of 53 bits or more).
void set_fe(Mpfr& x, FloatExp f) {
  mpfr_set_d(x.v, f.m, MPFR_RNDN);
  mpfr_mul_2si(x.v, x.v, f.e, MPFR_RNDN);
}

// log2 |x + iy| (x, y MPFR numbers; -inf at 0).
double log2_abs(const mpfr_t x, const mpfr_t y) {
  const bool rx = mpfr_regular_p(x), ry = mpfr_regular_p(y);
  if (!rx && !ry) return -INFINITY;
  long ex = 0, ey = 0;
  const double mx = rx ? mpfr_get_d_2exp(&ex, x, MPFR_RNDN) : 0.0;
  const double my = ry ? mpfr_get_d_2exp(&ey, y, MPFR_RNDN) : 0.0;
  const long e = !rx ? ey : !ry ? ex : std::max(ex, ey);
  const double a = rx ? std::ldexp(mx, static_cast<int>(std::max(ex - e, -2000L))) : 0.0;
  const double b = ry ? std::ldexp(my, static_cast<int>(std::max(ey - e, -2000L))) : 0.0;
  return static_cast<double>(e) + 0.5 * std::log2(a * a + b * b);
}
// An upper bound on log2 |x + iy| from the exponents alone (|x| < 2^EXP(x)).
double log2_abs_above(const mpfr_t x, const mpfr_t y) {
  const bool rx = mpfr_regular_p(x), ry = mpfr_regular_p(y);
  if (!rx && !ry) return -INFINITY;
  const long e = !rx ? mpfr_get_exp(y) : !ry ? mpfr_get_exp(x) : std::max(mpfr_get_exp(x), mpfr_get_exp(y));
  return static_cast<double>(e) + 0.5;
}

}  // namespace

std::vector<int> precision_schedule(const OrbitProfile& prev, FloatExp delta, int b, int bmin, uint32_t p) {
  std::vector<int> out;
  if (prev.lz.size() != p || prev.ld.size() != p || p < 2 || b <= bmin || !std::isfinite(prev.ldp))
    return out;
  const double ldelta = log2_of(delta);
  if (std::isnan(ldelta)) return out;
  // The products' change at c': first order, sum over k of delta |z_k'| / |z_k|.
  double r = 0;
  for (uint32_t k = 1; k < p; ++k) {
    if (!std::isfinite(prev.lz[k])) return out;  // z_k = 0: no bound on its change
    r += std::exp2(ldelta + prev.ld[k] - (prev.lz[k] - 1.0));
  }
  if (!(r <= 1.0 / 16)) return out;
  // z_m at b - floor(log2 |z_p'| - S_m) + G bits, S_m = log2 |prod_{k=m}^{p-1} 2 z_k| (the
  // profile's): its rounding, at most 2^-bits (16 + |c|) per coordinate (finder_detail.h), moves
  // Newton's step z_p / z_p' by at most 2^-(b + G) (16 + |c|) 2^0.5 2^0.1: with G = ceil(log2 p) +
  // 17, the p steps together at most 2^-(b + 17 - 5.1) for |c| < 8, about 2^-(b + 12) (1 of the 17
  // for z_p''s own change at c', which K |c' - c| bounds far below): 28 bits inside the working
  // precision's 2^-(b - 16) (the fixed-precision orbit's own rounding is of the order of 2^-b).
  const int G = schedule_guard(p);
  out.assign(static_cast<size_t>(p) + 1, b);
  double S = 0;
  int run = bmin;
  for (uint32_t m = p; m >= 1; --m) {
    if (m < p) S += prev.lz[m];
    run = std::max(run, scheduled_bits(b, bmin, G, prev.ldp - S));
    out[m] = run;
  }
  return out;
}

int schedule_guard(uint32_t p) { return static_cast<int>(std::ceil(std::log2(static_cast<double>(p)))) + 17; }

long needed_bits(int b, int G, double L) {
  return static_cast<long>(b) + G - static_cast<long>(std::floor(std::isfinite(L) ? L : -1e9));
}

int scheduled_bits(int b, int bmin, int G, double L) {
  const long req = std::min<long>(b, std::max<long>(bmin, needed_bits(b, G, L)));
  return static_cast<int>(std::min<long>(b, (req + 63) / 64 * 64));  // (MPFR's cost goes by limbs)
}

SeriesStep::SeriesStep(mpfr_prec_t b)
    : z_(b),
      d_(b),
      zr_(b),
      uq_(b),
      t1_(b),
      t2_(b),
      u1_(b),
      u2_(b),
      u3_(b),
      h_(64),
      zh_(64),
      dh_(64),
      qq_(64),
      w_(64),
      a_(64),
      b_(64),
      v1_(64),
      v2_(64),
      t_(64),
      zt_(64),
      dt_(64),
      ht_(64),
      q3_(64),
      cu_(64),
      x_(64),
      e1_(64),
      e2_(64),
      e3_(64),
      e4_(64),
      e5_(64) {}

// h <- 2 (z h + d^2) from z, d, h at n - 1.
void SeriesStep::second_step() {
  mpfr_mul(a_.v, zh_.re.v, h_.re.v, MPFR_RNDN);
  mpfr_mul(b_.v, zh_.im.v, h_.im.v, MPFR_RNDN);
  mpfr_sub(a_.v, a_.v, b_.v, MPFR_RNDN);
  mpfr_sqr(b_.v, dh_.re.v, MPFR_RNDN);
  mpfr_add(a_.v, a_.v, b_.v, MPFR_RNDN);
  mpfr_sqr(b_.v, dh_.im.v, MPFR_RNDN);
  mpfr_sub(a_.v, a_.v, b_.v, MPFR_RNDN);
  mpfr_mul(b_.v, zh_.re.v, h_.im.v, MPFR_RNDN);
  mpfr_mul(h_.im.v, zh_.im.v, h_.re.v, MPFR_RNDN);
  mpfr_add(h_.im.v, h_.im.v, b_.v, MPFR_RNDN);
  mpfr_mul(b_.v, dh_.re.v, dh_.im.v, MPFR_RNDN);
  mpfr_mul_2ui(b_.v, b_.v, 1, MPFR_RNDN);
  mpfr_add(h_.im.v, h_.im.v, b_.v, MPFR_RNDN);
  mpfr_mul_2ui(h_.im.v, h_.im.v, 1, MPFR_RNDN);
  mpfr_mul_2ui(h_.re.v, a_.v, 1, MPFR_RNDN);
}

// t <- 2 (z t + 3 d h) from z, d, h, t at n - 1.
void SeriesStep::third_step() {
  complex_mul(e1_, e2_, zt_, t_, e5_);   // z t
  complex_mul(e3_, e4_, dt_, ht_, e5_);  // d h
  mpfr_mul_ui(e3_.v, e3_.v, 3, MPFR_RNDN);
  mpfr_mul_ui(e4_.v, e4_.v, 3, MPFR_RNDN);
  mpfr_add(t_.re.v, e1_.v, e3_.v, MPFR_RNDN);
  mpfr_add(t_.im.v, e2_.v, e4_.v, MPFR_RNDN);
  mpfr_mul_2ui(t_.re.v, t_.re.v, 1, MPFR_RNDN);
  mpfr_mul_2ui(t_.im.v, t_.im.v, 1, MPFR_RNDN);
}

void SeriesStep::orbit(const MpC& c, uint32_t p, int order, int b, int bd, int bh, int bt,
                       const CFe* a2_given, const std::vector<int>* schedule) {
  order_ = order;
  profile_.lz.clear();
  profile_.ld.clear();
  if (schedule != nullptr && schedule->size() != static_cast<size_t>(p) + 1) schedule = nullptr;
  // z_n <- z_{n-1}^2 + c at the schedule's bits for n.
  int cur = b;
  auto orbit_step = [&](uint32_t n) {
    step_at_bits(schedule != nullptr ? (*schedule)[n] : cur, &cur, z_, zprev_, c, t1_, t2_);
  };
  a2_given_ = a2_given != nullptr && order == 3;
  set_prec({&z_.re, &z_.im, &t1_, &t2_}, b);
  set_prec({&d_.re, &d_.im, &zr_.re, &zr_.im, &u1_, &u2_, &u3_, &uq_.re, &uq_.im}, bd);
  z_.zero();
  d_.zero();
  zr_.zero();
  if (order >= 3) {
    set_prec({&h_, &zh_, &dh_, &qq_, &w_}, bh);
    set_prec({&a_, &b_, &v1_, &v2_}, bh);
    h_.zero();
    zh_.zero();
    dh_.zero();
  }
  if (order >= 4) {
    set_prec({&t_, &zt_, &dt_, &ht_, &q3_, &cu_, &x_}, bt);
    set_prec({&e1_, &e2_, &e3_, &e4_, &e5_}, bt);
    t_.zero();
    zt_.zero();
    dt_.zero();
    ht_.zero();
  }
  if (a2_given_) {  // 2 a2, as update() takes it from h / g
    set_fe(qq_.re, mul_pow2(a2_given->re, 1));
    set_fe(qq_.im, mul_pow2(a2_given->im, 1));
    order = 2;  // no MPFR recursion for h
  }
  // Where only dz/dc is iterated and it fits a few limbs, in fixed point (finder_derivative.h):
  // MPFR's per-call cost made it as dear as the orbit at several times its bits. So is the orbit
  // where it fits kFixedOrbitMaxLimbs (finder_fixed_orbit.h: no more rounding per step than MPFR
  // at b); should it leave |z| < 4, it is run again in MPFR (as the seed's, it is not expected to).
  const int limbs = FixedDerivative::limbs_for(bd);
  if (order == 2 && limbs <= kFixedDerivativeMaxLimbs) {
    const int zlimbs = FixedOrbit::limbs_for(b);
    if (zlimbs <= kFixedOrbitMaxLimbs && fixed_z_.reset(c.re.v, c.im.v, zlimbs)) {
      const FixedOrbit& z = fixed_z_;
      fixed_.reset(limbs);
      bool inside = true;
      for (uint32_t n = 1; n <= p && inside; ++n) {
        fixed_.step(z.re_limbs(), z.re_negative(), z.im_limbs(), z.im_negative(), z.limbs(),
                    z.fraction_bits());
        inside = fixed_z_.step();
      }
      if (inside) {
        fixed_z_.get(z_.re.v, z_.im.v);
        fixed_.get(d_.re.v, d_.im.v);
        return;
      }
    }
    fixed_.reset(limbs);
    for (uint32_t n = 1; n <= p; ++n) {
      fixed_.step(z_.re.v, z_.im.v);  // d_n = 2 z_{n-1} d_{n-1} + 1
      orbit_step(n);
    }
    fixed_.get(d_.re.v, d_.im.v);
    return;
  }
  // (Gauss's three products for d from kGaussDerivativeBits: finder_detail.h.)
  const bool gauss = bd >= kGaussDerivativeBits;
  profile_.lz.assign(p, -INFINITY);  // (z_0 = 0, dz_0/dc = 0)
  profile_.ld.assign(p, -INFINITY);
  for (uint32_t n = 1; n <= p; ++n) {
    if (order >= 4) third_step();        // t_n from z, d, h, t at n - 1
    if (order >= 3) second_step();       // h_n from z, d, h at n - 1
    // d_n = 2 z_{n-1} d_{n-1} + 1
    if (gauss)
      derivative_step_gauss(d_, zr_, u1_, u2_, u3_);
    else
      derivative_step(d_, zr_, u1_, u2_);
    orbit_step(n);
    if (n < p) {
      profile_.lz[n] = 1.0 + log2_abs(z_.re.v, z_.im.v);
      profile_.ld[n] = log2_abs_above(d_.re.v, d_.im.v);
    }
    copy(zr_, z_);
    if (order >= 3) {
      copy(zh_, z_);
      copy(dh_, d_);
    }
    if (order >= 4) {
      copy(zt_, z_);
      copy(dt_, d_);
      copy(ht_, h_);
    }
  }
  profile_.ldp = log2_abs(d_.re.v, d_.im.v);
}

FloatExp SeriesStep::newton_distance() const {
  return mag(to_fe(z_.re.v), to_fe(z_.im.v)) / mag(to_fe(d_.re.v), to_fe(d_.im.v));
}

void SeriesStep::update(MpC& c) {
  if (order_ <= 2) {  // Newton's step as it always was
    newton_update(c, z_, d_, u1_, u2_, u3_);
    return;
  }
  complex_div(uq_, z_, d_, u1_, u2_, u3_);  // u
  mpfr_sub(c.re.v, c.re.v, uq_.re.v, MPFR_RNDN);
  mpfr_sub(c.im.v, c.im.v, uq_.im.v, MPFR_RNDN);
  if (!a2_given_) complex_div(qq_, h_, d_, a_, b_, v1_);  // 2 a2 = h / g
  mpfr_sqr(v1_.v, uq_.re.v, MPFR_RNDN);                   // w = u^2
  mpfr_sqr(v2_.v, uq_.im.v, MPFR_RNDN);
  mpfr_mul(w_.im.v, uq_.re.v, uq_.im.v, MPFR_RNDN);
  mpfr_mul_2ui(w_.im.v, w_.im.v, 1, MPFR_RNDN);
  mpfr_sub(w_.re.v, v1_.v, v2_.v, MPFR_RNDN);
  complex_mul(h_, qq_, w_, v1_);  // 2 a2 u^2 (h is not needed again)
  mpfr_div_2ui(h_.re.v, h_.re.v, 1, MPFR_RNDN);
  mpfr_div_2ui(h_.im.v, h_.im.v, 1, MPFR_RNDN);
  mpfr_sub(c.re.v, c.re.v, h_.re.v, MPFR_RNDN);
  mpfr_sub(c.im.v, c.im.v, h_.im.v, MPFR_RNDN);
  if (order_ < 4) return;
  complex_div(q3_, t_, d_, e1_, e2_, e3_);       // 6 a3 = t / g
  complex_mul(x_, qq_, qq_, e1_);                // (2 a2)^2
  mpfr_div_2ui(x_.re.v, x_.re.v, 1, MPFR_RNDN);  // 2 a2^2 - a3 = (2 a2)^2 / 2 - (6 a3) / 6
  mpfr_div_2ui(x_.im.v, x_.im.v, 1, MPFR_RNDN);
  mpfr_div_ui(q3_.re.v, q3_.re.v, 6, MPFR_RNDN);
  mpfr_div_ui(q3_.im.v, q3_.im.v, 6, MPFR_RNDN);
  mpfr_sub(x_.re.v, x_.re.v, q3_.re.v, MPFR_RNDN);
  mpfr_sub(x_.im.v, x_.im.v, q3_.im.v, MPFR_RNDN);
  complex_mul(cu_, w_, uq_, e1_);  // u^3
  complex_mul(q3_, x_, cu_, e1_);  // (2 a2^2 - a3) u^3
  mpfr_sub(c.re.v, c.re.v, q3_.re.v, MPFR_RNDN);
  mpfr_sub(c.im.v, c.im.v, q3_.im.v, MPFR_RNDN);
}

}  // namespace ds::perturb::finder::detail
