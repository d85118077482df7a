// Progress read-outs shared by the window and the batch commands: a duration in words and one line
// saying the stage, the share done, the time so far and an estimate of the time left.
#pragma once
#include <string>

namespace ds::app {

// "1 h 02 min", "3 min 20 s", "12 s"; "?" for a negative or non-finite time.
std::string duration_text(double seconds);

// "pixels 42 %, 12 s, about 16 s left": the stage (left out when empty), the fraction done in
// [0, 1], the seconds elapsed, and the time left at the rate so far, given only once it means
// something (at least 2 % done and 1 s elapsed): a linear estimate, said as "about".
std::string progress_text(const std::string& stage, double fraction, double elapsed_seconds);

}  // namespace ds::app
