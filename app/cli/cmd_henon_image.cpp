// `deepscope henon plane|basin`: the parameter plane (period or Lyapunov colouring) and basins of
// attraction as PNG + .npy, over kernels/henon/plane.h. Input errors exit 2 before any work; the
// period and basin images resume from --resume (the scan's chunk file).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include "app/io/henon_png.h"
#include "app/io/image_io.h"
#include "cancel.h"
#include "cli.h"
#include "henon_cli.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/work.h"
#include "kernels/henon/plane.h"

namespace ds::app {
namespace {

// Library range checks (std::invalid_argument) are input errors: exit 2.
template <class F>
auto usage_on_invalid(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw cli::UsageError(e.what());
  }
}

// FILE.png -> FILE.npy unless --npy says otherwise.
std::string npy_beside(const cli::Args& args, const std::string& png) {
  const bool dot_png = png.size() > 4 && png.compare(png.size() - 4, 4, ".png") == 0;
  return args.get("npy", (dot_png ? png.substr(0, png.size() - 4) : png) + ".npy");
}

double bound_option(const cli::Args& args, double fallback) {
  const double b = args.get_double("bound", fallback);
  if (!(b >= 1 && b <= 1e6)) throw cli::UsageError("--bound must be in [1, 1e6]");
  return b;
}

int interrupted(const std::string& resume, int64_t done, int64_t total) {
  if (resume.empty()) {
    std::cerr << "interrupted: nothing written\n";
    return 130;
  }
  return report_interrupted(done, total, "chunks", resume);
}

std::string str(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

int henon_plane(const ArgList& argv) {
  cli::Args args(
      argv,
      {"centre-a", "centre-b", "width", "size", "colour", "lyapunov-steps", "lyapunov-scale", "init", "box",
       "transient", "pmax", "tol", "bound", "arith", "backend", "chunk", "resume", "npy", "out"},
      {"quiet"});
  henon::PlaneView v;
  const std::string arith = args.get("arith", "f64");
  if (arith != "auto") v.arith = parse_arith(arith);
  v.centre_a = args.get_finite_text("centre-a", v.centre_a);
  v.centre_b = args.get_finite_text("centre-b", v.centre_b);
  v.width = args.get_finite_text("width", v.width);
  if (args.has("size"))
    cli::parse_size(args.get("size", ""), henon::kMaxImageSide, &v.width_px, &v.height_px);
  // auto: the cheapest format that tells the view's pixels apart (the window's rule).
  if (arith == "auto") v.arith = usage_on_invalid([&] { return henon::plane_auto_arith(v); });
  const std::string colouring = args.get("colour", "period");
  if (colouring != "period" && colouring != "lyapunov")
    throw cli::UsageError("--colour must be period or lyapunov, got \"" + colouring + "\"");
  const bool lyapunov = colouring == "lyapunov";
  const int64_t steps = args.get_count("lyapunov-steps", 10000, 1, henon::kMaxLyapunovSteps);
  const double scale = args.get_double("lyapunov-scale", 0.5);
  if (!(scale > 0)) throw cli::UsageError("--lyapunov-scale must be positive");
  v.n_init = args.get_count("init", v.n_init, 1, 1'000'000);
  if (args.has("box")) parse_henon_box(args.get("box", ""), v.init_box);
  v.n_transient = args.get_count("transient", v.n_transient, 0, henon::kMaxTransient);
  v.p_max = static_cast<int32_t>(args.get_count("pmax", v.p_max, 1, henon::kMaxPeriod));
  v.tol = args.get_finite_text("tol", v.tol);
  v.bound = bound_option(args, v.bound);
  v.chunk_params = args.get_count("chunk", 0, 0, 100'000'000);
  v.chunk_file = args.get("resume", "");
  if (lyapunov && !v.chunk_file.empty())
    throw cli::UsageError("--resume works with --colour period only (the Lyapunov image has no chunk file)");
  if (lyapunov && (args.has("init") || args.has("pmax") || args.has("tol")))
    throw cli::UsageError("--init, --pmax and --tol belong to --colour period");
  const henon::Backend be = henon::select_backend(parse_henon_backend(args.get("backend", "auto")));
  v.backend = be;
  const std::string out = args.require("out"), npy = npy_beside(args, out);
  // Every check of the view and the scan before anything runs.
  const henon::ScanEstimate e =
      usage_on_invalid([&] { return henon::estimate_scan(henon::plane_scan_params(v), be); });
  if (!lyapunov) refuse_scan_over_memory(e, be, "--size or --init");
  // Every output and the resume file's job before anything is printed.
  check_outputs({out, npy, v.chunk_file});
  work::check_chunk_file(v.chunk_file, henon::plane_chunk_header(v));
  const bool quiet = args.flag("quiet") || !work::is_writer();  // under mpirun rank 0 reports
  if (!quiet)
    std::cerr << "henon plane: " << v.width_px << " x " << v.height_px << " pixels, " << colouring << ", "
              << arith_name(v.arith) << " on " << henon::backend_name(be) << "; "
              << (lyapunov ? "transient " + std::to_string(v.n_transient) + " + " + std::to_string(steps) +
                                 " steps"
                           : std::to_string(e.items) + " orbits in " + std::to_string(e.chunks) + " chunks")
              << "\n";
  install_cancel_handler();
  v.cancel = &cancel_flag();
  if (!quiet) v.progress = stderr_progress();
  std::string summary;
  if (lyapunov) {
    // Not split over mpirun ranks: rank 0 computes it, the others have nothing to do.
    if (!work::is_writer()) return 0;
    const henon::LyapunovResult r = usage_on_invalid([&] { return henon::plane_lyapunov(v, steps); });
    if (!quiet) std::fprintf(stderr, "\n");
    if (r.cancelled) return interrupted("", 0, 0);
    const std::string text = plane_text(v, colouring, steps, scale,
                                        {{"escaped", std::to_string(r.escaped)},
                                         {"min_exponent", str(r.min_exponent)},
                                         {"max_exponent", str(r.max_exponent)}});
    write_file_atomically(npy, encode_npy(r.exponent, r.height, r.width));
    write_file_atomically(out, henon_png(lyapunov_rgb(r.exponent, scale), r.width, r.height, text));
    summary = "exponents in [" + str(r.min_exponent) + ", " + str(r.max_exponent) + "], " +
              std::to_string(r.escaped) + " pixels escaped; " + str(r.seconds) + " s";
  } else {
    const henon::PlaneResult r = usage_on_invalid([&] { return henon::plane(v); });
    if (!quiet) std::fprintf(stderr, "\n");
    if (!r.writer) return r.cancelled ? 130 : 0;  // an mpirun rank other than 0: chunks only
    if (r.cancelled) return interrupted(v.chunk_file, r.chunks_loaded + r.chunks_run, r.chunks);
    const std::string text = plane_text(v, colouring, 0, 0,
                                        {{"with_period", std::to_string(r.with_period)},
                                         {"no_period", std::to_string(r.no_period)},
                                         {"escaped", std::to_string(r.escaped)},
                                         {"max_period", std::to_string(r.max_period)}});
    write_file_atomically(npy, encode_npy(r.period, r.height, r.width));
    write_file_atomically(out, henon_png(category_rgb(r.period), r.width, r.height, text));
    summary = std::to_string(r.with_period) + " pixels with a sink (largest period " +
              std::to_string(r.max_period) + "), " + std::to_string(r.no_period) + " without, " +
              std::to_string(r.escaped) + " escaped; " + std::to_string(r.chunks_run) + " chunks computed, " +
              std::to_string(r.chunks_loaded) + " resumed, " + str(r.seconds) + " s";
  }
  if (!quiet) std::cout << summary << "; wrote " << out << " and " << npy << "\n";
  return 0;
}

int henon_basin(const ArgList& argv) {
  cli::Args args(argv,
                 {"a", "b", "centre-x", "centre-y", "width", "size", "transient", "pmax", "tol", "bound",
                  "arith", "backend", "chunk", "resume", "npy", "out"},
                 {"quiet"});
  henon::BasinView v;
  v.arith = parse_arith(args.get("arith", "f64"));
  v.a = args.get_finite_text("a", v.a);
  v.b = args.get_finite_text("b", v.b);
  v.centre_x = args.get_double("centre-x", v.centre_x);
  v.centre_y = args.get_double("centre-y", v.centre_y);
  v.width = args.get_double("width", v.width);
  if (args.has("size"))
    cli::parse_size(args.get("size", ""), henon::kMaxImageSide, &v.width_px, &v.height_px);
  v.n_transient = args.get_count("transient", v.n_transient, 0, henon::kMaxTransient);
  v.p_max = static_cast<int32_t>(args.get_count("pmax", v.p_max, 1, henon::kMaxPeriod));
  v.tol = args.get_finite_text("tol", v.tol);
  v.bound = bound_option(args, v.bound);
  v.chunk_params = args.get_count("chunk", 0, 0, 100'000'000);
  v.chunk_file = args.get("resume", "");
  const henon::Backend be = henon::select_backend(parse_henon_backend(args.get("backend", "auto")));
  v.backend = be;
  const std::string out = args.require("out"), npy = npy_beside(args, out);
  const henon::ScanEstimate e =
      usage_on_invalid([&] { return henon::estimate_scan(henon::basin_scan_params(v), be); });
  refuse_scan_over_memory(e, be, "--size");
  // Every output and the resume file's job before anything is printed.
  check_outputs({out, npy, v.chunk_file});
  work::check_chunk_file(v.chunk_file, henon::basin_chunk_header(v));
  const bool quiet = args.flag("quiet") || !work::is_writer();  // under mpirun rank 0 reports
  if (!quiet)
    std::cerr << "henon basin: (a, b) = (" << v.a << ", " << v.b << "), " << v.width_px << " x "
              << v.height_px << " start points, " << arith_name(v.arith) << " on " << henon::backend_name(be)
              << ", " << e.chunks << " chunks\n";
  install_cancel_handler();
  v.cancel = &cancel_flag();
  if (!quiet) v.progress = stderr_progress();
  const henon::BasinResult r = usage_on_invalid([&] { return henon::basin(v); });
  if (!quiet) std::fprintf(stderr, "\n");
  if (!r.writer) return r.cancelled ? 130 : 0;
  if (r.cancelled) return interrupted(v.chunk_file, r.chunks_loaded + r.chunks_run, r.chunks);
  write_file_atomically(npy, encode_npy(r.id, r.height, r.width));
  write_file_atomically(out, henon_png(category_rgb(r.id), r.width, r.height, basin_text(v, r)));
  if (!quiet) {
    std::cout << r.attractors.size() << " attracting cycles, " << r.escaped << " start points escaped, "
              << r.no_period << " without a period (" << r.non_sink << " on cycles that are not sinks); "
              << r.seconds << " s\n";
    for (const henon::Attractor& a : r.attractors)
      std::cout << "  " << a.id << ": period " << a.period << ", x " << str(a.x) << ", y " << str(a.y) << ", "
                << a.pixels << " start points\n";
    std::cout << "wrote " << out << " and " << npy << "\n";
  }
  return 0;
}

}  // namespace ds::app
