// Undecided direct pixels re-decided in wider formats (recheck.h; docs/mandelbrot.md, "Undecided
// pixels"): each rung runs mandel_pixel (or field_pixel) of the wider format on the CPU, on all cores.
#include "recheck.h"

#include <atomic>
#include <cmath>
#include <limits>

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

}  // namespace

std::optional<Arith> wider_arith(Arith a, const Geometry& g) {
  const double pa = precision_bits(a);
  std::optional<Arith> cheapest, most;
  for (Arith b : all_ariths()) {
    const double pb = precision_bits(b);
    if (pb <= pa || !holds(b, g)) continue;
    if (pb >= 2.0 * pa && (!cheapest || arith_traits(b).rel_cost < arith_traits(*cheapest).rel_cost)) cheapest = b;
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
    if (decided) res->recheck += (res->recheck.empty() ? "" : ", ") + std::string(arith_name(a)) + " " +
                                 std::to_string(decided);
    left.swap(still);
  }
  info.glitch_corrected = flagged.size() - left.size();
  info.glitch_unresolved = left.size();

  if (resident) {
#if DEEPSCOPE_WITH_CUDA
    std::vector<uint32_t> idx;
    std::vector<uint64_t> c;
    std::vector<float> s;
    std::vector<float> f[4];
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
      if ((opt.fields & kFieldStripe) && opt.device_stripe) device_scatter_floats(opt.device_stripe, idx, f[3]);
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
