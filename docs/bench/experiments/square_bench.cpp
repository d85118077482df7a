// Experiment (not part of the build): how fast can one reference step at b bits be on one core?
// docs/bench/reference.md, "Why not 4x at 2,048 bits". For b bits (n 64-bit limbs), each timed
// over the same random operands:
//   mpn_sqr      GMP's full square of n limbs (its assembly basecase / Toom);
//   short rows   the square's columns from n - 3 up only (what a fixed-point step keeps: the cut
//                at 2^-F plus two guard limbs) from GMP's public mpn_addmul_1 rows, doubled, plus
//                the diagonal; checked against mpn_sqr's top limbs;
//   mpfr_sqr     MPFR's square at b bits (its short product, rounded);
//   MPFR step    z <- z^2 + c as the reference does it (two squares, a product, the additions);
//   3-sqr step   the same with three squares (x^2, y^2, (x + y)^2; 2xy = (x + y)^2 - x^2 - y^2):
//                the fewest MPFR products any step can have.
// Build: g++ -O3 -march=native -std=c++17 square_bench.cpp -lmpfr -lgmp -o square_bench
// Run:   ./square_bench 1142 2048 4096
#include <gmp.h>
#include <mpfr.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

// Columns c0 .. 2n - 1 of a^2 (every partial product whose column is c0 or more, summed exactly)
// into w[0 .. 2n - c0); tmp holds 2n - c0 + 1 limbs.
void short_sqr_rows(mp_limb_t* w, const mp_limb_t* a, int n, int c0, mp_limb_t* tmp) {
  const int W = 2 * n - c0;
  std::memset(tmp, 0, sizeof(mp_limb_t) * (W + 1));
  for (int i = 0; i < n - 1; ++i) {
    const int j0 = std::max(i + 1, c0 - i);
    if (j0 >= n) continue;
    const int off = i + j0 - c0;
    const mp_limb_t cy = mpn_addmul_1(tmp + off, a + j0, n - j0, a[i]);
    const int pos = off + (n - j0);
    if (cy) mpn_add_1(tmp + pos, tmp + pos, W + 1 - pos, cy);
  }
  mpn_lshift(tmp, tmp, W, 1);
  std::memset(w, 0, sizeof(mp_limb_t) * W);
  for (int i = 0; i < n; ++i) {
    const int k = 2 * i;
    if (k + 1 < c0) continue;
    const unsigned __int128 p = static_cast<unsigned __int128>(a[i]) * a[i];
    if (k >= c0) {
      w[k - c0] = static_cast<mp_limb_t>(p);
      w[k + 1 - c0] = static_cast<mp_limb_t>(p >> 64);
    } else {
      w[0] = static_cast<mp_limb_t>(p >> 64);
    }
  }
  mpn_add_n(w, w, tmp, W);
}

template <class F>
double ns_per_call(int reps, F&& f) {
  const auto t = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() / reps * 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("| bits | limbs | mpn_sqr (ns) | short rows (ns) | mpfr_sqr (ns) | MPFR step (ns) | 3-sqr step (ns) | MPFR step / 3-sqr |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (int k = 1; k < argc; ++k) {
    const int bits = std::atoi(argv[k]);
    const int n = (bits + 63) / 64, c0 = n - 3;
    std::mt19937_64 g(1);
    std::vector<mp_limb_t> a(n), w(2 * n + 2), full(2 * n), tmp(2 * n + 4);
    for (auto& x : a) x = g();
    a[n - 1] >>= 8;
    mpn_sqr(full.data(), a.data(), n);
    short_sqr_rows(w.data(), a.data(), n, 0, tmp.data());
    if (mpn_cmp(w.data(), full.data(), 2 * n) != 0) return std::puts("short rows (c0 = 0) != mpn_sqr"), 1;
    short_sqr_rows(w.data(), a.data(), n, c0, tmp.data());
    // Columns from c0 miss the lower columns' carries: equal from two limbs above the cut.
    if (mpn_cmp(w.data() + 3, full.data() + c0 + 3, 2 * n - c0 - 3) != 0) return std::puts("short rows != top of mpn_sqr"), 1;
    const int reps = std::max(2000, 40000000 / (n * n));
    const double t_full = ns_per_call(reps, [&] { mpn_sqr(full.data(), a.data(), n); a[0] ^= full[n] & 1; });
    const double t_rows = ns_per_call(reps, [&] { short_sqr_rows(w.data(), a.data(), n, c0, tmp.data()); a[0] ^= w[4] & 1; });
    mpfr_t x, y, s1, s2, s3, cr, ci;
    mpfr_inits2(bits, x, y, s1, s2, s3, cr, ci, static_cast<mpfr_ptr>(nullptr));
    mpfr_set_d(cr, -0.1, MPFR_RNDN);
    mpfr_set_d(ci, 0.6, MPFR_RNDN);
    mpfr_set_d(x, 0.1, MPFR_RNDN);
    mpfr_set_d(y, 0.2, MPFR_RNDN);
    for (int i = 0; i < 100; ++i) {  // onto the orbit (attracting: every limb in use)
      mpfr_sqr(s1, x, MPFR_RNDN), mpfr_sqr(s2, y, MPFR_RNDN), mpfr_mul(y, x, y, MPFR_RNDN);
      mpfr_mul_2ui(y, y, 1, MPFR_RNDN), mpfr_add(y, y, ci, MPFR_RNDN);
      mpfr_sub(x, s1, s2, MPFR_RNDN), mpfr_add(x, x, cr, MPFR_RNDN);
    }
    const double t_msqr = ns_per_call(reps, [&] { mpfr_sqr(s1, x, MPFR_RNDN); mpfr_nextabove(x); });
    const double t_step = ns_per_call(reps, [&] {
      mpfr_sqr(s1, x, MPFR_RNDN), mpfr_sqr(s2, y, MPFR_RNDN), mpfr_mul(y, x, y, MPFR_RNDN);
      mpfr_mul_2ui(y, y, 1, MPFR_RNDN), mpfr_add(y, y, ci, MPFR_RNDN);
      mpfr_sub(x, s1, s2, MPFR_RNDN), mpfr_add(x, x, cr, MPFR_RNDN);
    });
    const double t_3sqr = ns_per_call(reps, [&] {
      mpfr_add(s3, x, y, MPFR_RNDN), mpfr_sqr(s3, s3, MPFR_RNDN);
      mpfr_sqr(s1, x, MPFR_RNDN), mpfr_sqr(s2, y, MPFR_RNDN);
      mpfr_sub(s3, s3, s1, MPFR_RNDN), mpfr_sub(s3, s3, s2, MPFR_RNDN), mpfr_add(y, s3, ci, MPFR_RNDN);
      mpfr_sub(x, s1, s2, MPFR_RNDN), mpfr_add(x, x, cr, MPFR_RNDN);
    });
    std::printf("| %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f |\n", bits, n, t_full, t_rows, t_msqr, t_step,
                t_3sqr, t_step / t_3sqr);
    mpfr_clears(x, y, s1, s2, s3, cr, ci, static_cast<mpfr_ptr>(nullptr));
  }
  return 0;
}
