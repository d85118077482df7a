// One render target's files for `deepscope render` and `video`: the render (samples with --aa,
// --verify's oracle check), the PNG, EXR and .npy bytes, the summary lines, and the rules that
// say a frame is already written (render_work.h).
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "antialias.h"
#include "app/io/exr_io.h"
#include "app/io/image_io.h"
#include "app/io/location.h"
#include "app/io/srgb.h"
#include "app/io/view_png.h"
#include "cancel.h"
#include "kernels/core/atomic_file.h"
#include "kernels/mandelbrot/auto_iter.h"
#include "kernels/perturb/oracle.h"
#include "kernels/perturb/perturb.h"
#include "progress_line.h"
#include "render_work.h"

namespace ds::app {

using mandel::Method;
using mandel::RenderResult;

namespace {

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in) throw IoError("cannot read " + path);
  return s.str();
}

}  // namespace

// "deepscope render: wrote PNG (first summary line)" and the summary's further lines, each prefixed.
std::string wrote_lines(const std::string& png, const std::string& summary, const std::string& more) {
  std::string out;
  size_t at = 0;
  for (bool first = true; at <= summary.size(); first = false) {
    size_t nl = summary.find('\n', at);
    if (nl == std::string::npos) nl = summary.size();
    const std::string line = summary.substr(at, nl - at);
    out += first ? "deepscope render: wrote " + png + " (" + line + more + ")\n"
                 : "deepscope render: " + line + "\n";
    at = nl + 1;
  }
  return out;
}

// Writes the files of `t` that `f` holds: the data files first, the PNG last (frame_written counts
// a frame as done once its PNG is there).
void write_target(const RenderTarget& t, const TargetFiles& f) {
  if (!t.counts.empty()) write_file_atomically(t.counts, f.counts);
  if (!t.smooth.empty()) write_file_atomically(t.smooth, f.smooth);
  if (!t.exr.empty()) write_file_atomically(t.exr, f.exr);
  write_file_atomically(t.png, f.png);
}

std::string render_summary(const RenderResult& r) {
  char line[768];
  std::snprintf(line, sizeof line, "%dx%d, %s on %s%s, %.3f s, %.3g iterations", r.width, r.height,
                mandel::format_label(r).c_str(), mandel::backend_name(r.backend),
                r.limb_strategy == mandel::LimbStrategy::kCooperative ? " (coop)" : "", r.seconds,
                static_cast<double>(r.iterations));
  std::string out = line;
  // The workers' backends are resolved before render(), so a note here is the render's own: the
  // GPU ran out of memory and the CPU took over.
  if (!r.note.empty()) out += " (" + r.note + ")";
  if (r.method == Method::kPerturb) {
    const mandel::PerturbInfo& pi = r.perturb;
    std::string packed;  // a compressed orbit's size (orbit_codec.h)
    if (pi.reference_bytes && pi.reference_length &&
        pi.reference_bytes < pi.reference_length * perturb::kReferenceBytesPerPoint) {
      char b[96];
      std::snprintf(b, sizeof b, ", compressed to %.3g MiB (%.3g bytes a point)",
                    static_cast<double>(pi.reference_bytes) / 1048576.0,
                    static_cast<double>(pi.reference_bytes) / static_cast<double>(pi.reference_length));
      packed = b;
    }
    std::snprintf(
        line, sizeof line,
        "reference %llu points at %d bits in %s (stopped: %s), %.3f s%s%s; BLA skipped %.3g iterations; "
        "glitches: %llu pixels flagged, %llu corrected (%llu by wider deltas against the same centre: %llu "
        "double words, %llu at 212 or 424 bits), "
        "%llu unresolved, "
        "%d secondary references (%.3f s at 106 bits, BLA skipped %.3g of their iterations, "
        "%.3f s secondary); %llu interior pixels",
        static_cast<unsigned long long>(pi.reference_length), pi.reference_bits,
        pi.reference_arith.empty() ? "MPFR" : pi.reference_arith.c_str(),
        pi.reference_stop.empty() ? "unknown" : pi.reference_stop.c_str(), pi.reference_seconds,
        pi.reference_reused ? " (reused)" : "", packed.c_str(), static_cast<double>(pi.bla_skipped),
        static_cast<unsigned long long>(pi.glitch_pixels),
        static_cast<unsigned long long>(pi.glitch_corrected),
        static_cast<unsigned long long>(pi.glitch_refined),
        static_cast<unsigned long long>(pi.glitch_refined_dw),
        static_cast<unsigned long long>(pi.refine_pass_decided[3] + pi.refine_pass_decided[4]),
        static_cast<unsigned long long>(pi.glitch_unresolved), pi.secondary_references, pi.refine_seconds,
        static_cast<double>(pi.refine_skipped), pi.secondary_seconds,
        static_cast<unsigned long long>(pi.interior_pixels));
    out += "\n";
    out += line;
    if (pi.period_map_degree > 0) {
      std::snprintf(line, sizeof line,
                    "\nperiod map: degree %d over %llu steps, |dz_1| < %.3g, error bound %.2g of its scale "
                    "(%.3f s)",
                    pi.period_map_degree, static_cast<unsigned long long>(pi.period_map_steps),
                    pi.period_map_radius, pi.period_map_relative_error, pi.period_map_seconds);
      out += line;
    } else if (!pi.period_map_note.empty()) {
      out += "\nperiod map: none (" + pi.period_map_note + ")";
    }
    // Where pass k's time went: its tables, the device's launches, the CPU's pixels.
    const auto split = [&](int k) {
      char b[160];
      if (pi.refine_pass_device_seconds[k] > 0)
        std::snprintf(b, sizeof b, ": tables %.3f s, device %.3f s, CPU %.3f s", pi.refine_pass_table_seconds[k],
                      pi.refine_pass_device_seconds[k], pi.refine_pass_cpu_seconds[k]);
      else
        std::snprintf(b, sizeof b, ": tables %.3f s, pixels %.3f s", pi.refine_pass_table_seconds[k],
                      pi.refine_pass_cpu_seconds[k]);
      return std::string(b);
    };
    // The 106-bit tier pass by pass (cpu_tiers.cpp): what each took, decided, and its time.
    std::string passes;
    const char* names[3] = {"double words with BLA at eps 2^-70", "double words at 2^-106", "floatexp2"};
    for (int k = 0; k < 3; ++k) {
      if (pi.refine_pass_pixels[k] == 0) continue;
      char b[200];
      std::snprintf(b, sizeof b, "%s %s %llu of %llu pixels (%.3f s", passes.empty() ? "" : ";", names[k],
                    static_cast<unsigned long long>(pi.refine_pass_decided[k]),
                    static_cast<unsigned long long>(pi.refine_pass_pixels[k]), pi.refine_pass_seconds[k]);
      passes += b + split(k);
      // A CUDA pass's slowest pixels, finished on the host's cores (perturb.cu, run_list_chunk).
      if (pi.refine_pass_host[k] != 0) {
        std::snprintf(b, sizeof b, "; %llu finished on the CPU", static_cast<unsigned long long>(pi.refine_pass_host[k]));
        passes += b;
      }
      passes += ")";
    }
    if (!passes.empty()) out += "\n106-bit tier:" + passes;
    // The wide tiers (floatexp4, floatexp8 against a wide orbit): pixels, decided, time.
    std::string wide;
    const char* wide_names[2] = {"floatexp4 (212 bits)", "floatexp8 (424 bits)"};
    for (int k = 3; k < 5; ++k) {
      if (pi.refine_pass_pixels[k] == 0) continue;
      char b[200];
      std::snprintf(b, sizeof b, "%s %s %llu of %llu pixels (%.3f s", wide.empty() ? "" : ";", wide_names[k - 3],
                    static_cast<unsigned long long>(pi.refine_pass_decided[k]),
                    static_cast<unsigned long long>(pi.refine_pass_pixels[k]), pi.refine_pass_seconds[k]);
      wide += b + split(k);
      // floatexp4's first table (eps 2^-128) and its 2^-212 one after it; a CUDA pass's slowest
      // pixels finished on the host.
      if (k == 3 && pi.wide_coarse_pixels != 0) {
        std::snprintf(b, sizeof b, "; %llu by its 2^-128 table", static_cast<unsigned long long>(pi.wide_coarse_decided));
        wide += b;
      }
      if (pi.refine_pass_host[k] != 0) {
        std::snprintf(b, sizeof b, "; %llu finished on the CPU", static_cast<unsigned long long>(pi.refine_pass_host[k]));
        wide += b;
      }
      wide += ")";
    }
    if (!wide.empty()) {
      char b[160];
      std::snprintf(b, sizeof b, " %s%.3f s", pi.wide_prefetched ? "computed beside the first pass, then waited " : "",
                    pi.wide_orbit_seconds);
      out += std::string("\nwide tiers (a 424-bit orbit,") + b + "):" + wide;
      // Stopped after floatexp4's sample (cpu_tiers.cpp, wide_tiers).
      if (!pi.wide_note.empty()) out += "; stopped: " + pi.wide_note;
    } else if (!pi.wide_note.empty())
      out += "\nwide tiers: not run: " + pi.wide_note;
    // The interior proofs for what every tier left (two a pixel, their windows without BLA).
    std::string proofs;
    if (pi.refine_pass_pixels[5] != 0) {
      char b[200];
      std::snprintf(b, sizeof b, " floatexp2 %llu of %llu pixels (%.3f s",
                    static_cast<unsigned long long>(pi.refine_pass_decided[5]),
                    static_cast<unsigned long long>(pi.refine_pass_pixels[5]), pi.refine_pass_seconds[5]);
      proofs += b + split(5);
      if (pi.refine_pass_host[5] != 0) {
        std::snprintf(b, sizeof b, "; %llu finished on the CPU", static_cast<unsigned long long>(pi.refine_pass_host[5]));
        proofs += b;
      }
      proofs += ")";
    }
    if (!proofs.empty()) out += "\ninterior proofs for what the tiers left (two a pixel):" + proofs;
    else if (!pi.proof_note.empty()) out += "\ninterior proofs: not run: " + pi.proof_note;
    if (pi.cpu_simd == mandel::CpuSimd::kAvx2 || pi.cpu_simd == mandel::CpuSimd::kAvx512) {
      const unsigned lanes = pi.cpu_simd == mandel::CpuSimd::kAvx2 ? 4 : 8;
      const double steps = static_cast<double>(pi.lane_steps) + static_cast<double>(pi.lane_scalar_steps);
      std::snprintf(line, sizeof line,
                    "CPU pixel loop: %s, %u lanes: %.1f%% of the loop's passes in the lanes (%llu, and %llu in "
                    "pixel_step), lanes %.1f%% busy",
                    pi.cpu_simd == mandel::CpuSimd::kAvx2 ? "avx2" : "avx512", lanes,
                    steps > 0 ? 100.0 * static_cast<double>(pi.lane_steps) / steps : 0.0,
                    static_cast<unsigned long long>(pi.lane_steps), static_cast<unsigned long long>(pi.lane_scalar_steps),
                    pi.lane_passes ? 100.0 * static_cast<double>(pi.lane_steps) / (static_cast<double>(pi.lane_passes) * lanes) : 0.0);
      out += "\n";
      out += line;
    }
    if (pi.unresolved_unreferenced)
      out += "\nglitches: " + std::to_string(pi.unresolved_unreferenced) +
             " of the unresolved pixels got no secondary reference: on an orbit that wraps at its ball "
             "period, their own orbits cut there decide few of them (docs/perturbation.md, \"Secondary "
             "references on a wrapping orbit\")";
    if (!pi.reference_cache.empty()) out += "\nreference cache: " + pi.reference_cache;
  }
  if (r.method == Method::kDirect && !r.error_bound) out += "\nerror estimate: off (--no-error-bound)";
  if (r.method == Method::kDirect && r.error_bound) {
    const mandel::PerturbInfo& pi = r.perturb;
    std::snprintf(
        line, sizeof line,
        "\nerror estimate: %llu pixels undecided, %llu decided by a wider format%s%s%s, %llu unresolved",
        static_cast<unsigned long long>(pi.glitch_pixels),
        static_cast<unsigned long long>(pi.glitch_corrected), r.recheck.empty() ? "" : " (",
        r.recheck.c_str(), r.recheck.empty() ? "" : ")",
        static_cast<unsigned long long>(pi.glitch_unresolved));
    out += line;
  }
  if (r.stripe_density != 0) {
    std::snprintf(line, sizeof line, "\nstripe average: density %d, memory %.3g, %llu pixels approximate",
                  r.stripe_density, r.stripe_memory, static_cast<unsigned long long>(r.stripe_approximate));
    out += line;
    if (r.stripe_approximate > 0) out += " (BLA steps near their escape; by more than 1/512)";
  }
  return out;
}

namespace {

// The EXR of t from the data of its pixel centres `r`, the image's colours (linear light) and its
// text chunks, with the undecided-pixel count.
std::string target_exr(const RenderResult& r, const std::vector<float>& linear,
                       std::vector<std::pair<std::string, std::string>> text, uint64_t undecided) {
  ExrImage e = exr_channels(r, linear);
  text.emplace_back("deepscope-undecided", std::to_string(undecided));
  e.attributes = std::move(text);
  return encode_exr(e);
}

std::vector<float> to_linear(const std::vector<uint8_t>& rgb) {
  std::vector<float> out(rgb.size());
  for (size_t k = 0; k < rgb.size(); ++k) out[k] = srgb_to_linear(rgb[k]);
  return out;
}

}  // namespace

TargetFiles encode_target(const RenderTarget& t, const RenderResult& r, const RenderPlan& plan,
                          const std::vector<std::pair<std::string, std::string>>& extra) {
  TargetFiles f;
  const ColouredFrame frame = colour_frame(r, plan.colouring, plan.shader);
  const std::vector<uint8_t>& rgb = frame.rgb;
  f.note = frame.note;
  f.png = mandelbrot_png_rgb(t.view, r, plan.palette_name, plan.colouring, rgb, frame.record, extra);
  if (!t.counts.empty()) f.counts = encode_counts_npy(r.counts, r.counts_high, r.height, r.width);
  if (!t.smooth.empty()) f.smooth = encode_smooth_npy(r.smooth, r.counts, r.counts_high, r.height, r.width);
  f.unresolved = r.perturb.glitch_unresolved;
  if (!t.exr.empty()) {
    std::vector<std::pair<std::string, std::string>> text =
        view_text(t.view, r, plan.palette_name, plan.colouring, frame.record);
    text.insert(text.end(), extra.begin(), extra.end());
    f.exr = target_exr(r, to_linear(rgb), text, f.unresolved);
  }
  f.summary = render_summary(r);
  return f;
}

bool render_target(const RenderTarget& t, const mandel::RenderOptions& o, const RenderPlan& plan,
                   TargetFiles* files) {
  mandel::RenderOptions opt = o;
  if (!t.exr.empty()) opt.fields |= mandel::kFieldDistance | mandel::kFieldPhase;
  if (plan.aa <= 1) {
    RenderResult r = mandel::render(t.view, opt);
    if (!plan.auto_iter) {
      if (r.cancelled) return false;
      *files = encode_target(t, r, plan);
      return true;
    }
    // Auto iterations (a video's frames): the limit doubles while the counts say it is too low.
    RenderTarget raised = t;
    RenderPlan p = plan;
    for (int round = 0; !r.cancelled && round < 8; ++round) {
      const mandel::AutoIterDecision d = mandel::auto_iterations_after_render(
          raised.view.max_iter,
          mandel::iteration_stats(r.counts, raised.view.max_iter, r.perturb.interior_pixels,
                                  r.method == Method::kPerturb && opt.interior, r.counts_high));
      if (d.max_iter <= raised.view.max_iter) break;
      raised.view.max_iter = d.max_iter;
      p.colouring.max_iter = d.max_iter;
      r = mandel::render(raised.view, opt);
    }
    if (r.cancelled) return false;
    *files = encode_target(raised, r, p);
    if (raised.view.max_iter != t.view.max_iter)
      files->summary += "\nauto iterations: " + std::to_string(raised.view.max_iter) + " (from " +
                        std::to_string(t.view.max_iter) + ")";
    return true;
  }
  // The samples carry the fields the shader reads (o.fields); the EXR's come from the centres.
  AntialiasedImage a = render_antialiased(t.view, o, plan.aa, plan.colouring, plan.shader);
  if (a.cancelled) return false;
  RenderResult centre;
  if (t.wants_arrays()) {
    centre = mandel::render(t.view, opt);
    if (centre.cancelled) return false;
    // A pixel undecided at its centre is undecided in the image too.
    const size_t pixels = a.undecided_mask.size();
    for (size_t k = 0; k < pixels; ++k)
      if (centre.count(k) == 0 && !a.undecided_mask[k]) {
        a.undecided_mask[k] = 1;
        ++a.undecided;
        for (int ch = 0; ch < 3; ++ch) {
          a.rgb[3 * k + ch] = ch == 1 ? 0 : 255;
          a.linear[3 * k + ch] = srgb_to_linear(a.rgb[3 * k + ch]);
        }
      }
    a.facts.perturb.glitch_unresolved = a.undecided;
  }
  std::vector<std::pair<std::string, std::string>> text =
      view_text(t.view, a.facts, plan.palette_name, plan.colouring, a.colour_record);
  text.emplace_back(kPngAntialiasKey, aa_record(plan.aa, a));
  TargetFiles& f = *files;
  f = TargetFiles();
  f.note = a.colour_note;
  f.png = encode_png(a.rgb, t.view.width, t.view.height, text);
  if (!t.counts.empty())
    f.counts = encode_counts_npy(centre.counts, centre.counts_high, centre.height, centre.width);
  if (!t.smooth.empty())
    f.smooth =
        encode_smooth_npy(centre.smooth, centre.counts, centre.counts_high, centre.height, centre.width);
  if (!t.exr.empty()) f.exr = target_exr(centre, a.linear, text, a.undecided);
  f.unresolved = a.undecided;
  char line[200];
  std::snprintf(
      line, sizeof line, "antialiasing: %dx%d samples%s, averaged in linear light, %llu undecided pixels",
      plan.aa, plan.aa,
      a.facts.method == Method::kPerturb ? (", reference reused by " + std::to_string(a.reference_reused) +
                                            " of " + std::to_string(a.samples))
                                               .c_str()
                                         : "",
      static_cast<unsigned long long>(a.undecided));
  f.summary = render_summary(a.facts) + "\n" + line;
  return true;
}

bool verify_image(const mandel::View& v, const RenderResult& r, const VerifyPlan& plan, bool quiet,
                  std::vector<std::pair<std::string, std::string>>* png_text, bool* wrong) {
  perturb::oracle::VerifyOptions o;
  o.samples = plan.samples;
  o.seed = plan.seed;
  o.oracle.cancel = &cancel_flag();
  ProgressLine line;
  line.start(!quiet);
  line.label = "verify";
  const perturb::oracle::VerifyReport rep = perturb::oracle::verify_render(v, r, o, line.callback());
  line.clear();
  return report_verification(rep, "", quiet, png_text, wrong);
}

bool report_verification(const perturb::oracle::VerifyReport& rep, const std::string& oracle_note, bool quiet,
                         std::vector<std::pair<std::string, std::string>>* png_text, bool* wrong) {
  *wrong = rep.failed();
  if (rep.cancelled) {
    std::cerr << "deepscope render: verification cancelled\n";
    return false;
  }
  if (!quiet || rep.failed()) {
    std::cerr << rep.summary() << oracle_note << "\n";
    if (rep.samples > rep.grid * rep.grid)
      std::fprintf(stderr, "verify: %d random samples with seed %llu (--verify-seed replays them), %.1f s\n",
                   rep.samples - rep.grid * rep.grid, static_cast<unsigned long long>(rep.seed), rep.seconds);
    if (rep.failed())
      for (const perturb::oracle::VerifySample& s : rep.detail)
        if (s.oracle.trusted() && (s.rendered > s.oracle.count + 1 || s.oracle.count > s.rendered + 1))
          std::fprintf(stderr, "verify: pixel (%d, %d): rendered %llu, MPFR %llu (%d bits)\n", s.at.i, s.at.j,
                       static_cast<unsigned long long>(s.rendered), static_cast<unsigned long long>(s.oracle.count),
                       s.oracle.bits);
  }
  png_text->emplace_back(kPngVerifyKey, rep.metadata());
  return true;
}

namespace {
// A colouring record without its coloured_by line (which names the GL that ran it: a frame drawn on
// another machine by the same shader is the same frame).
std::string colouring_identity(const std::string& record) {
  const std::size_t at = record.find("coloured_by = ");
  return at == std::string::npos ? record : record.substr(0, at);
}
}  // namespace

bool frame_written(const RenderTarget& t, const RenderPlan& plan) {
  if (!exists(t.png) || (!t.counts.empty() && !exists(t.counts)) ||
      (!t.smooth.empty() && !exists(t.smooth)) || (!t.exr.empty() && !exists(t.exr)))
    return false;
  try {
    const std::string png = read_all(t.png);
    std::string text, aa;
    if (!png_find_text(png, kPngLocationKey, &text)) return false;
    // Drawn with the same samples: none (no chunk) for --aa 1, "samples = NxN" otherwise.
    const bool has_aa = png_find_text(png, kPngAntialiasKey, &aa);
    if (plan.aa > 1 ? !has_aa || aa.substr(0, aa.find('\n')) != aa_samples_line(plan.aa) : has_aa)
      return false;
    // Coloured by the same shader and parameters, and for a stripe average by the same engine
    // parameters: a rerun with another colouring draws the frame again.
    std::string colour, stripe;
    if (!png_find_text(png, kPngColourKey, &colour) ||
        colouring_identity(colour) != colouring_identity(colour_record(plan.shader, "")))
      return false;
    if (t.opt.fields & mandel::kFieldStripe) {
      const std::string want = stripe_parameters(t.opt.stripe_density, t.opt.stripe_memory);
      if (!png_find_text(png, kPngStripeKey, &stripe) || stripe.compare(0, want.size(), want) != 0) return false;
    }
    return text ==
           format_location(location_of(t.view, plan.palette_name, plan.colouring, format_label_of(t)));
  } catch (const std::exception&) {
    return false;  // unreadable or not our PNG: render it again
  }
}

int unresolved_exit(uint64_t unresolved, const std::string& what, bool quiet) {
  if (unresolved == 0) return 0;
  if (!quiet)
    std::cerr
        << "deepscope render: " << unresolved << " pixels of " << what
        << " could not be decided (glitch correction ran out of references, or not even the pixel's "
           "own MPFR orbit decided its escape within the precision cap, or no direct format decided it); "
           "their count is 0 and the PNG says so (deepscope-perturb, deepscope-direct)\n";
  return 1;
}

}  // namespace ds::app
