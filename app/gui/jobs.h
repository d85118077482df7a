// Background work for the window: one job at a time per owner, on a worker thread, with progress
// and cancel. Starting a new job cancels and replaces the running one, so the UI never blocks.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace ds::gui {

// What a running job sees: a cancel flag to poll, a progress value and a stage name to set.
struct JobControl {
  std::atomic<bool> cancel{false};
  std::atomic<double> progress{0.0};
  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  void set_stage(const std::string& s) {
    std::lock_guard<std::mutex> lock(mu_);
    stage_ = s;
  }
  std::string stage() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stage_;
  }

 private:
  mutable std::mutex mu_;
  std::string stage_;
};

class BackgroundJob {
 public:
  BackgroundJob() = default;
  ~BackgroundJob();
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  // Cancels and joins any running job, then runs `work` on a new thread. Exceptions thrown by
  // `work` end the job and are reported by error().
  void start(std::function<void(JobControl&)> work);
  // Asks the running job to stop and waits for it.
  void cancel();
  bool running() const { return running_.load(); }
  double progress() const { return control_ ? control_->progress.load() : 0.0; }
  std::string stage() const { return control_ ? control_->stage() : std::string(); }
  // Seconds since the current (or last) job started.
  double elapsed() const {
    return control_ ? std::chrono::duration<double>(std::chrono::steady_clock::now() - control_->started).count() : 0.0;
  }
  // The last job's error message, empty if it succeeded or was cancelled.
  std::string error() const;

 private:
  void join();
  std::thread thread_;
  std::unique_ptr<JobControl> control_;
  std::atomic<bool> running_{false};
  mutable std::mutex mutex_;
  std::string error_;
};

// The job's progress as a bar labelled with app/io/progress_text.h's read-out (the stage, or
// `what` where the job sets none; the share done, the time so far and an estimate of the time
// left), `width` pixels wide (-1: the region's width, -N: all but N pixels) and `height` high (0:
// a frame's height; a text line's keeps a layout the same with the bar or a line of text).
void job_progress_bar(const BackgroundJob& job, const char* what, float width = -1, float height = 0);

}  // namespace ds::gui
