// Reference orbits on disk (`render --reference-cache DIR`, docs/perturbation/formulas.md "Reference
// cache"): a long reference is computed once and loaded back by later renders of the same centre,
// precision and iterations, in this process or another. The file holds every field of Reference and
// a checksum; one that does not decode, or whose key differs, is never used (the render computes
// the orbit again and says so).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "orbit_codec.h"
#include "perturb.h"
#include "reference_fixed.h"  // OrbitPoint

namespace ds::perturb {

// The bytes of a reference file (format: reference_file.cpp).
std::string encode_reference(const Reference& ref);
// The reference in `bytes`; throws std::runtime_error naming what is wrong (magic, version,
// truncation, checksum, a chunk that does not decode, an impossible field) for anything else. An
// orbit of pack_from points or more stays packed (Reference::packed).
std::shared_ptr<Reference> decode_reference(const std::string& bytes, uint64_t pack_from = kPackFromPoints);

// The bytes of a file the program wrote itself (a cached reference, a checkpoint); *found = false
// where it cannot be opened.
std::string read_file_bytes(const std::string& path, bool* found);

// The file in `dir` for the reference of (re, im) at `bits` asked, `max_iter` iterations and pixel
// spacing `step`: named by a hash of all four; the file also stores them, and a loaded file must
// match them exactly. With ball_disk (the view's disk where the ball method rides on the orbit:
// view_ball), the file of the reference that reference_for chose for that view, cut at the ball's
// period or at a nucleus (whose C is the nucleus's, not the view's): a key of its own.
std::string reference_cache_path(const std::string& dir, const std::string& re, const std::string& im, int bits,
                                 uint64_t max_iter, FloatExp step, const FloatExp* ball_disk = nullptr);

// A reference orbit in progress (compute_reference's checkpoint, docs/perturbation/references.md "Resumable
// references"), in two files: the state at PATH (format DSPART03, small, rewritten whole and
// atomically) and the points at PATH.points, only ever appended, so a save costs the points since
// the last one: one segment a save, its byte count (u64) and those points compressed without loss
// (append_compressed; about 2 bytes a point). The state says how many points belong to the orbit
// and the FNV-1a hash of the segments that hold them, and holds what continues them bit for bit:
// Z_n exactly (MPFR at the orbit's bits), A_n, the error bound E_n and whether C's escape tests
// were certified.
struct ReferenceCheckpoint {
  std::shared_ptr<Reference> ref;  // the orbit's fields; its points only after decode_points
  // Z_n's real and imaginary parts, exact: MPFR's hexadecimal (mpfr_util::to_hex), or for a
  // fixed-point orbit (ref->step_threads < 0) the integers Z 2^F in hexadecimal (FixedOrbit::state).
  std::string x, y;
  FloatExp ar{0.0}, ai{0.0}, err{0.0};
  bool certify = false;
  // The ball riding along (BallStop; max_period 0: none) and its radius so far at the last point
  // (R_n and |Z_{n-1}| rounded up), so that a resumed orbit still stops at the ball's period.
  BallStop ball{};
  FloatExp ball_r{0.0}, ball_zprev{0.0};
  uint64_t points = 0;       // Z_0 .. Z_{points-1} belong to the orbit
  uint64_t points_hash = 0;  // points_hash() of the bytes in PATH.points that hold them
  uint64_t points_bytes = 0;  // those bytes (set by decode_points)
  // decode_points' points when there are pack_from or more: compressed, the arrays left empty.
  std::unique_ptr<OrbitEncoder> packed;
};
std::string encode_checkpoint_state(const ReferenceCheckpoint& c);
// Throws std::runtime_error for anything but an intact state.
ReferenceCheckpoint decode_checkpoint_state(const std::string& bytes);
// The points [from, to) as a segment of PATH.points (point(k): the orbit's point k; point(1) is C);
// nothing where from >= to.
std::string encode_points(const std::function<OrbitPoint(uint64_t)>& point, uint64_t from, uint64_t to);
// The running hash of point bytes (start with kPointsHashStart).
constexpr uint64_t kPointsHashStart = 1469598103934665603ull;
uint64_t points_hash(const char* p, std::size_t n, uint64_t h = kPointsHashStart);
// The first c.points points of `bytes` (PATH.points) into c.ref, after checking their hash, and
// c.points_bytes. Throws std::runtime_error when the file is short, the hash differs or a segment
// does not decode (its chunks' hashes).
// With pack_from points or more they go into c.packed instead of c.ref's arrays.
void decode_points(const std::string& bytes, ReferenceCheckpoint* c, uint64_t pack_from = UINT64_MAX);

// What reference_for did with the cache directory (RenderResult's perturb info reports it).
enum class CacheUse { kNone, kLoaded, kSaved, kRejected };

}  // namespace ds::perturb
