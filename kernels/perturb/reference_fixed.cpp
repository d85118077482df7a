// The fixed-point reference orbit's format, its CPU twin (GMP) and the conversion of the device's
// point records to stored points (reference_fixed.h).
#include "reference_fixed.h"

#include <gmp.h>
#include <mpfr.h>

#include <stdexcept>

#include "kernels/perturb/mpfr_util.h"

namespace ds::perturb {
namespace {

using mpfr_util::Mp;

struct Z {
  mpz_t v;
  Z() { mpz_init(v); }
  ~Z() { mpz_clear(v); }
  Z(const Z&) = delete;
  Z& operator=(const Z&) = delete;
};

std::string hex_of(const mpz_t z) {
  char* s = mpz_get_str(nullptr, 16, z);
  std::string out = s;
  void (*free_fn)(void*, size_t);
  mp_get_memory_functions(nullptr, nullptr, &free_fn);
  free_fn(s, out.size() + 1);
  return out;
}

void set_hex(mpz_t z, const std::string& hex) {
  if (hex.empty() || mpz_set_str(z, hex.c_str(), 16) != 0)
    throw std::runtime_error("fixed-point orbit: not a hexadecimal integer: \"" + hex + "\"");
}

// The exact value z 2^-F into a point.
OrbitPoint point_of(const mpz_t x, const mpz_t y, FixedFormat f) {
  OrbitPoint p;
  const mpfr_prec_t bits = static_cast<mpfr_prec_t>(std::max<size_t>(mpz_sizeinbase(x, 2), mpz_sizeinbase(y, 2))) + 8;
  Mp v(bits), tmp(bits);
  mpfr_set_z(v.v, x, MPFR_RNDN);  // exact at this precision
  mpfr_mul_2si(v.v, v.v, -f.fraction_bits, MPFR_RNDN);
  p.re = mpfr_util::to_fe(v.v);
  p.re_lo = mpfr_util::tail_of(v.v, p.re, tmp.v);
  mpfr_set_z(v.v, y, MPFR_RNDN);
  mpfr_mul_2si(v.v, v.v, -f.fraction_bits, MPFR_RNDN);
  p.im = mpfr_util::to_fe(v.v);
  p.im_lo = mpfr_util::tail_of(v.v, p.im, tmp.v);
  return p;
}

bool past_four(const OrbitPoint& p) {
  const double r = to_double(p.re), i = to_double(p.im);
  return r * r + i * i > 16.0;
}

class CpuFixedOrbit final : public FixedOrbit {
 public:
  CpuFixedOrbit(const std::string& re, const std::string& im, int bits, const std::string& x, const std::string& y)
      : f_(fixed_format(bits)) {
    set_hex(cr_.v, fixed_constant(re, f_));
    set_hex(ci_.v, fixed_constant(im, f_));
    mpz_mul_2exp(cr_.v, cr_.v, static_cast<mp_bitcnt_t>(f_.fraction_bits));
    mpz_mul_2exp(ci_.v, ci_.v, static_cast<mp_bitcnt_t>(f_.fraction_bits));
    mpz_setbit(half_.v, static_cast<mp_bitcnt_t>(f_.fraction_bits - 1));
    if (!x.empty()) set_hex(x_.v, x);
    if (!y.empty()) set_hex(y_.v, y);
  }

  void next(std::size_t count, std::vector<OrbitPoint>* out) override {
    const auto shift = static_cast<mp_bitcnt_t>(f_.fraction_bits);
    for (std::size_t k = 0; k < count && !ended_; ++k) {
      // X' = floor((X^2 - Y^2 + CR 2^F + 2^(F-1)) / 2^F), Y' = floor((2 X Y + CI 2^F + 2^(F-1)) / 2^F):
      // each part rounded once, to nearest with ties up, from its exact value.
      mpz_mul(a_.v, x_.v, x_.v);
      mpz_submul(a_.v, y_.v, y_.v);
      mpz_add(a_.v, a_.v, cr_.v);
      mpz_add(a_.v, a_.v, half_.v);
      mpz_mul(b_.v, x_.v, y_.v);
      mpz_mul_2exp(b_.v, b_.v, 1);
      mpz_add(b_.v, b_.v, ci_.v);
      mpz_add(b_.v, b_.v, half_.v);
      mpz_fdiv_q_2exp(x_.v, a_.v, shift);
      mpz_fdiv_q_2exp(y_.v, b_.v, shift);
      out->push_back(point_of(x_.v, y_.v, f_));
      ended_ = past_four(out->back());
    }
  }

  void state(std::string* x, std::string* y) override {
    *x = hex_of(x_.v);
    *y = hex_of(y_.v);
  }

  std::string name() const override { return "fixed point, CPU (GMP)"; }

 private:
  FixedFormat f_;
  Z x_, y_, cr_, ci_, half_, a_, b_;
  bool ended_ = false;
};

}  // namespace

FixedFormat fixed_format(int bits) {
  FixedFormat f;
  f.digits = (bits + kFixedDigitBits - 1) / kFixedDigitBits + 1;
  f.fraction_bits = kFixedDigitBits * (f.digits - 1);
  return f;
}

std::string fixed_constant(const std::string& decimal, FixedFormat f) {
  Mp v(f.fraction_bits + 96);
  mpfr_util::parse(v.v, decimal);
  mpfr_mul_2si(v.v, v.v, f.fraction_bits, MPFR_RNDN);  // exact
  Z z;
  mpfr_get_z(z.v, v.v, MPFR_RNDN);
  return hex_of(z.v);
}

std::vector<int32_t> fixed_digits(const std::string& hex, FixedFormat f) {
  Z z, r;
  set_hex(z.v, hex);
  std::vector<int32_t> d(static_cast<std::size_t>(f.digits));
  const long half = 1L << (kFixedDigitBits - 1);
  for (int j = 0; j + 1 < f.digits; ++j) {
    // d = ((z + 2^21) mod 2^22) - 2^21, in [-2^21, 2^21); then z = (z - d) / 2^22, exact.
    mpz_add_ui(r.v, z.v, static_cast<unsigned long>(half));
    mpz_fdiv_r_2exp(r.v, r.v, kFixedDigitBits);
    const long dj = static_cast<long>(mpz_get_ui(r.v)) - half;
    d[static_cast<std::size_t>(j)] = static_cast<int32_t>(dj);
    if (dj >= 0)
      mpz_sub_ui(z.v, z.v, static_cast<unsigned long>(dj));
    else
      mpz_add_ui(z.v, z.v, static_cast<unsigned long>(-dj));
    mpz_fdiv_q_2exp(z.v, z.v, kFixedDigitBits);
  }
  if (!mpz_fits_sint_p(z.v) || mpz_cmpabs_ui(z.v, 1UL << 20) > 0)
    throw std::runtime_error("fixed-point orbit: a value too large for the format (|Z| >= 2^20)");
  d.back() = static_cast<int32_t>(mpz_get_si(z.v));
  return d;
}

std::string fixed_hex(const std::vector<int32_t>& digits) {
  Z z;
  for (std::size_t k = digits.size(); k-- > 0;) {
    mpz_mul_2exp(z.v, z.v, kFixedDigitBits);
    const int32_t d = digits[k];
    if (d >= 0)
      mpz_add_ui(z.v, z.v, static_cast<unsigned long>(d));
    else
      mpz_sub_ui(z.v, z.v, static_cast<unsigned long>(-static_cast<long>(d)));
  }
  return hex_of(z.v);
}

OrbitPoint point_from_record(const FixedPointRecord& r, FixedFormat f) {
  OrbitPoint p;
  Mp v(340), tmp(340);
  for (int part = 0; part < 2; ++part) {
    FloatExp fe(0.0);
    double lo = 0;
    if (r.top[part] >= 0) {
      // (window as an integer, leading digit first) * 2 + the sign of the rest: a value whose
      // roundings to 53 bits and of its tail to 53 more are those of the part itself.
      mpfr_set_si(v.v, r.window[part][0], MPFR_RNDN);
      for (int t = 1; t < kFixedWindow; ++t) {
        mpfr_mul_2ui(v.v, v.v, kFixedDigitBits, MPFR_RNDN);
        mpfr_add_si(v.v, v.v, r.window[part][t], MPFR_RNDN);
      }
      mpfr_mul_2ui(v.v, v.v, 1, MPFR_RNDN);
      mpfr_add_si(v.v, v.v, r.rest[part], MPFR_RNDN);
      mpfr_mul_2si(v.v, v.v, kFixedDigitBits * (r.top[part] - (kFixedWindow - 1)) - 1 - f.fraction_bits,
                   MPFR_RNDN);
      fe = mpfr_util::to_fe(v.v);
      lo = mpfr_util::tail_of(v.v, fe, tmp.v);
    }
    if (part == 0) {
      p.re = fe;
      p.re_lo = lo;
    } else {
      p.im = fe;
      p.im_lo = lo;
    }
  }
  return p;
}

std::unique_ptr<FixedOrbit> cpu_fixed_orbit(const std::string& re, const std::string& im, int bits,
                                            const std::string& x, const std::string& y) {
  return std::make_unique<CpuFixedOrbit>(re, im, bits, x, y);
}

}  // namespace ds::perturb
