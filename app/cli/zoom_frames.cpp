// Frame names and eased geometric zooms of a zoom sequence.
#include "zoom_frames.h"

#include <mpfr.h>

#include <cctype>
#include <cstdio>

#include "cli.h"

namespace ds::app {

Easing parse_easing(const std::string& name) {
  if (name == "linear") return Easing::kLinear;
  if (name == "smooth") return Easing::kSmooth;
  if (name == "in") return Easing::kIn;
  if (name == "out") return Easing::kOut;
  throw cli::UsageError("--easing must be linear, smooth, in or out, got \"" + name + "\"");
}

const char* easing_name(Easing e) {
  switch (e) {
    case Easing::kLinear:
      return "linear";
    case Easing::kSmooth:
      return "smooth";
    case Easing::kIn:
      return "in";
    case Easing::kOut:
      return "out";
  }
  return "?";
}

double ease(Easing e, double t) {
  switch (e) {
    case Easing::kLinear:
      return t;
    case Easing::kSmooth:
      return t * t * (3.0 - 2.0 * t);
    case Easing::kIn:
      return t * t;
    case Easing::kOut:
      return 1.0 - (1.0 - t) * (1.0 - t);
  }
  return t;
}

std::string frame_name(const std::string& path, int k, int n) {
  size_t pct = path.find('%');
  if (pct != std::string::npos) {
    size_t e = pct + 1;
    while (e < path.size() && std::isdigit(static_cast<unsigned char>(path[e]))) ++e;
    if (e >= path.size() || path[e] != 'd' || path.find('%', e) != std::string::npos)
      throw cli::UsageError("output pattern \"" + path +
                            "\" must contain exactly one %d (e.g. frame_%05d.png)");
    char buf[64];
    std::snprintf(buf, sizeof buf, path.substr(pct, e - pct + 1).c_str(), k);
    return path.substr(0, pct) + buf + path.substr(e + 1);
  }
  if (n == 1) return path;
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%05d", k);
  return path.substr(0, dot) + buf + path.substr(dot);
}

std::vector<std::string> frame_zooms(const std::string& z0, const std::string& z1, int n, Easing easing) {
  if (n == 1) return {z0};
  std::vector<std::string> out;
  mpfr_t a, b, t;
  mpfr_inits2(256, a, b, t, static_cast<mpfr_ptr>(nullptr));
  char* end = nullptr;
  mpfr_strtofr(a, z0.c_str(), &end, 10, MPFR_RNDN);  // both validated by geometry()
  mpfr_strtofr(b, z1.c_str(), &end, 10, MPFR_RNDN);
  mpfr_div(b, b, a, MPFR_RNDN);  // ratio
  mpfr_log(b, b, MPFR_RNDN);
  for (int k = 0; k < n; ++k) {
    if (k == 0) {
      out.push_back(z0);
      continue;
    }
    if (k == n - 1) {
      out.push_back(z1);
      continue;
    }
    mpfr_mul_d(t, b, ease(easing, static_cast<double>(k) / (n - 1)), MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_mul(t, t, a, MPFR_RNDN);
    char* s = nullptr;
    mpfr_asprintf(&s, "%.40Re", t);
    out.push_back(s);
    mpfr_free_str(s);
  }
  mpfr_clears(a, b, t, static_cast<mpfr_ptr>(nullptr));
  return out;
}

}  // namespace ds::app
