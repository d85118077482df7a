// ds::Mpfr: an MPFR number that owns its mpfr_t (initialised at a given precision, cleared on
// destruction), the one RAII wrapper every host-side MPFR user shares. Host only.
#pragma once
#include <mpfr.h>

namespace ds {

// Neither copied nor moved: an mpfr_t's limbs are owned by exactly one wrapper. Read and write
// the number through v (mpfr_set_prec(x.v, p) changes the precision, as MPFR allows).
struct Mpfr {
  mpfr_t v;
  explicit Mpfr(mpfr_prec_t bits) { mpfr_init2(v, bits); }
  ~Mpfr() { mpfr_clear(v); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
};

}  // namespace ds
