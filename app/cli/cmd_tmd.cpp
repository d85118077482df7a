// `deepscope tmd exhaustive|lefevre|regular`: the TMD workspace in batch mode, over kernels/tmd/tmd.h and
// kernels/tmd/lefevre.h. Input errors exit 2 before any work (an output that would flood memory or disk is
// refused from an estimate); the search runs on every device given (--devices), or on one shard of
// its chunks (--shard, which writes only its chunk file), is resumable from its chunk file and
// writes its CSV/JSON (or binary case file and JSON) whole or not at all. Under mpirun, only rank 0
// prints and writes.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "app/io/tmd_case_file.h"
#include "cancel.h"
#include "cli.h"
#include "commands.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/backend.h"
#include "kernels/core/work.h"
#include "kernels/tmd/lefevre.h"
#include "kernels/tmd/tmd.h"

namespace ds::app {
namespace {

Backend parse_tmd_backend(const std::string& s) {
  if (s == "auto") return Backend::kAuto;
  if (s == "cpu") return Backend::kCpu;
  if (s == "cuda") return Backend::kCuda;
  throw cli::UsageError("--backend must be auto, cpu or cuda, got \"" + s + "\"");
}

uint32_t parse_bits(const std::string& s) {
  if (s.size() < 3 || s.size() > 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
    throw cli::UsageError("range bounds are binary32 bit patterns in hex (0x3f800000), got \"" + s + "\"");
  uint32_t v = 0;
  for (std::size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      throw cli::UsageError("range bounds are binary32 bit patterns in hex (0x3f800000), got \"" + s + "\"");
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return v;
}

// "0xLO:0xHI" (inclusive) or "all".
void parse_range(const std::string& s, uint32_t* lo, uint32_t* hi) {
  if (s == "all") {
    *lo = 0;
    *hi = 0xffffffffu;
    return;
  }
  const std::size_t c = s.find(':');
  if (c == std::string::npos)
    throw cli::UsageError("--range expects 0xLO:0xHI (inclusive bit patterns) or all");
  *lo = parse_bits(s.substr(0, c));
  *hi = parse_bits(s.substr(c + 1));
  if (*lo > *hi)
    throw cli::UsageError("--range " + s +
                          " is empty or reversed (the first bound must not exceed the second)");
}

template <class F>
auto as_usage(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(e.what());
  }
}

// --devices and --shard (exit 2 on bad values), the device list checked against the backend.
work::Placement parse_placement(const cli::Args& args, Backend be) {
  work::Placement pl;
  pl.devices = args.get("devices", "");
  if (args.has("shard")) {
    const std::string s = args.get("shard", "");
    try {
      pl.shard = work::parse_shard(s);
    } catch (const std::invalid_argument& e) {
      throw cli::UsageError(e.what());
    }
  }
  try {
    work::workers(be, pl.devices);
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(e.what());
  }
  return pl;
}

// The chunk file: --chunk-file, else OUT.chunks (a shard's own file when sharded).
std::string chunk_file_for(const cli::Args& args, const std::string& out, const work::Shard& shard) {
  const std::string def = out.empty() ? "" : out + ".chunks";
  const std::string f = args.get("chunk-file", work::shard_chunk_file(def, shard));
  if (!shard.whole() && f.empty())
    throw cli::UsageError("--shard needs a chunk file (--out or --chunk-file)");
  return f;
}

std::string per_worker_text(const std::vector<std::pair<std::string, int64_t>>& pw) {
  std::string t;
  for (const auto& w : pw) t += (t.empty() ? "" : ", ") + w.first + " " + std::to_string(w.second);
  return t.empty() ? "none" : t;
}

// --out FILE.tmdc writes the binary case file (app/io/tmd_case_file.h) and a JSON without every
// case; any other name, the CSV and the JSON with every case. The JSON's default name is OUT with
// its .csv or .tmdc replaced by .json.
bool binary_output(const std::string& out) {
  return out.size() > 5 && out.compare(out.size() - 5, 5, ".tmdc") == 0;
}
std::string default_json(const std::string& out) {
  const bool dot_csv = out.size() > 4 && out.compare(out.size() - 4, 4, ".csv") == 0;
  if (out.empty()) return "";
  return (dot_csv              ? out.substr(0, out.size() - 4)
          : binary_output(out) ? out.substr(0, out.size() - 5)
                               : out) +
         ".json";
}

// Writes the search's outputs, each whole or not at all (see binary_output).
void write_outputs(const std::string& out, const std::string& json, const std::string& chunk_file,
                   const TmdCaseHeader& h, const std::vector<tmd::Case>& cases) {
  const bool binary = binary_output(out);
  if (binary) {
    std::string bytes;
    try {
      bytes = encode_tmd_cases(h, cases);
    } catch (const std::runtime_error& e) {  // never seen: MPFR's text always fits; the chunks are kept
      throw std::runtime_error(std::string(e.what()) + "; nothing written. " + chunk_file +
                               " keeps the search: the same command with "
                               "--out FILE.csv --chunk-file " +
                               chunk_file + " writes it as text without computing it again");
    }
    write_file_atomically(out, bytes);
  } else {
    write_file_atomically(out, tmd::cases_csv(cases));
  }
  if (!json.empty()) write_file_atomically(json, tmd::json_with_cases(h.json_head, cases, !binary));
  if (!binary && cases.size() >= 1000000)
    std::cerr
        << "note: " << cases.size()
        << " cases; --out FILE.tmdc writes them as a binary file about two thirds "
        << "the CSV's size, with a JSON of only the hardest (deepscope tmd export makes this CSV from it)\n";
}

// A shard writes its chunk file only: says so and how to get the outputs.
void report_shard(const work::Shard& s, int64_t owned, int64_t total, int64_t run, int64_t loaded,
                  const char* units, const std::string& chunk_file, const std::string& out,
                  const std::string& json) {
  // Every shard's file by the default naming (work::shard_chunk_file), as a shell pattern.
  const std::string base = out + ".chunks";
  const std::string all = chunk_file == work::shard_chunk_file(base, s)
                              ? base + ".shard-*-of-" + std::to_string(s.count)
                              : chunk_file + " ...(the other shards' chunk files)";
  std::cout << "shard " << s.index << "/" << s.count << ": " << owned << " of the " << total << " " << units
            << " (" << run << " computed, " << loaded << " resumed) are in " << chunk_file
            << "\nno CSV or JSON written: a shard holds part of the search. Once all " << s.count
            << " shards are done, join their chunk files:\n  deepscope merge --out " << out << ".chunks "
            << all << "\nthen run this command again without --shard: it loads every "
            << (units[0] == 'b' ? "block" : "chunk") << ", computes none, and writes " << out
            << (json.empty() ? "" : " and " + json) << "\n";
}

std::string hardest_table(const std::vector<tmd::Case>& cases, std::size_t n) {
  std::ostringstream o;
  char buf[96];
  for (const tmd::Case& c : tmd::hardest(cases, n)) {
    if (c.x_text.empty())
      std::snprintf(buf, sizeof buf, "0x%08x", c.x);
    else
      std::snprintf(buf, sizeof buf, "%s", c.x_text.c_str());
    o << "  " << buf;
    std::snprintf(buf, sizeof buf, "  run %3d%s  -log2(dist/ulp) %8.3f  f(x) = ", c.run,
                  c.run_capped ? "+" : " ", c.log2_dist);
    o << buf << c.fx << "\n";
  }
  return o.str();
}

int tmd_exhaustive(const ArgList& argv) {
  cli::Args args(argv,
                 {"func", "mode", "k", "precision", "range", "out", "json", "chunk-file", "chunk",
                  "max-cases", "backend", "hardest", "devices", "shard"},
                 {"quiet", "estimate"});
  tmd::ExhaustiveParams p;
  p.func = as_usage([&] { return tmd::parse_func(args.get("func", "exp2")); });
  p.mode = as_usage([&] { return tmd::parse_mode(args.get("mode", "nearest")); });
  p.k = static_cast<int>(args.get_int("k", 20, tmd::kMinK, tmd::kMaxK));
  p.precision = static_cast<int>(args.get_int("precision", 24, tmd::kMinPrecision, tmd::kMaxPrecision));
  parse_range(args.require("range"), &p.lo, &p.hi);
  p.chunk_inputs = args.get_int("chunk", 0, 0, int64_t{1} << 30);
  p.max_cases = args.get_int("max-cases", tmd::kDefaultMaxCases, 1, tmd::kMaxMaxCases);
  p.backend = parse_tmd_backend(args.get("backend", "auto"));
  const int64_t n_hardest = args.get_int("hardest", 10, 0, 1000);
  const bool estimate_only = args.flag("estimate"), quiet = args.flag("quiet");
  const std::string out = estimate_only ? args.get("out", "") : args.require("out");
  const std::string json = args.get("json", default_json(out));
  const Backend be = select_backend(p.backend);
  p.placement = parse_placement(args, be);
  const bool sharded = !p.placement.shard.whole(), writer = work::is_writer();
  p.chunk_file = chunk_file_for(args, out, p.placement.shard);

  const tmd::ExhaustiveEstimate e = as_usage([&] { return tmd::estimate_exhaustive(p); });
  // Every input is checked before anything is printed or written: the cases' cap, the outputs (the
  // --out the user gave first, so that a missing folder is named by it, not by OUT.chunks) and the
  // chunk file's job.
  if (e.expected_cases > static_cast<double>(p.max_cases))
    throw cli::UsageError(
        "about " + std::to_string(static_cast<int64_t>(e.expected_cases)) +
        " cases expected, more than --max-cases " + std::to_string(p.max_cases) +
        ": raise --k, narrow --range (arguments near 0 make most results hard to round in directed "
        "modes) or raise --max-cases");
  if (writer && !estimate_only) {
    check_outputs({sharded ? "" : out, sharded ? "" : json, p.chunk_file});
    work::check_chunk_file(p.chunk_file, tmd::exhaustive_chunk_header(p));
  }
  if (writer)
    std::cerr << "tmd exhaustive: " << tmd::func_name(p.func) << ", " << tmd::mode_name(p.mode)
              << ", p = " << p.precision << ", k = " << p.k << ", " << e.inputs << " bit patterns in "
              << e.chunks << " chunks of " << e.chunk_inputs << " on " << backend_name(be)
              << "\nestimate: about " << e.expected_cases << " cases (cap " << p.max_cases << ")\n";
  if (estimate_only) return 0;
  install_cancel_handler();
  p.cancel = &cancel_flag();
  p.backend = be;
  if (!quiet && writer) p.progress = stderr_progress();
  const tmd::ExhaustiveResult r = as_usage([&] { return tmd::exhaustive(p); });
  if (!writer) return r.cancelled ? 130 : 0;  // rank 0 reports and writes
  if (!quiet) std::fprintf(stderr, "\n");
  if (r.cancelled)
    return report_interrupted(r.chunks_loaded + r.chunks_run, r.chunks_owned, "chunks", p.chunk_file);
  if (!r.complete()) throw std::runtime_error("tmd exhaustive: the search ended with chunks missing");
  if (sharded) {
    report_shard(p.placement.shard, r.chunks_owned, r.chunks, r.chunks_run, r.chunks_loaded, "chunks",
                 p.chunk_file, out, json);
    return 0;
  }
  TmdCaseHeader h;
  h.search = TmdCaseHeader::kExhaustive;
  h.func = p.func;
  h.mode = p.mode;
  h.precision = p.precision;
  h.k = p.k;
  h.json_head = tmd::exhaustive_json_head(p, r);
  write_outputs(out, json, p.chunk_file, h, r.cases);
  if (!quiet) {
    std::cout << r.inputs << " bit patterns, " << r.evaluated << " arguments evaluated, " << r.candidates
              << " candidates checked with MPFR (" << r.exact << " exact results), " << r.cases.size()
              << " hard-to-round cases; " << r.chunks_run << " chunks computed, " << r.chunks_loaded
              << " resumed, in " << r.seconds << " s (evaluation " << r.eval_seconds << " s, MPFR "
              << r.mpfr_seconds
              << " s summed over chunks)\nchunks computed per worker: " << per_worker_text(r.per_worker)
              << "\nwrote " << out << (json.empty() ? "" : " and " + json) << "\n";
    if (n_hardest > 0 && !r.cases.empty())
      std::cout << "hardest cases:\n" << hardest_table(r.cases, static_cast<std::size_t>(n_hardest));
  }
  return 0;
}

// `deepscope tmd lefevre|regular`: one binade (or part of it) at precision p <= 24.
int tmd_lefevre(tmd::Search search, const ArgList& argv) {
  cli::Args args(argv, {"func",    "mode",      "k",          "precision",  "range", "x-lo",
                        "x-hi",    "out",       "json",       "log2n",      "split", "div-threshold",
                        "backend", "max-cases", "hardest",    "chunk-file", "poly",  "log2-packet",
                        "devices", "shard",     "log2-block", "max-seconds"},
                 {"quiet"});
  tmd::LefevreParams p;
  p.search = search;
  p.func = as_usage([&] { return tmd::parse_func(args.get("func", "exp")); });
  p.mode = as_usage([&] { return tmd::parse_mode(args.get("mode", "directed")); });
  p.k = static_cast<int>(args.get_int("k", 16, tmd::kMinK, tmd::kMaxK));
  const bool wide = args.has("x-lo") || args.has("x-hi");
  p.precision = static_cast<int>(
      args.get_int("precision", 24, tmd::kMinPrecision, wide ? tmd::kMaxWidePrecision : tmd::kMaxPrecision));
  if (wide) {
    if (args.has("range"))
      throw cli::UsageError("give either --range (bit patterns) or --x-lo/--x-hi (reals)");
    p.x_lo = args.require("x-lo");
    p.x_hi = args.require("x-hi");
    cli::check_finite_text("--x-lo", p.x_lo);  // MPFR would read "nan" and "@Inf@"
    cli::check_finite_text("--x-hi", p.x_hi);
  } else {
    parse_range(args.require("range"), &p.lo, &p.hi);
  }
  p.log2_n = static_cast<int>(args.get_int("log2n", 6, 2, 20));
  p.split = static_cast<int>(args.get_int("split", 8, 1, 1 << 20));
  p.div_threshold = static_cast<int>(args.get_int("div-threshold", 3, 0, 64));
  const std::string poly = args.get("poly", "hierarchical");
  if (poly != "hierarchical" && poly != "taylor")
    throw cli::UsageError("--poly must be hierarchical or taylor, got \"" + poly + "\"");
  p.hierarchical = poly == "hierarchical";
  p.log2_block = static_cast<int>(args.get_int("log2-block", 18, 5, 24));
  p.log2_packet = static_cast<int>(args.get_int("log2-packet", 10, 0, p.log2_block));
  p.backend = parse_tmd_backend(args.get("backend", "auto"));
  const int64_t max_cases = args.get_int("max-cases", tmd::kDefaultMaxCases, 1, tmd::kMaxMaxCases);
  p.max_cases = max_cases;
  const int64_t n_hardest = args.get_int("hardest", 10, 0, 1000);
  // Stop taking blocks after this many seconds (0: no limit), as Ctrl-C does: finished blocks stay
  // in the chunk file and the same command continues (runs that must fit a time slot).
  const double max_seconds = args.get_double("max-seconds", 0);
  if (!(max_seconds >= 0)) throw cli::UsageError("--max-seconds must be a number of seconds >= 0");
  const bool quiet = args.flag("quiet");
  const std::string out = args.require("out");
  const std::string json = args.get("json", default_json(out));
  const Backend be = select_backend(p.backend);
  p.placement = parse_placement(args, be);
  const bool sharded = !p.placement.shard.whole(), writer = work::is_writer();
  p.chunk_file = chunk_file_for(args, out, p.placement.shard);
  // The same output estimate as the exhaustive search (a stratified dd sample).
  tmd::ExhaustiveParams ep;
  ep.func = p.func;
  ep.mode = p.mode;
  ep.k = p.k;
  ep.precision = p.precision;
  ep.lo = p.lo;
  ep.hi = p.hi;
  ep.max_cases = max_cases;
  tmd::ExhaustiveEstimate e;
  if (!wide) {
    e = as_usage([&] { return tmd::estimate_exhaustive(ep); });
  } else {  // a real range: 2^(1-k) per argument (the sample needs binary32 arguments)
    const tmd::LefevreParams probe = p;
    e.expected_cases = as_usage([&] { return tmd::lefevre_arguments(probe); }) * std::ldexp(1.0, 1 - p.k);
  }
  if (e.expected_cases > static_cast<double>(max_cases))
    throw cli::UsageError("about " + std::to_string(static_cast<int64_t>(e.expected_cases)) +
                          " cases expected, more than --max-cases " + std::to_string(max_cases) +
                          ": raise --k, narrow --range or raise --max-cases");
  p.backend = be;
  // Every input is checked before anything is printed or written: the search's own parameters, the
  // outputs (the --out the user gave first, so that a missing folder is named by it, not by
  // OUT.chunks) and the chunk file's job.
  if (!wide) (void)as_usage([&] { return tmd::lefevre_arguments(p); });
  if (writer) {
    check_outputs({sharded ? "" : out, sharded ? "" : json, p.chunk_file});
    work::check_chunk_file(p.chunk_file, tmd::lefevre_chunk_header(p));
  }
  install_cancel_handler();
  p.cancel = &cancel_flag();
  if (!quiet && writer) p.progress = stderr_progress();
  const auto t_start = std::chrono::steady_clock::now();
  bool time_up = false;
  if (max_seconds > 0)
    p.on_phase = [&](int phase, const tmd::LefevreResult&) {
      const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      if (phase == 3 && el >= max_seconds && !time_up) {
        time_up = true;
        cancel_flag() = true;
      }
    };
  const tmd::LefevreResult r = as_usage([&] { return tmd::lefevre_search(p); });
  if (!writer) return r.cancelled ? 130 : 0;  // rank 0 reports and writes
  if (!quiet) std::fprintf(stderr, "\n");
  if (r.cancelled) {
    // The counts of the blocks done so far (resumed and computed), and this run's phase times.
    std::fprintf(
        stderr,
        "%sso far: %lld blocks, phase 1 %lld intervals; phase 2 %lld arguments, phase 3 %lld arguments, "
        "%lld MPFR candidates, %zu cases; this run: polynomials %.3f s, phase 1 %.3f s, phase 2 %.3f s, "
        "phase 3 %.3f s, MPFR %.3f s (summed over blocks), %.3f s wall\n",
        time_up ? "time limit (--max-seconds) reached; " : "", (long long)(r.blocks_loaded + r.blocks_run),
        (long long)r.phase1, (long long)r.phase2_args, (long long)r.phase3_args, (long long)r.candidates,
        r.cases.size(), r.seconds_poly, r.seconds_phase1, r.seconds_phase2, r.seconds_phase3, r.seconds_mpfr,
        r.seconds);
    return report_interrupted(r.blocks_loaded + r.blocks_run, r.blocks_owned, "blocks", p.chunk_file);
  }
  if (!r.complete()) throw std::runtime_error("tmd lefevre: the search ended with blocks missing");
  if (sharded) {
    report_shard(p.placement.shard, r.blocks_owned, r.blocks, r.blocks_run, r.blocks_loaded, "blocks",
                 p.chunk_file, out, json);
    return 0;
  }
  TmdCaseHeader h;
  h.search = search == tmd::Search::kLefevre ? TmdCaseHeader::kLefevre : TmdCaseHeader::kRegular;
  h.func = p.func;
  h.mode = p.mode;
  h.wide = wide;
  h.precision = p.precision;
  h.k = p.k;
  h.json_head = tmd::lefevre_json_head(p, r);
  write_outputs(out, json, p.chunk_file, h, r.cases);
  if (!quiet) {
    std::printf("%s search, %s, %s, p = %d, k = %d, N = 2^%d, split %d, polynomials %s, on %s\n",
                tmd::search_name(search), tmd::func_name(p.func), tmd::mode_name(p.mode), p.precision, p.k,
                p.log2_n, p.split, p.hierarchical ? "hierarchical" : "taylor per interval",
                backend_name(p.backend));
    std::printf(
        "arguments %lld; phase 1: %lld intervals; phase 2: %lld sub-intervals (%lld arguments); phase 3: "
        "%lld "
        "sub-intervals (%lld arguments); checked one by one (two result binades): %lld; MPFR candidates "
        "%lld; cases "
        "%zu\n",
        (long long)r.arguments, (long long)r.phase1, (long long)r.phase2, (long long)r.phase2_args,
        (long long)r.phase3, (long long)r.phase3_args, (long long)r.direct_args, (long long)r.candidates,
        r.cases.size());
    std::printf("blocks of 2^%d intervals: %lld computed (per worker: %s), %lld resumed from %s\n",
                p.log2_block, (long long)r.blocks_run, per_worker_text(r.per_worker).c_str(),
                (long long)r.blocks_loaded, p.chunk_file.c_str());
    std::printf(
        "time: %.3f s; summed over blocks: polynomials %.3f s, phase 1 %.3f s, phase 2 %.3f s, phase 3 %.3f "
        "s, "
        "MPFR %.3f s\n",
        r.seconds, r.seconds_poly, r.seconds_phase1, r.seconds_phase2, r.seconds_phase3, r.seconds_mpfr);
    std::printf(
        "phase-1 loop iterations: min %u, max %u, mean %.2f; %lld warps of 32, mean NMDM %.2f%%\nNMDM "
        "histogram:\n",
        r.iters.min, r.iters.max, r.iters.mean, (long long)r.iters.warps, 100 * r.iters.mean_nmdm);
    int64_t top = 1;
    for (int64_t c : r.iters.nmdm_hist) top = std::max(top, c);
    for (std::size_t b = 0; b < r.iters.nmdm_hist.size(); ++b)
      std::printf("  [%3d%%, %3d%%) %8lld %s\n", static_cast<int>(b * 5), static_cast<int>(b * 5 + 5),
                  (long long)r.iters.nmdm_hist[b],
                  std::string(static_cast<std::size_t>(40 * r.iters.nmdm_hist[b] / top), '#').c_str());
    std::printf("wrote %s%s%s\n", out.c_str(), json.empty() ? "" : " and ", json.c_str());
    if (n_hardest > 0 && !r.cases.empty())
      std::cout << "hardest cases:\n" << hardest_table(r.cases, static_cast<std::size_t>(n_hardest));
  }
  return 0;
}

}  // namespace

int cmd_tmd(const ArgList& args) {
  if (args.empty()) throw cli::UsageError("tmd needs a command: exhaustive, lefevre, regular or export");
  ArgList rest(args.begin() + 1, args.end());
  if (args[0] == "exhaustive") return tmd_exhaustive(rest);
  if (args[0] == "lefevre") return tmd_lefevre(tmd::Search::kLefevre, rest);
  if (args[0] == "regular") return tmd_lefevre(tmd::Search::kRegular, rest);
  if (args[0] == "export") return cmd_tmd_export(rest);
  throw cli::UsageError("unknown tmd command \"" + args[0] + "\" (exhaustive, lefevre, regular, export)");
}

}  // namespace ds::app
