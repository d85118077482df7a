// `deepscope bench finder`: the feature finder at real locations made by other programs (KF's
// benchmarks, rust-fractal's), 1024^2 views, a 4-pixel ball: the time to find the period and the
// nucleus, against one plain MPFR orbit of the same length and precision (issue #24's goal: the
// nucleus in at most 3 such orbits). --repeat N: the medians of N runs of each, and the median of
// the N ratios of a run to the orbit timed right after it (a shared machine's load moves single
// runs of a few milliseconds by 2x and more, and a pair run back to back shares it).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "app/bench/bench.h"
#include "app/cli/cli.h"
#include "app/io/location.h"
#include "kernels/core/atomic_file.h"
#include "kernels/perturb/finder.h"
#include "kernels/perturb/perturb.h"

namespace ds::app {

int bench_finder(const ArgList& args) {
  cli::Args a(args, {"out", "locations", "repeat"}, {});
  const int repeat = static_cast<int>(a.get_int("repeat", 1, 1, 1000));
  const std::string data = a.get("locations", "tests/data");
  const std::string out = a.get("out", "");
  if (!out.empty()) check_writable(out);
  const char* files[] = {"kf-benchmarks/5e113.kfr", "locations/rf-e1000.loc", "locations/rf-e1200.loc",
                         "kf-benchmarks/5e227.kfr"};
  std::ostringstream md;
  md << bench_preamble("finder", args)
     << "\nFeature finder: period and nucleus at real locations made by other programs.\n";
  md << "\n1024^2 views, ball of 4 pixels about the centre. *orbit*: one plain MPFR orbit z <- z^2 + c of "
        "the period's length at the nucleus check's final precision; *ratio*: nucleus time / orbit";
  if (repeat > 1)
    md << "; the nucleus and the orbit run " << repeat
       << " times in pairs, one right after the other: the medians of the times, and the median of the "
          "pairs' ratios";
  md << ".\n\n";
  md << "| location | zoom | period | bits | period (s) | nucleus (s) | perturbed steps | MPFR orbits | "
        "orbit (s) | "
        "ratio | size |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const char* f : files) {
    const std::string path = data + "/" + f;
    mandel::View v;
    apply_to_view(read_location_file(path), &v, true);
    v.width = v.height = 1024;
    const mandel::Geometry g = mandel::geometry(v);
    const int bits = perturb::reference_bits(g) + 32;
    const FloatExp radius = perturb::pixel_step(g) * 4.0;
    const perturb::finder::PeriodResult p = perturb::finder::find_period(v.re, v.im, radius, 10000000, bits);
    if (p.period == 0) {
      md << "| " << f << " | " << v.zoom << " | none | | | | | | | | |\n";
      continue;
    }
    perturb::finder::Nucleus n;
    std::vector<double> nucleus_s, orbit_s;
    for (int r = 0; r < repeat; ++r) {
      n = perturb::finder::find_nucleus(v.re, v.im, p.period, bits, radius);
      nucleus_s.push_back(n.seconds);
      orbit_s.push_back(perturb::finder::orbit_seconds(n.re, n.im, p.period, n.bits));
    }
    auto median = [](std::vector<double> x) {
      std::sort(x.begin(), x.end());
      const size_t h = x.size() / 2;
      return x.size() % 2 ? x[h] : (x[h - 1] + x[h]) / 2;
    };
    std::vector<double> ratios;
    for (int r = 0; r < repeat; ++r) ratios.push_back(nucleus_s[r] / orbit_s[r]);
    n.seconds = median(nucleus_s);
    const double orbit = median(orbit_s), ratio = median(ratios);
    if (repeat > 1)
      std::fprintf(
          stderr, "%-24s nucleus %.4f .. %.4f s, orbit %.4f .. %.4f s, ratio %.2f .. %.2f over %d runs\n", f,
          *std::min_element(nucleus_s.begin(), nucleus_s.end()),
          *std::max_element(nucleus_s.begin(), nucleus_s.end()),
          *std::min_element(orbit_s.begin(), orbit_s.end()),
          *std::max_element(orbit_s.begin(), orbit_s.end()), *std::min_element(ratios.begin(), ratios.end()),
          *std::max_element(ratios.begin(), ratios.end()), repeat);
    std::fprintf(stderr, "%-24s period %u: %.3f s + nucleus %.3f s (%s), orbit %.3f s at %d bits\n", f,
                 p.period, p.seconds, n.seconds, n.converged ? "converged" : "NOT converged", orbit, n.bits);
    md << "| " << f << " | " << v.zoom << " | " << p.period << " | " << n.bits << " | "
       << fmt("%.3f", p.seconds) << " | " << fmt("%.3f", n.seconds) << (n.converged ? "" : " (not converged)")
       << " | " << n.perturbed_steps << " | " << n.mpfr_steps << " | " << fmt("%.3f", orbit) << " | "
       << fmt("%.2f", ratio) << " | " << to_string(n.size, 4) << " |\n";
  }
  std::cout << md.str();
  if (!out.empty()) write_file_atomically(out, md.str());
  return 0;
}

}  // namespace ds::app
