// Drift in kT per ns per degree of freedom: argon's unit of time, the degrees of freedom, the mean
// kinetic temperature and the spread of a slope over seeds (drift.h).
#include <cmath>

#include "drift.h"

namespace ds::drift {

double argon_tau_ps() {
  constexpr double kBoltzmann = 1.380649e-23;    // J/K, exact since 2019 (CODATA 2018)
  constexpr double kDalton = 1.66053906660e-27;  // kg (CODATA 2018)
  const double sigma = kArgonSigmaAngstrom * 1e-10;
  const double epsilon = kArgonEpsilonOverKb * kBoltzmann;
  const double mass = kArgonMassDalton * kDalton;
  return sigma * std::sqrt(mass / epsilon) * 1e12;
}

int64_t degrees_of_freedom(int64_t atoms) { return 3 * atoms - 3; }

double mean_temperature(const std::vector<MdSample>& s, int64_t atoms) {
  if (s.empty() || atoms < 2) return NAN;
  const double scale = 2.0 * static_cast<double>(atoms) / static_cast<double>(degrees_of_freedom(atoms));
  double t = 0;
  for (const MdSample& q : s) t += q.ke * scale;
  return t / static_cast<double>(s.size());
}

double kt_per_ns_per_dof(double slope_per_atom, int64_t atoms, double mean_t) {
  if (!(mean_t > 0) || atoms < 2) return NAN;
  const double tau_ns = argon_tau_ps() * 1e-3;
  return static_cast<double>(atoms) * slope_per_atom /
         (mean_t * static_cast<double>(degrees_of_freedom(atoms)) * tau_ns);
}

DriftUnits drift_units(const MdResult& r) {
  DriftUnits u;
  u.dof = r.atoms >= 2 ? degrees_of_freedom(r.atoms) : 0;
  u.mean_t = mean_temperature(r.samples, r.atoms);
  u.mean_t_kelvin = u.mean_t * kArgonEpsilonOverKb;
  u.slope = r.fit.slope;
  u.kt_ns_dof = r.samples.size() >= 2 ? kt_per_ns_per_dof(r.fit.slope, r.atoms, u.mean_t) : NAN;
  return u;
}

SeedSpread seed_spread(const std::vector<double>& values) {
  SeedSpread s;
  double sum = 0;
  for (double v : values)
    if (std::isfinite(v)) sum += v, ++s.n;
  if (s.n == 0) {
    s.mean = s.stderr_mean = NAN;
    return s;
  }
  s.mean = sum / s.n;
  if (s.n < 2) {
    s.stderr_mean = NAN;
    return s;
  }
  double ss = 0;
  for (double v : values)
    if (std::isfinite(v)) ss += (v - s.mean) * (v - s.mean);
  s.stderr_mean = std::sqrt(ss / (s.n - 1)) / std::sqrt(static_cast<double>(s.n));
  return s;
}

}  // namespace ds::drift
