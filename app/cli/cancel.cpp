// SIGINT/SIGTERM -> cancel flag.
#include "cancel.h"

#include <unistd.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ds::app {

static std::atomic<bool> g_cancel{false};
static std::atomic<int64_t> g_first_ns{0};  // when the first signal came (CLOCK_MONOTONIC)

static int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// A second signal within a quarter of a second is the same interruption delivered twice, not a
// second Ctrl-C: `timeout -s INT` signals the command and then its whole process group, so the
// command gets two at once (and used to abort without saving its work).
static void on_signal(int) {
  const int64_t now = now_ns();
  if (g_cancel.exchange(true)) {
    if (now - g_first_ns.load() < 250000000) return;
    _exit(130);
  }
  g_first_ns = now;
  const char msg[] = "\ninterrupted: finishing the current chunk and stopping (Ctrl-C again to abort)\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
}

void install_cancel_handler() {
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);  // one handler at a time, whichever signal
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::atomic<bool>& cancel_flag() { return g_cancel; }

std::function<void(double)> stderr_progress() {
  const auto t0 = std::chrono::steady_clock::now();
  return [t0](double f) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, "\r%6.2f%%  %.0f s", 100 * f, s);
    std::fflush(stderr);
  };
}

int report_interrupted(int64_t done, int64_t total, const char* units, const std::string& file) {
  std::fprintf(
      stderr,
      "interrupted after %lld%s%lld %s; finished %s are kept in %s: run the same command again to resume\n",
      static_cast<long long>(done), total >= 0 ? " of " : "", static_cast<long long>(total >= 0 ? total : 0),
      units, units, file.c_str());
  return 130;
}

}  // namespace ds::app
