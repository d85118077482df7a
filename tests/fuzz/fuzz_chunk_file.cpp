// libFuzzer target: the chunk files that resumed and merged batch jobs read (kernels/work.h: the
// records after the header line, as read_chunk_file and merge_chunk_files parse them) and the TMD
// searches' payloads inside them (kernels/tmd_records.h, std::runtime_error when malformed).
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_check.h"
#include "kernels/tmd/records.h"
#include "kernels/core/work_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = ds::fuzz::text_of(data, size);
  bool clean = false;
  const auto records = ds::work::detail::parse_records(text, 0, &clean);
  std::string rewritten;
  for (const auto& kv : records) {
    DEEPSCOPE_FUZZ_REQUIRE(kv.first >= 0);
    rewritten += ds::work::detail::record(kv.first, kv.second);
    try {
      ds::tmd::records::parse_exhaustive(kv.second);
    } catch (const std::runtime_error&) {
    }
    try {
      ds::tmd::records::parse_lefevre(kv.second);
    } catch (const std::runtime_error&) {
    }
  }
  // What merge_chunk_files writes from these records reads back as the same records.
  bool clean_again = false;
  DEEPSCOPE_FUZZ_REQUIRE(ds::work::detail::parse_records(rewritten, 0, &clean_again) == records &&
                         clean_again);
  return 0;
}
