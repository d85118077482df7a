// `deepscope find period|nucleus|misiurewicz`: the feature finder (kernels/finder.h) at a view's
// centre or one of its pixels; nucleus and misiurewicz write a location file that render takes.
// Exit 1, with the last estimate, when nothing is found or Newton's method does not converge.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "kernels/atomic_file.h"
#include "kernels/finder.h"
#include "kernels/perturb.h"
#include "location.h"

namespace ds::app {
namespace {

namespace fnd = mandel::finder;

struct FindJob {
  std::string what;  // period | nucleus | misiurewicz
  mandel::View view;
  bool at_pixel = false;
  int px = 0, py = 0;
  double radius_pixels = 4;
  uint32_t period = 0, max_period = 0;
  int preperiod = 0;
  double fit = 0.5;
  bool iter_given = false;
  std::string out;
  bool quiet = false;
};

FindJob parse_find(const ArgList& args) {
  if (args.empty() || args[0].rfind("-", 0) == 0)
    throw cli::UsageError("find needs what to find: period, nucleus or misiurewicz");
  FindJob j;
  j.what = args[0];
  if (j.what != "period" && j.what != "nucleus" && j.what != "misiurewicz")
    throw cli::UsageError("find: unknown feature \"" + j.what + "\" (period, nucleus or misiurewicz)");
  const ArgList rest(args.begin() + 1, args.end());
  cli::Args a(rest,
              {"re", "im", "zoom", "iter", "size", "location", "at", "radius", "period", "preperiod",
               "max-period", "fit", "out"},
              {"quiet"});
  if (!a.positional().empty())
    throw cli::UsageError("find takes one feature name, then options: \"" + a.positional()[0] + "\"");
  if (a.has("location")) apply_to_view(read_location_file(a.get("location", "")), &j.view, true);
  j.view.re = a.get("re", j.view.re);
  j.view.im = a.get("im", j.view.im);
  j.view.zoom = a.get("zoom", j.view.zoom);
  j.iter_given = a.has("iter");
  j.view.max_iter = static_cast<uint32_t>(a.get_count("iter", j.view.max_iter, 1, 0xFFFFFFFELL));
  if (a.has("size")) cli::parse_size(a.get("size", ""), 1 << 20, &j.view.width, &j.view.height);
  if (a.has("at")) {
    const std::string at = a.get("at", "");
    const size_t comma = at.find(',');
    if (comma == std::string::npos) throw cli::UsageError("--at takes a pixel X,Y, got \"" + at + "\"");
    j.px = static_cast<int>(cli::parse_int("--at", at.substr(0, comma)));
    j.py = static_cast<int>(cli::parse_int("--at", at.substr(comma + 1)));
    j.at_pixel = true;
  }
  j.radius_pixels = a.get_double("radius", 4.0);
  if (!(j.radius_pixels > 0) || !std::isfinite(j.radius_pixels))
    throw cli::UsageError("--radius must be a positive number of pixels");
  j.period = static_cast<uint32_t>(a.get_count("period", 0, 1, 0xFFFFFFFELL));
  j.preperiod = static_cast<int>(a.get_int("preperiod", 0, 1, 1 << 20));
  j.max_period = static_cast<uint32_t>(a.get_count("max-period", 0, 1, 0xFFFFFFFELL));
  j.fit = a.get_double("fit", 0.5);
  if (!(j.fit > 0 && j.fit <= 100)) throw cli::UsageError("--fit must be in (0, 100]");
  j.out = a.get("out", "");
  if (j.what != "period" && j.out.empty()) throw cli::UsageError("find " + j.what + " needs --out FILE.loc");
  j.quiet = a.flag("quiet");
  return j;
}

// The decimal with at most `digits` significant digits, for messages.
std::string short_decimal(const std::string& s, size_t digits = 40) {
  return s.size() > digits + 8 ? s.substr(0, digits) + "..." : s;
}

void write_loc(const std::string& path, const Location& loc) {
  write_file_atomically(path, format_location(loc));
}

}  // namespace

int cmd_find(const ArgList& args) {
  FindJob j = parse_find(args);
  const mandel::Geometry g = mandel::geometry(j.view);  // throws ViewError (exit 2) on bad fields
  if (j.at_pixel && (j.px < 0 || j.py < 0 || j.px >= j.view.width || j.py >= j.view.height))
    throw cli::UsageError("--at " + std::to_string(j.px) + "," + std::to_string(j.py) + " is outside the " +
                          std::to_string(j.view.width) + "x" + std::to_string(j.view.height) + " image");
  if (!j.out.empty()) check_writable(j.out);
  install_cancel_handler();
  const std::atomic<bool>* cancel = &cancel_flag();
  const int bits = mandel::perturb::reference_bits(g) + 32;
  std::string re = j.view.re, im = j.view.im;
  if (j.at_pixel) mandel::perturb::pixel_c(g, j.view, j.px, j.py, bits, &re, &im);
  const FloatExp radius = mandel::perturb::pixel_step(g) * j.radius_pixels;
  const uint32_t max_period = j.max_period ? j.max_period : j.view.max_iter;
  auto say = [&](const std::string& s) {
    if (!j.quiet) std::cerr << "deepscope find: " << s << "\n";
  };

  if (j.what == "period" || (j.what == "nucleus" && j.period == 0)) {
    const fnd::PeriodResult p = fnd::find_period(re, im, radius, max_period, bits, cancel);
    if (p.cancelled) return 130;
    if (p.period == 0) {
      std::cerr << "deepscope find: no period up to " << max_period << " within " << j.radius_pixels
                << " pixels of the point"
                << (p.escaped_at ? " (the whole disk escaped at step " + std::to_string(p.escaped_at) + ")"
                                 : std::string(": raise --max-period or --radius"))
                << "\n";
      return 1;
    }
    j.period = p.period;
    std::printf("period %u\n", p.period);
    say("ball method within " + std::to_string(j.radius_pixels) + " pixels, " + std::to_string(p.iterations) +
        " steps at " + std::to_string(bits) + " bits, " + std::to_string(p.seconds) + " s");
    if (j.what == "period") return 0;
  }

  Location loc;
  if (j.what == "nucleus") {
    const fnd::Nucleus n = fnd::find_nucleus(re, im, j.period, bits, radius, cancel);
    if (n.cancelled) return 130;
    std::printf("nucleus of period %u%s\nre %s\nim %s\nsize %s, orientation %.6f rad, atom domain %s, Newton "
                "distance %s\n",
                n.period, n.converged ? "" : " (NOT CONVERGED: last estimate)", n.re.c_str(), n.im.c_str(),
                to_string(n.size, 6).c_str(), n.orientation, to_string(n.domain_size, 6).c_str(),
                to_string(n.newton_distance, 3).c_str());
    say(std::to_string(n.perturbed_steps) + " Newton steps by perturbation, " + std::to_string(n.mpfr_steps) +
        " MPFR orbits at up to " + std::to_string(n.bits) + " bits, " + std::to_string(n.seconds) + " s");
    if (!n.converged) {
      std::cerr << "deepscope find: " << n.message << "; nothing written\n";
      return 1;
    }
    // The minibrot's extent (about 2.25 |size|, the whole set's width) fills `fit` of the height:
    // the view's height is 4 / zoom.
    loc.re = n.re;
    loc.im = n.im;
    loc.zoom = to_string(FloatExp(4.0 * j.fit / 2.25) / n.size, 17);
    // Iterations: enough for the exterior near the minibrot (its escape counts are multiples of the
    // period); interior pixels stop early. --iter overrides.
    loc.iterations = j.iter_given ? j.view.max_iter
                                  : static_cast<uint32_t>(std::min<double>(0xFFFFFFFE, std::max<double>(j.view.max_iter, 64.0 * n.period)));
  } else {  // misiurewicz
    int q = j.preperiod, p = static_cast<int>(j.period);
    if (q == 0 || p == 0) {
      const int mq = q ? q : 64, mp = p ? p : 64;
      const fnd::MisiurewiczGuess gs = fnd::guess_misiurewicz(re, im, mq, mp, bits);
      if (gs.period == 0) {
        std::cerr << "deepscope find: no Misiurewicz point near the point (preperiod <= " << mq << ", period <= "
                  << mp << "); give --preperiod and --period\n";
        return 1;
      }
      q = q ? q : gs.preperiod;
      p = p ? p : gs.period;
      say("nearest by one Newton step: preperiod " + std::to_string(gs.preperiod) + ", period " +
          std::to_string(gs.period) + " (distance " + to_string(gs.distance, 3) + ")");
    }
    const fnd::Misiurewicz m = fnd::find_misiurewicz(re, im, q, p, bits, mandel::perturb::pixel_step(g) * static_cast<double>(j.view.height), cancel);
    if (m.cancelled) return 130;
    std::printf("Misiurewicz point of preperiod %d and period %d%s\nre %s\nim %s\nNewton distance %s\n", q, p,
                m.converged ? "" : " (NOT CONVERGED: last estimate)", m.re.c_str(), m.im.c_str(),
                to_string(m.newton_distance, 3).c_str());
    say(std::to_string(m.steps) + " MPFR Newton steps at " + std::to_string(m.bits) + " bits, " +
        std::to_string(m.seconds) + " s");
    if (!m.converged) {
      std::cerr << "deepscope find: " << m.message << "; nothing written\n";
      return 1;
    }
    loc.re = m.re;
    loc.im = m.im;
    loc.zoom = j.view.zoom;
    loc.iterations = j.view.max_iter;
  }
  loc.width = j.view.width;
  loc.height = j.view.height;
  write_loc(j.out, loc);
  say("wrote " + j.out + " (" + short_decimal(loc.re, 24) + ", zoom " + loc.zoom + ")");
  return 0;
}

}  // namespace ds::app
