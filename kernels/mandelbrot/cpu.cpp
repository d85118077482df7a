// render(): validation, format and backend choice, memory check, and the CPU backend, which runs
// mandel_pixel for every format on all cores.
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "kernels/core/cpu_parallel.h"
#include "kernels/core/device.h"
#include "kernels/perturb/perturb.h"
#include "mandelbrot.cuh"
#include "mandelbrot.h"
#include "recheck.h"

namespace ds::mandel {

const char* limb_strategy_name(LimbStrategy s) { return s == LimbStrategy::kCooperative ? "coop" : "thread"; }

int limb_words(Arith a) {
  switch (a) {
    case Arith::kLimb4:
      return 4;
    case Arith::kLimb6:
      return 6;
    case Arith::kLimb8:
      return 8;
    case Arith::kLimb12:
      return 12;
    case Arith::kLimb16:
      return 16;
    case Arith::kLimb24:
      return 24;
    case Arith::kLimb32:
      return 32;
    default:
      return 0;
  }
}

Arith select_arith(const Geometry& g, const RenderOptions& opt, uint64_t max_iter) {
  if (!opt.arith) return choose_arith(g, opt.guard_bits + iteration_guard_bits(max_iter));
  if (opt.check_resolution) require_resolves(*opt.arith, g, opt.forced_guard_bits, opt.guard_bits);
  return *opt.arith;
}

void RenderResult::assign_fields(unsigned fields, std::size_t pixels) {
  if (fields & kFieldDistance) {
    dex.assign(pixels, 0.0f);
    dey.assign(pixels, 0.0f);
  }
  if (fields & kFieldPhase) phase.assign(pixels, 0.0f);
  if (fields & kFieldStripe) stripe.assign(pixels, 0.0f);
  if (fields & kFieldSqrtSmooth) sqrt_smooth.assign(pixels, 0.0f);
}

void RenderResult::clear_pixel_arrays() {
  for (std::vector<float>* v : {&smooth, &dex, &dey, &phase, &stripe, &sqrt_smooth}) v->clear();
  counts.clear();
  counts_high.clear();
}

uint64_t count_stripe_approximate(const std::vector<float>& stripe) {
  uint64_t n = 0;
  for (float x : stripe) n += stripe_approximate(x) ? 1 : 0;
  return n;
}

bool reference_too_large(uint64_t max_iter, std::string* why) {
  const uint64_t host = host_memory_bytes();
  if (host == 0) return false;
  // Past kPackFromPoints the orbit is kept compressed: about 1.5 to 2 bytes a point at real
  // locations (docs/bench/perturbation.md); kPackedBytesEstimate allows twice that. An orbit that
  // compresses worse is refused by the reference itself, early, with the figures (reference.cpp).
  const double per_point = max_iter > perturb::kPackFromPoints ? perturb::kPackedBytesEstimate
                                                                : static_cast<double>(perturb::kReferenceBytesPerPoint);
  const double need = static_cast<double>(max_iter) * per_point;
  if (need <= static_cast<double>(usable_memory_bytes(host))) return false;
  if (why) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "a perturbation reference of %llu iterations could need %.1f GiB, more than three quarters of "
                  "this machine's %.1f GiB",
                  static_cast<unsigned long long>(max_iter), need / 1073741824.0,
                  static_cast<double>(host) / 1073741824.0);
    *why = buf;
  }
  return true;
}

Method select_method(const Geometry& g, const RenderOptions& opt, uint64_t max_iter) {
  if (opt.method == Method::kPerturb) return Method::kPerturb;
  if (!g.square_pixels) {
    // The direct engines map pixels to c with square, unrotated pixels only: refuse rather than
    // draw a rotated or stretched view square.
    if (opt.method == Method::kDirect || opt.arith)
      throw ViewError(g.exp_map ? "an exponential map is rendered by perturbation only; use --arith auto or perturb"
                                : "this view rotates or stretches its pixels (KF Rotate/Ratio), which only perturbation "
                                  "renders; use --arith auto or perturb");
    return Method::kPerturb;
  }
  if (opt.method == Method::kDirect || opt.arith) return Method::kDirect;
  // Auto: direct only where a hardware format resolves the view; every software format is slower
  // than perturbation there (docs/perturbation.md, "When auto picks perturbation").
  try {
    const Arith a = choose_arith(g, opt.guard_bits + iteration_guard_bits(max_iter));
    if (arith_traits(a).rel_cost <= 1.0) return Method::kDirect;
    // A software format is slower than perturbation, but it needs no reference: where that could
    // not fit (billions of iterations), direct is the one that can finish.
    if (max_iter && reference_too_large(max_iter)) return Method::kDirect;
  } catch (const ViewError&) {
  }
  return Method::kPerturb;
}

std::string format_label(const RenderResult& r) {
  if (r.method != Method::kPerturb) return arith_name(r.arith);
  return r.perturb.delta == DeltaFormat::kFloatExp    ? "perturb/floatexp"
         : r.perturb.delta == DeltaFormat::kF64Scaled ? "perturb/f64-scaled"
                                                      : "perturb/f64";
}

MemoryEstimate estimate_memory(const Tile& t, Backend backend, uint64_t max_iter, unsigned fields) {
  const uint64_t pixels = static_cast<uint64_t>(t.width) * static_cast<uint64_t>(t.height);
  const uint64_t per_pixel = sizeof(uint32_t) + sizeof(float) + (wide_counts(max_iter) ? sizeof(uint32_t) : 0) +
                             ((fields & kFieldDistance) ? 2 * sizeof(float) : 0) +
                             ((fields & kFieldPhase) ? sizeof(float) : 0) +
                             ((fields & kFieldStripe) ? sizeof(float) : 0);
  MemoryEstimate m;
  m.host_bytes = pixels * per_pixel;
  if (backend == Backend::kCuda) m.device_bytes = pixels * per_pixel;
  return m;
}

namespace {

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

template <class T>
void render_cpu(const Geometry& g, const View& v, const Tile& t, const RenderOptions& opt, uint32_t* counts,
                float* smooth, uint32_t* counts_high, const FieldPtrs& fields) {
  const MandelParams<T> p = make_params<T>(g, v, opt);
  const std::atomic<bool>* cancel = opt.cancel;
  ParallelOptions po;
  po.cancel = cancel;
  po.progress = opt.progress;
  po.threads = opt.cpu_threads;
  const std::size_t tw = static_cast<std::size_t>(t.width);
  const std::size_t pixels = tw * static_cast<std::size_t>(t.height);
  // Chunks of whole rows, but for a short tile (a strip, a 1-row line of pixels with billions of
  // iterations each) chunks of a few pixels, so that every core gets some.
  const std::size_t chunk = t.height >= 64 ? tw : std::max<std::size_t>(1, pixels / 256);
  parallel_for(
      pixels, chunk,
      [&](std::size_t k0, std::size_t k1) {
        for (std::size_t k = k0; k < k1; ++k) {
          const std::size_t r = k / tw, c = k % tw;
          {
            if (cancel && cancel->load(std::memory_order_relaxed)) return;
            const int i = t.x0 + static_cast<int>(c), j = t.y0 + static_cast<int>(r);
            if (fields.any()) {
              FieldValues f;
              const PixelResult px = field_pixel(p, i, j, &f);
              store_pixel(counts, counts_high, smooth, r * tw + c, px.count, px.smooth);
              fields.store(r * tw + c, f);
            } else {
              const PixelResult px = mandel_pixel(p, i, j);
              store_pixel(counts, counts_high, smooth, r * tw + c, px.count, px.smooth);
            }
          }
        }
      },
      po);
}

}  // namespace

Tile render_tile(const View& v, const RenderOptions& opt, const Tile& tile) {
  const Tile t = clip_tile(v, tile);
  if (opt.row_begin == 0 && opt.row_end < 0) return t;
  const int end = opt.row_end < 0 ? v.height : opt.row_end;
  if (opt.row_begin < 0 || end > v.height || opt.row_begin >= end)
    throw ViewError("rows [" + std::to_string(opt.row_begin) + ", " + std::to_string(opt.row_end) +
                    ") are empty or leave the " + std::to_string(v.height) + "-row view");
  Tile r = t;
  r.y0 = std::max(t.y0, opt.row_begin);
  const int last = std::min(t.y0 + t.height, end);
  if (last <= r.y0)
    throw ViewError("rows [" + std::to_string(opt.row_begin) + ", " + std::to_string(end) +
                    ") do not meet the tile's rows [" + std::to_string(t.y0) + ", " +
                    std::to_string(t.y0 + t.height) + ")");
  r.height = last - r.y0;
  return r;
}

RenderResult render(const View& v, const RenderOptions& opt, const Tile& tile) {
  const Geometry g = geometry(v);
  const Tile t = render_tile(v, opt, tile);
  RenderResult res;
  res.method = select_method(g, opt, v.max_iter);
  res.error_bound = opt.error_bound;
  if (res.method == Method::kDirect) res.arith = select_arith(g, opt, v.max_iter);
  res.backend = select_backend(opt.backend, &res.note);
  if (res.method == Method::kDirect && !opt.arith && opt.method == Method::kAuto &&
      arith_traits(res.arith).rel_cost > 1.0) {
    std::string why;
    if (reference_too_large(v.max_iter, &why))
      res.note += std::string(res.note.empty() ? "" : "; ") + "auto rendered directly in " + arith_name(res.arith) +
                  ": " + why;
  }
  const bool limb = limb_words(res.arith) > 0;
  res.limb_strategy =
      res.backend == Backend::kCuda && limb ? opt.limb_strategy : LimbStrategy::kThreadPerPixel;

  res.max_iter = v.max_iter;
  const bool wide = res.wide();
  const bool resident = opt.device_counts != nullptr;
  if (resident && (res.backend != Backend::kCuda || !opt.device_smooth || (wide && !opt.device_counts_high)))
    throw BackendError(res.backend != Backend::kCuda
                           ? "device-resident output needs the CUDA backend, and this render runs on the " +
                                 std::string(backend_name(res.backend))
                       : !opt.device_smooth
                           ? "device-resident output needs both device_counts and device_smooth"
                           : "device-resident output of a view with max_iter >= 2^32 needs device_counts_high");
  MemoryEstimate need = estimate_memory(t, res.backend, v.max_iter, opt.fields);
  if (resident) need = MemoryEstimate{};  // the caller's arrays hold the result
  const uint64_t have = host_memory_bytes();
  if (have && need.host_bytes > have)
    throw BackendError("the " + std::to_string(t.width) + "x" + std::to_string(t.height) + " tile needs " +
                       gib(need.host_bytes) + " of memory; this machine has " + gib(have));
  if (res.backend == Backend::kCuda) {
    const uint64_t dev = device_memory_bytes(opt.cuda_device);
    if (dev && need.device_bytes > dev)
      throw BackendError("the " + std::to_string(t.width) + "x" + std::to_string(t.height) + " tile needs " +
                         gib(need.device_bytes) + " of GPU memory; device " +
                         std::to_string(opt.cuda_device) + " has " + gib(dev));
  }

  const std::size_t pixels = static_cast<std::size_t>(t.width) * static_cast<std::size_t>(t.height);
  res.width = t.width;
  res.height = t.height;
  if (!resident) {
    res.counts.assign(pixels, 0);
    res.smooth.assign(pixels, 0.0f);
    if (wide) res.counts_high.assign(pixels, 0);
  }
  uint32_t* high = wide && !resident ? res.counts_high.data() : nullptr;
  if (opt.fields & ~kAllFields) throw ViewError("unknown per-pixel field bits asked");
  if ((opt.fields & kFieldStripe) && (opt.stripe_density < 1 || opt.stripe_density > 16))
    throw ViewError("the stripe density must be a whole number from 1 to 16, not " +
                    std::to_string(opt.stripe_density));
  if ((opt.fields & kFieldStripe) && !(opt.stripe_memory > 0.0 && opt.stripe_memory < 1.0))
    throw ViewError("the stripe memory must lie strictly between 0 and 1");
  if ((opt.fields & kFieldSqrtSmooth) &&
      !(opt.sqrt_smooth_radius >= 2.0 && opt.sqrt_smooth_radius <= kMaxSqrtSmoothRadius))
    throw ViewError("the square-root smoothing's escape radius must lie in [2, 1e100], not " +
                    std::to_string(opt.sqrt_smooth_radius));
  if (resident && (opt.fields & kFieldDistance) && !opt.device_dex != !opt.device_dey)
    throw BackendError("device-resident distance estimates need both device_dex and device_dey (or neither)");
  if (res.method == Method::kDirect && (opt.fields & kFieldDistance) && !(g.log2_step > -900))
    throw ViewError("the distance estimate of a direct format needs a pixel spacing above 2^-900 (this view's is 2^" +
                    std::to_string(static_cast<long long>(g.log2_step)) + "): render it by perturbation");
  // The fields' host arrays: every asked field that has no device array (a device-resident render
  // may take its fields in host memory, as the window's canvas does).
  unsigned on_host = opt.fields;
  if (resident && opt.device_dex) on_host &= ~kFieldDistance;
  if (resident && opt.device_phase) on_host &= ~kFieldPhase;
  if (resident && opt.device_stripe) on_host &= ~kFieldStripe;
  if (resident && opt.device_sqrt_smooth) on_host &= ~kFieldSqrtSmooth;
  res.assign_fields(on_host, pixels);
  const FieldPtrs fields = host_field_ptrs(res);
  if (opt.fields & kFieldStripe) {
    res.stripe_density = opt.stripe_density;
    res.stripe_memory = opt.stripe_memory;
  }

  const auto t0 = std::chrono::steady_clock::now();
  if (res.method == Method::kDirect && opt.stage) opt.stage("pixels");
  if (res.method == Method::kPerturb) {
    perturb::render(v, g, t, opt, &res);
  } else if (res.backend == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    RenderOptions o = opt;
    o.limb_strategy = res.limb_strategy;
    res.kernel_seconds = detail::render_cuda(res.arith, g, v, t, o, res.counts.data(), res.smooth.data(), high,
                                             fields, &res.cancelled);
#else
    throw BackendError("built without CUDA");
#endif
  } else {
    dispatch(res.arith, [&](auto tag) {
      render_cpu<typename decltype(tag)::type>(g, v, t, opt, res.counts.data(), res.smooth.data(), high, fields);
    });
  }
  if (opt.cancel && opt.cancel->load()) res.cancelled = true;
  // Pixels the error estimate left undecided (count 0): wider formats decide them.
  if (res.method == Method::kDirect && opt.error_bound && !res.cancelled)
    detail::recheck_direct(g, v, t, opt, fields, &res);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (res.backend == Backend::kCpu && res.method == Method::kDirect) res.kernel_seconds = res.seconds;
  if (opt.cancel && opt.cancel->load()) res.cancelled = true;
  if (!res.cancelled) {
    if (resident) {
#if DEEPSCOPE_WITH_CUDA
      res.iterations =
          detail::device_iterations(opt.device_counts, wide ? opt.device_counts_high : nullptr, pixels);
#endif
    } else {
      for (std::size_t k = 0; k < pixels; ++k) {
        const uint64_t c = res.count(k);
        if (c) res.iterations += c - 1;  // count 0: an unresolved pixel
      }
    }
    res.stripe_approximate = count_stripe_approximate(res.stripe);
#if DEEPSCOPE_WITH_CUDA
    if (resident && opt.device_stripe && (opt.fields & kFieldStripe))
      res.stripe_approximate = detail::device_count_negative(opt.device_stripe, pixels);
#endif
  }
  return res;
}

}  // namespace ds::mandel
