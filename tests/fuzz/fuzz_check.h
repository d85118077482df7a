// What the fuzz targets check beyond the sanitizers: a reader returns, or throws the error type its
// front end reports as a clear message (the CLI maps IoError and ArithError to exit 2); any other
// exception escapes the target and libFuzzer reports it as a crash. A location that is accepted is
// written back in deepscope's format and as a .kfr and read again, which must succeed and, for our
// own format, give the same fields.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#include "arith/error.h"
#include "kernels/core/atomic_file.h"
#include "kernels/mandelbrot/view.h"
#include "app/io/location.h"

#define DEEPSCOPE_FUZZ_REQUIRE(cond)                                                            \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      std::fprintf(stderr, "fuzz: %s:%d: requirement failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                             \
    }                                                                                           \
  } while (0)

namespace ds::fuzz {

inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs parse (a callable returning a Location) and, when it accepts the input, checks the written
// forms. Returns normally for inputs refused with IoError or ArithError.
template <class Parse>
void check_location_reader(Parse parse) {
  app::Location loc;
  try {
    loc = parse();
  } catch (const IoError&) {
    return;
  } catch (const ArithError&) {
    return;
  }
  DEEPSCOPE_FUZZ_REQUIRE(!loc.re.empty() && !loc.im.empty() && !loc.zoom.empty());
  mandel::View view;
  formula::Formula formula;  // render's apply_to_view: the others refuse formula and Julia locations
  formula::JuliaSeed julia;
  app::apply_to_view(loc, &view, true, &formula, &julia);

  // Our format: every field reads back as it was.
  const std::string ours = app::format_location(loc);
  app::Location back;
  try {
    back = app::parse_location(ours, "round-trip");
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "fuzz: format_location wrote a file parse_location refuses: %s\n--- written:\n%s---\n",
                 e.what(), ours.c_str());
    std::abort();
  }
  DEEPSCOPE_FUZZ_REQUIRE(back.re == loc.re && back.im == loc.im && back.zoom == loc.zoom);
  DEEPSCOPE_FUZZ_REQUIRE(back.iterations == loc.iterations && back.width == loc.width &&
                         back.height == loc.height);
  DEEPSCOPE_FUZZ_REQUIRE(back.palette == loc.palette && back.density == loc.density &&
                         back.offset == loc.offset);
  for (int i = 0; i < 4; ++i) DEEPSCOPE_FUZZ_REQUIRE(back.pixel_map[i] == loc.pixel_map[i]);
  DEEPSCOPE_FUZZ_REQUIRE(back.formula == loc.formula);
  DEEPSCOPE_FUZZ_REQUIRE(back.julia_re == loc.julia_re && back.julia_im == loc.julia_im);

  // A .kfr, where KF has keys for the map: KF's reader (ours) must take it.
  std::string kfr;
  try {
    kfr = app::format_kfr(loc);
  } catch (const IoError&) {
    return;
  }
  try {
    app::parse_location(kfr, "round-trip.kfr");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: format_kfr wrote a file parse_location refuses: %s\n--- written:\n%s---\n",
                 e.what(), kfr.c_str());
    std::abort();
  }
}

}  // namespace ds::fuzz
