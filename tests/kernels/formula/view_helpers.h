// Helpers the formula tests share: square test views, a pixel's c as decimals, zooming towards a
// formula's boundary (how the deep test views were found), and agreement with an MPFR grid.
#pragma once
#include <mpfr.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kernels/formula/formula.h"
#include "kernels/formula/julia.h"
#include "kernels/formula/mpfr_orbit.h"
#include "kernels/formula/render.h"
#include "kernels/mandelbrot/mandelbrot.h"

namespace ds::test::formula_views {

using ds::formula::Formula;
using ds::formula::FormulaOptions;
using ds::formula::FormulaReport;
using ds::formula::GridPixel;
using ds::mandel::View;

inline View view_n(const std::string& re, const std::string& im, const std::string& zoom, uint64_t iter, int n) {
  View v;
  v.re = re;
  v.im = im;
  v.zoom = zoom;
  v.width = v.height = n;
  v.max_iter = iter;
  return v;
}

// c of pixel (i, j) of v as a decimal string pair, to `bits` (for moving a view's centre).
inline std::pair<std::string, std::string> pixel_centre(const View& v, int i, int j, int bits) {
  const ds::mandel::Geometry g = ds::mandel::geometry(v);
  mpfr_t re, im, h, t;
  mpfr_inits2(bits, re, im, h, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_str(re, g.re.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(im, g.im.c_str(), 10, MPFR_RNDN);
  mpfr_set_str(h, g.half_step.c_str(), 10, MPFR_RNDN);
  mpfr_mul_si(t, h, 2L * i + 1 - v.width, MPFR_RNDN);
  mpfr_add(re, re, t, MPFR_RNDN);
  mpfr_mul_si(t, h, v.height - 2L * j - 1, MPFR_RNDN);
  mpfr_add(im, im, t, MPFR_RNDN);
  const auto str = [&](mpfr_t x) {
    char buf[2048];
    mpfr_snprintf(buf, sizeof buf, "%.*Rg", static_cast<int>(bits * 0.302) + 2, x);
    return std::string(buf);
  };
  std::pair<std::string, std::string> out{str(re), str(im)};
  mpfr_clears(re, im, h, t, static_cast<mpfr_ptr>(nullptr));
  return out;
}

// Zooms `factor` at a time from v towards the boundary (a late-escaping pixel beside one that did
// not escape, else the latest-escaping pixel) until the zoom reaches `depth` (log10): how the
// deep test views were found (the DISABLED_Find* tests print them); julia: a Julia set's plane.
inline View zoom_towards_boundary(View v, const Formula& f, double depth, double factor, bool on_axis = false,
                                  const ds::formula::JuliaSeed& julia = {}) {
  FormulaOptions o;
  o.max_fallback = 0;
  o.julia = julia;
  double lz = std::log10(std::stod(v.zoom));
  while (lz < depth) {
    FormulaReport rep;
    const ds::mandel::RenderResult r = ds::formula::render(v, f, o, &rep);
    const int n = v.width;
    int best = -1;
    uint64_t best_count = 0;
    bool best_inside = false;
    for (int j = on_axis ? n / 2 - 1 : n / 4; j < (on_axis ? n / 2 + 1 : 3 * n / 4); ++j)
      for (int i = n / 4; i < 3 * n / 4; ++i) {
        const uint64_t c = r.count(static_cast<std::size_t>(j) * n + i);
        if (c >= v.max_iter) continue;
        bool inside = false;
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di)
            inside |= r.count(static_cast<std::size_t>(j + dj) * n + i + di) >= v.max_iter;
        if ((inside && !best_inside) || (inside == best_inside && c > best_count)) {
          best = j * n + i;
          best_count = c;
          best_inside = inside;
        }
      }
    if (best < 0) break;
    const int bits = static_cast<int>((lz + std::log10(factor)) * 3.33) + 64;
    const auto c = pixel_centre(v, best % n, best / n, bits);
    v.re = c.first;
    if (!on_axis) v.im = c.second;
    lz += std::log10(factor);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17ge%d", std::pow(10.0, lz - std::floor(lz)),
                  static_cast<int>(std::floor(lz)));
    v.zoom = buf;
    if (best_count > v.max_iter / 10 * 9) v.max_iter *= 2;
  }
  return v;
}

// The pixels' agreement with MPFR on a sample grid of v (mpfr_grid at b1 = the reference's bits + 128
// and b2 = b1 + 128, trusted where they agree).
struct Agreement {
  int trusted = 0, decided = 0, compared = 0, agree = 0, distinct = 0;
  std::string detail;
};

inline Agreement compare_with_mpfr(const View& v, const ds::mandel::RenderResult& r,
                            const std::vector<uint8_t>& certified, const std::vector<GridPixel>& grid) {
  Agreement a;
  std::set<uint64_t> counts;
  for (const GridPixel& p : grid) {
    const std::size_t k = static_cast<std::size_t>(p.j) * v.width + p.i;
    const bool ok = certified[k] != 0;
    a.decided += ok;
    if (!p.trusted()) continue;
    ++a.trusted;
    counts.insert(p.count);
    if (!ok) continue;
    ++a.compared;
    if (r.count(k) == p.count)
      ++a.agree;
    else if (a.detail.size() < 400)
      a.detail += "\n  pixel (" + std::to_string(p.i) + ", " + std::to_string(p.j) +
                  "): " + std::to_string(r.count(k)) + " against MPFR's " + std::to_string(p.count);
  }
  a.distinct = static_cast<int>(counts.size());
  return a;
}

}  // namespace ds::test::formula_views
