// The Hénon tab's bifurcation diagram: for a range of a at fixed b, the points of the attractor
// (x after a transient) over a, computed with henon::orbit on a background job; the current a is
// marked, and a click opens that a's orbit.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jobs.h"

namespace ds::gui {

class HenonBifurcationView {
 public:
  HenonBifurcationView();
  ~HenonBifurcationView() { job_.cancel(); }
  // The diagram's inputs and Run, for the controls column; `b` is the orbit view's b (the default).
  void draw_controls(const std::string& b);
  // The diagram with the current a (orbit view) marked; true with *a and *b set when the user
  // clicked a parameter.
  bool draw_view(double current_a, std::string* a, std::string* b);
  // Sets the inputs from NAME=VALUE settings (a-from, a-to, b, columns, transient, points); false
  // with *error naming the first one that is not accepted.
  bool set(const std::string& name, const std::string& value, std::string* error);
  bool busy() const { return job_.running(); }
  // Starts a diagram (scripts and the Run button).
  void start();

 private:
  struct Result {
    std::vector<double> a, x;  // one point of the attractor each
    int64_t columns = 0, escaped = 0;
    std::string b;
    double a_lo = 0, a_hi = 0;
    bool done = false;
  };
  static constexpr int kBuf = 64;
  char a_lo_[kBuf], a_hi_[kBuf], b_[kBuf];
  int columns_ = 800, transient_ = 1000, points_ = 150;
  bool b_set_ = false;
  BackgroundJob job_;
  std::mutex mutex_;
  std::shared_ptr<const Result> shown_;
  std::string error_;
};

}  // namespace ds::gui
