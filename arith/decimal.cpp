// Exact decimal <-> binary conversion for the arithmetic core, on GMP rationals and MPFR.
#include "decimal.h"

#include <gmp.h>
#include <mpfr.h>

#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "mpfr_number.h"

namespace ds::decimal {
namespace {

constexpr long kMaxExponent = 1000000;

[[noreturn]] void fail(const std::string& s, const char* why) {
  std::string shown = s.size() > 80 ? s.substr(0, 77) + "..." : s;
  throw ArithError("malformed number \"" + shown + "\": " + why);
}

// RAII holders for GMP/MPFR values.
struct Q {
  mpq_t v;
  Q() { mpq_init(v); }
  ~Q() { mpq_clear(v); }
  Q(const Q&) = delete;
  Q& operator=(const Q&) = delete;
};
struct Z {
  mpz_t v;
  Z() { mpz_init(v); }
  ~Z() { mpz_clear(v); }
  Z(const Z&) = delete;
  Z& operator=(const Z&) = delete;
};
// Parses s exactly into q. Throws on anything but the documented syntax.
void parse(const std::string& s, mpq_t q) {
  size_t i = 0, n = s.size();
  while (i < n && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  size_t end = n;
  while (end > i && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  if (i == end) fail(s, "empty string");
  bool neg = false;
  if (s[i] == '+' || s[i] == '-') neg = s[i++] == '-';
  std::string digits;
  long frac_digits = 0;
  bool seen_point = false;
  for (; i < end; ++i) {
    char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits.push_back(c);
      if (seen_point) ++frac_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (digits.empty()) {
    std::string rest = s.substr(i, end - i);
    for (auto& c : rest) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (rest.rfind("nan", 0) == 0 || rest.rfind("inf", 0) == 0)
      fail(s, "NaN and infinity are not finite numbers");
    fail(s, "expected digits");
  }
  long exp10 = 0;
  if (i < end && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < end && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
    if (i == end || !std::isdigit(static_cast<unsigned char>(s[i]))) fail(s, "expected exponent digits");
    for (; i < end && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
      exp10 = exp10 * 10 + (s[i] - '0');
      if (exp10 > kMaxExponent) fail(s, "exponent beyond +-1e6");
    }
    if (eneg) exp10 = -exp10;
  }
  if (i != end) fail(s, "unexpected character");
  exp10 -= frac_digits;
  if (exp10 > kMaxExponent || exp10 < -kMaxExponent - static_cast<long>(digits.size()))
    fail(s, "exponent beyond +-1e6");
  Z num, pow;
  mpz_set_str(num.v, digits.c_str(), 10);
  if (neg) mpz_neg(num.v, num.v);
  mpz_ui_pow_ui(pow.v, 10, static_cast<unsigned long>(exp10 < 0 ? -exp10 : exp10));
  if (exp10 >= 0) {
    mpz_mul(num.v, num.v, pow.v);
    mpq_set_z(q, num.v);
  } else {
    mpq_set_num(q, num.v);
    mpq_set_den(q, pow.v);
    mpq_canonicalize(q);
  }
}

// Correctly rounded conversion of q to a binary format with `prec` bits, subnormals at `emin`,
// overflow above `emax` (MPFR's exponent convention). Returns false on overflow.
template <class F>
bool round_to(const mpq_t q, F& out) {
  constexpr int prec = std::numeric_limits<F>::digits;
  constexpr int emax = std::numeric_limits<F>::max_exponent;
  constexpr int emin = std::numeric_limits<F>::min_exponent - prec + 1;
  mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  Mpfr r(prec);
  int t = mpfr_set_q(r.v, q, MPFR_RNDN);
  t = mpfr_check_range(r.v, t, MPFR_RNDN);
  mpfr_subnormalize(r.v, t, MPFR_RNDN);
  bool ok = !mpfr_inf_p(r.v);
  out = static_cast<F>(mpfr_get_d(r.v, MPFR_RNDN));  // exact: r holds a value of F
  mpfr_set_emin(old_min);
  mpfr_set_emax(old_max);
  return ok;
}

template <class F>
void expansion_from(const std::string& s, F* out, int n, const char* fmt) {
  Q q, t;
  parse(s, q.v);
  for (int k = 0; k < n; ++k) {
    F d;
    if (!round_to(q.v, d)) throw ArithError("value \"" + s + "\" is out of range for " + fmt);
    out[k] = d;
    mpq_set_d(t.v, static_cast<double>(d));
    mpq_sub(q.v, q.v, t.v);
  }
}

// Rounds q * 2^frac_bits half-even to an integer.
void scaled_integer(const mpq_t q, int frac_bits, mpz_t v) {
  Q x;
  mpq_set(x.v, q);
  if (frac_bits >= 0)
    mpq_mul_2exp(x.v, x.v, static_cast<mp_bitcnt_t>(frac_bits));
  else
    mpq_div_2exp(x.v, x.v, static_cast<mp_bitcnt_t>(-frac_bits));
  Z r;
  // floor division, then half-even on the remainder
  mpz_fdiv_qr(v, r.v, mpq_numref(x.v), mpq_denref(x.v));
  mpz_mul_2exp(r.v, r.v, 1);
  int c = mpz_cmp(r.v, mpq_denref(x.v));
  if (c > 0 || (c == 0 && mpz_odd_p(v))) mpz_add_ui(v, v, 1);
}

void export_words(const mpz_t v, uint32_t* words, int nwords) {
  Z t;
  mpz_set(t.v, v);
  for (int k = nwords - 1; k >= 0; --k) {
    words[k] = static_cast<uint32_t>(mpz_get_ui(t.v) & 0xffffffffu);
    mpz_fdiv_q_2exp(t.v, t.v, 32);
  }
}

void import_words(mpz_t v, const uint32_t* words, int nwords) {
  mpz_set_ui(v, 0);
  for (int k = 0; k < nwords; ++k) {
    mpz_mul_2exp(v, v, 32);
    mpz_add_ui(v, v, words[k]);
  }
}

// Formats m * 2^-k exactly or to sig_digits significant digits.
std::string format_scaled(const mpz_t m, long k, int sig_digits) {
  if (mpz_sgn(m) == 0) return "0";
  size_t bits = mpz_sizeinbase(m, 2);
  Mpfr r(static_cast<mpfr_prec_t>(bits < 2 ? 2 : bits));
  mpfr_set_z_2exp(r.v, m, -k, MPFR_RNDN);  // exact: precision holds every bit of m
  if (sig_digits <= 0) {
    // Exact digits: m * 5^k / 10^k for k > 0.
    Z d;
    if (k > 0) {
      mpz_ui_pow_ui(d.v, 5, static_cast<unsigned long>(k));
      mpz_mul(d.v, d.v, m);
    } else {
      mpz_mul_2exp(d.v, m, static_cast<mp_bitcnt_t>(-k));
    }
    bool neg = mpz_sgn(d.v) < 0;
    mpz_abs(d.v, d.v);
    std::unique_ptr<char, void (*)(void*)> p(mpz_get_str(nullptr, 10, d.v), free);
    std::string digs = p.get();
    long point = static_cast<long>(digs.size()) - (k > 0 ? k : 0);  // digits before the point
    // strip trailing zeros of the fraction
    long last = static_cast<long>(digs.size());
    while (last > point && last > 1 && digs[static_cast<size_t>(last - 1)] == '0') --last;
    digs.resize(static_cast<size_t>(last));
    long exp10 = point - 1;
    // remove leading zeros for the scientific form
    size_t lead = digs.find_first_not_of('0');
    std::string sig = digs.substr(lead);
    exp10 -= static_cast<long>(lead);
    std::string out = neg ? "-" : "";
    if (exp10 > -30 && exp10 < 30) {
      if (point <= 0) {
        out += "0." + std::string(static_cast<size_t>(-point), '0') + digs;
      } else if (point >= static_cast<long>(digs.size())) {
        out += digs + std::string(static_cast<size_t>(point) - digs.size(), '0');
      } else {
        out += digs.substr(0, static_cast<size_t>(point)) + "." + digs.substr(static_cast<size_t>(point));
      }
      // drop leading zeros of the integer part ("00.5" cannot occur, but "0" prefix is kept)
      return out;
    }
    while (sig.size() > 1 && sig.back() == '0') sig.pop_back();
    out += sig.substr(0, 1);
    if (sig.size() > 1) out += "." + sig.substr(1);
    return out + "e" + std::to_string(exp10);
  }
  mpfr_exp_t e10 = 0;
  char* raw = mpfr_get_str(nullptr, &e10, 10, static_cast<size_t>(sig_digits), r.v, MPFR_RNDN);
  std::string digs = raw;
  mpfr_free_str(raw);
  bool neg = !digs.empty() && digs[0] == '-';
  if (neg) digs.erase(0, 1);
  while (digs.size() > 1 && digs.back() == '0') digs.pop_back();
  long exp10 = static_cast<long>(e10) - 1;  // value = 0.d1d2... * 10^e10
  std::string out = neg ? "-" : "";
  if (exp10 > -30 && exp10 < 30) {
    long point = exp10 + 1;
    if (point <= 0)
      out += "0." + std::string(static_cast<size_t>(-point), '0') + digs;
    else if (point >= static_cast<long>(digs.size()))
      out += digs + std::string(static_cast<size_t>(point) - digs.size(), '0');
    else
      out += digs.substr(0, static_cast<size_t>(point)) + "." + digs.substr(static_cast<size_t>(point));
    return out;
  }
  out += digs.substr(0, 1);
  if (digs.size() > 1) out += "." + digs.substr(1);
  return out + "e" + std::to_string(exp10);
}

template <class F>
std::string expansion_to(const F* terms, int n, int sig_digits) {
  // Common denominator 2^k with k covering the smallest term's last bit.
  Z sum, t;
  long k = 0;
  for (int i = 0; i < n; ++i) {
    double d = static_cast<double>(terms[i]);
    if (!std::isfinite(d)) return std::isnan(d) ? "nan" : (d > 0 ? "inf" : "-inf");
    if (d == 0) continue;
    int e;
    std::frexp(d, &e);
    long need = 64 - e;  // 2^need * d is an integer for doubles (53-bit significand)
    if (need > k) k = need;
  }
  for (int i = 0; i < n; ++i) {
    double d = static_cast<double>(terms[i]);
    if (d == 0) continue;
    int e;
    double m = std::frexp(d, &e);                     // d = m * 2^e, 0.5 <= |m| < 1
    long long im = static_cast<long long>(std::ldexp(m, 64 - 1 - 10));  // 53 bits exact
    mpz_set_si(t.v, im);
    long shift = k + e - (64 - 1 - 10);
    mpz_mul_2exp(t.v, t.v, static_cast<mp_bitcnt_t>(shift));
    mpz_add(sum.v, sum.v, t.v);
  }
  return format_scaled(sum.v, k, sig_digits);
}

}  // namespace

void validate(const std::string& s) {
  Q q;
  parse(s, q.v);
}

void to_expansion(const std::string& s, double* out, int n) { expansion_from(s, out, n, "binary64"); }
void to_expansion(const std::string& s, float* out, int n) { expansion_from(s, out, n, "binary32"); }

void to_twos_complement(const std::string& s, int frac_bits, uint32_t* words, int nwords) {
  Q q;
  parse(s, q.v);
  Z v, lim;
  scaled_integer(q.v, frac_bits, v.v);
  mpz_setbit(lim.v, static_cast<mp_bitcnt_t>(32 * nwords - 1));
  Z neglim;
  mpz_neg(neglim.v, lim.v);
  if (mpz_cmp(v.v, lim.v) >= 0 || mpz_cmp(v.v, neglim.v) < 0) {
    int int_bits = 32 * nwords - frac_bits;
    throw ArithError("value \"" + s + "\" is outside the fixed-point range [-2^" +
                     std::to_string(int_bits - 1) + ", 2^" + std::to_string(int_bits - 1) + ")");
  }
  if (mpz_sgn(v.v) < 0) {
    Z mod;
    mpz_setbit(mod.v, static_cast<mp_bitcnt_t>(32 * nwords));
    mpz_add(v.v, v.v, mod.v);
  }
  export_words(v.v, words, nwords);
}

bool to_sign_magnitude(const std::string& s, int frac_bits, uint32_t* words, int nwords) {
  Q q;
  parse(s, q.v);
  bool neg = mpq_sgn(q.v) < 0;
  mpq_abs(q.v, q.v);
  Z v;
  scaled_integer(q.v, frac_bits, v.v);
  if (mpz_sizeinbase(v.v, 2) > static_cast<size_t>(32 * nwords)) {
    int int_bits = 32 * nwords - frac_bits;
    throw ArithError("value \"" + s + "\" is outside the fixed-point range (-2^" +
                     std::to_string(int_bits) + ", 2^" + std::to_string(int_bits) + ")");
  }
  export_words(v.v, words, nwords);
  return neg && mpz_sgn(v.v) != 0;
}

std::string from_expansion(const double* terms, int n, int sig_digits) {
  return expansion_to(terms, n, sig_digits);
}
std::string from_expansion(const float* terms, int n, int sig_digits) {
  return expansion_to(terms, n, sig_digits);
}

std::string from_twos_complement(const uint32_t* words, int nwords, int frac_bits, int sig_digits) {
  Z v;
  import_words(v.v, words, nwords);
  if (nwords > 0 && (words[0] & 0x80000000u)) {
    Z mod;
    mpz_setbit(mod.v, static_cast<mp_bitcnt_t>(32 * nwords));
    mpz_sub(v.v, v.v, mod.v);
  }
  return format_scaled(v.v, frac_bits, sig_digits);
}

std::string from_sign_magnitude(bool negative, const uint32_t* words, int nwords, int frac_bits,
                                int sig_digits) {
  Z v;
  import_words(v.v, words, nwords);
  if (negative) mpz_neg(v.v, v.v);
  return format_scaled(v.v, frac_bits, sig_digits);
}

void to_wide_binary(const std::string& s, double* mantissa, long* exp2) {
  Q q;
  parse(s, q.v);
  Mpfr r(53);
  mpfr_set_q(r.v, q.v, MPFR_RNDN);  // MPFR's default exponent range holds 10^(+-1e6)
  if (mpfr_zero_p(r.v)) {
    *mantissa = 0;
    *exp2 = 0;
    return;
  }
  long e = 0;
  double m = mpfr_get_d_2exp(&e, r.v, MPFR_RNDN);  // exact: |m| in [0.5, 1) with 53 bits
  *mantissa = 2 * m;
  *exp2 = e - 1;
}

std::string from_wide_binary(double mantissa, long exp2, int sig_digits) {
  if (!std::isfinite(mantissa)) return std::isnan(mantissa) ? "nan" : (mantissa > 0 ? "inf" : "-inf");
  if (mantissa == 0) return "0";
  int e = 0;
  double f = std::frexp(mantissa, &e);  // mantissa = f 2^e, f 2^53 an integer
  Z m;
  mpz_set_d(m.v, std::ldexp(f, 53));
  return format_scaled(m.v, 53 - static_cast<long>(e) - exp2, sig_digits);
}

int digits_for_bits(int bits) { return static_cast<int>(std::ceil(bits * 0.30102999566398120)) + 1; }

}  // namespace ds::decimal
