// The tiers that re-decide the pixels perturb::render's first pass flagged, against the same centre:
// 106-bit deltas (double words, then floatexp2), on an orbit that wraps the wide tiers (floatexp4,
// floatexp8 against a wide orbit), then the interior proofs for what they all left (cpu_tiers.cpp;
// docs/perturbation/errors.md, "Undecided pixels"). correct_flagged (cpu_flagged.cpp) runs them first.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "cpu_detail.h"

namespace ds::perturb::cpu_detail {

// The centre's offset from the reference and the half step, to 106 bits (both tiers start from it).
struct Offset106 {
  FloatExp2 re, im, half_step;
};

// What a tier pass's calls of refine_with took (added to): its pixels a CUDA launch handed back to
// the host's cores, and its seconds in the points and BLA tables, the device's launches (uploads
// included) and the CPU's pixels (a CPU pass's, or that host tail). PerturbInfo::refine_pass_*.
struct TierSplit {
  uint64_t host_pixels = 0;
  double table_seconds = 0, device_seconds = 0, cpu_seconds = 0;
};

// The flagged pixels (tile indices, ascending) again with T deltas against ref_ptr: see cpu_tiers.cpp.
// Instantiated for DwDelta, FloatExp2, FloatExpN<4> and FloatExpN<8>. dear_proofs: the interior
// proofs a pixel may run however dear (PerturbParams::dear_proofs).
template <class T>
std::vector<std::size_t> refine_with(const View& v, const Geometry& g, const Tile& t,
                                     const RenderOptions& opt,
                                     const std::shared_ptr<const Reference>& ref_ptr, Backend backend,
                                     const Offset106& o, const std::vector<std::size_t>& flagged,
                                     const PutPixel& put, bool* cancelled, double* bla_seconds,
                                     uint64_t* skipped, bool fine = false, bool* served = nullptr,
                                     std::vector<std::size_t>* at_floor = nullptr, TierSplit* split = nullptr,
                                     bool without_map = false, bool* used_map = nullptr, uint32_t dear_proofs = 0);

// Every tier in turn over `flagged`; returns the pixels still flagged (ascending). Counts, decided
// pixels and times per pass in *info (glitch_refined_dw, refine_pass_*).
std::vector<std::size_t> refine_flagged(const View& v, const Geometry& g, const Tile& t,
                                        const RenderOptions& opt, const std::shared_ptr<const Reference>& ref,
                                        Backend backend, const std::vector<std::size_t>& flagged,
                                        const PutPixel& put, bool* cancelled, PerturbInfo* info);

}  // namespace ds::perturb::cpu_detail
