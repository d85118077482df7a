// The CPU's first pass over binary64 deltas (and the double word's tier) with several pixels in lockstep: 4 (AVX2) or 8
// (AVX-512) lanes, the width chosen at run time (RenderOptions::cpu_simd). Each lane carries one
// pixel through the common passes of perturb_pixel<double>'s loop (a plain or a BLA step, after a
// rebase or none, no other event); every other pass (the escape, an undecided escape test, the
// interior test's window ends and closest approaches, a flag) runs in pixel_step, the scalar code itself, on the
// lane's PixelState. So the counts, flags and every state are those of perturb_pixel, bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "perturb.cuh"

namespace ds::perturb::cpu_detail {

// The widest path this build and CPU run (kScalar where neither AVX2 nor AVX-512 is there, or the
// build is not GCC on x86-64).
CpuSimd simd_supported();
// The path a render takes: `asked` (kAuto: the environment's DEEPSCOPE_CPU_SIMD, "scalar",
// "avx2" or "avx512", else the widest), narrowed to what simd_supported() allows. An unknown
// value of the variable throws std::invalid_argument naming it.
CpuSimd simd_path(CpuSimd asked);
const char* simd_name(CpuSimd s);

// How the lanes went (summed over calls): vector passes, lane steps taken in them (at most
// lanes x passes), and passes run by pixel_step instead.
struct LaneStats {
  uint64_t passes = 0, lane_steps = 0, scalar_steps = 0;
};

// Pixels first .. last - 1 of a tile (row-major, tw wide, its corner at (x0, y0) in the image),
// each as perturb_pixel<double, kNoFields>(p, ...) gives it, handed to put(index, result) in any
// order. path: kAvx2 or kAvx512 (supported: simd_path). bla_radii_nested: p's table's
// BlaTable::radii_nested (the lanes then look for a BLA step from the lowest level up). Returns
// false where p.stop was raised (the pixels not handed over are left out).
bool perturb_lanes(CpuSimd path, const PerturbParams<double>& p, int x0, int y0, std::size_t tw,
                   std::size_t first, std::size_t last, const std::function<void(std::size_t, const PerturbPixel&)>& put,
                   bool bla_radii_nested, LaneStats* stats = nullptr);

// The double word's pixels in lockstep (the 106-bit tier's pass on the CPU): pixels 0 .. count - 1
// of a list, begin(q, s) making pixel q's state (pixel_begin for a flagged pixel, or a state a CUDA
// list launch handed back; true where the pixel is decided at once), each finished as pixel_step
// finishes it (the same counts, smooth bits and statistics as perturb_pixel<DwDelta>), handed to
// put(q, result) in any order. path kScalar: pixel_step alone.
// False where p.stop was raised (the pixels not handed over are left out).
using DwLaneBegin = std::function<bool(std::size_t, PixelState<DwDelta, kNoFields>&)>;
bool perturb_lanes_dw(CpuSimd path, const PerturbParams<DwDelta>& p, std::size_t count, const DwLaneBegin& begin,
                      const std::function<void(std::size_t, const PerturbPixel&)>& put, LaneStats* stats = nullptr);

}  // namespace ds::perturb::cpu_detail
