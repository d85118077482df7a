// Undecided direct pixels re-decided in wider formats (recheck.h; docs/mandelbrot.md, "Undecided
// pixels"): each rung runs mandel_pixel (or field_pixel) of the wider format on the CPU, on all cores.
#include "recheck.h"

#include <mpfr.h>

#include <atomic>
#include <cmath>
#include <limits>

#include "arith/mpfr_number.h"
#include "kernels/core/cpu_parallel.h"
#include "mandelbrot.cuh"

namespace ds::mandel::detail {

namespace {

// Bits of precision at |z| ~ 1: floating formats' significand, fixed formats' fraction (less the
// two bits that values up to 4 take).
double precision_bits(Arith a) {
  const FormatTraits t = arith_traits(a);
  return -std::log2(t.eps) - (t.fixed ? 2.0 : 0.0);
}

bool holds(Arith a, const Geometry& g) {
  const double lim = log2_zoom_limit(a, g, 0);
  return std::isfinite(lim) && g.log2_zoom <= lim;
}

// Parses a decimal exactly into x: false where it does not fit kExactBits (or is malformed).
bool exact_decimal(mpfr_t x, const std::string& text) {
  char* end = nullptr;
  const int t = mpfr_strtofr(x, text.c_str(), &end, 10, MPFR_RNDN);
  while (end && (*end == ' ' || *end == '\t')) ++end;
  return t == 0 && end && *end == '\0';
}

}  // namespace

std::optional<PixelResult> exact_orbit_pixel(const Geometry& g, const View& v, int i, int j,
                                             const std::atomic<bool>* cancel) {
  const mpfr_prec_t b = kExactBits;
  Mpfr cr(b), ci(b), t(b), u(b), x(b), y(b), x2(b), y2(b), xy(b), sx(b), sy(b);
  // c = centre + (s/2) (2i + 1 - width, height - 2j - 1), s/2 = 2 / (zoom height), each exact or given up.
  // (s/2 only matters, and need only be exact, where an offset is not 0: the centre pixel of an odd size.)
  if (!exact_decimal(cr.v, g.re) || !exact_decimal(ci.v, g.im)) return std::nullopt;
  const long kx = 2L * i + 1 - v.width, ky = static_cast<long>(v.height) - 2L * j - 1;
  int r = 0;
  if (kx != 0 || ky != 0) {
    if (!exact_decimal(t.v, v.zoom)) return std::nullopt;
    r |= mpfr_mul_ui(t.v, t.v, static_cast<unsigned long>(v.height), MPFR_RNDN);
    r |= mpfr_ui_div(t.v, 2, t.v, MPFR_RNDN);
    r |= mpfr_mul_si(u.v, t.v, kx, MPFR_RNDN);
    r |= mpfr_add(cr.v, cr.v, u.v, MPFR_RNDN);
    r |= mpfr_mul_si(u.v, t.v, ky, MPFR_RNDN);
    r |= mpfr_add(ci.v, ci.v, u.v, MPFR_RNDN);
  }
  if (r != 0) return std::nullopt;
  const double cr_d = mpfr_get_d(cr.v, MPFR_RNDN), ci_d = mpfr_get_d(ci.v, MPFR_RNDN);
  const bool wide = wide_counts(v.max_iter);
  mpfr_set(x.v, cr.v, MPFR_RNDN);
  mpfr_set(y.v, ci.v, MPFR_RNDN);
  mpfr_set(sx.v, x.v, MPFR_RNDN);
  mpfr_set(sy.v, y.v, MPFR_RNDN);
  uint64_t next_save = 2;
  for (uint64_t n = 1; n < v.max_iter && n <= kExactSteps; ++n) {
    if ((n & 4095u) == 0 && cancel && cancel->load(std::memory_order_relaxed)) return std::nullopt;
    r = mpfr_sqr(x2.v, x.v, MPFR_RNDN);
    r |= mpfr_sqr(y2.v, y.v, MPFR_RNDN);
    r |= mpfr_add(t.v, x2.v, y2.v, MPFR_RNDN);
    if (r != 0) return std::nullopt;
    if (mpfr_cmp_ui(t.v, 4) > 0)
      return PixelResult{
          n, smooth_tail(n, mpfr_get_d(x.v, MPFR_RNDN), mpfr_get_d(y.v, MPFR_RNDN), cr_d, ci_d, wide)};
    r = mpfr_mul(xy.v, x.v, y.v, MPFR_RNDN);
    r |= mpfr_mul_2ui(xy.v, xy.v, 1, MPFR_RNDN);
    r |= mpfr_add(y.v, xy.v, ci.v, MPFR_RNDN);
    r |= mpfr_sub(x.v, x2.v, y2.v, MPFR_RNDN);
    r |= mpfr_add(x.v, x.v, cr.v, MPFR_RNDN);
    if (r != 0) return std::nullopt;
    // z_(n+1) equal to a saved exact z: the exact orbit cycles without escaping (Brent).
    if (mpfr_equal_p(x.v, sx.v) && mpfr_equal_p(y.v, sy.v))
      return PixelResult{v.max_iter, smooth_at_limit(v.max_iter)};
    if (n + 1 >= next_save) {
      mpfr_set(sx.v, x.v, MPFR_RNDN);
      mpfr_set(sy.v, y.v, MPFR_RNDN);
      next_save *= 2;
    }
  }
  if (v.max_iter <= kExactSteps) return PixelResult{v.max_iter, smooth_at_limit(v.max_iter)};
  return std::nullopt;
}

std::optional<Arith> wider_arith(Arith a, const Geometry& g) {
  const double pa = precision_bits(a);
  std::optional<Arith> cheapest, most;
  for (Arith b : all_ariths()) {
    const double pb = precision_bits(b);
    if (pb <= pa || !holds(b, g)) continue;
    if (pb >= 2.0 * pa && (!cheapest || arith_traits(b).rel_cost < arith_traits(*cheapest).rel_cost))
      cheapest = b;
    if (!most || pb > precision_bits(*most)) most = b;
  }
  return cheapest ? cheapest : most;
}

void recheck_direct(const Geometry& g, const View& v, const Tile& t, const RenderOptions& opt,
                    const FieldPtrs& fields, RenderResult* res) {
  const bool resident = opt.device_counts != nullptr;
  const std::size_t tw = static_cast<std::size_t>(t.width);
  const std::size_t pixels = tw * static_cast<std::size_t>(t.height);
  [[maybe_unused]] uint32_t* device_high = res->wide() ? opt.device_counts_high : nullptr;
  std::vector<std::size_t> flagged;
  if (resident) {
#if DEEPSCOPE_WITH_CUDA
    for (uint32_t k : device_zero_indices(opt.device_counts, device_high, pixels)) flagged.push_back(k);
#endif
  } else {
    for (std::size_t k = 0; k < pixels; ++k)
      if (res->count(k) == 0) flagged.push_back(k);
  }
  PerturbInfo& info = res->perturb;
  info.glitch_pixels = flagged.size();
  info.glitch_corrected = 0;
  info.glitch_unresolved = flagged.size();
  res->recheck.clear();
  if (flagged.empty()) return;
  if (opt.stage) opt.stage("undecided pixels");

  const bool want_fields = opt.fields != 0;
  std::vector<PixelResult> out(flagged.size(), PixelResult{0u, 0.0f});
  std::vector<FieldValues> out_fields(want_fields ? flagged.size() : 0);
  std::vector<std::size_t> left(flagged.size());
  for (std::size_t q = 0; q < left.size(); ++q) left[q] = q;
  ParallelOptions po;
  po.cancel = opt.cancel;
  po.threads = opt.cpu_threads;
  Arith a = res->arith;
  while (!left.empty()) {
    const std::optional<Arith> next = wider_arith(a, g);
    if (!next) break;
    a = *next;
    dispatch(a, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const MandelParams<T> p = make_params<T>(g, v, opt);
      parallel_for(
          left.size(), 1,
          [&](std::size_t b, std::size_t e) {
            for (std::size_t q = b; q < e; ++q) {
              const std::size_t k = flagged[left[q]];
              const int i = t.x0 + static_cast<int>(k % tw), j = t.y0 + static_cast<int>(k / tw);
              if (want_fields)
                out[left[q]] = field_pixel(p, i, j, &out_fields[left[q]]);
              else
                out[left[q]] = mandel_pixel(p, i, j);
            }
          },
          po);
    });
    if (opt.cancel && opt.cancel->load()) {
      res->cancelled = true;
      return;
    }
    std::vector<std::size_t> still;
    for (std::size_t q : left)
      if (out[q].count == 0) still.push_back(q);
    const std::size_t decided = left.size() - still.size();
    if (decided)
      res->recheck +=
          (res->recheck.empty() ? "" : ", ") + std::string(arith_name(a)) + " " + std::to_string(decided);
    left.swap(still);
  }
  // The last rung: orbits that no rounding touches (c = -2, c = 1, ...: |z|^2 = 4 exactly, which
  // no estimate calls) have their exact count.
  if (!left.empty()) {
    std::vector<std::size_t> still;
    std::size_t decided = 0;
    for (std::size_t q : left) {
      const std::size_t k = flagged[q];
      const std::optional<PixelResult> e = exact_orbit_pixel(g, v, t.x0 + static_cast<int>(k % tw),
                                                             t.y0 + static_cast<int>(k / tw), opt.cancel);
      if (!e) {
        still.push_back(q);
        continue;
      }
      out[q] = *e;
      if (want_fields)
        out_fields[q] = FieldValues{};  // no fields from this rung (zeros, as where unresolved)
      ++decided;
    }
    if (decided)
      res->recheck +=
          (res->recheck.empty() ? "" : ", ") + std::string("exact orbit ") + std::to_string(decided);
    left.swap(still);
  }
  info.glitch_corrected = flagged.size() - left.size();
  info.glitch_unresolved = left.size();

  if (resident) {
#if DEEPSCOPE_WITH_CUDA
    std::vector<uint32_t> idx;
    std::vector<uint64_t> c;
    std::vector<float> s;
    std::vector<float> f[5];
    for (std::size_t q = 0; q < flagged.size(); ++q) {
      idx.push_back(static_cast<uint32_t>(flagged[q]));
      c.push_back(out[q].count);
      s.push_back(out[q].smooth);
      if (want_fields) {
        const FieldValues& x = out_fields[q];
        f[0].push_back(x.dex);
        f[1].push_back(x.dey);
        f[2].push_back(x.phase);
        f[3].push_back(x.stripe);
        f[4].push_back(x.sqrt_smooth);
        fields.store(flagged[q], x);  // the fields kept in host memory (null where on the device)
      }
    }
    device_scatter(opt.device_counts, opt.device_smooth, device_high, idx, c, s);
    if (want_fields) {
      if ((opt.fields & kFieldDistance) && opt.device_dex) {
        device_scatter_floats(opt.device_dex, idx, f[0]);
        device_scatter_floats(opt.device_dey, idx, f[1]);
      }
      if ((opt.fields & kFieldPhase) && opt.device_phase) device_scatter_floats(opt.device_phase, idx, f[2]);
      if ((opt.fields & kFieldStripe) && opt.device_stripe)
        device_scatter_floats(opt.device_stripe, idx, f[3]);
      if ((opt.fields & kFieldSqrtSmooth) && opt.device_sqrt_smooth)
        device_scatter_floats(opt.device_sqrt_smooth, idx, f[4]);
    }
#endif
    return;
  }
  uint32_t* high = res->wide() ? res->counts_high.data() : nullptr;
  for (std::size_t q = 0; q < flagged.size(); ++q) {
    store_pixel(res->counts.data(), high, res->smooth.data(), flagged[q], out[q].count, out[q].smooth);
    if (want_fields) fields.store(flagged[q], out_fields[q]);
  }
}

}  // namespace ds::mandel::detail
