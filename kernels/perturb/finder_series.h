// The nucleus finder's MPFR Newton steps (finder_nucleus.cpp): the orbit of c with dz/dc and, for
// the higher-order steps, d2z/dc2 and d3z/dc3, each at its own precision; the step's update from
// the inverted Taylor series. Private to the finder (finder.h is the host API).
#pragma once
#include <cstdint>
#include <vector>

#include "arith/floatexp.h"
#include "kernels/perturb/finder_derivative.h"
#include "kernels/perturb/finder_detail.h"
#include "kernels/perturb/finder_fixed_orbit.h"

namespace ds::perturb::finder::detail {

// An orbit's profile for the next orbit's precision schedule (precision_schedule): log2 |2 z_k| and
// log2 |dz_k/dc| (an upper bound, from the exponents), k = 0 .. p - 1, and log2 |dz_p/dc|.
struct OrbitProfile {
  std::vector<double> lz, ld;
  double ldp = 0;
};

// The precision of each z_m (m = 1 .. p; [0] unused) of an orbit at b bits near the profiled one
// (|c' - c| <= delta), or none (empty: every step at b). A rounding e at z_m reaches z_p as
// e prod_{k=m}^{p-1} 2 z_k, and Newton's step as that over z_p', so z_m needs only
// b - log2 |z_p' / prod| bits (and a guard) for its rounding to weigh as one at b bits where the
// product is z_p': late in the orbit, where the product is small, far fewer. The products are the
// profile's; at c' each 2 z_k differs by about delta |z_k'| / |z_k|, and the schedule is only made
// where these sum to at most 2^-4 (the products then within 2^0.1). At least bmin bits everywhere,
// and never increasing (a step moves to fewer bits once). docs/finder.md, Nucleus 5.
std::vector<int> precision_schedule(const OrbitProfile& prev, FloatExp delta, int b, int bmin, uint32_t p);
// Its parts, for an orbit that makes its schedule as it goes (the seed's, finder_nucleus.cpp):
// the guard G for p steps, ceil(log2 p) + 17; the bits z_m needs where log2 |z_p' / prod| is L,
// b + G - floor(L) (more than b where L is not finite); and those within [bmin, b], rounded up to
// whole limbs (at most b).
int schedule_guard(uint32_t p);
long needed_bits(int b, int G, double L);
int scheduled_bits(int b, int bmin, int G, double L);

// One MPFR step of order 2 (Newton), 3 (Chebyshev) or 4. With f = z_p, g = dz_p/dc, u = f / g,
// a2 = (d2z_p/dc2) / 2g and a3 = (d3z_p/dc3) / 6g, the root of the Taylor series
// f + g x + g a2 x^2 + g a3 x^3 is x = -u - a2 u^2 - (2 a2^2 - a3) u^3 + O(u^4); a step of order m
// takes the first m - 1 terms, leaving an error O(s^m), s = |u|. Each term needs only the bits
// between its own size and the step's result, so g runs at bd bits, d2z/dc2 at bh <= bd and
// d3z/dc3 at bt <= bh (their recursions: h_n = 2 (z h + d^2), t_n = 2 (z t + 3 d h) at n - 1,
// from z, d, h rounded to those precisions). Where a2 is needed to fewer bits than the perturbed
// orbit's 53-bit derivatives hold (kPerturbedA2Bits), a third-order step takes it from there
// (a2_given) and runs no MPFR recursion for it.
class SeriesStep {
 public:
  explicit SeriesStep(mpfr_prec_t b);
  // The orbit of c (p steps) at b bits, its derivatives as the order needs; with a2_given (order
  // 3 only), a2 is that number and d2z/dc2 is not computed.
  // With `schedule` (precision_schedule), z_m runs at schedule[m] bits instead of b. The MPFR
  // orbit with MPFR derivatives records its profile (profile()).
  void orbit(const MpC& c, uint32_t p, int order, int b, int bd, int bh, int bt,
             const CFe* a2_given = nullptr, const std::vector<int>* schedule = nullptr);
  // z_p and dz_p/dc of the last orbit (for the tests).
  const MpC& z() const { return z_; }
  const MpC& dz() const { return d_; }
  // The last orbit's profile (empty lz where it was not recorded).
  const OrbitProfile& profile() const { return profile_; }
  // |z_p / (dz_p/dc)| of the last orbit (the Newton distance).
  FloatExp newton_distance() const;
  // c <- c + x, x the series' root to the last orbit's order.
  void update(MpC& c);

 private:
  int order_ = 2;
  OrbitProfile profile_;
  MpC zprev_{64};                       // z_{m-1} where z_m moves to fewer bits
  bool a2_given_ = false;
  FixedDerivative fixed_;               // d in fixed point (order 2, up to 16 limbs)
  FixedOrbit fixed_z_;                  // and z with it (up to kFixedOrbitMaxLimbs)
  MpC z_, d_, zr_, uq_;                 // z at b; d, zr (z rounded), u at bd
  Mpfr t1_, t2_, u1_, u2_, u3_;         // scratch at b (t) and bd (u)
  MpC h_, zh_, dh_, qq_, w_;            // at bh: h, z and d rounded, h / g, u^2
  Mpfr a_, b_, v1_, v2_;                // scratch at bh
  MpC t_, zt_, dt_, ht_, q3_, cu_, x_;  // at bt: t, z, d and h rounded, t / g, the u^3 term
  Mpfr e1_, e2_, e3_, e4_, e5_;         // scratch at bt
  void second_step();
  void third_step();
};

// The most limbs at which dz/dc runs in fixed point (finder_derivative.h) rather than in MPFR: at
// 4 to 10 limbs it took a third to two thirds of MPFR's time on the development machine, at 19
// limbs 90%, at 36 about as long or longer (GMP's full products against MPFR's short ones).
constexpr int kFixedDerivativeMaxLimbs = 16;

// The bits from which an MPFR dz/dc step uses Gauss's three products (finder_detail.h): 13% faster
// at 19 limbs, 4% at 13 on the development machine.
constexpr int kGaussDerivativeBits = 960;

// The bits to which the perturbed orbit's a2 = z_p'' / 2 z_p' is taken as known: its doubles
// (53 bits) held the first derivative to about 45 bits over 567,135 steps (docs/finder.md), and
// its c is within the last perturbed step of the MPFR step's (a relative change K s, far below).
constexpr int kPerturbedA2Bits = 40;

}  // namespace ds::perturb::finder::detail
