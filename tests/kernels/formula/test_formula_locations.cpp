// Burning Ship and perpendicular Burning Ship locations that other people made (fractalshades'
// examples, tests/data/formula/*.loc, each naming its source), 1e1 to 1e261: each rendered 16x16 by
// formula::render (direct or perturbation, then the MPFR fallback), every certified count equal to
// MPFR's on an 8x8 grid wherever two precisions (the reference's bits + 128 and + 256) agree.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "kernels/formula/formula.h"
#include "kernels/formula/mpfr_orbit.h"
#include "kernels/formula/perturb.h"
#include "kernels/formula/render.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "oracle.h"

namespace {

using namespace ds::formula;

// The "key = value" lines of one of our location files (comments '#').
std::map<std::string, std::string> read_loc(const std::string& path) {
  std::ifstream in(path);
  std::map<std::string, std::string> kv;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.find(" = ");
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 3);
  }
  return kv;
}

struct Loc {
  const char* stem;
  bool bla_skips = true;  // perturbation takes BLA steps there (measured; false on the direct path)
};

class FormulaLocations : public testing::TestWithParam<Loc> {};

// Measured on this 2-core machine: 0.02 to 6.2 s each (the 1e261 view's MPFR grid the longest).
TEST_P(FormulaLocations, CertifiedCountsAgreeWithMpfr) {
  const std::string path = std::string(DEEPSCOPE_TEST_DATA) + "/formula/" + GetParam().stem + ".loc";
  const auto kv = read_loc(path);
  ASSERT_EQ(kv.size(), 5u) << path;
  const Formula f = parse_formula(kv.at("formula"));
  ds::mandel::View v;
  v.re = kv.at("re");
  v.im = kv.at("im");
  v.zoom = kv.at("zoom");
  v.max_iter = std::stoull(kv.at("iterations"));
  v.width = v.height = 16;
  const auto t0 = std::chrono::steady_clock::now();
  FormulaReport rep, plain_rep;
  const ds::mandel::RenderResult r = render(v, f, FormulaOptions{}, &rep);
  const double render_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  FormulaOptions no_bla;
  no_bla.bla = false;
  const ds::mandel::RenderResult plain = render(v, f, no_bla, &plain_rep);
  const int b1 = formula_reference_bits(ds::mandel::geometry(v)) + 128;
  const std::vector<GridPixel> grid = mpfr_grid(v, f, 8, b1, b1 + 128);
  // With BLA (the default) and without, against the same grid.
  int trusted = 0, compared[2] = {0, 0}, agree[2] = {0, 0};
  std::string detail;
  for (const GridPixel& p : grid) {
    if (!p.trusted()) continue;
    ++trusted;
    const std::size_t k = static_cast<std::size_t>(p.j) * 16 + p.i;
    for (int b = 0; b < 2; ++b) {
      const FormulaReport& rp = b ? plain_rep : rep;
      const ds::mandel::RenderResult& rr = b ? plain : r;
      if (!rp.certified[k]) continue;
      ++compared[b];
      if (rr.count(k) == p.count)
        ++agree[b];
      else
        detail += std::string(b ? "\n  without BLA" : "\n  with BLA") + " (" + std::to_string(p.i) + ", " +
                  std::to_string(p.j) + "): " + std::to_string(rr.count(k)) + " against " + std::to_string(p.count);
    }
  }
  const double all_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double share = r.iterations ? 100.0 * r.perturb.bla_skipped / r.iterations : 0.0;
  std::printf(
      "%s: %s, %llu of 256 undecided (%llu without BLA), %llu by MPFR (up to %d bits), %llu unresolved, "
      "render %.2f s, %.1f%% of %llu iterations by BLA; grid 8x8: %d trusted, %d compared, %d agree; "
      "without BLA %d compared, %d agree (%.1f s in all)\n",
      GetParam().stem, path_name(rep.path), static_cast<unsigned long long>(rep.undecided),
      static_cast<unsigned long long>(plain_rep.undecided), static_cast<unsigned long long>(rep.fallback),
      rep.fallback_max_bits, static_cast<unsigned long long>(rep.unresolved), render_s, share,
      static_cast<unsigned long long>(r.iterations), trusted, compared[0], agree[0], compared[1], agree[1], all_s);
  EXPECT_EQ(agree[0], compared[0]) << GetParam().stem << detail;
  EXPECT_EQ(agree[1], compared[1]) << GetParam().stem << detail;
  EXPECT_EQ(rep.unresolved, 0u) << GetParam().stem;
  EXPECT_EQ(plain_rep.unresolved, 0u) << GetParam().stem;
  EXPECT_GE(compared[0], 56) << GetParam().stem;
  EXPECT_GE(compared[1], 56) << GetParam().stem;
  EXPECT_EQ(plain.perturb.bla_skipped, 0u) << GetParam().stem;
  if (GetParam().bla_skips) {
    EXPECT_GT(r.perturb.bla_skipped, 0u) << GetParam().stem;
  }
}

INSTANTIATE_TEST_SUITE_P(Fractalshades, FormulaLocations,
                         testing::Values(Loc{"fs-burning-ship-13", false}, Loc{"fs-burning-ship-14-deeper"},
                                         Loc{"fs-burning-ship-12-deep"},
                                         Loc{"fs-perpendicular-burning-ship-21-trees"},
                                         Loc{"fs-perpendicular-burning-ship-18-glynn"},
                                         Loc{"fs-perpendicular-burning-ship-17"}),
                         [](const testing::TestParamInfo<Loc>& p) {
                           std::string s;
                           for (const char* c = p.param.stem; *c; ++c) s += std::isalnum(*c) ? *c : '_';
                           return s;
                         });

}  // namespace
