// `deepscope henon orbits`: the interval-certified catalogue of the Hénon map's periodic orbits
// (kernels/henon/orbits.h) as a CSV with a JSON sidecar, both written whole or not at all.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cancel.h"
#include "kernels/core/cpu_parallel.h"
#include "cli.h"
#include "henon_cli.h"
#include "kernels/core/atomic_file.h"
#include "kernels/henon/orbits.h"

namespace ds::app {

namespace {

// How evenly the chunks run in this call shared the work: the longest chunk bounds the wall time
// from below whatever the thread count.
void print_balance(const henon::CatalogueResult& r, unsigned threads) {
  std::vector<std::pair<double, size_t>> t;  // seconds, chunk
  for (size_t c = 0; c < r.chunk_seconds.size(); ++c)
    if (r.chunk_seconds[c] >= 0) t.push_back({r.chunk_seconds[c], c});
  if (t.empty()) return;
  std::sort(t.begin(), t.end(), [](const auto& u, const auto& v) { return u.first > v.first; });
  double sum = 0;
  for (const auto& s : t) sum += s.first;
  const size_t top = std::max<size_t>(1, t.size() / 100);
  double top_sum = 0;
  for (size_t i = 0; i < top; ++i) top_sum += t[i].first;
  const unsigned nt = resolve_threads(threads);
  std::fprintf(stderr,
               "work: %lld units (walk trees cut at depth %d) in %lld chunks; %zu chunks run on %u threads, "
               "%.1f chunk-seconds; longest chunk %.2f s (%.1f%% of the total), longest 1%% of chunks "
               "%.1f%%; longest chunks:",
               (long long)r.units, r.split_depth, (long long)r.chunks, t.size(), nt, sum, t[0].first,
               sum > 0 ? 100 * t[0].first / sum : 0.0, sum > 0 ? 100 * top_sum / sum : 0.0);
  for (size_t i = 0; i < t.size() && i < 5; ++i) std::fprintf(stderr, " #%zu %.2f s", t[i].second, t[i].first);
  std::fprintf(stderr, "\n");
}

}  // namespace

int henon_orbits(const ArgList& argv) {
  cli::Args args(argv,
                 {"a", "b", "period-max", "out", "json", "box", "graph-level", "refine-levels",
                  "memory-budget", "chunk-file", "threads", "split-depth"},
                 {"quiet"});
  henon::CatalogueParams p;
  p.a = args.get_finite_text("a", p.a);
  p.b = args.get_finite_text("b", p.b);
  p.period_max = int(args.get_int("period-max", p.period_max, 1, 1000));
  if (args.has("box")) {
    p.region.quadrilateral = false;
    parse_henon_box(args.get("box", ""), p.region.box);
    const double* b = p.region.box;
    if (!(b[0] < b[1]) || !(b[2] < b[3]))
      throw cli::UsageError("--box must have x_lo < x_hi and y_lo < y_hi (the region is empty or inverted)");
  }
  p.graph_level = int(args.get_int("graph-level", 0, 0, 12));
  p.refine_levels = int(args.get_int("refine-levels", p.refine_levels, 0, 30));
  p.threads = unsigned(args.get_int("threads", 0, 1, 4096));  // default (0): every core
  p.split_depth = int(args.get_int("split-depth", -1, 0, 16));
  if (args.has("memory-budget")) p.memory_budget_bytes = double(args.get_bytes("memory-budget", 0));
  const std::string out = args.require("out");
  const bool dot_csv = out.size() > 4 && out.compare(out.size() - 4, 4, ".csv") == 0;
  const std::string json = args.get("json", (dot_csv ? out.substr(0, out.size() - 4) : out) + ".json");
  // Finished chunks of work units go to the resume file as they complete; a rerun of the same
  // command loads them and computes only the rest.
  p.chunk_file = args.get("chunk-file", out + ".chunks");
  const bool quiet = args.flag("quiet");
  // Input errors (std::invalid_argument, naming the field) exit 2 before any work.
  const double need = henon::estimate_catalogue_bytes(p);
  if (!(need <= p.memory_budget_bytes)) {
    char b[160];  // %g: the estimate grows exponentially with the period (2.29e210 GB at 1000)
    std::snprintf(b, sizeof b, " needs an estimated %.3g GB, over --memory-budget (%.3g GB)", need / 1e9,
                  p.memory_budget_bytes / 1e9);
    throw cli::UsageError("--period-max " + std::to_string(p.period_max) + b);
  }
  check_outputs({out, json, p.chunk_file});
  // The resume file's catalogue before anything is printed.
  try {
    henon::check_catalogue_chunk_file(p);
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(e.what());
  }
  install_cancel_handler();
  p.cancel = &cancel_flag();
  if (!quiet) {
    std::cerr << "henon orbits: a = " << p.a << ", b = " << p.b << ", periods 1.." << p.period_max << " in "
              << (p.region.quadrilateral ? std::string("Hénon's trapping quadrilateral")
                                         : std::string("the box"))
              << "\n";
    p.progress = stderr_progress();
  }
  henon::CatalogueResult r;
  try {
    r = henon::catalogue(p);
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(e.what());
  }
  if (!quiet) {
    std::fprintf(stderr, "\n");
    print_balance(r, p.threads);
  }
  if (r.cancelled)
    return report_interrupted(r.chunks_loaded + r.chunks_run, r.chunks, "chunks", p.chunk_file);
  std::ostringstream cmd;
  cmd << "deepscope henon orbits --a " << p.a << " --b " << p.b << " --period-max " << p.period_max;
  write_file_atomically(out, henon::catalogue_csv(r));
  write_file_atomically(json, henon::catalogue_json(p, r, cmd.str()));
  // The catalogue is whole: its resume file has served (as render's and oracle's chunk files).
  std::remove(p.chunk_file.c_str());
  int64_t undecided = 0;
  for (const auto& c : r.counts) undecided += c.undecided;
  if (!quiet) {
    std::cout << "n  orbits  undecided\n";
    for (size_t n = 1; n <= r.counts.size(); ++n)
      std::cout << n << "  " << r.counts[n - 1].orbits << "  " << r.counts[n - 1].undecided << "\n";
    std::cout << r.orbits.size() << " orbits certified, " << undecided << " undecided box sequences, in "
              << r.seconds << " s (" << r.chunks_run << " chunks computed, " << r.chunks_loaded
              << " resumed); wrote " << out << " and " << json << "\n";
  }
  return 0;
}

}  // namespace ds::app
