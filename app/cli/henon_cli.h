// Shared by the `deepscope henon` commands (cmd_henon.cpp) and its image commands
// (cmd_henon_image.cpp): option parsing helpers and the image sub-commands.
#pragma once
#include <string>

#include "cli.h"
#include "commands.h"
#include "kernels/henon/henon.h"

namespace ds::app {

// "auto", "cpu" or "cuda"; anything else is a cli::UsageError.
henon::Backend parse_henon_backend(const std::string& s);
// "x_lo,x_hi,y_lo,y_hi" into box[4]; cli::UsageError otherwise.
void parse_henon_box(const std::string& s, double* box);

// Refuses (cli::UsageError) a scan whose estimate exceeds this machine's memory, or with CUDA the
// device's, naming `options` (what to make smaller): before anything is printed. The kernel's own
// check (henon::scan_with, std::runtime_error) comes only after the banner.
void refuse_scan_over_memory(const henon::ScanEstimate& e, henon::Backend be, const std::string& options);

// `deepscope henon plane` and `deepscope henon basin`.
int henon_plane(const ArgList& argv);
int henon_basin(const ArgList& argv);
// `deepscope henon orbits` (cmd_henon_orbits.cpp).
int henon_orbits(const ArgList& argv);

}  // namespace ds::app
