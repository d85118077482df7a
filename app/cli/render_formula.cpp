// `render --formula`: the checks of what formulas cannot do yet, and the one binary64 CPU render.
#include "render_formula.h"

#include <unistd.h>

#include <iostream>

#include "app/io/location.h"
#include "cancel.h"
#include "cli.h"
#include "kernels/formula/direct.h"
#include "progress_line.h"

namespace ds::app {

namespace {
[[noreturn]] void not_yet(const formula::Formula& f, const std::string& what) {
  throw cli::UsageError(what + ": not implemented for formula " + formula::to_string(f) +
                        " yet; formulas other than z^2 + c render only directly in binary64 on the CPU, "
                        "one image at a time (docs/formulas.md)");
}
}  // namespace

void check_formula_request(const formula::Formula& f, const FormulaRequest& req, const mandel::View& v) {
  if (req.perturb) not_yet(f, "--arith perturb (perturbation)");
  if (!req.arith.empty() && req.arith != "auto" && req.arith != "f64") not_yet(f, "--arith " + req.arith);
  if (req.frames > 1) not_yet(f, "--frames (zoom sequences)");
  if (req.aa > 1) not_yet(f, "--aa");
  if (req.verify)
    not_yet(f,
            "--verify (the oracle checks z^2 + c only; the formula tests use kernels/formula/mpfr_orbit.h)");
  if (req.exr) not_yet(f, "--exr (KF's distance and phase channels)");
  if (req.auto_iter) not_yet(f, "--auto-iter");
  if (req.tile_rows || req.strips) not_yet(f, "strips over several workers (--tile-rows, --devices, mpirun)");
  if (req.cuda) not_yet(f, "--backend cuda (the GPU)");
  if (req.fields & mandel::kFieldDistance) not_yet(f, "a shader that reads the distance estimate");
  if (req.fields & mandel::kFieldPhase) not_yet(f, "a shader that reads the phase");
  if (req.fields & mandel::kFieldStripe) not_yet(f, "a shader that reads the stripe average");
  if (req.fields & mandel::kFieldSqrtSmooth) not_yet(f, "square-root smoothing (KF's SmoothingMethod 1)");
  formula::require_direct_f64(v, f);
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

std::string formula_text(const formula::Formula& f, uint64_t uncertified, uint64_t pixels) {
  return "formula = " + formula::to_string(f) +
         "\nmethod = direct binary64 on the CPU (kernels/formula/direct.h)"
         "\nuncertified = " +
         std::to_string(uncertified) + " of " + std::to_string(pixels) +
         " pixels (counts binary64's error bound could not certify)"
         "\nnot done = perturbation, BLA, the distance estimate, the GPU\n";
}

int render_formula(const RenderTarget& t, const formula::Formula& f, const RenderPlan& plan) {
  formula::DirectOptions o;
  o.cancel = &cancel_flag();
  ProgressLine line;
  line.on = isatty(2) && !plan.quiet;
  line.label = "render";
  o.progress = line.callback();
  formula::Certification cert;
  const mandel::RenderResult r = formula::render_direct(t.view, f, o, &cert);
  line.clear();
  if (r.cancelled) {
    std::cerr << "deepscope render: cancelled; " << t.png << " not written\n";
    return 130;
  }
  const uint64_t pixels = static_cast<uint64_t>(r.width) * static_cast<uint64_t>(r.height);
  const TargetFiles files =
      encode_target(t, r, plan, {{kPngFormulaKey, formula_text(f, cert.uncertain, pixels)}});
  if (!files.note.empty() && !plan.quiet && files.note.find("C++ colour_pixel") == std::string::npos)
    std::cerr << "deepscope render: warning: " << files.note << "\n";
  write_target(t, files);
  if (!plan.quiet) std::cerr << wrote_lines(t.png, files.summary, ", formula " + formula::to_string(f));
  // Said even under --quiet: these counts are the rounded orbit's, maybe not the exact one's.
  if (cert.uncertain > 0)
    std::cerr << "deepscope render: warning: " << cert.uncertain << " of " << pixels
              << " pixels have counts binary64's error bound could not certify (orbits chaotic beyond "
                 "binary64's precision; recorded in the PNG, docs/formulas.md)\n";
  return 0;
}

}  // namespace ds::app
