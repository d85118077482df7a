// Deep locations for tests and benchmarks: Misiurewicz points refined by Newton's method in MPFR.
#include <mpfr.h>

#include "perturb.h"

namespace ds::perturb {

void misiurewicz_point(const std::string& seed_re, const std::string& seed_im, int preperiod, int period,
                       int bits, int digits, std::string* re, std::string* im) {
  if (preperiod < 1 || period < 1 || bits < 64 || digits < 1)
    throw ViewError("misiurewicz_point: preperiod, period >= 1, bits >= 64, digits >= 1");
  mpfr_t cr, ci, zr, zi, dr, di, ar, ai, br, bi, t, u, fr, fi, gr, gi, den;
  mpfr_inits2(bits, cr, ci, zr, zi, dr, di, ar, ai, br, bi, t, u, fr, fi, gr, gi, den,
              static_cast<mpfr_ptr>(nullptr));
  mpfr_set_str(cr, seed_re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(ci, seed_im.c_str(), 10, MPFR_RNDN);
  // Quadratic convergence from a seed good to ~50 digits: log2(bits / 160) + 3 steps suffice.
  int steps = 3;
  for (int b = 160; b < bits; b *= 2) ++steps;
  for (int step = 0; step < steps; ++step) {
    mpfr_set_zero(zr, 1);
    mpfr_set_zero(zi, 1);
    mpfr_set_zero(dr, 1);
    mpfr_set_zero(di, 1);
    for (int n = 1; n <= preperiod + period; ++n) {
      // d <- 2 z d + 1, z <- z^2 + c
      mpfr_mul(t, zr, dr, MPFR_RNDN);
      mpfr_mul(u, zi, di, MPFR_RNDN);
      mpfr_sub(t, t, u, MPFR_RNDN);
      mpfr_mul(u, zr, di, MPFR_RNDN);
      mpfr_fma(u, zi, dr, u, MPFR_RNDN);
      mpfr_mul_2ui(dr, t, 1, MPFR_RNDN);
      mpfr_add_ui(dr, dr, 1, MPFR_RNDN);
      mpfr_mul_2ui(di, u, 1, MPFR_RNDN);
      mpfr_sqr(t, zr, MPFR_RNDN);
      mpfr_sqr(u, zi, MPFR_RNDN);
      mpfr_sub(t, t, u, MPFR_RNDN);
      mpfr_mul(u, zr, zi, MPFR_RNDN);
      mpfr_mul_2ui(u, u, 1, MPFR_RNDN);
      mpfr_add(zr, t, cr, MPFR_RNDN);
      mpfr_add(zi, u, ci, MPFR_RNDN);
      if (n == preperiod) {
        mpfr_set(ar, zr, MPFR_RNDN);
        mpfr_set(ai, zi, MPFR_RNDN);
        mpfr_set(br, dr, MPFR_RNDN);
        mpfr_set(bi, di, MPFR_RNDN);
      }
    }
    mpfr_sub(fr, zr, ar, MPFR_RNDN);  // f = z_{k+p} - z_k, g = f'
    mpfr_sub(fi, zi, ai, MPFR_RNDN);
    mpfr_sub(gr, dr, br, MPFR_RNDN);
    mpfr_sub(gi, di, bi, MPFR_RNDN);
    mpfr_sqr(den, gr, MPFR_RNDN);  // c -= f / g = f conj(g) / |g|^2
    mpfr_fma(den, gi, gi, den, MPFR_RNDN);
    mpfr_mul(t, fr, gr, MPFR_RNDN);
    mpfr_fma(t, fi, gi, t, MPFR_RNDN);
    mpfr_mul(u, fi, gr, MPFR_RNDN);
    mpfr_mul(ar, fr, gi, MPFR_RNDN);
    mpfr_sub(u, u, ar, MPFR_RNDN);
    mpfr_div(t, t, den, MPFR_RNDN);
    mpfr_div(u, u, den, MPFR_RNDN);
    mpfr_sub(cr, cr, t, MPFR_RNDN);
    mpfr_sub(ci, ci, u, MPFR_RNDN);
  }
  char* s = nullptr;
  mpfr_asprintf(&s, "%.*Rf", digits, cr);
  *re = s;
  mpfr_free_str(s);
  mpfr_asprintf(&s, "%.*Rf", digits, ci);
  *im = s;
  mpfr_free_str(s);
  mpfr_clears(cr, ci, zr, zi, dr, di, ar, ai, br, bi, t, u, fr, fi, gr, gi, den,
              static_cast<mpfr_ptr>(nullptr));
}

}  // namespace ds::perturb
