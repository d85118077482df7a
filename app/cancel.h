// Ctrl-C handling for batch commands: the first SIGINT sets a flag that long loops poll so they
// stop cleanly and keep finished results; a second SIGINT terminates at once.
#pragma once
#include <atomic>

namespace ds::app {

// Installs the SIGINT/SIGTERM handler (idempotent).
void install_cancel_handler();
// The flag the handler sets; pass it to library calls that accept a cancel flag.
std::atomic<bool>& cancel_flag();

}  // namespace ds::app
