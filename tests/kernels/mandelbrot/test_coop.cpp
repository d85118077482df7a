// The warp-level GPU code on the host: a 32-lane warp emulated with user-space fibers runs the
// cooperative limb strategy (kernels/mandelbrot/coop.cuh) and the refill schedule (refill_pixels) exactly
// as the GPU runs them; every result must equal Limb<N>'s operators and mandel_pixel bit for bit,
// and all lanes must meet at every collective. (The device section of test_mandelbrot.cpp
// compares the real kernels.)
#include <gtest/gtest.h>
#include <ucontext.h>

#include <functional>
#include <memory>
#include <vector>

#include "kernels/mandelbrot/coop.cuh"
#include "oracle.h"
#include "locations.h"

namespace {

using namespace ds;
using namespace ds::mandel;

// Switches stacks: saves the callee-saved registers and the stack pointer into *from, resumes the
// context whose stack pointer is `to`. x86-64 only; other hosts, and AddressSanitizer builds
// (which must see stack switches), use ucontext (slower: a system call per switch).
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define DEEPSCOPE_FIBER_ASM 1
#else
#define DEEPSCOPE_FIBER_ASM 0
#endif
#if DEEPSCOPE_FIBER_ASM
extern "C" void ds_test_switch(void** from, void* to);
asm(R"(
.text
.globl ds_test_switch
.type ds_test_switch, @function
ds_test_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size ds_test_switch, .-ds_test_switch
)");
#endif

// 32 fibers in lockstep: every collective is a barrier at which each fiber yields to the
// scheduler, which resumes the fibers round-robin. A collective writes, waits, reads, waits.
class FiberWarp {
 public:
  void run(std::function<void(unsigned lane)> body) {
    body_ = std::move(body);
    running_ = this;
    for (unsigned l = 0; l < 32; ++l) {
      stacks_[l].reset(new char[kStack]);
      done_[l] = false;
#if DEEPSCOPE_FIBER_ASM
      // The new stack "returns" into trampoline() with the alignment of a fresh call.
      uintptr_t top = (reinterpret_cast<uintptr_t>(stacks_[l].get()) + kStack) & ~uintptr_t{15};
      void** frame = reinterpret_cast<void**>(top - 16);
      frame[0] = reinterpret_cast<void*>(&FiberWarp::trampoline);
      for (int r = 1; r <= 6; ++r) frame[-r] = nullptr;
      sp_[l] = frame - 6;
#else
      getcontext(&fiber_[l]);
      fiber_[l].uc_stack.ss_sp = stacks_[l].get();
      fiber_[l].uc_stack.ss_size = kStack;
      fiber_[l].uc_link = &main_;
      makecontext(&fiber_[l], &FiberWarp::trampoline, 0);
#endif
    }
    for (bool live = true; live;) {
      live = false;
      for (unsigned l = 0; l < 32; ++l) {
        if (done_[l]) continue;
        current_ = l;
#if DEEPSCOPE_FIBER_ASM
        ds_test_switch(&main_sp_, sp_[l]);
#else
        swapcontext(&main_, &fiber_[l]);
#endif
        live = live || !done_[l];
      }
    }
  }
  void barrier() {
#if DEEPSCOPE_FIBER_ASM
    ds_test_switch(&sp_[current_], main_sp_);
#else
    swapcontext(&fiber_[current_], &main_);
#endif
  }
  uint32_t slot_[32] = {};
  uint64_t tag_[32] = {};
  bool desync = false;
  unsigned long long counter = 0;  // refill_pixels' pixel counter

 private:
  static constexpr size_t kStack = 1 << 18;
  static inline thread_local FiberWarp* running_ = nullptr;
  static void trampoline() {
    FiberWarp* self = running_;
    const unsigned lane = self->current_;
    self->body_(lane);
    self->done_[lane] = true;
#if DEEPSCOPE_FIBER_ASM
    void* dead;
    ds_test_switch(&dead, self->main_sp_);  // never resumed
#endif
  }
  std::function<void(unsigned)> body_;
#if DEEPSCOPE_FIBER_ASM
  void* main_sp_ = nullptr;
  void* sp_[32] = {};
#else
  ucontext_t main_, fiber_[32];
#endif
  std::unique_ptr<char[]> stacks_[32];
  bool done_[32] = {};
  unsigned current_ = 0;
};

// The warp policy coop code expects, over the fibers. Every collective also checks that all 32
// lanes reached the same collective (on the GPU a full-mask shuffle or ballot that some lanes skip
// is undefined behaviour); a mismatch sets FiberWarp::desync.
struct HostWarp {
  FiberWarp* w;
  unsigned lane_;
  mutable uint64_t seq_ = 0;
  unsigned lane() const { return lane_; }
  template <class Read>
  auto collective(uint32_t value, int kind, Read read) const {
    w->slot_[lane_] = value;
    w->tag_[lane_] = (++seq_ << 2) | static_cast<uint64_t>(kind);
    w->barrier();
    for (unsigned l = 0; l < 32; ++l)
      if (w->tag_[l] != w->tag_[lane_]) w->desync = true;
    auto r = read();
    w->barrier();
    return r;
  }
  uint32_t ballot(bool p) const {
    return collective(p ? 1u : 0u, 1, [&] {
      uint32_t m = 0;
      for (unsigned l = 0; l < 32; ++l) m |= (w->slot_[l] ? 1u : 0u) << l;
      return m;
    });
  }
  uint32_t shfl(uint32_t v, int src) const {
    return collective(v, 2, [&] { return w->slot_[src & 31]; });
  }
  bool all(bool p) const { return ballot(p) == 0xffffffffu || w->desync; }  // desync: let loops end
  bool any(bool p) const { return ballot(p) != 0; }
  unsigned long long claim(unsigned n) const {
    const unsigned long long base = w->counter;
    w->counter += n;
    return base;
  }
  void sync() const {
    collective(0u, 3, [] { return 0; });
  }
};

// Runs f(warp, lane, segment) on every lane of an emulated warp.
template <int N, class F>
void run_warp(F f) {
  auto fw = std::make_unique<FiberWarp>();
  FiberWarp* p = fw.get();
  p->run([&](unsigned lane) { f(HostWarp{p, lane}, coop::Lane<N>(lane), lane / coop::Shape<N>::S); });
  ASSERT_FALSE(p->desync) << "lanes of the warp reached different collectives";
}

template <int N>
Limb<N> random_limb(std::mt19937_64& rng, int pattern) {
  Limb<N> x;
  for (int k = 0; k < N; ++k) x.w[k] = static_cast<uint32_t>(rng());
  switch (pattern % 6) {
    case 0:
      x.w[0] %= 4;
      break;  // |x| < 4
    case 1:
      x.w[0] = 0;
      break;  // |x| < 1
    case 2:   // carries across every word
      for (int k = 1; k < N; ++k) x.w[k] = 0xffffffffu;
      x.w[0] %= 3;
      break;
    case 3:  // tiny: only the last words
      for (int k = 0; k < N - 2; ++k) x.w[k] = 0;
      break;
    case 4:
      x.w[0] = 1;
      for (int k = 1; k < N; ++k) x.w[k] = 0;
      break;  // exactly 1
    default:
      for (int k = 0; k < N; ++k) x.w[k] = 0;  // zero
      break;
  }
  x.neg = static_cast<uint32_t>(rng() & 1u);
  bool any = false;
  for (int k = 0; k < N; ++k) any = any || x.w[k];
  if (!any) x.neg = 0;
  return x;
}

template <int N>
void expect_same(const Limb<N>& want, const uint32_t* words, uint32_t neg, const char* what, int trial) {
  for (int k = 0; k < N; ++k) ASSERT_EQ(words[k], want.w[k]) << what << " word " << k << " trial " << trial;
  ASSERT_EQ(neg, want.neg) << what << " sign, trial " << trial;
}

// products() returns the magnitude of a*b; its sign is (a.neg ^ b.neg) unless it is zero.
template <int N>
Limb<N> magnitude(Limb<N> x) {
  x.neg = 0;
  return x;
}

template <int N>
void check_primitives(std::mt19937_64& rng, int warps) {
  constexpr int S = coop::Shape<N>::S, P = 32 / S;
  for (int t = 0; t < warps; ++t) {
    Limb<N> a[P], b[P];
    for (int p = 0; p < P; ++p) {
      a[p] = random_limb<N>(rng, static_cast<int>(rng() % 6));
      b[p] = random_limb<N>(rng, static_cast<int>(rng() % 6));
      if (rng() % 5 == 0) b[p] = a[p];  // equal magnitudes: exact cancellation
      if (rng() % 7 == 0) b[p] = -a[p];
    }
    uint32_t sq_a[P][N], sq_b[P][N], ab[P][N], sum[P][N], dif[P][N], sum_neg[P], dif_neg[P];
    double da[P];
    uint32_t sh[P][2 * S] = {};
    run_warp<N>([&](const HostWarp& w, const coop::Lane<N>& l, unsigned seg) {
      const uint32_t aw = l.word() ? a[seg].w[l.k] : 0u, bw = l.word() ? b[seg].w[l.k] : 0u;
      sh[seg][l.k] = aw;
      sh[seg][S + l.k] = bw;
      w.sync();
      uint32_t x2, y2, xy, sn, dn;
      coop::products(w, l, sh[seg], sh[seg] + S, &x2, &y2, &xy);
      const uint32_t s = coop::add_signed(w, l, aw, a[seg].neg, bw, b[seg].neg, &sn);
      const uint32_t d = coop::add_signed(w, l, aw, a[seg].neg, bw, b[seg].neg ^ 1u, &dn);
      const double v = coop::to_double(w, l, aw, a[seg].neg);
      if (l.word()) {
        sq_a[seg][l.k] = x2;
        sq_b[seg][l.k] = y2;
        ab[seg][l.k] = xy;
        sum[seg][l.k] = s;
        dif[seg][l.k] = d;
      }
      if (l.k == 0) {
        sum_neg[seg] = sn;
        dif_neg[seg] = dn;
        da[seg] = v;
      }
    });
    for (int p = 0; p < P; ++p) {
      const int trial = t * P + p;
      expect_same(sqr(a[p]), sq_a[p], 0u, "sqr(a)", trial);
      expect_same(sqr(b[p]), sq_b[p], 0u, "sqr(b)", trial);
      expect_same(magnitude(a[p] * b[p]), ab[p], 0u, "|a*b|", trial);  // the sign comes separately
      expect_same(a[p] + b[p], sum[p], sum_neg[p], "a+b", trial);
      expect_same(a[p] - b[p], dif[p], dif_neg[p], "a-b", trial);
      ASSERT_EQ(da[p], to_double(a[p])) << "to_double, trial " << trial;
    }
  }
}

template <int N>
void check_pixels(const View& v, int pixels) {
  constexpr int S = coop::Shape<N>::S, P = 32 / S;
  const MandelParams<Limb<N>> params = make_params<Limb<N>>(geometry(v), v);
  for (int first = 0; first < pixels; first += P) {
    PixelResult got[P];
    uint32_t sh[P][2 * S] = {};
    run_warp<N>([&](const HostWarp& w, const coop::Lane<N>& l, unsigned seg) {
      const int idx = first + static_cast<int>(seg);
      const bool valid = idx < pixels;
      const int i = idx % v.width, j = idx / v.width;
      const PixelResult r = coop::coop_pixel<N>(w, params, i, j, valid, sh[seg]);
      if (l.k == 0) got[seg] = r;
    });
    for (int p = 0; p < P && first + p < pixels; ++p) {
      const int idx = first + p;
      const PixelResult want = mandel_pixel(params, idx % v.width, idx / v.width);
      ASSERT_EQ(got[p].count, want.count) << "limb" << N << " pixel " << idx;
      ASSERT_EQ(got[p].smooth, want.smooth) << "limb" << N << " pixel " << idx;
    }
  }
}

template <int N>
struct W {
  static constexpr int value = N;
};
using Widths = ::testing::Types<W<4>, W<6>, W<8>, W<12>, W<16>, W<24>, W<32>>;
template <class T>
class CoopTyped : public ::testing::Test {};
TYPED_TEST_SUITE(CoopTyped, Widths);

TYPED_TEST(CoopTyped, OperationsEqualLimbOperators) {
  constexpr int N = TypeParam::value;
  auto rng = test::seeded_rng("coop primitives limb" + std::to_string(N));
  check_primitives<N>(rng, N <= 8 ? 400 : 100);
}

TYPED_TEST(CoopTyped, PixelsEqualThreadPerPixel) {
  constexpr int N = TypeParam::value;
  constexpr int P = 32 / coop::Shape<N>::S;  // pixels per emulated warp
  // Deep: near the Misiurewicz point i at zoom 1e30 (escape after about 50 iterations, every
  // word of c in use); KF's 1e14 location; the whole set (escapes at n = 1, interior pixels).
  View deep;
  deep.re = "1e-31";
  deep.im = "1";
  deep.zoom = "1e30";
  deep.width = 8;
  deep.height = 4;
  deep.max_iter = 200;
  check_pixels<N>(deep, 8 * P);
  View kf;
  kf.re = ds::test::kKf1e14Re;
  kf.im = ds::test::kKf1e14Im;
  kf.zoom = "1e14";
  kf.width = 8;
  kf.height = 4;
  kf.max_iter = 700;
  check_pixels<N>(kf, 4 * P);
  View whole;
  whole.width = 12;
  whole.height = 6;
  whole.zoom = "0.8";
  whole.max_iter = 24;
  check_pixels<N>(whole, 8 * P);
}

// refill_pixels on an emulated warp against mandel_pixel: lanes finish at different times and
// take new pixels; every pixel of the band must be written once, with mandel_pixel's result.
template <class T>
void check_refill(const View& v, int row_begin, int rows) {
  const MandelParams<T> params = make_params<T>(geometry(v), v);
  const size_t n = static_cast<size_t>(v.width) * v.height;
  std::vector<uint32_t> counts(n, 0xdeadbeefu);
  std::vector<float> smooth(n, -1.0f);
  auto fw = std::make_unique<FiberWarp>();
  FiberWarp* f = fw.get();
  f->run([&](unsigned lane) {
    refill_pixels(HostWarp{f, lane}, params, 0, 0, v.width, row_begin, rows, counts.data(), smooth.data(), nullptr);
  });
  ASSERT_FALSE(f->desync) << "lanes of the warp reached different collectives";
  for (int j = 0; j < v.height; ++j)
    for (int i = 0; i < v.width; ++i) {
      const size_t k = static_cast<size_t>(j) * v.width + i;
      if (j < row_begin || j >= row_begin + rows) {
        EXPECT_EQ(counts[k], 0xdeadbeefu) << "pixel outside the band written: " << i << "," << j;
        continue;
      }
      const PixelResult want = mandel_pixel(params, i, j);
      ASSERT_EQ(counts[k], want.count) << i << "," << j;
      ASSERT_EQ(smooth[k], want.smooth) << i << "," << j;
    }
}

TEST(Refill, EveryPixelOnceWithMandelPixelsResult) {
  View v;
  v.re = "-0.7453";
  v.im = "0.1127";
  v.zoom = "100";
  v.width = 23;  // odd sizes: the last warp claims past the end of the band
  v.height = 9;
  v.max_iter = 300;
  check_refill<F64>(v, 2, 6);
  check_refill<F32>(v, 0, 9);
  View kf;
  kf.re = ds::test::kKf1e14Re;
  kf.im = ds::test::kKf1e14Im;
  kf.zoom = "1e14";
  kf.width = 11;
  kf.height = 7;
  kf.max_iter = 600;
  check_refill<Limb<4>>(kf, 1, 5);
  check_refill<Expansion<2>>(kf, 0, 7);
  View whole;
  whole.width = 40;
  whole.height = 20;
  whole.zoom = "0.8";
  whole.max_iter = 1;  // every pixel finishes in pixel_begin
  check_refill<F64>(whole, 0, 20);
}

}  // namespace
