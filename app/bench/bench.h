// Benchmarks behind `deepscope bench`; each prints a markdown table and can write it to --out.
#pragma once
#include <cstdint>
#include <sstream>
#include <string>

#include "app/cli/commands.h"

namespace ds::app {

int bench_arith(const ArgList& args);
int bench_mandelbrot(const ArgList& args);
int bench_henon(const ArgList& args);
int bench_drift(const ArgList& args);
int bench_perturb(const ArgList& args);
// `bench perturb --formulas` (app/bench/perturb_formulas.cpp): formula perturbation with and without BLA.
int bench_perturb_formulas(const ArgList& args);
int bench_tmd(const ArgList& args);
int bench_scale(const ArgList& args);
int bench_interop(const ArgList& args);
int bench_finder(const ArgList& args);
int bench_reference(const ArgList& args);
int bench_colour(const ArgList& args);

// The host CPU's model name (/proc/cpuinfo), or "CPU".
std::string cpu_name();
// printf-style formatting of one number ("%.3g").
std::string fmt(const char* f, double v);
// A report's heading and its date (UTC), commit and command lines, as markdown.
std::string bench_preamble(const std::string& name, const ArgList& args);
// `bench tmd --write-cases N`: formats and writes N synthetic cases' output files in `dir`, one
// markdown row per file (app/bench/tmd_write.cpp).
void bench_tmd_write(std::ostringstream& md, int64_t n, const std::string& dir);

}  // namespace ds::app
