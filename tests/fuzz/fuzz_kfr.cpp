// libFuzzer target: the Kalles Fraktaler .kfr reader on any text (app/location_kf.cpp), without
// parse_location's choice of format in front of it.
#include <cstddef>
#include <cstdint>

#include "fuzz_check.h"
#include "app/io/location_detail.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = ds::fuzz::text_of(data, size);
  ds::fuzz::check_location_reader([&] { return ds::app::location_detail::parse_kfr(text, "fuzz.kfr"); });
  return 0;
}
