// Reference files (reference_file.h). Layout, little-endian as the host writes it (x86-64, the
// only host the program builds for):
//   "DSREF004"                          magic and version (001: u32 max_iter and length; 002: the
//                                       points uncompressed, 40 bytes each; 003: compressed without
//                                       the recurrence)
//   u64 n, n bytes                      re (decimal, as given), then im the same way
//   i32 bits, i32 bits_asked, i32 step_threads, u64 max_iter, u8 flags (escaped 1, periodic 2,
//   escape_certified 4, cut at the ball's period 8)
//   4 floatexp (f64 m, i32 e): nucleus_distance, error_shift, last_error, step
//   f64 seconds
//   with flag 8 only: u64 ball_period, floatexp ball_radius (files without it read as before;
//   a program older than the flag refuses such a file: flags > 7)
//   the points, compressed without loss (orbit_codec.h, append_compressed: about 2 bytes a point)
//   u64 FNV-1a of every byte before it
#include "reference_file.h"

#include "orbit_codec.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace ds::perturb {
namespace {

constexpr char kMagic[8] = {'D', 'S', 'R', 'E', 'F', '0', '0', '4'};

uint64_t fnv1a(const char* p, std::size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (std::size_t k = 0; k < n; ++k) {
    h ^= static_cast<unsigned char>(p[k]);
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
void put(std::string* s, T v) {
  s->append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put_fe(std::string* s, FloatExp x) {
  put(s, x.m);
  put(s, x.e);
}
void put_str(std::string* s, const std::string& v) {
  put<uint64_t>(s, v.size());
  s->append(v);
}

struct Reader {
  const std::string& b;
  std::size_t at = 0;
  void need(std::size_t n) const {
    if (n > b.size() - at) throw std::runtime_error("reference file: truncated at byte " + std::to_string(at));
  }
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, b.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  FloatExp fe() {
    FloatExp x;
    x.m = get<double>();
    x.e = get<int32_t>();
    if (!std::isfinite(x.m)) throw std::runtime_error("reference file: a non-finite value at byte " + std::to_string(at));
    return x;
  }
  std::string str() {
    const uint64_t n = get<uint64_t>();
    need(n);
    std::string s = b.substr(at, n);
    at += n;
    return s;
  }
};

}  // namespace

std::string encode_reference(const Reference& ref) {
  std::string s(kMagic, sizeof kMagic);
  put_str(&s, ref.re);
  put_str(&s, ref.im);
  put<int32_t>(&s, ref.bits);
  put<int32_t>(&s, ref.bits_asked);
  put<int32_t>(&s, ref.step_threads);
  put<uint64_t>(&s, ref.max_iter);
  put<uint8_t>(&s, static_cast<uint8_t>((ref.escaped ? 1 : 0) | (ref.periodic ? 2 : 0) | (ref.escape_certified ? 4 : 0) |
                                         (ref.ball_period != 0 ? 8 : 0)));
  put_fe(&s, ref.nucleus_distance);
  put_fe(&s, ref.error_shift);
  put_fe(&s, ref.last_error);
  put_fe(&s, ref.step);
  put<double>(&s, ref.seconds);
  if (ref.ball_period != 0) {
    put<uint64_t>(&s, ref.ball_period);
    put_fe(&s, ref.ball_radius);
  }
  if (ref.packed)
    append_compressed(&s, *ref.packed);
  else
    append_compressed(&s, compress_orbit(ref.zr, ref.zi, ref.zr_lo, ref.zi_lo));
  put<uint64_t>(&s, fnv1a(s.data(), s.size()));
  return s;
}

std::shared_ptr<Reference> decode_reference(const std::string& bytes, uint64_t pack_from) {
  if (bytes.size() < sizeof kMagic + 8 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw std::runtime_error("reference file: not a deepscope reference (magic DSREF004)");
  uint64_t sum;
  std::memcpy(&sum, bytes.data() + bytes.size() - 8, 8);
  if (sum != fnv1a(bytes.data(), bytes.size() - 8)) throw std::runtime_error("reference file: checksum mismatch");
  const std::string body = bytes.substr(0, bytes.size() - 8);
  Reader r{body, sizeof kMagic};
  auto ref = std::make_shared<Reference>();
  ref->re = r.str();
  ref->im = r.str();
  ref->bits = r.get<int32_t>();
  ref->bits_asked = r.get<int32_t>();
  ref->step_threads = r.get<int32_t>();
  ref->max_iter = r.get<uint64_t>();
  const uint8_t flags = r.get<uint8_t>();
  ref->escaped = flags & 1;
  ref->periodic = flags & 2;
  ref->escape_certified = flags & 4;
  ref->nucleus_distance = r.fe();
  ref->error_shift = r.fe();
  ref->last_error = r.fe();
  ref->step = r.fe();
  ref->seconds = r.get<double>();
  if (flags & 8) {
    ref->ball_period = r.get<uint64_t>();
    ref->ball_radius = r.fe();
  }
  std::size_t at = r.at;
  CompressedOrbit orbit = read_compressed(body, &at);
  r.at = at;
  const uint64_t n = orbit.length;
  if (ref->bits < 64 || ref->bits_asked < 64 || ref->bits < ref->bits_asked || n == 0 ||
      ref->max_iter < 1 || ref->max_iter > mandel::kMaxIterations || n > ref->max_iter + 1 || flags > 15 ||
      ((flags & 8) != 0 && (ref->ball_period == 0 || ref->ball_period + 1 != n)))
    throw std::runtime_error("reference file: impossible header (bits, iterations or length)");
  if (r.at != body.size()) throw std::runtime_error("reference file: trailing bytes");
  // Every chunk is decoded (its hash checked) and every point checked finite; a long orbit stays
  // packed (never whole in arrays), a shorter one goes into them.
  try {
    const bool packed = n >= pack_from;
    const PointArrays arrays{&ref->zr, &ref->zi, &ref->zr_lo, &ref->zi_lo};
    if (!packed) arrays.resize(n);
    for_each_chunk(orbit, 0, [&](std::size_t k, const OrbitPoint* p, std::size_t m) {
      const std::size_t at = k * kOrbitChunk;
      for (std::size_t i = 0; i < m; ++i)
        if (!std::isfinite(p[i].re.m) || !std::isfinite(p[i].im.m) || !std::isfinite(p[i].re_lo) ||
            !std::isfinite(p[i].im_lo))
          throw std::runtime_error("a non-finite value at point " + std::to_string(at + i));
      if (!packed) arrays.put(at, p, m);
    });
    if (packed) ref->packed = std::make_shared<const CompressedOrbit>(std::move(orbit));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("reference file: ") + e.what());
  }
  return ref;
}

namespace {
// DSPART04 adds the ball's state to DSPART03's (which is still read, as an orbit without the ball).
constexpr char kCheckpointMagic[8] = {'D', 'S', 'P', 'A', 'R', 'T', '0', '4'};
constexpr char kCheckpointMagic03[8] = {'D', 'S', 'P', 'A', 'R', 'T', '0', '3'};
}

// State layout: "DSPART03" (02: its points file held 40 bytes a point); re, im (u64 n + n bytes); i32 bits,
// i32 bits_asked, i32 step_threads; u64 max_iter; floatexp step, error_shift; u8 escape_certified; x, y (u64
// n + n bytes); floatexp ar, ai, err; u8 certify; u64 points, u64 points_hash; the FNV-1a of every byte
// before it.
std::string encode_checkpoint_state(const ReferenceCheckpoint& c) {
  const Reference& r = *c.ref;
  std::string s(kCheckpointMagic, sizeof kCheckpointMagic);
  put_str(&s, r.re);
  put_str(&s, r.im);
  put<int32_t>(&s, r.bits);
  put<int32_t>(&s, r.bits_asked);
  put<int32_t>(&s, r.step_threads);
  put<uint64_t>(&s, r.max_iter);
  put_fe(&s, r.step);
  put_fe(&s, r.error_shift);
  put<uint8_t>(&s, r.escape_certified ? 1 : 0);
  put_str(&s, c.x);
  put_str(&s, c.y);
  put_fe(&s, c.ar);
  put_fe(&s, c.ai);
  put_fe(&s, c.err);
  put<uint8_t>(&s, c.certify ? 1 : 0);
  put<uint64_t>(&s, c.points);
  put<uint64_t>(&s, c.points_hash);
  put<uint64_t>(&s, c.ball.max_period);
  put_fe(&s, c.ball.radius);
  put_fe(&s, c.ball_r);
  put_fe(&s, c.ball_zprev);
  put<uint64_t>(&s, fnv1a(s.data(), s.size()));
  return s;
}

ReferenceCheckpoint decode_checkpoint_state(const std::string& bytes) {
  if (bytes.size() < sizeof kCheckpointMagic + 8) throw std::runtime_error("reference checkpoint: too short");
  const bool v04 = std::memcmp(bytes.data(), kCheckpointMagic, sizeof kCheckpointMagic) == 0;
  if (!v04 && std::memcmp(bytes.data(), kCheckpointMagic03, sizeof kCheckpointMagic03) != 0)
    throw std::runtime_error("reference checkpoint: not a deepscope checkpoint (magic DSPART04 or DSPART03)");
  uint64_t sum;
  std::memcpy(&sum, bytes.data() + bytes.size() - 8, 8);
  if (sum != fnv1a(bytes.data(), bytes.size() - 8)) throw std::runtime_error("reference checkpoint: checksum mismatch");
  const std::string body = bytes.substr(0, bytes.size() - 8);
  Reader r{body, sizeof kCheckpointMagic};
  ReferenceCheckpoint c;
  c.ref = std::make_shared<Reference>();
  Reference& ref = *c.ref;
  ref.re = r.str();
  ref.im = r.str();
  ref.bits = r.get<int32_t>();
  ref.bits_asked = r.get<int32_t>();
  ref.step_threads = r.get<int32_t>();
  ref.max_iter = r.get<uint64_t>();
  ref.step = r.fe();
  ref.error_shift = r.fe();
  const uint8_t certified = r.get<uint8_t>();
  c.x = r.str();
  c.y = r.str();
  c.ar = r.fe();
  c.ai = r.fe();
  c.err = r.fe();
  const uint8_t certify = r.get<uint8_t>();
  c.points = r.get<uint64_t>();
  c.points_hash = r.get<uint64_t>();
  if (v04) {
    c.ball.max_period = r.get<uint64_t>();
    c.ball.radius = r.fe();
    c.ball_r = r.fe();
    c.ball_zprev = r.fe();
  }
  if (certify > 1 || certified > 1 || c.x.empty() || c.y.empty() || ref.bits < 64 || ref.bits < ref.bits_asked ||
      c.points < 2 || c.points > ref.max_iter + 1)
    throw std::runtime_error("reference checkpoint: impossible state");
  ref.escape_certified = certified == 1;
  c.certify = certify == 1;
  if (r.at != body.size()) throw std::runtime_error("reference checkpoint: trailing bytes");
  return c;
}

std::string encode_points(const std::function<OrbitPoint(uint64_t)>& point, uint64_t from, uint64_t to) {
  if (from >= to) return {};
  OrbitEncoder enc(point(1));  // the orbit's C, so that the stretch's points are predicted
  for (uint64_t k = from; k < to; ++k) enc.push(point(k));
  std::string body;
  append_compressed(&body, enc.finish());
  std::string s;
  put<uint64_t>(&s, body.size());
  return s + body;
}

uint64_t points_hash(const char* p, std::size_t n, uint64_t h) {
  for (std::size_t k = 0; k < n; ++k) {
    h ^= static_cast<unsigned char>(p[k]);
    h *= 1099511628211ull;
  }
  return h;
}

void decode_points(const std::string& bytes, ReferenceCheckpoint* c, uint64_t pack_from) {
  const uint64_t n = c->points;
  // The segments that hold the state's points (each begins with its byte count, then its point
  // count), then their hash, then their points.
  std::vector<std::pair<std::size_t, uint64_t>> segments;  // where each begins, its points
  std::size_t at = 0;
  uint64_t have = 0;
  while (have < n) {
    uint64_t len = 0, count = 0;
    if (bytes.size() - at < 16)
      throw std::runtime_error("reference checkpoint: the points file holds " + std::to_string(have) +
                               " points, the state says " + std::to_string(n));
    std::memcpy(&len, bytes.data() + at, 8);
    std::memcpy(&count, bytes.data() + at + 8, 8);
    if (len < 8 || len > bytes.size() - at - 8 || count > n - have)
      throw std::runtime_error("reference checkpoint: the points file does not hold the state's points");
    segments.emplace_back(at + 8, count);
    at += 8 + static_cast<std::size_t>(len);
    have += count;
  }
  if (points_hash(bytes.data(), at) != c->points_hash)
    throw std::runtime_error("reference checkpoint: the points' hash differs from the state's");
  c->points_bytes = at;
  Reference& ref = *c->ref;
  const bool pack = n >= pack_from;
  const PointArrays arrays{&ref.zr, &ref.zi, &ref.zr_lo, &ref.zi_lo};
  if (pack)
    c->packed = std::make_unique<OrbitEncoder>();
  else
    arrays.resize(n);
  uint64_t first = 0;
  for (const auto& [begin, count] : segments) {
    std::size_t pos = begin;
    const CompressedOrbit o = read_compressed(bytes, &pos);
    if (o.length != count) throw std::runtime_error("reference checkpoint: a damaged points segment");
    // In order, on one thread, where they go into the encoder; else on all cores.
    for_each_chunk(o, pack ? 1 : 0, [&](std::size_t k, const OrbitPoint* p, std::size_t m) {
      if (!pack) {
        arrays.put(static_cast<std::size_t>(first) + k * kOrbitChunk, p, m);
        return;
      }
      for (std::size_t i = 0; i < m; ++i) c->packed->push(p[i]);
    });
    first += count;
  }
}

std::string reference_cache_path(const std::string& dir, const std::string& re, const std::string& im, int bits,
                                 uint64_t max_iter, FloatExp step, const FloatExp* ball_disk) {
  std::string key = re + "|" + im + "|" + std::to_string(bits) + "|" + std::to_string(max_iter) + "|";
  put_fe(&key, step);
  if (ball_disk) {
    key += "|ball|";
    put_fe(&key, *ball_disk);
  }
  char name[40];
  std::snprintf(name, sizeof name, "ref-%016llx.dsref", static_cast<unsigned long long>(fnv1a(key.data(), key.size())));
  return dir + "/" + name;
}

std::string read_file_bytes(const std::string& path, bool* found) {
  std::ifstream in(path, std::ios::binary);
  *found = static_cast<bool>(in);
  std::ostringstream bytes;
  if (in) bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace ds::perturb
