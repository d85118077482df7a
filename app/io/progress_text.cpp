// Progress read-outs shared by the window and the batch commands (progress_text.h).
#include "progress_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ds::app {

std::string duration_text(double s) {
  char b[48];
  if (!(s >= 0) || !std::isfinite(s)) return "?";
  if (s >= 3600)
    std::snprintf(b, sizeof b, "%d h %02d min", static_cast<int>(s / 3600), static_cast<int>(std::fmod(s, 3600) / 60));
  else if (s >= 60)
    std::snprintf(b, sizeof b, "%d min %02d s", static_cast<int>(s / 60), static_cast<int>(std::fmod(s, 60)));
  else
    std::snprintf(b, sizeof b, "%.0f s", std::ceil(s));
  return b;
}

std::string progress_text(const std::string& stage, double fraction, double elapsed) {
  const double f = std::isfinite(fraction) ? std::clamp(fraction, 0.0, 1.0) : 0.0;
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f %%", std::floor(100.0 * f));
  std::string s = stage.empty() ? std::string(pct) : stage + " " + pct;
  s += ", " + duration_text(elapsed);
  if (f >= 0.02 && f < 1.0 && elapsed >= 1.0) s += ", about " + duration_text(elapsed * (1.0 - f) / f) + " left";
  return s;
}

}  // namespace ds::app
