// Entry points of the subcommands. Each takes the arguments after its name, returns the exit code,
// and throws cli::UsageError (exit 2) for bad input; main prints the messages.
#pragma once
#include <string>
#include <vector>

namespace ds::app {

using ArgList = std::vector<std::string>;

int cmd_info(const ArgList& args);
int cmd_render(const ArgList& args);
// `render` over eased frames, numbered PNGs and an MP4 through ffmpeg (cmd_video.cpp).
int cmd_video(const ArgList& args);
int cmd_bench(const ArgList& args);
int cmd_henon(const ArgList& args);
int cmd_drift(const ArgList& args);
int cmd_tmd(const ArgList& args);
// `tmd export`: a binary case file to the CSV and JSON (cmd_tmd_export.cpp).
int cmd_tmd_export(const ArgList& args);
int cmd_merge(const ArgList& args);
int cmd_oracle(const ArgList& args);
int cmd_find(const ArgList& args);
// Opens the window; in builds without the GUI, explains and returns 2.
int cmd_gui(const ArgList& args);

// The whole command line (the arguments after the program name), as main runs it: dispatch, error
// messages on stderr, and the exit code (2 bad input, 1 failure while running).
int run(const ArgList& args);

// One-line usage of every subcommand, printed by --help and on usage errors.
const char* usage_text();
// The part of usage_text() about `command` (and its sub-command `sub`, e.g. henon scan, when given
// and listed): its synopsis lines and description; empty when the command is not listed.
std::string usage_for(const std::string& command, const std::string& sub = "");

}  // namespace ds::app
