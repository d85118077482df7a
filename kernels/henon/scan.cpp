// The Hénon workspace's grid sink scan on the host: validation, the CPU backend (all cores) and the
// CUDA launches chunk by chunk, the resumable chunk file, and the orbit-rate benchmark over the
// same loop.
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "cycle.cuh"
#include "henon.h"
#include "kernels/core/atomic_file.h"
#include "kernels/core/backend.h"
#include "kernels/core/cpu_parallel.h"
#include "kernels/core/device.h"
#include "map_input.h"

namespace ds::henon {

std::vector<double> init_points(const ScanParams& p) {
  if (!p.start_points.empty()) return p.start_points;
  // R2 sequence (Roberts 2018): g = 1/phi2, phi2 the real root of x^3 = x + 1.
  const double phi2 = 1.32471795724474602596;
  const double g1 = 1.0 / phi2, g2 = 1.0 / (phi2 * phi2);
  std::vector<double> pts(static_cast<std::size_t>(2 * p.n_init));
  for (int64_t j = 0; j < p.n_init; ++j) {
    const double t = static_cast<double>(j) + 0.5;
    const double u = t * g1 - std::floor(t * g1), v = t * g2 - std::floor(t * g2);
    pts[2 * j] = p.init_box[0] + (p.init_box[1] - p.init_box[0]) * u;
    pts[2 * j + 1] = p.init_box[2] + (p.init_box[3] - p.init_box[2]) * v;
  }
  return pts;
}

namespace {

int64_t resolve_chunk(const ScanParams& p) {
  if (p.chunk_params > 0) return p.chunk_params;
  return std::max<int64_t>(1, (int64_t{1} << 18) / p.n_init);  // 132 SMs x 2048 threads on an H100
}

void validate_scan(const ScanParams& p) {
  check_range("na", p.na, 1, kMaxScanSide);
  check_range("nb", p.nb, 1, kMaxScanSide);
  check_range("b_first", p.b_first, 0, kMaxScanSide);
  check_range("n_init", p.n_init, 1, 1'000'000);
  check_range("transient iterations", p.n_transient, 0, kMaxTransient);
  check_range("p_max", p.p_max, 1, kMaxPeriod);
  check_range("chunk", p.chunk_params, 0, 100'000'000);
  if (static_cast<double>(p.na) * static_cast<double>(p.nb) > static_cast<double>(kMaxScanParams))
    throw std::invalid_argument("na * nb (--na, --nb) must be at most 1e9, got " + std::to_string(p.na) + " x " +
                                std::to_string(p.nb));
  for (double v : p.init_box)
    if (!std::isfinite(v) || std::fabs(v) > p.bound)
      throw ArithError("init box must be finite and inside the escape bound");
  if (!(p.init_box[0] <= p.init_box[1]) || !(p.init_box[2] <= p.init_box[3]))
    throw std::invalid_argument("init box must be x_lo <= x_hi, y_lo <= y_hi");
  if (!p.start_points.empty()) {
    if (p.n_init != 1)
      throw std::invalid_argument("start points: n_init must be 1 (one start point per parameter)");
    if (static_cast<double>(p.start_points.size()) !=
        2.0 * static_cast<double>(p.na) * static_cast<double>(p.nb))
      throw std::invalid_argument("start points: need 2 na nb = " + std::to_string(2 * p.na * p.nb) +
                                  " values (x, y per parameter), got " +
                                  std::to_string(p.start_points.size()));
    for (double v : p.start_points)
      if (!std::isfinite(v) || std::fabs(v) > p.bound)
        throw std::invalid_argument("start points must be finite and inside the escape bound");
  }
}

// FNV-1a over the explicit start points' bytes: a chunk file of other start points is refused.
uint64_t start_points_hash(const std::vector<double>& v) {
  uint64_t h = 1469598103934665603ULL;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(double); ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

// Checks the parameter axis a_min + i step (i < n) in T at both ends, before anything is allocated.
template <class T>
void check_axis(const char* name, const std::string& lo, const std::string& stp, int64_t first, int64_t n,
                const ScanParams& sp) {
  const T t0 = parse_value<T>(std::string(name) + "_min", lo);
  const T ts = parse_value<T>(std::string(name) + "_step", stp);
  const double span = std::fabs(to_double(ts)) * static_cast<double>(first + n - 1);
  const double hi = std::fabs(to_double(t0)) + span;
  if (!std::isfinite(hi) || hi >= T::traits().max_abs / 4)
    throw ArithError(std::string(name) + " range leaves the range of " + T::traits().name);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", hi);
  if (std::string(name) == "a")
    (void)make_params<T>(buf, "0", sp.bound, sp.tol);
  else
    (void)make_params<T>("0", buf, sp.bound, sp.tol);
}

// The parameter values a_min + i step in T (two rounded operations each).
template <class T>
std::vector<T> axis_values(const char* name, const std::string& lo, const std::string& stp, int64_t first,
                           int64_t n, const ScanParams& sp) {
  check_axis<T>(name, lo, stp, first, n, sp);
  const T t0 = T::from_string(lo), ts = T::from_string(stp);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = t0 + ts * T(static_cast<double>(first + i));
  return v;
}

std::string fingerprint(const ScanParams& p) {
  std::ostringstream s;
  s.precision(17);
  s << "arith=" << arith_name(p.arith) << " a=" << p.a_min << "+i*" << p.a_step << ",n=" << p.na
    << " b=" << p.b_min << "+j*" << p.b_step << ",n=" << p.nb << " init=" << p.n_init << "[" << p.init_box[0]
    << "," << p.init_box[1] << "," << p.init_box[2] << "," << p.init_box[3] << "] nt=" << p.n_transient
    << (p.b_first ? " b_first=" + std::to_string(p.b_first) : std::string()) << " pmax=" << p.p_max
    << " tol=" << p.tol << " bound=" << p.bound << " chunk=" << resolve_chunk(p);
  if (!p.start_points.empty())
    s << " starts=" << p.start_points.size() / 2 << ":" << start_points_hash(p.start_points);
  return s.str();
}

const char* kChunkMagic = "deepscope-henon-scan v2 ";

std::string param_record(const ParamResult& r) {
  std::string s = "p " + std::to_string(r.ia) + " " + std::to_string(r.ib) + " " + r.a + " " + r.b + " " +
                  std::to_string(r.escaped) + " " + std::to_string(r.aperiodic) + " " +
                  std::to_string(r.cycles.size());
  for (const CycleFound& c : r.cycles)
    s += " " + std::to_string(c.period) + " " + std::to_string(c.count) + " " + (c.sink ? "1" : "0") + " " +
         detail::format_double(c.x) + " " + detail::format_double(c.y);
  return s + "\n";
}

// Whitespace-separated tokens of a record, read in order (a hand parser: an istringstream per
// record cost a plane of 2e6 pixels most of its host time in locale and stream set-up).
class Tokens {
 public:
  explicit Tokens(const std::string& s) : p_(s.c_str()) {}
  // The C locale's white space, without a library call per character.
  static bool space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
  bool word(std::string* out) {
    while (*p_ && space(*p_)) ++p_;
    const char* b = p_;
    while (*p_ && !space(*p_)) ++p_;
    if (p_ == b) return false;
    out->assign(b, p_);
    return true;
  }
  template <class I>
  bool integer(I* out, int64_t lo, int64_t hi) {
    std::string w;
    if (!word(&w)) return false;
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(w.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
    *out = static_cast<I>(v);
    return true;
  }

 private:
  const char* p_;
};

bool parse_record(const std::string& line, ParamResult* r) {
  Tokens in(line);
  std::string tag;
  int64_t n = 0;
  const int64_t i32_lo = INT32_MIN, i32_hi = INT32_MAX;
  if (!in.word(&tag) || tag != "p" || !in.integer(&r->ia, INT64_MIN, INT64_MAX) ||
      !in.integer(&r->ib, INT64_MIN, INT64_MAX) || !in.word(&r->a) || !in.word(&r->b) ||
      !in.integer(&r->escaped, i32_lo, i32_hi) || !in.integer(&r->aperiodic, i32_lo, i32_hi) ||
      !in.integer(&n, 0, INT64_MAX))
    return false;
  r->cycles.clear();
  for (int64_t i = 0; i < n; ++i) {
    CycleFound c;
    int sink = 0;
    std::string xs, ys;
    if (!in.integer(&c.period, i32_lo, i32_hi) || !in.integer(&c.count, i32_lo, i32_hi) ||
        !in.integer(&sink, i32_lo, i32_hi) || !in.word(&xs) || !in.word(&ys))
      return false;
    c.sink = sink != 0;
    c.x = std::strtod(xs.c_str(), nullptr);
    c.y = std::strtod(ys.c_str(), nullptr);
    r->cycles.push_back(c);
  }
  r->done = true;
  return true;
}

// The records of a chunk's payload (param_record lines), into res.params.
void take_records(const std::string& payload, int64_t na, int64_t nb, std::vector<ParamResult>* params) {
  std::istringstream in(payload);
  std::string line;
  while (std::getline(in, line)) {
    ParamResult r;
    if (!parse_record(line, &r) || r.ia < 0 || r.ia >= na || r.ib < 0 || r.ib >= nb)
      throw std::runtime_error("damaged Hénon chunk record: \"" + line.substr(0, 200) + "\"");
    (*params)[static_cast<std::size_t>(r.ib * na + r.ia)] = std::move(r);
  }
}

void add_item(ParamResult& r, const detail::ItemOut& it, double tol) {
  if (it.period < 0) {
    ++r.escaped;
    return;
  }
  if (it.period == 0) {
    ++r.aperiodic;
    return;
  }
  // Start points on the same cycle report canonical points within about tol of each other.
  const double g = std::max(100 * tol, 1e-12 * std::max(1.0, std::fabs(it.x)));
  for (CycleFound& c : r.cycles) {
    if (c.period == it.period && std::fabs(c.x - it.x) <= g && std::fabs(c.y - it.y) <= g) {
      ++c.count;
      c.sink = c.sink || it.sink;
      return;
    }
  }
  CycleFound c;
  c.period = it.period;
  c.count = 1;
  c.sink = it.sink != 0;
  c.x = it.x;
  c.y = it.y;
  r.cycles.push_back(c);
}

template <class T>
bool run_chunk_cpu(const std::vector<T>& as, const std::vector<T>& bs, const std::vector<double>& init,
                   const ScanParams& sp, const T& bound, const T& tol, int64_t n_params,
                   const std::function<void(double)>& progress, std::vector<detail::ItemOut>& out) {
  const int64_t items = n_params * sp.n_init;
  // Item i starts from point i % count: the shared points, or one per item (explicit start points).
  const int64_t init_count = static_cast<int64_t>(init.size() / 2);
  std::atomic<bool> aborted{false};
  ParallelOptions po;
  po.cancel = sp.cancel;
  po.progress = progress;
  const bool complete = parallel_for(
      static_cast<std::size_t>(items), 1,
      [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
          const int64_t pl = static_cast<int64_t>(i) / sp.n_init, j = static_cast<int64_t>(i) % init_count;
          const MapParams<T> p{as[pl], bs[pl], bound, tol};
          T x(init[2 * j]), y = stored_y(T(init[2 * j + 1]));
          detail::ItemOut r{-1, 0, 0.0, 0.0};
          bool alive = !outside(x, y, p.bound);
          int64_t done = 0;
          while (alive && done < sp.n_transient) {
            if (cancelled(sp.cancel)) {
              aborted = true;
              return;
            }
            const int64_t n = std::min<int64_t>(kSlice, sp.n_transient - done);
            done += advance(p, x, y, n);
            alive = !outside(x, y, p.bound);
          }
          if (alive) r = finish_item(p, sp.p_max, x, y);
          out[i] = r;
        }
      },
      po);
  return complete && !aborted.load();
}

uint64_t result_bytes(int64_t n_params) {
  return static_cast<uint64_t>(n_params) * (sizeof(ParamResult) + 160);
}

double nominal_rate(Backend b) {
  if (b == Backend::kCuda) return 2e12;
  return 2e8 * std::max(1u, std::thread::hardware_concurrency());
}

// The scan's chunked run (work::run over the parameter grid), each chunk's items handed to the
// codec, which writes the chunk's payload and reads it back (computed, or loaded from the file).
template <class T>
ScanResult scan_t(const ScanParams& sp, Backend be, const detail::ScanCodec& codec) {
  const std::vector<T> av = axis_values<T>("a", sp.a_min, sp.a_step, 0, sp.na, sp);
  const std::vector<T> bv = axis_values<T>("b", sp.b_min, sp.b_step, sp.b_first, sp.nb, sp);
  const MapParams<T> base = make_params<T>("0", "0", sp.bound, sp.tol);
  const double tol_d = to_double(base.tol);
  const std::vector<double> init = sp.start_points.empty() ? init_points(sp) : std::vector<double>();
  const int64_t np = sp.na * sp.nb, chunk = resolve_chunk(sp), chunks = (np + chunk - 1) / chunk;

  ScanResult res;
  res.backend = be;
  res.chunks = chunks;
  res.na = sp.na;
  res.nb = sp.nb;
  res.writer = work::is_writer();
  // The values' decimal text, once per axis value, for codecs that record it (an exact conversion:
  // a plane of 2e6 pixels spent most of its host time converting each parameter's a and b again).
  std::vector<std::string> a_text, b_text;
  if (codec.axis_text) {
    a_text.resize(av.size());
    b_text.resize(bv.size());
    for (std::size_t i = 0; i < av.size(); ++i) a_text[i] = to_string(av[i], 20);
    for (std::size_t j = 0; j < bv.size(); ++j) b_text[j] = to_string(bv[j], 20);
  }

  work::Job job;
  job.chunks = chunks;
  job.weight = [&](int64_t c) { return static_cast<double>(std::min(np, (c + 1) * chunk) - c * chunk); };
  job.chunk_file = sp.chunk_file;
  job.header = detail::chunk_header(codec.magic, sp);
  job.shard = sp.placement.shard;
  job.workers = work::workers(be, sp.placement.devices);
  job.cancel = sp.cancel;
  job.progress = sp.progress;
  // One chunk: its orbits on the worker's backend, then the codec's payload.
  job.compute = [&](int64_t c, const work::Worker& w, const std::atomic<bool>& stop,
                    const std::function<void(double)>& part, std::string* payload) {
    const int64_t q0 = c * chunk, q1 = std::min(np, q0 + chunk), n = q1 - q0;
    std::vector<T> ca(static_cast<std::size_t>(n)), cb(static_cast<std::size_t>(n));
    for (int64_t q = q0; q < q1; ++q) {
      ca[q - q0] = av[q % sp.na];
      cb[q - q0] = bv[q / sp.na];
    }
    std::vector<detail::ItemOut> out(static_cast<std::size_t>(n * sp.n_init),
                                     detail::ItemOut{-1, 0, 0.0, 0.0});
    // Explicit start points: this chunk's own, one per parameter.
    const std::vector<double> own =
        sp.start_points.empty()
            ? std::vector<double>()
            : std::vector<double>(sp.start_points.begin() + 2 * q0, sp.start_points.begin() + 2 * q1);
    const std::vector<double>& starts = sp.start_points.empty() ? init : own;
    bool complete;
    if (w.backend == Backend::kCuda) {
      complete = detail::scan_chunk_cuda(sp.arith, ca.data(), cb.data(), n, starts.data(), sp.n_init,
                                         &base.bound, &base.tol, sp.n_transient, sp.p_max, &stop, out.data(),
                                         nullptr, static_cast<int64_t>(starts.size() / 2));
    } else {
      ScanParams local = sp;
      local.cancel = &stop;
      complete = run_chunk_cpu<T>(ca, cb, starts, local, base.bound, base.tol, n, part, out);
    }
    if (!complete) return false;
    codec.encode(detail::ChunkItems{q0, q1, sp.na, out.data(), sp.n_init, tol_d, &a_text, &b_text}, payload);
    return true;
  };
  job.take = [&](int64_t c, const std::string& payload, bool loaded) {
    const int64_t q0 = c * chunk, q1 = std::min(np, q0 + chunk);
    codec.take(q0, q1, payload);
    if (!loaded && sp.on_chunk) sp.on_chunk(c, chunks);
  };
  const work::Stats st = work::run(job);
  res.chunks_owned = st.owned;
  res.chunks_loaded = st.loaded;
  res.chunks_run = st.run;
  res.cancelled = st.cancelled;
  res.per_worker = st.per_worker;
  res.seconds = st.seconds;
  return res;
}

}  // namespace

ScanEstimate estimate_scan(const ScanParams& p, Backend be) {
  validate_scan(p);
  dispatch(p.arith, [&](auto tag) {
    using T = typename decltype(tag)::type;
    check_axis<T>("a", p.a_min, p.a_step, 0, p.na, p);
    check_axis<T>("b", p.b_min, p.b_step, p.b_first, p.nb, p);
  });
  ScanEstimate e;
  const int64_t np = p.na * p.nb;
  e.chunk_params = std::min(np, resolve_chunk(p));
  e.chunks = (np + e.chunk_params - 1) / e.chunk_params;
  e.items = np * p.n_init;
  const int64_t chunk_items = std::min(np, e.chunk_params) * p.n_init;
  const std::size_t tsize = static_cast<std::size_t>(
      dispatch(p.arith, [](auto tag) { return sizeof(typename decltype(tag)::type); }));
  const double cost = arith_traits(p.arith).rel_cost;
  e.host_bytes = result_bytes(np) + static_cast<uint64_t>(p.na + p.nb) * tsize +
                 static_cast<uint64_t>(chunk_items) * (sizeof(detail::ItemOut) + 2 * tsize) +
                 static_cast<uint64_t>(p.n_init) * 16 + static_cast<uint64_t>(p.start_points.size()) * 8;
  if (be == Backend::kCuda)
    e.device_bytes = static_cast<uint64_t>(chunk_items) * (2 * tsize + 8 + sizeof(detail::ItemOut)) +
                     static_cast<uint64_t>(e.chunk_params) * 2 * tsize +
                     static_cast<uint64_t>(p.start_points.empty() ? p.n_init : e.chunk_params) * 16;
  e.steps = static_cast<double>(e.items) * (static_cast<double>(p.n_transient) + 3.0 * p.p_max);
  e.seconds = e.steps * std::max(1.0, cost) / nominal_rate(be);
  return e;
}

namespace detail {

void merge_items(const ItemOut* items, int64_t n, double tol, ParamResult* r) {
  for (int64_t j = 0; j < n; ++j) add_item(*r, items[j], tol);
  std::sort(r->cycles.begin(), r->cycles.end(), [](const CycleFound& x, const CycleFound& y) {
    return x.period != y.period ? x.period < y.period : x.x < y.x;
  });
}

std::string chunk_header(const std::string& magic, const ScanParams& p) { return magic + fingerprint(p); }

ScanResult scan_with(const ScanParams& p, const ScanCodec& codec) {
  const Backend be = select_backend(p.backend);
  const ScanEstimate e = estimate_scan(p, be);
  const uint64_t host = host_memory_bytes();
  if (host && e.host_bytes > host)
    throw std::runtime_error("the scan needs about " + std::to_string(e.host_bytes >> 20) +
                             " MiB of memory; this machine has " + std::to_string(host >> 20) + " MiB");
  if (be == Backend::kCuda) {
    const uint64_t dev = device_memory_bytes(0);
    if (dev && e.device_bytes > dev)
      throw std::runtime_error("the scan's chunks need about " + std::to_string(e.device_bytes >> 20) +
                               " MiB of GPU memory; the device has " + std::to_string(dev >> 20) +
                               " MiB (use a smaller --chunk)");
  }
  return dispatch(p.arith, [&](auto tag) { return scan_t<typename decltype(tag)::type>(p, be, codec); });
}

}  // namespace detail

ScanResult scan(const ScanParams& p) {
  // One text record per parameter (param_record): every cycle with its point, as the CSV needs.
  std::vector<ParamResult> params;
  detail::ScanCodec codec;
  codec.magic = kChunkMagic;
  codec.axis_text = true;
  codec.encode = [](const detail::ChunkItems& c, std::string* payload) {
    for (int64_t q = c.q0; q < c.q1; ++q) {
      ParamResult r;
      r.done = true;
      r.ia = q % c.na;
      r.ib = q / c.na;
      r.a = (*c.a_text)[static_cast<std::size_t>(r.ia)];
      r.b = (*c.b_text)[static_cast<std::size_t>(r.ib)];
      detail::merge_items(c.out + (q - c.q0) * c.n_init, c.n_init, c.tol, &r);
      *payload += param_record(r);
    }
  };
  codec.take = [&](int64_t, int64_t, const std::string& payload) { take_records(payload, p.na, p.nb, &params); };
  if (work::is_writer()) params.resize(static_cast<std::size_t>(p.na * p.nb));
  ScanResult r = detail::scan_with(p, codec);
  if (r.writer) r.params = std::move(params);
  return r;
}

std::string scan_chunk_header(const ScanParams& p) { return detail::chunk_header(kChunkMagic, p); }

OrbitRate orbit_rate(Arith arith, Backend backend, int64_t n_orbits, int64_t n_steps, bool double_params,
                     int64_t n_params) {
  check_range("orbits", n_orbits, 1, 100'000'000);
  check_range("steps", n_steps, 1, kMaxTransient);
  check_range("parameters", n_params, 1, n_orbits);
  if (n_orbits % n_params != 0)
    throw ArithError("orbit_rate: " + std::to_string(n_orbits) + " orbits do not split evenly over " +
                     std::to_string(n_params) + " parameters");
  const Backend be = select_backend(backend);
  return dispatch(arith, [&](auto tag) {
    using T = typename decltype(tag)::type;
    ScanParams sp;
    sp.arith = arith;
    sp.n_init = n_orbits / n_params;
    sp.n_transient = n_steps;
    sp.p_max = 1;
    MapParams<T> p = make_params<T>("1.4", "0.3", sp.bound, sp.tol);
    if (double_params) {
      p.a = T(1.4);
      p.b = T(0.3);
    }
    // n_params copies of (1.4, 0.3): a scan's launch over several parameters, each its own item range.
    const std::vector<T> as(static_cast<std::size_t>(n_params), p.a), bs(static_cast<std::size_t>(n_params), p.b);
    // Start points within 1e-3 of the origin, inside the attractor's basin: no orbit escapes, so
    // every orbit runs all n_steps steps.
    std::vector<double> init(static_cast<std::size_t>(2 * sp.n_init), 0.0);
    for (int64_t k = 0; k < sp.n_init; ++k)
      init[2 * k] = 1e-3 * static_cast<double>(k) / static_cast<double>(sp.n_init);
    std::vector<detail::ItemOut> out(static_cast<std::size_t>(n_orbits));
    double loop_seconds = 0;
    auto run = [&] {
      if (be == Backend::kCuda)
        detail::scan_chunk_cuda(arith, as.data(), bs.data(), n_params, init.data(), sp.n_init, &p.bound, &p.tol,
                                sp.n_transient, sp.p_max, nullptr, out.data(), &loop_seconds);
      else
        run_chunk_cpu<T>(as, bs, init, sp, p.bound, p.tol, n_params, nullptr, out);
    };
    if (be == Backend::kCuda) {  // warm-up: module load and clocks stay out of the timing
      const int64_t keep = sp.n_transient;
      sp.n_transient = std::min<int64_t>(keep, 1000);
      run();
      sp.n_transient = keep;
    }
    const auto t0 = std::chrono::steady_clock::now();
    run();
    OrbitRate r;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.steps_per_second = static_cast<double>(n_orbits) * static_cast<double>(n_steps) / r.seconds;
    r.loop_seconds = be == Backend::kCuda ? loop_seconds : r.seconds;
    r.loop_steps_per_second = static_cast<double>(n_orbits) * static_cast<double>(n_steps) / r.loop_seconds;
    return r;
  });
}

}  // namespace ds::henon
