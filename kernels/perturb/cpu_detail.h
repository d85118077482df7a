// The CPU side of perturb::render, shared by its files: the points and BLA table of a reference
// in a delta type (kept for the next render), the kernel's parameters for a view, perturb_pixel
// with the asked fields, and the re-rendering of flagged pixels (cpu_flagged.cpp). cpu.cpp runs the
// first pass; the CUDA launchers are declared here (perturb.cu).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "kernels/core/backend.h"
#include "kernels/core/cpu_parallel.h"
#include "list_tail.h"
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
// perturb.cu: perturb_pixel with a 106-bit tier's deltas (T = DwDelta or FloatExp2) for the listed
// tile pixels (indices into the tile, row-major), results in list order. p's points are host arrays
// of p.ref_len points. fields: null, or one FieldValues a pixel (RenderOptions::fields asked).
// *skipped: the iterations BLA skipped (of the pixels finished here). Launches are bounded in steps
// (about 0.25 s each); once the unfinished pixels are so few that the host's cores step them faster
// than the device (tail's figures), they go to *tail instead, their results left unset.
template <class T>
void render_list_cuda(const PerturbParams<T>& p, const std::vector<uint32_t>& pixels, const Tile& t,
                      const RenderOptions& opt, uint64_t* counts, float* smooth, FieldValues* fields,
                      uint64_t* skipped, bool* cancelled, ListTail<T>* tail);
#endif
}  // namespace detail

namespace cpu_detail {

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
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The reference in the delta type and its BLA table, kept for the next render of the same
// reference (the window renders a view as a coarse pass and bands: one table serves them all).
// Ids of prepared tables, one sequence for every delta type: the device cache is keyed by the id
// alone, so a double table and a floatexp table must never share one.
inline std::atomic<uint64_t> g_next_table_id{1};

template <class T>
struct Prepared {
  std::shared_ptr<const Reference> ref;
  uint64_t id = 0;  // unique per table (the CUDA backend keeps the last one on the device)
  bool with_bla = false;
  bool period_map = false;  // bla has the period map (where the reference allows one)
  bool host_points = true;  // zr, zi filled (false: a CUDA render fills the device's arrays itself)
  int scale = 0;            // T = double: the points and radii times 2^scale (DeltaFormat::kF64Scaled)
  // T = DwDelta: every point held exactly (dw_points_in_range); false: no points or table built,
  // the tier does not serve this reference.
  bool in_range = true;
  std::vector<T> zr, zi;
  // T = DwDelta: at eps kBlaEpsilonCoarse (bla.h), and fine_bla() at the tier's own 2^-106 for the
  // pixels it leaves undecided, built on first use; T = FloatExpN<4> the same at
  // kBlaEpsilonWideCoarse and 2^-212; other types: bla at bla_epsilon<T>() alone.
  BlaTable<T> bla;
  const BlaTable<T>& fine_bla() const {
    if (!coarse) return bla;
    // The fine table is for the pixels that the coarse one left undecided: the double words' with
    // the map's 2^-90 domain where the render has the map (a pass with it, then one without:
    // cpu_tiers.cpp); floatexp4's without a map.
    std::call_once(fine_once, [&] {
      fine = build_bla<T>(*ref, bla.dcmax, first_level, scale, 0.0, period_map && FloatExpNTerms<T>::value == 0);
    });
    return fine;
  }
  bool coarse = false;  // bla is the coarse table (with_bla, T = DwDelta or FloatExpN<4>)
  int first_level = 2;

 private:
  mutable std::once_flag fine_once;
  mutable BlaTable<T> fine;
};

// The least power of 4 >= x (x > 0; FloatExp keeps |m| in [0.5, 1), so x < 2^e).
inline FloatExp quantize_dcmax(FloatExp x) {
  if (!(x.m > 0)) return x;
  return FloatExp::make(1.0, static_cast<int64_t>(x.e) + (x.e & 1));
}

// The largest |dc| of the view's pixels against ref: |offset| + s/2 * |(w, h)|, rounded up
// generously (x 1.01).
inline FloatExp view_dcmax(const View& v, const Geometry& g, const Reference& ref) {
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
                   if constexpr (FloatExpNTerms<T>::value > 0) {
                     zr[i] = ref.re_wide<FloatExpNTerms<T>::value>(k);
                     zi[i] = ref.im_wide<FloatExpNTerms<T>::value>(k);
                   } else if constexpr (std::is_same<T, FloatExp2>::value) {
                     zr[i] = ref.re106(k);
                     zi[i] = ref.im106(k);
                   } else if constexpr (std::is_same<T, DwDelta>::value) {
                     bool ok = true;  // checked before, by dw_points_in_range (prepared)
                     zr[i] = dw_from(ref.re106(k), &ok);
                     zi[i] = dw_from(ref.im106(k), &ok);
                   } else {
                     zr[i] = from_fe<T>(mul_pow2(ref.re53(k), scale));
                     zi[i] = from_fe<T>(mul_pow2(ref.im53(k), scale));
                   }
                 }
               });
}

// Whether every point of ref is held exactly by the double word (0, or 2^-900 <= |x| < 2^1000 in
// each part): the DwDelta tier's condition on its reference (a point closer to 0 than that, at a
// minibrot's nucleus say, sends the flagged pixels straight to floatexp2).
inline bool dw_points_in_range(const Reference& ref) {
  std::atomic<bool> ok{true};
  parallel_for(static_cast<std::size_t>(ref.length()), static_cast<std::size_t>(kOrbitChunk),
               [&](std::size_t a, std::size_t b) {
                 bool here = true;
                 for (std::size_t k = a; k < b && here; ++k) {
                   dw_from(ref.re106(k), &here);
                   dw_from(ref.im106(k), &here);
                 }
                 if (!here) ok.store(false, std::memory_order_relaxed);
               });
  return ok.load();
}

// The delta types whose tiers take two BLA tables, a coarse one first (Prepared, the coarse
// pass) and their own fine one for what it leaves: the double word (2^-70, 2^-106) and floatexp4
// (2^-128, 2^-212; cpu_tiers.cpp, wide_tiers).
template <class T>
constexpr bool kTwoBlaTables = std::is_same<T, DwDelta>::value || FloatExpNTerms<T>::value == 4;

template <class T>
std::shared_ptr<const Prepared<T>> prepared(const std::shared_ptr<const Reference>& ref, FloatExp dcmax,
                                            bool with_bla, bool host_points = true, int scale = 0,
                                            bool period_map = false,
                                            const std::atomic<bool>* cancel = nullptr) {
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
  // T = DwDelta and FloatExpN<4>: two tables (coarse and fine, Prepared), half of that each.
  constexpr bool kTier =
      std::is_same<T, FloatExp2>::value || std::is_same<T, DwDelta>::value || FloatExpNTerms<T>::value > 0;
  constexpr bool kTwoTables = kTwoBlaTables<T>;
  const uint64_t len = ref->length();
  // The main tables are bounded the same way (kMaxBlaBytes, counted in the builder's floatexp
  // entries): level 2 up to about 107 M points, then higher first levels.
  const int first_level =
      kTier ? bla_first_level_within(len, sizeof(BlaEntry<T>), kMaxTierBlaBytes / (kTwoTables ? 2 : 1))
            : bla_first_level_within(len, std::max(sizeof(BlaEntry<T>), sizeof(BlaEntry<FloatExp>)),
                                     kMaxBlaBytes);
  with_bla = with_bla && first_level <= kMaxBlaLevels;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (last && last->ref == ref && last->with_bla == with_bla && last->scale == scale &&
        last->period_map == period_map &&
        (last->host_points || !host_points) &&
        (!with_bla || (last->bla.dcmax.e == dcmax.e && last->bla.dcmax.m == dcmax.m)))
      return last;
  }
  auto p = std::make_shared<Prepared<T>>();
  p->ref = ref;
  p->id = g_next_table_id++;
  p->with_bla = with_bla;
  p->period_map = period_map;
  p->host_points = host_points;
  p->scale = scale;
  if constexpr (std::is_same<T, DwDelta>::value) p->in_range = dw_points_in_range(*ref);
  if (host_points && p->in_range) {
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
  p->first_level = first_level;
  if (with_bla && p->in_range) {
    p->coarse = kTwoTables;
    p->bla = build_bla<T>(*ref, dcmax, first_level, scale,
                          !kTwoTables                  ? 0.0
                          : FloatExpNTerms<T>::value > 0 ? kBlaEpsilonWideCoarse
                                                         : kBlaEpsilonCoarse,
                          period_map && !std::is_same<T, FloatExp2>::value && FloatExpNTerms<T>::value == 0,
                          cancel);
    // A map cut short by a cancel: this (cancelled) render's table only, never kept for the next.
    if (cancel && cancel->load()) return p;
  }
  std::lock_guard<std::mutex> lock(mu);
  last = p;
  return p;
}

// Whether the render's tables carry the period map (period_map.h): asked (opt.period_map, with
// BLA), and worth its build for this view, or opt.period_map_always.
inline bool use_period_map(const View& v, const RenderOptions& opt, const Reference& ref) {
  return opt.period_map && opt.bla &&
         (opt.period_map_always ||
          period_map_worth(ref, static_cast<uint64_t>(v.width) * static_cast<uint64_t>(v.height), v.max_iter));
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
  p.bla_suffix = bla.suffix;
  p.bla_nested = bla.radii_nested;
  if (bla.pm.degree > 0) {  // built only where use_period_map asked for it (prepared's key)
    p.pm_degree = bla.pm.degree;
    p.pm_offset = bla.pm_offset;
    p.pm_steps = bla.pm.steps;
    p.pm_inv_rt = from_fe<T>(FloatExp(1.0) / bla.pm.rt);
    p.pm_inv_rv = from_fe<T>(FloatExp(1.0) / bla.pm.rv);
    p.pm_radius = from_fe<T>(bla.pm.radius[bla.pm_domain]);
    p.pm_rv = from_fe<T>(bla.pm.rv);
    p.pm_rungs = bla.pm_rungs;
  }
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
  p.sqrt_radius = opt.sqrt_smooth_radius;
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

// Re-renders the flagged pixels (tile indices, ascending). Results go to out_counts/out_smooth[q]
// for the q-th flagged pixel when given (device-resident renders), else into res's arrays. First
// the 106-bit tier against the same reference (refine_flagged); then, in passes: the pixels still
// flagged form new blobs with new references, until none is left, the
// references run out, or a blob's own reference pixel flags again (then the blob is unresolved:
// a reference at the pixel itself is as exact as a perturbation render gets).
void correct_flagged(const View& v, const Geometry& g, const Tile& t, const RenderOptions& opt,
                     const std::shared_ptr<const Reference>& ref, const std::vector<std::size_t>& flagged,
                     uint64_t* out_counts, float* out_smooth, FieldValues* out_fields,
                     const FieldPtrs& res_fields, RenderResult* res);

}  // namespace cpu_detail
}  // namespace ds::perturb
