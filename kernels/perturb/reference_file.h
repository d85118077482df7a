// Reference orbits on disk (`render --reference-cache DIR`, docs/perturbation.md "Reference
// cache"): a long reference is computed once and loaded back by later renders of the same centre,
// precision and iterations, in this process or another. The file holds every field of Reference and
// a checksum; one that does not decode, or whose key differs, is never used (the render computes
// the orbit again and says so).
#pragma once
#include <memory>
#include <string>

#include "perturb.h"

namespace ds::perturb {

// The bytes of a reference file (format: reference_file.cpp).
std::string encode_reference(const Reference& ref);
// The reference in `bytes`; throws std::runtime_error naming what is wrong (magic, version,
// truncation, checksum, an impossible field) for anything else.
std::shared_ptr<Reference> decode_reference(const std::string& bytes);

// The file in `dir` for the reference of (re, im) at `bits` asked, `max_iter` iterations and pixel
// spacing `step`: named by a hash of all four; the file also stores them, and a loaded file must
// match them exactly.
std::string reference_cache_path(const std::string& dir, const std::string& re, const std::string& im, int bits,
                                 uint64_t max_iter, FloatExp step);

// A reference orbit in progress (compute_reference's checkpoint, docs/perturbation.md "Resumable
// references"): the points so far and the state that continues them bit for bit: Z_n exactly (MPFR
// at the orbit's bits), A_n, the error bound E_n and whether C's escape tests were certified.
struct ReferenceCheckpoint {
  std::shared_ptr<Reference> ref;  // points Z_0 .. Z_n, bits, error_shift, ...
  std::string x, y;                // Z_n's real and imaginary parts, exact (mpfr_util's hex form)
  FloatExp ar{0.0}, ai{0.0}, err{0.0};
  bool certify = false;
};
std::string encode_checkpoint(const ReferenceCheckpoint& c);
// Throws std::runtime_error for anything but an intact checkpoint.
ReferenceCheckpoint decode_checkpoint(const std::string& bytes);

// What reference_for did with the cache directory (RenderResult's perturb info reports it).
enum class CacheUse { kNone, kLoaded, kSaved, kRejected };

}  // namespace ds::perturb
