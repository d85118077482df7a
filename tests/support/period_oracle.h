// The tests' own check of what the finder reports (kernels/perturb/finder.h), by direct MPFR
// iteration and nothing of the finder's: the Newton distance |z_n / z_n'| at every proper divisor n
// of the period and at the period itself, the size 1 / (l z_p') (l = prod_{i<p} 2 z_i), and the
// Misiurewicz relation z_{q+p} = z_q at a pair and at the pairs below it.
#pragma once
#include <mpfr.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "arith/mpfr_number.h"

namespace ds::test {

// ds::Mpfr passed to MPFR's functions as it is.
struct MpNum : Mpfr {
  explicit MpNum(mpfr_prec_t p) : Mpfr(p) {}
  operator mpfr_ptr() { return v; }
};

// log2 |x| for an MPFR number (-1e9 at 0).
inline double mp_log2_abs(mpfr_ptr x) {
  if (mpfr_zero_p(x)) return -1e9;
  long e = 0;
  const double m = mpfr_get_d_2exp(&e, x, MPFR_RNDN);
  return std::log2(std::fabs(m)) + static_cast<double>(e);
}
inline double mp_log2_hypot(mpfr_ptr a, mpfr_ptr b, mpfr_ptr tmp) {
  mpfr_hypot(tmp, a, b, MPFR_RNDN);
  return mp_log2_abs(tmp);
}

// The orbit z_0 = 0, z_{n+1} = z_n^2 + c and z_n' in MPFR at `bits`, to n = `steps` or its escape
// (|z| > 2). n_log2_newton[n] = log2 |z_n / z_n'| (n >= 1), log2_size = log2 |1 / (l z_steps')|.
struct OracleOrbit {
  bool escaped = false;
  std::vector<double> log2_newton;  // index n = 1 .. steps
  double log2_size = 0;
};
inline OracleOrbit oracle_orbit(const std::string& re, const std::string& im, uint32_t steps, int bits) {
  MpNum cr(bits), ci(bits), x(bits), y(bits), dx(bits), dy(bits), t(bits), u(bits), v(bits), lr(bits),
      li(bits);
  mpfr_set_str(cr, re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(ci, im.c_str(), 10, MPFR_RNDN);
  mpfr_set_zero(x, 1);
  mpfr_set_zero(y, 1);
  mpfr_set_zero(dx, 1);
  mpfr_set_zero(dy, 1);
  mpfr_set_ui(lr, 1, MPFR_RNDN);
  mpfr_set_zero(li, 1);
  OracleOrbit o;
  o.log2_newton.assign(steps + 1, 0.0);
  for (uint32_t n = 1; n <= steps; ++n) {
    // z' <- 2 z z' + 1
    mpfr_mul(t, x, dx, MPFR_RNDN);
    mpfr_mul(u, y, dy, MPFR_RNDN);
    mpfr_sub(t, t, u, MPFR_RNDN);
    mpfr_mul(u, x, dy, MPFR_RNDN);
    mpfr_mul(v, y, dx, MPFR_RNDN);
    mpfr_add(u, u, v, MPFR_RNDN);
    mpfr_mul_2ui(dx, t, 1, MPFR_RNDN);
    mpfr_add_ui(dx, dx, 1, MPFR_RNDN);
    mpfr_mul_2ui(dy, u, 1, MPFR_RNDN);
    // z <- z^2 + c
    mpfr_sqr(t, x, MPFR_RNDN);
    mpfr_sqr(u, y, MPFR_RNDN);
    mpfr_mul(v, x, y, MPFR_RNDN);
    mpfr_sub(x, t, u, MPFR_RNDN);
    mpfr_add(x, x, cr, MPFR_RNDN);
    mpfr_mul_2ui(v, v, 1, MPFR_RNDN);
    mpfr_add(y, v, ci, MPFR_RNDN);
    const double lz = mp_log2_hypot(x, y, t);
    if (lz > 1.0) {
      o.escaped = true;
      o.log2_newton.resize(n);
      return o;
    }
    o.log2_newton[n] = lz - mp_log2_hypot(dx, dy, t);
    if (n < steps) {  // l <- l 2 z
      mpfr_mul(t, lr, x, MPFR_RNDN);
      mpfr_mul(u, li, y, MPFR_RNDN);
      mpfr_sub(t, t, u, MPFR_RNDN);
      mpfr_mul(u, lr, y, MPFR_RNDN);
      mpfr_mul(v, li, x, MPFR_RNDN);
      mpfr_add(u, u, v, MPFR_RNDN);
      mpfr_mul_2ui(lr, t, 1, MPFR_RNDN);
      mpfr_mul_2ui(li, u, 1, MPFR_RNDN);
    }
  }
  o.log2_size = -(mp_log2_hypot(lr, li, t) + mp_log2_hypot(dx, dy, u));
  return o;
}

inline std::vector<uint32_t> oracle_proper_divisors(uint32_t p) {
  std::vector<uint32_t> d;
  for (uint32_t k = 1; k < p; ++k)
    if (p % k == 0) d.push_back(k);
  return d;
}

// The verdict on a reported nucleus of period p and size 2^log2_size_reported: "" when the test's
// own orbit agrees, else what is wrong. The nucleus must be a root to far below its size
// (|z_p / z_p'| <= 2^-40 |size|), no proper divisor d a root at that scale (|z_d / z_d'| >= 2^-20
// |size|: at a nucleus of least period p, about the distance to another nucleus, beyond the
// minibrot), and the size the reported one within 1%.
inline std::string check_reported_nucleus(const std::string& re, const std::string& im, uint32_t p,
                                          double log2_size_reported, int bits) {
  const OracleOrbit o = oracle_orbit(re, im, p, bits);
  if (o.escaped) return "the orbit escapes at step " + std::to_string(o.log2_newton.size());
  const double ls = o.log2_size;
  if (!(o.log2_newton[p] <= ls - 40))
    return "|z_p/z_p'| = 2^" + std::to_string(o.log2_newton[p]) + ", size 2^" + std::to_string(ls);
  for (uint32_t d : oracle_proper_divisors(p))
    if (!(o.log2_newton[d] >= ls - 20))
      return "period " + std::to_string(p) + " is not least: |z_d/z_d'| = 2^" +
             std::to_string(o.log2_newton[d]) + " at d = " + std::to_string(d) + ", size 2^" +
             std::to_string(ls);
  if (!(std::fabs(ls - log2_size_reported) < std::log2(1.01)))
    return "size 2^" + std::to_string(ls) + ", reported 2^" + std::to_string(log2_size_reported);
  return "";
}

// The verdict on a reported Misiurewicz point of preperiod q, period p, iterated at `bits` (above
// the point's digits): |z_{q+p} - z_q| <= 2^log2_tol, and at (q - 1, p) and (q, d) for proper
// divisors d of p the difference at least 2^-20. "" when so.
inline std::string check_reported_misiurewicz(const std::string& re, const std::string& im, int q, int p,
                                              int bits, double log2_tol) {
  const int n = q + p;
  std::vector<MpNum*> xs, ys;
  MpNum cr(bits), ci(bits), t(bits), u(bits), v(bits);
  mpfr_set_str(cr, re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(ci, im.c_str(), 10, MPFR_RNDN);
  std::vector<std::unique_ptr<MpNum>> keep;
  for (int k = 0; k <= n; ++k) {
    keep.push_back(std::make_unique<MpNum>(bits));
    xs.push_back(keep.back().get());
    keep.push_back(std::make_unique<MpNum>(bits));
    ys.push_back(keep.back().get());
  }
  mpfr_set_zero(*xs[0], 1);
  mpfr_set_zero(*ys[0], 1);
  for (int k = 1; k <= n; ++k) {
    mpfr_sqr(t, *xs[k - 1], MPFR_RNDN);
    mpfr_sqr(u, *ys[k - 1], MPFR_RNDN);
    mpfr_mul(v, *xs[k - 1], *ys[k - 1], MPFR_RNDN);
    mpfr_sub(*xs[k], t, u, MPFR_RNDN);
    mpfr_add(*xs[k], *xs[k], cr, MPFR_RNDN);
    mpfr_mul_2ui(v, v, 1, MPFR_RNDN);
    mpfr_add(*ys[k], v, ci, MPFR_RNDN);
  }
  auto gap = [&](int a, int b) {  // log2 |z_a - z_b|
    mpfr_sub(t, *xs[a], *xs[b], MPFR_RNDN);
    mpfr_sub(u, *ys[a], *ys[b], MPFR_RNDN);
    return mp_log2_hypot(t, u, v);
  };
  if (!(gap(q + p, q) <= log2_tol)) return "|z_{q+p} - z_q| = 2^" + std::to_string(gap(q + p, q));
  if (!(gap(q - 1 + p, q - 1) >= -20)) return "preperiod " + std::to_string(q) + " is not least";
  for (uint32_t d : oracle_proper_divisors(static_cast<uint32_t>(p)))
    if (!(gap(q + static_cast<int>(d), q) >= -20)) return "period " + std::to_string(p) + " is not least";
  return "";
}

}  // namespace ds::test
