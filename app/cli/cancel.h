// Ctrl-C handling for batch commands: the first SIGINT sets a flag that long loops poll so they
// stop cleanly and keep finished results; a second SIGINT terminates at once, unless it comes
// within a quarter of a second of the first (the same interruption delivered twice, as `timeout`
// does).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace ds::app {

// Installs the SIGINT/SIGTERM handler (idempotent).
void install_cancel_handler();
// The flag the handler sets; pass it to library calls that accept a cancel flag.
std::atomic<bool>& cancel_flag();

// A progress callback that rewrites one stderr line: percent done and seconds since the call.
std::function<void(double)> stderr_progress();
// After a cancelled resumable run: says how many units (chunks, blocks) are kept in `file` and how
// to resume, and returns the exit code 130.
int report_interrupted(int64_t done, int64_t total, const char* units, const std::string& file);

}  // namespace ds::app
