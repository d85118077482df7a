// The fixed-point reference orbit's format and digits, and its CPU twin (GMP) (reference_fixed.h).
#include "reference_fixed.h"

#include <gmp.h>
#include <mpfr.h>

#include <stdexcept>

#include "kernels/perturb/mpfr_util.h"

namespace ds::perturb {
namespace {

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
  Mpfr v(bits), tmp(bits);
  mpfr_set_z(v.v, x, MPFR_RNDN);  // exact at this precision
  mpfr_mul_2si(v.v, v.v, -f.fraction_bits, MPFR_RNDN);
  mpfr_util::to_fe_tail(v.v, &p.re, &p.re_lo, tmp.v);
  mpfr_set_z(v.v, y, MPFR_RNDN);
  mpfr_mul_2si(v.v, v.v, -f.fraction_bits, MPFR_RNDN);
  mpfr_util::to_fe_tail(v.v, &p.im, &p.im_lo, tmp.v);
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
  Mpfr v(f.fraction_bits + 96);
  mpfr_util::parse(v.v, decimal);
  mpfr_mul_2si(v.v, v.v, f.fraction_bits, MPFR_RNDN);  // exact
  Z z;
  mpfr_get_z(z.v, v.v, MPFR_RNDN);
  return hex_of(z.v);
}

// Linear in the length (the GPU orbit converts C and every checkpoint's Z): bits are read and
// written 22 at a time through 32-bit words, and the balancing is one carry pass.
std::vector<int32_t> fixed_digits(const std::string& hex, FixedFormat f) {
  Z z;
  set_hex(z.v, hex);
  const bool negative = mpz_sgn(z.v) < 0;
  mpz_abs(z.v, z.v);
  const std::size_t L = static_cast<std::size_t>(f.digits);
  const std::size_t low_bits = kFixedDigitBits * (L - 1);
  if (mpz_sizeinbase(z.v, 2) > low_bits + 20)
    throw std::runtime_error("fixed-point orbit: a value too large for the format (|Z| >= 2^20)");
  std::vector<uint32_t> w((low_bits + 20) / 32 + 4, 0);
  std::size_t count = 0;
  mpz_export(w.data(), &count, -1, sizeof(uint32_t), 0, 0, z.v);
  const auto bits_at = [&](std::size_t pos) {  // the 22 bits from bit `pos`
    const std::size_t k = pos / 32, s = pos % 32;
    const uint64_t two = static_cast<uint64_t>(w[k]) | static_cast<uint64_t>(w[k + 1]) << 32;
    return static_cast<int64_t>((two >> s) & ((1u << kFixedDigitBits) - 1));
  };
  std::vector<int32_t> d(L);
  const int64_t half = int64_t{1} << (kFixedDigitBits - 1), base = int64_t{1} << kFixedDigitBits;
  int64_t carry = 0;
  for (std::size_t j = 0; j + 1 < L; ++j) {
    // Balanced digits of +-|z|: the same digits in [-2^21, 2^21) that repeated division gives.
    int64_t v = (negative ? -bits_at(kFixedDigitBits * j) : bits_at(kFixedDigitBits * j)) + carry;
    carry = 0;
    if (v >= half) {
      v -= base;
      carry = 1;
    } else if (v < -half) {
      v += base;
      carry = -1;
    }
    d[j] = static_cast<int32_t>(v);
  }
  const int64_t top = static_cast<int64_t>(bits_at(low_bits)) | (static_cast<int64_t>(bits_at(low_bits + 22)) << 22);
  d[L - 1] = static_cast<int32_t>((negative ? -top : top) + carry);
  return d;
}

std::string fixed_hex(const std::vector<int32_t>& digits) {
  // The positive digits and the magnitudes of the negative ones packed apart, then subtracted.
  const std::size_t L = digits.size();
  Z parts[2];
  for (int sign = 0; sign < 2; ++sign) {
    std::vector<uint32_t> w((kFixedDigitBits * L) / 32 + 3, 0);
    for (std::size_t j = 0; j + 1 < L; ++j) {
      const int32_t dj = digits[j];
      if ((sign == 0) != (dj > 0) || dj == 0) continue;
      const uint64_t v = static_cast<uint64_t>(dj > 0 ? dj : -static_cast<int64_t>(dj)) << ((kFixedDigitBits * j) % 32);
      const std::size_t k = (kFixedDigitBits * j) / 32;
      w[k] |= static_cast<uint32_t>(v);
      w[k + 1] |= static_cast<uint32_t>(v >> 32);
    }
    mpz_import(parts[sign].v, w.size(), -1, sizeof(uint32_t), 0, 0, w.data());
  }
  mpz_sub(parts[0].v, parts[0].v, parts[1].v);
  if (L > 0) {
    // The integer digit (any size) at 2^(22 (L - 1)).
    const long top = digits[L - 1];
    Z t;
    mpz_set_si(t.v, top);
    mpz_mul_2exp(t.v, t.v, static_cast<mp_bitcnt_t>(kFixedDigitBits * (L - 1)));
    mpz_add(parts[0].v, parts[0].v, t.v);
  }
  return hex_of(parts[0].v);
}

std::unique_ptr<FixedOrbit> cpu_fixed_orbit(const std::string& re, const std::string& im, int bits,
                                            const std::string& x, const std::string& y) {
  return std::make_unique<CpuFixedOrbit>(re, im, bits, x, y);
}

}  // namespace ds::perturb
