// The Hénon paper's Table 2 on this machine's CPU: the same map loop in MPFR (the paper's
// comparison) and in QD's dd_real/qd_real, on all cores, beside deepscope's f64xN rows measured
// in the same run (henon.cpp).
#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#ifdef DEEPSCOPE_HAVE_QD
#include <qd/dd_real.h>
#include <qd/fpu.h>
#include <qd/qd_real.h>
#endif

#include "henon_libs.h"

namespace ds::app {
namespace {

// One orbit per thread on every core; returns map steps per second over all of them.
template <class Orbit>
double all_cores(int64_t steps, Orbit&& orbit) {
  const unsigned n = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> ts;
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < n; ++i) ts.emplace_back([&, i] { orbit(steps, i); });
  for (std::thread& t : ts) t.join();
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(n) * static_cast<double>(steps) / sec;
}

// Escapes are impossible from (0, 0) at (1.4, 0.3) (the attractor's basin), so every step runs.
void mpfr_orbit(long bits, int64_t steps) {
  mpfr_t x, y, t, a, b;
  for (mpfr_ptr p : {x, y, t, a, b}) mpfr_init2(p, bits);
  mpfr_set_str(a, "1.4", 10, MPFR_RNDN);
  mpfr_set_str(b, "0.3", 10, MPFR_RNDN);
  mpfr_set_zero(x, 1);
  mpfr_set_zero(y, 1);
  for (int64_t s = 0; s < steps; ++s) {
    mpfr_sqr(t, x, MPFR_RNDN);        // x^2
    mpfr_mul(t, t, a, MPFR_RNDN);     // a x^2
    mpfr_sub(t, y, t, MPFR_RNDN);     // y - a x^2
    mpfr_add_ui(t, t, 1, MPFR_RNDN);  // 1 + y - a x^2
    mpfr_mul(y, x, b, MPFR_RNDN);     // b x
    mpfr_swap(x, t);
  }
  volatile double sink = mpfr_get_d(x, MPFR_RNDN);
  (void)sink;
  for (mpfr_ptr p : {x, y, t, a, b}) mpfr_clear(p);
  mpfr_free_cache();
}

#ifdef DEEPSCOPE_HAVE_QD
template <class Q>
void qd_orbit(int64_t steps) {
  unsigned int cw;
  fpu_fix_start(&cw);
  const Q a("1.4"), b("0.3"), one(1.0);
  Q x(0.0), y(0.0);
  for (int64_t s = 0; s < steps; ++s) {
    const Q nx = (one + y) - a * sqr(x);
    y = b * x;
    x = nx;
  }
  volatile double sink = to_double(x);
  (void)sink;
  fpu_fix_end(&cw);
}
#endif

}  // namespace

double mpfr_henon_steps_per_second(long bits, int64_t steps) {
  return all_cores(steps, [bits](int64_t n, unsigned) { mpfr_orbit(bits, n); });
}

double qd_henon_steps_per_second(int doubles, int64_t steps) {
#ifdef DEEPSCOPE_HAVE_QD
  if (doubles == 2) return all_cores(steps, [](int64_t n, unsigned) { qd_orbit<dd_real>(n); });
  if (doubles == 4) return all_cores(steps, [](int64_t n, unsigned) { qd_orbit<qd_real>(n); });
#else
  (void)steps;
  (void)doubles;
#endif
  return 0;
}

}  // namespace ds::app
