// The reference orbit in fixed point, for the GPU (docs/perturbation/references.md, "Reference on the GPU"):
// Z <- Z^2 + C with every part a multiple of 2^-F, each new part rounded once to nearest (ties up)
// from its exact value, so a step's rounding error is at most 2^-F (absolute) and the orbit is a
// function of C and F alone, whoever computes it. The GPU computes it with number-theoretic-
// transform products (reference_gpu.cu); the CPU twin here computes the same orbit with GMP, as the
// tests' independent check and as the path where no device is.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arith/floatexp.h"

namespace ds::perturb {

// Digits of 22 bits: a part is sum_j d_j 2^(22 j) / 2^F with F = 22 (L - 1), d_{L-1} its integer
// part. On the device the digits are signed and only roughly balanced (|d_j| <= 2^21 + 2), which
// the products accept as they are; the value, not the digits, defines the orbit.
constexpr int kFixedDigitBits = 22;
constexpr int kFixedWindow = 12;  // digits of a rounding window (reference_fixed.cuh: two of them)

struct FixedFormat {
  int digits = 0;         // L
  int fraction_bits = 0;  // F = 22 (L - 1), at least the bits asked
};
// The format for an orbit of `bits` bits: L = ceil(bits / 22) + 1.
FixedFormat fixed_format(int bits);

// A point of the stored orbit: Z rounded to floatexp and the tails beyond (Reference's zr, zr_lo).
struct OrbitPoint {
  FloatExp re{0.0}, im{0.0};
  double re_lo = 0, im_lo = 0;
};

// Balanced digits (|d_j| <= 2^21, d_{L-1} unbounded) of the integer in hexadecimal text `hex`
// ("-0x1f", as state() writes), and back.
std::vector<int32_t> fixed_digits(const std::string& hex, FixedFormat f);
std::string fixed_hex(const std::vector<int32_t>& digits);
// C (decimal) as the format's integer: C 2^F rounded to nearest, in hexadecimal.
std::string fixed_constant(const std::string& decimal, FixedFormat f);

// A fixed-point orbit in progress: Z_0 = 0 (or a saved state), then Z_1, Z_2, ...
class FixedOrbit {
 public:
  virtual ~FixedOrbit() = default;
  // Appends the next `count` points to *out, or fewer when one lies past |Z| = 4: that one is the
  // last appended and the orbit ends there (the caller's bailout, 2, was passed before it).
  virtual void next(std::size_t count, std::vector<OrbitPoint>* out) = 0;
  // The last point given (Z_0 before any) exactly, as hexadecimal integers Z 2^F.
  virtual void state(std::string* x, std::string* y) = 0;
  virtual std::string name() const = 0;
};

// The orbit of C = (re, im) (decimal) at `bits` bits, starting from Z = (x, y) (state()'s text; ""
// for Z_0 = 0). The CPU twin: GMP, one thread.
std::unique_ptr<FixedOrbit> cpu_fixed_orbit(const std::string& re, const std::string& im, int bits,
                                            const std::string& x = "", const std::string& y = "");
// The same orbit on CUDA device `device`: the same points, bit for bit. Throws BackendError
// without CUDA and ds::CudaError-like std::runtime_error when the device fails (out of memory).
std::unique_ptr<FixedOrbit> gpu_fixed_orbit(const std::string& re, const std::string& im, int bits, int device,
                                            const std::string& x = "", const std::string& y = "");

}  // namespace ds::perturb
