// The period map's construction (period_map.h): the Taylor model of a wrapping reference's whole
// period, with its truncation bounds, in double words (or long double).
#include "period_map.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <limits>
#include <mutex>
#include <thread>

#include "cpu_detail.h"
#include "dw_delta.h"
#include "kernels/core/cpu_parallel.h"
#include "kernels/core/spin.h"
#include "perturb.h"

namespace ds::perturb {
namespace {

using LD = long double;
using CLD = std::complex<LD>;

LD to_ld(FloatExp x) { return std::ldexp(static_cast<LD>(x.m), x.e); }
LD to_ld(const FloatExp2& x) { return std::ldexp(static_cast<LD>(x.hi) + static_cast<LD>(x.lo), x.e); }
FloatExp from_ld(LD x) { return floatexp_from_ld(x); }

// The candidates for rho: rt 2^-e_c, e_c = c for the first 16, then by 4 (16 times less, at most
// kCandidates in all) down to 2^-8 rv: a pixel whose t is far inside the domain takes the bound of
// the least candidate that holds it (at a minibrot larger than the view its t ~ dc sits 2^-83
// below the map's own scale, and the top's bound, absolute, was 4,000 times its value).
constexpr int kCandidates = 64;
// The unit roundoff of long double's 64-bit significand.
constexpr LD kLdRoundoff = 5.42101086242752217e-20L;  // 2^-64

// The coefficients' arithmetic: long double (64 bits, any depth), or the double word (106 bits,
// binary64's exponent range) for the 106-bit tier's map.
struct Narrow {
  using R = LD;
  static constexpr LD kRoundoff = kLdRoundoff;
  static void point(const Reference& ref, uint64_t k, R* re, R* im) {
    *re = to_ld(ref.re106(k));
    *im = to_ld(ref.im106(k));
  }
  static R of(LD x) { return x; }
  static LD mag(R x) { return x; }
};
struct Wide {
  using R = DwDelta;
  static constexpr LD kRoundoff = DwDelta::kUnitRoundoff;
  // Only for a reference whose points are all in the double word's range (dw_points_in_range).
  static void point(const Reference& ref, uint64_t k, R* re, R* im) {
    bool ok = true;
    *re = dw_from(ref.re106(k), &ok);
    *im = dw_from(ref.im106(k), &ok);
  }
  static R of(LD x) { return dw_from_ld(x); }
  static LD mag(R x) { return static_cast<LD>(x.hi) + static_cast<LD>(x.lo); }
};

template <class A>
PeriodMap build_uncached(const Reference& ref, FloatExp dcmax, int N, const std::atomic<bool>* cancel) {
  using R = typename A::R;
  struct Cx {
    R re, im;
  };
  const auto cmul = [](const Cx& a, const Cx& b) { return Cx{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; };
  const auto cabs_of = [](const Cx& a) { return std::hypot(A::mag(a.re), A::mag(a.im)); };
  PeriodMap pm;
  pm.wide = std::is_same<A, Wide>::value;
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t len = ref.length();
  if (!ref.wraps() || len < 4) {
    pm.why = "the reference does not wrap";
    return pm;
  }
  const uint64_t last = len - 1;
  if (last - 1 > kPeriodMapMaxSteps) {
    pm.why = "its period is above 2^18";
    return pm;
  }
  // The scales are powers of 2, so that x = t / rt and y = v / rv are exact in every delta type (a
  // 1 / rt rounded to 53 bits put an error of 2^-53 into the double words' x, and a wrong count
  // into view 25's 8x6 at 10^7 iterations: 7,748,293 against MPFR's 7,748,337).
  const auto pow2_above = [](LD x) { return std::ldexp(LD(1), std::ilogb(x) + 1); };
  const LD rv = pow2_above(to_ld(dcmax));
  // The ladder starts at 4 times the map's own scale in t, the least |a1 / a2| over the period of
  // its first two coefficients in t (dz_k = a1 t + a2 t^2 + ...: where the quadratic term would
  // pass the linear one), to the power of 2 above, and goes down by 2s. (Anchored at the view's
  // size instead, it missed the pixels of a minibrot much larger than the view.)
  LD scale_t = std::numeric_limits<LD>::infinity();
  {
    CLD a1(1), a2(0);
    for (uint64_t k = 1; k < last; ++k) {
      const CLD z2 = LD(2) * CLD(to_ld(ref.re106(k)), to_ld(ref.im106(k)));
      a2 = z2 * a2 + a1 * a1;
      a1 = z2 * a1;
      const LD q = std::abs(a2);
      if (q > 0) scale_t = std::min(scale_t, std::abs(a1) / q);
    }
  }
  const LD rt = pow2_above(4 * scale_t);
  if (!(rv > 0) || !std::isfinite(rt) || rt == 0) {
    pm.why = "the view's size is out of long double's range";
    return pm;
  }
  const int terms = period_map_terms(N);
  const R zero = A::of(0);
  // The points 1 .. last - 1 in R.
  std::vector<Cx> zs(last);
  for (uint64_t k = 1; k < last; ++k) A::point(ref, k, &zs[k].re, &zs[k].im);
  // Two buffers: step k reads buf[k & 1] and writes buf[(k + 1) & 1].
  std::vector<Cx> buf[2] = {std::vector<Cx>(terms, Cx{zero, zero}), std::vector<Cx>(terms, Cx{zero, zero})};
  buf[1][period_map_index(1, 0, N)].re = A::of(rt);  // F at k = 1: t = rt x
  const R rv_r = A::of(rv);
  // Squaring to total degree N: for each output term, the pairs (q1 <= q2) that make it (the
  // others' twin doubled).
  struct Pair {
    int q1, q2;
    bool twice;
  };
  std::vector<std::vector<Pair>> pairs(terms);
  for (int i1 = 0; i1 <= N; ++i1)
    for (int j1 = 0; i1 + j1 <= N; ++j1)
      for (int i2 = i1; i1 + i2 <= N; ++i2)
        for (int j2 = i2 == i1 ? j1 : 0; i1 + i2 + j1 + j2 <= N; ++j2) {
          const int q1 = period_map_index(i1, j1, N), q2 = period_map_index(i2, j2, N);
          pairs[period_map_index(i1 + i2, j1 + j2, N)].push_back(Pair{q1, q2, q1 != q2});
        }
  // rho_c^i, and for each candidate the bound E and the roundings' estimate R so far.
  int exps[kCandidates];
  int candidates = 0;
  {
    const int bottom = std::ilogb(rt / rv) + 8;
    for (int e = 0; candidates < kCandidates; e += candidates < 16 ? 1 : 4) {
      exps[candidates++] = e;
      if (e >= bottom) break;
    }
  }
  std::vector<LD> rp(static_cast<std::size_t>(candidates) * (N + 1));
  for (int c = 0; c < candidates; ++c)
    for (int i = 0; i <= N; ++i) rp[c * (N + 1) + i] = std::pow(std::ldexp(LD(1), -exps[c]), i);
  LD bound[kCandidates] = {}, rnd[kCandidates] = {};
  bool ok[kCandidates];
  std::fill(ok, ok + kCandidates, true);
  // The magnitudes of each buffer's terms, written beside the terms by whoever wrote them.
  std::vector<LD> mags[2] = {std::vector<LD>(terms), std::vector<LD>(terms)};
  for (int q = 0; q < terms; ++q) mags[1][q] = cabs_of(buf[1][q]);
  // The weighted sums of |b_ij| rho^i by total degree d = i + j, their total S, and the bound on
  // the products that squaring drops (total degree above N), over magnitudes m (s: N + 1 scratch).
  const auto graded = [&](const LD* m, int c, LD* s, LD* total, LD* dropped) {
    std::fill(s, s + N + 1, LD(0));
    const LD* r = &rp[c * (N + 1)];
    for (int i = 0; i <= N; ++i)
      for (int j = 0; i + j <= N; ++j) s[i + j] += m[period_map_index(i, j, N)] * r[i];
    LD t = 0, h = 0;
    for (int d = 0; d <= N; ++d) {
      t += s[d];
      for (int e = N + 1 - d; e <= N; ++e) h += s[d] * s[e];
    }
    *total = t;
    *dropped = h;
  };
  const LD growth_terms = std::sqrt(static_cast<LD>(N + 2));
  // The roundings' estimate against S only grows along the steps (it is multiplied by g at each,
  // where S grows at most by g, plus rv in one term), so once it is past kRoundingGiveUp times the
  // binary64 domain's tolerance at every candidate still alive, no domain can end within it: the
  // build stops there instead of at the end (a long double map over FractalShark's view 13, 69,078
  // steps, ends at 2^-54 of S: 3.5 s on 2 cores, and 12 s on the GPU host at 1920x1080, for
  // nothing). Checked from step kRoundingCheckFrom on, where the first steps' rv no longer weighs.
  constexpr LD kRoundingGiveUp = 4;
  constexpr uint64_t kRoundingCheckFrom = 64;
  // The threads: the output terms split among them by their pairs' count, the candidates' bounds
  // dealt round them (candidate c to thread c mod workers), one barrier a step. (With the bounds
  // on the calling thread alone, they were a fifth of the work and the others slept on the barrier
  // every step: FractalShark's view 28, 224,629 steps, took 13 s on 2 cores and 15 s on 16.)
  std::size_t total_pairs = 0;
  for (const auto& v : pairs) total_pairs += v.size() + 1;
  const unsigned workers = std::max(1u, std::min<unsigned>(resolve_threads(0), 16));
  std::vector<int> split(workers + 1, terms);
  split[0] = 0;
  {
    std::size_t acc = 0;
    unsigned w = 1;
    for (int q = 0; q < terms && w < workers; ++q) {
      acc += pairs[q].size() + 1;
      if (acc * workers >= total_pairs * w) split[w++] = q + 1;
    }
  }
  // What each thread's candidates said of step k, in flags[k & 1]: one still alive (no pixel of its
  // domain escapes), and one whose roundings are still within reach of a tolerance. The calling
  // thread reads step k's after its barrier, before the next one, so the threads' writes of step
  // k + 2 come after.
  struct Flags {
    bool any = false, within = false;
  };
  std::vector<Flags> flags[2] = {std::vector<Flags>(workers), std::vector<Flags>(workers)};
  // Thread w's candidates at step k (from buf[k & 1]).
  const auto bounds_share = [&](uint64_t k, unsigned w, LD* s) {
    const LD* m = mags[k & 1].data();
    const LD zk = cabs_of(zs[k]);
    Flags f;
    f.within = k < kRoundingCheckFrom;
    for (int c = static_cast<int>(w); c < candidates; c += static_cast<int>(workers)) {
      if (!ok[c]) continue;
      LD S, H;
      graded(m, c, s, &S, &H);
      // No pixel of the domain escapes here: |z_k| <= |Z_k| + S + E (+ the roundings) < 2.
      if (!(zk + S + bound[c] + rnd[c] < 2 * (1 - 1e-9L)) || !std::isfinite(S)) {
        ok[c] = false;
        continue;
      }
      f.any = true;
      const LD g = 2 * zk + 2 * S;
      bound[c] = H + g * bound[c] + bound[c] * bound[c];
      const LD local = A::kRoundoff * growth_terms * (2 * zk * S + S * S + rv);
      rnd[c] = std::hypot(g * rnd[c], local);
      if (rnd[c] <= kRoundingGiveUp * static_cast<LD>(kPeriodMapTolerance) * S) f.within = true;
    }
    flags[k & 1][w] = f;
  };
  // b <- 2 Z b + b^2 (to total degree N) + rv y, for thread w's output terms, and their magnitudes.
  const int qy = period_map_index(0, 1, N);
  const auto square_share = [&](uint64_t k, unsigned w) {
    const std::vector<Cx>& b = buf[k & 1];
    std::vector<Cx>& nb = buf[(k + 1) & 1];
    std::vector<LD>& nm = mags[(k + 1) & 1];
    const Cx z2{zs[k].re * 2.0, zs[k].im * 2.0};
    for (int q = split[w]; q < split[w + 1]; ++q) {
      Cx o = cmul(z2, b[q]);
      for (const Pair& pr : pairs[q]) {
        Cx m = cmul(b[pr.q1], b[pr.q2]);
        if (pr.twice) m = Cx{m.re * 2.0, m.im * 2.0};
        o.re = o.re + m.re;
        o.im = o.im + m.im;
      }
      if (q == qy) o.re = o.re + rv_r;
      nb[q] = o;
      nm[q] = cabs_of(o);
    }
  };
  std::atomic<uint64_t> arrived{0};
  // The barrier generation after which everyone stops (0: none). The calling thread sets it before
  // arriving there, so every worker reads it after that barrier. (A plain flag set during a step's
  // bounds let a worker still leaving the barrier before see it, stop a step early, and leave the
  // calling thread waiting at the next barrier for ever: FractalShark's view 5 at 10^6 iterations,
  // whose every domain reaches |z| = 2, hung so.)
  std::atomic<uint64_t> stop_gen{0};
  std::mutex barrier_mu;
  std::condition_variable barrier_cv;
  // Every worker's arrival number `generation`: a spin of at most 50 us (a step's work is
  // microseconds on many cores), then a wait on the condition, which the last to arrive signals.
  // (Spinning alone, with yields, took a step per scheduler slice wherever other processes held the
  // cores: a campaign test beside another ran past 300 s.)
  const auto barrier = [&](uint64_t generation) {
    const uint64_t want = generation * workers;
    if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == want) {
      std::lock_guard<std::mutex> lock(barrier_mu);
      barrier_cv.notify_all();
      return;
    }
    if (spin_for(std::chrono::microseconds(50), [&] { return arrived.load(std::memory_order_acquire) >= want; }))
      return;
    std::unique_lock<std::mutex> lock(barrier_mu);
    barrier_cv.wait(lock, [&] { return arrived.load(std::memory_order_acquire) >= want; });
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w)
    pool.emplace_back([&, w] {
      std::vector<LD> s(N + 1);
      uint64_t gen = 0;
      for (uint64_t k = 1; k < last; ++k) {
        bounds_share(k, w, s.data());
        square_share(k, w);
        barrier(++gen);
        if (stop_gen.load(std::memory_order_acquire) == gen) break;
      }
    });
  // The calling thread: its share, then after each barrier the step's verdict. A stop found at
  // step k takes effect at the next barrier (every thread runs step k + 1, whose results are
  // dropped with the map), or at the loop's end.
  std::vector<LD> s0(N + 1);
  uint64_t gen = 0, stopped_at = 0;
  bool cancelled = false, stop = false, rounding_floor = false;
  for (uint64_t k = 1; k < last; ++k) {
    bounds_share(k, 0, s0.data());
    square_share(k, 0);
    barrier(++gen);
    if (stop) break;
    if (cancel && (k & 63) == 0 && cancel->load(std::memory_order_relaxed)) cancelled = true;
    bool any = false, within = false;
    for (const Flags& f : flags[k & 1]) {
      any = any || f.any;
      within = within || f.within;
    }
    if (cancelled || !any || !within) {
      stop = true;
      stopped_at = k;
      rounding_floor = any && !within;
      stop_gen.store(gen + 1, std::memory_order_release);
    }
  }
  for (std::thread& t : pool) t.join();
  if (stop) {
    pm.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    pm.why = cancelled        ? "cancelled"
             : rounding_floor ? "its roundings pass 2^-58 of the map by step " + std::to_string(stopped_at) + " of " +
                                  std::to_string(last - 1) + (pm.wide ? "" : " in long double")
                            : "every domain reaches |z| = 2 within the period (by step " + std::to_string(stopped_at) +
                                  " of " + std::to_string(last - 1) + ")";
    return pm;
  }
  const std::vector<Cx>& b = buf[last & 1];
  const LD* mag = mags[last & 1].data();
  // The two domains: the largest rho within each tolerance (binary64's, and the double words').
  const LD tolerance[3] = {static_cast<LD>(kPeriodMapTolerance), static_cast<LD>(kPeriodMapToleranceWide),
                           static_cast<LD>(kPeriodMapToleranceFine)};
  int best[3] = {-1, -1, -1};
  LD best_s[3] = {0, 0, 0};
  for (int w = 0; w < 3; ++w)
    for (int c = 0; c < candidates && best[w] < 0; ++c) {
      if (!ok[c]) continue;
      LD S, H;
      graded(mag, c, s0.data(), &S, &H);
      if (std::isfinite(S) && S > 0 && bound[c] + rnd[c] <= tolerance[w] * S) {
        best[w] = c;
        best_s[w] = S;
      }
    }
  pm.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (best[0] < 0) {
    pm.why = "no domain keeps the truncation below 2^-60 of the map";
    return pm;
  }
  pm.degree = N;
  pm.steps = last - 1;
  pm.coef.resize(terms);
  if constexpr (std::is_same<A, Wide>::value) {
    pm.wide_re.resize(terms);
    pm.wide_im.resize(terms);
    for (int q = 0; q < terms; ++q) {
      pm.wide_re[q] = b[q].re;
      pm.wide_im[q] = b[q].im;
      pm.coef[q] = CLD(A::mag(b[q].re), A::mag(b[q].im));
    }
  } else {
    for (int q = 0; q < terms; ++q) pm.coef[q] = CLD(b[q].re, b[q].im);
  }
  pm.rt = from_ld(rt);
  pm.rv = from_ld(rv);
  for (int c = 0; c < candidates; ++c)
    if (ok[c]) {
      pm.rung_radius.push_back(from_ld(std::ldexp(rt, -exps[c])));
      pm.rung_error.push_back(from_ld(bound[c] + rnd[c]));
    }
  const int first_ok = static_cast<int>(std::find(ok, ok + candidates, true) - ok);
  for (int w = 0; w < 3; ++w) {
    if (best[w] < 0 || (w >= 1 && !pm.wide)) continue;
    pm.first_rung[w] = best[w] - first_ok;
    pm.radius[w] = from_ld(std::ldexp(rt, -exps[best[w]]));
    pm.error[w] = from_ld(bound[best[w]] + rnd[best[w]]);
    pm.scale[w] = from_ld(best_s[w]);
  }
  return pm;
}

}  // namespace

FloatExp floatexp_from_ld(long double x) {
  if (x == 0 || !std::isfinite(x)) return FloatExp(static_cast<double>(x));
  int e = 0;
  const long double m = std::frexp(x, &e);
  return FloatExp::make(static_cast<double>(m), e);
}

DwDelta dw_from_ld(long double x) {
  DwDelta d;
  d.hi = static_cast<double>(x);
  d.lo = static_cast<double>(x - static_cast<long double>(d.hi));
  return d;
}

bool period_map_worth(const Reference& ref, uint64_t pixels, uint64_t max_iter) {
  if (!ref.wraps() || ref.length() < 4) return false;
  const uint64_t steps = ref.length() - 2;
  if (steps > kPeriodMapMaxSteps) return false;
  const int n = kPeriodMapDegreeWide;
  const double pairs = (n + 1.0) * (n + 2) * (n + 3) * (n + 4) / 48.0;
  return static_cast<double>(pixels) * static_cast<double>(max_iter) >=
         kPeriodMapWorkRatio * static_cast<double>(steps) * pairs;
}

// The last map built, for the same reference and dcmax: the first pass's table and the 106-bit
// tier's coarse table (bla.h) ask for it each, and a sequence's frames again.
PeriodMap build_period_map(const Reference& ref, FloatExp dcmax, const std::atomic<bool>* cancel) {
  struct Key {
    std::string re, im;
    int bits = 0;
    uint64_t len = 0;
    double dm = 0;
    int de = 0;
    bool operator==(const Key& o) const {
      return re == o.re && im == o.im && bits == o.bits && len == o.len && dm == o.dm && de == o.de;
    }
  };
  static std::mutex mu;
  static Key last_key;
  static PeriodMap last;
  const Key key{ref.re, ref.im, ref.bits, ref.length(), dcmax.m, dcmax.e};
  {
    std::lock_guard<std::mutex> lock(mu);
    if (last_key == key && !last_key.re.empty()) return last;
  }
  // Double words where every point is in their range (the 106-bit tier's own condition), else
  // long double (the first pass only).
  const PeriodMap pm = cpu_detail::dw_points_in_range(ref)
                           ? build_uncached<Wide>(ref, dcmax, kPeriodMapDegreeWide, cancel)
                           : build_uncached<Narrow>(ref, dcmax, kPeriodMapDegree, cancel);
  if (cancel && cancel->load()) return pm;  // possibly cut short: not kept
  std::lock_guard<std::mutex> lock(mu);
  last_key = key;
  last = pm;
  return pm;
}

}  // namespace ds::perturb
