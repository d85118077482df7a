// libFuzzer target: parse_location on any text, which tells deepscope's own format, Kalles
// Fraktaler .kfr and Fraktaler-3 TOML apart by their syntax (app/location.h).
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = ds::fuzz::text_of(data, size);
  ds::fuzz::check_location_reader([&] { return ds::app::parse_location(text, "fuzz"); });
  return 0;
}
