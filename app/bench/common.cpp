// What every benchmark report shares: number formatting and the date/commit/command preamble.
#include <cstdio>
#include <ctime>
#include <fstream>

#include "bench.h"
#include "version.h"

namespace ds::app {

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "CPU";
}

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
