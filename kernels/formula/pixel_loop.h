// The frame every CPU render of a formula shares (direct.cpp, perturb.cpp): the result's arrays,
// the parallel loop over the pixels with cancellation and progress, the iterations and the
// certification; the caller gives the one per-pixel function.
#pragma once
#include <chrono>
#include <functional>

#include "direct.h"
#include "kernels/mandelbrot/mandelbrot.h"
#include "kernels/mandelbrot/view.h"

namespace ds::formula {

// A result for v with its size, max_iter, arith kF64, backend kCpu and `method` set, no pixels yet.
mandel::RenderResult formula_result(const mandel::View& v, mandel::Method method);

// pixel(i, j, &decided) for every pixel of v on opt's threads, stored into res (counts.h's storage;
// res from formula_result). res.seconds is the time since t0 and res.kernel_seconds that less
// setup_seconds (time spent before the loop that is not the kernel's, e.g. a reference orbit). A
// cancelled render returns with res.cancelled = true and nothing else filled; otherwise
// res.iterations is the sum of (count - 1) and *cert (when given) says which counts `decided`.
void run_pixel_loop(const mandel::View& v, const DirectOptions& opt,
                    const std::function<mandel::PixelResult(int i, int j, bool* decided)>& pixel,
                    std::chrono::steady_clock::time_point t0, double setup_seconds, mandel::RenderResult& res,
                    Certification* cert);

}  // namespace ds::formula
