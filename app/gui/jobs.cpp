// Worker-thread jobs with cancel and progress for the window's panels.
#include "jobs.h"

#include <imgui.h>

#include "app/io/progress_text.h"
#include "kernels/core/cpu_parallel.h"

namespace ds::gui {

BackgroundJob::~BackgroundJob() { cancel(); }

void BackgroundJob::join() {
  if (thread_.joinable()) thread_.join();
}

void BackgroundJob::cancel() {
  if (control_) control_->cancel = true;
  join();
}

void BackgroundJob::start(std::function<void(JobControl&)> work) {
  cancel();
  control_ = std::make_unique<JobControl>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error_.clear();
  }
  running_ = true;
  JobControl* control = control_.get();
  thread_ = std::thread([this, control, work = std::move(work)] {
    try {
      work(*control);
    } catch (const std::exception& e) {
      if (!control->cancel) {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = e.what();
      }
    }
    release_thread_caches();  // MPFR's per-thread caches (kernels/cpu_parallel.h)
    running_ = false;
  });
}

std::string BackgroundJob::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

void job_progress_bar(const BackgroundJob& job, const char* what, float width, float height) {
  const std::string stage = job.stage();
  const std::string label = app::progress_text(stage.empty() ? what : stage, job.progress(), job.elapsed());
  ImGui::ProgressBar(static_cast<float>(job.progress()), ImVec2(width, height), label.c_str());
}

}  // namespace ds::gui
