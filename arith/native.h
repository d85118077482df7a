// f32 and f64: the hardware binary32/binary64 formats behind the same interface as every other
// number type. Contract: each of + - * / sqrt is correctly rounded (|err| <= u |x|, u = 2^-p);
// sqr is RN(x*x); mul_pow2 is exact barring overflow/underflow. Decimal input rounds to nearest.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "decimal.h"
#include "hd.h"
#include "traits.h"

namespace ds {

template <class F>
struct Native {
  F v;

  Native() = default;
  DEEPSCOPE_HD explicit Native(double d) : v(static_cast<F>(d)) {}

  static constexpr int kDigits = std::numeric_limits<F>::digits;
  static constexpr bool kHasDivSqrt = true;
  static constexpr FormatTraits traits() {
    return {kDigits == 24 ? "f32" : "f64",
            kDigits,
            kDigits == 24 ? 5.9604644775390625e-08 : 1.1102230246251565e-16,
            false,
            static_cast<double>(std::numeric_limits<F>::max()),
            static_cast<double>(std::numeric_limits<F>::min()),
            kDigits == 24 ? 0.5 : 1.0};
  }

  // Host only. Throws ArithError on malformed input or overflow.
  static Native from_string(const std::string& s) {
    Native r;
    decimal::to_expansion(s, &r.v, 1);
    return r;
  }
  // Host only. Throws ArithError for NaN/Inf (the formats hold them, but no caller may pass one on).
  static Native from_double(double d) {
    if (!std::isfinite(d)) throw ArithError(std::string(traits().name) + ": value is not finite");
    if (std::fabs(d) > traits().max_abs) throw ArithError(std::string(traits().name) + ": value out of range");
    return Native(d);
  }
};

using F32 = Native<float>;
using F64 = Native<double>;

// True for the hardware formats (f32, f64), which kernels give loops of their own.
template <class T>
struct IsNative : std::false_type {};
template <class F>
struct IsNative<Native<F>> : std::true_type {};

template <class F> DEEPSCOPE_HD Native<F> operator+(Native<F> a, Native<F> b) { Native<F> r; r.v = a.v + b.v; return r; }
template <class F> DEEPSCOPE_HD Native<F> operator-(Native<F> a, Native<F> b) { Native<F> r; r.v = a.v - b.v; return r; }
template <class F> DEEPSCOPE_HD Native<F> operator*(Native<F> a, Native<F> b) { Native<F> r; r.v = a.v * b.v; return r; }
template <class F> DEEPSCOPE_HD Native<F> operator/(Native<F> a, Native<F> b) { Native<F> r; r.v = a.v / b.v; return r; }
template <class F> DEEPSCOPE_HD Native<F> operator+(Native<F> a, double b) { return a + Native<F>(b); }
template <class F> DEEPSCOPE_HD Native<F> operator-(Native<F> a, double b) { return a - Native<F>(b); }
template <class F> DEEPSCOPE_HD Native<F> operator*(Native<F> a, double b) { return a * Native<F>(b); }
template <class F> DEEPSCOPE_HD Native<F> operator-(Native<F> a) { Native<F> r; r.v = -a.v; return r; }
template <class F> DEEPSCOPE_HD Native<F> neg(Native<F> a) { return -a; }
template <class F> DEEPSCOPE_HD Native<F> abs(Native<F> a) { Native<F> r; r.v = a.v < 0 ? -a.v : a.v; return r; }
template <class F> DEEPSCOPE_HD Native<F> sqr(Native<F> a) { return a * a; }
template <class F> DEEPSCOPE_HD Native<F> mul_pow2(Native<F> a, int k) { Native<F> r; r.v = std::ldexp(a.v, k); return r; }
template <class F> DEEPSCOPE_HD Native<F> sqrt(Native<F> a) { Native<F> r; r.v = std::sqrt(a.v); return r; }
template <class F> DEEPSCOPE_HD double to_double(Native<F> a) { return static_cast<double>(a.v); }
template <class F> DEEPSCOPE_HD bool operator<(Native<F> a, Native<F> b) { return a.v < b.v; }
template <class F> DEEPSCOPE_HD bool operator>(Native<F> a, Native<F> b) { return a.v > b.v; }
template <class F> DEEPSCOPE_HD bool operator<=(Native<F> a, Native<F> b) { return a.v <= b.v; }
template <class F> DEEPSCOPE_HD bool operator>=(Native<F> a, Native<F> b) { return a.v >= b.v; }
template <class F> DEEPSCOPE_HD bool operator==(Native<F> a, Native<F> b) { return a.v == b.v; }
template <class F> DEEPSCOPE_HD bool operator!=(Native<F> a, Native<F> b) { return a.v != b.v; }
// Host only: exact decimal (sig_digits == 0) or rounded to sig_digits significant digits.
template <class F> std::string to_string(Native<F> a, int sig_digits = 0) { return decimal::from_expansion(&a.v, 1, sig_digits); }

}  // namespace ds
