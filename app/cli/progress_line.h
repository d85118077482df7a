// The batch commands' progress line on stderr (app/io/progress_text.h's read-out): used by render's
// single image, its strips and its frames.
#pragma once
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <mutex>
#include <string>

#include "app/io/progress_text.h"

namespace ds::app {

// One progress line on stderr (writer, terminal only), cleared by done(): the label, the stage
// (what the engine says it is doing), the share done, the time so far and the time left
// (app/io/progress_text.h).
struct ProgressLine {
  bool on = false;
  std::string label;
  std::mutex mu;
  const std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::string stage;
  double fraction = 0;
  std::function<void(double)> callback() {
    if (!on) return nullptr;
    return [this](double x) {
      std::lock_guard<std::mutex> lock(mu);
      fraction = x;
      show();
    };
  }
  // For RenderOptions::stage: the engine's stage, shown from the next update on.
  std::function<void(const char*)> stage_callback() {
    if (!on) return nullptr;
    return [this](const char* s) {
      std::lock_guard<std::mutex> lock(mu);
      stage = s;
      show();
    };
  }
  // The reference orbit's own progress, before the pixels' share starts.
  std::function<void(double)> reference_callback() {
    if (!on) return nullptr;
    return [this](double x) {
      std::lock_guard<std::mutex> lock(mu);
      stage = "reference orbit";
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
  void print_line(const std::string& text) {
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
