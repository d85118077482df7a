// Well-known Mandelbrot locations that the benchmarks, the tests and the docs share.
#pragma once

namespace ds::mandel::locations {

// Kalles Fraktaler's 1e14 benchmark location (benchmarks/1e14.kfr in KF 2; 4036 iterations).
inline constexpr const char* kKf1e14Re = "-1.759817130804847813610825010561798238243999999999999999999800";
inline constexpr const char* kKf1e14Im = "-0.012593310799749865383746631843264858450340000000000000000000";

// A Misiurewicz point (preperiod 11, period 3), to 100 digits: deep zooms to 1e60 and beyond stay
// structured around it.
inline constexpr const char* kMisiurewiczRe =
    "-0.4843959562623775919128287421586067691596124435419865096507798028029960660414365868871991207499025159";
inline constexpr const char* kMisiurewiczIm =
    "0.6418924099139518844354150775006524215199605374875397669595578755542089273055838652129049918350557796";

}  // namespace ds::mandel::locations
