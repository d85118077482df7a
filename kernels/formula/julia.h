// A Julia set's fixed c (issue 45, item 3): the pixel is the orbit's first point and c is the same
// for every pixel. Parsed and checked here; every formula engine (direct, perturbation, BLA, MPFR)
// takes it beside the formula. docs/formulas.md, "Julia sets".
#pragma once
#include <string>

#include "formula.h"

namespace ds::formula {

// Empty (on() false): the parameter plane, c = the pixel, z_1 = c. Given: z_1 = the pixel and
// c = re + i im (decimal strings, exact as written) for every pixel; the steps and the count are
// the same (z_{n+1} = phase[n mod phases](z_n), the first n >= 1 with |z_n|^2 > 4), so the Julia
// orbit of the pixel c is the parameter plane's orbit of c, count for count, hybrids included.
struct JuliaSeed {
  std::string re, im;
  double re_d = 0, im_d = 0;  // nearest binary64
  bool on() const { return !re.empty(); }
};

// Checks and builds a seed from the two decimal strings: each a finite decimal (FormulaError naming
// `field_re` or `field_im` otherwise, or naming the missing one), and |c| <= 2 (exactly), where the escape
// radius 2 is right for every formula here (|phase(z)| >= |z|^2 - |c| > |z| once |z| > 2,
// docs/formulas.md); a larger |c| is refused naming both fields (its Julia set is a Cantor dust
// that the radius-2 test would count wrongly).
JuliaSeed parse_julia(const std::string& re, const std::string& im, const std::string& field_re = "julia re",
                      const std::string& field_im = "julia im");

// The seed conj(c) (im's sign flipped in its string): the Julia set of the conjugate formula
// (formula.h's conjugated) at conj(c) is the mirror image of f's at c, conj(f(conj w)) adding conj(c).
JuliaSeed conjugated(const JuliaSeed& j);

// "c = RE + IM i" as the PNG record and the messages write it (the strings as given).
std::string julia_text(const JuliaSeed& j);

}  // namespace ds::formula
