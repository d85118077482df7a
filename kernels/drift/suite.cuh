// Per-item math of the thesis's synthetic suite (sections 6.2 and 6.3), shared by the CPU backend
// (suite_cpu.cpp) and the CUDA wrappers (drift.cu): one thread's block sum in any of the
// summation arithmetics, and the do/undo loop x = (x op y) op^-1 y.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include "arith/format.h"
#include "arith/hd.h"
#include "drift.h"

namespace ds::drift {

// SplitMix64 (Steele, Lea, Flood 2014): a counter-based generator, so that element k of a stream
// is the same on every backend and needs no state.
DEEPSCOPE_HD uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
// Uniform in [0, 1), 53 bits.
DEEPSCOPE_HD double uniform01(uint64_t seed, uint64_t k) {
  return static_cast<double>(splitmix64(seed * 0x2545F4914F6CDD1DULL + k) >> 11) * 0x1p-53;
}
// A binary32 number uniform in [lo, hi): the same value in every arithmetic.
DEEPSCOPE_HD double uniform_f32(uint64_t seed, uint64_t k, double lo, double hi) {
  return static_cast<double>(static_cast<float>(lo + (hi - lo) * uniform01(seed, k)));
}

// Kahan-compensated binary32 summation (Kahan 1965): s the sum, c the running compensation.
// Relies on the project's -ffp-contract=off / --fmad=false, so the compensation is not fused away.
struct KahanF32 {
  float s, c;
};
DEEPSCOPE_HD KahanF32 kahan_zero() { return KahanF32{0.0f, 0.0f}; }
DEEPSCOPE_HD void kahan_add(KahanF32& k, float x) {
  const float y = x - k.c;
  const float t = k.s + y;
  k.c = (t - k.s) - y;
  k.s = t;
}

// The two storage words of each summation type, and back (exact: each word is a float or double).
template <class T>
struct Words;
template <>
struct Words<F32> {
  DEEPSCOPE_HD static void put(const F32& x, double* w) { w[0] = x.v, w[1] = 0.0; }
  DEEPSCOPE_HD static F32 get(const double* w) { return F32(w[0]); }
};
template <>
struct Words<F64> {
  DEEPSCOPE_HD static void put(const F64& x, double* w) { w[0] = x.v, w[1] = 0.0; }
  DEEPSCOPE_HD static F64 get(const double* w) { return F64(w[0]); }
};
template <>
struct Words<Composite> {
  DEEPSCOPE_HD static void put(const Composite& x, double* w) { w[0] = x.v, w[1] = x.e; }
  DEEPSCOPE_HD static Composite get(const double* w) {
    Composite r;
    r.v = static_cast<float>(w[0]);
    r.e = static_cast<float>(w[1]);
    return r;
  }
};
template <>
struct Words<FloatFloat> {
  DEEPSCOPE_HD static void put(const FloatFloat& x, double* w) { w[0] = x.hi, w[1] = x.lo; }
  DEEPSCOPE_HD static FloatFloat get(const double* w) {
    FloatFloat r;
    r.hi = static_cast<float>(w[0]);
    r.lo = static_cast<float>(w[1]);
    return r;
  }
};
template <>
struct Words<KahanF32> {
  DEEPSCOPE_HD static void put(const KahanF32& x, double* w) { w[0] = x.s, w[1] = x.c; }
  DEEPSCOPE_HD static KahanF32 get(const double* w) {
    return KahanF32{static_cast<float>(w[0]), static_cast<float>(w[1])};
  }
};

// Summation in T: zero, add one data value (a binary32 number held in a double), add a partial.
template <class T>
struct Summer {
  DEEPSCOPE_HD static T zero() { return T(0.0); }
  DEEPSCOPE_HD static void add(T& s, double x) { s = s + T(x); }
  DEEPSCOPE_HD static void add_partial(T& s, const T& p) { s = s + p; }
  DEEPSCOPE_HD static double value(const T& s) { return to_double(s); }
};
template <>
struct Summer<KahanF32> {
  DEEPSCOPE_HD static KahanF32 zero() { return kahan_zero(); }
  DEEPSCOPE_HD static void add(KahanF32& s, double x) { kahan_add(s, static_cast<float>(x)); }
  // A partial is its sum minus its pending compensation: both words go through the compensated sum.
  DEEPSCOPE_HD static void add_partial(KahanF32& s, const KahanF32& p) {
    kahan_add(s, p.s);
    kahan_add(s, -p.c);
  }
  DEEPSCOPE_HD static double value(const KahanF32& s) {
    return static_cast<double>(s.s) - static_cast<double>(s.c);
  }
};

// Block [t n / threads, (t + 1) n / threads) of `data`, the thesis's per-thread share.
DEEPSCOPE_HD void sum_block_range(int t, int n, int threads, int* b, int* e) {
  *b = static_cast<int>(static_cast<int64_t>(t) * n / threads);
  *e = static_cast<int>(static_cast<int64_t>(t + 1) * n / threads);
}

// Thread t's partial sum, written as two words.
template <class T>
DEEPSCOPE_HD void sum_block(const double* data, int n, int threads, int t, double* words) {
  int b, e;
  sum_block_range(t, n, threads, &b, &e);
  T s = Summer<T>::zero();
  for (int i = b; i < e; ++i) Summer<T>::add(s, data[i]);
  Words<T>::put(s, words + 2 * t);
}

// The do/undo loop of the thesis (Figure 11): `iterations` rounds of x = (x op y) op^-1 y with a
// fresh y each round, recording (x - x0) / x0 every `every` rounds into drift[] (n_rec entries).
template <class T>
DEEPSCOPE_HD T doundo_loop(T x, double x0, bool div_first, uint64_t seed, int64_t iterations, int64_t every,
                           double y_lo, double y_hi, double* drift, int64_t n_rec) {
  int64_t rec = 0;
  for (int64_t k = 0; k < iterations; ++k) {
    const T y(uniform_f32(seed, static_cast<uint64_t>(k) + 1, y_lo, y_hi));
    x = div_first ? (x / y) * y : (x * y) / y;
    if ((k + 1) % every == 0 && rec < n_rec) drift[rec++] = (to_double(x) - x0) / x0;
  }
  return x;
}

}  // namespace ds::drift

namespace ds::drift {

// The formats the suite and the MD state use.
template <class T>
constexpr bool kSuiteType = std::is_same<T, F32>::value || std::is_same<T, F64>::value ||
                            std::is_same<T, Composite>::value || std::is_same<T, FloatFloat>::value;

inline Arith sum_method_arith(SumMethod m) {
  switch (m) {
    case SumMethod::kFloat:
      return Arith::kF32;
    case SumMethod::kDouble:
      return Arith::kF64;
    case SumMethod::kComposite:
      return Arith::kComposite;
    case SumMethod::kFF:
      return Arith::kFF;
    case SumMethod::kKahan:
      break;
  }
  throw ArithError("sum method " + std::to_string(static_cast<int>(m)) + " is not a number format");
}

// The suite's one dispatch: Kahan directly, the formats through ds::dispatch. f returns void.
template <class F>
void dispatch_suite(SumMethod m, F&& f) {
  if (m == SumMethod::kKahan) return f(TypeTag<KahanF32>{});
  dispatch(sum_method_arith(m), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kSuiteType<T>) f(tag);
  });
}
// Do/undo runs in a format; only the four binary32/binary64-based ones are compiled for it.
template <class F>
void dispatch_doundo(Arith a, F&& f) {
  bool done = false;
  dispatch(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kSuiteType<T>) {
      f(tag);
      done = true;
    }
  });
  if (!done) throw ArithError(std::string("do/undo runs in f32, f64, composite or ff, not ") + arith_name(a));
}

}  // namespace ds::drift
