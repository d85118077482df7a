// `deepscope bench reference`: the reference orbit's iterations per second from 128 to 1,048,576
// bits, each path (the step's products on 1, 2 or 3 threads, reference_step.h) beside
// single-thread MPFR in the same run, with the orbit compared bit for bit, the path that the
// automatic choice takes, and the bytes each stored point costs (issue #22).
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <thread>

#include "app/bench/bench.h"
#include "app/cli/cli.h"
#include "kernels/core/atomic_file.h"
#include "kernels/perturb/perturb.h"
#include "kernels/core/device.h"
#include "kernels/perturb/reference_step.h"

namespace ds::app {
namespace {

// A point inside the main cardioid whose decimal digits fill every precision asked for: its orbit
// converges to an attracting fixed point, so it neither escapes nor stops as periodic, and every
// step multiplies full-length mantissas (the cost of a reference near a deep minibrot).
std::string digits(const char* head, int bits) {
  std::string s = head;
  const int n = bits * 30103 / 100000 + 8;  // decimal digits of `bits` bits, and a few more
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int k = 0; k < n; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    s += static_cast<char>('0' + (state >> 60) % 10);
  }
  return s;
}

struct Run {
  std::shared_ptr<const perturb::Reference> ref;
  double seconds = 0;
};

Run run(const std::string& re, const std::string& im, int bits, uint32_t iters, int threads,
        perturb::ReferencePath path = perturb::ReferencePath::kMpfr) {
  const FloatExp step = FloatExp::make(1.0, 64 - bits);  // reference_bits of that spacing = bits
  const auto t0 = std::chrono::steady_clock::now();
  Run r;
  r.ref = perturb::compute_reference(re, im, bits, iters, step, nullptr, nullptr, false, threads, 0, "", 60, nullptr,
                                     path);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

// Point k of both orbits equal bit for bit (both floatexp parts and both tails).
bool same_point(const perturb::Reference& a, const perturb::Reference& b, uint64_t k) {
  FloatExp ar, ai, br, bi;
  double arl, ail, brl, bil;
  a.point(k, &ar, &ai, &arl, &ail);
  b.point(k, &br, &bi, &brl, &bil);
  return ar == br && ai == bi && arl == brl && ail == bil;
}

bool same_orbit(const perturb::Reference& a, const perturb::Reference& b) {
  if (a.length() != b.length() || a.bits != b.bits) return false;
  for (uint64_t k = 0; k < a.length(); ++k)
    if (!same_point(a, b, k)) return false;
  return true;
}

}  // namespace

int bench_reference(const ArgList& args) {
  cli::Args a(args, {"out", "bits", "seconds"}, {});
  const std::string out = a.get("out", "");
  if (!out.empty()) check_writable(out);
  const double budget = a.get_double("seconds", 1.0);
  if (!(budget >= 0.01 && budget <= 600)) throw cli::UsageError("--seconds: in [0.01, 600]");
  std::vector<int> precisions;
  {
    std::stringstream ss(a.get("bits", "128,512,2048,8192,32768,131072,524288,1048576"));
    for (std::string t; std::getline(ss, t, ',');) {
      const int64_t b = cli::parse_int("--bits", t);
      if (b < 64 || b > (1 << 24)) throw cli::UsageError("--bits: each precision in [64, 16777216], got \"" + t + "\"");
      precisions.push_back(static_cast<int>(b));
    }
  }
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const bool gpu = cuda_device_count() > 0;
  if (!gpu) std::fprintf(stderr, "bench reference: no CUDA device (%s): the GPU reference is not measured\n",
                         cuda_unavailable_reason().c_str());
  const std::size_t point_bytes = 2 * sizeof(FloatExp) + 2 * sizeof(double);
  std::ostringstream md;
  md << bench_preamble("reference", args) << "- host threads: " << cores << "\n\n"
     << "Reference orbit Z <- Z^2 + C (perturb::compute_reference, the renderer's own: the MPFR step, "
        "dZ/dC, the error bound and the 106-bit tails) at C = -0.1 + 0.6i with random digits to each "
        "precision (inside the main cardioid: the orbit neither escapes nor stops). Each precision runs "
        "about --seconds (default 1) of single-thread MPFR, then the same iterations with the step's "
        "three products on 2 and 3 threads (kernels/perturb/reference_step.h). *same orbit*: every "
        "stored point equal bit for bit to the single-thread orbit. *auto*: the threads that "
        "`render` uses at that precision on this host. *GPU*: the fixed-point orbit on the CUDA device "
        "(kernels/perturb/reference_gpu.cu: number-theoretic-transform products, error at most 2^-F a "
        "step), timed over its own iteration count (calibrated like MPFR's); *= twin*: its first "
        "points (up to 64) equal bit for bit to the CPU twin's (GMP, reference_fixed.h); *= MPFR*: the "
        "share of its stored points (106 bits) equal to MPFR's orbit of the same length. Stored: "
     << point_bytes << " bytes a point (zr, zi in floatexp, and their 53-bit tails).\n\n"
     << "| bits | iterations | MPFR 1 thread (it/s) | 2 threads (it/s) | x | 3 threads (it/s) | x | same orbit | "
        "GPU iterations | GPU (it/s) | x | = twin | = MPFR | auto |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (int bits : precisions) {
    const std::string re = digits("-0.1", bits), im = digits("0.6", bits);
    // Calibrate: a few iterations, then as many as the budget holds.
    uint32_t iters = 8;
    for (;;) {
      const Run c = run(re, im, bits, iters, 1);
      if (c.seconds > budget / 8 || iters >= (1u << 26)) {
        iters = static_cast<uint32_t>(std::max(8.0, std::min(4e9, iters * budget / std::max(c.seconds, 1e-9))));
        break;
      }
      iters *= 8;
    }
    const Run one = run(re, im, bits, iters, 1);
    // Below 8,192 bits a handover costs more than a product: the split runs fewer iterations (its
    // rate is what compares), against a single-thread orbit of the same length.
    const uint32_t split_iters = bits >= 8192 ? iters : std::max<uint32_t>(64, iters / 256);
    const Run one_split = split_iters == iters ? one : run(re, im, bits, split_iters, 1);
    const Run two = run(re, im, bits, split_iters, 2);
    const Run three = run(re, im, bits, split_iters, 3);
    const bool same = same_orbit(*one_split.ref, *two.ref) && same_orbit(*one_split.ref, *three.ref);
    const double rate1 = (one.ref->length() - 1) / one.seconds;
    const double rate2 = (two.ref->length() - 1) / two.seconds, rate3 = (three.ref->length() - 1) / three.seconds;
    const int autot = perturb::reference_step_threads(bits, cores);
    std::string gpu_cols = "- | - | - | - | - | ";
    bool gpu_same = true;
    if (gpu) {
      uint32_t giters = 64;
      Run g;
      for (;;) {
        g = run(re, im, bits, giters, 0, perturb::ReferencePath::kGpu);
        if (g.seconds > budget / 8 || giters >= (1u << 26)) break;
        giters *= 8;
      }
      giters = static_cast<uint32_t>(std::max(64.0, std::min(4e9, giters * budget / std::max(g.seconds, 1e-9))));
      g = run(re, im, bits, giters, 0, perturb::ReferencePath::kGpu);
      const double rateg = (g.ref->length() - 1) / g.seconds;
      const uint32_t twin_iters = std::min<uint32_t>(64, giters);
      const Run twin = run(re, im, bits, twin_iters, 0, perturb::ReferencePath::kFixedCpu);
      gpu_same = g.ref->fixed_point() && twin.ref->length() == twin_iters + 1u;
      for (uint64_t k = 0; gpu_same && k < twin.ref->length(); ++k) gpu_same = same_point(*g.ref, *twin.ref, k);
      uint64_t equal = 0;
      const uint64_t common = std::min(g.ref->length(), one.ref->length());
      for (uint64_t k = 0; k < common; ++k)
        equal += same_point(*g.ref, *one.ref, k);
      gpu_cols = std::to_string(giters) + " | " + fmt("%.4g", rateg) + " | " + fmt("%.2f", rateg / rate1) + " | " +
                 (gpu_same ? "yes" : "**NO**") + " | " + fmt("%.4f", static_cast<double>(equal) / common) + " | ";
      std::fprintf(stderr, "%8d bits: GPU %u iterations, %.3g it/s, x%.2f MPFR%s\n", bits, giters, rateg,
                   rateg / rate1, gpu_same ? "" : "  GPU DIFFERS FROM ITS CPU TWIN");
    }
    const bool auto_gpu = gpu && bits >= perturb::kGpuReferenceMinBits;
    std::fprintf(stderr, "%8d bits: %u iterations, 1 thread %.3g it/s, 2 threads x%.2f, 3 threads x%.2f%s\n", bits,
                 iters, rate1, rate2 / rate1, rate3 / rate1, same ? "" : "  ORBITS DIFFER");
    md << "| " << bits << " | " << iters << (split_iters == iters ? "" : " (split: " + std::to_string(split_iters) + ")")
       << " | " << fmt("%.4g", rate1) << " | " << fmt("%.4g", rate2) << " | " << fmt("%.2f", rate2 / rate1) << " | "
       << fmt("%.4g", rate3) << " | " << fmt("%.2f", rate3 / rate1) << " | " << (same ? "yes" : "**NO**") << " | "
       << gpu_cols << (auto_gpu ? std::string("GPU") : std::to_string(autot)) << " |\n";
    if (!gpu_same) {
      std::cout << md.str();
      std::fprintf(stderr, "bench reference: the GPU orbit differs from its CPU twin at %d bits\n", bits);
      return 1;
    }
    if (!same) {
      std::cout << md.str();
      std::fprintf(stderr, "bench reference: the threaded orbit differs from MPFR's at %d bits\n", bits);
      return 1;
    }
  }
  std::cout << md.str();
  if (!out.empty()) write_file_atomically(out, md.str());
  return 0;
}

}  // namespace ds::app
