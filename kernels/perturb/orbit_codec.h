// Lossless compression of a reference orbit's stored points (Reference::zr, zi, zr_lo, zi_lo: Z_n
// to 106 bits, 48 bytes a point in arrays; reference files and checkpoints hold them compressed).
// docs/perturbation/references.md, "Orbit compression".
//
// Each point is predicted from the stored point before it by one step of the orbit's own map in
// double-double, t = P_{n-1}^2 + C (C = the stored Z_1), and only the difference between the stored
// point and the prediction is kept: for each coordinate, the distance in representable doubles
// between the stored head and the prediction's head, and between the stored tail and the tail the
// prediction implies. Both are a few units wherever the orbit's values are well scaled (the
// prediction is within a few 2^-106 of Z_n), and they are Rice coded, a parameter per chunk and
// kind. Coordinates the prediction cannot reach (a part far smaller than |Z| such as the real
// parts of an orbit near c = i, a tiny Z near a minibrot's nucleus, a head crossing a binade) get a
// second prediction: the linear recurrence of order two fitted to the last four such values of
// that coordinate in the chunk, which an orbit's deviation from a nearby repelling cycle follows
// to the double-double's precision. Where neither reaches it (Z_0 = 0, Z_1 = C, the first four in
// a chunk, values the recurrence misses by much) the coordinate is stored whole, 160 bits. The
// orbit is cut into chunks of kOrbitChunk points, each beginning with the point before it in full
// (the "waypoint"), so chunks decode independently and in parallel, and any point is reached by
// decoding at most one chunk.
//
// Lossless by construction: the encoder decodes every point it codes and stores the point whole
// where the two differ. Each chunk also keeps a hash of its points, which decoding checks, so a
// file written by a build whose floating point differs (the prediction must round the same) is
// refused, never decoded into a slightly different orbit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference_fixed.h"  // OrbitPoint

namespace ds::perturb {

constexpr uint64_t kOrbitChunk = 4096;

struct CompressedOrbit {
  struct Chunk {
    uint64_t bit_offset = 0;         // where its points' codes begin in `bits`
    OrbitPoint before;               // the point before its first (unused for chunk 0)
    uint64_t hash = 0;               // of its decoded points (point_hash)
    uint8_t k_head = 0, k_tail = 0;  // Rice parameters: the step's distances
    uint8_t k_rhead = 0, k_rtail = 0;  // and the recurrence's
    uint32_t whole = 0;                // coordinates stored whole (statistics)
    uint32_t recurred = 0;             // coordinates coded by the recurrence (statistics)
  };
  uint64_t id = 0;      // unique in the process (packed_point's cache key)
  uint64_t length = 0;  // points Z_0 .. Z_{length-1}
  OrbitPoint c;         // Z_1 = C, the predictor's constant (length >= 2)
  std::vector<Chunk> chunks;
  std::vector<uint64_t> bits;  // the codes, 64 to a word, least significant bit first
  uint64_t bit_length = 0;

  // Bytes it takes in memory (and, within a few bytes a chunk, in a file).
  uint64_t bytes() const { return bits.size() * 8 + chunks.size() * sizeof(Chunk) + sizeof(*this); }
  uint64_t whole_coordinates() const;
};

// Appends points one by one and compresses each chunk as it fills.
class OrbitEncoder {
 public:
  OrbitEncoder();
  // An encoder for a stretch of an orbit that does not start at Z_0 (a checkpoint's points since
  // the last save): C is given instead of taken from the second point. The stretch's first two
  // points are stored whole, as Z_0 and Z_1 are.
  explicit OrbitEncoder(const OrbitPoint& c);
  void push(const OrbitPoint& p);
  // Point k of those pushed so far.
  OrbitPoint point(uint64_t k) const;
  // Bytes it holds (the chunks so far and the points waiting for theirs).
  uint64_t bytes() const { return out_.bytes() + pending_.capacity() * sizeof(OrbitPoint); }
  // Compresses the last, partial chunk; the encoder is empty afterwards.
  CompressedOrbit finish();
  uint64_t size() const { return out_.length + pending_.size(); }

 private:
  void flush();
  CompressedOrbit out_;
  std::vector<OrbitPoint> pending_;
  OrbitPoint last_;  // the point before pending_'s first
  bool c_given_ = false;
};

CompressedOrbit compress_orbit(const std::vector<FloatExp>& zr, const std::vector<FloatExp>& zi,
                               const std::vector<double>& zr_lo, const std::vector<double>& zi_lo);

// Decodes chunk `k` into out[0 .. count) (count = kOrbitChunk, or fewer for the last chunk).
// Throws std::runtime_error when its points do not hash to the stored value.
std::size_t decode_chunk(const CompressedOrbit& o, std::size_t k, OrbitPoint* out);

// Decodes every chunk on up to `threads` threads (0: the machine's) and hands each to fn (from any
// of them, one chunk at a time per thread; k: the chunk, p[0 .. n): its points). Throws
// std::runtime_error as decode_chunk does, or what fn throws.
void for_each_chunk(const CompressedOrbit& o, int threads,
                    const std::function<void(std::size_t k, const OrbitPoint* p, std::size_t n)>& fn);

// The four arrays an orbit's points are kept in outside the codec (Reference's zr, zi, zr_lo, zi_lo).
struct PointArrays {
  std::vector<FloatExp>* zr;
  std::vector<FloatExp>* zi;
  std::vector<double>* zr_lo;
  std::vector<double>* zi_lo;
  void resize(std::size_t n) const;
  // p[0 .. n) into [at, at + n) (already sized).
  void put(std::size_t at, const OrbitPoint* p, std::size_t n) const;
};

// All points into the four arrays (resized), decoding chunks on up to `threads` threads (0: the
// machine's). Throws std::runtime_error as decode_chunk does.
void decompress_orbit(const CompressedOrbit& o, std::vector<FloatExp>* zr, std::vector<FloatExp>* zi,
                      std::vector<double>* zr_lo, std::vector<double>* zi_lo, int threads = 0);

// The orbit as bytes (little-endian): u64 length; the point C (f64 m, i32 e, f64 tail for re, then
// im); u64 chunks, each: u64 bit_offset, the point before it, u64 hash, u8 k_head, u8 k_tail, u8
// k_rhead, u8 k_rtail, u32 whole, u32 recurred; u64 bit_length; u64 words, then the words.
void append_compressed(std::string* out, const CompressedOrbit& o);
// The orbit at bytes[*at ..], advancing *at. Throws std::runtime_error for anything that is not
// an orbit append_compressed wrote (truncation, impossible offsets or counts); a stream whose
// points are damaged is caught later, by decoding (its chunk hashes).
CompressedOrbit read_compressed(const std::string& bytes, std::size_t* at);

// Point k of o, from a per-thread buffer of its decoded chunk (decoded again only when another
// chunk or orbit is asked): for reading in order, or near the last point read.
const OrbitPoint& packed_point(const CompressedOrbit& o, uint64_t k);

// The hash decode_chunk checks: of the points' bit patterns, in order.
uint64_t point_hash(const OrbitPoint* p, std::size_t n);

}  // namespace ds::perturb
