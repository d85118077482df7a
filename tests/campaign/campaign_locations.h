// The MPFR campaign's locations (issue #43): seeded random zoom paths down the boundary, made with
// the project's own finder (minibrot nuclei, Misiurewicz points, points a few pixels off them), one
// location per seed index, deterministic (std::mt19937_64 seeded with the index).
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "kernels/mandelbrot/view.h"
#include "kernels/perturb/finder.h"
#include "kernels/perturb/perturb.h"

namespace ds::campaign {

// Ranges the generator draws from, as log10 (depth and iterations log-uniform).
struct GenOptions {
  double log10_zoom_min = 3, log10_zoom_max = 60;
  double log10_iter_min = 3, log10_iter_max = 5;
};

struct Location {
  uint64_t index = 0;  // the seed index: make_location(index, same options) makes it again
  std::string re, im, zoom;
  uint64_t max_iter = 1000;
  double log10_zoom = 0;
  uint64_t iter_cap = 1000;  // 10^log10_iter_max: the limit campaign.h may raise max_iter to
  uint32_t period = 0;       // the last minibrot nucleus the path went to (0: none), its period
  std::string path;          // the steps and their decades: a nucleus, b Misiurewicz point, c a point off the
                             // last one; A, B: a or b, then a point off it
};

// log10 of a positive decimal string, also beyond double's range ("3.2e1000").
inline double log10_decimal(const std::string& s) {
  const size_t e = s.find_first_of("eE");
  const double m = std::stod(s.substr(0, e));
  const double x = e == std::string::npos ? 0.0 : std::stod(s.substr(e + 1));
  return std::log10(m) + x;
}

// 10^x as a decimal string for any x ("3.1623e59").
inline std::string pow10_string(double x) {
  const double whole = std::floor(x);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6fe%.0f", std::pow(10.0, x - whole), whole);
  return buf;
}

// The escape count of c in double (0: not escaped within limit).
inline int double_escape(std::complex<double> c, int limit) {
  std::complex<double> z = c;
  for (int n = 1; n <= limit; ++n) {
    if (std::norm(z) > 4) return n;
    z = z * z + c;
  }
  return 0;
}

inline Location make_location(uint64_t index, const GenOptions& go) {
  std::mt19937_64 rng(index);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Location loc;
  loc.index = index;
  const double target = go.log10_zoom_min + (go.log10_zoom_max - go.log10_zoom_min) * unit(rng);
  const double log_iter = go.log10_iter_min + (go.log10_iter_max - go.log10_iter_min) * unit(rng);
  loc.max_iter = static_cast<uint64_t>(std::pow(10.0, log_iter));
  loc.iter_cap = static_cast<uint64_t>(std::pow(10.0, go.log10_iter_max) + 0.5);

  // A random point near the boundary of the whole set: escape count in [20, 500] (rejection, in double).
  char buf[64];
  auto random_start = [&] {
    for (;;) {
      const std::complex<double> c(-2.0 + 2.5 * unit(rng), -1.15 + 2.3 * unit(rng));
      const int n = double_escape(c, 500);
      if (n >= 20) {
        std::snprintf(buf, sizeof buf, "%.17g", c.real());
        loc.re = buf;
        std::snprintf(buf, sizeof buf, "%.17g", c.imag());
        loc.im = buf;
        return;
      }
    }
  };
  random_start();
  // Escape counts 20 to 500 put the start about 1e-2 to 1e-4 from the set: zoom 1e1 to 1e2 shows
  // it with the boundary in view.
  double lz = 1.0 + unit(rng);
  // The anchor: the last feature the path went to (at first the random start). The centre is the
  // anchor or a point a few pixels (of the deeper view) off it, so every view stays at the boundary.
  std::string anchor_re = loc.re, anchor_im = loc.im;
  const bool verbose = std::getenv("DEEPSCOPE_CAMPAIGN_VERBOSE") != nullptr;
  auto view_at = [&](const std::string& re, const std::string& im, double log10_zoom) {
    mandel::View v;
    v.re = re;
    v.im = im;
    v.zoom = pow10_string(log10_zoom);
    v.width = v.height = 64;
    v.max_iter = loc.iter_cap;
    return v;
  };
  bool anchored = false;  // a feature was found (the random start is not one)
  int restarts = 0;
  double anchor_fit = 1e9;  // an anchor at a nucleus: the depth of its minibrot's view
  while (lz < target) {
    // Without an anchor the start is near the boundary only at its own scale: one decade at most.
    double next = std::min(target, lz + (anchored ? 1.0 + 5.0 * unit(rng) : 0.5 + 0.5 * unit(rng)));
    const mandel::View v = view_at(loc.re, loc.im, lz);
    const double pick = unit(rng);
    char step = 'c';
    bool at_minibrot = false;
    // A feature: the nucleus (a) or Misiurewicz point (b) the finder finds at a pixel within 8 of
    // the middle of the current 64x64 view; a few tries (other pixels, the other kind) where it
    // finds none, more while the path has no anchor yet.
    const int tries = pick < 0.7 ? (anchored ? 2 : 6) : 0;
    for (int t = 0; t < tries && step == 'c'; ++t) {
      perturb::finder::FindOptions o;
      o.at_pixel = true;
      o.px = 24 + static_cast<int>(rng() % 17);
      o.py = 24 + static_cast<int>(rng() % 17);
      // Periods whose interior the iteration cap can still show (a quarter of it).
      o.max_period = static_cast<uint32_t>(std::max<uint64_t>(16, loc.iter_cap / 4));
      const bool nucleus = (pick < 0.35) == (t % 2 == 0);
      try {
        const perturb::finder::FoundView f =
            nucleus ? perturb::finder::minibrot_view(v, o) : perturb::finder::misiurewicz_view(v, o);
        if (verbose)
          std::fprintf(stderr, "  #%llu 1e%.1f %s: %s\n", static_cast<unsigned long long>(index), lz,
                       nucleus ? "nucleus" : "misiurewicz", f.ok ? "found" : f.message.c_str());
        if (!f.ok) continue;
        if (nucleus) {
          // A minibrot shallower than the least depth is passed by (the path would stop there).
          const double fit_zoom = log10_decimal(f.view.zoom);
          if (fit_zoom + 0.3 < go.log10_zoom_min) continue;
          // Nor does one far above the drawn depth end the path, but for a quarter of them (views
          // of minibrots), so that the depths stay close to log-uniform.
          if (fit_zoom + 3 < target && unit(rng) >= 0.25) continue;
          step = 'a';
          anchor_re = f.nucleus.re;
          anchor_im = f.nucleus.im;
          loc.period = f.nucleus.period;
          // The path stops within a decade above the minibrot's own view (below).
          const double fit = std::max(go.log10_zoom_min, fit_zoom - unit(rng));
          anchor_fit = std::max(lz, fit);
        } else {
          anchor_fit = 1e9;
          step = 'b';
          anchor_re = f.misiurewicz.re;
          anchor_im = f.misiurewicz.im;
        }
        anchored = true;
      } catch (const mandel::ViewError& e) {
        if (verbose) std::fprintf(stderr, "  #%llu: %s\n", static_cast<unsigned long long>(index), e.what());
      }
    }
    if (!anchored) {
      // No feature near the start at this scale: a new start (the path so far is dropped).
      if (++restarts <= 64) {
        random_start();
        anchor_re = loc.re;
        anchor_im = loc.im;
        lz = 1.0 + unit(rng);
        loc.path = "restart ";
        continue;
      }
    }
    loc.re = anchor_re;
    loc.im = anchor_im;
    // Past a minibrot's own size (its fit view) lies only its interior: the path stops there.
    if (anchor_fit <= next) {
      next = anchor_fit;
      at_minibrot = true;
    }
    if (!at_minibrot && (step == 'c' || unit(rng) < 0.3)) {
      // A point 1 to 6 pixels (of a 64x64 view at the next depth) off the anchor.
      int dx = 0, dy = 0;
      while (dx == 0 && dy == 0) {
        dx = static_cast<int>(rng() % 13) - 6;
        dy = static_cast<int>(rng() % 13) - 6;
      }
      const mandel::View w = view_at(anchor_re, anchor_im, next);
      const mandel::Geometry g = mandel::geometry(w);
      perturb::pixel_c(g, w, 32 + dx, 32 + dy, perturb::reference_bits(g) + 16, &loc.re, &loc.im);
      if (step != 'c') step = static_cast<char>(step - 'a' + 'A');  // A, B: the feature, then off it
    }
    std::snprintf(buf, sizeof buf, "%c%.1f ", step, next - lz);
    loc.path += buf;
    lz = next;
    if (at_minibrot) break;
  }
  if (!loc.path.empty()) loc.path.pop_back();
  loc.log10_zoom = lz;
  loc.zoom = pow10_string(lz);
  // A minibrot in reach needs several periods to show its interior.
  if (loc.period) loc.max_iter = std::min(loc.iter_cap, std::max<uint64_t>(loc.max_iter, 4ull * loc.period));
  return loc;
}

}  // namespace ds::campaign
