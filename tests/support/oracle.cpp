// MPFR conversions and seeds for the tests.
#include "oracle.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "kernels/core/device.h"

namespace ds::test {

template <class F>
static void set_terms_impl(mpfr_ptr out, const F* terms, int n) {
  mpfr_set_zero(out, 1);
  for (int i = 0; i < n; ++i) {
    int inexact = mpfr_add_d(out, out, static_cast<double>(terms[i]), MPFR_RNDN);
    if (inexact) std::abort();  // the precision must hold the sum exactly
  }
}
void set_terms(mpfr_ptr out, const double* terms, int n) { set_terms_impl(out, terms, n); }
void set_terms(mpfr_ptr out, const float* terms, int n) { set_terms_impl(out, terms, n); }

static void set_words(mpfr_ptr out, const uint32_t* words, int nwords) {
  mpfr_set_zero(out, 1);
  for (int k = 0; k < nwords; ++k) {
    mpfr_mul_2ui(out, out, 32, MPFR_RNDN);
    mpfr_add_ui(out, out, words[k], MPFR_RNDN);
  }
}

void set_twos_complement(mpfr_ptr out, const uint32_t* words, int nwords, int frac_bits) {
  set_words(out, words, nwords);
  if (nwords > 0 && (words[0] & 0x80000000u)) {
    Mp mod(64);
    mpfr_set_ui_2exp(mod, 1, 32 * nwords, MPFR_RNDN);
    mpfr_sub(out, out, mod, MPFR_RNDN);
  }
  mpfr_div_2si(out, out, frac_bits, MPFR_RNDN);
}

void set_sign_magnitude(mpfr_ptr out, bool neg, const uint32_t* words, int nwords, int frac_bits) {
  set_words(out, words, nwords);
  if (neg) mpfr_neg(out, out, MPFR_RNDN);
  mpfr_div_2si(out, out, frac_bits, MPFR_RNDN);
}

double abs_err(mpfr_srcptr got, mpfr_srcptr exact) {
  Mp d(mpfr_get_prec(got) > mpfr_get_prec(exact) ? mpfr_get_prec(got) : mpfr_get_prec(exact));
  mpfr_sub(d, got, exact, MPFR_RNDN);
  return std::fabs(mpfr_get_d(d, MPFR_RNDU));
}

double rel_err(mpfr_srcptr got, mpfr_srcptr exact) {
  if (mpfr_zero_p(exact)) return mpfr_zero_p(got) ? 0.0 : INFINITY;
  Mp d(mpfr_get_prec(got) > mpfr_get_prec(exact) ? mpfr_get_prec(got) : mpfr_get_prec(exact));
  mpfr_sub(d, got, exact, MPFR_RNDN);
  mpfr_div(d, d, exact, MPFR_RNDN);
  return std::fabs(mpfr_get_d(d, MPFR_RNDU));
}

std::mt19937_64 seeded_rng(const std::string& what) {
  uint64_t seed;
  if (const char* env = std::getenv("DEEPSCOPE_SEED")) {
    seed = std::strtoull(env, nullptr, 0);
  } else {
    std::random_device rd;
    seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  std::cout << "[seed] " << what << ": DEEPSCOPE_SEED=" << seed << std::endl;
  return std::mt19937_64(seed);
}

bool gpu_available() { return ds::cuda_device_count() > 0; }

bool long_tests_enabled() {
  const char* v = std::getenv("DEEPSCOPE_LONG_TESTS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

}  // namespace ds::test
