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

// What reference_for did with the cache directory (RenderResult's perturb info reports it).
enum class CacheUse { kNone, kLoaded, kSaved, kRejected };

}  // namespace ds::perturb
