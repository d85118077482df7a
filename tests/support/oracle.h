// Test support: MPFR values of stored numbers, error measures, and the printed random seed.
#pragma once
#include <mpfr.h>

#include <cstdint>
#include <random>
#include <string>

#include "arith/mpfr_number.h"

namespace ds::test {

// ds::Mpfr, zero, passed to MPFR's functions as it is. Default precision 4400 bits holds any sum
// of up to 8 doubles and any fixed-point value used in the tests exactly.
struct Mp : Mpfr {
  explicit Mp(mpfr_prec_t prec = 4400) : Mpfr(prec) { mpfr_set_zero(v, 1); }
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

namespace ds::test {
// True when DEEPSCOPE_LONG_TESTS is set (not empty, not 0): the GPU host's session
// (.ci/gpu-session.sh) and `ctest -L long` runs set it; CI's 2-core run does not.
bool long_tests_enabled();
}  // namespace ds::test

// Skips the rest of a test, visibly, outside the long-test runs: oracle runs over a minute on two
// cores (docs/quality.md, "Test time"). They run in the GPU host's session.
#define DEEPSCOPE_REQUIRE_LONG()                                                                   \
  do {                                                                                             \
    if (!::ds::test::long_tests_enabled())                                                         \
      GTEST_SKIP() << "long oracle test: skipped unless DEEPSCOPE_LONG_TESTS=1 (the GPU session sets it)"; \
  } while (0)
