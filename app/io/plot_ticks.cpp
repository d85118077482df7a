// Tick values and labels of the plotting layer (plot.h): 1-2-5 steps on linear axes, decades (with
// 2..9 minor ticks) on log10 axes, and short number formatting.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "plot.h"

namespace ds::app::plot {

Rgba palette(int k) {
  static const uint8_t c[10][3] = {{31, 119, 180},  {214, 39, 40}, {44, 160, 44},   {255, 127, 14},
                                   {148, 103, 189}, {140, 86, 75}, {227, 119, 194}, {127, 127, 127},
                                   {188, 189, 34},  {23, 190, 207}};
  const uint8_t* p = c[((k % 10) + 10) % 10];
  return Rgba{p[0], p[1], p[2], 255};
}

std::string format_number(double v, int digits) {
  if (v == 0) return "0";
  char b[48];
  std::snprintf(b, sizeof b, "%.*g", std::clamp(digits, 1, 17), v);
  std::string s = b;
  // "1e-06" -> "1e-6", "2.5e+12" -> "2.5e12".
  const std::size_t e = s.find('e');
  if (e != std::string::npos) {
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    const bool neg = !exp.empty() && exp[0] == '-';
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.erase(0, 1);
    while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
    s = mant + "e" + (neg ? "-" : "") + exp;
  }
  return s;
}

std::vector<Tick> linear_ticks(double lo, double hi, int want) {
  std::vector<Tick> t;
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi)) return t;
  const double raw = (hi - lo) / std::max(1, want);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  const double step = (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  const double first = std::ceil(lo / step - 1e-9);
  const double mag = std::max(std::fabs(lo), std::fabs(hi));
  // Enough significant digits that neighbouring labels differ: one more than the digits between
  // the largest value's leading digit and the step's.
  const int digits =
      std::max(1, static_cast<int>(std::floor(std::log10(mag)) - std::floor(std::log10(step))) + 1);
  // Moderate magnitudes in fixed notation with the step's decimals ("0.005", "100"), others short
  // scientific ("2.5e12").
  const bool fixed = mag >= 1e-4 && mag < 1e6;
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  for (int i = 0; i < 100; ++i) {
    double v = (first + i) * step;
    if (v > hi + 1e-9 * step) break;
    if (std::fabs(v) < 1e-9 * step) v = 0;
    char b[64];
    if (fixed) std::snprintf(b, sizeof b, "%.*f", decimals, v);
    t.push_back({v, fixed ? std::string(b) : format_number(v, digits)});
  }
  return t;
}

std::vector<Tick> log_ticks(double lo, double hi, int want) {
  std::vector<Tick> t;
  if (!(lo > 0 && lo < hi) || !std::isfinite(hi)) return t;
  const double l0 = std::log10(lo), l1 = std::log10(hi);
  const int d0 = static_cast<int>(std::ceil(l0 - 1e-9)), d1 = static_cast<int>(std::floor(l1 + 1e-9));
  const int decades = d1 - d0 + 1;
  if (decades < 2) {
    // Less than two decade ticks in range: 1-2-5 ticks in the data's own units.
    for (Tick& k : linear_ticks(lo, hi, want))
      if (k.value > 0) t.push_back(k);
    return t;
  }
  // Every n-th decade labelled, n from a round list, the labelled ones multiples of n (so 1 is one).
  int every = 1;
  for (int n : {1, 2, 3, 5, 10, 20, 25, 50, 100}) {
    every = n;
    if (decades <= n * std::max(1, want)) break;
  }
  for (int d = d0 - 1; d <= d1; ++d) {
    const double base = std::pow(10.0, d);
    if (d >= d0 && ((d % every) + every) % every == 0) {
      // Decades near 1 as plain numbers ("0.001", "100"), others as powers ("1e-6").
      char b[32];
      if (d >= -4 && d <= 4) std::snprintf(b, sizeof b, "%.*f", std::max(0, -d), base);
      t.push_back({base, d >= -4 && d <= 4 ? std::string(b) : format_number(base, 1)});
    } else if (d >= d0)
      t.push_back({base, ""});
    if (every == 1 && decades <= 8)
      for (int m = 2; m <= 9; ++m) {
        const double v = m * base;
        if (v >= lo && v <= hi) t.push_back({v, ""});
      }
  }
  std::sort(t.begin(), t.end(), [](const Tick& a, const Tick& b) { return a.value < b.value; });
  return t;
}

}  // namespace ds::app::plot
