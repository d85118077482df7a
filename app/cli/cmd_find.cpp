// `deepscope find period|nucleus|misiurewicz`: the feature finder (kernels/perturb/finder.h) at a view's
// centre or one of its pixels; nucleus and misiurewicz write a location file that render takes.
// Exit 1 with "not found: <reason>" (and nothing written) when nothing is found, Newton's method does
// not converge, or the finder cannot prove what it found (finder.h: prove_nucleus, prove_misiurewicz).
// `find period` writes no location: --out is refused there (exit 2).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "app/cli/cancel.h"
#include "app/cli/cli.h"
#include "app/cli/commands.h"
#include "kernels/core/atomic_file.h"
#include "kernels/perturb/finder.h"
#include "app/io/location.h"

namespace ds::app {
namespace {

namespace fnd = perturb::finder;

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
  j.view.max_iter = a.get_iterations("iter", j.view.max_iter);
  if (a.has("size")) cli::parse_size(a.get("size", ""), 1 << 20, &j.view.width, &j.view.height);
  if (a.has("at")) {
    const std::string at = a.get("at", "");
    const size_t comma = at.find(',');
    if (comma == std::string::npos) throw cli::UsageError("--at takes a pixel X,Y, got \"" + at + "\"");
    const int64_t x = cli::parse_int("--at", at.substr(0, comma)), y = cli::parse_int("--at", at.substr(comma + 1));
    // Checked before the cast to int: --at 4294967296,0 wrapped to pixel (0, 0).
    if (x < 0 || y < 0 || x >= j.view.width || y >= j.view.height)
      throw cli::UsageError("--at " + at + ": pixel (" + std::to_string(x) + ", " + std::to_string(y) +
                            ") is outside the " + std::to_string(j.view.width) + "x" +
                            std::to_string(j.view.height) + " image");
    j.px = static_cast<int>(x);
    j.py = static_cast<int>(y);
    j.at_pixel = true;
  }
  j.radius_pixels = a.get_double("radius", 4.0);  // bounded at the view: cmd_find
  j.period = static_cast<uint32_t>(a.get_count("period", 0, 1, 0xFFFFFFFELL));
  j.preperiod = static_cast<int>(a.get_int("preperiod", 0, 1, 1 << 20));
  j.max_period = static_cast<uint32_t>(a.get_count("max-period", 0, 1, 0xFFFFFFFELL));
  j.fit = a.get_double("fit", 0.5);
  if (!(j.fit > 0 && j.fit <= 100)) throw cli::UsageError("--fit must be in (0, 100]");
  j.out = a.get("out", "");
  if (j.what != "period" && j.out.empty()) throw cli::UsageError("find " + j.what + " needs --out FILE.loc");
  // The period's view is the view given: nothing to write (a location of that period's minibrot is
  // `find nucleus --out`).
  if (j.what == "period" && a.has("out"))
    throw cli::UsageError("find period writes no location, so --out is refused (find nucleus --out FILE.loc "
                          "writes the minibrot of that period)");
  j.quiet = a.flag("quiet");
  return j;
}

// The decimal with at most `digits` significant digits, for messages.
std::string short_decimal(const std::string& s, size_t digits = 40) {
  return s.size() > digits + 8 ? s.substr(0, digits) + "..." : s;
}

}  // namespace

int cmd_find(const ArgList& args) {
  FindJob j = parse_find(args);
  fnd::FindOptions o;
  o.at_pixel = j.at_pixel;
  o.px = j.px;
  o.py = j.py;
  o.radius_pixels = j.radius_pixels;
  o.max_period = j.max_period;
  o.period = j.period;
  o.preperiod = j.preperiod;
  o.fit = j.fit;
  // The finder's own bound on the radius (finder.h: search_radius_problem), named as the option.
  const std::string bad_radius = fnd::search_radius_problem(j.view, o);
  if (!bad_radius.empty()) throw cli::UsageError("--radius " + bad_radius);
  // A period given for a nucleus: its orbit's memory, before any is allocated.
  if (j.what == "nucleus" && j.period) {
    const std::string too_big = fnd::nucleus_memory_problem(j.period);
    if (!too_big.empty()) throw cli::UsageError("--period " + std::to_string(j.period) + ": " + too_big);
  }
  if (!j.out.empty()) check_writable(j.out);
  install_cancel_handler();
  o.cancel = &cancel_flag();
  auto say = [&](const std::string& s) {
    if (!j.quiet) std::cerr << "deepscope find: " << s << "\n";
  };
  fnd::FoundView f;
  if (j.what == "period") f = fnd::period_at(j.view, o);  // ViewError (exit 2) on bad fields
  else if (j.what == "nucleus") f = fnd::minibrot_view(j.view, o);
  else f = fnd::misiurewicz_view(j.view, o);
  if (f.cancelled) return 130;
  if (f.period.iterations) {
    if (f.period.period) std::printf("period %u\n", f.period.period);
    say("ball method within " + std::to_string(j.radius_pixels) + " pixels, " + std::to_string(f.period.iterations) +
        " steps, " + std::to_string(f.period.seconds) + " s");
  }
  if (!f.ok) {
    // The last estimate, for diagnosis only: nothing is reported as found.
    if (j.what == "nucleus" && !f.nucleus.re.empty() && f.nucleus.period)
      say("last estimate, not a result: period " + std::to_string(f.nucleus.period) + " at re " +
          short_decimal(f.nucleus.re) + ", im " + short_decimal(f.nucleus.im));
    if (j.what == "misiurewicz" && f.misiurewicz.steps)
      say("last estimate, not a result: preperiod " + std::to_string(f.misiurewicz.preperiod) + ", period " +
          std::to_string(f.misiurewicz.period) + " at re " + short_decimal(f.misiurewicz.re) + ", im " +
          short_decimal(f.misiurewicz.im));
    std::printf("not found: %s\n", f.message.c_str());
    std::cerr << "deepscope find: not found: " << f.message << (j.out.empty() ? "" : "; nothing written") << "\n";
    return 1;
  }
  if (j.what == "nucleus") {
    const fnd::Nucleus& n = f.nucleus;
    const fnd::NucleusProof& pr = f.nucleus_proof;
    std::printf("nucleus of period %u\nre %s\nim %s\nsize %s, orientation %.6f rad, atom domain %s, Newton "
                "distance %s\n",
                n.period, n.re.c_str(), n.im.c_str(), to_string(n.size, 6).c_str(), n.orientation,
                fnd::atom_domain_text(n.domain_size, 6).c_str(), to_string(pr.newton_distance, 3).c_str());
    std::printf("proven: least period %u (%s), Newton distance %s within %s at %d bits, K r %s\n", n.period,
                pr.divisor ? ("|z_d/z_d'| >= " + to_string(pr.divisor_distance, 3) + " at its divisors").c_str()
                           : "period 1",
                to_string(pr.newton_distance, 3).c_str(), to_string(pr.tolerance, 3).c_str(), pr.bits,
                to_string(pr.k * pr.newton_distance, 3).c_str());
    say(std::to_string(n.perturbed_steps) + " Newton steps by perturbation, " + std::to_string(n.mpfr_steps) +
        " MPFR orbits at up to " + std::to_string(n.bits) + " bits, " + std::to_string(n.seconds) +
        " s; the proof's orbit " + std::to_string(pr.seconds) + " s");
  }
  if (j.what == "misiurewicz") {
    const fnd::Misiurewicz& m = f.misiurewicz;
    std::printf("Misiurewicz point of preperiod %d and period %d\nre %s\nim %s\nNewton distance %s\n", m.preperiod,
                m.period, m.re.c_str(), m.im.c_str(), to_string(f.misiurewicz_proof.newton_distance, 3).c_str());
    std::printf("proven: least preperiod %d and period %d, Newton distance within %s at %d bits\n", m.preperiod,
                m.period, to_string(f.misiurewicz_proof.tolerance, 3).c_str(), f.misiurewicz_proof.bits);
    say(std::to_string(m.steps) + " MPFR Newton steps at " + std::to_string(m.bits) + " bits, " +
        std::to_string(m.seconds) + " s");
  }
  if (!f.note.empty()) std::printf("note: %s\n", f.note.c_str());
  if (j.what == "period") return 0;
  Location loc;
  loc.re = f.view.re;
  loc.im = f.view.im;
  loc.zoom = f.view.zoom;
  loc.iterations = j.iter_given ? j.view.max_iter : f.view.max_iter;
  loc.width = j.view.width;
  loc.height = j.view.height;
  write_file_atomically(j.out, format_location(loc));
  say("wrote " + j.out + " (" + short_decimal(loc.re, 24) + ", zoom " + loc.zoom + ")");
  return 0;
}

}  // namespace ds::app
