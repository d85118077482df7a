// Error-free transforms on float and double (Muller et al., Handbook of FP Arithmetic, ch. 4-5;
// Hénon-sinks paper, Algorithms 1-3). Valid in round-to-nearest, without overflow.
// FMA contraction is disabled project-wide (-ffp-contract=off, nvcc --fmad=false), so every fma
// here is explicit and host and device round identically.
#pragma once
#include <cmath>

#include "hd.h"

namespace ds::eft {

DEEPSCOPE_HD double fma_rn(double a, double b, double c) {
#if DEEPSCOPE_DEVICE_CODE
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
DEEPSCOPE_HD float fma_rn(float a, float b, float c) {
#if DEEPSCOPE_DEVICE_CODE
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// two_sum: s = RN(a+b), e = (a+b) - s exactly, for any a, b (6 flops, Algorithm 1).
template <class F>
DEEPSCOPE_HD void two_sum(F a, F b, F& s, F& e) {
  s = a + b;
  F bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}

// fast_two_sum: s = RN(a+b), e = (a+b) - s exactly, provided |a| >= |b| or a == 0 (3 flops).
template <class F>
DEEPSCOPE_HD void fast_two_sum(F a, F b, F& s, F& e) {
  s = a + b;
  e = b - (s - a);
}

// two_prod: p = RN(a*b), e = a*b - p exactly via one FMA (Algorithm 2), barring underflow of e.
template <class F>
DEEPSCOPE_HD void two_prod(F a, F b, F& p, F& e) {
  p = a * b;
  e = fma_rn(a, b, -p);
}

}  // namespace ds::eft
