// libFuzzer target: the Hénon sink scan's CSV read back (kernels/henon.h parse_scan_csv, which the
// window's scan view opens); malformed input must throw std::invalid_argument naming the line.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_check.h"
#include "kernels/henon/henon.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = ds::fuzz::text_of(data, size);
  ds::henon::ScanResult r;
  try {
    r = ds::henon::parse_scan_csv(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  DEEPSCOPE_FUZZ_REQUIRE(r.na >= 1 && r.nb >= 1 && r.params.size() == static_cast<std::size_t>(r.na * r.nb));
  std::size_t done = 0;
  for (std::size_t k = 0; k < r.params.size(); ++k) {
    const ds::henon::ParamResult& p = r.params[k];
    if (!p.done) continue;
    ++done;
    DEEPSCOPE_FUZZ_REQUIRE(static_cast<std::size_t>(p.ib * r.na + p.ia) == k);
    // Counts of start points are never negative, and cycles have a period of at least 1.
    DEEPSCOPE_FUZZ_REQUIRE(p.escaped >= 0 && p.aperiodic >= 0);
    for (const ds::henon::CycleFound& c : p.cycles) DEEPSCOPE_FUZZ_REQUIRE(c.period >= 1 && c.count >= 0);
  }
  DEEPSCOPE_FUZZ_REQUIRE(done >= 1);
  ds::henon::scan_csv(r);
  return 0;
}
