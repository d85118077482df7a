// Formula perturbation on the CPU: the MPFR reference with its error bound, and the pixels' pass.
#include "perturb.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include "kernels/mandelbrot/mandelbrot.cuh"
#include "bla.h"
#include "mpfr_ops.h"
#include "perturb_step.h"
#include "pixel_loop.h"

namespace ds::formula {

int formula_reference_bits(const mandel::Geometry& g) {
  return std::max(64, static_cast<int>(std::ceil(-g.log2_step)) + 64) + 64;
}

FormulaReference compute_formula_reference(const Formula& f, const std::string& re, const std::string& im,
                                           int bits, uint64_t max_iter, const std::atomic<bool>* cancel,
                                           const JuliaSeed& julia, bool floatexp_states) {
  const auto t0 = std::chrono::steady_clock::now();
  FormulaReference ref;
  ref.re = re;
  ref.im = im;
  ref.bits = bits;
  ref.max_iter = max_iter;
  uint32_t states = 0;
  for (int k = 0; k < f.phases; ++k) {
    ref.prefix[k] = states;
    states += static_cast<uint32_t>(f.phase[k].count);
  }
  ref.period_states = states;
  const mpfr_prec_t p = bits;
  Mpfr cr(p), ci(p), x(p), y(p), sx(p), sy(p), t1(p), t2(p), t3(p);
  char* end = nullptr;
  mpfr_strtofr(cr.v, re.c_str(), &end, 10, MPFR_RNDN);
  mpfr_strtofr(ci.v, im.c_str(), &end, 10, MPFR_RNDN);
  mpfr_set_ui(x.v, 0, MPFR_RNDN);
  mpfr_set_ui(y.v, 0, MPFR_RNDN);
  const long double u = std::ldexp(1.0L, -bits);
  int max_ops = 0;
  for (int k = 0; k < f.phases; ++k) max_ops = std::max(max_ops, f.phase[k].count);
  auto modulus = [](const mpfr_t a, const mpfr_t b) {
    const long double ra = mpfr_get_ld(a, MPFR_RNDN), rb = mpfr_get_ld(b, MPFR_RNDN);
    return std::sqrt(ra * ra + rb * rb) * (1 + std::ldexp(1.0L, -60));
  };
  // A Julia orbit starts at Z_1 = the centre (rounded from its decimal strings) with c the seed.
  long double e = 0;  // >= |Z~ - Z| of the MPFR state (before rounding to binary64)
  if (julia.on()) {
    mpfr_set(x.v, cr.v, MPFR_RNDN);
    mpfr_set(y.v, ci.v, MPFR_RNDN);
    e = 1.01L * u * (std::fabs(mpfr_get_ld(x.v, MPFR_RNDN)) + std::fabs(mpfr_get_ld(y.v, MPFR_RNDN)));
    mpfr_strtofr(cr.v, julia.re.c_str(), &end, 10, MPFR_RNDN);
    mpfr_strtofr(ci.v, julia.im.c_str(), &end, 10, MPFR_RNDN);
  }
  // C's rounding from its decimal string (u per component), added at every add as |c~ - c|.
  const long double ec =
      1.01L * u * (std::fabs(mpfr_get_ld(cr.v, MPFR_RNDN)) + std::fabs(mpfr_get_ld(ci.v, MPFR_RNDN)));
  // E rounded up to binary64, with a factor for long double's own roundings in computing it (2^-64
  // each, at most 16 an opcode, over the m steps so far).
  uint64_t m_now = 0;
  auto rounded_up = [&](long double v) {
    return v * (1 + std::ldexp(1.0L, -50)) *
           std::exp(std::ldexp(16.0L * (max_ops + 2) * static_cast<long double>(m_now + 1), -64));
  };
  auto to_err = [&](long double v) {
    const double d = static_cast<double>(rounded_up(v));
    return std::isfinite(d) ? d : HUGE_VAL;
  };
  const bool fe = floatexp_states && bits <= kFloatExpStatesMaxBits;
  // The state rounded to nearest at 53 bits with its exponent, and err's bound rounded up (the
  // (1 + 2^-50) in to_err's factor covers the significand's rounding).
  auto push_state = [&](const mpfr_t a, const mpfr_t b) {
    ref.wr.push_back(mpfr_get_d(a, MPFR_RNDN));
    ref.wi.push_back(mpfr_get_d(b, MPFR_RNDN));
    if (!fe) return;
    long ea = 0, eb = 0;
    const double ma = mpfr_get_d_2exp(&ea, a, MPFR_RNDN), mb = mpfr_get_d_2exp(&eb, b, MPFR_RNDN);
    ref.wr_fe.push_back(FloatExp::make(ma, ea));
    ref.wi_fe.push_back(FloatExp::make(mb, eb));
  };
  auto push_err = [&](long double v) {
    ref.err.push_back(to_err(v));
    if (!fe) return;
    const long double w = rounded_up(v);
    int k = 0;
    const long double f = std::frexp(w, &k);
    ref.err_fe.push_back(std::isfinite(w) ? FloatExp::make(static_cast<double>(f), k) : FloatExp(HUGE_VAL));
  };
  for (uint64_t m = 0;; ++m) {
    m_now = m;
    if (cancel && (m & 1023) == 0 && cancel->load(std::memory_order_relaxed)) return FormulaReference{};
    if (m == 0 && julia.on()) {  // no Z_0: states nobody reads, poisoned so that a read cannot pass
      for (int k = 0; k < f.phase[0].count; ++k) {
        ref.wr.push_back(std::nan(""));
        ref.wi.push_back(std::nan(""));
        if (fe) {
          ref.wr_fe.push_back(FloatExp(std::nan("")));
          ref.wi_fe.push_back(FloatExp(std::nan("")));
        }
      }
      ref.err.push_back(HUGE_VAL);
      if (fe) ref.err_fe.push_back(FloatExp(HUGE_VAL));
      continue;
    }
    const bool escaped = [&] {
      if (m == 0) return false;
      mpfr_sqr(t1.v, x.v, MPFR_RNDN);
      mpfr_sqr(t2.v, y.v, MPFR_RNDN);
      mpfr_add(t1.v, t1.v, t2.v, MPFR_RNDN);
      return mpfr_cmp_ui(t1.v, 4) > 0;
    }();
    if (escaped || m == max_iter) {  // the last point: Z_m only
      push_state(x.v, y.v);
      push_err(e);
      ref.length = m + 1;
      ref.escaped = escaped;
      break;
    }
    const Phase& ph = f.phase[m % static_cast<uint64_t>(f.phases)];
    mpfr_set(sx.v, x.v, MPFR_RNDN);
    mpfr_set(sy.v, y.v, MPFR_RNDN);
    long double es = e, emax = e;
    for (int k = 0; k < ph.count; ++k) {
      const Op op = ph.ops[k];
      push_state(x.v, y.v);
      emax = std::max(emax, e);
      long double az = 0, as = 0;
      if (op == Op::kSqr || op == Op::kMul) az = modulus(x.v, y.v);
      if (op == Op::kMul) as = modulus(sx.v, sy.v);
      detail::mpfr_apply_op(op, x.v, y.v, sx.v, sy.v, cr.v, ci.v, t1.v, t2.v, t3.v);
      const long double az1 = op == Op::kAdd ? modulus(x.v, y.v) : 0;
      detail::op_bound(op, u, az, as, az1, ec, e, es);
    }
    push_err(emax);
  }
  ref.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ref;
}

void require_perturb_f64(const mandel::View& v, const Formula& f) {
  const mandel::Geometry g = mandel::geometry(v);
  const std::string name = "formula " + to_string(f);
  if (!g.square_pixels)
    throw mandel::ViewError(name +
                            ": a rotated, stretched or exponential-map view is not implemented for "
                            "formulas other than z^2 + c yet (docs/formulas.md)");
  if (g.log2_step - 1 < kPerturbMinLog2StepFloatExp)
    throw mandel::ViewError(name + ": the pixel spacing 2^" + std::to_string(static_cast<long>(g.log2_step)) +
                            " is below 2^" + std::to_string(static_cast<long>(kPerturbMinLog2StepFloatExp) + 1) +
                            ", beyond the range of FloatExp deltas");
  // The reference keeps every opcode's state (16 bytes) and a bound (8 bytes) per step, unpacked;
  // for FloatExp deltas the same with an exponent too (32 and 16 bytes more).
  int max_ops = 0;
  for (int k = 0; k < f.phases; ++k) max_ops = std::max(max_ops, f.phase[k].count);
  const long double per_step = g.log2_step - 1 < kPerturbMinLog2Step ? 48.0L * max_ops + 24 : 16.0L * max_ops + 8;
  const long double bytes = static_cast<long double>(v.max_iter) * per_step;
  const uint64_t have = mandel::host_memory_bytes();
  if (have && bytes > 0.75L * static_cast<long double>(have))
    throw mandel::ViewError(
        name + ": a reference of " + std::to_string(v.max_iter) + " iterations needs about " +
        std::to_string(static_cast<uint64_t>(bytes / 1048576)) + " MiB, more than three quarters of " +
        "this machine's " + std::to_string(have >> 20) +
        " MiB (formula references are not compressed yet); lower the iterations");
}

mandel::RenderResult render_perturb(const mandel::View& v, const Formula& f, const DirectOptions& opt,
                                    Certification* cert, FormulaReference* ref_out) {
  require_perturb_f64(v, f);
  const mandel::Geometry g = mandel::geometry(v);
  const auto t0 = std::chrono::steady_clock::now();
  mandel::RenderResult res = formula_result(v, mandel::Method::kPerturb);
  const bool floatexp = opt.floatexp_deltas || g.log2_step - 1 < kPerturbMinLog2Step;
  FormulaReference ref = compute_formula_reference(f, g.re, g.im, formula_reference_bits(g), v.max_iter, opt.cancel,
                                                   opt.julia, floatexp);
  if (ref.length == 0) {
    res.cancelled = true;
    return res;
  }
  PerturbParams p;
  p.f = f;
  p.wr = ref.wr.data();
  p.wi = ref.wi.data();
  p.err = ref.err.data();
  if (!ref.wr_fe.empty()) {
    p.wr_fe = ref.wr_fe.data();
    p.wi_fe = ref.wi_fe.data();
    p.err_fe = ref.err_fe.data();
  }
  p.length = ref.length;
  p.period_states = ref.period_states;
  for (int k = 0; k < kFormulaMaxPhases; ++k) p.prefix[k] = ref.prefix[k];
  p.max_iter = v.max_iter;
  p.log_degree = std::log(mean_degree(f));
  p.re_d = g.re_d;
  p.im_d = g.im_d;
  p.julia = opt.julia.on();
  p.cr_d = opt.julia.re_d;
  p.ci_d = opt.julia.im_d;
  int max_ops = 0;
  for (int k = 0; k < f.phases; ++k) max_ops = std::max(max_ops, f.phase[k].count);
  // The bound's own roundings: at most 16 a opcode, each a factor (1 + 2^-53) on a sum of
  // non-negative terms.
  p.slack = std::max(1.0 + 0x1p-30,
                     std::exp(std::ldexp(16.0 * (max_ops + 2) * static_cast<double>(v.max_iter), -53)));
  const double h = g.half_step_d;
  // BLA: the table for the largest |dc~| + ec of the view (the corner pixel's |dc|, L1, with room
  // for ec's 2.01u of it and the roundings).
  // Past binary64's range (s/2 below 2^kPerturbMinLog2Step): FloatExp deltas, dc = offset * (s/2)
  // with s/2 from its decimal string. BLA (its table is binary64's) while the table's dcmax is a
  // normal binary64 number, at least 2^-1000 (dcmax is about 4/zoom: to zoom about 4e301; the
  // pixels take no entry whose radius is below 2^-1000, perturb_step.h); beyond, none.
  res.perturb.delta = floatexp ? mandel::DeltaFormat::kFloatExp : mandel::DeltaFormat::kF64;
  const FloatExp h_fe = FloatExp::from_string(g.half_step);
  // The table for the largest |dc~| + ec of the view (the corner pixel's |dc|, L1, with room for
  // ec's 2.01u of it and the roundings); a Julia set's pixels add no dc: its B terms take 0.
  const FloatExp dcmax_fe =
      (FloatExp(std::fabs(mandel::pixel_offset(0, v.width)) + std::fabs(mandel::pixel_offset(0, v.height))) * h_fe) *
      (1.0 + 0x1p-40);
  const double dcmax = p.julia ? 0.0 : to_double(dcmax_fe) * (1.0 + 0x1p-50);
  FormulaBlaTable bla;
  if (opt.bla && (!floatexp || p.julia || dcmax >= 0x1p-1000)) {
    const auto tb = std::chrono::steady_clock::now();
    bla = build_formula_bla(f, ref, dcmax);
    attach_bla(p, bla);
    res.perturb.bla_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tb).count();
    res.perturb.bla_levels = bla.levels;
  }
  std::atomic<uint64_t> skipped{0};
  run_pixel_loop(
      v, opt,
      [&](int i, int j, bool* decided) {
        uint64_t sk = 0;
        mandel::PixelResult px;
        if (floatexp) {
          // The same contract in FloatExp: s/2 rounded once from its decimal, the product once.
          const FloatExp dcr = FloatExp(mandel::pixel_offset(i, v.width)) * h_fe;
          const FloatExp dci = FloatExp(-mandel::pixel_offset(j, v.height)) * h_fe;
          const FloatExp ec = (abs(dcr) + abs(dci)) * (2.01 * 0x1p-53);
          px = formula_perturb_pixel(p, dcr, dci, ec, decided, &sk);
        } else {
          // dc = offset * (s/2): s/2 rounded once to binary64 and the product once (the offsets
          // are small integers, exact), so |dc~ - dc| <= 2u|dc~| (1 + u) per component.
          const double dcr = mandel::pixel_offset(i, v.width) * h, dci = -mandel::pixel_offset(j, v.height) * h;
          const double ec = 2.01 * 0x1p-53 * (std::fabs(dcr) + std::fabs(dci)) + 0x1p-1070;
          px = formula_perturb_pixel(p, dcr, dci, ec, decided, &sk);
        }
        if (sk) skipped.fetch_add(sk, std::memory_order_relaxed);
        return px;
      },
      t0, ref.seconds, res, cert);
  if (res.cancelled) return res;
  res.perturb.bla_skipped = skipped.load();
  res.perturb.reference_seconds = ref.seconds;
  res.perturb.reference_bits = ref.bits;
  res.perturb.reference_length = ref.length;
  res.perturb.reference_escaped = ref.escaped;
  if (ref_out) *ref_out = std::move(ref);
  return res;
}

}  // namespace ds::formula
