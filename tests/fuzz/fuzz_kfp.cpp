// libFuzzer target: the Kalles Fraktaler palette reader (app/io/kfp.h) on any text. It returns or
// throws IoError; an accepted palette has 1 to 1024 colours and a positive IterDiv, and its table,
// density and offset are what colour_pixel can take (finite, density > 0, offset in [0, 1)).
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "app/io/kfp.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = ds::fuzz::text_of(data, size);
  ds::app::KfPalette p;
  try {
    p = ds::app::parse_kfp(text, "fuzz.kfp");
  } catch (const ds::IoError&) {
    return 0;
  }
  DEEPSCOPE_FUZZ_REQUIRE(!p.colors.empty() && p.colors.size() <= 1024);
  DEEPSCOPE_FUZZ_REQUIRE(p.iter_div > 0 && std::isfinite(p.iter_div));
  DEEPSCOPE_FUZZ_REQUIRE(std::isfinite(p.color_offset));
  ds::colour::Colouring c;
  ds::app::apply_kf_palette(p, &c);
  DEEPSCOPE_FUZZ_REQUIRE(c.palette.stops == 1024);
  DEEPSCOPE_FUZZ_REQUIRE(std::isfinite(c.density) && c.density >= 0);
  DEEPSCOPE_FUZZ_REQUIRE(c.offset >= 0 && c.offset <= 1);
  c.max_iter = 1000;
  (void)ds::colour::colour_pixel(c, 17, 17.5f);
  return 0;
}
