// verify.h: a formula render's sampled pixels against their own certified MPFR orbits.
#include "verify.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "kernels/core/cpu_parallel.h"
#include "mpfr_orbit.h"
#include "perturb.h"

namespace ds::formula {

namespace {
namespace po = perturb::oracle;

// One pixel: the first certified run from `bits` (doubling to max_bits), confirmed one rung above.
po::OraclePixel oracle_formula_pixel(const mandel::Geometry& g, const mandel::View& v, const Formula& f, int i,
                                     int j, int bits, int max_bits, const FormulaVerifyOptions& opt) {
  po::OraclePixel px;
  const auto cancelled = [&] { return opt.cancel && opt.cancel->load(std::memory_order_relaxed); };
  for (int b = bits;; b = std::min(max_bits, 2 * b)) {
    bool ok = false;
    const uint64_t n = mpfr_count_certified(g, v, f, i, j, b, &ok, opt.julia, opt.cancel);
    ++px.runs;
    px.top_bits = b;
    if (cancelled()) {
      px.status = po::Status::kCancelled;
      return px;
    }
    if (ok) {
      px.count = n;
      px.bits = b;
      break;
    }
    if (b >= max_bits) {
      px.status = po::Status::kUncertain;
      return px;
    }
  }
  const int up = po::next_bits(px.bits);
  bool ok = false;
  const uint64_t n = mpfr_count_certified(g, v, f, i, j, up, &ok, opt.julia, opt.cancel);
  ++px.runs;
  px.top_bits = std::max(px.top_bits, up);
  if (cancelled()) {
    px.status = po::Status::kCancelled;
  } else if (!ok) {
    px.status = po::Status::kUnconfirmed;
  } else if (n != px.count) {
    px.status = po::Status::kContradicted;
  } else {
    px.status = po::Status::kTrusted;
    px.confirm_bits = up;
  }
  return px;
}
}  // namespace

perturb::oracle::VerifyReport verify_formula_render(const mandel::View& v, const Formula& f,
                                                    const mandel::RenderResult& r, const FormulaVerifyOptions& opt,
                                                    const std::function<void(double)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<mandel::PixelIndex> where;
  po::VerifyReport rep = po::begin_verify(v, r, opt.samples, opt.seed, &where);
  const mandel::Geometry g = mandel::geometry(v);
  const int bits = std::max(128, formula_reference_bits(g));
  const int max_bits = bits * std::max(1, opt.max_bits_factor);
  std::vector<po::OraclePixel> px(where.size());
  ParallelOptions popt;
  popt.threads = opt.threads;
  popt.cancel = opt.cancel;
  popt.progress = progress;
  parallel_for(
      where.size(), 1,
      [&](std::size_t a, std::size_t b) {
        for (std::size_t k = a; k < b; ++k)
          px[k] = oracle_formula_pixel(g, v, f, where[k].i, where[k].j, bits, max_bits, opt);
      },
      popt);
  for (std::size_t k = 0; k < where.size(); ++k) {
    po::VerifySample s;
    s.at = where[k];
    s.rendered = r.count(static_cast<size_t>(where[k].j) * v.width + where[k].i);
    s.oracle = px[k];
    if (px[k].runs == 0) s.oracle.status = po::Status::kCancelled;  // not reached before a cancel
    rep.add(s);
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rep;
}

}  // namespace ds::formula
