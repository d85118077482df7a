// Exact conversions between decimal strings and the storage of every number type (host only).
// Parsing is exact (GMP rationals); each function states its rounding. Implemented in decimal.cpp.
#pragma once
#include <cstdint>
#include <string>

#include "error.h"

namespace ds::decimal {

// Accepted syntax: optional whitespace, [+-] digits [. digits] [(e|E) [+-] digits], optional
// whitespace, with at least one mantissa digit and |exponent| <= 1e6. Anything else, "nan" and
// "inf" included, throws ArithError naming the string and the problem.
void validate(const std::string& s);

// Greedy nearest expansion: out[0] = RN(x), out[i] = RN(x - out[0] - ... - out[i-1]) with RN the
// correctly rounded conversion to binary64 (ties to even, subnormals honoured). The terms are
// non-overlapping and decreasing; exhausted terms are 0. Throws ArithError if RN(x) overflows.
void to_expansion(const std::string& s, double* out, int n);
// Same in binary32.
void to_expansion(const std::string& s, float* out, int n);

// Fixed point: v = round_half_even(x * 2^frac_bits) as a 32*nwords-bit two's-complement integer,
// words most significant first. Throws ArithError if v is outside [-2^(32n-1), 2^(32n-1)).
void to_twos_complement(const std::string& s, int frac_bits, uint32_t* words, int nwords);
// Sign and magnitude: |v| = round_half_even(|x| * 2^frac_bits) in nwords words, most
// significant first; returns true for a negative x whose magnitude rounds to non-zero.
// Throws ArithError if |v| >= 2^(32n).
bool to_sign_magnitude(const std::string& s, int frac_bits, uint32_t* words, int nwords);

// Decimal string of the exact value of a stored number. sig_digits == 0 gives every digit of the
// exact value (binary fractions have finite decimal expansions); sig_digits > 0 rounds half-even to
// that many significant digits. Positional notation for 1e-30 < |x| < 1e30, else scientific.
std::string from_expansion(const double* terms, int n, int sig_digits);
std::string from_expansion(const float* terms, int n, int sig_digits);
std::string from_twos_complement(const uint32_t* words, int nwords, int frac_bits, int sig_digits);
std::string from_sign_magnitude(bool negative, const uint32_t* words, int nwords, int frac_bits,
                                int sig_digits);

// Wide-exponent binary (floatexp): x rounded to nearest with a 53-bit significand, as
// *mantissa * 2^*exp2 with *mantissa in [1, 2) (or 0 and *exp2 = 0 for x = 0). No overflow: the
// syntax bounds |exponent| <= 1e6, far inside the exponent range.
void to_wide_binary(const std::string& s, double* mantissa, long* exp2);
// Decimal string of the exact value mantissa * 2^exp2 (mantissa a finite double); sig_digits as
// from_expansion.
std::string from_wide_binary(double mantissa, long exp2, int sig_digits);

// Significant decimal digits that identify a value of `bits` binary digits: ceil(bits*log10 2)+1.
int digits_for_bits(int bits);

}  // namespace ds::decimal
