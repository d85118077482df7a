// The Hénon map loop in MPFR and QD on all cores (one orbit per thread), for the paper's Table 2.
#pragma once
#include <cstdint>

namespace ds::app {

// Map steps per second over all cores, `steps` steps per orbit at (a, b) = (1.4, 0.3).
double mpfr_henon_steps_per_second(long bits, int64_t steps);
// QD's dd_real (doubles = 2) or qd_real (4); 0 when QD is not built in or for other sizes.
double qd_henon_steps_per_second(int doubles, int64_t steps);

}  // namespace ds::app
