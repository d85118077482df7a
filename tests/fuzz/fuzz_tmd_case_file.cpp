// libFuzzer target: the binary TMD case files that `deepscope tmd export` reads (app/io/
// tmd_case_file.h). Any bytes are refused with TmdCaseFileError or read; a file that is read
// encodes back to the same bytes (every field, the text of f(x) and of wide arguments included).
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/io/tmd_case_file.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  ds::app::TmdCases f;
  try {
    f = ds::app::decode_tmd_cases(bytes, "fuzz.tmdc");
  } catch (const ds::app::TmdCaseFileError&) {
    return 0;
  }
  DEEPSCOPE_FUZZ_REQUIRE(ds::app::encode_tmd_cases(f.header, f.cases) == bytes);
  return 0;
}
