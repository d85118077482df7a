// The finder's campaign (issue #43): random clicks at random views near the boundary (seeded; the
// seed is printed, DEEPSCOPE_SEED sets it), each minibrot and Misiurewicz point the finder reports
// checked by the tests' own MPFR orbit (period_oracle.h): the least period (no proper divisor a
// root at the nucleus's scale), the root to far below its size, the size, and the point within the
// view. Goal and assertion: 0 wrong reports. Beside it, the finder without its proof (Newton's
// nucleus at the ball method's period, reported wherever it converged, as before issue #43) is
// checked the same way at the same clicks, to show what the campaign catches. The CI slice takes
// well under a second; DEEPSCOPE_LONG_TESTS=1 (the GPU session) runs 20 times as many views.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>

#include "kernels/perturb/finder.h"
#include "kernels/perturb/perturb.h"
#include "locations.h"
#include "period_oracle.h"
#include "test_files.h"

namespace {

using namespace ds;
using namespace ds::perturb;

double log2_of(FloatExp x) { return x.e + std::log2(std::fabs(x.m)); }

// Landmarks near the boundary (published coordinates: the seahorse and elephant valleys, the
// period-3 island, the triple spiral, c = i, the main antenna, a period-4 bulb's neighbourhood).
struct Landmark {
  double re, im;
};
const Landmark kLandmarks[] = {{-0.7453, 0.1127}, {0.2925, 0.0149},  {-1.7549, 0.0},    {-0.088, 0.654},
                               {0.0, 1.0},        {-1.985, 0.0},     {-0.1592, 1.0317}, {-0.7746, 0.1370},
                               {0.3750, 0.2190},  {-1.2500, 0.0500}, {-0.5600, 0.6400}, {0.4350, 0.3630}};

uint64_t campaign_seed() {
  if (const char* s = std::getenv("DEEPSCOPE_SEED")) return std::strtoull(s, nullptr, 10);
  return 20240043;
}
bool long_run() {
  const char* s = std::getenv("DEEPSCOPE_LONG_TESTS");
  return s && *s && std::string(s) != "0";
}

// The pixel offset of (re, im) from the view's centre, from the test's own doubles (views here are
// shallow: 1e7 at most).
bool in_view(const mandel::View& v, const std::string& re, const std::string& im, double radius_px) {
  const double s = 4.0 / (std::stod(v.zoom) * v.height);
  const double dx = (std::stod(re) - std::stod(v.re)) / s, dy = (std::stod(im) - std::stod(v.im)) / s;
  return std::fabs(dx) <= v.width / 2.0 + radius_px + 1 && std::fabs(dy) <= v.height / 2.0 + radius_px + 1;
}

TEST(FinderCampaign, RandomClicksReportOnlyWhatMpfrConfirms) {
  const uint64_t seed = campaign_seed();
  const int views = long_run() ? 2400 : 120, clicks = 8;
  std::cout << "finder campaign: seed " << seed << " (DEEPSCOPE_SEED), " << views << " views x " << clicks
            << " clicks\n";
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int found = 0, misiurewicz_found = 0, wrong = 0, tried = 0, with_period = 0;
  int unproven_reports = 0, unproven_wrong = 0;  // the finder without its proof, at the same clicks
  std::map<std::string, int> refused;            // the reasons' first words, counted
  for (int vi = 0; vi < views; ++vi) {
    const Landmark& l = kLandmarks[rng() % (sizeof kLandmarks / sizeof kLandmarks[0])];
    const double zoom = std::pow(10.0, 1.0 + 6.0 * unit(rng));
    const double h = 4.0 / zoom;
    char re[64], im[64], zs[64];
    std::snprintf(re, sizeof re, "%.17g", l.re + (unit(rng) - 0.5) * h);
    std::snprintf(im, sizeof im, "%.17g", l.im + (unit(rng) - 0.5) * h);
    std::snprintf(zs, sizeof zs, "%.6g", zoom);
    const mandel::View v =
        ds::test::make_view(re, im, zs, 1000 + static_cast<uint32_t>(rng() % 4000), 192, 108);
    for (int k = 0; k < clicks; ++k) {
      finder::FindOptions o;
      o.at_pixel = true;
      o.px = static_cast<int>(rng() % v.width);
      o.py = static_cast<int>(rng() % v.height);
      const bool misiurewicz = k % 4 == 3;
      SCOPED_TRACE(std::string(misiurewicz ? "misiurewicz" : "nucleus") + " at view " + re + " " + im +
                   " zoom " + zs + " iter " + std::to_string(v.max_iter) + " pixel " + std::to_string(o.px) +
                   "," + std::to_string(o.py));
      ++tried;
      const finder::FoundView f = misiurewicz ? finder::misiurewicz_view(v, o) : finder::minibrot_view(v, o);
      if (!misiurewicz && f.period.period) {
        ++with_period;
        // Without the proof: Newton's nucleus at the ball method's period, its size the finder's.
        const mandel::Geometry g = mandel::geometry(v);
        const int bits = perturb::view_bits(g) + 32;
        std::string cre, cim;
        perturb::pixel_c(g, v, o.px, o.py, bits, &cre, &cim);
        const finder::Nucleus n =
            finder::find_nucleus(cre, cim, f.period.period, bits, perturb::pixel_step(g) * o.radius_pixels);
        if (n.converged) {
          ++unproven_reports;
          const int nb = static_cast<int>(n.re.size() * 3.32) + 64;
          std::string w = ds::test::check_reported_nucleus(n.re, n.im, n.period, log2_of(n.size), nb);
          if (w.empty() && !in_view(v, n.re, n.im, o.radius_pixels)) w = "outside the view";
          if (!w.empty()) ++unproven_wrong;
        }
      }
      if (!f.ok) {
        EXPECT_FALSE(f.message.empty());
        refused[f.message.substr(0, f.message.find_first_of(":(0123456789"))]++;
        if (std::getenv("DEEPSCOPE_VERBOSE"))
          std::cout << "  refused: " << f.message << " [--re " << re << " --im " << im << " --zoom " << zs
                    << " --iter " << v.max_iter << " --size 192x108 --at " << o.px << "," << o.py << "]\n";
        continue;
      }
      std::string why;
      if (misiurewicz) {
        const int bits = static_cast<int>(f.misiurewicz.re.size() * 3.32);
        why =
            ds::test::check_reported_misiurewicz(f.misiurewicz.re, f.misiurewicz.im, f.misiurewicz.preperiod,
                                                 f.misiurewicz.period, bits + 64, -bits / 2.0);
        if (why.empty() && !in_view(v, f.misiurewicz.re, f.misiurewicz.im, o.radius_pixels))
          why = "outside the view";
        ++misiurewicz_found;
      } else {
        const int bits = static_cast<int>(f.nucleus.re.size() * 3.32) + 64;
        why = ds::test::check_reported_nucleus(f.nucleus.re, f.nucleus.im, f.nucleus.period,
                                               log2_of(f.nucleus.size), bits);
        if (why.empty() && !in_view(v, f.nucleus.re, f.nucleus.im, o.radius_pixels)) why = "outside the view";
        ++found;
      }
      if (!why.empty()) {
        ++wrong;
        ADD_FAILURE() << "wrong report: " << why;
      }
    }
  }
  std::cout << "finder campaign: " << tried << " clicks, " << found << " nuclei and " << misiurewicz_found
            << " Misiurewicz points reported and confirmed by MPFR, " << wrong << " wrong; refused:\n";
  for (const auto& [what, n] : refused) std::cout << "  " << n << " x " << what << "\n";
  std::cout << "finder campaign: without the proof, " << unproven_reports << " nuclei reported at the "
            << with_period << " nucleus clicks with a period, " << unproven_wrong << " of them wrong\n";
  EXPECT_EQ(wrong, 0);
  // Not vacuous: most nucleus clicks where the ball method found a period report a nucleus.
  EXPECT_GE(found, with_period / 2);
}

}  // namespace
