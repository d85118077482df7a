// perturb::render: reference orbit (cached), BLA table, the per-pixel perturbation on the CPU
// (all cores) or CUDA, and the re-rendering of flagged pixels from secondary references.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>

#include "kernels/core/backend.h"
#include "kernels/core/cpu_parallel.h"
#include "orbit_codec.h"
#include "perturb.cuh"
#include "perturb.h"

namespace ds::perturb {

namespace detail {
#if DEEPSCOPE_WITH_CUDA
// perturb.cu: runs perturb_pixel over the tile on the GPU (p's pointers are host arrays of
// p.ref_len points and bla_count entries, uploaded unless tables_id names the tables already on the
// device; with p.zr and p.zi null the points come from `fill` instead, a slice at a time, straight
// to the device). Returns kernel seconds.
template <class T>
double render_cuda(const PerturbParams<T>& p, std::size_t bla_count, uint64_t tables_id, const Tile& t,
                   const RenderOptions& opt, uint32_t* counts, float* smooth, uint32_t* counts_high,
                   const FieldPtrs& fields, uint64_t* skipped, uint64_t* rebases, uint64_t* interior,
                   bool* cancelled, const PointFill<T>& fill);
// perturb.cu: perturb_pixel with floatexp2 deltas for the listed tile pixels (indices into the
// tile, row-major), results in list order. p's points are host arrays of p.ref_len points. fields:
// null, or one FieldValues a pixel (RenderOptions::fields asked). *skipped: the iterations BLA skipped.
void render_list_cuda(const PerturbParams<FloatExp2>& p, const std::vector<uint32_t>& pixels, const Tile& t,
                      const RenderOptions& opt, uint64_t* counts, float* smooth, FieldValues* fields,
                      uint64_t* skipped, bool* cancelled);
#endif
}  // namespace detail

namespace {

// perturb_pixel with the fields RenderOptions::fields asks (fields_mode), chosen at run time.
template <class T>
PerturbPixel perturb_at(const PerturbParams<T>& p, int i, int j, FieldsMode fields) {
  switch (fields) {
    case kStripeFields:
      return perturb_pixel<T, kStripeFields>(p, i, j);
    case kDerivFields:
      return perturb_pixel<T, kDerivFields>(p, i, j);
    default:
      return perturb_pixel<T, kNoFields>(p, i, j);
  }
}

// Where re-rendered pixels go: tile index k, count, stored smooth value, fields.
using PutPixel = std::function<void(std::size_t, uint64_t, float, const FieldValues&)>;

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The reference in the delta type and its BLA table, kept for the next render of the same
// reference (the window renders a view as a coarse pass and bands: one table serves them all).
// Ids of prepared tables, one sequence for every delta type: the device cache is keyed by the id
// alone, so a double table and a floatexp table must never share one.
std::atomic<uint64_t> g_next_table_id{1};

template <class T>
struct Prepared {
  std::shared_ptr<const Reference> ref;
  uint64_t id = 0;  // unique per table (the CUDA backend keeps the last one on the device)
  bool with_bla = false;
  bool host_points = true;  // zr, zi filled (false: a CUDA render fills the device's arrays itself)
  int scale = 0;            // T = double: the points and radii times 2^scale (DeltaFormat::kF64Scaled)
  std::vector<T> zr, zi;
  BlaTable<T> bla;
};

// The least power of 4 >= x (x > 0; FloatExp keeps |m| in [0.5, 1), so x < 2^e).
FloatExp quantize_dcmax(FloatExp x) {
  if (!(x.m > 0)) return x;
  return FloatExp::make(1.0, static_cast<int64_t>(x.e) + (x.e & 1));
}

// The largest |dc| of the view's pixels against ref: |offset| + s/2 * |(w, h)|, rounded up
// generously (x 1.01).
FloatExp view_dcmax(const View& v, const Geometry& g, const Reference& ref) {
  FloatExp off_re, off_im;
  centre_offset(ref, g, &off_re, &off_im);
  const FloatExp hs = FloatExp::from_string(g.half_step);
  const double diag =
      std::sqrt(static_cast<double>(v.width) * v.width + static_cast<double>(v.height) * v.height) *
      g.map_norm;
  return (sqrt(sqr(off_re) + sqr(off_im)) + hs * diag) * 1.01;
}

// The 106-bit tier's BLA table takes 120 bytes an entry (about 60 a reference point at level 2 up),
// built only while flagged pixels wait; above this its lowest levels are left out.
constexpr std::size_t kMaxTierBlaBytes = std::size_t{1} << 31;
// The main (53-bit) tables: at most 4 GiB in the builder's floatexp entries (80 bytes each, 40 a
// point at level 2), on the host and on the device.
constexpr std::size_t kMaxBlaBytes = std::size_t{1} << 32;

// Points [first, first + n) of ref in the delta type T (106 bits for T = FloatExp2; times 2^scale
// for scaled binary64), on all cores, a packed orbit's chunk (kOrbitChunk points) at a time.
template <class T>
void fill_points(const Reference& ref, uint64_t first, uint64_t n, T* zr, T* zi, int scale = 0) {
  parallel_for(static_cast<std::size_t>(n), static_cast<std::size_t>(kOrbitChunk),
               [&](std::size_t a, std::size_t b) {
                 for (std::size_t i = a; i < b; ++i) {
                   const uint64_t k = first + i;
                   if constexpr (std::is_same<T, FloatExp2>::value) {
                     zr[i] = ref.re106(k);
                     zi[i] = ref.im106(k);
                   } else {
                     zr[i] = from_fe<T>(mul_pow2(ref.re53(k), scale));
                     zi[i] = from_fe<T>(mul_pow2(ref.im53(k), scale));
                   }
                 }
               });
}

template <class T>
std::shared_ptr<const Prepared<T>> prepared(const std::shared_ptr<const Reference>& ref, FloatExp dcmax,
                                            bool with_bla, bool host_points = true, int scale = 0) {
  static std::mutex mu;
  static std::shared_ptr<const Prepared<T>> last;
  // A table built for a larger dcmax is valid (its radii are smaller): the table is built for dcmax
  // rounded up to a power of 4, so a view's table depends on its own dcmax alone, never on which
  // render came before (frames of a sequence rendered in any order, on any worker, resumed or
  // not, come out bit for bit the same), and views within a factor of 4 share one.
  dcmax = quantize_dcmax(dcmax);
  // The 106-bit tier's (T = FloatExp2): its points to 106 bits, and its BLA table (eps 2^-106,
  // bla.h) from the lowest level at which it stays within kMaxTierBlaBytes (level 2 up to about
  // 35 M points; above, the pixels step singly over the first levels' spans and skip from there).
  constexpr bool kTier = std::is_same<T, FloatExp2>::value;
  const uint64_t len = ref->length();
  // The main tables are bounded the same way (kMaxBlaBytes, counted in the builder's floatexp
  // entries): level 2 up to about 107 M points, then higher first levels.
  const int first_level =
      kTier ? bla_first_level_within(len, sizeof(BlaEntry<T>), kMaxTierBlaBytes)
            : bla_first_level_within(len, std::max(sizeof(BlaEntry<T>), sizeof(BlaEntry<FloatExp>)),
                                     kMaxBlaBytes);
  with_bla = with_bla && first_level <= kMaxBlaLevels;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (last && last->ref == ref && last->with_bla == with_bla && last->scale == scale &&
        (last->host_points || !host_points) &&
        (!with_bla || (last->bla.dcmax.e == dcmax.e && last->bla.dcmax.m == dcmax.m)))
      return last;
  }
  auto p = std::make_shared<Prepared<T>>();
  p->ref = ref;
  p->id = g_next_table_id++;
  p->with_bla = with_bla;
  p->host_points = host_points;
  p->scale = scale;
  if (host_points) {
    check_host_point_arrays(
        len, 2 * sizeof(T), ref->point_bytes(), host_memory_bytes(),
        kTier ? "the 106-bit tier's points (for the pixels the first pass could not decide)"
              : "the render's points",
        kTier ? "Render with --no-refine (those pixels are then left undecided and marked), or ask fewer "
                "iterations (--iter)"
              : "Render on a GPU with the memory (--backend cuda keeps them on the device, a slice of the "
                "compressed orbit at a time), or ask fewer iterations (--iter)");
    p->zr.resize(len);
    p->zi.resize(len);
    fill_points<T>(*ref, 0, len, p->zr.data(), p->zi.data(), scale);
  }
  if (with_bla) p->bla = build_bla<T>(*ref, dcmax, first_level, scale);
  std::lock_guard<std::mutex> lock(mu);
  last = p;
  return p;
}

// The kernel's parameters for the view against `ref` (its points zr, zi in the delta type T and
// its BLA table), the view centre's offset from it, and the half step.
template <class T>
PerturbParams<T> params_for(const View& v, const Geometry& g, const RenderOptions& opt, const Reference& ref,
                            const T* zr, const T* zi, const BlaTable<T>& bla, FloatExp off_re,
                            FloatExp off_im, FloatExp hs, bool check_underflow, int scale = 0) {
  PerturbParams<T> p{};
  p.zr = zr;
  p.zi = zi;
  p.ref_len = ref.length();
  p.bla = bla.entries.data();
  for (int l = 0; l <= kMaxBlaLevels; ++l) p.level_offset[l] = bla.level_offset[l];
  p.bla_levels = bla.levels;
  p.off_re = from_fe<T>(mul_pow2(off_re, scale));
  p.off_im = from_fe<T>(mul_pow2(off_im, scale));
  p.half_step = from_fe<T>(mul_pow2(hs, scale));
  FloatExp last_error = ref.last_error;
  if (scale != 0 && ref.length() > 0) {
    // Scaled binary64: the last point (a periodic reference's, next to 0) may be below binary64's
    // range even times 2^scale; what its rounding drops joins the error the pixels carry from it.
    const uint64_t k = ref.length() - 1;
    const FloatExp lr = ref.re53(k), li = ref.im53(k);
    const FloatExp kr = mul_pow2(FloatExp(to_double(mul_pow2(lr, scale))), -scale);
    const FloatExp ki = mul_pow2(FloatExp(to_double(mul_pow2(li, scale))), -scale);
    last_error = last_error + abs(lr - kr) + abs(li - ki);
  }
  p.last_error = from_fe<T>(mul_pow2(last_error, scale));
  p.c_shift = from_fe<T>(mul_pow2(ref.error_shift, scale));
  if (scale != 0) {
    p.down = to_double(FloatExp::make(1.0, -scale));
    p.tr_floor = to_double(FloatExp::make(1.0, scale - 1000));
  }
  for (int k = 0; k < 4; ++k) p.map[k] = g.pixel_map[k];
  image_axes_inverse(g.pixel_map, p.inv_map);
  p.stripe = stripe_spec(opt);
  p.exp_map = g.exp_map;
  p.interior = opt.interior;
  p.prove_always = opt.prove_interior_always;
  p.error_bound = opt.error_bound;
  p.stop = host_stop(opt.cancel);  // the CUDA launchers put their pinned flag here
  p.ref_re_d = to_double(ref.length() > 1 ? ref.re53(1) : FloatExp(0.0));  // Z_1 = C
  p.ref_im_d = to_double(ref.length() > 1 ? ref.im53(1) : FloatExp(0.0));
  p.width = v.width;
  p.height = v.height;
  p.max_iter = v.max_iter;
  p.check_underflow = check_underflow;
  return p;
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

// One secondary reference at tile pixel `pick` and the pixels of `blob` rendered against it, with
// floatexp deltas and its own BLA table. Returns the pixels that flag again; *made: a reference
// was computed (false when cancelled).
std::vector<std::size_t> render_blob(const View& v, const Geometry& g, const Tile& t,
                                     const RenderOptions& opt, const std::vector<std::size_t>& blob,
                                     std::size_t pick, const PutPixel& put, bool* made) {
  const std::size_t tw = static_cast<std::size_t>(t.width);
  const int bits = reference_bits(g);
  const FloatExp hs = FloatExp::from_string(g.half_step);
  std::string re, im;
  pixel_c(g, v, t.x0 + static_cast<int>(pick % tw), t.y0 + static_cast<int>(pick / tw), bits + 64, &re, &im);
  // A lone pixel's reference is its own orbit: certified, its count is the pixel's exact count.
  std::shared_ptr<const Reference> ref =
      compute_reference(re, im, bits, v.max_iter, pixel_step(g), opt.cancel, nullptr, blob.size() == 1,
                        /*threads=*/1);  // blobs already run one per core
  *made = ref != nullptr;
  if (!ref) return {};
  // Read point by point below (and by the kernel through zr.data()): a packed orbit is unpacked
  // here, for this blob only (the main reference's arrays are built by `prepared`).
  ref = unpacked(ref);
  if (blob.size() == 1 && !ref->periodic && ref->escape_certified) {
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
        f = finish_fields(zr, zi, jr, ji, s, cr, ci, inv, sp, stripe);
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
    const PerturbPixel px =
        perturb_at(p, t.x0 + static_cast<int>(k % tw), t.y0 + static_cast<int>(k / tw), fields_mode(opt.fields));
    put(k, px.count, px.smooth, px.fields);
    if (px.count == 0) again.push_back(k);
  }
  return again;
}

// The second tier (docs/perturbation.md, "Undecided pixels"): the flagged pixels again against the
// same reference, with floatexp2 deltas (106 bits), the reference's points, the centre offset and
// the half step to 106 bits, and a BLA table of its own built at 106 bits (eps = 2^-106: a table
// made for binary64 would truncate at binary64's level). A pixel flagged
// in the first pass has an escape test that 53-bit deltas could not decide; here the error
// estimate shrinks by 2^-50 or so, and nearly all are decided. Returns the pixels still flagged
// (ascending); results go through `put`.
std::vector<std::size_t> refine_flagged(const View& v, const Geometry& g, const Tile& t,
                                        const RenderOptions& opt,
                                        const std::shared_ptr<const Reference>& ref_ptr, Backend backend,
                                        const std::vector<std::size_t>& flagged, const PutPixel& put,
                                        bool* cancelled, double* bla_seconds, uint64_t* skipped) {
  const Reference& ref = *ref_ptr;
  // Its points and table are kept like the first pass's (prepared), so a view's tiles and bands
  // build them once.
  const auto tb = Clock::now();
  const std::shared_ptr<const Prepared<FloatExp2>> tier =
      prepared<FloatExp2>(ref_ptr, view_dcmax(v, g, ref), opt.bla);
  *bla_seconds += since(tb);
  FloatExp2 off_re, off_im, hs;
  centre_offset(ref, g, &off_re, &off_im, &hs);
  PerturbParams<FloatExp2> p =
      params_for(v, g, opt, ref, tier->zr.data(), tier->zi.data(), tier->bla, FloatExp(0.0), FloatExp(0.0),
                 FloatExp(0.0), /*check_underflow=*/false);
  p.off_re = off_re;
  p.off_im = off_im;
  p.half_step = hs;
  const std::size_t tw = static_cast<std::size_t>(t.width);
  std::vector<uint64_t> counts(flagged.size());
  std::vector<float> smooth(flagged.size());
  std::vector<FieldValues> fields(opt.fields ? flagged.size() : 0);
  if (backend == Backend::kCuda) {
#if DEEPSCOPE_WITH_CUDA
    std::vector<uint32_t> idx(flagged.begin(), flagged.end());
    detail::render_list_cuda(p, idx, t, opt, counts.data(), smooth.data(),
                             opt.fields ? fields.data() : nullptr, skipped, cancelled);
#else
    throw BackendError("built without CUDA");
#endif
  } else {
    std::atomic<uint64_t> tier_skipped{0};
    ParallelOptions po;
    po.cancel = opt.cancel;
    po.threads = opt.cpu_threads;
    parallel_for(
        flagged.size(), 1,
        [&](std::size_t q0, std::size_t q1) {
          for (std::size_t q = q0; q < q1; ++q) {
            if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) return;
            const std::size_t k = flagged[q];
            const PerturbPixel px = perturb_at(p, t.x0 + static_cast<int>(k % tw),
                                               t.y0 + static_cast<int>(k / tw), fields_mode(opt.fields));
            counts[q] = px.count;
            smooth[q] = px.smooth;
            if (opt.fields) fields[q] = px.fields;
            tier_skipped.fetch_add(px.skipped, std::memory_order_relaxed);
          }
        },
        po);
    *skipped += tier_skipped.load();
    if (opt.cancel && opt.cancel->load()) *cancelled = true;
  }
  std::vector<std::size_t> again;
  if (*cancelled) return again;
  for (std::size_t q = 0; q < flagged.size(); ++q) {
    if (counts[q] == 0) again.push_back(flagged[q]);
    else put(flagged[q], counts[q], smooth[q], opt.fields ? fields[q] : FieldValues{});
  }
  return again;
}

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
      store_pixel(res->counts.data(), res->wide() ? res->counts_high.data() : nullptr, res->smooth.data(), k, c,
                  sm);
      res_fields.store(k, f);
    }
  };
  const std::size_t tw = static_cast<std::size_t>(t.width);
  const auto t0 = Clock::now();
  std::vector<std::size_t> pending =
      opt.refine ? refine_flagged(v, g, t, opt, ref, res->backend, flagged, put, &res->cancelled,
                                  &res->perturb.bla_seconds, &res->perturb.refine_skipped)
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
  while (!pending.empty()) {
    const std::vector<std::vector<std::size_t>> blobs = blobs_of(t, pending);
    const int room = std::max(0, opt.max_secondary_references - references.load());
    const std::size_t served = std::min(blobs.size(), static_cast<std::size_t>(room));
    for (std::size_t b = served; b < blobs.size(); ++b) {
      for (std::size_t k : blobs[b]) put(k, 0u, 0.0f, FieldValues{});
      unresolved += blobs[b].size();
    }
    std::vector<std::vector<std::size_t>> again(served);
    std::atomic<uint64_t> stuck{0};
    ParallelOptions po;
    po.cancel = opt.cancel;
    po.threads = opt.cpu_threads;
    parallel_for(
        served, 1,
        [&](std::size_t b0, std::size_t b1) {
          for (std::size_t b = b0; b < b1; ++b) {
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
            std::vector<std::size_t> left = render_blob(v, g, t, opt, blob, pick, put, &made);
            if (!made) return;
            ++references;
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
    unresolved += stuck.load();
    std::vector<std::size_t> next;
    for (const auto& l : again) next.insert(next.end(), l.begin(), l.end());
    std::sort(next.begin(), next.end());
    pending = std::move(next);
  }
  res->perturb.glitch_corrected = flagged.size() - unresolved;
  res->perturb.glitch_unresolved = unresolved;
  res->perturb.secondary_references = references.load();
}

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

  const auto tb = Clock::now();
  if (opt.stage) opt.stage("BLA table");
  // A packed orbit's points go to the device a slice at a time (PointFill), never whole to the host.
  const bool device_points = res->backend == Backend::kCuda && ref.packed;
  std::shared_ptr<const Prepared<T>> prep = prepared<T>(ref_ptr, dcmax, opt.bla, !device_points, scale);
  res->perturb.bla_seconds = since(tb);
  res->perturb.bla_levels = prep->bla.levels;
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
        prep = prepared<T>(ref_ptr, dcmax, opt.bla, true, scale);
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
    parallel_for(
        static_cast<std::size_t>(t.height), 1,
        [&](std::size_t r0, std::size_t r1) {
          uint64_t sk = 0, rb = 0, in = 0;
          for (std::size_t r = r0; r < r1; ++r)
            for (std::size_t c = 0; c < tw; ++c) {
              if (opt.cancel && opt.cancel->load(std::memory_order_relaxed)) return;
              const PerturbPixel px =
                  perturb_at(p, t.x0 + static_cast<int>(c), t.y0 + static_cast<int>(r), fields_mode(opt.fields));
              store_pixel(counts, counts_high, smooth, r * tw + c, px.count, px.smooth);
              fields.store(r * tw + c, px.fields);
              sk += px.skipped;
              rb += px.rebases;
              in += px.interior;
            }
          skipped += sk;
          rebases += rb;
          interior += in;
        },
        po);
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
        std::vector<float> f[4];
        for (std::size_t q = 0; q < fixed_fields.size(); ++q) {
          const FieldValues& x = fixed_fields[q];
          f[0].push_back(x.dex);
          f[1].push_back(x.dey);
          f[2].push_back(x.phase);
          f[3].push_back(x.stripe);
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
  if (opt.progress) ref_progress = [&](double x) { opt.progress(0.3 * x); };
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
  res->perturb.reference_stop = ref->escaped ? "escaped" : ref->periodic ? "periodic" : "max_iter";
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
