// Benchmarks behind `deepscope bench`; each prints a markdown table and can write it to --out.
#pragma once
#include "commands.h"

namespace ds::app {

int bench_arith(const ArgList& args);
int bench_mandelbrot(const ArgList& args);
int bench_henon(const ArgList& args);
int bench_drift(const ArgList& args);
int bench_perturb(const ArgList& args);
int bench_tmd(const ArgList& args);
int bench_scale(const ArgList& args);

}  // namespace ds::app
