// perturb::render: reference orbit (cached), BLA table, and the per-pixel perturbation on the CPU
// (all cores) or CUDA; the flagged pixels go to cpu_flagged.cpp (the tiers: cpu_tiers.cpp).
#include "cpu_detail.h"
#include "cpu_simd.h"

namespace ds::perturb {

using namespace cpu_detail;

namespace {

// scale: T = double only, kDeltaScaleLog2 for DeltaFormat::kF64Scaled (else 0).
template <class T>
void render_typed(const View& v, const Geometry& g, const Tile& t, const RenderOptions& opt,
                  const std::shared_ptr<const Reference>& ref_ptr, double progress_base, RenderResult* res,
                  int scale = 0) {
  const Reference& ref = *ref_ptr;
  FloatExp off_re, off_im;
  centre_offset(ref, g, &off_re, &off_im);
  const FloatExp hs = FloatExp::from_string(g.half_step);
  const FloatExp dcmax = view_dcmax(v, g, ref);

  // On the device, the wide orbit (wide_reference) is computed on a host thread from here, beside
  // the BLA table and the first pass, where the wide tiers may want it: on a wrapping orbit. The
  // host's cores wait for the device meanwhile; where no pixel reaches the wide tiers the orbit is
  // stopped when the render ends. At FractalShark's view 19 on the H200 the floatexp4 pass, orbit
  // included, fell from 2.42 to 1.08 s (docs/bench/hard-views.md).
  // A reference the pixels go round (periodic, or cut at the ball's period).
  const bool wraps = ref.wraps();
  std::unique_ptr<WidePrefetch> wide_prefetch;
  if (res->backend == Backend::kCuda && opt.refine && opt.wide_tiers && wraps)
    wide_prefetch = std::make_unique<WidePrefetch>(ref_ptr);
  const auto tb = Clock::now();
  if (opt.stage) opt.stage("BLA table");
  // A packed orbit's points go to the device a slice at a time (PointFill), never whole to the host.
  const bool device_points = res->backend == Backend::kCuda && ref.packed;
  const bool period_map = use_period_map(v, opt, ref);
  std::shared_ptr<const Prepared<T>> prep =
      prepared<T>(ref_ptr, dcmax, opt.bla, !device_points, scale, period_map, opt.cancel);
  res->perturb.bla_seconds = since(tb);
  res->perturb.bla_levels = prep->bla.levels;
  {
    const PeriodMap& pm = prep->bla.pm;
    res->perturb.period_map_degree = pm.degree;  // 0 unless asked (prepared's key)
    res->perturb.period_map_steps = pm.steps;
    res->perturb.period_map_radius = to_double(pm.radius[0]);
    res->perturb.period_map_relative_error = pm.degree ? to_double(pm.error[0] / pm.scale[0]) : 0.0;
    res->perturb.period_map_seconds = pm.seconds;
    // Why none, only for a reference the pixels go round (the others never have one).
    res->perturb.period_map_note = !wraps            ? ""
                                   : !opt.period_map ? "off"
                                   : !opt.bla        ? "no BLA"
                                   : !period_map     ? "the view's pixels x iterations would not pay for it"
                                                     : pm.why;
  }
  const auto params = [&] {
    return params_for(v, g, opt, ref, prep->host_points ? prep->zr.data() : nullptr,
                      prep->host_points ? prep->zi.data() : nullptr, prep->bla, off_re, off_im, hs,
                      /*check_underflow=*/sizeof(T) == sizeof(double), scale);
  };
  PerturbParams<T> p = params();
  if (opt.stage) opt.stage("pixels");

  std::function<void(double)> progress;
  if (opt.progress)
    progress = [&](double x) { opt.progress(progress_base + (1.0 - progress_base) * 0.97 * x); };
  uint32_t* counts = res->counts.data();
  float* smooth = res->smooth.data();
  uint32_t* counts_high = res->wide() ? res->counts_high.data() : nullptr;  // null when device-resident
  // The fields' host arrays (allocated by mandel::render; empty when not asked or device-resident).
  const FieldPtrs fields = host_field_ptrs(*res);
  const bool want_fields = opt.fields != 0;
  const auto t0 = Clock::now();
  bool on_gpu = res->backend == Backend::kCuda;
  if (on_gpu) {
#if DEEPSCOPE_WITH_CUDA
    RenderOptions o = opt;
    o.progress = progress;
    try {
      const PointFill<T> fill = [&ref, scale](uint64_t first, uint64_t n, T* zr, T* zi) {
        fill_points<T>(ref, first, n, zr, zi, scale);
      };
      res->kernel_seconds =
          detail::render_cuda<T>(p, prep->bla.entries.size(), prep->id, t, o, counts, smooth, counts_high,
                                 fields, &res->perturb.bla_skipped, &res->perturb.rebases,
                                 &res->perturb.interior_pixels, &res->cancelled, fill);
    } catch (const std::runtime_error& e) {
      // Out of GPU memory (the reference, the BLA table and the tile did not fit beside whatever
      // else holds the device): the CPU renders the same pixels with the same per-pixel code, and
      // the result says so. A device-resident result (the window's canvas) has no host arrays to
      // fall back to, and any other CUDA error stays an error.
      if (opt.device_counts || std::string(e.what()).find("cudaErrorMemoryAllocation") == std::string::npos) throw;
      res->note = std::string("the GPU ran out of memory (") + e.what() + "); rendered on the CPU instead";
      res->backend = Backend::kCpu;
      on_gpu = false;
      if (!prep->host_points) {  // the CPU reads the points from host arrays
        prep = prepared<T>(ref_ptr, dcmax, opt.bla, true, scale, period_map, opt.cancel);
        p = params();
      }
    }
#else
    throw BackendError("built without CUDA");
#endif
  }
  if (!on_gpu) {
    std::atomic<uint64_t> skipped{0}, rebases{0}, interior{0};
    ParallelOptions po;
    po.cancel = opt.cancel;
    po.progress = progress;
    po.threads = opt.cpu_threads;
    const std::size_t tw = static_cast<std::size_t>(t.width);
    // Binary64 deltas without fields: several pixels in lockstep where the CPU has the vectors
    // (cpu_simd.h; the same counts as the scalar loop).
    CpuSimd simd = CpuSimd::kScalar;
    if constexpr (std::is_same<T, double>::value)
      if (!want_fields) simd = simd_path(opt.cpu_simd);
    res->perturb.cpu_simd = simd;
    std::mutex stats_mu;
    LaneStats lane_stats;
    parallel_for(
        static_cast<std::size_t>(t.height), 1,
        [&](std::size_t r0, std::size_t r1) {
          uint64_t sk = 0, rb = 0, in = 0;
          const auto put = [&](std::size_t k, const PerturbPixel& px) {
            store_pixel(counts, counts_high, smooth, k, px.count, px.smooth);
            fields.store(k, px.fields);
            sk += px.skipped;
            rb += px.rebases;
            in += px.interior;
          };
          if constexpr (std::is_same<T, double>::value) {
            if (simd != CpuSimd::kScalar) {
              LaneStats ls;
              perturb_lanes(simd, p, t.x0, t.y0, tw, r0 * tw, r1 * tw, put, prep->bla.radii_nested, &ls);
              std::lock_guard<std::mutex> lock(stats_mu);
              lane_stats.passes += ls.passes;
              lane_stats.lane_steps += ls.lane_steps;
              lane_stats.scalar_steps += ls.scalar_steps;
            }
          }
          if (simd == CpuSimd::kScalar)
            for (std::size_t r = r0; r < r1; ++r)
              for (std::size_t c = 0; c < tw; ++c) {
                if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) return;
                put(r * tw + c, perturb_at(p, t.x0 + static_cast<int>(c), t.y0 + static_cast<int>(r),
                                           fields_mode(opt.fields)));
              }
          skipped += sk;
          rebases += rb;
          interior += in;
        },
        po);
    res->perturb.lane_passes = lane_stats.passes;
    res->perturb.lane_steps = lane_stats.lane_steps;
    res->perturb.lane_scalar_steps = lane_stats.scalar_steps;
    res->perturb.bla_skipped = skipped.load();
    res->perturb.rebases = rebases.load();
    res->perturb.interior_pixels = interior.load();
    res->kernel_seconds = since(t0);
  }
  if (opt.cancel && opt.cancel->load()) res->cancelled = true;
  if (res->cancelled) return;

  // Flagged pixels (count 0): direct MPFR evaluation, so no unverified value is shown. A
  // device-resident result (opt.device_counts) is searched on the device, and only the flagged
  // pixels travel: their indices down, their MPFR values back up.
  const bool resident = opt.device_counts != nullptr;
  std::vector<std::size_t> flagged;
  std::vector<uint64_t> fixed_counts;
  [[maybe_unused]] uint32_t* device_high = res->wide() ? opt.device_counts_high : nullptr;
  std::vector<float> fixed_smooth;
  std::vector<FieldValues> fixed_fields;
  if (resident) {
#if DEEPSCOPE_WITH_CUDA
    const std::size_t n = static_cast<std::size_t>(t.width) * static_cast<std::size_t>(t.height);
    for (uint32_t k : mandel::detail::device_zero_indices(opt.device_counts, device_high, n)) flagged.push_back(k);
#endif
    fixed_counts.resize(flagged.size());
    fixed_smooth.resize(flagged.size());
    if (want_fields) fixed_fields.resize(flagged.size());
  } else {
    for (std::size_t k = 0; k < res->counts.size(); ++k)
      if (res->count(k) == 0) flagged.push_back(k);
  }
  res->perturb.glitch_pixels = flagged.size();
  if (!flagged.empty()) {
    if (opt.stage) opt.stage("glitch correction");
    correct_flagged(v, g, t, opt, ref_ptr, flagged, resident ? fixed_counts.data() : nullptr,
                    resident ? fixed_smooth.data() : nullptr,
                    resident && want_fields ? fixed_fields.data() : nullptr, fields, res);
#if DEEPSCOPE_WITH_CUDA
    if (resident && !res->cancelled) {
      std::vector<uint32_t> idx(flagged.begin(), flagged.end());
      mandel::detail::device_scatter(opt.device_counts, opt.device_smooth, device_high, idx, fixed_counts,
                                     fixed_smooth);
      if (want_fields) {
        // To the fields' device arrays where given, else to the host arrays (fields).
        std::vector<float> f[5];
        for (std::size_t q = 0; q < fixed_fields.size(); ++q) {
          const FieldValues& x = fixed_fields[q];
          f[0].push_back(x.dex);
          f[1].push_back(x.dey);
          f[2].push_back(x.phase);
          f[3].push_back(x.stripe);
          f[4].push_back(x.sqrt_smooth);
          fields.store(flagged[q], x);
        }
        if ((opt.fields & kFieldDistance) && opt.device_dex) {
          mandel::detail::device_scatter_floats(opt.device_dex, idx, f[0]);
          mandel::detail::device_scatter_floats(opt.device_dey, idx, f[1]);
        }
        if ((opt.fields & kFieldPhase) && opt.device_phase)
          mandel::detail::device_scatter_floats(opt.device_phase, idx, f[2]);
        if ((opt.fields & kFieldStripe) && opt.device_stripe)
          mandel::detail::device_scatter_floats(opt.device_stripe, idx, f[3]);
        if ((opt.fields & kFieldSqrtSmooth) && opt.device_sqrt_smooth)
          mandel::detail::device_scatter_floats(opt.device_sqrt_smooth, idx, f[4]);
      }
    }
#endif
  }
  if (opt.progress && !res->cancelled) opt.progress(1.0);
}

}  // namespace

#if !DEEPSCOPE_WITH_CUDA
void release_device_tables() {}
#endif

void render(const View& v, const Geometry& g, const Tile& t, const RenderOptions& opt, RenderResult* res) {
  const DeltaFormat delta = opt.delta == DeltaFormat::kAuto ? auto_delta(g) : opt.delta;
  res->perturb.delta = delta;
  const auto t0 = Clock::now();
  bool reused = false;
  std::function<void(double)> ref_progress;
  if (opt.progress || opt.stage)
    ref_progress = [&](double x) {
      if (opt.stage) opt.stage(reference_stage_text(x, v.max_iter).c_str());
      if (opt.progress) opt.progress(0.3 * x);
    };
  if (opt.stage) opt.stage("reference orbit");
  std::shared_ptr<const Reference> ref =
      reference_for(g, v, opt.cancel, ref_progress, &reused, opt.reference_cache,
                    &res->perturb.reference_cache, opt.reference_path, opt.reference_memory,
                    opt.reference_at_nucleus);
  if (!ref) {
    res->cancelled = true;
    res->seconds = since(t0);
    return;
  }
  res->perturb.reference_seconds = reused ? 0.0 : ref->seconds;
  res->perturb.reference_reused = reused;
  res->perturb.reference_bits = ref->bits;
  res->perturb.reference_length = ref->length();
  res->perturb.reference_bytes = ref->point_bytes();
  res->perturb.reference_escaped = ref->escaped;
  res->perturb.reference_periodic = ref->periodic;
  res->perturb.reference_stop = ref->escaped ? "escaped" : ref->periodic ? "periodic" : ref->ball_period ? "ball period (wraps)" : "max_iter";
  res->perturb.reference_arith = reference_arith_name(*ref);
  res->perturb.reference_nucleus_pixels =
      ref->periodic ? to_double(ref->nucleus_distance / pixel_step(g)) : 0.0;
  const double base = reused ? 0.0 : 0.3;
  if (delta == DeltaFormat::kF64)
    render_typed<double>(v, g, t, opt, ref, base, res);
  else if (delta == DeltaFormat::kF64Scaled)
    render_typed<double>(v, g, t, opt, ref, base, res, kDeltaScaleLog2);
  else
    render_typed<FloatExp>(v, g, t, opt, ref, base, res);
  res->seconds = since(t0);
}

}  // namespace ds::perturb
