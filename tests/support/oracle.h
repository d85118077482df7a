// Test support: MPFR values of stored numbers, error measures, and the printed random seed.
#pragma once
#include <mpfr.h>

#include <cstdint>
#include <random>
#include <string>

namespace ds::test {

// An MPFR number with RAII. Default precision 4400 bits holds any sum of up to 8 doubles and any
// fixed-point value used in the tests exactly.
struct Mp {
  mpfr_t v;
  explicit Mp(mpfr_prec_t prec = 4400) { mpfr_init2(v, prec); mpfr_set_zero(v, 1); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  operator mpfr_ptr() { return v; }
  operator mpfr_srcptr() const { return v; }
};

// Exact sum of n binary64 (or binary32) terms. `out` needs precision >= 2200 bits.
void set_terms(mpfr_ptr out, const double* terms, int n);
void set_terms(mpfr_ptr out, const float* terms, int n);
// Exact value of a 32n-bit two's-complement integer (words most significant first) / 2^frac_bits.
void set_twos_complement(mpfr_ptr out, const uint32_t* words, int nwords, int frac_bits);
// Exact value of (neg ? -1 : 1) * magnitude / 2^frac_bits.
void set_sign_magnitude(mpfr_ptr out, bool neg, const uint32_t* words, int nwords, int frac_bits);

// |got - exact| (as a double, rounded up) and |got - exact| / |exact| (0 when both are 0).
double abs_err(mpfr_srcptr got, mpfr_srcptr exact);
double rel_err(mpfr_srcptr got, mpfr_srcptr exact);

// A generator seeded from DEEPSCOPE_SEED when set, else from random_device; the seed is printed
// with the test's name so that any failure can be replayed.
std::mt19937_64 seeded_rng(const std::string& what);

// True when a CUDA device is usable (kernels built with CUDA and a device present).
bool gpu_available();

}  // namespace ds::test

// Skips the rest of a test, visibly, where no GPU is present.
#define DEEPSCOPE_REQUIRE_GPU()                                                  \
  do {                                                                           \
    if (!::ds::test::gpu_available()) GTEST_SKIP() << "no CUDA device: device section skipped"; \
  } while (0)
