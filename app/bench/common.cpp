// What every benchmark report shares: number formatting and the date/commit/command preamble.
#include <cstdio>
#include <ctime>

#include "bench.h"
#include "version.h"

namespace ds::app {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string bench_preamble(const std::string& name, const ArgList& args) {
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::string s = "# deepscope bench " + name + "\n\n- date: " + date +
                  "\n- commit: " + DEEPSCOPE_GIT_COMMIT + "\n- command: `deepscope bench " + name;
  for (const auto& a : args) s += " " + a;
  return s + "`\n";
}

}  // namespace ds::app
