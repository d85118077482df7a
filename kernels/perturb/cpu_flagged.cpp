// The re-rendering of the pixels perturb::render's first pass flagged: the 106-bit tiers (double
// words, then floatexp2) against the same reference, then secondary references, blob by blob
// (docs/perturbation.md, "Glitches").
#include <algorithm>
#include <iterator>

#include "cpu_detail.h"

namespace ds::perturb::cpu_detail {

namespace {

// Blobs a round on a wrapping reference (correct_flagged).
constexpr std::size_t kWrapBlobRound = 16;

// On a wrapping reference, a secondary orbit runs uncut (to its pixel's escape or max_iter, as on
// any other reference) where that is cheap: max_iter * (bits / 64)^1.6 MPFR cost units (one unit
// about 20 ns on one core: KF's 5e227, 1.2e6 iterations at 891 bits, is 8.1e7 units, and its
// ball-period orbit of 567,136 points took 0.72 s) at most kUncutOrbitBudget, about 10 s an orbit.
// FractalShark's views 13 and 14 (7e11 and 2.4e13 units) and 25 (4e9) stay cut at the period.
// A deterministic rule, not a timing, so every machine decides the same pixels.
constexpr double kUncutOrbitBudget = 5e8;

bool uncut_orbit_affordable(const View& v, const Geometry& g) {
  return static_cast<double>(v.max_iter) * std::pow(reference_bits(g) / 64.0, 1.6) <= kUncutOrbitBudget;
}

// Secondary references (docs/perturbation.md, "Glitches"): the flagged pixels of the tile, as
// 4-connected blobs, each re-rendered against a reference computed at the pixel nearest its
// blob's centroid, with floatexp deltas (no underflow) and that reference's own BLA table. A blob
// beyond the last reference allowed, or one whose pixels flag again, stays unresolved: its pixels
// keep count 0 and glitch_unresolved says how many, so no caller can take the image as right.
// RenderOptions::max_secondary_references bounds the references.

std::vector<std::vector<std::size_t>> blobs_of(const Tile& t, const std::vector<std::size_t>& flagged) {
  const std::size_t w = static_cast<std::size_t>(t.width), h = static_cast<std::size_t>(t.height);
  std::vector<int32_t> slot(w * h, -1);  // index into flagged, or -1
  for (std::size_t q = 0; q < flagged.size(); ++q) slot[flagged[q]] = static_cast<int32_t>(q);
  std::vector<std::vector<std::size_t>> blobs;
  std::vector<std::size_t> stack;
  for (std::size_t q = 0; q < flagged.size(); ++q) {
    if (slot[flagged[q]] < 0) continue;
    blobs.emplace_back();
    stack.assign(1, flagged[q]);
    slot[flagged[q]] = -1;
    while (!stack.empty()) {
      const std::size_t k = stack.back();
      stack.pop_back();
      blobs.back().push_back(k);
      const std::size_t x = k % w, y = k / w;
      const std::size_t nb[4] = {x > 0 ? k - 1 : k, x + 1 < w ? k + 1 : k, y > 0 ? k - w : k,
                                 y + 1 < h ? k + w : k};
      for (std::size_t n : nb)
        if (slot[n] >= 0) {
          slot[n] = -1;
          stack.push_back(n);
        }
    }
  }
  return blobs;
}

// The centre's offset from the reference and the half step, to 106 bits (both tiers start from it).
struct Offset106 {
  FloatExp2 re, im, half_step;
};

template <class T>
std::vector<std::size_t> refine_with(const View& v, const Geometry& g, const Tile& t,
                                     const RenderOptions& opt,
                                     const std::shared_ptr<const Reference>& ref_ptr, Backend backend,
                                     const Offset106& o, const std::vector<std::size_t>& flagged,
                                     const PutPixel& put, bool* cancelled, double* bla_seconds,
                                     uint64_t* skipped, bool fine = false, bool* served = nullptr,
                                     std::vector<std::size_t>* at_floor = nullptr, uint64_t* host_pixels = nullptr,
                                     bool without_map = false, bool* used_map = nullptr);

// One secondary reference at tile pixel `pick` and the pixels of `blob` rendered against it, with
// floatexp deltas and its own BLA table. Returns the pixels that flag again; *made: a reference
// was computed (false when cancelled).
// wrap: the main reference's ball period where it wraps there (Reference::ball_period), else 0.
// Then the secondary orbit is cut at the same period, Z'_0 .. Z'_p, and the blob's pixels wrap on
// it as on the main one: the ball method bounds the whole view's orbits near 0 at step p, pick's
// included, so the rebase there keeps what tells the pixels apart, as at the main reference's
// wrap. Uncut, it ran to the pixel's escape (1.8e8 steps a pixel at FractalShark's view 14, at
// 21,777 bits: hours).
std::vector<std::size_t> render_blob(const View& v, const Geometry& g, const Tile& t,
                                     const RenderOptions& opt, const std::vector<std::size_t>& blob,
                                     std::size_t pick, uint64_t wrap, const PutPixel& put, bool* made,
                                     uint64_t* points) {
  const std::size_t tw = static_cast<std::size_t>(t.width);
  const int bits = reference_bits(g);
  const FloatExp hs = FloatExp::from_string(g.half_step);
  std::string re, im;
  pixel_c(g, v, t.x0 + static_cast<int>(pick % tw), t.y0 + static_cast<int>(pick / tw), bits + 64, &re, &im);
  // A lone pixel's reference is its own orbit: certified, its count is the pixel's exact count.
  std::shared_ptr<const Reference> ref = compute_reference(
      re, im, bits, wrap != 0 ? std::min(wrap, v.max_iter) : v.max_iter, pixel_step(g), opt.cancel, nullptr,
      blob.size() == 1, /*threads=*/1);  // blobs already run one per core
  *made = ref != nullptr;
  if (!ref) return {};
  *points = ref->length();
  // Read point by point below (and by the kernel through zr.data()): a packed orbit is unpacked
  // here, for this blob only (the main reference's arrays are built by `prepared`).
  ref = unpacked(ref);
  // (A cut orbit that did not escape says nothing of the pixel's count: it is perturbed below.)
  if (blob.size() == 1 && !ref->periodic && ref->escape_certified && (ref->escaped || wrap == 0)) {
    // A reference at the pixel itself (to 2^-64 of a pixel) is the pixel's own MPFR orbit, its
    // escape tests all decided by the orbit's error bound: its count is where that orbit escaped,
    // or max_iter. (A periodic stop only says a nucleus lies
    // within 2^-24 of a pixel, not that the pixel is inside: that one is perturbed as usual.)
    const uint64_t n = ref->length() - 1;
    if (ref->escaped) {
      const double zr = to_double(ref->zr[n]), zi = to_double(ref->zi[n]);
      const double cr = to_double(ref->zr[1]), ci = to_double(ref->zi[1]);
      FieldValues f;
      if (opt.fields) {  // J along the pixel's own orbit (the reference): J_1 = s, J <- 2 Z J + s
        const FloatExp s = mul_pow2(hs, 1);
        FloatExp jr = s, ji(0.0);
        const StripeSpec sp = stripe_spec(opt);
        StripeAcc stripe;
        for (uint64_t k = 1; k <= n && sp.density; ++k) {  // z_1 .. z_n, as perturb_pixel folds them
          double ur, ui;
          direction_parts(ref->zr[k], ref->zi[k], &ur, &ui);
          stripe.add(sp, ur, ui, 1);
        }
        for (uint64_t k = 1; k < n; ++k) {
          const FloatExp t = mul_pow2(ref->zr[k] * jr - ref->zi[k] * ji, 1) + s;
          ji = mul_pow2(ref->zr[k] * ji + ref->zi[k] * jr, 1);
          jr = t;
        }
        double inv[4];
        const int pi = t.x0 + static_cast<int>(pick % tw), pj = t.y0 + static_cast<int>(pick / tw);
        if (g.exp_map)
          exp_map_axes_inverse(g.pixel_map, pi, pj, v.width, v.height, inv);
        else
          image_axes_inverse(g.pixel_map, inv);
        f = finish_fields(zr, zi, jr, ji, s, cr, ci, inv, sp, stripe, opt.sqrt_smooth_radius);
      }
      put(pick, n, smooth_tail(n, zr, zi, cr, ci, wide_counts(v.max_iter)), f);
    } else {
      put(pick, v.max_iter, smooth_at_limit(v.max_iter), FieldValues{});
    }
    return {};
  }
  FloatExp off_re, off_im;
  centre_offset(*ref, g, &off_re, &off_im);
  // |dc| over the blob: at most the distance to the farthest member plus a pixel, via the map.
  double reach = 0;
  for (std::size_t k : blob) {
    const double dx = static_cast<double>(k % tw) - static_cast<double>(pick % tw);
    const double dy = static_cast<double>(k / tw) - static_cast<double>(pick / tw);
    reach = std::max(reach, std::sqrt(dx * dx + dy * dy));
  }
  const FloatExp dcmax = quantize_dcmax(hs * (2.0 * (reach + 1.0) * g.map_norm * g.max_pixel_scale) * 1.01);
  const BlaTable<FloatExp> bla = opt.bla ? build_bla<FloatExp>(*ref, dcmax) : BlaTable<FloatExp>{};
  const PerturbParams<FloatExp> p = params_for(v, g, opt, *ref, ref->zr.data(), ref->zi.data(), bla, off_re,
                                               off_im, hs, /*check_underflow=*/false);
  std::vector<std::size_t> again;
  for (std::size_t k : blob) {
    if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) break;
    const PerturbPixel px = perturb_at(p, t.x0 + static_cast<int>(k % tw), t.y0 + static_cast<int>(k / tw),
                                       fields_mode(opt.fields));
    put(k, px.count, px.smooth, px.fields);
    if (px.count == 0) again.push_back(k);
  }
  if (!again.empty() && wrap != 0 && opt.refine && !(opt.cancel && opt.cancel->load())) {
    // On a cut orbit the pixels' own MPFR orbit stops at the period, and what it leaves undecided
    // in floatexp (about 1,500 wraps a pixel at view 14) gets 106-bit deltas against the same
    // orbit before the blob gives up. One thread: the blobs already run one per core.
    RenderOptions one = opt;
    one.cpu_threads = 1;
    Offset106 o;
    centre_offset(*ref, g, &o.re, &o.im, &o.half_step);
    bool cancelled = false;
    double bla_seconds = 0;
    uint64_t skipped = 0;
    again = refine_with<FloatExp2>(v, g, t, one, ref, Backend::kCpu, o, again, put, &cancelled, &bla_seconds,
                                   &skipped);
  }
  return again;
}

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

// The pixels a CUDA list launch handed back (their list positions q and states), stepped to the
// end on the host's cores: results into counts/smooth/fields at q. False when cancelled.
template <class T, int kFields>
bool finish_on_host(const PerturbParams<T>& p, const RenderOptions& opt, const std::vector<uint32_t>& q,
                    std::vector<PixelState<T, kFields>>* states, uint64_t* counts, float* smooth,
                    FieldValues* fields, uint64_t* skipped) {
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

// The tiers that re-decide flagged pixels (docs/perturbation.md, "Undecided pixels"): the pixels
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
                                     std::vector<std::size_t>* at_floor, uint64_t* host_pixels, bool without_map,
                                     bool* used_map) {
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
  PerturbParams<T> p = params_for(v, g, opt, ref, tier->zr.data(), tier->zi.data(), table, FloatExp(0.0),
                                  FloatExp(0.0), FloatExp(0.0),
                                  /*check_underflow=*/std::is_same<T, DwDelta>::value);
  p.off_re = off_re;
  p.off_im = off_im;
  p.half_step = hs;
  if (without_map) p.pm_degree = 0;
  if (used_map) *used_map = p.pm_degree > 0;
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
      if (!*cancelled && !tail.q.empty()) {
        FieldValues* f = opt.fields ? fields.data() : nullptr;
        const bool done = tail.q.size() == tail.plain.size()
                              ? finish_on_host(p, opt, tail.q, &tail.plain, counts.data(), smooth.data(), f, skipped)
                              : finish_on_host(p, opt, tail.q, &tail.stripe, counts.data(), smooth.data(), f, skipped);
        if (!done) *cancelled = true;
        if (host_pixels) *host_pixels += tail.q.size();
      }
    }
#else
    throw BackendError("built without CUDA");
#endif
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
  if (left.empty() || *cancelled || !opt.refine || !opt.wide_tiers || !(ref->periodic || ref->ball_period != 0))
    return left;
  auto t0 = Clock::now();
  std::string why;
  const std::shared_ptr<const Reference> wide = wide_reference(ref, opt.cancel, &why);
  if (!wide) {
    if (opt.cancel && opt.cancel->load()) *cancelled = true;
    else info->wide_note = why;
    return left;
  }
  const auto pass = [&](int k, auto delta) {
    using T = decltype(delta);
    if (left.empty() || *cancelled) return;
    double bla = 0;
    const std::size_t in = left.size();
    left = refine_with<T>(v, g, t, opt, wide, backend, Offset106{}, left, put, cancelled, &bla,
                          &info->refine_skipped, false, nullptr, nullptr, &info->refine_pass_host[k]);
    info->bla_seconds += bla;
    info->refine_pass_pixels[k] += in;
    info->refine_pass_seconds[k] += since(t0);  // pass 3's with the wide orbit's time
    if (!*cancelled) info->refine_pass_decided[k] += in - left.size();
    t0 = Clock::now();
  };
  pass(3, FloatExpN<4>(0.0));
  pass(4, FloatExpN<8>(0.0));
  return left;
}

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
    std::vector<std::size_t> left =
        k == 2 ? refine_with<FloatExp2>(v, g, t, opt, ref, backend, o, in, put, cancelled, bla, skipped, false,
                                        served, nullptr, &info->refine_pass_host[k])
               : refine_with<DwDelta>(v, g, t, opt, ref, backend, o, in, put, cancelled, bla, skipped,
                                      k == 1 && opt.bla, served, at_floor, &info->refine_pass_host[k], false,
                                      &used_map);
    // The fine table with the map's 2^-90 domain decides most of what it takes in a fraction of the
    // time (FractalShark's view 25 at 64x36 on 2 cores: 27 of 30 pixels in 2.1 s, where the table
    // alone took 8.7 s for 28); the few that need more than 2^-90 of the map go through the same
    // table without it, so the pass decides what it decided before.
    if (k == 1 && used_map && !left.empty() && !*cancelled) {
      if (at_floor) at_floor->clear();
      left = refine_with<DwDelta>(v, g, t, opt, ref, backend, o, left, put, cancelled, bla, skipped, true, served,
                                  at_floor, &info->refine_pass_host[k], true);
    }
    if (!*served) return left;
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
    return wide_tiers(v, g, t, opt, ref, backend, pass(2, left, &fe2_served, nullptr), put, cancelled, info);
  // The fine pass left `left`; floatexp2 takes its floor pixels (a subset, ascending).
  const std::vector<std::size_t> still = pass(2, at_floor, &fe2_served, nullptr);
  if (*cancelled) return {};
  std::vector<std::size_t> out;
  out.reserve(left.size());
  std::set_difference(left.begin(), left.end(), at_floor.begin(), at_floor.end(), std::back_inserter(out));
  std::vector<std::size_t> merged;
  merged.reserve(out.size() + still.size());
  std::merge(out.begin(), out.end(), still.begin(), still.end(), std::back_inserter(merged));
  return wide_tiers(v, g, t, opt, ref, backend, merged, put, cancelled, info);
}

}  // namespace

// Re-renders the flagged pixels (tile indices, ascending). Results go to out_counts/out_smooth[q]
// for the q-th flagged pixel when given (device-resident renders), else into res's arrays. First
// the 106-bit tier against the same reference (refine_flagged); then, in passes: the pixels still
// flagged form new blobs with new references, until none is left, the
// references run out, or a blob's own reference pixel flags again (then the blob is unresolved:
// a reference at the pixel itself is as exact as a perturbation render gets).
void correct_flagged(const View& v, const Geometry& g, const Tile& t, const RenderOptions& opt,
                     const std::shared_ptr<const Reference>& ref, const std::vector<std::size_t>& flagged,
                     uint64_t* out_counts, float* out_smooth, FieldValues* out_fields,
                     const FieldPtrs& res_fields, RenderResult* res) {
  std::vector<std::size_t> position(flagged.empty() ? 0 : flagged.back() + 1);
  for (std::size_t q = 0; q < flagged.size(); ++q) position[flagged[q]] = q;
  const PutPixel put = [&](std::size_t k, uint64_t c, float sm, const FieldValues& f) {
    if (out_counts) {
      out_counts[position[k]] = c;
      out_smooth[position[k]] = sm;
      if (out_fields) out_fields[position[k]] = f;
    } else {
      store_pixel(res->counts.data(), res->wide() ? res->counts_high.data() : nullptr, res->smooth.data(), k,
                  c, sm);
      res_fields.store(k, f);
    }
  };
  const std::size_t tw = static_cast<std::size_t>(t.width);
  const auto t0 = Clock::now();
  std::vector<std::size_t> pending =
      opt.refine ? refine_flagged(v, g, t, opt, ref, res->backend, flagged, put, &res->cancelled, &res->perturb)
                 : flagged;
  res->perturb.refine_seconds += since(t0);
  if (res->cancelled) return;
  res->perturb.glitch_refined = flagged.size() - pending.size();
  const auto t1 = Clock::now();
  struct Timer {  // secondary_seconds on every way out of the passes below
    RenderResult* res;
    Clock::time_point t1;
    ~Timer() { res->perturb.secondary_seconds += since(t1); }
  } timer{res, t1};
  uint64_t unresolved = 0;
  std::atomic<int> references{0};
  std::atomic<uint64_t> secondary_points{0};
  // On a wrapping reference whose uncut orbits are too dear, what the 106-bit tier left gets no
  // secondary reference: each would be an MPFR orbit of one period at the view's precision (8 to
  // 20 s at FractalShark's views 13 and 14 on the H200), and after a wrap a pixel's delta restarts
  // from its own z, so its own orbit cut at the period decides what 106 bits did not only by chance:
  // at 1920x1080 on the H200 (3a3074a) one round of 16 decided 2 pixels at view 14 (20.0 s of the
  // render's 33.9) and 3 at view 13 (7.1 s of 14.9). They stay unresolved (unresolved_unreferenced,
  // said in the summary; the render exits 1 and the PNG marks them). Without the tier (refine off,
  // to measure) the rounds below still place cut references.
  // Pixels left with count 0 (unresolved), and those left without a reference among them.
  const auto leave = [&](const std::vector<std::size_t>& ks, bool unreferenced) {
    for (std::size_t k : ks) put(k, 0u, 0.0f, FieldValues{});
    unresolved += ks.size();
    if (unreferenced) res->perturb.unresolved_unreferenced += ks.size();
  };
  const uint64_t blob_wrap = ref->ball_period != 0 && !uncut_orbit_affordable(v, g) ? ref->ball_period : 0;
  if (blob_wrap != 0 && opt.refine) {
    leave(pending, true);
    pending.clear();
  }
  while (!pending.empty()) {
    const std::vector<std::vector<std::size_t>> blobs = blobs_of(t, pending);
    const int room = std::max(0, opt.max_secondary_references - references.load());
    const std::size_t served = std::min(blobs.size(), static_cast<std::size_t>(room));
    for (std::size_t b = served; b < blobs.size(); ++b) leave(blobs[b], false);
    std::vector<std::vector<std::size_t>> again(served);
    std::atomic<uint64_t> stuck{0};
    ParallelOptions po;
    po.cancel = opt.cancel;
    po.threads = opt.cpu_threads;
    // (Reached on such a reference only with the 106-bit tier off.) On a reference that wraps at
    // its ball period, every pixel's delta restarts from its own z at each wrap, whatever reference
    // it rode before: a pixel that the 106-bit tier left undecided there is usually undecided on
    // its own orbit too (it flags in a later period, where no
    // reference's first p points help), and each such reference is a long MPFR orbit (4 s at view
    // 14's 21,778 bits). So the blobs go in rounds of kWrapBlobRound (a constant, not the core count,
    // so the same pixels are decided on every machine), and once a round decides less than half its
    // pixels (at view 14 at 1920x1080 two rounds cost 20 s of 29 and left 3,272 pixels) the rest
    // are left unresolved without references (PerturbInfo::unresolved_unreferenced).
    // (Where an uncut orbit is cheap, the secondaries run uncut and the rounds do not apply.)
    const bool wrapping = blob_wrap != 0;
    const std::size_t round = wrapping ? kWrapBlobRound : std::max<std::size_t>(1, served);
    for (std::size_t r0 = 0; r0 < served; r0 += round) {
      const std::size_t r1 = std::min(served, r0 + round);
      const uint64_t stuck_before = stuck.load();
      parallel_for(
          r1 - r0, 1,
          [&](std::size_t q0, std::size_t q1) {
            for (std::size_t b = r0 + q0; b < r0 + q1; ++b) {
              const std::vector<std::size_t>& blob = blobs[b];
              // The member nearest the blob's centroid (a blob may be non-convex: the centroid
              // itself may lie outside it, where a reference helps no more than the first one).
              double sx = 0, sy = 0;
              for (std::size_t k : blob) {
                sx += static_cast<double>(k % tw);
                sy += static_cast<double>(k / tw);
              }
              sx /= static_cast<double>(blob.size());
              sy /= static_cast<double>(blob.size());
              std::size_t pick = blob.front();
              double best = INFINITY;
              for (std::size_t k : blob) {
                const double dx = static_cast<double>(k % tw) - sx, dy = static_cast<double>(k / tw) - sy;
                if (dx * dx + dy * dy < best) {
                  best = dx * dx + dy * dy;
                  pick = k;
                }
              }
              bool made = false;
              uint64_t points = 0;
              std::vector<std::size_t> left =
                  render_blob(v, g, t, opt, blob, pick, blob_wrap, put, &made, &points);
              if (!made) return;
              ++references;
              secondary_points += points;
              if (std::find(left.begin(), left.end(), pick) != left.end()) {
                stuck += left.size();  // even the pixel's own reference cannot decide it
                left.clear();
              }
              again[b] = std::move(left);
            }
          },
          po);
      if (opt.cancel && opt.cancel->load()) {
        res->cancelled = true;
        return;
      }
      std::size_t decided = 0, round_pixels = 0;
      for (std::size_t b = r0; b < r1; ++b) {
        decided += blobs[b].size() - again[b].size();
        round_pixels += blobs[b].size();
      }
      decided -= stuck.load() - stuck_before;
      if (wrapping && 2 * decided < round_pixels && r1 < served) {
        for (std::size_t b = r1; b < served; ++b) leave(blobs[b], true);
        break;
      }
    }
    unresolved += stuck.load();
    std::vector<std::size_t> next;
    for (const auto& l : again) next.insert(next.end(), l.begin(), l.end());
    std::sort(next.begin(), next.end());
    pending = std::move(next);
  }
  res->perturb.glitch_corrected = flagged.size() - unresolved;
  res->perturb.glitch_unresolved = unresolved;
  res->perturb.secondary_references = references.load();
  res->perturb.secondary_points = secondary_points.load();
}

}  // namespace ds::perturb::cpu_detail
