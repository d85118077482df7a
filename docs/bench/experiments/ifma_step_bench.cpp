// An experiment for issue #22's "4x single-thread MPFR at 2,048 bits" (docs/bench/reference.md):
// how fast can one core take the reference's step Z <- Z^2 + C in fixed point with AVX-512 IFMA
// (52-bit limbs, vpmadd52luq / vpmadd52huq)? Not part of the build: it sits beside the results it
// gave (docs/bench/reference.md). The step is the CPU twin's
// (kernels/perturb/reference_fixed.h: X' = floor((X^2 - Y^2 + CR 2^F + 2^(F-1)) / 2^F), Y' the same
// with 2 X Y), exact, and every step is compared with GMP's mpz doing the same. Beside it, MPFR's
// step (two squares and a product at the same bits, as the renderer's reference does them) and
// GMP's mpz step, in the same run.
//
//   cd docs/bench/experiments
//   g++ -O3 -march=native -std=c++17 ifma_step_bench.cpp -lmpfr -lgmp -o ifma_step_bench
//   ./ifma_step_bench 1024 2048 4096       # bits
//
// Without AVX-512 IFMA (-march without it) the same code runs on a scalar emulation of the two
// instructions: a correctness check only, its times mean nothing.
#include <gmp.h>
#include <mpfr.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#if defined(__AVX512IFMA__) && defined(__AVX512F__)
#include <immintrin.h>
#define HAVE_IFMA 1
#else
#define HAVE_IFMA 0
#endif

namespace {

constexpr uint64_t kMask = (uint64_t{1} << 52) - 1;

#if HAVE_IFMA
using V = __m512i;
inline V vzero() { return _mm512_setzero_si512(); }
inline V vset1(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
inline V vload(const uint64_t* p) { return _mm512_loadu_si512(p); }
inline void vstore(uint64_t* p, V v) { _mm512_storeu_si512(p, v); }
inline V madd_lo(V acc, V a, V b) { return _mm512_madd52lo_epu64(acc, a, b); }
inline V madd_hi(V acc, V a, V b) { return _mm512_madd52hi_epu64(acc, a, b); }
inline V mmadd_lo(V acc, __mmask8 m, V a, V b) { return _mm512_mask_madd52lo_epu64(acc, m, a, b); }
inline V mmadd_hi(V acc, __mmask8 m, V a, V b) { return _mm512_mask_madd52hi_epu64(acc, m, a, b); }
inline V vadd(V a, V b) { return _mm512_add_epi64(a, b); }
#else
struct V {
  uint64_t l[8];
};
inline V vzero() { return V{}; }
inline V vset1(uint64_t x) {
  V v;
  for (auto& e : v.l) e = x;
  return v;
}
inline V vload(const uint64_t* p) {
  V v;
  std::memcpy(v.l, p, 64);
  return v;
}
inline void vstore(uint64_t* p, V v) { std::memcpy(p, v.l, 64); }
inline V mmadd_lo(V acc, uint8_t m, V a, V b) {
  for (int k = 0; k < 8; ++k)
    if (m >> k & 1)
      acc.l[k] += static_cast<uint64_t>((unsigned __int128)(a.l[k] & kMask) * (b.l[k] & kMask)) & kMask;
  return acc;
}
inline V mmadd_hi(V acc, uint8_t m, V a, V b) {
  for (int k = 0; k < 8; ++k)
    if (m >> k & 1)
      acc.l[k] += static_cast<uint64_t>(((unsigned __int128)(a.l[k] & kMask) * (b.l[k] & kMask)) >> 52);
  return acc;
}
inline V madd_lo(V acc, V a, V b) { return mmadd_lo(acc, 0xFF, a, b); }
inline V madd_hi(V acc, V a, V b) { return mmadd_hi(acc, 0xFF, a, b); }
inline V vadd(V a, V b) {
  for (int k = 0; k < 8; ++k) a.l[k] += b.l[k];
  return a;
}
#endif

// Column sums of a product of n-limb numbers (limbs < 2^52): col[k] = sum of lo52(a_i b_j) over
// i + j = k plus hi52(a_i b_j) over i + j = k - 1; each below n 2^53, so 2n columns of uint64.
// b is read from bpad (8 zeros, b, 16 zeros). square: only i < j (doubled) and i = j.
struct Product {
  int n = 0, blocks = 0;
  std::vector<uint64_t> bpad, lo, hi;
  explicit Product(int n_)
      : n(n_), blocks((2 * n_ + 7) / 8 + 1), bpad(8 + n_ + 24, 0), lo(8 * blocks), hi(8 * blocks) {}

  void run(const uint64_t* a, const uint64_t* b, bool square, uint64_t* col) {
    std::memcpy(&bpad[8], b, 8 * static_cast<size_t>(n));
    for (int c = 0; c < blocks; ++c) {
      const int c0 = 8 * c;  // this block's first column
      int i_lo = c0 - (n - 1);
      if (i_lo < 0) i_lo = 0;
      int i_hi = c0 + 7;
      if (i_hi > n - 1) i_hi = n - 1;
      if (square && i_hi > (c0 + 7 - 1) / 2) i_hi = (c0 + 7 - 1) / 2;  // i < j: i < column / 2
      V l0 = vzero(), l1 = vzero(), h0 = vzero(), h1 = vzero();
      int i = i_lo;
      for (; i + 1 <= i_hi; i += 2) {
        const V A0 = vset1(a[i]), A1 = vset1(a[i + 1]);
        const V B0 = vload(&bpad[8 + c0 - i]), B1 = vload(&bpad[8 + c0 - i - 1]);
        if (square) {
          // lanes whose j = c0 + l - i exceeds i: l > 2i - c0
          const int s0 = 2 * i - c0 + 1, s1 = 2 * (i + 1) - c0 + 1;
          const uint8_t m0 = s0 <= 0 ? 0xFF : s0 >= 8 ? 0 : static_cast<uint8_t>(0xFF << s0);
          const uint8_t m1 = s1 <= 0 ? 0xFF : s1 >= 8 ? 0 : static_cast<uint8_t>(0xFF << s1);
          l0 = mmadd_lo(l0, m0, A0, B0);
          h0 = mmadd_hi(h0, m0, A0, B0);
          l1 = mmadd_lo(l1, m1, A1, B1);
          h1 = mmadd_hi(h1, m1, A1, B1);
        } else {
          l0 = madd_lo(l0, A0, B0);
          h0 = madd_hi(h0, A0, B0);
          l1 = madd_lo(l1, A1, B1);
          h1 = madd_hi(h1, A1, B1);
        }
      }
      if (i <= i_hi) {
        const V A0 = vset1(a[i]);
        const V B0 = vload(&bpad[8 + c0 - i]);
        const int s0 = 2 * i - c0 + 1;
        const uint8_t m0 = !square || s0 <= 0 ? 0xFF : s0 >= 8 ? 0 : static_cast<uint8_t>(0xFF << s0);
        l0 = mmadd_lo(l0, m0, A0, B0);
        h0 = mmadd_hi(h0, m0, A0, B0);
      }
      vstore(&lo[static_cast<size_t>(c0)], vadd(l0, l1));
      vstore(&hi[static_cast<size_t>(c0)], vadd(h0, h1));
    }
    col[0] = lo[0];
    for (int k = 1; k < 2 * n; ++k) col[k] = lo[static_cast<size_t>(k)] + hi[static_cast<size_t>(k - 1)];
    if (square) {
      for (int k = 0; k < 2 * n; ++k) col[k] <<= 1;
      for (int i = 0; i < n; ++i) {
        const unsigned __int128 p = (unsigned __int128)a[i] * a[i];
        col[2 * i] += static_cast<uint64_t>(p) & kMask;
        col[2 * i + 1] += static_cast<uint64_t>(p >> 52);
      }
    }
  }
};

// A fixed-point number: sign and n limbs of 52 bits, value X 2^-F.
struct Fixed {
  bool neg = false;
  std::vector<uint64_t> m;
};

// K = C 2^F + 2^(F-1) as 2n + 2 digits of 52 bits (K mod 2^(52 (2n+2))) and its sign.
struct Constant {
  std::vector<uint64_t> d;
  bool neg = false;
};
Constant constant_of(const mpz_t c, int n, int F) {
  Constant k;
  mpz_t v, m;
  mpz_inits(v, m, nullptr);
  mpz_mul_2exp(v, c, static_cast<mp_bitcnt_t>(F));
  mpz_t h;
  mpz_init(h);
  mpz_setbit(h, static_cast<mp_bitcnt_t>(F - 1));
  mpz_add(v, v, h);
  k.neg = mpz_sgn(v) < 0;
  mpz_set_ui(m, 0);
  mpz_setbit(m, static_cast<mp_bitcnt_t>(52 * (2 * n + 2)));
  mpz_fdiv_r(v, v, m);  // in [0, 2^(52 (2n+2)))
  k.d.assign(static_cast<size_t>(2 * n + 2), 0);
  for (int i = 0; i < 2 * n + 2; ++i) {
    k.d[static_cast<size_t>(i)] = mpz_getlimbn(v, 0) & kMask;
    mpz_fdiv_q_2exp(v, v, 52);
  }
  mpz_clears(v, m, h, nullptr);
  return k;
}

// out = floor((sp P + sq Q + K) / 2^F) for column sums P, Q (Q may be null; each column below
// 2^61) and the constant K: one carry pass in 64-bit signed arithmetic, then a shift by F bits.
// d and w: scratch of 2n + 2 and n + 1 digits.
void finish(const uint64_t* p, const uint64_t* q, int sp, int sq, int n, int F, const Constant& K,
            uint64_t* d, uint64_t* w, Fixed* out) {
  int64_t carry = 0;
  for (int k = 0; k < 2 * n + 2; ++k) {
    int64_t t = carry + static_cast<int64_t>(K.d[static_cast<size_t>(k)]);
    if (k < 2 * n) {
      t += sp > 0 ? static_cast<int64_t>(p[k]) : -static_cast<int64_t>(p[k]);
      if (q) t += sq > 0 ? static_cast<int64_t>(q[k]) : -static_cast<int64_t>(q[k]);
    }
    d[k] = static_cast<uint64_t>(t) & kMask;
    carry = t >> 52;  // arithmetic: floor
  }
  const bool negative = carry + (K.neg ? -1 : 0) < 0;
  const int fq = F / 52, fr = F % 52;
  const int total = 2 * n + 2;
  for (int k = 0; k <= n; ++k) {
    const int at = fq + k;
    const uint64_t lo = at < total ? d[at] : (negative ? kMask : 0);
    const uint64_t hi = at + 1 < total ? d[at + 1] : (negative ? kMask : 0);
    w[k] = ((lo >> fr) | (fr ? hi << (52 - fr) : 0)) & kMask;
  }
  out->neg = negative;
  if (!negative) {
    for (int k = 0; k < n; ++k) out->m[static_cast<size_t>(k)] = w[k];
  } else {  // two's complement to magnitude
    uint64_t borrow = 1;
    bool zero = true;
    for (int k = 0; k < n; ++k) {
      const uint64_t v = (~w[k] & kMask) + borrow;
      borrow = v >> 52;
      out->m[static_cast<size_t>(k)] = v & kMask;
      zero = zero && (v & kMask) == 0;
    }
    if (zero) out->neg = false;
  }
}

struct Step {
  int n, F;
  Product prod;
  Constant kr, ki;
  std::vector<uint64_t> s, t, xy, d, w;
  Fixed nx, ny;
  Step(int n_, int F_, const mpz_t cr, const mpz_t ci)
      : n(n_),
        F(F_),
        prod(n_),
        kr(constant_of(cr, n_, F_)),
        ki(constant_of(ci, n_, F_)),
        s(2 * n_),
        t(2 * n_),
        xy(2 * n_),
        d(2 * n_ + 2),
        w(n_ + 1) {
    nx.m.assign(static_cast<size_t>(n), 0);
    ny.m.assign(static_cast<size_t>(n), 0);
  }
  void run(Fixed* x, Fixed* y) {
    prod.run(x->m.data(), x->m.data(), true, s.data());
    prod.run(y->m.data(), y->m.data(), true, t.data());
    prod.run(x->m.data(), y->m.data(), false, xy.data());
    finish(s.data(), t.data(), 1, -1, n, F, kr, d.data(), w.data(), &nx);
    for (auto& v : xy) v <<= 1;  // 2 X Y
    finish(xy.data(), nullptr, x->neg != y->neg ? -1 : 1, 0, n, F, ki, d.data(), w.data(), &ny);
    std::swap(*x, nx);
    std::swap(*y, ny);
  }
};

void to_fixed(const mpz_t z, int n, Fixed* f) {
  f->neg = mpz_sgn(z) < 0;
  f->m.assign(static_cast<size_t>(n), 0);
  mpz_t a;
  mpz_init(a);
  mpz_abs(a, z);
  for (int k = 0; k < n; ++k) {
    f->m[static_cast<size_t>(k)] = mpz_getlimbn(a, 0) & kMask;
    mpz_fdiv_q_2exp(a, a, 52);
  }
  mpz_clear(a);
}

bool same(const mpz_t z, const Fixed& f, int n) {
  Fixed g;
  to_fixed(z, n, &g);
  return g.neg == f.neg && g.m == f.m;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("IFMA: %s\n",
              HAVE_IFMA ? "AVX-512 IFMA instructions" : "scalar emulation (times mean nothing)");
  std::printf(
      "| bits | limbs | steps checked = GMP | IFMA step (us) | MPFR step (us) | mpz step (us) | MPFR / IFMA "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (int a = 1; a < argc; ++a) {
    const int bits = std::atoi(argv[a]);
    const int F = bits + 4;
    const int n = (F + 8 + 51) / 52;  // |values| < 2^8
    // C = -0.1 + 0.6 i plus random low digits (a point of the main cardioid's neighbourhood whose
    // orbit stays bounded), as C 2^F.
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, 20261127);
    mpz_t cr, ci, x, y, x2, y2, p, half, noise;
    mpz_inits(cr, ci, x, y, x2, y2, p, half, noise, nullptr);
    mpz_set_si(cr, -1);
    mpz_mul_2exp(cr, cr, static_cast<mp_bitcnt_t>(F));
    mpz_fdiv_q_ui(cr, cr, 10);
    mpz_set_ui(ci, 6);
    mpz_mul_2exp(ci, ci, static_cast<mp_bitcnt_t>(F));
    mpz_fdiv_q_ui(ci, ci, 10);
    mpz_urandomb(noise, rs, static_cast<mp_bitcnt_t>(F - 20));
    mpz_add(cr, cr, noise);
    mpz_urandomb(noise, rs, static_cast<mp_bitcnt_t>(F - 20));
    mpz_add(ci, ci, noise);
    mpz_setbit(half, static_cast<mp_bitcnt_t>(F - 1));
    Fixed fx, fy;
    to_fixed(x, n, &fx);
    to_fixed(y, n, &fy);
    Step step(n, F, cr, ci);
    mpz_t crF, ciF;
    mpz_inits(crF, ciF, nullptr);
    mpz_mul_2exp(crF, cr, static_cast<mp_bitcnt_t>(F));
    mpz_mul_2exp(ciF, ci, static_cast<mp_bitcnt_t>(F));
    // The twin's step in mpz (exact products).
    const auto mpz_step = [&] {
      mpz_mul(x2, x, x);
      mpz_submul(x2, y, y);
      mpz_add(x2, x2, crF);
      mpz_add(x2, x2, half);
      mpz_mul(p, x, y);
      mpz_mul_2exp(p, p, 1);
      mpz_add(p, p, ciF);
      mpz_add(p, p, half);
      mpz_fdiv_q_2exp(x, x2, static_cast<mp_bitcnt_t>(F));
      mpz_fdiv_q_2exp(y, p, static_cast<mp_bitcnt_t>(F));
    };
    // Checked steps: the IFMA step against mpz.
    const int checked = 2000;
    int ok = 0;
    for (int k = 0; k < checked; ++k) {
      mpz_step();
      step.run(&fx, &fy);
      if (same(x, fx, n) && same(y, fy, n)) {
        ++ok;
      } else {
        std::printf("bits %d: step %d differs from GMP\n", bits, k + 1);
        break;
      }
    }
    // Timing: IFMA steps.
    const int reps = bits <= 4096 ? 200000 : 20000;
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps; ++k) step.run(&fx, &fy);
    const double ifma = seconds_since(t0) / reps;
    // mpz steps (exact products, as the CPU twin).
    t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps / 4; ++k) mpz_step();
    const double gmp = seconds_since(t0) / (reps / 4);
    // MPFR's step at `bits`: x2 = x^2, y2 = y^2, xy = x y; x = x2 - y2 + cr; y = 2 xy + ci.
    mpfr_t mx, my, mx2, my2, mxy, mcr, mci;
    for (auto* v : {&mx, &my, &mx2, &my2, &mxy, &mcr, &mci}) mpfr_init2(*v, bits);
    mpfr_set_d(mcr, -0.1, MPFR_RNDN);
    mpfr_set_d(mci, 0.6, MPFR_RNDN);
    mpfr_set_zero(mx, 1);
    mpfr_set_zero(my, 1);
    t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < reps / 4; ++k) {
      mpfr_sqr(mx2, mx, MPFR_RNDN);
      mpfr_sqr(my2, my, MPFR_RNDN);
      mpfr_mul(mxy, mx, my, MPFR_RNDN);
      mpfr_sub(mx, mx2, my2, MPFR_RNDN);
      mpfr_add(mx, mx, mcr, MPFR_RNDN);
      mpfr_mul_2ui(my, mxy, 1, MPFR_RNDN);
      mpfr_add(my, my, mci, MPFR_RNDN);
    }
    const double mp = seconds_since(t0) / (reps / 4);
    std::printf("| %d | %d | %d of %d | %.3f | %.3f | %.3f | %.2f |\n", bits, n, ok, checked, ifma * 1e6,
                mp * 1e6, gmp * 1e6, mp / ifma);
    for (auto* v : {&mx, &my, &mx2, &my2, &mxy, &mcr, &mci}) mpfr_clear(*v);
    mpz_clears(cr, ci, x, y, x2, y2, p, half, noise, crF, ciF, nullptr);
    gmp_randclear(rs);
  }
  return 0;
}
