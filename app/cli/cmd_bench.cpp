// `deepscope bench WHAT`: throughput benchmarks, one per kernel family.
#include "app/bench/bench.h"
#include "cli.h"
#include "commands.h"

namespace ds::app {

int cmd_bench(const ArgList& args) {
  if (args.empty()) throw cli::UsageError("bench needs a target: arith or mandelbrot");
  ArgList rest(args.begin() + 1, args.end());
  if (args[0] == "arith") return bench_arith(rest);
  if (args[0] == "mandelbrot") return bench_mandelbrot(rest);
  if (args[0] == "henon") return bench_henon(rest);
  if (args[0] == "drift") return bench_drift(rest);
  if (args[0] == "perturb") return bench_perturb(rest);
  if (args[0] == "tmd") return bench_tmd(rest);
  if (args[0] == "scale") return bench_scale(rest);
  if (args[0] == "interop") return bench_interop(rest);
  if (args[0] == "finder") return bench_finder(rest);
  if (args[0] == "reference") return bench_reference(rest);
  if (args[0] == "colour") return bench_colour(rest);
  throw cli::UsageError("unknown bench target \"" + args[0] +
                        "\" (arith, mandelbrot, henon, drift, perturb, tmd, scale, interop, finder, reference, colour)");
}

}  // namespace ds::app
