// Experiment (not part of the build): the MPFR reference orbit alone at KF's 5e227 centre, as
// render computes it there at 2x2 (884 bits, one thread; perturb::compute_reference), plain
// (the periodic stop) or certified (as a lone pixel's secondary reference: run to its escape).
// Prints the time and a hash of every stored point (and the error fields), so that two builds
// can be compared bit for bit. docs/bench/reference.md, "The step's 106-bit rounding read from the
// limbs". Build against a CPU-only build tree's libraries (same flags as the library):
//   B=build; g++ -O3 -DNDEBUG -ffp-contract=off -mfma -std=c++17 -I. \
//     docs/bench/experiments/reference_orbit_bench.cpp -o reference_orbit_bench \
//     $B/kernels/perturb/libdeepscope_perturb.a $B/kernels/mandelbrot/libdeepscope_mandelbrot.a \
//     $B/kernels/core/libdeepscope_core.a $B/arith/libdeepscope_arith_host.a -lmpfr -lgmp -pthread
// Run:   perf stat -e task-clock ./reference_orbit_bench plain   (or: certify)
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include "kernels/perturb/perturb.h"
using namespace ds;
int main(int argc, char** argv) {
  const std::string re = "-0.749624497378761682078626204268361386845295278123640257544815714245582864796728016987502039767791356081486877471965951748581253882975777885730827532104698067397213779012974511726247624509405298147130483778736122972203130169470392874699999999999999989999999999999999999999499999999999999999980";
  const std::string im = "0.034270108740460169451729515457494748680515346724391118531748547383705957729359301718429997787132227942154534366289982005919142082076326747807809784967848438076905104018293013090695421984135743924258851663672311920874163384970654955099999999999999990000000000000000000000000000000000000000000";
  const bool certify = argc > 1 && std::strcmp(argv[1], "certify") == 0;
  const uint64_t iters = argc > 2 ? std::stoull(argv[2]) : 1200000;
  const auto t0 = std::chrono::steady_clock::now();
  auto r = perturb::compute_reference(re, im, 884, iters, FloatExp::make(1.0, -756), nullptr, nullptr, certify, 1);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&](const void* p, size_t n) { for (size_t k = 0; k < n; ++k) { h ^= static_cast<const unsigned char*>(p)[k]; h *= 1099511628211ull; } };
  for (uint64_t k = 0; k < r->length(); ++k) {
    FloatExp a, b; double c, d; r->point(k, &a, &b, &c, &d);
    mix(&a.m, 8); mix(&a.e, 4); mix(&b.m, 8); mix(&b.e, 4); mix(&c, 8); mix(&d, 8);
  }
  mix(&r->error_shift.m, 8); mix(&r->error_shift.e, 4); mix(&r->last_error.m, 8); mix(&r->last_error.e, 4);
  std::printf("%s: %llu points, %d bits, escaped %d periodic %d certified %d, %.3f s, %.4g it/s, hash %016llx\n",
              certify ? "certified" : "plain", (unsigned long long)r->length(), r->bits, r->escaped, r->periodic,
              r->escape_certified, s, (r->length() - 1) / s, (unsigned long long)h);
}
