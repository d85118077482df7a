// `deepscope bench tmd --write-cases N`: the time to format and write the TMD output files of N
// cases (CSV, JSON, the binary case file) and to export the binary file back to the CSV (issue #25: a full
// binade's 4.2e6 cases took minutes to write). The cases are synthetic but shaped like a search's: sorted
// binary32 arguments across the positive normal range, runs and distances like a k = 20 search's, and f(x) as
// MPFR prints 256 random bits.
#include <mpfr.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/io/tmd_case_file.h"
#include "bench.h"
#include "kernels/core/atomic_file.h"
#include "kernels/tmd/tmd.h"

namespace ds::app {
namespace {

std::string read_file_or_empty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

tmd::ExhaustiveResult synthetic_cases(int64_t n) {
  tmd::ExhaustiveResult r;
  r.cases.resize(static_cast<std::size_t>(n));
  std::mt19937_64 rng(25);
  gmp_randstate_t st;
  gmp_randinit_default(st);
  gmp_randseed_ui(st, 25);
  mpfr_t y;
  mpfr_init2(y, 256);
  const uint64_t stride = (0x7f7fffffull - 0x00800000ull) / static_cast<uint64_t>(n);
  for (int64_t i = 0; i < n; ++i) {
    tmd::Case& c = r.cases[static_cast<std::size_t>(i)];
    c.x = static_cast<uint32_t>(0x00800000ull + static_cast<uint64_t>(i) * stride + rng() % stride);
    c.run = 19 + static_cast<int32_t>(rng() % 4 == 0 ? rng() % 16 : rng() % 3);
    c.log2_dist = c.run + 1 + std::ldexp(static_cast<double>(rng() >> 11), -53);
    mpfr_urandomb(y, st);  // [0, 1): 256 random bits
    mpfr_mul_2si(y, y, static_cast<long>(rng() % 64) - 32, MPFR_RNDN);
    char* s = nullptr;
    if (mpfr_asprintf(&s, "%Ra", y) >= 0 && s) {
      c.fx = s;
      mpfr_free_str(s);
    }
  }
  mpfr_clear(y);
  gmp_randclear(st);
  r.inputs = r.evaluated = r.candidates = n;
  return r;
}

}  // namespace

void bench_tmd_write(std::ostringstream& md, int64_t n, const std::string& dir) {
  auto t = std::chrono::steady_clock::now();
  const tmd::ExhaustiveResult r = synthetic_cases(n);
  std::fprintf(stderr, "  %lld synthetic cases made in %.2f s\n", static_cast<long long>(n), since(t));
  tmd::ExhaustiveParams p;
  p.lo = 0x00800000u;
  p.hi = 0x7f7fffffu;
  md << "\nWriting " << n << " cases (synthetic, shaped like a k = 20 search's; files in " << dir
     << "): formatting the bytes, then write_file_atomically (write + fsync + rename).\n\n"
     << "| file | bytes | format s | write s | total s |\n|---|---|---|---|---|\n";
  auto row = [&](const char* name, const std::string& path, auto make) {
    auto t0 = std::chrono::steady_clock::now();
    const std::string bytes = make();
    const double f = since(t0);
    t0 = std::chrono::steady_clock::now();
    write_file_atomically(path, bytes);
    const double w = since(t0);
    char line[160];
    std::snprintf(line, sizeof line, "| %s | %zu | %.3f | %.3f | %.3f |\n", name, bytes.size(), f, w, f + w);
    md << line;
    std::fprintf(stderr, "  %s", line);
  };
  row("CSV", dir + "/bench-cases.csv", [&] { return tmd::cases_csv(p, r); });
  row("JSON (every case)", dir + "/bench-cases.json", [&] { return tmd::cases_json(p, r); });
  TmdCaseHeader h;
  h.json_head = tmd::exhaustive_json_head(p, r);
  row("binary (.tmdc)", dir + "/bench-cases.tmdc", [&] { return encode_tmd_cases(h, r.cases); });
  row("JSON beside .tmdc (hardest only)", dir + "/bench-cases-hardest.json",
      [&] { return tmd::json_with_cases(h.json_head, r.cases, false); });
  // `tmd export`: read and check the binary file, then the CSV (its bytes checked against the direct CSV's).
  t = std::chrono::steady_clock::now();
  const TmdCases back = read_tmd_cases(dir + "/bench-cases.tmdc");
  const double read_s = since(t);
  row("CSV exported from .tmdc (after reading it)", dir + "/bench-cases-export.csv", [&] {
    auto t0 = std::chrono::steady_clock::now();
    std::string csv = tmd::cases_csv(back.cases);
    std::fprintf(stderr, "  export: read + check + decode %.3f s, CSV %.3f s\n", read_s, since(t0));
    return csv;
  });
  md << "\nReading and decoding the .tmdc took " << fmt("%.3f", read_s)
     << " s (included in no row above); the "
     << "exported CSV is "
     << (read_file_or_empty(dir + "/bench-cases-export.csv") == read_file_or_empty(dir + "/bench-cases.csv")
             ? "byte-identical to"
             : "DIFFERENT FROM")
     << " the direct CSV.\n";
}

}  // namespace ds::app
