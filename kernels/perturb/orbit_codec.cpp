// Orbit compression (orbit_codec.h). Every point is coded as:
//   0 (both coordinates coded by the step), or 1, two bits w (bit 0: re not coded by the step, bit
//   1: im) and for each such coordinate one bit (0: coded by the recurrence, 1: stored whole); then
//   for re and for im: stored whole, m (64 bits), e (32), lo (64); else Rice(zigzag(head
//   distance), k), Rice(zigzag(tail distance), k') with the step's or the recurrence's parameters.
// Rice(u, k): q = u >> k ones, a zero, then u's k low bits; q >= kRiceCap: kRiceCap ones and u's 64
// bits. A distance is counted in representable doubles (ord below), so it is exact at any scale.
// Two predictions:
// - the step: t = P^2 + C in double-double from the point before;
// - the recurrence, for coordinates the step cannot reach (parts far below 2^-106 |Z|, such as
//   the deviations of an orbit that follows a cycle closely, FractalShark's view 30): the next of
//   that coordinate's values not coded by the step, from the last four of them in the chunk, by
//   the linear recurrence of order two that those four satisfy (h4 = a h3 + b h2 with a and b
//   solved from h0 .. h3). Near a repelling cycle the deviation grows linearly (its square is far
//   below it), so the recurrence holds to the double-double's precision.
#include "orbit_codec.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>

#include "arith/eft.h"

namespace ds::perturb {
namespace {

constexpr int kRiceCap = 48;

// How a coordinate is coded.
constexpr uint8_t kStep = 0, kRecur = 1, kWhole = 2;

struct DD {
  double hi, lo;
};

uint64_t bits_of(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
double from_bits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
// 2^e for e in the normal range [-1022, 1023].
double pow2(int e) { return from_bits(static_cast<uint64_t>(e + 1023) << 52); }
// x 2^-e, exactly where x 2^-e is normal (x is a double-double's tail, at most 2^-52 of the
// head, and e the head's exponent); ldexp where 2^-e itself is out of range.
double scale_down(double x, int e) { return (e >= -1022 && e <= 1022) ? x * pow2(-e) : std::ldexp(x, -e); }

// A stored part (m + lo) 2^e as a double-double; 0 outside the range where the prediction can help
// (such points are stored whole: the prediction's head cannot match theirs).
DD dd_of(FloatExp m, double lo) {
  if (m.m == 0 || m.e < -900 || m.e > 900) return {0.0, 0.0};
  const double s = pow2(m.e);
  return {m.m * s, lo * s};  // exact: no result leaves the normal range
}

DD renorm(double s, double e) {
  DD r;
  eft::fast_two_sum(s, e, r.hi, r.lo);
  return r;
}

DD add(DD a, DD b) {
  double s, e, t, f;
  eft::two_sum(a.hi, b.hi, s, e);
  eft::two_sum(a.lo, b.lo, t, f);
  e += t;
  const DD u = renorm(s, e);
  return renorm(u.hi, u.lo + f);
}

DD mul(DD a, DD b) {
  double p, e;
  eft::two_prod(a.hi, b.hi, p, e);
  e += a.hi * b.lo + a.lo * b.hi;
  return renorm(p, e);
}

DD neg(DD a) { return {-a.hi, -a.lo}; }

DD sub(DD a, DD b) { return add(a, neg(b)); }

DD div(DD a, DD b) {
  const double q1 = a.hi / b.hi;
  const DD r = sub(a, mul(DD{q1, 0.0}, b));
  const double q2 = r.hi / b.hi;
  const DD r2 = sub(r, mul(DD{q2, 0.0}, b));
  const DD q = renorm(q1, q2);
  return add(q, DD{r2.hi / b.hi, 0.0});
}

// The last four values of one coordinate that the step did not code, oldest first (each chunk
// starts with none, so chunks decode alone).
struct History {
  FloatExp m[4];
  double lo[4];
  int n = 0;
  void push(FloatExp v, double l) {
    for (int j = 0; j < 3; ++j) {
      m[j] = m[j + 1];
      lo[j] = lo[j + 1];
    }
    m[3] = v;
    lo[3] = l;
    n = n < 4 ? n + 1 : 4;
  }
};

// The recurrence's prediction: *t 2^*e (false where it has none: fewer than four values, a zero,
// exponents too far apart, a singular fit).
bool recur(const History& h, DD* t, int* e) {
  if (h.n < 4) return false;
  const int top = h.m[3].e;
  DD v[4];
  for (int j = 0; j < 4; ++j) {
    const int64_t d = static_cast<int64_t>(h.m[j].e) - top;  // any int32 exponents (damaged streams too)
    if (h.m[j].m == 0 || d < -400 || d > 400) return false;
    const double s = pow2(static_cast<int>(d));
    v[j] = {h.m[j].m * s, h.lo[j] * s};
  }
  // v2 = a v1 + b v0 and v3 = a v2 + b v1: a = an / det, b = bn / det; then a v3 + b v2.
  const DD det = sub(mul(v[1], v[1]), mul(v[0], v[2]));
  const DD an = sub(mul(v[2], v[1]), mul(v[0], v[3]));
  const DD bn = sub(mul(v[1], v[3]), mul(v[2], v[2]));
  if (det.hi == 0 || !std::isfinite(det.hi)) return false;
  *t = div(add(mul(an, v[3]), mul(bn, v[2])), det);
  *e = top;
  return std::isfinite(t->hi) && std::isfinite(t->lo) && t->hi != 0;
}

// t = P^2 + C for the stored point P, one double-double step of the orbit's map.
void predict(const OrbitPoint& prev, DD cr, DD ci, DD* tr, DD* ti) {
  const DD x = dd_of(prev.re, prev.re_lo), y = dd_of(prev.im, prev.im_lo);
  *tr = add(add(mul(x, x), neg(mul(y, y))), cr);
  const DD xy = mul(x, y);
  *ti = add(DD{2.0 * xy.hi, 2.0 * xy.lo}, ci);
}

// Doubles in order as integers: ord(next double up) = ord(x) + 1, with -0 just below +0 (a tail's
// sign of zero is kept: MPFR gives either).
__int128 ord(double x) {
  const uint64_t b = bits_of(x);
  const __int128 mag = static_cast<__int128>(b & ~(1ull << 63));
  return (b >> 63) ? -mag - 1 : mag;
}
double from_ord(__int128 o) {
  if (o >= 0) return from_bits(static_cast<uint64_t>(o));
  return from_bits(static_cast<uint64_t>(-(o + 1)) | (1ull << 63));
}
uint64_t zigzag(__int128 v) {
  return v >= 0 ? static_cast<uint64_t>(v) << 1 : (static_cast<uint64_t>(-v) << 1) - 1;
}
__int128 unzigzag(uint64_t u) {
  return (u & 1) ? -static_cast<__int128>((u >> 1) + 1) : static_cast<__int128>(u >> 1);
}

// One coordinate from the prediction t and its two distances.
void apply(DD t, uint64_t zh, uint64_t zt, FloatExp* m, double* lo) {
  const FloatExp head = FloatExp::make(t.hi, 0);  // the prediction's head: m in [1, 2) and its exponent
  m->e = head.e;
  m->m = from_ord(ord(head.m) + unzigzag(zh));
  const double tail = scale_down(t.lo, head.e);
  *lo = from_ord(ord((head.m - m->m) + tail) + unzigzag(zt));
}

// The two distances of a stored coordinate from the prediction; false where it cannot be coded
// (or where applying them would not give it back bit for bit).
bool distances(DD t, FloatExp m, double lo, uint64_t* zh, uint64_t* zt) {
  if (!std::isfinite(t.hi) || !std::isfinite(t.lo) || t.hi == 0) return false;
  const FloatExp head = FloatExp::make(t.hi, 0);
  if (head.e != m.e) return false;
  const __int128 dh = ord(m.m) - ord(head.m);
  const double tail = scale_down(t.lo, head.e);
  const __int128 dt = ord(lo) - ord((head.m - m.m) + tail);
  constexpr __int128 kLimit = static_cast<__int128>(1) << 62;
  if (dh >= kLimit || dh <= -kLimit || dt >= kLimit || dt <= -kLimit) return false;
  *zh = zigzag(dh);
  *zt = zigzag(dt);
  FloatExp m2;
  double lo2;
  apply(t, *zh, *zt, &m2, &lo2);
  return bits_of(m2.m) == bits_of(m.m) && m2.e == m.e && bits_of(lo2) == bits_of(lo);
}

struct BitWriter {
  std::vector<uint64_t>* w;
  uint64_t* len;
  void put(uint64_t v, int n) {
    if (n == 0) return;
    if (n < 64) v &= (1ull << n) - 1;
    const uint64_t at = *len, word = at >> 6;
    const int off = static_cast<int>(at & 63);
    if (w->size() < word + 2) w->resize(word + 2, 0);
    (*w)[word] |= v << off;
    if (off + n > 64) (*w)[word + 1] |= v >> (64 - off);
    *len += static_cast<uint64_t>(n);
  }
  void rice(uint64_t u, int k) {
    const uint64_t q = u >> k;
    if (q >= kRiceCap) {
      put(~0ull, kRiceCap);
      put(u, 64);
      return;
    }
    put((1ull << q) - 1, static_cast<int>(q) + 1);  // q ones, then the zero
    put(u, k);
  }
};

struct BitReader {
  const std::vector<uint64_t>& w;
  uint64_t at, end;
  uint64_t get(int n) {
    if (n == 0) return 0;
    if (at + static_cast<uint64_t>(n) > end) throw std::runtime_error("compressed orbit: codes end early");
    const uint64_t word = at >> 6;
    const int off = static_cast<int>(at & 63);
    uint64_t v = w[word] >> off;
    if (off + n > 64) v |= w[word + 1] << (64 - off);
    at += static_cast<uint64_t>(n);
    return n < 64 ? v & ((1ull << n) - 1) : v;
  }
  // The next 64 bits (past the end: whatever the padding word holds; get() checks the end).
  uint64_t peek() const {
    const uint64_t word = at >> 6;
    const int off = static_cast<int>(at & 63);
    uint64_t v = w[word] >> off;
    if (off != 0) v |= w[word + 1] << (64 - off);
    return v;
  }
  uint64_t rice(int k) {
    const uint64_t ones = ~peek();
    const int q = ones == 0 ? 64 : __builtin_ctzll(ones);
    if (q >= kRiceCap) {
      get(kRiceCap);
      return get(64);
    }
    get(q + 1);
    return (static_cast<uint64_t>(q) << k) | get(k);
  }
};

// Bits that Rice(u, k) takes.
uint64_t rice_bits(uint64_t u, int k) {
  const uint64_t q = u >> k;
  return q >= kRiceCap ? kRiceCap + 64 : q + 1 + static_cast<uint64_t>(k);
}

// A coordinate is coded by the recurrence where its distances take clearly fewer bits than the
// 160 of storing it whole.
bool worth_it(uint64_t zh, uint64_t zt) {
  const int bits = (zh ? 64 - __builtin_clzll(zh) : 0) + (zt ? 64 - __builtin_clzll(zt) : 0);
  return bits <= 120;
}

int best_k(const std::vector<uint64_t>& us) {
  int best = 0;
  uint64_t best_bits = UINT64_MAX;
  for (int k = 0; k <= 62; ++k) {
    uint64_t b = 0;
    for (uint64_t u : us) b += rice_bits(u, k);
    if (b < best_bits) {
      best_bits = b;
      best = k;
    }
  }
  return best;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

DD c_re(const CompressedOrbit& o) { return dd_of(o.c.re, o.c.re_lo); }
DD c_im(const CompressedOrbit& o) { return dd_of(o.c.im, o.c.im_lo); }

}  // namespace

uint64_t point_hash(const OrbitPoint* p, std::size_t n) {
  uint64_t h = 0x5D5C0DEC0DEull;
  for (std::size_t k = 0; k < n; ++k) {
    h = mix(h, bits_of(p[k].re.m));
    h = mix(h, static_cast<uint32_t>(p[k].re.e));
    h = mix(h, bits_of(p[k].re_lo));
    h = mix(h, bits_of(p[k].im.m));
    h = mix(h, static_cast<uint32_t>(p[k].im.e));
    h = mix(h, bits_of(p[k].im_lo));
  }
  return h;
}

uint64_t CompressedOrbit::whole_coordinates() const {
  uint64_t n = 0;
  for (const Chunk& c : chunks) n += c.whole;
  return n;
}

namespace {
std::atomic<uint64_t> g_next_orbit_id{1};
}

OrbitEncoder::OrbitEncoder() { out_.id = g_next_orbit_id++; }

OrbitEncoder::OrbitEncoder(const OrbitPoint& c) : OrbitEncoder() {
  out_.c = c;
  c_given_ = true;
}

OrbitPoint OrbitEncoder::point(uint64_t k) const {
  if (k < out_.length) return packed_point(out_, k);
  return pending_.at(static_cast<std::size_t>(k - out_.length));
}

const OrbitPoint& packed_point(const CompressedOrbit& o, uint64_t k) {
  thread_local const CompressedOrbit* orbit = nullptr;
  thread_local uint64_t id = 0, chunk = UINT64_MAX;
  thread_local std::vector<OrbitPoint> buf;
  const uint64_t c = k / kOrbitChunk;
  if (orbit != &o || id != o.id || chunk != c) {
    buf.resize(kOrbitChunk);
    orbit = nullptr;  // invalid until the chunk decodes
    decode_chunk(o, static_cast<std::size_t>(c), buf.data());
    orbit = &o;
    id = o.id;
    chunk = c;
  }
  return buf[static_cast<std::size_t>(k % kOrbitChunk)];
}

void OrbitEncoder::push(const OrbitPoint& p) {
  if (out_.length + pending_.size() == 1 && !c_given_) out_.c = p;  // Z_1 = C
  pending_.push_back(p);
  if (pending_.size() == kOrbitChunk) flush();
}

void OrbitEncoder::flush() {
  if (pending_.empty()) return;
  const uint64_t first = out_.length;
  const std::size_t n = pending_.size();
  CompressedOrbit::Chunk chunk;
  chunk.before = last_;
  chunk.hash = point_hash(pending_.data(), n);
  chunk.bit_offset = out_.bit_length;
  // Each coordinate's code and distances: kStep (coded by the step), kRecur (by the recurrence)
  // or kWhole.
  std::vector<uint64_t> heads, tails, rheads, rtails;
  std::vector<uint64_t> codes(4 * n, 0);
  std::vector<uint8_t> how(2 * n, kWhole);
  const DD cr = c_re(out_), ci = c_im(out_);
  OrbitPoint prev = last_;
  History history[2];
  for (std::size_t i = 0; i < n; ++i) {
    const OrbitPoint& p = pending_[i];
    DD t[2] = {{0, 0}, {0, 0}};
    if (first + i >= 2) predict(prev, cr, ci, &t[0], &t[1]);
    for (int c = 0; c < 2; ++c) {
      const FloatExp m = c ? p.im : p.re;
      const double lo = c ? p.im_lo : p.re_lo;
      uint64_t* d = &codes[4 * i + 2 * c];
      if (first + i >= 2 && distances(t[c], m, lo, &d[0], &d[1])) {
        how[2 * i + c] = kStep;
        heads.push_back(d[0]);
        tails.push_back(d[1]);
        continue;
      }
      DD r;
      int e = 0;
      if (first + i >= 2 && recur(history[c], &r, &e)) {
        // The value scaled as the prediction is (r 2^e), where that exponent is an int32.
        const int64_t se = static_cast<int64_t>(m.e) - e;
        FloatExp scaled = m;
        scaled.e = static_cast<int32_t>(se);
        if (se >= INT32_MIN && se <= INT32_MAX && distances(r, scaled, lo, &d[0], &d[1]) &&
            worth_it(d[0], d[1])) {
          how[2 * i + c] = kRecur;
          rheads.push_back(d[0]);
          rtails.push_back(d[1]);
        }
      }
      history[c].push(m, lo);
    }
    prev = p;
  }
  chunk.k_head = static_cast<uint8_t>(best_k(heads));
  chunk.k_tail = static_cast<uint8_t>(best_k(tails));
  chunk.k_rhead = static_cast<uint8_t>(best_k(rheads));
  chunk.k_rtail = static_cast<uint8_t>(best_k(rtails));
  BitWriter w{&out_.bits, &out_.bit_length};
  for (std::size_t i = 0; i < n; ++i) {
    const OrbitPoint& p = pending_[i];
    const uint8_t* h = &how[2 * i];
    if (h[0] == kStep && h[1] == kStep) {
      w.put(0, 1);
    } else {
      w.put(1, 1);
      w.put((h[0] != kStep ? 1u : 0u) | (h[1] != kStep ? 2u : 0u), 2);
      for (int c = 0; c < 2; ++c)
        if (h[c] != kStep) w.put(h[c] == kWhole ? 1 : 0, 1);
    }
    for (int c = 0; c < 2; ++c) {
      const FloatExp m = c ? p.im : p.re;
      const double lo = c ? p.im_lo : p.re_lo;
      const uint64_t* d = &codes[4 * i + 2 * c];
      if (h[c] == kWhole) {
        w.put(bits_of(m.m), 64);
        w.put(static_cast<uint32_t>(m.e), 32);
        w.put(bits_of(lo), 64);
        ++chunk.whole;
      } else if (h[c] == kRecur) {
        w.rice(d[0], chunk.k_rhead);
        w.rice(d[1], chunk.k_rtail);
        ++chunk.recurred;
      } else {
        w.rice(d[0], chunk.k_head);
        w.rice(d[1], chunk.k_tail);
      }
    }
  }
  out_.bits.resize((out_.bit_length + 63) / 64 + 1, 0);
  out_.chunks.push_back(chunk);
  out_.length += n;
  last_ = pending_.back();
  pending_.clear();
}

CompressedOrbit OrbitEncoder::finish() {
  flush();
  out_.bits.resize((out_.bit_length + 63) / 64 + 1, 0);  // with the padding word that reading peeks into
  out_.bits.shrink_to_fit();
  CompressedOrbit o = std::move(out_);
  out_ = CompressedOrbit{};
  out_.id = g_next_orbit_id++;
  if (c_given_) out_.c = o.c;
  last_ = OrbitPoint{};
  return o;
}

CompressedOrbit compress_orbit(const std::vector<FloatExp>& zr, const std::vector<FloatExp>& zi,
                               const std::vector<double>& zr_lo, const std::vector<double>& zi_lo) {
  OrbitEncoder e;
  for (std::size_t k = 0; k < zr.size(); ++k) {
    OrbitPoint p;
    p.re = zr[k];
    p.im = zi[k];
    p.re_lo = zr_lo[k];
    p.im_lo = zi_lo[k];
    e.push(p);
  }
  return e.finish();
}

std::size_t decode_chunk(const CompressedOrbit& o, std::size_t k, OrbitPoint* out) {
  if (k >= o.chunks.size()) throw std::runtime_error("compressed orbit: no chunk " + std::to_string(k));
  const CompressedOrbit::Chunk& chunk = o.chunks[k];
  const uint64_t first = static_cast<uint64_t>(k) * kOrbitChunk;
  const std::size_t n = static_cast<std::size_t>(std::min<uint64_t>(kOrbitChunk, o.length - first));
  const uint64_t end = k + 1 < o.chunks.size() ? o.chunks[k + 1].bit_offset : o.bit_length;
  BitReader r{o.bits, chunk.bit_offset, end};
  const DD cr = c_re(o), ci = c_im(o);
  OrbitPoint prev = chunk.before;
  History history[2];
  for (std::size_t i = 0; i < n; ++i) {
    OrbitPoint& p = out[i];
    uint8_t how[2] = {kStep, kStep};
    if (r.get(1)) {
      const unsigned which = static_cast<unsigned>(r.get(2));
      for (int c = 0; c < 2; ++c)
        if (which & (1u << c)) how[c] = r.get(1) ? kWhole : kRecur;
    }
    if ((how[0] != kWhole || how[1] != kWhole) && first + i < 2)
      throw std::runtime_error("compressed orbit: Z_0 or Z_1 coded");
    DD t[2] = {{0, 0}, {0, 0}};
    if (how[0] == kStep || how[1] == kStep) predict(prev, cr, ci, &t[0], &t[1]);
    for (int c = 0; c < 2; ++c) {
      FloatExp* m = c ? &p.im : &p.re;
      double* lo = c ? &p.im_lo : &p.re_lo;
      if (how[c] == kWhole) {
        m->m = from_bits(r.get(64));
        m->e = static_cast<int32_t>(static_cast<uint32_t>(r.get(32)));
        *lo = from_bits(r.get(64));
      } else if (how[c] == kRecur) {
        DD rt;
        int e = 0;
        if (!recur(history[c], &rt, &e))
          throw std::runtime_error("compressed orbit: a recurrence with no values");
        const uint64_t h = r.rice(chunk.k_rhead);
        apply(rt, h, r.rice(chunk.k_rtail), m, lo);
        const int64_t exponent = static_cast<int64_t>(m->e) + e;
        if (exponent > INT32_MAX || exponent < INT32_MIN)
          throw std::runtime_error("compressed orbit: exponent out of range");
        m->e = static_cast<int32_t>(exponent);
      } else {
        const uint64_t h = r.rice(chunk.k_head);
        apply(t[c], h, r.rice(chunk.k_tail), m, lo);
      }
      if (how[c] != kStep) history[c].push(*m, *lo);
    }
    prev = p;
  }
  if (point_hash(out, n) != chunk.hash)
    throw std::runtime_error("compressed orbit: chunk " + std::to_string(k) +
                             " does not decode to its points (corrupt, or written by a build that rounds "
                             "differently)");
  return n;
}

void for_each_chunk(const CompressedOrbit& o, int threads,
                    const std::function<void(std::size_t k, const OrbitPoint* p, std::size_t n)>& fn) {
  const std::size_t chunks = o.chunks.size();
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(threads), std::max<std::size_t>(1, chunks)));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::string error;
  std::atomic_flag error_set = ATOMIC_FLAG_INIT;
  const auto work = [&] {
    std::vector<OrbitPoint> buf(kOrbitChunk);
    for (std::size_t k; !failed.load() && (k = next.fetch_add(1)) < chunks;) {
      try {
        const std::size_t n = decode_chunk(o, k, buf.data());
        fn(k, buf.data(), n);
      } catch (const std::exception& e) {
        if (!error_set.test_and_set()) error = e.what();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failed) throw std::runtime_error(error);
}

void PointArrays::resize(std::size_t n) const {
  zr->resize(n);
  zi->resize(n);
  zr_lo->resize(n);
  zi_lo->resize(n);
}

void PointArrays::put(std::size_t at, const OrbitPoint* p, std::size_t n) const {
  for (std::size_t i = 0; i < n; ++i) {
    (*zr)[at + i] = p[i].re;
    (*zi)[at + i] = p[i].im;
    (*zr_lo)[at + i] = p[i].re_lo;
    (*zi_lo)[at + i] = p[i].im_lo;
  }
}

void decompress_orbit(const CompressedOrbit& o, std::vector<FloatExp>* zr, std::vector<FloatExp>* zi,
                      std::vector<double>* zr_lo, std::vector<double>* zi_lo, int threads) {
  const PointArrays arrays{zr, zi, zr_lo, zi_lo};
  arrays.resize(static_cast<std::size_t>(o.length));
  for_each_chunk(o, threads, [&](std::size_t k, const OrbitPoint* p, std::size_t n) {
    arrays.put(k * kOrbitChunk, p, n);
  });
}

namespace {

template <class T>
void put(std::string* s, T v) {
  s->append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_point(std::string* s, const OrbitPoint& p) {
  put(s, p.re.m);
  put(s, p.re.e);
  put(s, p.re_lo);
  put(s, p.im.m);
  put(s, p.im.e);
  put(s, p.im_lo);
}

struct In {
  const std::string& b;
  std::size_t* at;
  template <class T>
  T get() {
    if (sizeof(T) > b.size() - *at)
      throw std::runtime_error("compressed orbit: truncated at byte " + std::to_string(*at));
    T v;
    std::memcpy(&v, b.data() + *at, sizeof v);
    *at += sizeof v;
    return v;
  }
  OrbitPoint point() {
    OrbitPoint p;
    p.re.m = get<double>();
    p.re.e = get<int32_t>();
    p.re_lo = get<double>();
    p.im.m = get<double>();
    p.im.e = get<int32_t>();
    p.im_lo = get<double>();
    return p;
  }
};

}  // namespace

void append_compressed(std::string* out, const CompressedOrbit& o) {
  put<uint64_t>(out, o.length);
  put_point(out, o.c);
  put<uint64_t>(out, o.chunks.size());
  for (const CompressedOrbit::Chunk& c : o.chunks) {
    put<uint64_t>(out, c.bit_offset);
    put_point(out, c.before);
    put<uint64_t>(out, c.hash);
    put<uint8_t>(out, c.k_head);
    put<uint8_t>(out, c.k_tail);
    put<uint8_t>(out, c.k_rhead);
    put<uint8_t>(out, c.k_rtail);
    put<uint32_t>(out, c.whole);
    put<uint32_t>(out, c.recurred);
  }
  put<uint64_t>(out, o.bit_length);
  put<uint64_t>(out, o.bits.size());
  out->append(reinterpret_cast<const char*>(o.bits.data()), o.bits.size() * 8);
}

CompressedOrbit read_compressed(const std::string& bytes, std::size_t* at) {
  In in{bytes, at};
  CompressedOrbit o;
  o.id = g_next_orbit_id++;
  o.length = in.get<uint64_t>();
  o.c = in.point();
  const uint64_t chunks = in.get<uint64_t>();
  if (chunks != (o.length + kOrbitChunk - 1) / kOrbitChunk)
    throw std::runtime_error("compressed orbit: " + std::to_string(chunks) + " chunks for " +
                             std::to_string(o.length) + " points");
  // Each chunk takes 68 bytes: a count beyond the bytes left is damage, not a reason to allocate.
  if (chunks > (bytes.size() - *at) / 68) throw std::runtime_error("compressed orbit: truncated chunk table");
  o.chunks.resize(static_cast<std::size_t>(chunks));
  for (CompressedOrbit::Chunk& c : o.chunks) {
    c.bit_offset = in.get<uint64_t>();
    c.before = in.point();
    c.hash = in.get<uint64_t>();
    c.k_head = in.get<uint8_t>();
    c.k_tail = in.get<uint8_t>();
    c.k_rhead = in.get<uint8_t>();
    c.k_rtail = in.get<uint8_t>();
    c.whole = in.get<uint32_t>();
    c.recurred = in.get<uint32_t>();
    if (c.k_head > 62 || c.k_tail > 62 || c.k_rhead > 62 || c.k_rtail > 62)
      throw std::runtime_error("compressed orbit: impossible Rice parameter");
  }
  o.bit_length = in.get<uint64_t>();
  const uint64_t words = in.get<uint64_t>();
  if (words != (o.bit_length + 63) / 64 + 1)
    throw std::runtime_error("compressed orbit: impossible code length");
  uint64_t prev = 0;
  for (const CompressedOrbit::Chunk& c : o.chunks) {
    if (c.bit_offset < prev || c.bit_offset > o.bit_length)
      throw std::runtime_error("compressed orbit: impossible chunk offset");
    prev = c.bit_offset;
  }
  if (words > (bytes.size() - *at) / 8) throw std::runtime_error("compressed orbit: truncated codes");
  o.bits.resize(static_cast<std::size_t>(words));
  std::memcpy(o.bits.data(), bytes.data() + *at, static_cast<std::size_t>(words) * 8);
  *at += static_cast<std::size_t>(words) * 8;
  return o;
}

}  // namespace ds::perturb
