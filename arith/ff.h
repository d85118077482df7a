// ds::FloatFloat ("ff"): a value held as the unevaluated sum hi + lo of two binary32 words, kept
// normalized (hi = RN(hi + lo)), with the double-word algorithms of Joldes, Muller, Popescu, "Tight
// and rigorous error bounds for basic building blocks of double-word arithmetic", ACM TOMS 44(2),
// 2017 [JMP], and the square root of Lefevre, Louvet, Muller, Picot, Rideau, "Accurate calculation
// of Euclidean norms using double-word arithmetic", ACM TOMS 49(1), 2023 [LLMPR].
//
// Bounds are relative errors in u = 2^-24 (binary32 unit roundoff); traits().eps = u^2 = 2^-48. They
// hold when operands and exact result lie in [min_abs, max_abs] = [2^-78, 2^127] (or are zero):
// JMP and LLMPR assume no underflow, and above 2^-78 every intermediate of size u^2 |result| is a
// normal float, so only terms far below that size (from a low word much smaller than u |hi|) can
// underflow, each costing at most 2^-150 absolute (u^3 relative), inside each bound's slack.
// Below 2^-78 the precision degrades gradually; below 2^-102 a pair cannot even hold 48 bits (its
// low word would need bits under the subnormal grid 2^-149). Additions are exact when they
// underflow, so + and - keep their bound at any magnitude.
// Above 2^127 intermediates may overflow: results are then not finite (inf or NaN).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "decimal.h"
#include "eft.h"
#include "error.h"
#include "hd.h"
#include "traits.h"

namespace ds {

namespace ff_detail {

// 2^k as a float, exact, for -126 <= k <= 127.
DEEPSCOPE_HD float pow2(int k) {
  uint32_t bits = static_cast<uint32_t>(k + 127) << 23;
#if DEEPSCOPE_DEVICE_CODE
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
#endif
}

// RN(x * 2^k) for any int k: exact unless the result leaves the normal range. Downward scaling
// applies the part beyond -126 first and the 2^-126 steps last, so that only the step entering the
// subnormal range rounds (any later step then gives 0, as the exact product would).
DEEPSCOPE_HD float scale_pow2(float x, int k) {
  if (k >= 0) {
    if (k > 300) k = 300;  // beyond 2^277 every non-zero float overflows anyway
    for (; k > 127; k -= 127) x *= pow2(127);
    return x * pow2(k);
  }
  if (k < -300) k = -300;  // below 2^-277 every float rounds to zero anyway
  int steps = 0;
  for (; k < -126; k += 126) ++steps;
  x *= pow2(k);
  for (; steps > 0; --steps) x *= pow2(-126);
  return x;
}

// Binary exponent of a finite non-zero float (floor(log2 |x|), subnormals included).
DEEPSCOPE_HD int exponent(float x) {
#if DEEPSCOPE_DEVICE_CODE
  return ilogbf(x);
#else
  return std::ilogb(x);
#endif
}

DEEPSCOPE_HD bool finite_nonzero(float x) { return x != 0.0f && x - x == 0.0f; }

}  // namespace ff_detail

struct FloatFloat {
  float hi;
  float lo;

  FloatFloat() = default;
  // Unchecked (for kernels): hi = RN(d), lo = RN(d - hi). d - hi is exact in binary64, so the pair
  // equals d whenever d - hi fits in one float (in particular when d has at most 48 significant bits
  // and |d| >= 2^-102), and is within u |d - hi| <= u^2 |d| of d otherwise (plus 2^-150 where lo
  // underflows). NaN, Inf and |d| >= 2^128 give non-finite words.
  // lo can round up to exactly half an ulp of an odd hi, where RN(hi + lo) != hi: a fast two-sum
  // (exact, |hi| >= |lo|) then makes the pair normalized with the same value.
  DEEPSCOPE_HD explicit FloatFloat(double d) : hi(static_cast<float>(d)), lo(0.0f) {
    lo = static_cast<float>(d - static_cast<double>(hi));
    const float s = hi + lo;
    if (s - s == 0.0f) {  // finite (NaN, Inf and |d| >= 2^128 keep their non-finite words)
      lo = lo - (s - hi);
      hi = s;
    }
  }

  static constexpr bool kHasDivSqrt = true;
  // bits: a normalized pair holds at least 2 x 24 significant bits. rel_cost: from flop counts
  // (DWTimesDW3 is 9 binary32 operations, one binary32 operation counted as 0.5 f64 multiply) until
  // `deepscope bench arith` measures it.
  static constexpr FormatTraits traits() { return {"ff", 48, 0x1p-48, false, 0x1p127, 0x1p-78, 4.5}; }

  // Host only. Greedy nearest: hi = RN(x), lo = RN(x - hi) of the exact decimal value x, so the
  // result is normalized and within u^2 |x| of x. Throws ArithError on malformed input or when
  // |RN(x)| > max_abs.
  static FloatFloat from_string(const std::string& s) {
    float w[2];
    decimal::to_expansion(s, w, 2);
    if (std::fabs(static_cast<double>(w[0])) > traits().max_abs)
      throw ArithError("ff: value \"" + s + "\" is out of range");
    FloatFloat r;
    r.hi = w[0];
    r.lo = w[1];
    return r;
  }
  // Host only. Throws ArithError for NaN/Inf and |d| > max_abs; otherwise FloatFloat(d).
  static FloatFloat from_double(double d) {
    if (!std::isfinite(d)) throw ArithError("ff: value is not finite");
    if (std::fabs(d) > traits().max_abs) throw ArithError("ff: value out of range");
    return FloatFloat(d);
  }
};

namespace ff_detail {

DEEPSCOPE_HD FloatFloat make(float hi, float lo) {
  FloatFloat r;
  r.hi = hi;
  r.lo = lo;
  return r;
}

// DWPlusFP, JMP Algorithm 4: relative error <= 2u^2.
DEEPSCOPE_HD FloatFloat plus_fp(FloatFloat x, float y) {
  float sh, sl, zh, zl;
  eft::two_sum(x.hi, y, sh, sl);
  float v = x.lo + sl;
  eft::fast_two_sum(sh, v, zh, zl);
  return make(zh, zl);
}

// AccurateDWPlusDW, JMP Algorithm 6: relative error <= 3u^2 + 13u^3 for all signs.
DEEPSCOPE_HD FloatFloat plus_dw(FloatFloat x, FloatFloat y) {
  float sh, sl, th, tl, vh, vl, zh, zl;
  eft::two_sum(x.hi, y.hi, sh, sl);
  eft::two_sum(x.lo, y.lo, th, tl);
  float c = sl + th;
  eft::fast_two_sum(sh, c, vh, vl);
  float w = tl + vl;
  eft::fast_two_sum(vh, w, zh, zl);
  return make(zh, zl);
}

// DWTimesFP3 (with FMA), JMP Algorithm 9: relative error <= 2u^2.
DEEPSCOPE_HD FloatFloat times_fp(FloatFloat x, float y) {
  float ch, cl1, zh, zl;
  eft::two_prod(x.hi, y, ch, cl1);
  float cl3 = eft::fma_rn(x.lo, y, cl1);
  eft::fast_two_sum(ch, cl3, zh, zl);
  return make(zh, zl);
}

// DWTimesDW3 (with FMA), JMP Algorithm 12: relative error <= 5u^2.
DEEPSCOPE_HD FloatFloat times_dw(FloatFloat x, FloatFloat y) {
  float ch, cl1, zh, zl;
  eft::two_prod(x.hi, y.hi, ch, cl1);
  float tl0 = x.lo * y.lo;
  float tl1 = eft::fma_rn(x.hi, y.lo, tl0);
  float cl2 = eft::fma_rn(x.lo, y.hi, tl1);
  float cl3 = cl1 + cl2;
  eft::fast_two_sum(ch, cl3, zh, zl);
  return make(zh, zl);
}

// DWDivDW3, JMP Algorithm 18: one Newton step on 1/y in double-word, then DWTimesDW3. Relative error
// <= 9.8u^2. Needs 1/y.hi and the words of the reciprocal to stay normal; the
// caller (operator/) scales both operands to [1, 2) first.
DEEPSCOPE_HD FloatFloat div_dw3(FloatFloat x, FloatFloat y) {
  float th = 1.0f / y.hi;
  float rh = eft::fma_rn(-y.hi, th, 1.0f);
  float rl = -(y.lo * th);
  float eh, el;
  eft::fast_two_sum(rh, rl, eh, el);
  FloatFloat d = times_fp(make(eh, el), th);
  FloatFloat m = plus_fp(d, th);
  return times_dw(x, m);
}

}  // namespace ff_detail

// The "T op double" forms convert d with FloatFloat(d) (see there: exact when d fits in a pair).
// When the converted low word is zero, the cheaper and tighter DW-op-FP algorithm is used.

// AccurateDWPlusDW (JMP Alg. 6): |rel err| <= 3u^2 + 13u^3. Against a double: DWPlusFP (JMP Alg.
// 4, <= 2u^2) when d is a float, else Alg. 6 on FloatFloat(d).
DEEPSCOPE_HD FloatFloat operator+(FloatFloat x, FloatFloat y) { return ff_detail::plus_dw(x, y); }
DEEPSCOPE_HD FloatFloat operator+(FloatFloat x, double d) {
  FloatFloat y(d);
  return y.lo == 0.0f ? ff_detail::plus_fp(x, y.hi) : ff_detail::plus_dw(x, y);
}
// x - y = x + (-y): same algorithms and bounds (negation is exact).
DEEPSCOPE_HD FloatFloat operator-(FloatFloat x) { return ff_detail::make(-x.hi, -x.lo); }
DEEPSCOPE_HD FloatFloat operator-(FloatFloat x, FloatFloat y) { return ff_detail::plus_dw(x, -y); }
DEEPSCOPE_HD FloatFloat operator-(FloatFloat x, double d) { return x + (-d); }
// DWTimesDW3 (JMP Alg. 12): |rel err| <= 5u^2. Against a double: DWTimesFP3 (JMP Alg. 9, <= 2u^2)
// when d is a float, else Alg. 12 on FloatFloat(d).
DEEPSCOPE_HD FloatFloat operator*(FloatFloat x, FloatFloat y) { return ff_detail::times_dw(x, y); }
DEEPSCOPE_HD FloatFloat operator*(FloatFloat x, double d) {
  FloatFloat y(d);
  return y.lo == 0.0f ? ff_detail::times_fp(x, y.hi) : ff_detail::times_dw(x, y);
}

// Exact: x * 2^k word by word, barring overflow and underflow. A low word rounded onto the
// subnormal grid can break hi = RN(hi + lo) (a tie), which one Fast2Sum restores.
DEEPSCOPE_HD FloatFloat mul_pow2(FloatFloat x, int k) {
  float h = ff_detail::scale_pow2(x.hi, k);
  float l = ff_detail::scale_pow2(x.lo, k);
  if (l != 0.0f && l > -0x1p-126f && l < 0x1p-126f) eft::fast_two_sum(h, l, h, l);
  return ff_detail::make(h, l);
}

// DWDivDW3 (JMP Alg. 18): |rel err| <= 9.8u^2. Both operands are first scaled exactly to [1, 2)
// and the quotient scaled back, so the bound holds for every quotient in [min_abs, max_abs]
// whatever the operands' exponents (a low word scaled below 2^-149 relative to its high word is
// dropped: < u^6). Zero, Inf or NaN operands give (x.hi / y.hi, 0).
DEEPSCOPE_HD FloatFloat operator/(FloatFloat x, FloatFloat y) {
  if (!ff_detail::finite_nonzero(x.hi) || !ff_detail::finite_nonzero(y.hi))
    return ff_detail::make(x.hi / y.hi, 0.0f);
  int ex = ff_detail::exponent(x.hi), ey = ff_detail::exponent(y.hi);
  FloatFloat q = ff_detail::div_dw3(mul_pow2(x, -ex), mul_pow2(y, -ey));
  return mul_pow2(q, ex - ey);
}

// SQRTDWtoDW, LLMPR Algorithm 8: |rel err| <= 25/8 u^2 (LLMPR's theorem). sqrt(0) = 0; a negative
// operand gives NaN. Sketch of our own cruder check, with sh = RN(sqrt(xh)) and x = xh + xl:
// R = x - sh^2 satisfies |R| <= (3u + u^2) xh; the FMA residual and the sum with xl cost
// <= 2u^2 xh + 3u^2 xh, the division by 2sh another 1.5u^2 sh, and dropping the Taylor term
// R^2 / (8 sh^3) <= 9/8 u^2 sh, so |error| <= (5/2 + 3/2 + 9/8) u^2 sh + O(u^3) = 5.125u^2 sqrt(x);
// LLMPR's sharper analysis (correlating sh's rounding with R) gives the 25/8 we state and test.
DEEPSCOPE_HD FloatFloat sqrt(FloatFloat x) {
  if (x.hi == 0.0f) return ff_detail::make(x.hi, 0.0f);
  float sh = std::sqrt(x.hi);
  float r1 = eft::fma_rn(-sh, sh, x.hi);
  float r2 = x.lo + r1;
  float sl = r2 / (2.0f * sh);
  float zh, zl;
  eft::fast_two_sum(sh, sl, zh, zl);
  return ff_detail::make(zh, zl);
}

DEEPSCOPE_HD FloatFloat neg(FloatFloat x) { return -x; }
DEEPSCOPE_HD FloatFloat abs(FloatFloat x) { return x.hi < 0.0f ? -x : x; }
// DWTimesDW3 on (x, x): |rel err| <= 5u^2.
DEEPSCOPE_HD FloatFloat sqr(FloatFloat x) { return ff_detail::times_dw(x, x); }
// RN_binary64(hi + lo): one rounding of the exact value.
DEEPSCOPE_HD double to_double(FloatFloat x) { return static_cast<double>(x.hi) + static_cast<double>(x.lo); }

// Exact comparisons: a normalized pair is the unique representation of its value, so the order of
// the values is the lexicographic order of (hi, lo).
DEEPSCOPE_HD bool operator<(FloatFloat a, FloatFloat b) {
  return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
DEEPSCOPE_HD bool operator>(FloatFloat a, FloatFloat b) { return b < a; }
DEEPSCOPE_HD bool operator<=(FloatFloat a, FloatFloat b) {
  return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
}
DEEPSCOPE_HD bool operator>=(FloatFloat a, FloatFloat b) { return b <= a; }
DEEPSCOPE_HD bool operator==(FloatFloat a, FloatFloat b) { return a.hi == b.hi && a.lo == b.lo; }
DEEPSCOPE_HD bool operator!=(FloatFloat a, FloatFloat b) { return !(a == b); }

// Host only: the exact value (sig_digits == 0) or rounded half-even to sig_digits digits.
inline std::string to_string(FloatFloat x, int sig_digits = 0) {
  float w[2] = {x.hi, x.lo};
  return decimal::from_expansion(w, 2, sig_digits);
}

}  // namespace ds
