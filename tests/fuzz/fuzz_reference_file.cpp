// libFuzzer target: reference orbit files (`render --reference-cache`, kernels/perturb/
// reference_file.h), whose points are compressed (orbit_codec.h). Any bytes are refused with
// std::runtime_error or read; a file that is read holds finite points, as many as its length says,
// and encodes back to a file that reads as the same orbit, packed or not.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz_check.h"
#include "kernels/perturb/reference_file.h"

namespace {

bool same_points(const ds::perturb::Reference& a, const ds::perturb::Reference& b) {
  if (a.length() != b.length()) return false;
  for (uint64_t k = 0; k < a.length(); ++k) {
    ds::FloatExp ar, ai, br, bi;
    double arl, ail, brl, bil;
    a.point(k, &ar, &ai, &arl, &ail);
    b.point(k, &br, &bi, &brl, &bil);
    if (!(ar == br && ai == bi && arl == brl && ail == bil)) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::shared_ptr<ds::perturb::Reference> ref;
  try {
    ref = ds::perturb::decode_reference(bytes, 64);  // orbits of 64 points and more stay packed
  } catch (const std::runtime_error&) {
    return 0;
  }
  DEEPSCOPE_FUZZ_REQUIRE(ref->length() >= 1 && ref->length() <= ref->max_iter + 1);
  DEEPSCOPE_FUZZ_REQUIRE(ref->packed ? ref->zr.empty() : ref->zr.size() == ref->length());
  for (uint64_t k = 0; k < ref->length(); ++k)
    DEEPSCOPE_FUZZ_REQUIRE(std::isfinite(ref->re53(k).m) && std::isfinite(ref->im53(k).m));
  const auto again = ds::perturb::decode_reference(ds::perturb::encode_reference(*ref));
  DEEPSCOPE_FUZZ_REQUIRE(same_points(*ref, *again));
  return 0;
}
