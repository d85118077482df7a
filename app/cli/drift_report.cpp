// Reports of the MD-drift workspace (see drift_report.h).
#include "drift_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "app/bench/bench.h"
#include "app/io/plot_png.h"

namespace ds::app {
namespace {

}  // namespace

std::string sum_tables_md(const std::vector<drift::SumRow>& rows, const drift::SumSuiteParams& p) {
  std::ostringstream s;
  int last = -1;
  for (const drift::SumRow& r : rows) {
    if (r.threads != last) {
      last = r.threads;
      s << "\nSum of " << p.n << " values (exact sum 0) with " << r.threads << " thread"
        << (r.threads > 1 ? "s" : "") << " on " << backend_name(p.backend) << "\n\n| order |";
      for (drift::SumMethod m : drift::all_sum_methods()) s << " " << drift::sum_method_name(m) << " |";
      s << "\n|---|---|---|---|---|---|\n";
    }
    s << "| " << drift::sum_order_name(r.order) << " |";
    for (drift::SumMethod m : drift::all_sum_methods())
      s << " " << fmt("%.4e", r.result[static_cast<int>(m)]) << " |";
    s << "\n";
  }
  return s.str() + "\n";
}

std::string sum_csv(const std::vector<drift::SumRow>& rows, const drift::SumSuiteParams& p) {
  std::string s = "backend,n,seed,threads,order,method,sum\n";
  for (const drift::SumRow& r : rows)
    for (drift::SumMethod m : drift::all_sum_methods())
      s += std::string(backend_name(p.backend)) + "," + std::to_string(p.n) + "," + std::to_string(p.seed) +
           "," + std::to_string(r.threads) + "," + drift::sum_order_name(r.order) + "," +
           drift::sum_method_name(m) + "," + fmt("%.17g", r.result[static_cast<int>(m)]) + "\n";
  return s;
}

DoUndoOutput run_doundo(const DoUndoRun& run) {
  DoUndoOutput o;
  o.csv = "trial,ops,arith,iteration,drift\n";
  std::ostringstream t;
  t << "Seconds for " << run.iterations << " rounds in one thread on " << backend_name(run.backend)
    << " (mean" << (run.repeat > 1 ? " and stdev of " + std::to_string(run.repeat) + " runs" : " of 1 run")
    << ")\n\n"
    << "| trial | arith | * then / (s) | stdev | / then * (s) | stdev | final drift * / | final drift / * |\n"
    << "|---|---|---|---|---|---|---|---|\n";
  for (int trial : run.trials) {
    std::vector<std::vector<std::string>> cells(run.ariths.size());
    for (int div_first = 0; div_first < 2 && !o.cancelled; ++div_first) {
      std::vector<PlotSeries> series;
      for (std::size_t a = 0; a < run.ariths.size(); ++a) {
        if (run.cancel && run.cancel->load()) {
          o.cancelled = true;
          break;
        }
        drift::DoUndoParams p;
        p.arith = run.ariths[a];
        p.trial = trial;
        p.div_first = div_first != 0;
        p.iterations = run.iterations;
        p.record_every = run.every;
        p.seed = run.seed;
        p.backend = run.backend;
        std::vector<double> secs;
        drift::DoUndoResult r;
        for (int k = 0; k < run.repeat; ++k) {
          r = drift::doundo(p);
          secs.push_back(r.seconds);
        }
        double mean = 0, var = 0;
        for (double x : secs) mean += x;
        mean /= static_cast<double>(secs.size());
        for (double x : secs) var += (x - mean) * (x - mean);
        const double sd = secs.size() > 1 ? std::sqrt(var / static_cast<double>(secs.size() - 1)) : 0.0;
        cells[a].push_back(fmt("%.4g", mean));
        cells[a].push_back(fmt("%.2g", sd));
        cells[a].push_back(fmt("%.3e", r.drift.empty() ? 0.0 : r.drift.back()));
        PlotSeries s;
        s.name = arith_name(p.arith);
        const char* ops = div_first ? "/*" : "*/";
        for (std::size_t i = 0; i < r.drift.size(); ++i) {
          const int64_t it = static_cast<int64_t>(i + 1) * run.every;
          s.x.push_back(static_cast<double>(it));
          s.y.push_back(r.drift[i]);
          o.csv += std::to_string(trial) + "," + ops + "," + s.name + "," + std::to_string(it) + "," +
                   fmt("%.17g", r.drift[i]) + "\n";
        }
        series.push_back(std::move(s));
        if (run.progress)
          run.progress("trial " + std::to_string(trial) + " " + ops + " " + arith_name(p.arith) + ": " +
                       fmt("%.4g s", mean));
      }
      double xl, xh, yl, yh;
      drift::doundo_ranges(trial, &xl, &xh, &yl, &yh);
      PlotSpec spec;
      spec.title = "do/undo trial " + std::to_string(trial) +
                   (div_first ? ": x = (x / y) * y" : ": x = (x * y) / y") + fmt(", x in (%g, ", xl) +
                   fmt("%g)", xh) + fmt(", y in (%g, ", yl) + fmt("%g)", yh);
      spec.x_label = "iteration";
      spec.y_label = "(x - x0) / x0";
      if (!series.empty())
        o.pngs.emplace_back(
            "doundo_trial" + std::to_string(trial) + (div_first ? "_divmul.png" : "_muldiv.png"),
            plot_png(spec, series));
    }
    for (std::size_t a = 0; a < run.ariths.size(); ++a) {
      if (cells[a].size() < 6) continue;
      t << "| " << trial << " | " << arith_name(run.ariths[a]) << " | " << cells[a][0] << " | " << cells[a][1]
        << " | " << cells[a][3] << " | " << cells[a][4] << " | " << cells[a][2] << " | " << cells[a][5]
        << " |\n";
    }
    if (o.cancelled) break;
  }
  o.table_md = t.str() + "\n";
  return o;
}

std::string md_csv(const std::vector<MdRun>& runs) {
  std::string s = "precision,seed,step,time,ke,pe,total\n";
  for (const MdRun& r : runs)
    for (const drift::MdSample& q : r.result.samples)
      s += std::string(drift::precision_name(r.precision)) + "," + std::to_string(r.seed) + "," +
           std::to_string(q.step) + "," + fmt("%.17g", q.time) + "," + fmt("%.17g", q.ke) + "," +
           fmt("%.17g", q.pe) + "," + fmt("%.17g", q.total) + "\n";
  return s;
}

namespace {

bool several_seeds(const std::vector<MdRun>& runs) {
  for (const MdRun& r : runs)
    if (r.seed != runs.front().seed) return true;
  return false;
}

// The precisions in the order they first appear.
std::vector<drift::Precision> precisions_of(const std::vector<MdRun>& runs) {
  std::vector<drift::Precision> v;
  for (const MdRun& r : runs)
    if (std::find(v.begin(), v.end(), r.precision) == v.end()) v.push_back(r.precision);
  return v;
}

const char* status_of(const drift::MdResult& m) {
  return m.range_fault ? "fixed_range_exceeded" : m.blew_up ? "blew_up" : m.cancelled ? "interrupted" : "ok";
}

// kT/ns/dof over the seeds of one precision that finished (a run that blew up or was interrupted
// does not count).
drift::SeedSpread spread_of(const std::vector<MdRun>& runs, drift::Precision pr) {
  std::vector<double> v;
  for (const MdRun& r : runs)
    if (r.precision == pr && !r.result.blew_up && !r.result.cancelled)
      v.push_back(drift::drift_units(r.result).kt_ns_dof);
  return drift::seed_spread(v);
}

std::string hex64(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

std::string json_num(double v) { return std::isfinite(v) ? fmt("%.10g", v) : std::string("null"); }

// One time axis for all precisions (the run's whole duration), each in its precision's colour
// (plot::palette of the precision's index, as in the window's MD drift tab); the drift as
// |E(t) - E(0)| / |E(0)| on a log10 axis, each drift line's legend giving its kT/ns/dof. With several
// seeds, one line per precision: the mean over its finished seeds, sample by sample (to the
// shortest run), its legend the seeds' mean kT/ns/dof and standard error (eighteen lines of three
// seeds, each nested a step wider than the next, hid one another).
std::string md_plot(const std::vector<MdRun>& runs, const drift::MdParams& p, bool drift_plot) {
  plot::Figure f;
  const bool seeds = several_seeds(runs);
  const auto value = [&](const drift::MdResult& m, std::size_t i) {
    const double e0 = m.samples.empty() ? 0.0 : m.samples[0].total;
    const drift::MdSample& q = m.samples[i];
    return drift_plot ? (e0 != 0 ? std::fabs(q.total - e0) / std::fabs(e0) : NAN) : q.pe;
  };
  if (!seeds) {
    for (const MdRun& r : runs) {
      std::string name = drift::precision_name(r.precision);
      if (drift_plot) name += fmt(" %.2g kT/ns/dof", drift::drift_units(r.result).kt_ns_dof);
      plot::Series s{name, {}, {}, plot::palette(static_cast<int>(r.precision))};
      for (std::size_t i = 0; i < r.result.samples.size(); ++i) {
        s.x.push_back(r.result.samples[i].time);
        s.y.push_back(value(r.result, i));
      }
      f.series.push_back(std::move(s));
    }
  } else {
    for (drift::Precision pr : precisions_of(runs)) {
      std::vector<const drift::MdResult*> done;
      for (const MdRun& r : runs)
        if (r.precision == pr && !r.result.blew_up && !r.result.cancelled && !r.result.samples.empty())
          done.push_back(&r.result);
      if (done.empty()) continue;
      std::size_t len = done[0]->samples.size();
      for (const drift::MdResult* m : done) len = std::min(len, m->samples.size());
      std::string name = std::string(drift::precision_name(pr)) + ", " + std::to_string(done.size()) + " seeds";
      if (drift_plot) {
        const drift::SeedSpread sp = spread_of(runs, pr);
        name += fmt(": %.2g", sp.mean) + (std::isfinite(sp.stderr_mean) ? fmt(" +- %.2g", sp.stderr_mean) : "") +
                " kT/ns/dof";
      }
      plot::Series s{name, {}, {}, plot::palette(static_cast<int>(pr))};
      for (std::size_t i = 0; i < len; ++i) {
        double sum = 0;
        for (const drift::MdResult* m : done) sum += value(*m, i);
        s.x.push_back(done[0]->samples[i].time);
        s.y.push_back(sum / static_cast<double>(done.size()));
      }
      f.series.push_back(std::move(s));
    }
  }
  const int64_t n = 4LL * p.cells * p.cells * p.cells;
  f.title = std::string(drift_plot ? "relative energy drift" : "potential energy") + ", LJ " +
            std::to_string(n) + " atoms, dt " + fmt("%g", p.dt) +
            (p.shifted_force ? ", shifted force"
             : p.shift       ? ""
                             : ", unshifted");
  f.x.label = "time (tau, reduced LJ units; argon: tau = " + fmt("%.4g ps)", drift::argon_tau_ps());
  f.x.lo = 0;
  f.x.hi = p.dt * static_cast<double>(p.steps);
  if (drift_plot) {
    f.y.label = std::string("|E(t) - E(0)| / |E(0)|") + (seeds ? ", the mean over seeds" : "") +
                "  (log scale; exact zeros not drawn)";
    f.y.scale = plot::Scale::kLog10;
  } else {
    f.y.label = std::string("PE per atom (epsilon)") + (seeds ? ", the mean over seeds" : "");
  }
  plot::nest_line_widths(&f.series);
  return figure_png(f, 960, 600);
}
}  // namespace

std::string md_drift_png(const std::vector<MdRun>& runs, const drift::MdParams& p) {
  return md_plot(runs, p, true);
}
std::string md_pe_png(const std::vector<MdRun>& runs, const drift::MdParams& p) {
  return md_plot(runs, p, false);
}

std::string md_drift_csv(const std::vector<MdRun>& runs, const drift::MdParams& p) {
  std::string s =
      "precision,seed,atoms,dof,dt,steps_done,status,slope_reduced,residual_rms,mean_T_reduced,mean_T_K,"
      "kT_per_ns_per_dof,kT_per_ns_per_dof_stderr,seeds\n";
  for (const MdRun& r : runs) {
    const drift::DriftUnits u = drift::drift_units(r.result);
    s += std::string(drift::precision_name(r.precision)) + "," + std::to_string(r.seed) + "," +
         std::to_string(r.result.atoms) + "," + std::to_string(u.dof) + "," + fmt("%.10g", p.dt) + "," +
         std::to_string(r.result.steps_done) + "," + status_of(r.result) + "," + fmt("%.10g", u.slope) + "," +
         fmt("%.6g", r.result.fit.rms) + "," + fmt("%.8g", u.mean_t) + "," + fmt("%.6g", u.mean_t_kelvin) +
         "," + fmt("%.6g", u.kt_ns_dof) + ",,1\n";
  }
  // Per precision: the mean over seeds and its standard error ("all" in the seed column).
  for (drift::Precision pr : precisions_of(runs)) {
    const drift::SeedSpread sp = spread_of(runs, pr);
    s += std::string(drift::precision_name(pr)) + ",all,,,,,,,,,," + fmt("%.6g", sp.mean) + "," +
         (std::isfinite(sp.stderr_mean) ? fmt("%.3g", sp.stderr_mean) : std::string()) + "," +
         std::to_string(sp.n) + "\n";
  }
  return s;
}

std::string md_json(const std::vector<MdRun>& runs, const drift::MdParams& p) {
  const int64_t n = 4LL * p.cells * p.cells * p.cells;
  const double tau = drift::argon_tau_ps();
  std::ostringstream s;
  s << "{\n  \"command\": \"deepscope drift md\",\n  \"system\": {\"atoms\": " << n
    << ", \"dof\": " << drift::degrees_of_freedom(n) << ", \"density\": " << json_num(p.density)
    << ", \"initial_temperature\": " << json_num(p.temperature) << ", \"cutoff\": " << json_num(p.cutoff)
    << ", \"potential\": \""
    << (p.shifted_force ? "shifted force" : p.shift ? "shifted" : "unshifted") << "\", \"dt\": " << json_num(p.dt)
    << ", \"steps\": " << p.steps << ", \"sample_every\": " << p.sample_every
    << ", \"equilibrate\": " << p.equilibration << ", \"fixed_bits\": " << p.fixed_bits << "},\n"
    << "  \"units\": {\"system\": \"argon\", \"sigma_angstrom\": " << drift::kArgonSigmaAngstrom
    << ", \"epsilon_over_kB_K\": " << drift::kArgonEpsilonOverKb << ", \"mass_dalton\": "
    << drift::kArgonMassDalton << ", \"tau_ps\": " << json_num(tau) << ", \"dt_fs\": " << json_num(p.dt * tau * 1e3)
    << ", \"run_ns\": " << json_num(static_cast<double>(p.steps) * p.dt * tau * 1e-3)
    << ", \"dof\": \"3N - 3 (zero, conserved total momentum)\""
    << ", \"temperature\": \"mean over the samples of 2 KE / dof (OpenMM StateDataReporter's T)\""
    << ", \"drift\": \"N slope / (T dof tau_ns), slope of the least-squares line through E/N against t\"},\n"
    << "  \"runs\": [";
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const MdRun& r = runs[k];
    const drift::DriftUnits u = drift::drift_units(r.result);
    s << (k ? ",\n" : "\n") << "    {\"precision\": \"" << drift::precision_name(r.precision)
      << "\", \"seed\": " << r.seed << ", \"backend\": \"" << backend_name(r.result.backend)
      << "\", \"status\": \"" << status_of(r.result) << "\", \"steps_done\": " << r.result.steps_done
      << ", \"slope_reduced\": " << json_num(u.slope) << ", \"residual_rms\": " << json_num(r.result.fit.rms)
      << ", \"mean_T_reduced\": " << json_num(u.mean_t) << ", \"mean_T_K\": " << json_num(u.mean_t_kelvin)
      << ", \"kT_per_ns_per_dof\": " << json_num(u.kt_ns_dof) << ", \"state_hash\": \"" << hex64(r.result.state_hash)
      << "\"}";
  }
  s << "\n  ],\n  \"summary\": [";
  const std::vector<drift::Precision> prs = precisions_of(runs);
  for (std::size_t k = 0; k < prs.size(); ++k) {
    const drift::SeedSpread sp = spread_of(runs, prs[k]);
    s << (k ? ",\n" : "\n") << "    {\"precision\": \"" << drift::precision_name(prs[k])
      << "\", \"seeds\": " << sp.n << ", \"kT_per_ns_per_dof_mean\": " << json_num(sp.mean)
      << ", \"kT_per_ns_per_dof_stderr\": " << json_num(sp.stderr_mean) << "}";
  }
  s << "\n  ]\n}\n";
  return s.str();
}

std::string md_fingerprint(const drift::MdParams& p) {
  // The seed is not part of it: each stored run carries its own (several seeds share one file).
  char b[400];
  std::snprintf(b, sizeof b,
                "deepscope drift md v2 cells=%d density=%.17g temp=%.17g cutoff=%.17g shift=%d%s dt=%.17g "
                "steps=%lld every=%lld equilibrate=%lld fixed_bits=%d backend=%s",
                p.cells, p.density, p.temperature, p.cutoff, p.shift ? 1 : 0, p.shifted_force ? " force" : "", p.dt,
                static_cast<long long>(p.steps), static_cast<long long>(p.sample_every),
                static_cast<long long>(p.equilibration), p.fixed_bits, backend_name(p.backend));
  return b;
}

std::string md_runs_text(const std::string& fingerprint, const std::vector<MdRun>& finished) {
  std::string s = fingerprint + "\n";
  char b[400];
  for (const MdRun& r : finished) {
    const drift::MdResult& m = r.result;
    std::snprintf(b, sizeof b, "run %s %lld %lld %d %lld %.17g %.17g %llu %.17g %s %llu\n",
                  drift::precision_name(r.precision), static_cast<long long>(m.atoms),
                  static_cast<long long>(m.steps_done), m.range_fault ? 2 : m.blew_up ? 1 : 0,
                  static_cast<long long>(m.blowup_step), m.seconds, m.steps_per_second,
                  static_cast<unsigned long long>(m.state_hash), m.box, backend_name(m.backend),
                  static_cast<unsigned long long>(r.seed));
    s += b;
    for (const drift::MdSample& q : m.samples) {
      std::snprintf(b, sizeof b, "s %lld %.17g %.17g %.17g %.17g\n", static_cast<long long>(q.step), q.time,
                    q.ke, q.pe, q.total);
      s += b;
    }
    s += "end\n";
  }
  return s;
}

std::vector<MdRun> md_runs_load(const std::string& text, const std::string& fingerprint) {
  std::istringstream in(text);
  std::string line;
  std::vector<MdRun> runs;
  if (!std::getline(in, line) || line != fingerprint) return runs;
  MdRun cur;
  bool open = false;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "run") {
      std::string name;
      long long atoms, done, bstep;
      int blew;
      unsigned long long hash;
      cur = MdRun{};
      ls >> name >> atoms >> done >> blew >> bstep >> cur.result.seconds >> cur.result.steps_per_second >>
          hash >> cur.result.box;
      if (!ls) return {};
      try {
        cur.precision = drift::parse_precision(name);
      } catch (const std::exception&) {
        return {};
      }
      cur.result.atoms = atoms;
      cur.result.steps_done = done;
      cur.result.blew_up = blew != 0;
      cur.result.range_fault = blew == 2;
      cur.result.blowup_step = bstep;
      cur.result.state_hash = hash;
      // The backend the run used (files written before it was recorded: the one in the fingerprint).
      std::string be;
      if (!(ls >> be)) {
        const auto at = fingerprint.rfind("backend=");
        be = at == std::string::npos ? "" : fingerprint.substr(at + 8);
      }
      cur.result.backend = be == "cuda" ? Backend::kCuda : Backend::kCpu;
      unsigned long long seed = 0;
      if (ls >> seed) cur.seed = seed;
      if (cur.result.blew_up) cur.result.message = "blew up at step " + std::to_string(bstep) + " (resumed)";
      open = true;
    } else if (tag == "s" && open) {
      drift::MdSample q;
      long long st;
      ls >> st >> q.time >> q.ke >> q.pe >> q.total;
      if (!ls) return {};
      q.step = st;
      cur.result.samples.push_back(q);
    } else if (tag == "end" && open) {
      cur.result.fit = drift::fit_drift(cur.result.samples);
      runs.push_back(std::move(cur));
      open = false;
    } else {
      return {};  // damaged: start over rather than trust it
    }
  }
  return runs;
}

std::string md_table_md(const std::vector<MdRun>& runs, const drift::MdParams& p) {
  std::ostringstream s;
  const int64_t n = 4LL * p.cells * p.cells * p.cells;
  const double tau = drift::argon_tau_ps();
  s << "LJ NVE, " << n << " atoms, density " << p.density << ", T0 " << p.temperature << ", cutoff "
    << p.cutoff << (p.shifted_force ? " (shifted force)" : p.shift ? " (shifted)" : " (unshifted)") << ", dt "
    << p.dt << "\nargon: tau = " << fmt("%.4f ps", tau) << ", dt = " << fmt("%.4g fs", p.dt * tau * 1e3)
    << ", run = " << fmt("%.4g ns", static_cast<double>(p.steps) * p.dt * tau * 1e-3)
    << ", dof = 3N - 3 = " << drift::degrees_of_freedom(n)
    << "; kT/ns/dof = N slope / (T dof tau_ns), T the run's mean kinetic temperature\n\n"
    << "| precision | seed | backend | steps | steps/s | drift slope (E/atom/tau) | kT/ns/dof | mean T (K) | "
       "residual rms | E(0)/atom | E(end)/atom | status |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const MdRun& r : runs) {
    const drift::MdResult& m = r.result;
    const drift::DriftUnits u = drift::drift_units(m);
    const double e0 = m.samples.empty() ? NAN : m.samples.front().total;
    const double e1 = m.samples.empty() ? NAN : m.samples.back().total;
    s << "| " << drift::precision_name(r.precision) << " | " << r.seed << " | " << backend_name(m.backend)
      << " | " << m.steps_done << " | " << fmt("%.4g", m.steps_per_second) << " | " << fmt("%.3e", m.fit.slope)
      << " | " << fmt("%.2e", u.kt_ns_dof) << " | " << fmt("%.1f", u.mean_t_kelvin) << " | "
      << fmt("%.2e", m.fit.rms) << " | " << fmt("%.8f", e0) << " | " << fmt("%.8f", e1) << " | "
      << (m.range_fault ? "fixed-point range exceeded by step " + std::to_string(m.blowup_step)
          : m.blew_up   ? "blew up at step " + std::to_string(m.blowup_step)
          : m.cancelled ? "interrupted"
                        : "ok")
      << " |\n";
  }
  if (several_seeds(runs)) {
    s << "\nOver seeds (runs that finished): mean and standard error of the mean\n\n"
      << "| precision | seeds | kT/ns/dof mean | standard error |\n|---|---|---|---|\n";
    for (drift::Precision pr : precisions_of(runs)) {
      const drift::SeedSpread sp = spread_of(runs, pr);
      s << "| " << drift::precision_name(pr) << " | " << sp.n << " | " << fmt("%.2e", sp.mean) << " | "
        << fmt("%.1e", sp.stderr_mean) << " |\n";
    }
  }
  return s.str() + "\n";
}

}  // namespace ds::app
