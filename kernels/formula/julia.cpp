// Julia seeds: parsing and the |c| <= 2 check (julia.h).
#include "julia.h"

#include <gmp.h>
#include <mpfr.h>

#include "arith/decimal.h"
#include "arith/mpfr_number.h"

namespace ds::formula {

namespace {
std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

// The exact value of a decimal that decimal::validate accepted ([+-] digits [. digits] [e [+-] digits]).
void to_rational(const std::string& s, mpq_t q) {
  std::size_t i = 0;
  if (s[i] == '+' || s[i] == '-') ++i;
  std::string digits;
  long exp10 = 0;
  bool fraction = false;
  for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
    if (s[i] == '.') {
      fraction = true;
      continue;
    }
    digits += s[i];
    if (fraction) --exp10;
  }
  if (i < s.size()) exp10 += std::stol(s.substr(i + 1));
  mpz_t num, pow;
  mpz_init_set_str(num, digits.c_str(), 10);
  mpz_init(pow);
  mpz_ui_pow_ui(pow, 10, static_cast<unsigned long>(exp10 < 0 ? -exp10 : exp10));
  if (exp10 >= 0) {
    mpz_mul(num, num, pow);
    mpz_set_ui(pow, 1);
  }
  mpq_set_num(q, num);
  mpq_set_den(q, pow);
  mpq_canonicalize(q);
  mpz_clear(num);
  mpz_clear(pow);
}

// Exactly whether re^2 + im^2 <= 4.
bool modulus_at_most_2(const std::string& re, const std::string& im) {
  mpq_t a, b, four;
  mpq_inits(a, b, four, static_cast<mpq_ptr>(nullptr));
  to_rational(re, a);
  to_rational(im, b);
  mpq_mul(a, a, a);
  mpq_mul(b, b, b);
  mpq_add(a, a, b);
  mpq_set_ui(four, 4, 1);
  const bool ok = mpq_cmp(a, four) <= 0;
  mpq_clears(a, b, four, static_cast<mpq_ptr>(nullptr));
  return ok;
}

void check_decimal(const std::string& field, const std::string& text) {
  if (text.empty()) throw FormulaError(field + ": missing (a Julia seed needs both parts)");
  try {
    decimal::validate(text);
  } catch (const ArithError& e) {
    throw FormulaError(field + ": " + e.what());
  }
}
}  // namespace

JuliaSeed parse_julia(const std::string& re, const std::string& im, const std::string& field_re,
                      const std::string& field_im) {
  JuliaSeed j;
  j.re = trimmed(re);
  j.im = trimmed(im);
  check_decimal(field_re, j.re);
  check_decimal(field_im, j.im);
  if (!modulus_at_most_2(j.re, j.im))  // exactly, on the decimals as written
    throw FormulaError(field_re + ", " + field_im + ": |c| = |" + j.re + " + " + j.im +
                       " i| is above 2; Julia sets are drawn for |c| <= 2, where the escape radius 2 "
                       "holds (for larger c the set is a Cantor dust)");
  char* end = nullptr;
  Mpfr n(64);
  mpfr_strtofr(n.v, j.re.c_str(), &end, 10, MPFR_RNDN);
  j.re_d = mpfr_get_d(n.v, MPFR_RNDN);
  mpfr_strtofr(n.v, j.im.c_str(), &end, 10, MPFR_RNDN);
  j.im_d = mpfr_get_d(n.v, MPFR_RNDN);
  return j;
}

JuliaSeed conjugated(const JuliaSeed& j) {
  if (!j.on()) return j;
  JuliaSeed c = j;
  const char s = c.im.empty() ? '\0' : c.im[0];
  c.im = s == '-' ? c.im.substr(1) : "-" + (s == '+' ? c.im.substr(1) : c.im);
  c.im_d = -j.im_d;
  return c;
}

std::string julia_text(const JuliaSeed& j) {
  // "c = -0.68 - 0.023 i", not "+ -0.023 i" (the parts stay as given).
  if (!j.im.empty() && j.im[0] == '-') return "c = " + j.re + " - " + j.im.substr(1) + " i";
  if (!j.im.empty() && j.im[0] == '+') return "c = " + j.re + " + " + j.im.substr(1) + " i";
  return "c = " + j.re + " + " + j.im + " i";
}

}  // namespace ds::formula
