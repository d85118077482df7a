// `deepscope bench mandelbrot` (placeholder while the benchmark is written).
#include "bench.h"
#include "cli.h"

namespace ds::app {
int bench_mandelbrot(const ArgList&) { throw cli::UsageError("bench mandelbrot: not yet available"); }
}  // namespace ds::app
