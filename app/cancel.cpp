// SIGINT/SIGTERM -> cancel flag.
#include "cancel.h"

#include <csignal>
#include <cstdlib>
#include <unistd.h>

namespace ds::app {

static std::atomic<bool> g_cancel{false};

static void on_signal(int) {
  if (g_cancel.exchange(true)) _exit(130);
  const char msg[] = "\ninterrupted: finishing the current chunk and stopping (Ctrl-C again to abort)\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
}

void install_cancel_handler() {
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::atomic<bool>& cancel_flag() { return g_cancel; }

}  // namespace ds::app
