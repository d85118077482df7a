// The formula render: the binary64 pass (direct or perturbation) and the MPFR fallback.
#include "render.h"

#include <algorithm>
#include <chrono>

#include "kernels/core/cpu_parallel.h"
#include "kernels/mandelbrot/mandelbrot.cuh"
#include "mpfr_orbit.h"
#include "perturb.h"

namespace ds::formula {

const char* path_name(FormulaPath p) {
  switch (p) {
    case FormulaPath::kAuto:
      return "auto";
    case FormulaPath::kDirect:
      return "direct binary64";
    case FormulaPath::kPerturb:
      return "perturbation (binary64 deltas)";
  }
  return "?";
}

std::string method_name(const FormulaReport& rep) {
  return rep.floatexp ? "perturbation (FloatExp deltas)" : path_name(rep.path);
}

FormulaPath auto_path(const mandel::View& v) {
  const mandel::Geometry g = mandel::geometry(v);
  return mandel::resolves(Arith::kF64, g, mandel::kGuardBits) ? FormulaPath::kDirect : FormulaPath::kPerturb;
}

void require_formula_view(const mandel::View& v, const Formula& f, FormulaPath path) {
  if (path == FormulaPath::kAuto) path = auto_path(v);
  if (path == FormulaPath::kDirect)
    require_direct_f64(v, f);
  else
    require_perturb_f64(v, f);
}

mandel::RenderResult render(const mandel::View& v, const Formula& f, const FormulaOptions& opt,
                            FormulaReport* report) {
  const FormulaPath path = opt.path == FormulaPath::kAuto ? auto_path(v) : opt.path;
  require_formula_view(v, f, path);
  const mandel::Geometry g = mandel::geometry(v);
  FormulaReport rep;
  rep.path = path;
  DirectOptions d;
  d.cancel = opt.cancel;
  d.progress = opt.progress;
  d.cpu_threads = opt.cpu_threads;
  d.bla = opt.bla;
  d.julia = opt.julia;
  Certification cert;
  mandel::RenderResult res;
  if (opt.stage) opt.stage("binary64 pass");
  if (path == FormulaPath::kDirect) {
    res = render_direct(v, f, d, &cert);
  } else {
    FormulaReference ref;
    res = render_perturb(v, f, d, &cert, &ref);
    rep.reference_bits = ref.bits;
    rep.reference_length = ref.length;
    rep.reference_escaped = ref.escaped;
    rep.reference_seconds = ref.seconds;
    rep.floatexp = res.perturb.delta == mandel::DeltaFormat::kFloatExp;
    rep.bla = opt.bla && (!rep.floatexp || res.perturb.bla_levels > 0);
    rep.bla_skipped = res.perturb.bla_skipped;
  }
  rep.pass_iterations = res.iterations;
  rep.pass_seconds = res.seconds - rep.reference_seconds;
  if (res.cancelled) {
    if (report) *report = std::move(rep);
    return res;
  }
  const std::size_t pixels = cert.certified.size();
  rep.pixels = pixels;
  rep.undecided = cert.uncertain;
  std::vector<std::size_t> todo;
  for (std::size_t k = 0; k < pixels; ++k)
    if (!cert.certified[k]) todo.push_back(k);
  if (todo.size() > opt.max_fallback) todo.resize(static_cast<std::size_t>(opt.max_fallback));
  const int bits0 = std::max(opt.fallback_min_bits, formula_reference_bits(g));
  const int max_bits = bits0 * std::max(1, opt.fallback_bits_factor);
  rep.fallback_bits_cap = max_bits;
  rep.fallback_limit = opt.max_fallback;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> count(todo.size(), 0);
  std::vector<int> used(todo.size(), 0);
  std::vector<uint8_t> done(todo.size(), 0);
  ParallelOptions po;
  po.cancel = opt.cancel;
  po.threads = opt.cpu_threads;
  if (!todo.empty()) {
    if (opt.stage) opt.stage("MPFR fallback");
    po.progress = opt.progress;
  }
  const std::size_t w = static_cast<std::size_t>(v.width);
  parallel_for(
      todo.size(), 1,
      [&](std::size_t a, std::size_t b) {
        for (std::size_t t = a; t < b; ++t) {
          const int i = static_cast<int>(todo[t] % w), j = static_cast<int>(todo[t] / w);
          done[t] = mpfr_decide(g, v, f, i, j, bits0, max_bits, &count[t], &used[t], opt.julia, opt.cancel) ? 1 : 0;
        }
      },
      po);
  rep.fallback_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (opt.cancel && opt.cancel->load()) {
    res.cancelled = true;
    if (report) *report = std::move(rep);
    return res;
  }
  const bool wide = mandel::wide_counts(v.max_iter);
  uint32_t* high = wide ? res.counts_high.data() : nullptr;
  for (std::size_t t = 0; t < todo.size(); ++t) {
    if (!done[t]) continue;
    const std::size_t k = todo[t];
    const uint64_t before = res.count(k);
    if (count[t] != before) {
      // The smooth count of the MPFR count: its integer part (the fraction is binary64's orbit's).
      const float smooth = count[t] >= v.max_iter ? mandel::smooth_at_limit(v.max_iter)
                                                  : (wide ? 0.0f : static_cast<float>(count[t]));
      res.iterations += count[t] - before;
      mandel::store_pixel(res.counts.data(), high, res.smooth.data(), k, count[t], smooth);
    }
    cert.certified[k] = 1;
    ++rep.fallback;
    rep.fallback_max_bits = std::max(rep.fallback_max_bits, used[t]);
  }
  rep.unresolved = rep.undecided - rep.fallback;
  rep.certified = std::move(cert.certified);
  res.seconds += rep.fallback_seconds;
  if (report) *report = std::move(rep);
  return res;
}

}  // namespace ds::formula
