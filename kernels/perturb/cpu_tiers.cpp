// The tiers that re-decide flagged pixels against the same centre (cpu_tiers.h): 106-bit deltas, the
// wide tiers on an orbit that wraps, and the interior proofs for what they leave.
#include "cpu_tiers.h"

#include "cpu_simd.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iterator>
#include <string>

namespace ds::perturb::cpu_detail {

namespace {

// One core's seconds a step of the 106-bit tiers (measured on the 2-core development machine:
// about 28 ns for the double word, 6 times that for floatexp2), for when a CUDA list launch hands
// its last pixels to the host (detail::ListTail).
template <class T>
constexpr double kHostStepSeconds = std::is_same<T, DwDelta>::value ? 3e-8 : FloatExpNTerms<T>::value > 0 ? 1e-6 : 1.8e-7;

// finish(q) for every q in [0, n) on the render's threads, one a chunk, until opt.cancel is raised:
// it returns the pixel (its count, smooth value and fields go to counts/smooth/fields at at(q)),
// and the iterations its BLA steps skipped are added to *skipped. False when cancelled.
template <class Finish, class At>
bool tier_pixels(const RenderOptions& opt, std::size_t n, Finish&& finish, At&& at, uint64_t* counts, float* smooth,
                 FieldValues* fields, uint64_t* skipped) {
  std::atomic<uint64_t> tier_skipped{0};
  ParallelOptions po;
  po.cancel = opt.cancel;
  po.threads = opt.cpu_threads;
  parallel_for(
      n, 1,
      [&](std::size_t a, std::size_t b) {
        for (std::size_t q = a; q < b; ++q) {
          if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) return;
          const PerturbPixel px = finish(q);
          const std::size_t k = at(q);
          counts[k] = px.count;
          smooth[k] = px.smooth;
          if (fields) fields[k] = px.fields;
          tier_skipped.fetch_add(px.skipped, std::memory_order_relaxed);
        }
      },
      po);
  *skipped += tier_skipped.load();
  return !(opt.cancel && opt.cancel->load());
}

// The double word's pixels without fields, n of them, in lockstep where the CPU has the vectors
// (cpu_simd.h, perturb_lanes_dw: the scalar loop's counts and smooth bits), but not with the period
// map: its steps run in pixel_step, and where they are most of a pixel's passes the lanes only cost
// (FractalShark's view 28 at 192x108 on the H200 host's 16 cores: its 2^-106 pass with the map
// 36.0 s in AVX-512 lanes, 29.7 s in AVX2's, 26.5 s scalar; docs/bench/hard-views.md).
// begin(q, s) makes pixel q's state; its count and smooth value go to counts/smooth at at(q), the
// iterations its BLA steps skipped to *skipped. A chunk a thread, of at most 256 pixels (a lane that empties takes the
// chunk's next pixel; smaller chunks would leave lanes idle, and chunks of 16 left one of the 2
// cores idle at 12 pixels). False when cancelled.
template <class At>
bool dw_lanes(const PerturbParams<DwDelta>& p, const RenderOptions& opt, CpuSimd simd, std::size_t n,
              const DwLaneBegin& begin, At&& at, uint64_t* counts, float* smooth, uint64_t* skipped) {
  std::atomic<uint64_t> tier_skipped{0};
  ParallelOptions po;
  po.cancel = opt.cancel;
  po.threads = opt.cpu_threads;
  const std::size_t threads = resolve_threads(opt.cpu_threads);
  const std::size_t chunk = std::clamp<std::size_t>((n + threads - 1) / threads, 1, 256);
  parallel_for(
      n, chunk,
      [&](std::size_t a, std::size_t b) {
        uint64_t sk = 0;
        perturb_lanes_dw(
            simd, p, b - a, [&](std::size_t q, PixelState<DwDelta, kNoFields>& s) { return begin(a + q, s); },
            [&](std::size_t q, const PerturbPixel& px) {
              const std::size_t k = at(a + q);
              counts[k] = px.count;
              smooth[k] = px.smooth;
              sk += px.skipped;
            });
        tier_skipped.fetch_add(sk, std::memory_order_relaxed);
      },
      po);
  *skipped += tier_skipped.load();
  return !(opt.cancel && opt.cancel->load());
}

// The path the double word's pixels take on the host: its lanes' width (dw_lanes), or kScalar where
// T is another format, the pixels carry fields, the period map runs, or the CPU has no vectors.
template <class T>
CpuSimd dw_lane_path(const PerturbParams<T>& p, const RenderOptions& opt, bool fields) {
  if (!std::is_same<T, DwDelta>::value || fields || p.pm_degree > 0) return CpuSimd::kScalar;
  return simd_path(opt.cpu_simd);
}

// The pixels a CUDA list launch handed back (their list positions q and states), stepped to the
// end on the host's cores: results into counts/smooth/fields at q. False when cancelled.
template <class T, int kFields>
bool finish_on_host(const PerturbParams<T>& p, const RenderOptions& opt, const std::vector<uint32_t>& q,
                    std::vector<PixelState<T, kFields>>* states, uint64_t* counts, float* smooth,
                    FieldValues* fields, uint64_t* skipped) {
  if constexpr (std::is_same<T, DwDelta>::value && kFields == kNoFields) {
    const CpuSimd simd = dw_lane_path(p, opt, false);
    if (simd != CpuSimd::kScalar)
      return dw_lanes(
          p, opt, simd, q.size(),
          [&](std::size_t e, PixelState<DwDelta, kNoFields>& s) {
            s = (*states)[e];
            return false;
          },
          [&](std::size_t e) { return static_cast<std::size_t>(q[e]); }, counts, smooth, skipped);
  }
  return tier_pixels(
      opt, q.size(),
      [&](std::size_t e) {
        PixelState<T, kFields>& s = (*states)[e];
        while (!pixel_step(p, s)) {
        }
        return s.out;
      },
      [&](std::size_t e) { return static_cast<std::size_t>(q[e]); }, counts, smooth, fields, skipped);
}

}  // namespace

// The tiers that re-decide flagged pixels (docs/perturbation/errors.md, "Undecided pixels"): the pixels
// again against the same reference with 106-bit deltas (T = DwDelta, the double word, where the
// view's deltas stay within binary64's range; then T = FloatExp2 for what it leaves), the
// reference's points, the centre offset and the half step to 106 bits, and a BLA table of the
// tier's own built at 106 bits (eps = 2^-106: a table made for binary64 would truncate at
// binary64's level; the double word's first pass takes its coarse table, eps 2^-70, and `fine`
// its 2^-106 one, Prepared). A pixel flagged in the first pass has an escape test that 53-bit
// deltas could not decide; here the error estimate shrinks by 2^-50 or so (2^-17 from what the
// coarse table drops), and nearly all are decided. Returns the pixels still flagged (ascending;
// all of them where T = DwDelta cannot serve the view: its spacing or a reference point below the
// double word's floor, or, with `fine`, where it has no coarse table; *served stays false then);
// results go through `put`; *at_floor, when given, gets those of them that the double word flagged
// at its floor (kFlaggedAtFloor), the only ones floatexp2 can decide after it.
template <class T>
std::vector<std::size_t> refine_with(const View& v, const Geometry& g, const Tile& t,
                                     const RenderOptions& opt,
                                     const std::shared_ptr<const Reference>& ref_ptr, Backend backend,
                                     const Offset106& o, const std::vector<std::size_t>& flagged,
                                     const PutPixel& put, bool* cancelled, double* bla_seconds,
                                     uint64_t* skipped, bool fine, bool* served,
                                     std::vector<std::size_t>* at_floor, TierSplit* split, bool without_map,
                                     bool* used_map, uint32_t dear_proofs) {
  const Reference& ref = *ref_ptr;
  T off_re, off_im, hs;
  if constexpr (std::is_same<T, DwDelta>::value) {
    // The double word serves views whose half step sits well above its floor (a pixel's dc, and
    // so its deltas, are at least a few half steps away from 0 but for the reference's own
    // pixel, which the kernel's floor check sends on), and references it holds exactly (checked
    // once a reference by prepared<DwDelta>).
    bool ok = o.half_step.hi != 0.0 && o.half_step.e >= -880;
    off_re = dw_from(o.re, &ok);
    off_im = dw_from(o.im, &ok);
    hs = dw_from(o.half_step, &ok);
    if (!ok) return flagged;
  } else if constexpr (FloatExpNTerms<T>::value > 0) {
    centre_offset(ref, g, &off_re, &off_im, &hs);  // to 53 N bits (ref is the wide orbit)
    if (FloatExpNTerms<T>::value != 4) backend = Backend::kCpu;  // floatexp4 alone has a device list kernel
  } else {
    off_re = o.re;
    off_im = o.im;
    hs = o.half_step;
  }
  // Its points and table are kept like the first pass's (prepared), so a view's tiles and bands
  // build them once.
  const auto tb = Clock::now();
  const std::shared_ptr<const Prepared<T>> tier =
      prepared<T>(ref_ptr, view_dcmax(v, g, ref), opt.bla, true, 0, use_period_map(v, opt, ref), opt.cancel);
  if (!tier->in_range || (fine && !tier->coarse)) return flagged;
  if (served) *served = true;
  const BlaTable<T>& table = fine ? tier->fine_bla() : tier->bla;
  *bla_seconds += since(tb);
  TierSplit unused;
  TierSplit& sp = split ? *split : unused;
  sp.table_seconds += since(tb);
  const auto tp = Clock::now();
  PerturbParams<T> p = params_for(v, g, opt, ref, tier->zr.data(), tier->zi.data(), table, FloatExp(0.0),
                                  FloatExp(0.0), FloatExp(0.0),
                                  /*check_underflow=*/std::is_same<T, DwDelta>::value);
  p.off_re = off_re;
  p.off_im = off_im;
  p.half_step = hs;
  if (without_map) p.pm_degree = 0;
  if (used_map) *used_map = p.pm_degree > 0;
  p.dear_proofs = dear_proofs;
  const std::size_t tw = static_cast<std::size_t>(t.width);
  std::vector<uint64_t> counts(flagged.size());
  std::vector<float> smooth(flagged.size());
  std::vector<FieldValues> fields(opt.fields ? flagged.size() : 0);
  if (backend == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    // Device list kernels: the 106-bit types and floatexp4 (floatexp8 runs on the host: compile time).
    if constexpr (FloatExpNTerms<T>::value == 0 || FloatExpNTerms<T>::value == 4) {
      std::vector<uint32_t> idx(flagged.begin(), flagged.end());
      detail::ListTail<T> tail;
      tail.cpu_threads = opt.host_tail ? resolve_threads(opt.cpu_threads) : 0u;
      tail.cpu_step_seconds = kHostStepSeconds<T>;
      detail::render_list_cuda(p, idx, t, opt, counts.data(), smooth.data(), opt.fields ? fields.data() : nullptr,
                               skipped, cancelled, &tail);
      sp.device_seconds += since(tp);
      if (!*cancelled && !tail.q.empty()) {
        const auto th = Clock::now();
        FieldValues* f = opt.fields ? fields.data() : nullptr;
        const bool done = tail.q.size() == tail.plain.size()
                              ? finish_on_host(p, opt, tail.q, &tail.plain, counts.data(), smooth.data(), f, skipped)
                              : finish_on_host(p, opt, tail.q, &tail.stripe, counts.data(), smooth.data(), f, skipped);
        if (!done) *cancelled = true;
        sp.host_pixels += tail.q.size();
        sp.cpu_seconds += since(th);
      }
    }
#else
    throw BackendError("built without CUDA");
#endif
  } else if (const CpuSimd simd = dw_lane_path(p, opt, opt.fields); simd != CpuSimd::kScalar) {
    if constexpr (std::is_same<T, DwDelta>::value) {
      const bool done = dw_lanes(
          p, opt, simd, flagged.size(),
          [&](std::size_t q, PixelState<DwDelta, kNoFields>& s) {
            const std::size_t k = flagged[q];
            return pixel_begin(p, t.x0 + static_cast<int>(k % tw), t.y0 + static_cast<int>(k / tw), s);
          },
          [](std::size_t q) { return q; }, counts.data(), smooth.data(), skipped);
      if (!done) *cancelled = true;
    }
    sp.cpu_seconds += since(tp);
  } else {
    const bool done = tier_pixels(
        opt, flagged.size(),
        [&](std::size_t q) {
          const std::size_t k = flagged[q];
          return perturb_at(p, t.x0 + static_cast<int>(k % tw), t.y0 + static_cast<int>(k / tw),
                            fields_mode(opt.fields));
        },
        [](std::size_t q) { return q; }, counts.data(), smooth.data(), opt.fields ? fields.data() : nullptr,
        skipped);
    if (!done) *cancelled = true;
    sp.cpu_seconds += since(tp);
  }
  std::vector<std::size_t> again;
  if (*cancelled) return again;
  for (std::size_t q = 0; q < flagged.size(); ++q) {
    if (counts[q] == 0) {
      again.push_back(flagged[q]);
      if (at_floor && smooth[q] == kFlaggedAtFloor) at_floor->push_back(flagged[q]);
    } else
      put(flagged[q], counts[q], smooth[q], opt.fields ? fields[q] : FieldValues{});
  }
  return again;
}

// The types the tiers and the secondary references instantiate (cpu_tiers.h).
#define DEEPSCOPE_REFINE_WITH(T)                                                                                 \
  template std::vector<std::size_t> refine_with<T>(                                                              \
      const View&, const Geometry&, const Tile&, const RenderOptions&, const std::shared_ptr<const Reference>&,  \
      Backend, const Offset106&, const std::vector<std::size_t>&, const PutPixel&, bool*, double*, uint64_t*,    \
      bool, bool*, std::vector<std::size_t>*, TierSplit*, bool, bool*, uint32_t);
DEEPSCOPE_REFINE_WITH(DwDelta)
DEEPSCOPE_REFINE_WITH(FloatExp2)
DEEPSCOPE_REFINE_WITH(FloatExpN<4>)
DEEPSCOPE_REFINE_WITH(FloatExpN<8>)
#undef DEEPSCOPE_REFINE_WITH

namespace {

// A pass's split into PerturbInfo (pass k).
void add_split(PerturbInfo* info, int k, const TierSplit& sp) {
  info->refine_pass_host[k] += sp.host_pixels;
  info->refine_pass_table_seconds[k] += sp.table_seconds;
  info->refine_pass_device_seconds[k] += sp.device_seconds;
  info->refine_pass_cpu_seconds[k] += sp.cpu_seconds;
}

// The wide tiers (floatexp4 and then floatexp8 deltas: 212 and 424 bits) for what the 106-bit
// passes left, on an orbit that wraps (periodic, or cut at the ball's period): there a pixel goes
// round the period hundreds of times, and its delta's error relative to the delta grows by the
// orbit's own factor each turn (about e^0.27 a turn at FractalShark's view 13: 0.39 bits), past 106
// bits after some 240 turns; 212 bits carry it about 270 turns further, 424 bits some 800. Against
// the wide orbit (wide_reference: the same C, kWideExtraBits more bits, 424-bit points), whose error
// as a shift of c is 2^-448 of the first orbit's: with the first orbit's points and shift the
// estimate would stop at theirs. Elsewhere what 106 bits leave is a glitch (secondary references),
// not a lack of bits. Returns the pixels still flagged.
std::vector<std::size_t> wide_tiers(const View& v, const Geometry& g, const Tile& t, const RenderOptions& opt,
                                    const std::shared_ptr<const Reference>& ref, Backend backend,
                                    std::vector<std::size_t> left, const PutPixel& put, bool* cancelled,
                                    PerturbInfo* info) {
  if (left.empty() || *cancelled || !opt.refine || !opt.wide_tiers || !ref->wraps())
    return left;
  auto t0 = Clock::now();
  std::string why;
  double waited = -1;
  const std::shared_ptr<const Reference> wide = wide_reference(ref, opt.cancel, &why, &waited);
  info->wide_prefetched = info->wide_prefetched || waited >= 0;
  info->wide_orbit_seconds += since(t0);
  if (!wide) {
    if (opt.cancel && opt.cancel->load()) *cancelled = true;
    else info->wide_note = why;
    return left;
  }
  // Pass k over `in` (ascending): what it leaves.
  const auto pass = [&](int k, auto delta, std::vector<std::size_t> in) {
    using T = decltype(delta);
    if (in.empty() || *cancelled) return in;
    double bla = 0;
    const std::size_t n = in.size();
    TierSplit sp;
    std::vector<std::size_t> out = refine_with<T>(v, g, t, opt, wide, backend, Offset106{}, in, put, cancelled, &bla,
                                                  &info->refine_skipped, false, nullptr, nullptr, &sp);
    // floatexp4's first table is a coarse one (kBlaEpsilonWideCoarse, Prepared); what it leaves
    // goes through floatexp4's own 2^-212 table, as the double words' 2^-70 and 2^-106 passes.
    if (kTwoBlaTables<T> && opt.bla && !*cancelled) {
      info->wide_coarse_pixels += n;
      info->wide_coarse_decided += n - out.size();
      if (!out.empty())
        out = refine_with<T>(v, g, t, opt, wide, backend, Offset106{}, out, put, cancelled, &bla,
                             &info->refine_skipped, true, nullptr, nullptr, &sp);
    }
    add_split(info, k, sp);
    info->bla_seconds += bla;
    info->refine_pass_pixels[k] += n;
    info->refine_pass_seconds[k] += since(t0);  // pass 3's with the wide orbit's time
    if (!*cancelled) info->refine_pass_decided[k] += n - out.size();
    t0 = Clock::now();
    return out;
  };
  // Many pixels: floatexp4 takes an evenly spread sample of them first, and where it decides under
  // an eighth of it the wide tiers stop there, saying so (the rest stay flagged, marked in the
  // image). At FractalShark's view 14 (1e6516) they decided 72 of 939 at 192x108 for 7.9 s on the
  // H200 and 448 of 5,863 at 480x270 for 16.2 s (docs/bench/hard-views.md): at 1920x1080 minutes
  // for a few per cent. A deterministic rule, not a timing; view 13, where they decide 18 %, and
  // every view with fewer than opt.wide_sample_from (512) such pixels run them all.
  constexpr std::size_t kWideSample = 64, kWideSampleShare = 8;
  if (left.size() >= std::max<std::size_t>(opt.wide_sample_from, 1)) {
    // kWideSample of 512 or more; of fewer (tests), an eighth, at least one.
    const std::size_t want = std::min(kWideSample, std::max<std::size_t>(1, left.size() / kWideSampleShare));
    const std::size_t stride = left.size() / want;
    std::vector<std::size_t> sample, rest;
    for (std::size_t i = 0; i < left.size(); ++i)
      (i % stride == 0 && sample.size() < want ? sample : rest).push_back(left[i]);
    std::vector<std::size_t> kept = pass(3, FloatExpN<4>(0.0), sample);
    const std::size_t decided = sample.size() - kept.size();
    if (*cancelled) return left;
    if (decided * kWideSampleShare < sample.size()) {
      char b[240];
      std::snprintf(b, sizeof b,
                    "floatexp4 decided %zu of an evenly spread sample of %zu (under 1/%zu), so the other %zu were not "
                    "tried",
                    decided, sample.size(), kWideSampleShare, rest.size());
      info->wide_note = b;
      rest.insert(rest.end(), kept.begin(), kept.end());
      std::sort(rest.begin(), rest.end());
      return rest;
    }
    left = pass(3, FloatExpN<4>(0.0), rest);
    left.insert(left.end(), kept.begin(), kept.end());
    std::sort(left.begin(), left.end());
  } else {
    left = pass(3, FloatExpN<4>(0.0), left);
  }
  return pass(4, FloatExpN<8>(0.0), left);
}

// The interior proofs for what every tier left (pass 5). The interior test's exact windows
// run only where they cost less than finishing the orbit (perturb.cuh: `proof < rest`), and where
// BLA skips nearly all of it they never do; a pixel inside a minibrot but near its edge then runs
// to the limit while its error estimate grows, until an approach to |z| = 2 is undecided. Here
// each pixel still undecided gets up to kDearProofs proofs at that cost (PerturbParams::dear_proofs),
// with floatexp2 deltas against the same orbit. At FractalShark's view 13 (48x27, 2 cores) the tiers
// left 15 of 131 flagged pixels, on the inner edge of the minibrot's region: with one proof a pixel
// floatexp2 decided 9 of them, with two 13 (three: the same 13; 7.0 s); at view 14 (16x9) 4 of 5.
// floatexp4 against the wide orbit after it decided 1 of view 13's last 2 in 8.7 s and 0 of view
// 14's 1 in 3.6 s: left out. A proof for every flagged pixel in the tiers' own passes instead
// decided all 131 but took 9x the tiers' time.
// Only on an orbit that wraps (a minibrot's view: elsewhere what the tiers leave is a glitch, for
// secondary references), and only where the pass's bound on its plain steps, kDearProofs proofs of
// at most 2 kMaxComposedWindows + 1 windows of the wrap's period a pixel, costs at most
// kProofBudget core-seconds at kHostStepSeconds a step. A deterministic rule, not a timing. At view
// 13 48x27 the bound is 12 core-seconds (14 measured: 7.0 s on 2 cores); at 96x54 (84 pixels left)
// 69, over it; at 1920x1080 (33,145 pixels left) 2.7e4, and on the
// H200 (f90055b, docs/bench/hard-views.md) the pass had not finished view 13 at 480x270 in 100 s:
// the list kernel hands such long pixels to the host. There it does not run, and says so. (The
// bound is a tile's: a render in several tiles may spend it once a tile.)
constexpr uint32_t kDearProofs = 2;
constexpr double kProofBudget = 30.0;

std::vector<std::size_t> interior_proofs(const View& v, const Geometry& g, const Tile& t, const RenderOptions& opt,
                                         const std::shared_ptr<const Reference>& ref, Backend backend,
                                         const Offset106& o, std::vector<std::size_t> left, const PutPixel& put,
                                         bool* cancelled, PerturbInfo* info) {
  if (left.empty() || *cancelled || !opt.refine || !opt.interior || !ref->wraps())
    return left;
  const uint64_t period = ref->ball_period != 0 ? ref->ball_period : ref->length() - 1;
  const double steps = static_cast<double>(left.size()) * kDearProofs * (2.0 * kMaxComposedWindows + 1.0) *
                       static_cast<double>(period);
  if (steps * kHostStepSeconds<FloatExp2> > kProofBudget) {
    char b[240];
    std::snprintf(b, sizeof b,
                  "%zu pixels at period %llu: up to %.2g plain steps in floatexp2, about %.2g core-seconds, over "
                  "the budget of %.0f",
                  left.size(), static_cast<unsigned long long>(period), steps, steps * kHostStepSeconds<FloatExp2>,
                  kProofBudget);
    info->proof_note = b;
    return left;
  }
  constexpr int k = 5;  // PerturbInfo's pass
  const auto t0 = Clock::now();
  bool served = false;
  const std::size_t in = left.size();
  TierSplit sp;
  left = refine_with<FloatExp2>(v, g, t, opt, ref, backend, o, left, put, cancelled, &info->bla_seconds,
                                &info->refine_skipped, false, &served, nullptr, &sp, false, nullptr, kDearProofs);
  add_split(info, k, sp);
  if (!served) return left;
  info->refine_pass_pixels[k] += in;
  info->refine_pass_seconds[k] += since(t0);
  if (!*cancelled) info->refine_pass_decided[k] += in - left.size();
  return left;
}

}  // namespace

// The double word first (its coarse table, then its fine one for what that leaves), floatexp2 for
// what it leaves at its floor (or for all, where it cannot serve). Counts the pixels each pass took
// and decided, and its wall time, in *info (glitch_refined_dw, refine_pass_*).
// Floatexp2 carries the fine pass's 106 bits and table with a wider exponent: a pixel the fine pass
// left because its error estimate reached the escape test is left by floatexp2 too (0 of 37, 85,
// 1 and 10,327 such pixels at FractalShark's views 5 and 10 and KF's 5e227 on the H200, 6.0, 12.8
// and 1.5 s of passes that decided nothing; docs/bench/hard-views.md), so only the pixels the
// double word flagged at its floor go there.
std::vector<std::size_t> refine_flagged(const View& v, const Geometry& g, const Tile& t,
                                        const RenderOptions& opt, const std::shared_ptr<const Reference>& ref,
                                        Backend backend, const std::vector<std::size_t>& flagged,
                                        const PutPixel& put, bool* cancelled, PerturbInfo* info) {
  Offset106 o;
  centre_offset(*ref, g, &o.re, &o.im, &o.half_step);
  // Pass k (0: double words, coarse table; 1: at 2^-106, the fine table or, without BLA, none;
  // 2: floatexp2) over `in`; *served: the pass could serve the view (else it is not counted).
  const auto pass = [&](int k, const std::vector<std::size_t>& in, bool* served,
                        std::vector<std::size_t>* at_floor) {
    if (in.empty() || *cancelled) return in;
    const auto t0 = Clock::now();
    double* bla = &info->bla_seconds;
    uint64_t* skipped = &info->refine_skipped;
    bool used_map = false;
    TierSplit sp;
    std::vector<std::size_t> left =
        k == 2 ? refine_with<FloatExp2>(v, g, t, opt, ref, backend, o, in, put, cancelled, bla, skipped, false,
                                        served, nullptr, &sp)
               : refine_with<DwDelta>(v, g, t, opt, ref, backend, o, in, put, cancelled, bla, skipped,
                                      k == 1 && opt.bla, served, at_floor, &sp, false, &used_map);
    // The fine table with the map's 2^-90 domain decides most of what it takes in a fraction of the
    // time (FractalShark's view 25 at 64x36 on 2 cores: 27 of 30 pixels in 2.1 s, where the table
    // alone took 8.7 s for 28); the few that need more than 2^-90 of the map go through the same
    // table without it, so the pass decides what it decided before.
    if (k == 1 && used_map && !left.empty() && !*cancelled) {
      if (at_floor) at_floor->clear();
      left = refine_with<DwDelta>(v, g, t, opt, ref, backend, o, left, put, cancelled, bla, skipped, true, served,
                                  at_floor, &sp, true);
    }
    if (!*served) return left;
    add_split(info, k, sp);
    info->refine_pass_pixels[k] += in.size();
    info->refine_pass_seconds[k] += since(t0);
    if (!*cancelled) info->refine_pass_decided[k] += in.size() - left.size();
    return left;
  };
  std::vector<std::size_t> left = flagged;
  bool dw_served = false;
  std::vector<std::size_t> at_floor;
  if (opt.refine_dw) {
    bool coarse_served = false;
    if (opt.bla) left = pass(0, left, &coarse_served, nullptr);  // without BLA: one pass, at 106 bits
    left = pass(1, left, &dw_served, &at_floor);
    if (*cancelled) return {};
    info->glitch_refined_dw += flagged.size() - left.size();
  }
  bool fe2_served = false;
  if (!dw_served)
    return interior_proofs(v, g, t, opt, ref, backend, o,
                           wide_tiers(v, g, t, opt, ref, backend, pass(2, left, &fe2_served, nullptr), put, cancelled,
                                      info),
                           put, cancelled, info);
  // The fine pass left `left`; floatexp2 takes its floor pixels (a subset, ascending).
  const std::vector<std::size_t> still = pass(2, at_floor, &fe2_served, nullptr);
  if (*cancelled) return {};
  std::vector<std::size_t> out;
  out.reserve(left.size());
  std::set_difference(left.begin(), left.end(), at_floor.begin(), at_floor.end(), std::back_inserter(out));
  std::vector<std::size_t> merged;
  merged.reserve(out.size() + still.size());
  std::merge(out.begin(), out.end(), still.begin(), still.end(), std::back_inserter(merged));
  return interior_proofs(v, g, t, opt, ref, backend, o,
                         wide_tiers(v, g, t, opt, ref, backend, merged, put, cancelled, info), put, cancelled, info);
}

}  // namespace ds::perturb::cpu_detail
