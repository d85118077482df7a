// The fixed-point reference orbit on a CUDA device (reference_fixed.h; docs/perturbation.md,
// "Reference on the GPU"). One step is five launches on one stream, with no host round trip: the
// forward number-theoretic transforms of X and Y (ntt.cuh), the products X^2 - Y^2 and 2 X Y in the
// transform domain, the inverse transforms, the carries and the rounding (with C added), and the
// point's record. The host reads the records of a chunk of steps at once.
#include <memory>
#include <vector>

#include <algorithm>

#include "kernels/core/backend.h"
#include "kernels/core/cuda_check.h"
#include "kernels/core/cuda_memory.cuh"
#include "kernels/perturb/ntt.cuh"
#include "kernels/perturb/reference_fixed.cuh"
#include "kernels/perturb/reference_fixed.h"

namespace ds::perturb {
namespace {

// Elements of one transform a block holds in shared memory (two transforms: 16 KB).
constexpr int kBlockLog2 = 10;
constexpr int kBlockElems = 1 << kBlockLog2;
constexpr int kThreads = 256;
constexpr int kMaxLog2N = 2 * kBlockLog2;     // the top stages fit one block's columns up to here
constexpr std::size_t kChunkRecords = 1024;  // steps between the host's reads
constexpr int kGraphSteps = 32;              // steps in the captured graph, replayed
constexpr int64_t kHalfDigit = int64_t{1} << (kFixedDigitBits - 1);

struct Plan {
  int digits;   // L
  int log2n;    // transform length N = 2^log2n >= 2L - 1
  int log2c;    // contiguous block of the middle kernel: C = min(N, kBlockElems)
  uint64_t inv_n;
};

// ---- transforms -------------------------------------------------------------------------------

// The stages whose span is at least C (DIF: N/2 .. C; DIT: C .. N/2): column i0 < C of both
// transforms holds the elements i0 + j C, j < S = N / C, and a block takes E / S consecutive
// columns. With `load`, the forward pass reads the digits; the inverse pass writes the signed
// coefficients (scaled by 1/N).
template <bool kInverse>
__global__ void top_stages(const int32_t* __restrict__ x, const int32_t* __restrict__ y, uint64_t* fa,
                           uint64_t* fb, const uint64_t* __restrict__ tw, Plan plan, bool load,
                           const int* __restrict__ stop) {
  if (*stop) return;
  __shared__ uint64_t sm[2][kBlockElems];
  const int C = 1 << plan.log2c, S = 1 << (plan.log2n - plan.log2c), cols = kBlockElems / S;
  const int col0 = blockIdx.x * cols;
  for (int e = threadIdx.x; e < kBlockElems; e += blockDim.x) {
    const int col = e % cols, j = e / cols;
    const int g = col0 + col + j * C;
    if (load) {
      sm[0][col * S + j] = g < plan.digits ? ntt::from_signed(x[g]) : 0;
      sm[1][col * S + j] = g < plan.digits ? ntt::from_signed(y[g]) : 0;
    } else {
      sm[0][col * S + j] = fa[g];
      sm[1][col * S + j] = fb[g];
    }
  }
  __syncthreads();
  const int half = S / 2;
  for (int H = kInverse ? 1 : half; kInverse ? H <= half : H >= 1; H = kInverse ? H * 2 : H / 2) {
    for (int b = threadIdx.x; b < 2 * cols * half; b += blockDim.x) {
      const int t = b / (cols * half), r = b % (cols * half), col = r / half, q = r % half;
      const int pos = q % H, j = (q / H) * 2 * H + pos;
      // global index i = i0 + j C, span h = H C: twiddle exponent (i mod h) N / 2h.
      const uint64_t w = tw[static_cast<int64_t>(col0 + col + pos * C) * (S / (2 * H))];
      uint64_t* a = &sm[t][col * S + j];
      if (kInverse)
        ntt::butterfly_dit(a, a + H, w);
      else
        ntt::butterfly_dif(a, a + H, w);
    }
    __syncthreads();
  }
  for (int e = threadIdx.x; e < kBlockElems; e += blockDim.x) {
    const int col = e % cols, j = e / cols;
    const int g = col0 + col + j * C;
    uint64_t u = sm[0][col * S + j], v = sm[1][col * S + j];
    if (kInverse) {
      u = static_cast<uint64_t>(ntt::to_signed(ntt::mul(u, plan.inv_n)));
      v = static_cast<uint64_t>(ntt::to_signed(ntt::mul(v, plan.inv_n)));
    }
    fa[g] = u;
    fb[g] = v;
  }
}

// The stages of span below C on contiguous blocks of C elements, the products in the transform
// domain (R = X^2 - Y^2, I = 2 X Y, bit-reversed order), and the inverse stages of span below C.
// `first`: the forward transform starts here (N <= C: read the digits); `last`: the inverse ends
// here (write the signed coefficients).
__global__ void middle_stages(const int32_t* __restrict__ x, const int32_t* __restrict__ y, uint64_t* fa,
                              uint64_t* fb, const uint64_t* __restrict__ tw_f, const uint64_t* __restrict__ tw_i,
                              Plan plan, bool first, bool last, const int* __restrict__ stop) {
  if (*stop) return;
  __shared__ uint64_t sm[2][kBlockElems];
  const int C = 1 << plan.log2c;
  const int base = blockIdx.x * C;
  const int log2n = plan.log2n;
  for (int e = threadIdx.x; e < C; e += blockDim.x) {
    const int g = base + e;
    if (first) {
      sm[0][e] = g < plan.digits ? ntt::from_signed(x[g]) : 0;
      sm[1][e] = g < plan.digits ? ntt::from_signed(y[g]) : 0;
    } else {
      sm[0][e] = fa[g];
      sm[1][e] = fb[g];
    }
  }
  __syncthreads();
  for (int h = C / 2; h >= 1; h /= 2) {
    for (int b = threadIdx.x; b < C; b += blockDim.x) {  // C/2 butterflies in each of 2 transforms
      const int t = b / (C / 2), q = b % (C / 2), pos = q % h, li = (q / h) * 2 * h + pos;
      const uint64_t w = tw_f[static_cast<int64_t>(pos) << (log2n - 1 - __ffs(h) + 1)];
      ntt::butterfly_dif(&sm[t][li], &sm[t][li + h], w);
    }
    __syncthreads();
  }
  for (int e = threadIdx.x; e < C; e += blockDim.x) {
    const uint64_t a = sm[0][e], b = sm[1][e], ab = ntt::mul(a, b);
    sm[0][e] = ntt::sub(ntt::mul(a, a), ntt::mul(b, b));
    sm[1][e] = ntt::add(ab, ab);
  }
  __syncthreads();
  for (int h = 1; h <= C / 2; h *= 2) {
    for (int b = threadIdx.x; b < C; b += blockDim.x) {
      const int t = b / (C / 2), q = b % (C / 2), pos = q % h, li = (q / h) * 2 * h + pos;
      const uint64_t w = tw_i[static_cast<int64_t>(pos) << (log2n - 1 - __ffs(h) + 1)];
      ntt::butterfly_dit(&sm[t][li], &sm[t][li + h], w);
    }
    __syncthreads();
  }
  for (int e = threadIdx.x; e < C; e += blockDim.x) {
    uint64_t u = sm[0][e], v = sm[1][e];
    if (last) {
      u = static_cast<uint64_t>(ntt::to_signed(ntt::mul(u, plan.inv_n)));
      v = static_cast<uint64_t>(ntt::to_signed(ntt::mul(v, plan.inv_n)));
    }
    fa[base + e] = u;
    fb[base + e] = v;
  }
}

// ---- carries and rounding ---------------------------------------------------------------------

__device__ __forceinline__ int64_t carry_of(int64_t v) { return (v + kHalfDigit) >> kFixedDigitBits; }
__device__ __forceinline__ int64_t low_of(int64_t v) { return v - (carry_of(v) << kFixedDigitBits); }

// Coefficient i of the exact part times 2^(2F): the product's, plus C 2^F (C's digit j lands at
// i = j + L - 1); 0 outside [0, 2L - 2].
__device__ __forceinline__ int64_t coefficient(const int64_t* __restrict__ prod, const int32_t* __restrict__ c,
                                               int i, int L) {
  if (i < 0) return 0;
  return prod[i] + (i >= L - 1 ? c[i - (L - 1)] : 0);
}

// Digit i after three carry passes (each: d_i <- low(d_i) + carry(d_{i-1}); the top position 2L - 2
// keeps its whole value): |digit| <= 2^21 + 1 below the top. Recomputed from the coefficients
// i - 3 .. i, so every digit is one thread's work.
__device__ int64_t settled_digit(const int64_t* __restrict__ prod, const int32_t* __restrict__ c, int i, int L) {
  const int top = 2 * L - 2;
  int64_t v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) v[k] = coefficient(prod, c, i - 3 + k, L);
#pragma unroll
  for (int pass = 0; pass < 3; ++pass) {
    // after the pass, v[k] is position i - 3 + k for k > pass
#pragma unroll
    for (int k = 3; k > pass; --k) {
      const int pos = i - 3 + k;
      v[k] = (pos == top ? v[k] : low_of(v[k])) + carry_of(v[k - 1]);
    }
    // position i - 3 + pass is not needed by later passes (they read k - 1 >= pass)
    v[pass] = 0;
  }
  return v[3];
}

// New part digit j = settled digit j + L - 1, plus at j = 0 the rounding of everything below:
// floor(low / 2^F + 1/2), where low = sum_{i < L-1} d_i 2^(22 i) and its leading digit t = d_{L-2}
// decides unless t = +-2^21 (then the sign of the digits below it does).
__device__ int32_t settle_digit(const int64_t* prod, const int32_t* c, int j, int L) {
  int64_t d = settled_digit(prod, c, j + L - 1, L);
  if (j == 0 && L >= 2) {
    const int64_t t = settled_digit(prod, c, L - 2, L);
    int64_t round = 0;
    if (t > kHalfDigit) {
      round = 1;
    } else if (t < -kHalfDigit) {
      round = -1;
    } else if (t == kHalfDigit || t == -kHalfDigit) {
      int sign = 0;
      for (int i = L - 3; i >= 0 && sign == 0; --i) {
        const int64_t r = settled_digit(prod, c, i, L);
        sign = r > 0 ? 1 : r < 0 ? -1 : 0;
      }
      round = t > 0 ? (sign >= 0 ? 1 : 0) : (sign < 0 ? -1 : 0);
    }
    d += round;
  }
  return static_cast<int32_t>(d);
}

__global__ void settle(const uint64_t* fa, const uint64_t* fb, const int32_t* __restrict__ cr,
                       const int32_t* __restrict__ ci, int32_t* x, int32_t* y, int L, const int* __restrict__ stop) {
  if (*stop) return;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= L) return;
  const int part = blockIdx.y;
  (part ? y : x)[j] = settle_digit(reinterpret_cast<const int64_t*>(part ? fb : fa), part ? ci : cr, j, L);
}

// ---- the point's record -----------------------------------------------------------------------

// The highest index below `from` (inclusive) whose digit is nonzero, or -1; one warp.
__device__ int leading_digit(const int32_t* d, int from) {
  const int lane = threadIdx.x & 31;
  for (int base = from; base >= 0; base -= 32) {
    const int idx = base - lane;
    const unsigned nz = __ballot_sync(0xFFFFFFFFu, idx >= 0 && d[idx] != 0);
    if (nz) return base - (__ffs(nz) - 1);
  }
  return -1;
}

// The chunk's next point (*count of them so far) from the new digits, one warp per part: the
// leading digit and the 11 below it, the leading digit under those and its 11, and the sign of
// the rest, rounded by reference_fixed.cuh exactly as the host rounds the exact value. Past |Z| = 3
// (squared: 9) the chunk stops there (*stop = 1), so the caller sees the first point beyond its
// bailout of 2 and nothing after. The index lives on the device, so one captured graph serves
// every step.
struct PointScratch {
  int32_t window[2][kFixedWindow], lower[2][kFixedWindow];
  int leads[2], belows[2], rests[2];
  double mag2[2];
};

__device__ void write_point(const int32_t* x, const int32_t* y, OrbitPoint* out, int L, int F, int* stop,
                            PointScratch& s) {
  const int part = threadIdx.x / 32, lane = threadIdx.x & 31;
  if (part < 2) {
    const int32_t* d = part ? y : x;
    const int top = leading_digit(d, L - 1);
    if (lane < kFixedWindow) s.window[part][lane] = top >= 0 && top - lane >= 0 ? d[top - lane] : 0;
    const int below = top - kFixedWindow >= 0 ? leading_digit(d, top - kFixedWindow) : -1;
    if (lane < kFixedWindow) s.lower[part][lane] = below >= 0 && below - lane >= 0 ? d[below - lane] : 0;
    const int under = below - kFixedWindow >= 0 ? leading_digit(d, below - kFixedWindow) : -1;
    if (lane == 0) {
      s.leads[part] = top;
      s.belows[part] = below;
      s.rests[part] = under < 0 ? 0 : (d[under] > 0 ? 1 : -1);
    }
  }
  __syncthreads();
  if ((threadIdx.x & 31) == 0 && threadIdx.x / 32 < 2) {
    const int p = threadIdx.x / 32;
    FixedPart v{FloatExp(0.0), 0.0};
    if (s.leads[p] >= 0)
      v = round_fixed_part(s.window[p], s.leads[p], s.lower[p], s.belows[p], s.rests[p], F);
    (p ? out->im : out->re) = v.head;
    (p ? out->im_lo : out->re_lo) = v.tail;
    const double r = to_double(v.head);
    s.mag2[p] = r * r;
  }
  __syncthreads();
  if (threadIdx.x == 0 && s.mag2[0] + s.mag2[1] > 9.0) *stop = 1;
}

__global__ void record_point(const int32_t* x, const int32_t* y, OrbitPoint* rec, int* count, int L, int F,
                             int* stop) {
  if (*stop) return;
  __shared__ PointScratch scratch;
  const int k = *count;
  write_point(x, y, rec + k, L, F, stop, scratch);
  if (threadIdx.x == 0) *count = k + 1;
}

// Whole steps in one block, for transforms of at most kBlockElems points (up to about 11,000
// bits): the same stages, products, carries and point as the kernels above, in shared memory,
// `steps` of them in one launch (or until past |Z| = 3), with no launch between steps.
__global__ void __launch_bounds__(kThreads) small_orbit(int32_t* x, int32_t* y, const int32_t* __restrict__ cr,
                                                        const int32_t* __restrict__ ci,
                                                        const uint64_t* __restrict__ tw_f,
                                                        const uint64_t* __restrict__ tw_i, Plan plan, int F,
                                                        int steps, OrbitPoint* out, int* count, int* stop) {
  __shared__ uint64_t fa[kBlockElems], fb[kBlockElems];
  __shared__ int32_t dx[kBlockElems / 2], dy[kBlockElems / 2], sr[kBlockElems / 2], si[kBlockElems / 2];
  __shared__ PointScratch scratch;
  __shared__ int stopped;
  const int L = plan.digits, n = 1 << plan.log2n, log2n = plan.log2n, tid = threadIdx.x;
  for (int j = tid; j < L; j += blockDim.x) {
    dx[j] = x[j];
    dy[j] = y[j];
    sr[j] = cr[j];
    si[j] = ci[j];
  }
  if (tid == 0) stopped = 0;
  __syncthreads();
  int k = 0;
  for (; k < steps && !stopped; ++k) {
    for (int e = tid; e < n; e += blockDim.x) {
      fa[e] = e < L ? ntt::from_signed(dx[e]) : 0;
      fb[e] = e < L ? ntt::from_signed(dy[e]) : 0;
    }
    __syncthreads();
    // Sizes are powers of two: indices by shifts and masks.
    for (int lh = log2n - 1; lh >= 0; --lh) {
      const int h = 1 << lh;
      for (int b = tid; b < n; b += blockDim.x) {
        const int q = b & (n / 2 - 1), pos = q & (h - 1), li = ((q >> lh) << (lh + 1)) + pos;
        uint64_t* a = b < n / 2 ? fa : fb;
        ntt::butterfly_dif(&a[li], &a[li + h], tw_f[static_cast<int64_t>(pos) << (log2n - 1 - lh)]);
      }
      __syncthreads();
    }
    for (int e = tid; e < n; e += blockDim.x) {
      const uint64_t a = fa[e], b = fb[e], ab = ntt::mul(a, b);
      fa[e] = ntt::sub(ntt::mul(a, a), ntt::mul(b, b));
      fb[e] = ntt::add(ab, ab);
    }
    __syncthreads();
    for (int lh = 0; lh < log2n; ++lh) {
      const int h = 1 << lh;
      for (int b = tid; b < n; b += blockDim.x) {
        const int q = b & (n / 2 - 1), pos = q & (h - 1), li = ((q >> lh) << (lh + 1)) + pos;
        uint64_t* a = b < n / 2 ? fa : fb;
        ntt::butterfly_dit(&a[li], &a[li + h], tw_i[static_cast<int64_t>(pos) << (log2n - 1 - lh)]);
      }
      __syncthreads();
    }
    for (int e = tid; e < n; e += blockDim.x) {
      fa[e] = static_cast<uint64_t>(ntt::to_signed(ntt::mul(fa[e], plan.inv_n)));
      fb[e] = static_cast<uint64_t>(ntt::to_signed(ntt::mul(fb[e], plan.inv_n)));
    }
    __syncthreads();
    for (int j = tid; j < 2 * L; j += blockDim.x) {
      const int part = j >= L, jj = part ? j - L : j;
      (part ? dy : dx)[jj] = settle_digit(reinterpret_cast<const int64_t*>(part ? fb : fa), part ? si : sr, jj, L);
    }
    __syncthreads();
    write_point(dx, dy, out + k, L, F, &stopped, scratch);
    __syncthreads();
  }
  for (int j = tid; j < L; j += blockDim.x) {
    x[j] = dx[j];
    y[j] = dy[j];
  }
  if (tid == 0) {
    *count = k;
    *stop = stopped;
  }
}

// ---- the host side ----------------------------------------------------------------------------

// Runs f, turning a failed CUDA call into BackendError: the caller computes the orbit in MPFR then.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const CudaError& e) {
    throw BackendError(std::string("GPU reference: ") + e.what());
  }
}

class GpuFixedOrbit final : public FixedOrbit {
 public:
  GpuFixedOrbit(const std::string& re, const std::string& im, int bits, int device, const std::string& x,
                const std::string& y)
      : f_(fixed_format(bits)), device_(device) {
    guarded([&] { init(re, im, bits, x, y); });
  }

  ~GpuFixedOrbit() override {
    if (graph_) cudaGraphExecDestroy(graph_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  void next(std::size_t count, std::vector<OrbitPoint>* out) override {
    guarded([&] { compute(count, out); });
  }

  void state(std::string* x, std::string* y) override {
    guarded([&] { read_state(x, y); });
  }

  std::string name() const override { return "fixed point, CUDA (NTT)"; }

 private:
  void init(const std::string& re, const std::string& im, int bits, const std::string& x, const std::string& y) {
    DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device_));
    const int L = f_.digits;
    int log2n = 0;
    while ((1 << log2n) < 2 * L - 1) ++log2n;
    if (log2n > kMaxLog2N)
      throw BackendError("the GPU reference holds at most " + std::to_string((1 << (kMaxLog2N - 1)) * 22) +
                               " bits; asked " + std::to_string(bits));
    plan_.digits = L;
    plan_.log2n = log2n;
    plan_.log2c = std::min(log2n, kBlockLog2);
    plan_.inv_n = ntt::inverse(uint64_t{1} << log2n);
    const std::size_t n = std::size_t{1} << log2n;
    const std::size_t ld = static_cast<std::size_t>(L) * sizeof(int32_t);
    digits_ = std::make_unique<DeviceBuffer>(4 * ld);
    transforms_ = std::make_unique<DeviceBuffer>(2 * n * sizeof(uint64_t));
    twiddles_ = std::make_unique<DeviceBuffer>(std::max<std::size_t>(n, 2) * sizeof(uint64_t));
    records_ = std::make_unique<DeviceBuffer>(kChunkRecords * sizeof(OrbitPoint));
    stop_ = std::make_unique<DeviceBuffer>(2 * sizeof(int));  // stop, count
    DEEPSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    std::vector<int32_t> host(4 * static_cast<std::size_t>(L), 0);
    const auto put = [&](int slot, const std::vector<int32_t>& d) {
      std::copy(d.begin(), d.end(), host.begin() + static_cast<std::ptrdiff_t>(slot) * L);
    };
    if (!x.empty()) put(0, fixed_digits(x, f_));
    if (!y.empty()) put(1, fixed_digits(y, f_));
    put(2, fixed_digits(fixed_constant(re, f_), f_));
    put(3, fixed_digits(fixed_constant(im, f_), f_));
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(digits_->p, host.data(), 4 * ld, cudaMemcpyHostToDevice));
    std::vector<uint64_t> tw(std::max<std::size_t>(n, 2));
    const uint64_t w = ntt::root_of_unity(log2n), wi = ntt::inverse(w);
    uint64_t a = 1, b = 1;
    for (std::size_t e = 0; e < n / 2; ++e, a = ntt::mul(a, w), b = ntt::mul(b, wi)) {
      tw[e] = a;
      tw[n / 2 + e] = b;
    }
    DEEPSCOPE_CUDA_CHECK(cudaMemcpy(twiddles_->p, tw.data(), tw.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
  }

  void compute(std::size_t count, std::vector<OrbitPoint>* out) {
    DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device_));
    const bool small = plan_.log2n <= kBlockLog2;
    if (!graph_ && !small) {
      // kGraphSteps steps captured once: a replay costs one launch instead of five a step.
      cudaGraph_t g = nullptr;
      DEEPSCOPE_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
      for (int k = 0; k < kGraphSteps; ++k) step();
      DEEPSCOPE_CUDA_CHECK(cudaStreamEndCapture(stream_, &g));
      const cudaError_t made = cudaGraphInstantiateWithFlags(&graph_, g, 0);
      cudaGraphDestroy(g);
      DEEPSCOPE_CUDA_CHECK(made);
    }
    while (count > 0 && !ended_) {
      const std::size_t m = std::min(count, kChunkRecords);
      DEEPSCOPE_CUDA_CHECK(cudaMemsetAsync(stop_->p, 0, 2 * sizeof(int), stream_));
      if (small) {
        int32_t* x = digits_->as<int32_t>();
        const int L = plan_.digits;
        const uint64_t* tw_f = twiddles_->as<uint64_t>();
        const std::size_t n = std::size_t{1} << plan_.log2n;
        small_orbit<<<1, kThreads, 0, stream_>>>(x, x + L, x + 2 * L, x + 3 * L, tw_f, tw_f + n / 2, plan_,
                                                 f_.fraction_bits, static_cast<int>(m), records_->as<OrbitPoint>(),
                                                 stop_->as<int>() + 1, stop_->as<int>());
        DEEPSCOPE_CUDA_CHECK_LAUNCH();
      } else {
        std::size_t k = 0;
        for (; k + kGraphSteps <= m; k += kGraphSteps) DEEPSCOPE_CUDA_CHECK(cudaGraphLaunch(graph_, stream_));
        for (; k < m; ++k) step();
      }
      records_host_.resize(m);
      int flags[2] = {0, 0};
      DEEPSCOPE_CUDA_CHECK(cudaMemcpyAsync(records_host_.data(), records_->p, m * sizeof(OrbitPoint),
                                           cudaMemcpyDeviceToHost, stream_));
      DEEPSCOPE_CUDA_CHECK(cudaMemcpyAsync(flags, stop_->p, 2 * sizeof(int), cudaMemcpyDeviceToHost, stream_));
      DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
      const std::size_t got = static_cast<std::size_t>(flags[1]);
      out->insert(out->end(), records_host_.begin(), records_host_.begin() + static_cast<std::ptrdiff_t>(got));
      ended_ = flags[0] != 0;
      if (!ended_ && got != m) throw BackendError("GPU reference: the device recorded fewer steps than launched");
      count -= m;
    }
  }

  void read_state(std::string* x, std::string* y) {
    DEEPSCOPE_CUDA_CHECK(cudaSetDevice(device_));
    const std::size_t L = static_cast<std::size_t>(f_.digits);
    std::vector<int32_t> h(2 * L);
    DEEPSCOPE_CUDA_CHECK(cudaMemcpyAsync(h.data(), digits_->p, 2 * L * sizeof(int32_t), cudaMemcpyDeviceToHost, stream_));
    DEEPSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    *x = fixed_hex(std::vector<int32_t>(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(L)));
    *y = fixed_hex(std::vector<int32_t>(h.begin() + static_cast<std::ptrdiff_t>(L), h.end()));
  }

  void step() {
    const int L = plan_.digits;
    int32_t* x = digits_->as<int32_t>();
    int32_t* y = x + L;
    const int32_t* cr = x + 2 * L;
    const int32_t* ci = x + 3 * L;
    const std::size_t n = std::size_t{1} << plan_.log2n;
    uint64_t* fa = transforms_->as<uint64_t>();
    uint64_t* fb = fa + n;
    const uint64_t* tw_f = twiddles_->as<uint64_t>();
    const uint64_t* tw_i = tw_f + n / 2;
    int* stop = stop_->as<int>();
    int* recorded = stop + 1;
    const bool split = plan_.log2n > plan_.log2c;
    const int columns = kBlockElems >> (plan_.log2n - plan_.log2c);  // per top_stages block
    const int top_blocks = (1 << plan_.log2c) / std::max(columns, 1);
    if (split) {
      top_stages<false><<<top_blocks, kThreads, 0, stream_>>>(x, y, fa, fb, tw_f, plan_, true, stop);
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
    }
    middle_stages<<<static_cast<unsigned>(n >> plan_.log2c), kThreads, 0, stream_>>>(x, y, fa, fb, tw_f, tw_i, plan_,
                                                                                     !split, !split, stop);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    if (split) {
      top_stages<true><<<top_blocks, kThreads, 0, stream_>>>(x, y, fa, fb, tw_i, plan_, false, stop);
      DEEPSCOPE_CUDA_CHECK_LAUNCH();
    }
    settle<<<dim3(static_cast<unsigned>((L + kThreads - 1) / kThreads), 2), kThreads, 0, stream_>>>(fa, fb, cr, ci, x,
                                                                                                   y, L, stop);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
    record_point<<<1, 64, 0, stream_>>>(x, y, records_->as<OrbitPoint>(), recorded, L, f_.fraction_bits, stop);
    DEEPSCOPE_CUDA_CHECK_LAUNCH();
  }

  FixedFormat f_;
  int device_;
  Plan plan_{};
  cudaStream_t stream_ = nullptr;
  cudaGraphExec_t graph_ = nullptr;
  std::unique_ptr<DeviceBuffer> digits_, transforms_, twiddles_, records_, stop_;
  std::vector<OrbitPoint> records_host_;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<FixedOrbit> gpu_fixed_orbit(const std::string& re, const std::string& im, int bits, int device,
                                            const std::string& x, const std::string& y) {
  return std::make_unique<GpuFixedOrbit>(re, im, bits, device, x, y);
}

}  // namespace ds::perturb
