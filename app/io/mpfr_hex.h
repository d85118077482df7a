// MPFR's "%Ra" text of a binary floating-point number and the number as bits, both ways: the TMD
// cases carry f(x) (256 bits) and wide arguments (up to 64 bits) as that text, and the binary case
// file (tmd_case_file.h) stores the bits.
#pragma once
#include <cstdint>
#include <string>

namespace ds::app {

// ±0.sig × 2^exp, MPFR's convention: sig[0] holds the most significant 64 bits and its top bit is
// set (sig / 2^256 in [1/2, 1)); bits past the number's precision are zero.
struct HexNumber {
  bool negative = false;
  int32_t exp = 0;
  uint64_t sig[4] = {0, 0, 0, 0};
};

// Reads "[-]0xH[.HHH]p[+-]D" (any leading hex digit, as MPFR writes it); false for other text,
// zero, or a number with a one bit past the first `max_bits` (at most 256) significant bits.
bool parse_mpfr_hex(const std::string& s, int max_bits, HexNumber* out);

// Appends the text MPFR's mpfr_asprintf("%Ra") writes for the number (exact, no precision given):
// the exponent after 'p' is a multiple of 4, the leading hex digit holds the top 1 to 4 bits, and
// trailing zero digits (with the '.' when none is left) are dropped, so that a 64-bit and a
// 256-bit significand of the same value print alike.
void append_mpfr_hex(std::string& o, const HexNumber& h);

}  // namespace ds::app
