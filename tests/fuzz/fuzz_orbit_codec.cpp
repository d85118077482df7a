// libFuzzer target: the compressed orbit stream itself (kernels/perturb/orbit_codec.h,
// append_compressed), below the reference file's checksum, so that mutations reach the decoder:
// the step's and the recurrence's codes, whole coordinates, chunk tables. Any bytes are refused
// with std::runtime_error (by read_compressed, or by decoding: a chunk's hash) or decode to points
// that compress again to an orbit decoding to the very same bits.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "kernels/perturb/orbit_codec.h"

namespace {

uint64_t bits_of(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ds;
  using namespace ds::perturb;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::vector<FloatExp> zr, zi;
  std::vector<double> zr_lo, zi_lo;
  try {
    std::size_t at = 0;
    const CompressedOrbit o = read_compressed(bytes, &at);
    if (o.length > (uint64_t{1} << 20)) return 0;  // a length the fuzzer's memory limit cannot hold
    decompress_orbit(o, &zr, &zi, &zr_lo, &zi_lo, 1);
    DEEPSCOPE_FUZZ_REQUIRE(zr.size() == o.length);
  } catch (const std::runtime_error&) {
    return 0;
  }
  const CompressedOrbit again = compress_orbit(zr, zi, zr_lo, zi_lo);
  std::vector<FloatExp> ar, ai;
  std::vector<double> ar_lo, ai_lo;
  decompress_orbit(again, &ar, &ai, &ar_lo, &ai_lo, 1);
  DEEPSCOPE_FUZZ_REQUIRE(ar.size() == zr.size());
  for (std::size_t k = 0; k < zr.size(); ++k)
    DEEPSCOPE_FUZZ_REQUIRE(bits_of(ar[k].m) == bits_of(zr[k].m) && ar[k].e == zr[k].e && bits_of(ai[k].m) == bits_of(zi[k].m) &&
                           ai[k].e == zi[k].e && bits_of(ar_lo[k]) == bits_of(zr_lo[k]) && bits_of(ai_lo[k]) == bits_of(zi_lo[k]));
  return 0;
}
