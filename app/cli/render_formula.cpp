// `render --formula`: the checks of what formulas cannot do yet, and the one CPU render (direct or
// perturbation, then the MPFR fallback).
#include "render_formula.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "app/io/location.h"
#include "cancel.h"
#include "cli.h"
#include "kernels/formula/direct.h"
#include "kernels/formula/verify.h"
#include "progress_line.h"

namespace ds::app {

namespace {
// `what` refused for the formula (and the Julia set of its seed, where there is one).
[[noreturn]] void not_yet(const formula::Formula& f, const formula::JuliaSeed& julia, const std::string& what) {
  throw cli::UsageError(what + ": not implemented for formula " + formula::to_string(f) +
                        (julia.on() ? " (the Julia set of " + formula::julia_text(julia) + ")" : std::string()) +
                        " yet; formulas other than z^2 + c and Julia sets render only on the CPU (direct "
                        "binary64 or perturbation), one image at a time (docs/formulas.md)");
}
}  // namespace

formula::FormulaPath formula_path(const FormulaRequest& req) {
  if (req.perturb) return formula::FormulaPath::kPerturb;
  if (req.arith == "f64") return formula::FormulaPath::kDirect;
  return formula::FormulaPath::kAuto;
}

void check_formula_request(const formula::Formula& f, const FormulaRequest& req, const mandel::View& v) {
  // A Julia set: named first, so that --backend cuda says why (the GPU's engines iterate the
  // parameter plane only) rather than drawing the Mandelbrot set in its place.
  if (req.julia.on() && req.cuda)
    throw cli::UsageError("--backend cuda with --julia-re/--julia-im: the GPU draws only the parameter plane so "
                          "far; Julia sets (" + formula::julia_text(req.julia) +
                          ") render on the CPU (--backend cpu or auto; docs/formulas.md)");
  if (!req.perturb && !req.arith.empty() && req.arith != "auto" && req.arith != "f64")
    not_yet(f, req.julia, "--arith " + req.arith);
  if (req.frames > 1) not_yet(f, req.julia, "--frames (zoom sequences)");
  if (req.aa > 1) not_yet(f, req.julia, "--aa");
  if (req.exr) not_yet(f, req.julia, "--exr (KF's distance and phase channels)");
  if (req.auto_iter) not_yet(f, req.julia, "--auto-iter");
  if (req.tile_rows || req.strips) not_yet(f, req.julia, "strips over several workers (--tile-rows, --devices, mpirun)");
  if (req.cuda) not_yet(f, req.julia, "--backend cuda (the GPU)");
  if (req.fields & mandel::kFieldDistance) not_yet(f, req.julia, "a shader that reads the distance estimate");
  if (req.fields & mandel::kFieldPhase) not_yet(f, req.julia, "a shader that reads the phase");
  if (req.fields & mandel::kFieldStripe) not_yet(f, req.julia, "a shader that reads the stripe average");
  if (req.fields & mandel::kFieldSqrtSmooth) not_yet(f, req.julia, "square-root smoothing (KF's SmoothingMethod 1)");
  formula::require_formula_view(v, f, formula_path(req));
  // Memory: counts (and high words), smooth, the certification bytes, RGB, PNG and .npy buffers.
  const uint64_t pixels = static_cast<uint64_t>(v.width) * static_cast<uint64_t>(v.height);
  const uint64_t need = pixels * (4 + 4 + (mandel::wide_counts(v.max_iter) ? 4 : 0) + 1 + 3 + 3 + 8 + 8);
  const uint64_t have = mandel::host_memory_bytes();
  if (have && need > have)
    throw cli::UsageError("a " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                          " render needs about " + std::to_string(need >> 20) +
                          " MiB of memory; this machine has " + std::to_string(have >> 20) + " MiB");
  if (pixels * 3 > 0x7fffffffu)
    throw cli::UsageError("size " + std::to_string(v.width) + "x" + std::to_string(v.height) +
                          " is beyond the PNG encoder's limit of 2 GiB of pixels");
}

std::string formula_text(const formula::Formula& f, const formula::FormulaReport& rep,
                         const formula::JuliaSeed& julia) {
  std::string t = "formula = " + formula::to_string(f);
  if (julia.on())
    t += "\njulia_re = " + julia.re + "\njulia_im = " + julia.im +
         "\nplane = the Julia set of c = julia_re + i julia_im (z_1 = the pixel)";
  t += "\nmethod = " + formula::method_name(rep) + " on the CPU";
  if (rep.path == formula::FormulaPath::kPerturb)
    t += "\nreference = " + std::to_string(rep.reference_length) + " points at " +
         std::to_string(rep.reference_bits) + " bits (MPFR, the view's centre)" +
         (rep.bla ? "\nbla = " + std::to_string(rep.bla_skipped) + " of " + std::to_string(rep.pass_iterations) +
                        " iterations of the binary64 pass by BLA steps"
                  : std::string("\nbla = off"));
  t += "\nundecided = " + std::to_string(rep.undecided) + " of " + std::to_string(rep.pixels) +
       " pixels (counts binary64's error bound could not certify)"
       "\nmpfr fallback = " +
       std::to_string(rep.fallback) +
       " pixels decided by their own MPFR orbit"
       "\nunresolved = " +
       std::to_string(rep.unresolved) + " of " + std::to_string(rep.pixels) +
       " pixels (counts are binary64's guesses, not certified)"
       "\nnot done = the distance estimate, the GPU\n";
  return t;
}

void note_formula_report(const formula::FormulaReport& rep, mandel::RenderResult* r) {
  // Binary64 numbers on the CPU either way; the formula record says which path ran (render_summary's
  // perturbation lines are the Mandelbrot engine's and do not apply).
  r->method = mandel::Method::kDirect;
  r->arith = Arith::kF64;
  // The direct engine's error-estimate counters (render_summary's line, the deepscope-direct record)
  // hold the formula's: undecided in binary64, decided by the MPFR orbit, unresolved.
  r->error_bound = true;
  r->perturb.glitch_pixels = rep.undecided;
  r->perturb.glitch_corrected = rep.fallback;
  r->perturb.glitch_unresolved = rep.unresolved;
  if (rep.fallback > 0)
    r->recheck = "their MPFR orbits, up to " + std::to_string(rep.fallback_max_bits) + " bits";
}

int render_formula(const RenderTarget& t, const formula::Formula& f, const RenderPlan& plan,
                   const FormulaRequest& req) {
  formula::FormulaOptions o;
  o.cancel = &cancel_flag();
  o.path = formula_path(req);
  o.max_fallback = req.max_fallback;
  o.bla = req.bla;
  o.julia = req.julia;
  ProgressLine line;
  line.start(!plan.quiet);
  line.label = "render";
  o.progress = line.callback();
  o.stage = line.stage_callback();
  formula::FormulaReport rep;
  mandel::RenderResult r = formula::render(t.view, f, o, &rep);
  line.clear();
  if (r.cancelled) {
    std::cerr << "deepscope render: cancelled; " << t.png << " not written\n";
    return 130;
  }
  note_formula_report(rep, &r);
  std::vector<std::pair<std::string, std::string>> text = {{kPngFormulaKey, formula_text(f, rep, req.julia)}};
  // --verify: sampled pixels against the formula's own certified MPFR orbits (verify.h), reported
  // and recorded as z^2 + c's are (render_target.cpp's verify_image).
  bool wrong = false;
  if (plan.verify.samples > 0) {
    formula::FormulaVerifyOptions vo;
    vo.samples = plan.verify.samples;
    vo.seed = plan.verify.seed;
    vo.julia = req.julia;
    vo.cancel = &cancel_flag();
    ProgressLine vline;
    vline.start(!plan.quiet);
    vline.label = "verify";
    const perturb::oracle::VerifyReport vr = formula::verify_formula_render(t.view, f, r, vo, vline.callback());
    vline.clear();
    if (!report_verification(vr, " (the formula's own MPFR orbits)", plan.quiet, &text, &wrong)) {
      std::cerr << "deepscope render: " << t.png << " not written\n";
      return 130;
    }
  }
  const TargetFiles files = encode_target(t, r, plan, text);
  if (!files.note.empty() && !plan.quiet && files.note.find("C++ colour_pixel") == std::string::npos)
    std::cerr << "deepscope render: warning: " << files.note << "\n";
  write_target(t, files);
  const std::string more = ", formula " + formula::to_string(f) +
                           (req.julia.on() ? ", Julia set of " + formula::julia_text(req.julia) : std::string()) +
                           " by " + formula::method_name(rep);
  if (!plan.quiet) {
    std::cerr << wrote_lines(t.png, files.summary, more);
    if (rep.path == formula::FormulaPath::kPerturb)
      std::fprintf(stderr, "deepscope render: reference %llu points at %d bits in MPFR, %.3f s%s\n",
                   static_cast<unsigned long long>(rep.reference_length), rep.reference_bits,
                   rep.reference_seconds, rep.reference_escaped ? " (escaped)" : "");
    std::fprintf(
        stderr,
        "deepscope render: %llu of %llu pixels undecided in binary64, %llu decided by their MPFR orbit "
        "(%.3f s, up to %d bits), %llu unresolved\n",
        static_cast<unsigned long long>(rep.undecided), static_cast<unsigned long long>(rep.pixels),
        static_cast<unsigned long long>(rep.fallback), rep.fallback_seconds, rep.fallback_max_bits,
        static_cast<unsigned long long>(rep.unresolved));
  }
  // Said even under --quiet, and exit 1: these counts are binary64's guesses (docs/formulas.md).
  if (rep.unresolved == 0) return wrong ? 1 : 0;
  std::cerr
      << "deepscope render: " << rep.unresolved << " of " << rep.pixels << " pixels of " << t.png
      << " could not be decided (binary64's error bound left them undecided, and their MPFR orbits were "
         "not certified up to "
      << rep.fallback_bits_cap << " bits, or were past the fallback's limit of " << rep.fallback_limit
      << " pixels); their counts are binary64's guesses, and the PNG "
         "says so (deepscope-formula: unresolved)\n";
  return 1;
}

}  // namespace ds::app
