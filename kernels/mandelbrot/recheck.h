// The direct formats' undecided pixels (count 0 from the error estimate, mandelbrot.cuh): the
// ladder of wider formats that re-decides them, host only (recheck.cpp).
#pragma once
#include <atomic>
#include <optional>

#include "fields.cuh"
#include "mandelbrot.h"

namespace ds::mandel::detail {

// The next format up from `a` for undecided pixels: the cheapest (traits' rel_cost) with at least
// twice a's precision that holds the view (log2_zoom_limit with no guard bits), else the most
// precise one that holds it and is more precise than a; empty when none is.
std::optional<Arith> wider_arith(Arith a, const Geometry& g);

// The exact orbit's rung: MPFR at kExactBits, up to kExactSteps steps.
constexpr int kExactBits = 1024;
constexpr uint64_t kExactSteps = 1000000;

// Pixel (i, j)'s orbit in MPFR, kept only while every operation is exact (c = centre + (s/2)
// offset, s/2 = 2 / (zoom height), and each step): such an orbit is the exact one, so its count is
// exact where it escapes, reaches max_iter, or comes back to a saved point (an exact cycle:
// max_iter). Empty as soon as an operation rounds (nearly every pixel), past kExactSteps, or when
// cancelled.
std::optional<PixelResult> exact_orbit_pixel(const Geometry& g, const View& v, int i, int j,
                                             const std::atomic<bool>* cancel = nullptr);

// After a direct render of tile t in res->arith (host arrays, or opt.device_counts): every pixel
// with count 0 was left undecided by the error estimate; each is rendered again in wider formats
// (wider_arith, repeatedly) until the estimate decides it or no wider format holds the view, then
// by exact_orbit_pixel. Sets
// res->perturb's glitch_pixels (undecided), glitch_corrected (decided by a wider format) and
// glitch_unresolved (left at count 0), and res->recheck ("f64x2 12, f64x4 1").
void recheck_direct(const Geometry& g, const View& v, const Tile& t, const RenderOptions& opt,
                    const FieldPtrs& fields, RenderResult* res);

}  // namespace ds::mandel::detail
