// The batch commands' progress line on stderr (app/io/progress_text.h's read-out): used by render's
// single image, its strips and its frames.
#pragma once
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <mutex>
#include <string>

#include <unistd.h>

#include "app/io/progress_text.h"
#include "kernels/perturb/perturb.h"

namespace ds::app {

// One progress line on stderr, cleared by clear(): the label, the stage (what the engine says it is
// doing), the share done, the time so far and the time left (app/io/progress_text.h). On a terminal
// the line is rewritten in place; where stderr is a file or a pipe (a batch job's log) a whole line
// is written at most every log_seconds instead (as the oracle's progress), so a log shows where a
// long render stands.
struct ProgressLine {
  bool on = false;   // a terminal: the line rewritten in place
  bool log = false;  // not a terminal: whole lines, at most one every log_seconds
  double log_seconds = 30.0;
  std::string label;
  // on or log from where stderr goes (neither where `talk` is false: --quiet).
  void start(bool talk) {
    const bool tty = isatty(2) != 0;
    on = talk && tty;
    log = talk && !tty;
  }
  std::mutex mu;
  const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::string stage;
  double fraction = 0;
  std::function<void(double)> callback() {
    if (!on && !log) return nullptr;
    return [this](double x) {
      std::lock_guard<std::mutex> lock(mu);
      fraction = x;
      show();
    };
  }
  // For RenderOptions::stage: the engine's stage, shown from the next update on.
  std::function<void(const char*)> stage_callback() {
    if (!on && !log) return nullptr;
    return [this](const char* s) {
      std::lock_guard<std::mutex> lock(mu);
      stage = s;
      show();
    };
  }
  // The reference orbit's own progress (its steps so far of at most max_iter), before the pixels'
  // share starts.
  std::function<void(double)> reference_callback(uint64_t max_iter) {
    if (!on && !log) return nullptr;
    return [this, max_iter](double x) {
      std::lock_guard<std::mutex> lock(mu);
      stage = perturb::reference_stage_text(x, max_iter);
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      print_line(label + ": " + progress_text(stage, x, elapsed));
    };
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu);
    wipe();
  }
  // Prints `text` (whole lines) on stderr without mixing it into the progress line.
  void print(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu);
    wipe();
    std::cerr << text << std::flush;
  }

 private:
  std::size_t shown = 0;  // the length of the line on screen
  void show() {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    print_line(label + ": " + progress_text(stage, fraction, elapsed));
  }
  double logged = 0;        // when log mode last wrote a line (seconds since t0)
  void print_line(const std::string& text) {
    if (!on) {
      const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (now - logged < log_seconds) return;
      logged = now;
      std::fprintf(stderr, "deepscope %s\n", text.c_str());
      std::fflush(stderr);
      return;
    }
    std::fprintf(stderr, "\r%s%*s", text.c_str(), static_cast<int>(shown > text.size() ? shown - text.size() : 0), "");
    std::fflush(stderr);
    shown = text.size();
  }
  void wipe() {
    if (on && shown) std::fprintf(stderr, "\r%*s\r", static_cast<int>(shown), "");
    shown = 0;
  }
};

}  // namespace ds::app
