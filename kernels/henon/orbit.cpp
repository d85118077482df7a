// The Hénon workspace's orbits and period detection on the host: an orbit for plotting (on the CPU
// or through the CUDA wrappers), and the period, cycle and eigenvalues of one start point.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cycle.cuh"
#include "henon.h"
#include "kernels/core/backend.h"
#include "map_input.h"

namespace ds::henon {

namespace {

int sig_digits(const FormatTraits& tr) { return decimal::digits_for_bits(tr.bits); }

template <class T>
BigValue big_value(const Scaled<T>& s) {
  BigValue v;
  const double m = to_double(s.m);
  if (m == 0.0) {
    v.text = "0";
    v.value = 0;
    v.log10_abs = -HUGE_VAL;
    return v;
  }
  v.value = std::ldexp(m, s.e);
  v.log10_abs = std::log10(std::fabs(m)) + s.e * std::log10(2.0);
  char buf[64];
  if (std::isnormal(v.value) && std::fabs(v.log10_abs) < 300) {
    std::snprintf(buf, sizeof buf, "%.17g", v.value);
  } else {
    const double ex = std::floor(v.log10_abs);
    const double mant = std::pow(10.0, v.log10_abs - ex) * (m < 0 ? -1 : 1);
    std::snprintf(buf, sizeof buf, "%.15fe%+.0f", mant, ex);
  }
  v.text = buf;
  return v;
}

template <class T>
OrbitResult orbit_t(const OrbitParams& op) {
  const MapInput& in = op.map;
  const MapParams<T> p = make_params<T>(in.a, in.b, in.bound, "1");
  T x = parse_value<T>("x0", in.x0), y = stored_y(parse_value<T>("y0", in.y0));
  OrbitResult r;
  if (outside(x, y, p.bound)) {
    r.escaped = true;
    r.escape_step = 0;
  } else if (op.backend == Backend::kCuda) {
    T state[2] = {x, y};
    r.xs.resize(static_cast<std::size_t>(op.n_points));
    r.ys.resize(static_cast<std::size_t>(op.n_points));
    int64_t n_out = 0, esc = -1;
    r.cancelled = !detail::orbit_cuda(in.arith, &p.a, &p.b, &p.bound, state, op.n_transient, op.n_points,
                                      op.cancel, r.xs.data(), r.ys.data(), &n_out, &esc);
    r.xs.resize(static_cast<std::size_t>(n_out));
    r.ys.resize(static_cast<std::size_t>(n_out));
    r.escaped = esc >= 0;
    r.escape_step = esc;
    x = state[0];
    y = state[1];
  } else {
    const double total = static_cast<double>(op.n_transient + op.n_points);
    int64_t done = 0;
    while (done < op.n_transient) {
      if (cancelled(op.cancel)) {
        r.cancelled = true;
        break;
      }
      const int64_t n = std::min<int64_t>(kSlice, op.n_transient - done);
      done += advance(p, x, y, n);
      if (outside(x, y, p.bound)) {
        r.escaped = true;
        r.escape_step = done;
        break;
      }
      if (op.progress) op.progress(static_cast<double>(done) / total);
    }
    if (!r.escaped && !r.cancelled) {
      r.xs.reserve(static_cast<std::size_t>(op.n_points));
      r.ys.reserve(static_cast<std::size_t>(op.n_points));
      for (int64_t i = 0; i < op.n_points; ++i) {
        if ((i & (kSlice - 1)) == 0 && cancelled(op.cancel)) {
          r.cancelled = true;
          break;
        }
        step(p.a, p.b, x, y);
        if (outside(x, y, p.bound)) {
          r.escaped = true;
          r.escape_step = op.n_transient + i + 1;
          break;
        }
        r.xs.push_back(to_double(x));
        r.ys.push_back(to_double(actual_y(y)));
      }
    }
  }
  r.final_x = to_string(x);
  r.final_y = to_string(actual_y(y));
  return r;
}

template <class T>
PeriodResult period_t(const PeriodParams& pp) {
  const MapInput& in = pp.map;
  const MapParams<T> p = make_params<T>(in.a, in.b, in.bound, pp.tol);
  T x = parse_value<T>("x0", in.x0), y = stored_y(parse_value<T>("y0", in.y0));
  PeriodResult r;
  if (outside(x, y, p.bound)) {
    r.escaped = true;
    return r;
  }
  int64_t done = 0;
  while (done < pp.n_transient) {
    if (cancelled(pp.cancel)) {
      r.cancelled = true;
      return r;
    }
    const int64_t n = std::min<int64_t>(kSlice, pp.n_transient - done);
    done += advance(p, x, y, n);
    if (outside(x, y, p.bound)) {
      r.escaped = true;
      return r;
    }
    if (pp.progress) pp.progress(static_cast<double>(done) / static_cast<double>(pp.n_transient + 1));
  }
  const int32_t k = detect_period(p, pp.p_max, x, y);
  if (k < 0) r.escaped = true;
  if (k <= 0) return r;
  r.period = k;
  const int digits = sig_digits(T::traits());
  T cx = x, cy = y;
  for (int32_t i = 0; i < k; ++i) {
    r.cycle.emplace_back(to_string(cx, digits), to_string(actual_y(cy), digits));
    step(p.a, p.b, cx, cy);
  }
  const CycleInfo<T> c = cycle_info(p, k, x, y);
  r.trace = big_value(c.trace);
  r.det = big_value(c.det);
  r.is_sink = is_sink(c.trace, c.det);
  const Eigen<T> ev = eigenvalues(c.trace, c.det);
  r.complex = ev.complex;
  r.l1_re = big_value(ev.re1);
  r.l2_re = big_value(ev.re2);
  if (ev.complex) {
    r.l1_im = big_value(ev.im1);
    Scaled<T> nim{neg(ev.im1.m), ev.im1.e};
    r.l2_im = big_value(nim);
    // |l|^2 = d for a conjugate pair.
    bool dummy = false;
    const Scaled<T> mod = scaled_sqrt(Scaled<T>{abs(c.det.m), c.det.e}, &dummy);
    r.l1_abs = r.l2_abs = big_value(mod);
  } else {
    r.l1_im = r.l2_im = big_value(Scaled<T>{T(0.0), 0});
    r.l1_abs = big_value(Scaled<T>{abs(ev.re1.m), ev.re1.e});
    r.l2_abs = big_value(Scaled<T>{abs(ev.re2.m), ev.re2.e});
  }
  if (ev.sqrt_in_double)
    r.note = std::string(T::traits().name) +
             " has no square root or division: those steps of the eigenvalues "
             "were taken in double (the sink decision is exact in the format)";
  if (pp.progress) pp.progress(1.0);
  return r;
}

void check_map_sizes(int64_t n_transient, int64_t n_points) {
  check_range("transient iterations", n_transient, 0, kMaxTransient);
  check_range("points", n_points, 0, kMaxPoints);
}

}  // namespace

OrbitResult orbit(const OrbitParams& p) {
  check_map_sizes(p.n_transient, p.n_points);
  OrbitParams q = p;
  q.backend = select_backend(p.backend);
  return dispatch(p.map.arith, [&](auto tag) { return orbit_t<typename decltype(tag)::type>(q); });
}

PeriodResult detect_period(const PeriodParams& p) {
  check_map_sizes(p.n_transient, 0);
  check_range("p_max", p.p_max, 1, kMaxPeriod);
  return dispatch(p.map.arith, [&](auto tag) { return period_t<typename decltype(tag)::type>(p); });
}

}  // namespace ds::henon
