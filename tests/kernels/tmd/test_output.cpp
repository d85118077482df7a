// The TMD output files' text: the CSV formats its numbers without printf, and must still write
// printf's bytes ("0x%08x", "%a" of the float as a double, "%d", "%.6f") for every argument and
// distance, subnormal arguments and rounding ties included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/tmd/tmd.h"

namespace {

using ds::tmd::Case;

// The CSV as the printf-based writer made it (output.cpp before issue #25).
std::string printf_csv(const std::vector<Case>& cases) {
  std::string o = "x,x_value,run,run_capped,log2_dist,fx\n";
  char b[512];
  for (const Case& k : cases) {
    float x;
    std::memcpy(&x, &k.x, sizeof x);
    char d[400];
    if (std::isinf(k.log2_dist))
      std::snprintf(d, sizeof d, "1e999");
    else
      std::snprintf(d, sizeof d, "%.6f", k.log2_dist);
    std::snprintf(b, sizeof b, "0x%08x,%a,%d,%d,%s,%s\n", k.x, static_cast<double>(x), k.run,
                  k.run_capped ? 1 : 0, d, k.fx.c_str());
    o += b;
  }
  return o;
}

TEST(TmdOutput, CsvNumbersArePrintfs) {
  std::vector<Case> cases;
  std::mt19937_64 rng(7);
  auto add = [&](uint32_t x, double dist, int32_t run) {
    Case c;
    c.x = x;
    c.log2_dist = dist;
    c.run = run;
    c.run_capped = (x & 1) != 0;
    c.fx = "0x1.8p+0";
    cases.push_back(c);
  };
  // Every exponent (subnormals, zeros, infinities and NaNs included) with edge and random fractions.
  for (uint32_t sign = 0; sign < 2; ++sign)
    for (uint32_t e = 0; e < 256; ++e)
      for (uint32_t m : {0u, 1u, 2u, 0x400000u, 0x7fffffu, 0x100000u, 0x000010u, 0x123456u})
        add(sign << 31 | e << 23 | m, 20.5, 21);
  for (int i = 0; i < 200000; ++i)
    add(static_cast<uint32_t>(rng()), std::ldexp(static_cast<double>(rng() >> 11), -45),
        static_cast<int32_t>(rng() % 300));
  // Distances: ties at the 7th decimal (multiples of 2^-7 such as 32.5078125), values that round up
  // to the next integer, tiny, huge and infinite.
  for (double d : {32.5078125, 0.0078125, 0.0234375, 1.9999995, 1.9999996, 0.0, 1e-7, 5e-7, 2.5e-7,
                   123456789.123456789, 1e300, -3.25, double{INFINITY}})
    add(0x3f800000u, d, 1);
  for (int i = 0; i < 100000; ++i)
    add(0x3f800001u, std::ldexp(static_cast<double>(rng() % (1u << 20)), -7), 2);
  ds::tmd::ExhaustiveParams p;
  ds::tmd::ExhaustiveResult r;
  r.cases = cases;
  EXPECT_EQ(ds::tmd::cases_csv(p, r), printf_csv(cases));
}

}  // namespace
