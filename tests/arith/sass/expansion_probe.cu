// Static SASS probe for Expansion<N> (not built by CMake): one kernel per operation and N, each
// loading its operands, doing one operation and storing the result; and the Hénon step with double
// parameters, x' = (y + 1.0) - sqr(x) * a, y' = x * b. count.sh compiles it for sm_90 and counts
// the FP64 instructions (DADD, DMUL, DFMA, DSETP, ...) of each kernel, with ptxas's spill report.
#include "arith/expansion.h"

using ds::Expansion;

#define PROBE(NAME, EXPR)                                                                                  \
  template <int N>                                                                                         \
  __global__ void NAME(const Expansion<N>* x, const Expansion<N>* y, const double* d, Expansion<N>* out) { \
    int i = threadIdx.x;                                                                                   \
    Expansion<N> a = x[i], b = y[i];                                                                       \
    double c = d[i];                                                                                       \
    (void)b;                                                                                               \
    (void)c;                                                                                               \
    out[i] = EXPR;                                                                                         \
  }

PROBE(k_add, a + b)
PROBE(k_add_double, a + c)
PROBE(k_mul, a* b)
PROBE(k_sqr, sqr(a))
PROBE(k_mul_double, a* c)

// One Hénon step (double a, b), the loop body of the benchmark.
template <int N>
__global__ void k_henon(Expansion<N>* x, Expansion<N>* y, const double* d) {
  int i = threadIdx.x;
  Expansion<N> xx = x[i], yy = y[i];
  double a = d[0], b = d[1];
  Expansion<N> nx = (yy + 1.0) - sqr(xx) * a;
  yy = xx * b;
  x[i] = nx;
  y[i] = yy;
}

// A Hénon loop like kernels/henon.cuh's (both kinds of parameters, so every operation and its slow
// path is in the kernel): its registers and spills are what a real orbit kernel pays.
template <int N>
__global__ void k_henon_loop(const Expansion<N>* p, Expansion<N>* xs, long steps) {
  int i = threadIdx.x;
  Expansion<N> a = p[0], b = p[1], x = xs[i], y = xs[i + 1];
  for (long k = 0; k < steps; ++k) {
    Expansion<N> nx;
    if (a.t[1] == 0.0 && b.t[1] == 0.0) {
      nx = (y + 1.0) - sqr(x) * a.t[0];
      y = x * b.t[0];
    } else {
      nx = (y + 1.0) - a * sqr(x);
      y = b * x;
    }
    x = nx;
  }
  xs[i] = x;
  xs[i + 1] = y;
}

#define INST(N)                                                                                              \
  template __global__ void k_add<N>(const Expansion<N>*, const Expansion<N>*, const double*, Expansion<N>*); \
  template __global__ void k_add_double<N>(const Expansion<N>*, const Expansion<N>*, const double*,          \
                                           Expansion<N>*);                                                   \
  template __global__ void k_mul<N>(const Expansion<N>*, const Expansion<N>*, const double*, Expansion<N>*); \
  template __global__ void k_sqr<N>(const Expansion<N>*, const Expansion<N>*, const double*, Expansion<N>*); \
  template __global__ void k_mul_double<N>(const Expansion<N>*, const Expansion<N>*, const double*,          \
                                           Expansion<N>*);                                                   \
  template __global__ void k_henon<N>(Expansion<N>*, Expansion<N>*, const double*);                          \
  template __global__ void k_henon_loop<N>(const Expansion<N>*, Expansion<N>*, long);

INST(3)
INST(4)
INST(5)
INST(6)
INST(7)
INST(8)
