// `deepscope bench perturb`: perturbation renders at 1024^2 over a range of depths (Kalles
// Fraktaler's 1e14 benchmark location, then a Misiurewicz spiral from 1e50 to 1e10000), with the
// reference orbit's time, BLA-skipped iterations, the re-render after a x2 zoom step (reference
// reused), and the ratio to Kalles Fraktaler 2.12.11's published CPU times (docs/perturbation.md).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench.h"
#include "peer_f3.h"
#include "app/cli/cli.h"
#include "app/io/image_io.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/device.h"
#include "kernels/mandelbrot/locations.h"
#include "kernels/perturb/perturb.h"
#include "kernels/perturb/oracle.h"
#include "app/io/location.h"
#include "version.h"

namespace ds::app {
namespace {

using mandel::Backend;

struct Depth {
  std::string zoom;
  uint32_t iter;
  std::string file;  // a location in --locations DIR (minibrots), else the spiral at `zoom`
};

// KF 2.12.11 "fast" settings, 1024^2, CPU (the anchor table).
struct KfTime {
  double log10_zoom;
  const char* depth;
  double seconds;
};
const KfTime kKf[] = {{14, "1e14", 7.56},      {50, "1e50", 29.45},     {113.7, "5e113", 10.62},
                      {227.7, "5e227", 268.2}, {533.6, "4e533", 22.38}, {1086, "1e1086", 274.5}};

const KfTime& nearest_kf(double log10_zoom) {
  const KfTime* best = &kKf[0];
  for (const KfTime& k : kKf)
    if (std::fabs(k.log10_zoom - log10_zoom) < std::fabs(best->log10_zoom - log10_zoom)) best = &k;
  return *best;
}

// The Misiurewicz point (preperiod 11, period 3) near -0.4844 + 0.6419i of docs/mandelbrot.md's
// 1e60 location, to the digits a zoom of 10^log10_zoom needs.
void spiral_centre(double log10_zoom, std::string* re, std::string* im) {
  const int digits = static_cast<int>(log10_zoom) + 40;
  perturb::misiurewicz_point(mandel::locations::kMisiurewiczRe, mandel::locations::kMisiurewiczIm, 11,
                                     3, static_cast<int>(digits * 3.33) + 64, digits, re, im);
}

// log10 of a zoom written "De+N" / "DeN" (the depth list's form), beyond double's range too.
double log10_zoom(const std::string& z) {
  const size_t e = z.find_first_of("eE");
  return std::log10(std::stod(z.substr(0, e))) + (e == std::string::npos ? 0.0 : std::stod(z.substr(e + 1)));
}

// Multiplies per second of 8 interleaved chains x <- x * y on one CPU thread (as bench arith
// measures the formats): the relative cost of floatexp behind FloatExp::traits().rel_cost.
double to_d(double x) { return x; }
double to_d(FloatExp x) { return to_double(x); }
template <class V>
double mul_rate(V one, V y) {
  const long steps = 20000000;
  V x[8];
  for (auto& v : x) v = one;
  const auto t0 = std::chrono::steady_clock::now();
  for (long s = 0; s < steps; ++s)
    for (int l = 0; l < 8; ++l) x[l] = x[l] * y;
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  volatile double sink = 0;
  for (auto& v : x) sink = sink + to_d(v);
  return 8.0 * steps / sec;
}

// 2 x a zoom written "MeN" (M a decimal), as "(2M)eN".
std::string times_two(const std::string& z) {
  const size_t e = z.find_first_of("eE");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", 2 * std::stod(z.substr(0, e)));
  return buf + (e == std::string::npos ? std::string() : z.substr(e));
}

struct Row {
  std::string location, zoom, label, backend;
  int size = 0;
  uint64_t max_iter = 0;
  uint32_t min_count = 0, max_count = 0;  // the bench's views stay below 2^32 iterations
  double seconds = 0, kernel = 0, reference = 0, bla = 0, step_seconds = 0;
  uint64_t iterations = 0, skipped = 0, glitches = 0;
  int bits = 0;
  uint64_t ref_len = 0;
};

// The report's date, device, commit and command lines (markdown list, blank line after).
std::string run_facts(const ArgList& args, bool gpu) {
  char date[64];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::string device = cpu_name() + " (" + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " threads)";
  if (gpu) {
    const auto dv = cuda_devices();
    device = dv[0].name + ", " + std::to_string(dv[0].sm_count) + " SMs; reference orbit on " + device;
  }
  std::string command = "deepscope bench perturb";
  for (const auto& s : args) command += " " + s;
  return "- date: " + std::string(date) + "\n- device: " + device + "\n- commit: " + DEEPSCOPE_GIT_COMMIT +
         "\n- command: `" + command + "`\n\n";
}

// The oracle grid NAME.npy / NAME_trusted.npy (deepscope oracle) as counts and mask; false when
// the files are missing or malformed. *n: the grid's side.
bool load_oracle(const std::string& stem, int* n, std::vector<uint32_t>* counts,
                 std::vector<uint8_t>* trusted) {
  auto grid = [](const std::string& path, std::size_t elem, int* side, std::string* data) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    int cols = 0;
    return f && decode_npy(ss.str(), elem, side, &cols, data) && cols == *side;
  };
  std::string c, t;
  int n2 = 0;
  if (!grid(stem + ".npy", 4, n, &c) || !grid(stem + "_trusted.npy", 1, &n2, &t) || n2 != *n) return false;
  counts->resize(c.size() / 4);
  std::memcpy(counts->data(), c.data(), c.size());
  trusted->assign(t.begin(), t.end());
  return true;
}

// `bench perturb --kf DIR`: Kalles Fraktaler's six benchmark files (DIR/1e14.kfr ...) at --size
// (1024^2 by default, KF's size) on the GPU when there is one, cold (reference cache cleared), with
// the agreement with the MPFR oracle grids in --oracle DIR (kf-NAME.npy, made by deepscope oracle
// for the same size) and KF 2.12.11's published CPU times beside.
int bench_kf(const cli::Args& a, const ArgList& args) {
  const std::string dir = a.get("kf", "");
  const std::string oracle_dir = a.get("oracle", "tests/data/oracle");
  const std::string out = a.get("out", "");
  if (!out.empty()) check_writable(out);
  const bool gpu = !a.flag("cpu-only") && cuda_device_count() > 0;
  if (a.flag("gpu-only") && !gpu)
    throw mandel::BackendError("bench perturb --gpu-only: no usable CUDA device");
  const int size = static_cast<int>(a.get_int("size", 1024, 16, 8192));
  // --fields: the cost of the per-pixel fields (distance estimate and phase; and the stripe average) in the same kernel,
  // both timed warm (reference and BLA table cached), counts-only first.
  const bool fields = a.flag("fields");
  std::vector<std::string> names = {"1e14", "1e50", "5e113", "5e227", "4e533", "1e1086"};
  if (a.has("depths")) {
    names.clear();
    std::stringstream ss(a.get("depths", ""));
    for (std::string d; std::getline(ss, d, ',');) names.push_back(d);
  }
  std::ostringstream md;
  md << "# deepscope bench perturb --kf: Kalles Fraktaler's benchmark set\n\n"
     << run_facts(args, gpu) << "Each file rendered cold (reference cache cleared) by the auto path at "
     << size
     << "^2. *wall* is the "
        "whole render() call (MPFR reference on one CPU core, BLA table, kernel, glitch correction); "
        "*MPFR agreement* compares the render at the oracle grid's pixels with `deepscope oracle` "
        "(MPFR direct iteration, trusted pixels only). KF is Kalles Fraktaler 2.12.11's published "
        "1024^2 \"fast\" time on a CPU.\n\n"
     << "| file | zoom | iterations | engine | wall (s) | reference (s) | ref. points / bits / stop | kernel "
        "(s) | "
        "by BLA | interior px | glitches (flagged/by 106 bits/corrected/unresolved) | glitch s (106 bits / secondary) | "
        "counts | MPFR agreement | KF (s) | KF / wall |"
     << (fields ? " kernel, counts only, warm (s) | kernel with DE + phase, warm (s) | ratio | kernel with DE + phase + stripe, warm (s) | ratio |" : "") << "\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|" << (fields ? "---|---|---|---|---|" : "")
     << "\n";
  for (const std::string& name : names) {
    mandel::View v;
    apply_to_view(read_location_file(dir + "/" + name + ".kfr"), &v, false);
    v.width = v.height = size;
    mandel::RenderOptions o;
    o.backend = gpu ? Backend::kCuda : Backend::kCpu;
    perturb::clear_reference_cache();
    const mandel::RenderResult r = mandel::render(v, o);
    const mandel::PerturbInfo& p = r.perturb;
    const auto mm = std::minmax_element(r.counts.begin(), r.counts.end());
    std::string agreement = "no oracle grid";
    int n = 0;
    std::vector<uint32_t> oc;
    std::vector<uint8_t> ot;
    if (load_oracle(oracle_dir + "/kf-" + name, &n, &oc, &ot) && n <= size) {
      int trusted = 0, same = 0, near = 0;
      const auto where = perturb::oracle::grid_pixels(v, n);
      for (size_t k = 0; k < where.size(); ++k) {
        if (!ot[k]) continue;
        const uint32_t c = r.counts[static_cast<size_t>(where[k].j) * size + where[k].i];
        ++trusted;
        same += c == oc[k];
        near += (c > oc[k] ? c - oc[k] : oc[k] - c) <= 1;
      }
      agreement = std::to_string(same) + "/" + std::to_string(trusted) + " equal, " + std::to_string(near) +
                  " within 1 (" + std::to_string(n) + "^2 grid, " + std::to_string(n * n - trusted) +
                  " untrusted)";
    }
    double kf = 0;
    for (const KfTime& k : kKf)
      if (name == k.depth) kf = k.seconds;
    std::fprintf(stderr, "%-7s %-16s %8.3f s (reference %.3f s, %llu points, %s) %s\n", name.c_str(),
                 mandel::format_label(r).c_str(), r.seconds, p.reference_seconds,
                 static_cast<unsigned long long>(p.reference_length),
                 p.reference_stop.c_str(), agreement.c_str());
    md << "| " << name << ".kfr | " << v.zoom << " | " << v.max_iter << " | " << mandel::format_label(r)
       << " on " << mandel::backend_name(r.backend) << " | " << fmt("%.3f", r.seconds) << " | "
       << fmt("%.3f", p.reference_seconds) << " | " << p.reference_length << " / " << p.reference_bits
       << " / " << p.reference_stop << " | " << fmt("%.3f", r.kernel_seconds) << " | "
       << fmt("%.1f%%", r.iterations ? 100.0 * p.bla_skipped / r.iterations : 0.0) << " | "
       << p.interior_pixels << " | " << p.glitch_pixels << "/" << p.glitch_refined << "/" << p.glitch_corrected << "/"
       << p.glitch_unresolved << " | " << fmt("%.3f", p.refine_seconds) << " / " << fmt("%.3f", p.secondary_seconds)
       << " | " << *mm.first << "-" << *mm.second << " | " << agreement << " | "
       << fmt("%.2f", kf) << " | "
       << (size == 1024 && kf > 0 ? fmt("%.1fx", kf / r.seconds) : std::string("-")) << " |";
    if (fields) {
      // Warm: the reference and BLA table are cached, so each kernel time is the kernel alone; the
      // best of three of each.
      double plain = 1e300, with = 1e300, all = 1e300;
      for (int rep = 0; rep < 3; ++rep) {
        mandel::RenderOptions q = o;
        plain = std::min(plain, mandel::render(v, q).kernel_seconds);
        q.fields = mandel::kFieldDistance | mandel::kFieldPhase;
        with = std::min(with, mandel::render(v, q).kernel_seconds);
        q.fields = mandel::kAllFields;
        all = std::min(all, mandel::render(v, q).kernel_seconds);
      }
      std::fprintf(stderr, "%-7s fields: kernel %.4f s counts only, %.4f s with DE + phase (%.2fx), %.4f s with the stripe too (%.2fx)\n",
                   name.c_str(), plain, with, with / plain, all, all / plain);
      md << " " << fmt("%.4f", plain) << " | " << fmt("%.4f", with) << " | " << fmt("%.2fx", with / plain) << " | "
         << fmt("%.4f", all) << " | " << fmt("%.2fx", all / plain) << " |";
    }
    md << "\n";
  }
  std::cout << md.str();
  if (!out.empty()) write_file_atomically(out, md.str());
  return 0;
}

}  // namespace

int bench_perturb(const ArgList& args) {
  if (std::find(args.begin(), args.end(), "--formulas") != args.end()) return bench_perturb_formulas(args);
  if (std::find(args.begin(), args.end(), "--peer") != args.end()) return bench_perturb_peer(args);
  cli::Args a(args, {"out", "size", "depths", "locations", "kf", "oracle"},
              {"quick", "cpu-only", "gpu-only", "fields"});
  if (!a.positional().empty())
    throw cli::UsageError("bench perturb: unexpected \"" + a.positional()[0] + "\"");
  if (a.has("kf")) return bench_kf(a, args);
  const bool quick = a.flag("quick");
  const std::string out = a.get("out", "");
  if (!out.empty()) check_writable(out);
  const bool gpu = !a.flag("cpu-only") && cuda_device_count() > 0;
  if (a.flag("gpu-only") && !gpu)
    throw mandel::BackendError("bench perturb --gpu-only: no usable CUDA device");
  const int size = static_cast<int>(a.get_int("size", gpu ? 1024 : (quick ? 128 : 256), 16, 8192));

  // 1e14 is KF's own benchmark location; the minibrots (assets/locations/minibrot-*.loc, 50
  // periods of iterations, interior pixels included) are the KF-like workloads; the spiral views
  // reach deepest, with iteration limits above their deepest escape count.
  const std::string locations = a.get("locations", "assets/locations");
  std::vector<Depth> depths = {{"1e14", 4036, ""},
                               {"minibrot-1e50", 0, "minibrot-1e50.loc"},
                               {"minibrot-1e100", 0, "minibrot-1e100.loc"},
                               {"minibrot-1e300", 0, "minibrot-1e300.loc"},
                               {"minibrot-1e1000", 0, "minibrot-1e1000.loc"},
                               {"1e50", 4000, ""},
                               {"1e100", 6000, ""},
                               {"1e300", 10000, ""},
                               {"1e1000", 20000, ""},
                               {"1e3000", 50000, ""},
                               {"1e10000", 150000, ""}};
  if (quick) depths = {{"1e14", 4036, ""}, {"1e100", 6000, ""}, {"1e1000", 20000, ""}};
  if (a.has("depths")) {
    std::vector<Depth> only;
    std::stringstream ss(a.get("depths", ""));
    std::string d;
    while (std::getline(ss, d, ',')) {
      auto it = std::find_if(depths.begin(), depths.end(), [&](const Depth& x) { return x.zoom == d; });
      if (it == depths.end()) throw cli::UsageError("bench perturb --depths: unknown depth \"" + d + "\"");
      only.push_back(*it);
    }
    depths = only;
  }

  std::vector<Backend> backends;
  if (gpu) backends.push_back(Backend::kCuda);
  if (!a.flag("gpu-only") && !gpu) backends.push_back(Backend::kCpu);
  std::vector<Row> rows;
  for (const Depth& d : depths) {
    mandel::View v;
    std::string location;
    if (!d.file.empty()) {
      const Location loc = read_location_file(locations + "/" + d.file);
      v.max_iter = 10000;
      apply_to_view(loc, &v, false);
      location = d.file.substr(0, d.file.size() - 4);
    } else if (d.zoom == "1e14") {
      v.re = mandel::locations::kKf1e14Re;
      v.im = mandel::locations::kKf1e14Im;
      location = "kf-1e14";
    } else {
      spiral_centre(log10_zoom(d.zoom), &v.re, &v.im);
      location = "misiurewicz spiral";
    }
    if (d.file.empty()) {
      v.zoom = d.zoom;
      v.max_iter = d.iter;
    }
    v.width = v.height = size;
    for (Backend b : backends) {
      mandel::RenderOptions o;
      o.backend = b;
      o.method = mandel::Method::kPerturb;
      perturb::clear_reference_cache();
      const mandel::RenderResult r = mandel::render(v, o);  // cold: reference computed
      Row row;
      row.location = location;
      row.zoom = v.zoom;
      row.label = mandel::format_label(r);
      row.backend = mandel::backend_name(r.backend);
      row.size = size;
      row.max_iter = v.max_iter;
      const auto mm = std::minmax_element(r.counts.begin(), r.counts.end());
      row.min_count = *mm.first;
      row.max_count = *mm.second;
      row.seconds = r.seconds;
      row.kernel = r.kernel_seconds;
      row.reference = r.perturb.reference_seconds;
      row.bla = r.perturb.bla_seconds;
      row.iterations = r.iterations;
      row.skipped = r.perturb.bla_skipped;
      row.glitches = r.perturb.glitch_pixels;
      row.bits = r.perturb.reference_bits;
      row.ref_len = r.perturb.reference_length;
      // A x2 zoom step about the centre, as the window does: the reference is reused.
      mandel::View z = v;
      z.zoom = times_two(v.zoom);
      const mandel::RenderResult s = mandel::render(z, o);
      row.step_seconds = s.perturb.reference_reused ? s.seconds : -s.seconds;
      std::fprintf(stderr,
                   "%-10s %-16s %-4s %4d^2 %8.3f s (reference %.3f s, %llu points%s, kernel %.3f s) step %.3f "
                   "s, %.3g iter, "
                   "%.1f%% by BLA\n",
                   v.zoom.c_str(), row.label.c_str(), row.backend.c_str(), size, row.seconds, row.reference,
                   static_cast<unsigned long long>(row.ref_len), r.perturb.reference_escaped ? " escaped" : "", row.kernel, s.seconds,
                   static_cast<double>(row.iterations),
                   row.iterations ? 100.0 * row.skipped / row.iterations : 0.0);
      rows.push_back(row);
    }
  }

  std::ostringstream md;
  md << "# deepscope bench perturb\n\n"
     << run_facts(args, gpu)
     << "Each view is rendered cold (reference cache cleared): *total* is the whole render() call "
        "(MPFR reference orbit on the CPU, BLA table, upload, kernel, glitch correction from secondary "
        "references); *kernel* the pixel iteration alone. *step* re-renders after a x2 zoom about the centre "
        "with the cached reference (negative: the reference could not be reused). Iterations are "
        "z -> z^2 + c steps (the sum of count - 1); *by BLA* the share of them done by BLA steps. "
        "KF is Kalles Fraktaler 2.12.11's published 1024^2 CPU time at the nearest listed depth; "
        "only 1e14 is the same location and iteration limit, the other KF locations are not public "
        "in this repository, so those ratios compare depth, not identical work.\n\n"
     << "| location | zoom | engine | backend | size | max iter | counts | total (s) | kernel (s) | "
        "reference (s) | ref. points / bits | BLA table (s) | iterations | by BLA | flagged px | "
        "step (s) | KF depth | KF (s) | KF / total |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    const KfTime& kf = nearest_kf(log10_zoom(r.zoom));
    md << "| " << r.location << " | " << r.zoom << " | " << r.label << " | " << r.backend << " | " << r.size
       << "^2 | " << r.max_iter << " | " << r.min_count << "-" << r.max_count << " | "
       << fmt("%.3f", r.seconds) << " | " << fmt("%.3f", r.kernel) << " | " << fmt("%.3f", r.reference)
       << " | " << r.ref_len << " / " << r.bits << " | " << fmt("%.3f", r.bla) << " | "
       << fmt("%.4g", static_cast<double>(r.iterations)) << " | "
       << fmt("%.1f%%", r.iterations ? 100.0 * r.skipped / r.iterations : 0.0) << " | " << r.glitches << " | "
       << fmt("%.3f", r.step_seconds) << " | " << kf.depth << " | " << fmt("%.2f", kf.seconds) << " | "
       << (r.size == 1024 ? fmt("%.1fx", kf.seconds / r.seconds) : std::string("- (not 1024^2)")) << " |\n";
  }
  double f64_rate = 0, fe_rate = 0;
  for (int k = 0; k < 3; ++k) {  // best of 3 each
    f64_rate = std::max(f64_rate, mul_rate(1.0, 1.0000001));
    fe_rate = std::max(fe_rate, mul_rate(FloatExp(1.0), FloatExp(1.0000001)));
  }
  md << "\nfloatexp multiply cost: " << fmt("%.2f", f64_rate / fe_rate) << " x f64 (" << fmt("%.3g", fe_rate)
     << " against " << fmt("%.3g", f64_rate)
     << " multiplies/s, 8 interleaved chains x <- x * y on one CPU thread, best of 3 each).\n";
  std::cout << md.str();
  if (!out.empty()) write_file_atomically(out, md.str());
  return 0;
}

}  // namespace ds::app
