// The reference orbit's rounding of each MPFR point to floatexp and its 106-bit tail, read from
// the significand's limbs (kernels/perturb/mpfr_util.h, to_fe_tail): the same two values, bit for
// bit, as MPFR's own calls (to_fe, tail_of), at ties, carries, short and long remainders.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/perturb/mpfr_util.h"

namespace {

using namespace ds;

struct Lcg {
  uint64_t s;
  uint64_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s >> 11;
  }
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// x = +-0.b1 b2 ... bp 2^e from the bit string (b1 = 1), exactly at p = bits.size() bits.
void set_bits(mpfr_t x, const std::string& bits, long e, bool negative) {
  mpfr_set_str(x, bits.c_str(), 2, MPFR_RNDN);
  mpfr_set_exp(x, e);
  if (negative) mpfr_neg(x, x, MPFR_RNDN);
}

// Compares both paths at x; counts the values that the limbs decided.
void expect_same(const mpfr_t x, mpfr_t tmp, int* fast, const std::string& what) {
  const FloatExp f = mpfr_util::to_fe(x);
  const double lo = mpfr_util::tail_of(x, f, tmp);
  FloatExp g{};
  double glo = 0;
  if (mpfr_util::to_fe_tail_from_limbs(x, &g, &glo)) {
    ++*fast;
    ASSERT_TRUE(same_bits(f.m, g.m) && f.e == g.e && same_bits(lo, glo))
        << what << ": MPFR " << f.m << " 2^" << f.e << " + " << lo << ", limbs " << g.m << " 2^" << g.e << " + "
        << glo;
  }
  FloatExp h{};
  double hlo = 0;
  mpfr_util::to_fe_tail(x, &h, &hlo, tmp);
  ASSERT_TRUE(same_bits(f.m, h.m) && f.e == h.e && same_bits(lo, hlo)) << what;
}

// Bit strings built of runs (zeros, ones, random bits) whose lengths sit at the boundaries that
// the limb reading has: the 53-bit head, its rounding bit, the 128-bit window after it, limb edges.
TEST(MpfrUtil, FeTailFromLimbsEqualsMpfrAtRunsOfBits) {
  const int lengths[] = {1, 2, 10, 11, 12, 51, 52, 53, 54, 55, 63, 64, 65, 73, 74, 75, 76, 127, 128, 129, 200};
  Lcg r{42};
  int fast = 0, total = 0;
  for (int prec : {64, 65, 106, 127, 128, 129, 180, 181, 182, 192, 193, 256, 450, 884, 1024, 4096}) {
    mpfr_t x, tmp;
    mpfr_inits2(prec, x, tmp, static_cast<mpfr_ptr>(nullptr));
    for (int trial = 0; trial < 4000; ++trial) {
      std::string b = "1";
      while (static_cast<int>(b.size()) < prec) {
        const int len = lengths[r.next() % (sizeof lengths / sizeof lengths[0])];
        const int kind = static_cast<int>(r.next() % 3);
        for (int k = 0; k < len && static_cast<int>(b.size()) < prec; ++k)
          b += kind == 0 ? '0' : kind == 1 ? '1' : static_cast<char>('0' + (r.next() & 1));
      }
      const long e = static_cast<long>(r.next() % 4001) - 2000;
      set_bits(x, b, e, (r.next() & 1) != 0);
      ++total;
      expect_same(x, tmp, &fast, "precision " + std::to_string(prec) + ", bits " + b);
      if (HasFatalFailure()) return;
    }
    mpfr_clears(x, tmp, static_cast<mpfr_ptr>(nullptr));
  }
  // Most of these values have a remainder in the window: the limbs decide them.
  EXPECT_GT(fast, total / 2) << fast << " of " << total;
}

// The cases by name: ties of both roundings, the carry to 1, an exact 53-bit value, a remainder
// whose leading bit lies past the window, and uniformly random significands.
TEST(MpfrUtil, FeTailFromLimbsEqualsMpfrAtTiesCarriesAndExactValues) {
  const int prec = 884;
  mpfr_t x, tmp;
  mpfr_inits2(prec, x, tmp, static_cast<mpfr_ptr>(nullptr));
  int fast = 0;
  const std::string head_even = "1" + std::string(51, '0') + "0", head_odd = "1" + std::string(51, '0') + "1";
  const auto pad = [&](std::string s) { return s + std::string(prec - s.size(), '0'); };
  std::vector<std::string> cases;
  for (const std::string& h : {head_even, head_odd}) {
    cases.push_back(pad(h));                                                    // exact
    cases.push_back(pad(h + "1"));                                              // a tie: to even
    cases.push_back(h + "1" + std::string(prec - 55, '0') + "1");              // just past the tie
    cases.push_back(pad(h + "0" + std::string(73, '0') + "1"));                 // remainder at the window's edge
    cases.push_back(pad(h + "0" + std::string(74, '0') + "1"));                 // just past it: MPFR decides
    cases.push_back(pad(h + "1" + std::string(73, '1')));                       // rounded up, long ones
    cases.push_back(pad(h + "01" + std::string(52, '0') + "1"));                // the tail's own tie
    cases.push_back(h + "01" + std::string(52, '0') + "1" + std::string(prec - 108, '0') + "1");  // past it
    cases.push_back(pad(h + "01" + std::string(51, '0') + "11"));               // the tail's tie, odd
    cases.push_back(pad(h + "11" + std::string(52, '0') + "1"));                // rounded up, tail tie
    cases.push_back(h + "11" + std::string(52, '0') + "1" + std::string(prec - 108, '0') + "1");
  }
  cases.push_back(std::string(prec, '1'));                                       // carry: rounds to 1
  cases.push_back(std::string(60, '1') + std::string(prec - 60, '0'));          // carry, short
  cases.push_back(pad(std::string(53, '1') + "1"));                              // carry at a tie
  for (std::size_t k = 0; k < cases.size(); ++k)
    for (bool negative : {false, true}) {
      set_bits(x, cases[k], 3, negative);
      expect_same(x, tmp, &fast, "case " + std::to_string(k));
      if (HasFatalFailure()) return;
    }
  EXPECT_GT(fast, 0);
  // Zero, and random significands at several precisions (as a real orbit's points are).
  mpfr_set_zero(x, 1);
  expect_same(x, tmp, &fast, "zero");
  gmp_randstate_t st;
  gmp_randinit_default(st);
  gmp_randseed_ui(st, 7);
  int random_fast = 0;
  for (int k = 0; k < 20000; ++k) {
    mpfr_urandomb(x, st);
    if (k & 1) mpfr_neg(x, x, MPFR_RNDN);
    expect_same(x, tmp, &random_fast, "random " + std::to_string(k));
    if (HasFatalFailure()) break;
  }
  EXPECT_GE(random_fast, 19990);  // a remainder below 2^-74 of its unit: 2^-74 odds a value
  gmp_randclear(st);
  mpfr_clears(x, tmp, static_cast<mpfr_ptr>(nullptr));
}

}  // namespace
