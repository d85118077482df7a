// The fixed-point reference (kernels/perturb/reference_fixed.h, ntt.cuh, reference_gpu.cu): the
// transform's products against schoolbook sums, the digit format and the point records against
// MPFR's exact values, the CPU twin's orbit within its error bound of a 512-bits-wider MPFR orbit at
// KF's 5e113 location, resuming, and (with a device) the GPU's orbit equal to the CPU twin's bit for
// bit from 128 to 70,000 bits.
#include <gmp.h>
#include <gtest/gtest.h>
#include <mpfr.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/core/device.h"
#include "kernels/perturb/ntt.cuh"
#include "kernels/perturb/perturb.h"
#include "kernels/perturb/reference_fixed.cuh"
#include "kernels/perturb/reference_fixed.h"
#include "reference_compare.h"

namespace {

using namespace ds;
using namespace ds::perturb;

const std::string kRe5e113 =
    "-1.47981577613247326072298452597877854692240725774045369689878510139864920741002293820250517329282011"
    "227363313053159203914640783415609608168660705123082446357179491909705403381200";
const std::string kIm5e113 =
    "-0.00063911193261361727152139632255671572957303918943984736047394936471220951961813321928573067036466"
    "151147195436388486168819318341208023229522609015461543581599807510715681229605";

// The transform with the kernels' conventions (DIF forward with root^((i mod h) N / 2h), DIT inverse
// with the inverse root, 1/N), on the host.
std::vector<int64_t> ntt_convolution(const std::vector<int32_t>& a, const std::vector<int32_t>& b, int log2n) {
  const std::size_t n = std::size_t{1} << log2n;
  std::vector<uint64_t> fa(n, 0), fb(n, 0);
  for (std::size_t i = 0; i < a.size(); ++i) fa[i] = ntt::from_signed(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) fb[i] = ntt::from_signed(b[i]);
  const uint64_t w = ntt::root_of_unity(log2n), wi = ntt::inverse(w);
  for (std::size_t h = n / 2; h >= 1; h /= 2)
    for (std::size_t i = 0; i < n; ++i)
      if (i % (2 * h) < h) {
        const uint64_t tw = ntt::power(w, (i % h) * (n / (2 * h)));
        ntt::butterfly_dif(&fa[i], &fa[i + h], tw);
        ntt::butterfly_dif(&fb[i], &fb[i + h], tw);
      }
  for (std::size_t i = 0; i < n; ++i) fa[i] = ntt::mul(fa[i], fb[i]);
  for (std::size_t h = 1; h < n; h *= 2)
    for (std::size_t i = 0; i < n; ++i)
      if (i % (2 * h) < h) ntt::butterfly_dit(&fa[i], &fa[i + h], ntt::power(wi, (i % h) * (n / (2 * h))));
  const uint64_t inv_n = ntt::inverse(n);
  std::vector<int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = ntt::to_signed(ntt::mul(fa[i], inv_n));
  return out;
}

TEST(FixedReference, TransformProductsEqualSchoolbookSums) {
  // The modular reduction first: products of residues near p against 128-bit arithmetic.
  std::mt19937_64 rng(7);
  for (int k = 0; k < 100000; ++k) {
    const uint64_t a = rng() % ntt::kP, b = k % 3 == 0 ? ntt::kP - 1 - (rng() & 0xFFFF) : rng() % ntt::kP;
    const unsigned __int128 x = static_cast<unsigned __int128>(a) * b;
    ASSERT_EQ(ntt::mul(a, b), static_cast<uint64_t>(x % ntt::kP)) << a << " * " << b;
    ASSERT_EQ(ntt::add(a, b), static_cast<uint64_t>((static_cast<unsigned __int128>(a) + b) % ntt::kP));
    ASSERT_EQ(ntt::sub(a, b), static_cast<uint64_t>((static_cast<unsigned __int128>(a) + ntt::kP - b) % ntt::kP));
  }
  // Digits at the format's extremes (|d| <= 2^21 + 2), so the sums reach 2^(42 + log2 L).
  for (int log2n : {3, 8, 12}) {
    const std::size_t len = (std::size_t{1} << (log2n - 1)) - 1;
    std::vector<int32_t> a(len), b(len);
    for (std::size_t i = 0; i < len; ++i) {
      a[i] = static_cast<int32_t>(rng() % (2 * 2097154 + 1)) - 2097154;
      b[i] = i % 5 == 0 ? 2097154 : static_cast<int32_t>(rng() % (2 * 2097154 + 1)) - 2097154;
    }
    const std::vector<int64_t> c = ntt_convolution(a, b, log2n);
    for (std::size_t i = 0; i < c.size(); ++i) {
      __int128 s = 0;
      for (std::size_t j = 0; j < len; ++j)
        if (i >= j && i - j < len) s += static_cast<__int128>(a[j]) * b[i - j];
      ASSERT_EQ(static_cast<__int128>(c[i]), s) << "coefficient " << i << " of 2^" << log2n;
    }
  }
}

std::string random_hex(std::mt19937_64& rng, int bits) {
  std::string s = rng() & 1 ? "-" : "";
  s += "1";
  for (int k = 0; k < bits / 4; ++k) s += "0123456789abcdef"[rng() & 15];
  return s;
}

TEST(FixedReference, DigitsAreBalancedAndRoundTrip) {
  std::mt19937_64 rng(11);
  for (int bits : {64, 617, 5000}) {
    const FixedFormat f = fixed_format(bits);
    EXPECT_GE(f.fraction_bits, bits);
    EXPECT_EQ(f.fraction_bits % kFixedDigitBits, 0);
    for (int k = 0; k < 50; ++k) {
      const std::string h = random_hex(rng, f.fraction_bits + 1);
      const std::vector<int32_t> d = fixed_digits(h, f);
      ASSERT_EQ(static_cast<int>(d.size()), f.digits);
      for (std::size_t j = 0; j + 1 < d.size(); ++j) {
        ASSERT_GE(d[j], -(1 << 21));
        ASSERT_LT(d[j], 1 << 21);
      }
      EXPECT_EQ(fixed_hex(d), h);
    }
  }
  EXPECT_THROW(fixed_digits("zz", fixed_format(64)), std::runtime_error);
}

// A part rounded from its digits as the device rounds it (write_point in reference_gpu.cu): the
// leading nonzero digit and the 11 below it, the leading nonzero digit under those and its 11, and
// the sign of the rest, through round_fixed_part.
FixedPart part_of(const std::vector<int32_t>& d, FixedFormat f) {
  const auto digit = [&](int i) { return i >= 0 ? d[static_cast<std::size_t>(i)] : 0; };
  const auto leading = [&](int from) {
    while (from >= 0 && digit(from) == 0) --from;
    return from;
  };
  const int top = leading(static_cast<int>(d.size()) - 1);
  if (top < 0) return FixedPart{FloatExp(0.0), 0.0};
  int32_t window[kFixedWindow], lower[kFixedWindow];
  for (int t = 0; t < kFixedWindow; ++t) window[t] = digit(top - t);
  const int below = leading(top - kFixedWindow);
  for (int t = 0; t < kFixedWindow; ++t) lower[t] = below >= 0 ? digit(below - t) : 0;
  const int under = below >= 0 ? leading(below - kFixedWindow) : -1;
  const int rest = under < 0 ? 0 : (digit(under) > 0 ? 1 : -1);
  return round_fixed_part(window, top, lower, below, rest, f.fraction_bits);
}

// Values whose tails the 12-digit window alone cannot round (hexadecimal, as fixed_hex writes):
// a random head, then long runs of equal bits (zeros or ones, 100 to 600 bits) with a few bits
// between and after them, so that the remainder after the head is 0, a few bits, or a long run
// ending anywhere relative to the digits; and 1 + 2^-k (+- a little) for k around the double's
// subnormal edge, the tail relative to the head near 2^-1074.
std::vector<std::string> adversarial_tails(std::mt19937_64& rng, FixedFormat f, int count) {
  std::vector<std::string> out;
  mpz_t z, t;
  mpz_inits(z, t, nullptr);
  for (int k = 0; k < count; ++k) {
    const int total = f.fraction_bits - static_cast<int>(rng() % 64);
    mpz_set_ui(z, 0);
    int pos = total;
    const int head = 1 + static_cast<int>(rng() % 60);
    for (int b = 0; b < head && pos > 0; ++b, --pos)
      if (b == 0 || (rng() & 1)) mpz_setbit(z, static_cast<mp_bitcnt_t>(pos));
    const int runs = 1 + static_cast<int>(rng() % 3);
    for (int r = 0; r < runs && pos > 0; ++r) {
      const bool ones = rng() & 1;
      const int run = 100 + static_cast<int>(rng() % 500);
      for (int b = 0; b < run && pos > 0; ++b, --pos)
        if (ones) mpz_setbit(z, static_cast<mp_bitcnt_t>(pos));
      const int between = static_cast<int>(rng() % 8);
      for (int b = 0; b < between && pos > 0; ++b, --pos)
        if (rng() & 1) mpz_setbit(z, static_cast<mp_bitcnt_t>(pos));
    }
    const int after = static_cast<int>(rng() % 4) == 0 ? 0 : static_cast<int>(rng() % 80);
    for (int b = 0; b < after && pos > 0; ++b, --pos)
      if (rng() & 1) mpz_setbit(z, static_cast<mp_bitcnt_t>(pos));
    if (rng() & 1) mpz_neg(z, z);
    char* s = mpz_get_str(nullptr, 16, z);
    out.push_back(s);
    free(s);
  }
  for (int k = 1040; k <= 1140; k += 3)
    for (int extra : {0, 1, -1, 2}) {
      mpz_set_ui(z, 0);
      mpz_setbit(z, static_cast<mp_bitcnt_t>(f.fraction_bits));
      mpz_set_ui(t, 0);
      mpz_setbit(t, static_cast<mp_bitcnt_t>(f.fraction_bits - k));
      if (extra == 2) mpz_mul_ui(t, t, 3);
      mpz_add(z, z, t);
      if (extra != 0 && extra != 2) {
        mpz_set_ui(t, 0);
        mpz_setbit(t, static_cast<mp_bitcnt_t>(f.fraction_bits - k - 53));
        extra > 0 ? mpz_add(z, z, t) : mpz_sub(z, z, t);
      }
      char* s = mpz_get_str(nullptr, 16, z);
      out.push_back(s);
      free(s);
    }
  mpz_clears(z, t, nullptr);
  return out;
}

// The exact value hex 2^-F rounded to floatexp, and its tail.
void exact_point(const std::string& hex, FixedFormat f, FloatExp* fe, double* lo) {
  mpz_t z;
  mpz_init_set_str(z, hex.c_str(), 16);
  mpfr_t v, t;
  mpfr_inits2(f.fraction_bits + 64, v, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_z(v, z, MPFR_RNDN);
  mpfr_mul_2si(v, v, -f.fraction_bits, MPFR_RNDN);
  if (mpfr_zero_p(v)) {
    *fe = FloatExp(0.0);
    *lo = 0;
  } else {
    long e = 0;
    const double m = mpfr_get_d_2exp(&e, v, MPFR_RNDN);
    *fe = FloatExp::make(m, e);
    mpfr_mul_2si(t, v, -fe->e, MPFR_RNDN);
    mpfr_sub_d(t, t, fe->m, MPFR_RNDN);
    *lo = mpfr_get_d(t, MPFR_RNDN);
  }
  mpfr_clears(v, t, static_cast<mpfr_ptr>(nullptr));
  mpz_clear(z);
}

TEST(FixedReference, RecordsRoundLikeTheExactValue) {
  std::mt19937_64 rng(13);
  const FixedFormat f = fixed_format(2000);
  std::vector<std::string> values = {"0", "1", "-1"};
  for (int k = 0; k < 3000; ++k) values.push_back(random_hex(rng, 1 + static_cast<int>(rng() % (f.fraction_bits + 1))));
  // Ties to even: the head's 54th bit alone (odd and even heads), and the tail's.
  values.push_back("20000000000001" + std::string(1, '0') + "8" + std::string(70, '0'));
  values.push_back("20000000000000" + std::string(1, '0') + "8" + std::string(70, '0'));
  values.push_back("-20000000000003" + std::string(1, '0') + "8" + std::string(70, '0'));
  values.push_back("20000000000000" + std::string(1, '0') + "40000000000001" + "8" + std::string(40, '0'));
  values.push_back("20000000000000" + std::string(1, '0') + "40000000000000" + "8" + std::string(40, '0'));
  // Adversarial: powers of two, a tie at bit 54, long runs of ones and zeros after bit 53 (the tail
  // then starts 100 bits further down), a value just below a power of two.
  values.push_back("1" + std::string(400, '0'));
  values.push_back("-20000000000001" + std::string(100, '0'));
  values.push_back("1fffffffffffff" + std::string(25, 'f') + "3" + std::string(60, '0'));
  values.push_back("10000000000000" + std::string(25, '0') + "7" + std::string(60, 'a'));
  // Past the window: long runs of equal bits after the head (the tail then from further digits).
  values.push_back(std::string(300, 'f'));
  values.push_back("1" + std::string(100, '0') + "1");
  values.push_back("-3" + std::string(100, 'f'));
  values.push_back("1" + std::string(400, '0') + "1");
  values.push_back("-1" + std::string(60, '0') + "1" + std::string(100, '0') + "7");
  for (const std::string& h : adversarial_tails(rng, f, 3000)) values.push_back(h);
  for (const std::string& h : values) {
    const std::vector<int32_t> d = fixed_digits(h, f);
    // The same value with digits left unbalanced the way the device leaves them (borrowing 2^22
    // into digits below -2^20): the record depends on the value only.
    std::vector<int32_t> u = d;
    for (std::size_t j = 0; j + 2 < u.size(); j += 2)
      if (u[j] < -(1 << 20)) {
        u[j] += 1 << 22;
        u[j + 1] -= 1;
      }
    FloatExp fe;
    double lo = 0;
    exact_point(h, f, &fe, &lo);
    for (const auto& digits : {d, u}) {
      const FixedPart p = part_of(digits, f);
      ASSERT_TRUE(p.head == fe) << h;
      ASSERT_EQ(p.tail, lo) << h;
    }
  }
}

// The device's rounding of a real orbit's digits, on the host: c = i + 1e-3000 (FractalShark's
// view 30 in small), whose parts are tiny or -1 and 1 plus a deviation thousands of bits down.
TEST(FixedReference, RecordsOfAnOrbitNearIRoundLikeTheTwin) {
  const int bits = 10500;
  const FixedFormat f = fixed_format(bits);
  auto twin = cpu_fixed_orbit("1e-3000", "1", bits);
  std::vector<OrbitPoint> points;
  int tiny = 0;
  for (int k = 0; k < 300; ++k) {
    twin->next(1, &points);
    std::string x, y;
    twin->state(&x, &y);
    const FixedPart re = part_of(fixed_digits(x, f), f), im = part_of(fixed_digits(y, f), f);
    const OrbitPoint& p = points.back();
    ASSERT_TRUE(re.head == p.re && im.head == p.im) << "point " << k + 1;
    ASSERT_EQ(re.tail, p.re_lo) << "point " << k + 1;
    ASSERT_EQ(im.tail, p.im_lo) << "point " << k + 1;
    tiny += p.re.e < -9000;
  }
  EXPECT_GE(tiny, 140);  // every other real part is tiny
}

TEST(FixedReference, CpuTwinStaysWithinItsBoundOfMpfrAtKf5e113) {
  // KF's 5e113 centre at 128 bits for pixels of 2^-40 (so the bound asks no more bits; the orbit
  // stops at 700 as periodic, within 2^-64 of a nucleus): the fixed-point orbit (F = 132) against
  // MPFR at 640 bits, whose own error is 2^-500 below, differs in the stored 106 bits as the error
  // grows; |Z_n - exact Z_n| <= E_n <= error_shift |A_n|.
  const FloatExp step = FloatExp::make(1.0, -40);
  // The precision target of 2^-16 pixel (the default asks 2^-112, and so more bits).
  const auto fixed = compute_reference(kRe5e113, kIm5e113, 128, 40000, step, nullptr, nullptr, false, 1, 0, "", 60,
                                       nullptr, ReferencePath::kFixedCpu, -16);
  const auto wide = compute_reference(kRe5e113, kIm5e113, 640, 40000, step, nullptr, nullptr, false, 1, 0, "", 60,
                                      nullptr, ReferencePath::kMpfr);
  ASSERT_TRUE(fixed && wide);
  EXPECT_EQ(fixed->step_threads, -2);
  EXPECT_TRUE(fixed->fixed_point());
  EXPECT_EQ(fixed->bits, 128);  // the bound asked for no more
  EXPECT_TRUE(fixed->periodic && wide->periodic);
  ASSERT_EQ(fixed->length(), wide->length());
  EXPECT_EQ(fixed->length(), 701u);  // Z_0 .. Z_700
  EXPECT_LE(fixed->error_shift, step * FloatExp::make(1.0, -16));
  int differ = 0;
  FloatExp ar(1.0), ai(0.0);
  double worst = 0;
  for (uint64_t n = 1; n < fixed->length(); ++n) {
    if (n >= 2) {
      const FloatExp zr = fixed->zr[n - 1], zi = fixed->zi[n - 1];
      const FloatExp r2 = mul_pow2(zr * ar - zi * ai, 1) + FloatExp(1.0);
      ai = mul_pow2(zr * ai + zi * ar, 1);
      ar = r2;
    }
    // The 106-bit points' difference: heads (exact, they are close) plus tails.
    const auto d106 = [](FloatExp a, double a_lo, FloatExp b, double b_lo) {
      return (a - b) + (FloatExp::make(a_lo, a.e) - FloatExp::make(b_lo, b.e));
    };
    const FloatExp dr = d106(fixed->zr[n], fixed->zr_lo[n], wide->zr[n], wide->zr_lo[n]);
    const FloatExp di = d106(fixed->zi[n], fixed->zi_lo[n], wide->zi[n], wide->zi_lo[n]);
    const FloatExp diff = sqrt(sqr(dr) + sqr(di));
    // + the 106-bit rounding of both stored points
    const FloatExp z = sqrt(sqr(wide->zr[n]) + sqr(wide->zi[n]));
    const FloatExp bound = fixed->error_shift * sqrt(sqr(ar) + sqr(ai)) + z * FloatExp::make(1.0, -104);
    ASSERT_LE(diff, bound) << "point " << n;
    if (diff.m != 0) ++differ;
    if (bound.m != 0) worst = std::max(worst, to_double(diff / bound));
  }
  EXPECT_GT(differ, 300);  // the orbits do differ: the comparison is not vacuous
  std::printf("points that differ: %d of %llu; largest difference / bound: %.3g\n", differ,
              static_cast<unsigned long long>(fixed->length()), worst);
}

void expect_same_points(const std::vector<OrbitPoint>& a, const std::vector<OrbitPoint>& b, int bits) {
  ASSERT_EQ(a.size(), b.size()) << bits << " bits";
  for (std::size_t k = 0; k < a.size(); ++k)
    ASSERT_TRUE(a[k].re == b[k].re && a[k].im == b[k].im && a[k].re_lo == b[k].re_lo && a[k].im_lo == b[k].im_lo)
        << "point " << k + 1 << " at " << bits << " bits";
}

TEST(FixedReference, CpuTwinResumesBitForBit) {
  auto whole = cpu_fixed_orbit(kRe5e113, kIm5e113, 450);
  std::vector<OrbitPoint> a, b;
  whole->next(3000, &a);
  std::string x, y;
  whole->state(&x, &y);
  whole->next(3000, &a);
  auto resumed = cpu_fixed_orbit(kRe5e113, kIm5e113, 450, x, y);
  resumed->next(3000, &b);
  ASSERT_EQ(a.size(), 6000u);
  expect_same_points(std::vector<OrbitPoint>(a.begin() + 3000, a.end()), b, 450);
}

TEST(FixedReference, OrbitEndsJustPastThree) {
  auto o = cpu_fixed_orbit("0.5", "0.5", 128);
  std::vector<OrbitPoint> p;
  o->next(100, &p);
  ASSERT_LT(p.size(), 100u);
  const auto abs2 = [](const OrbitPoint& q) { return to_double(q.re) * to_double(q.re) + to_double(q.im) * to_double(q.im); };
  EXPECT_GT(abs2(p.back()), 16.0);
  EXPECT_LE(abs2(p[p.size() - 2]), 16.0);
}

// A point inside the main cardioid with random digits to `digits` decimals (every product full length).
std::string long_digits(const char* head, int digits, uint64_t seed) {
  std::string s = head;
  for (int k = 0; k < digits; ++k) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    s += static_cast<char>('0' + (seed >> 60) % 10);
  }
  return s;
}

TEST(FixedReferenceDevice, GpuOrbitEqualsTheCpuTwin) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the GPU reference is not run";
  // KF's 5e113 orbit through its escape (one block: 2^6 .. 2^7 transform lengths).
  for (int bits : {128, 450}) {
    std::vector<OrbitPoint> g, c;
    gpu_fixed_orbit(kRe5e113, kIm5e113, bits, 0)->next(40000, &g);
    cpu_fixed_orbit(kRe5e113, kIm5e113, bits)->next(40000, &c);
    expect_same_points(g, c, bits);
    EXPECT_LT(g.size(), 40000u);
  }
  // Full-length products, transforms of 2^9 to 2^14 (split over blocks from 2^11).
  for (int bits : {4000, 30000, 70000, 150000}) {
    const std::string re = long_digits("-0.1", bits * 30103 / 100000 + 8, 1), im = long_digits("0.6", bits * 30103 / 100000 + 8, 2);
    std::vector<OrbitPoint> g, c;
    auto gpu = gpu_fixed_orbit(re, im, bits, 0);
    gpu->next(200, &g);
    cpu_fixed_orbit(re, im, bits)->next(200, &c);
    expect_same_points(g, c, bits);
    std::string gx, gy;
    gpu->state(&gx, &gy);
    auto twin = cpu_fixed_orbit(re, im, bits);
    std::vector<OrbitPoint> skip;
    twin->next(200, &skip);
    std::string cx, cy;
    twin->state(&cx, &cy);
    EXPECT_EQ(gx, cx);
    EXPECT_EQ(gy, cy);
  }
  // c = i + tiny, FractalShark's view 30 in small: every other real part is tiny, and every
  // imaginary part is -1 or 1 plus a deviation thousands of bits down, so the points' tails come
  // from digits far under the head (one block at 10,500 bits, split kernels at 40,000).
  for (const auto& [bits, re] : {std::pair<int, const char*>{10500, "1e-3000"}, {40000, "-3e-11000"}}) {
    std::vector<OrbitPoint> g, c;
    gpu_fixed_orbit(re, "1", bits, 0)->next(600, &g);
    cpu_fixed_orbit(re, "1", bits)->next(600, &c);
    ASSERT_EQ(g.size(), 600u);
    expect_same_points(g, c, bits);
  }
}

TEST(FixedReferenceDevice, GpuReferenceEqualsCpuTwinReference) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the GPU reference is not run";
  const FloatExp step = FloatExp::make(1.0, -386);
  const auto gpu = compute_reference(kRe5e113, kIm5e113, 450, 40000, step, nullptr, nullptr, false, 0, 0, "", 60,
                                     nullptr, ReferencePath::kGpu);
  const auto cpu = compute_reference(kRe5e113, kIm5e113, 450, 40000, step, nullptr, nullptr, false, 0, 0, "", 60,
                                     nullptr, ReferencePath::kFixedCpu);
  ASSERT_TRUE(gpu && cpu);
  EXPECT_EQ(gpu->step_threads, -1);
  test::expect_same_orbit(*gpu, *cpu);
}

}  // namespace
