// The re-rendering of the pixels perturb::render's first pass flagged: the tiers against the same
// reference (cpu_tiers.cpp), then secondary references, blob by blob (docs/perturbation/errors.md, "Secondary references").
#include <algorithm>
#include <iterator>

#include "cpu_tiers.h"

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

// Secondary references (docs/perturbation/errors.md, "Secondary references"): the flagged pixels of the tile, as
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
