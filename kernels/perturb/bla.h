// Bilinear approximation (BLA) of the perturbation iteration (Zhuoran; Heiland-Allen, "Deep zoom
// theory and practice (again)", 2022): an entry at reference index m covering 2^l steps maps
// dz_m to dz_{m+2^l} = A dz_m + B dc, valid while |dz_m| < R.
//   one step (l = 0):  A = 2 Z_m, B = 1, R = eps |Z_m|  (the dropped dz^2 is below eps |2 Z dz|)
//   merge x then y:    A = A_y A_x, B = A_y B_x + B_y,
//                      R = min(R_x, max(0, (R_y - |B_x| dcmax) / |A_x|))
// with eps = 2^-53 and dcmax the largest |dc| of the image. eps is the unit roundoff, not a
// speed knob: measured against direct limb rendering (64x64 views at KF's 1e14, 1e30, 3e60),
// eps = 2^-40 already moves smooth counts by up to 2e-3 and 2^-32 by up to 0.5 and changes 0.1%
// of the counts, because the dropped dz^2 is amplified wherever the orbit later passes close to
// 0; 2^-53 reproduces the direct counts and smooth values exactly there, and skips 98% of the
// iterations at 1e1000 against 99% for 2^-24 (docs/perturbation.md). Level l holds the entries at
// m = 1 + k 2^l whose steps end at or before the reference's last point; levels 0 and 1 are left
// empty (bla.cpp: pixels step singly there), so a table holds about N/2 entries for N points.
// Host types only.
#pragma once
#include <cstdint>
#include <type_traits>
#include <vector>

#include "arith/floatexp.h"
#include "arith/hd.h"
#include "arith/floatexp2.h"
#include "arith/floatexpn.h"
#include "dw_delta.h"
#include "period_map.h"

#include <atomic>

namespace ds::perturb {

constexpr int kMaxBlaLevels = 31;
constexpr double kBlaEpsilon = 1.1102230246251565e-16;  // 2^-53
// The 106-bit tiers' tables (T = DwDelta or FloatExp2): built from the reference's 106-bit points,
// merged in floatexp2, with eps = 2^-106, so that what BLA drops stays at the tier's own rounding level.
constexpr double kBlaEpsilon2 = 1.2325951644078310e-32;  // 2^-106
// The double-word tier's first table (cpu_tiers.cpp, refine_flagged): eps 2^-70. Its radii are
// 2^36 times the 2^-106 table's, so the tier's pixels step by BLA about as far as the first pass's
// do (at FractalShark's view 5, 74% of their iterations skipped against 27% at 2^-106); what BLA
// drops is carried in each pixel's error bound (BlaEntry::ka, kb), so a pixel it leaves undecided
// goes on to the 2^-106 table, never out with a wrong count.
constexpr double kBlaEpsilonCoarse = 8.4703294725430034e-22;  // 2^-70
// The floatexp4 tier's first table (cpu_tiers.cpp, wide_tiers): eps 2^-128, the double word's
// coarse table's idea one tier up. floatexp4's own 2^-212 table has radii too small to skip much,
// so its pixels took most steps singly at floatexp4's cost (FractalShark's view 28 on the 2-core
// machine: one pixel, 4.4 s, half of the run in floatexp4's additions). At 2^-128 (radii 2^84
// times larger, what BLA drops still 22 bits below the 106-bit tiers' level) the pass took 0.50x
// the time at KF's 5e227 256x256 (21 pixels), 0.64x at 128x128 (5) and 0.75x at view 28 24x14
// (1), the counts byte for byte the same; at 2^-106 it decided nothing at view 28 and cost 1.6x.
// Each entry's drop is in the pixel's error bound, so a pixel the coarse table leaves undecided
// goes on to the 2^-212 table (view 14 32x18: 2 of 27 decided by the coarse one, none by the
// fine one after it, the pass's time the same to 1 %).
constexpr double kBlaEpsilonWideCoarse = 2.938735877055719e-39;  // 2^-128
// The wide tiers' (floatexp N, 53 N bits): 2^-53N.
template <class T>
DEEPSCOPE_HD constexpr double bla_epsilon() {
  if constexpr (FloatExpNTerms<T>::value > 0)
    return T::kUnitRoundoff * 0.5;
  else
    return std::is_same<T, FloatExp2>::value || std::is_same<T, DwDelta>::value ? kBlaEpsilon2 : kBlaEpsilon;
}

template <class T>
struct BlaEntry {
  T ar, ai;  // A
  T br, bi;  // B
  T r;       // validity radius, compared with the L1 norm of dz (an upper bound of |dz|)
  // What the entry's steps drop, for the pixels' error estimate: at most (ka |dz| + kb |dc|)^2
  // (first order in the drops). One step drops dz^2 exactly: ka = 1, kb = 0. x then y:
  //   ka = sqrt|A_y| ka_x + ka_y |A_x|,  kb = sqrt|A_y| kb_x + ka_y |B_x| + kb_y,
  // from |A_y| (ka_x |dz| + kb_x |dc|)^2 + (ka_y |dz_y| + kb_y |dc|)^2 with |dz_y| <= |A_x| |dz| +
  // |B_x| |dc| and a^2 + b^2 <= (a + b)^2. (The radius keeps each step's drop below eps of its
  // linear terms; this bounds what the drops add up to at the pixel's own |dz| and |dc|.)
  T ka, kb;
  // The coefficients' own roundings (the merges' in the builder's precision, 53 bits or 106, and
  // the last to T): |A~ - A| <= ea, |B~ - B| <= eb, absolute (B's terms may cancel, so no bound
  // relative to |B| holds). The estimate adds ea |dz| + eb |dc|.
  T ea, eb;
};

template <class T>
struct BlaTable {
  std::vector<BlaEntry<T>> entries;
  uint64_t level_offset[kMaxBlaLevels + 1] = {};  // level l: [level_offset[l], level_offset[l+1])
  int levels = 0;
  FloatExp dcmax{0.0};
  double eps = 0;  // what the radii were built for (build_bla's eps)
  // Suffix entries, after the levels (at level_offset[kMaxBlaLevels]), for a reference that pixels
  // go round again and again (periodic, or cut at the ball's period): entry i steps from the i-th
  // point of the canonical path to the reference's last point in one step (bla_suffix_index).
  int suffix = 0;
  // T = double or DwDelta: every entry's radius is at most that of the entry one level down from
  // the same point (r(l, k) <= r(l - 1, k)), as the merge makes them (min of the first half's
  // radius) unless the rounding to T dropped an entry (radius 0) below a kept one. Then the valid levels at a
  // point are a run from the lowest up, and the highest one is found from below (cpu_simd.h).
  bool radii_nested = false;
  // The period map (period_map.h), where build_bla was asked for it: pm.degree > 0, its
  // coefficients b_ij after everything else, from pm_offset on (entry pm_offset +
  // period_map_index(i, j): ar, ai, and |b_ij| in r), then its rungs; else pm.why says why not.
  PeriodMap pm;
  uint64_t pm_offset = 0;
  int pm_domain = 0;  // which of pm's domains this table's pixels use (period_map.h)
  int pm_rungs = 0;   // that domain's rungs, after the coefficients (radius in ar, bound in ai)
};

// The canonical path of an orbit of K + 2 points (K = ref_len - 2): from k = m - 1 = 0, the steps
// of the levels of K's set bits, highest first; its points are K's prefixes (K with the bits below
// one of its set bits cleared). Suffix entry popcount(k) serves the point k (< K); -1 where k is
// not on the path.
DEEPSCOPE_HD int bla_suffix_index(uint64_t k, uint64_t K) {
  if (k >= K) return -1;
  if (k == 0) return 0;
  const uint64_t low = k & (~k + 1);
  if ((K & ~(low - 1)) != k) return -1;
#if DEEPSCOPE_DEVICE_CODE
  return __popcll(static_cast<unsigned long long>(k));
#else
  return __builtin_popcountll(k);
#endif
}

struct Reference;
// Builds the table for `ref` (T = double or FloatExp: eps 2^-53, from the 53-bit points; T = FloatExp2:
// eps 2^-106, from the 106-bit points zr + zr_lo) for images whose |dc| stay below dcmax. scale
// (T = double only): the radii times 2^scale, for deltas held that way (perturb.cuh, scaled
// binary64; A and B are ratios of lengths and do not change).
// first_level: the lowest level kept (at least 2); a higher one leaves the levels below it empty
// (the kernel steps past them) and bounds the table to about N / 2^(first_level - 1) entries.
// eps: the radii's tolerance (0: bla_epsilon<T>(); the double-word tier's first table takes
// kBlaEpsilonCoarse), kept in the table's eps (append_period_map picks the map's domain by it; the
// pixels' error estimate takes each entry's own bounds, BlaEntry::ka .. eb, not eps).
// period_map (T = double unscaled, FloatExp or DwDelta): also the period map of a wrapping reference;
// its build stops within 64 of its steps once *cancel is set (the table then has no map).
template <class T>
BlaTable<T> build_bla(const Reference& ref, FloatExp dcmax, int first_level = 2, int scale = 0,
                      double eps = 0, bool period_map = false, const std::atomic<bool>* cancel = nullptr);
// The lowest first_level whose table for an orbit of `len` points takes at most `bytes` with
// entries of `entry` bytes (kMaxBlaLevels + 1 where none fits).
int bla_first_level_within(uint64_t len, std::size_t entry, std::size_t bytes);

}  // namespace ds::perturb
