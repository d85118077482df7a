// `deepscope bench perturb --formulas`: formula perturbation on the CPU (kernels/formula) with BLA
// and without, at deep views of Burning Ship (1e30, 1e60), Mandelbar (1e30) and two of fractalshades'
// examples (perpendicular Burning Ship 4.8e29, Burning Ship 1e101): the time of each,
// the share of iterations BLA replaced, the undecided pixels, and a check that no pixel decided by
// both passes has two counts. docs/perturbation/formulas.md, "BLA for formulas".
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/cli.h"
#include "bench.h"
#include "kernels/core/atomic_file.h"
#include "kernels/formula/formula.h"
#include "kernels/formula/perturb.h"

namespace ds::app {
namespace {

struct FormulaView {
  const char* name;
  const char* formula;
  const char* re;
  const char* im;
  const char* zoom;
  uint64_t iter;
  const char* file = nullptr;  // else a location file in --locations DIR (its formula, centre, zoom, iterations)
};

// The deep views of tests/kernels/formula/test_formula_perturb.cpp (found by its
// DISABLED_FindDeepViews, zooming towards the boundary).
const FormulaView kViews[] = {
    {"burning-ship-1e30", "burning-ship", "-0.989752281000521898831661265663459503552380985223124",
     "-0.528974112195614262618309520861418904169817810601377", "1.2676506002282359e30", 8000},
    {"burning-ship-1e60", "burning-ship",
     "-0.52385650573873808264320817953931464697723557570940719796350161454708271638042874",
     "-0.905063012975098048484633103441542341595677940679102394986324177838949724014396055",
     "1.6069380442590071e60", 2000},
    {"mandelbar-1e30", "mandelbar", "0.310175907990264547510074843810928955381608532623691",
     "0.452451404255531058853404179332138283843885987485153", "1.2676506002282359e30", 32000},
    // fractalshades' examples (tests/data/formula, each file naming its source).
    {"fs-perpendicular-burning-ship-21-trees", "", "", "", "", 0, "fs-perpendicular-burning-ship-21-trees.loc"},
    {"fs-burning-ship-14-deeper", "", "", "", "", 0, "fs-burning-ship-14-deeper.loc"},
};

// The "key = value" lines of a tests/data/formula location file (comments '#').
std::map<std::string, std::string> read_loc(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw cli::UsageError("bench perturb --formulas: cannot read the location file " + path);
  std::map<std::string, std::string> kv;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.find(" = ");
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 3);
  }
  for (const char* k : {"formula", "re", "im", "zoom", "iterations"})
    if (!kv.count(k)) throw cli::UsageError("bench perturb --formulas: " + path + " has no \"" + k + "\"");
  return kv;
}

std::string loadavg() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return f ? a + " " + b + " " + c : std::string("unknown");
}

}  // namespace

int bench_perturb_formulas(const ArgList& args) {
  cli::Args a(args, {"out", "size", "repeat", "views", "locations"}, {"formulas", "quick"});
  const std::string locations = a.get("locations", "tests/data/formula");
  if (!a.positional().empty())
    throw cli::UsageError("bench perturb --formulas: unexpected \"" + a.positional()[0] + "\"");
  const bool quick = a.flag("quick");
  const std::string out = a.get("out", "");
  if (!out.empty()) check_writable(out);
  const int size = static_cast<int>(a.get_int("size", quick ? 64 : 256, 16, 8192));
  const int repeat = static_cast<int>(a.get_int("repeat", 1, 1, 100));
  std::vector<const FormulaView*> views;
  if (a.has("views")) {
    std::stringstream ss(a.get("views", ""));
    std::string name;
    while (std::getline(ss, name, ',')) {
      const auto it = std::find_if(std::begin(kViews), std::end(kViews),
                                   [&](const FormulaView& v) { return name == v.name; });
      if (it == std::end(kViews))
        throw cli::UsageError("bench perturb --views: unknown view \"" + name + "\"");
      views.push_back(it);
    }
  } else {
    for (const FormulaView& v : kViews)
      if (!quick || std::string(v.name) == "burning-ship-1e30") views.push_back(&v);
  }
  const std::string load_before = loadavg();
  std::ostringstream md;
  md << bench_preamble("perturb", args) << "- load average before (1, 5, 15 min): "
     << load_before << "\n";
  std::ostringstream table;
  table << "| view | formula | zoom | size | max iter | BLA | total (s) | reference (s) | BLA table (s) | "
           "pixels (s) | iterations | by BLA | undecided px | off / on |\n"
        << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const FormulaView* fv : views) {
    mandel::View v;
    std::string text = fv->formula;
    v.re = fv->re;
    v.im = fv->im;
    v.zoom = fv->zoom;
    v.max_iter = fv->iter;
    if (fv->file) {
      const auto kv = read_loc(locations + "/" + fv->file);
      text = kv.at("formula");
      v.re = kv.at("re");
      v.im = kv.at("im");
      v.zoom = kv.at("zoom");
      v.max_iter = std::stoull(kv.at("iterations"));
    }
    v.width = v.height = size;
    const formula::Formula f = formula::parse_formula(text);
    mandel::RenderResult res[2];
    formula::Certification cert[2];
    double pass[2] = {0, 0};
    for (int on = 1; on >= 0; --on) {
      for (int k = 0; k < repeat; ++k) {  // best of `repeat` for the pixels' pass
        formula::DirectOptions o;
        o.bla = on != 0;
        formula::Certification c;
        mandel::RenderResult r = formula::render_perturb(v, f, o, &c);
        const double p = r.kernel_seconds - r.perturb.bla_seconds;
        if (k == 0 || p < pass[on]) {
          pass[on] = p;
          res[on] = std::move(r);
          cert[on] = std::move(c);
        }
      }
      std::fprintf(stderr, "%-18s BLA %-3s %4d^2 pixels %.3f s, %.1f%% of %.4g iterations by BLA, %llu undecided\n",
                   fv->name, on ? "on" : "off", size, pass[on],
                   res[on].iterations ? 100.0 * res[on].perturb.bla_skipped / res[on].iterations : 0.0,
                   static_cast<double>(res[on].iterations), static_cast<unsigned long long>(cert[on].uncertain));
    }
    // Pixels both passes decided must have one count (each is the exact orbit's).
    uint64_t both = 0, differ = 0;
    for (std::size_t k = 0; k < cert[0].certified.size(); ++k)
      if (cert[0].certified[k] && cert[1].certified[k]) {
        ++both;
        differ += res[0].count(k) != res[1].count(k);
      }
    for (int on = 1; on >= 0; --on) {
      const mandel::RenderResult& r = res[on];
      table << "| " << fv->name << " | " << text << " | " << v.zoom << " | " << size << "^2 | "
            << v.max_iter << " | " << (on ? "on" : "off") << " | " << fmt("%.3f", r.seconds) << " | "
            << fmt("%.3f", r.perturb.reference_seconds) << " | " << fmt("%.3f", r.perturb.bla_seconds) << " | "
            << fmt("%.3f", pass[on]) << " | " << fmt("%.4g", static_cast<double>(r.iterations)) << " | "
            << fmt("%.1f%%", r.iterations ? 100.0 * r.perturb.bla_skipped / r.iterations : 0.0) << " | "
            << cert[on].uncertain << " | " << (on ? fmt("%.2fx", pass[0] / pass[1]) : std::string("")) << " |\n";
    }
    md << "- " << fv->name << ": " << both << " pixels decided by both passes, " << differ
       << " with different counts\n";
    if (differ)
      std::fprintf(stderr, "%s: %llu pixels decided with and without BLA have different counts\n", fv->name,
                   static_cast<unsigned long long>(differ));
  }
  md << "- load average after: " << loadavg() << "\n\n"
     << "Perturbation with binary64 deltas on the CPU (all cores), the binary64 pass only (undecided pixels "
        "are not re-decided in MPFR here). *pixels*: the pixels' pass (best of --repeat), without the "
        "reference orbit and the BLA table; *off / on*: the pixels' time without BLA over that with it. "
        "*by BLA*: the share of the iterations (sum of count - 1) BLA steps replaced.\n\n"
     << table.str();
  std::cout << md.str();
  if (!out.empty()) write_file_atomically(out, md.str());
  return 0;
}

}  // namespace ds::app
