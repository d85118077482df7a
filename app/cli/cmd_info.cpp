// `deepscope info`: build options, CUDA devices, the GL renderer, and (--arith) the format table.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "arith/format.h"
#include "cli.h"
#include "commands.h"
#include "app/gui/gl_probe.h"
#include "kernels/core/device.h"
#include "kernels/core/work.h"
#include "kernels/mandelbrot/counts.h"
#include "version.h"

namespace ds::app {

static void print_formats() {
  std::printf("%-10s %5s %-8s %12s %12s %12s %9s\n", "format", "bits", "kind", "eps", "max |x|", "min |x|",
              "rel cost");
  for (Arith a : all_ariths()) {
    FormatTraits t = arith_traits(a);
    std::printf("%-10s %5d %-8s %12.4g %12.4g %12.4g %9.2f\n", t.name, t.bits, t.fixed ? "fixed" : "floating",
                t.eps, t.max_abs, t.min_abs, t.rel_cost);
  }
  std::printf("aliases: dd = f64x2, qd = f64x4; eps is the unit roundoff (floating) or the resolution (fixed)\n");
}

int cmd_info(const ArgList& args) {
  cli::Args a(args, {}, {"arith"});
  if (!a.positional().empty()) throw cli::UsageError("info takes no arguments besides --arith");
  if (a.flag("arith")) {
    print_formats();
    return 0;
  }
  std::cout << "deepscope " << DEEPSCOPE_VERSION << " (" << DEEPSCOPE_GIT_COMMIT << ")\n"
            << "build: type " << DEEPSCOPE_BUILD_TYPE << ", CUDA " << DEEPSCOPE_BUILD_CUDA << " (arch "
            << DEEPSCOPE_BUILD_CUDA_ARCH << "), GUI " << DEEPSCOPE_BUILD_GUI << ", host FMA "
            << DEEPSCOPE_BUILD_HOST_FMA << "\n";
  std::cout << "formats: " << arith_names_joined() << " (deepscope info --arith for traits)\n";
  std::cout << "iterations: 64-bit counts, limit 1 to " << mandel::kMaxIterations
            << " (2^63 - 1); .npy counts are uint64 where a count passes 2^32 - 1\n";
  auto devs = cuda_devices();
  if (devs.empty()) {
    std::cout << "CUDA: no CUDA device (" << cuda_unavailable_reason() << ")\n";
  } else {
    for (const auto& d : devs)
      std::cout << "CUDA device " << d.index << ": " << d.name << ", compute capability " << d.cc_major << "."
                << d.cc_minor << ", " << d.sm_count << " SMs, " << (d.memory_bytes >> 20) << " MiB\n";
  }
  if (work::built_with_mpi())
    std::cout << "MPI: " << work::mpi_version() << "; this process is rank " << work::rank() << " of "
              << work::size() << "\n";
  else
    std::cout << "MPI: not built (install libopenmpi-dev and reconfigure)\n";
  std::cout << "GL: " << gl_renderer_description() << "\n";
  return 0;
}

}  // namespace ds::app
