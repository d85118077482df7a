// The Hénon tab's bifurcation diagram: for a range of a at fixed b (or of b at fixed a), the points
// of the attractor (x after a transient) over the parameter, computed with henon::orbit on a
// background job; the current a (or b) is marked, and a click opens that parameter's orbit.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jobs.h"
#include "panels.h"

namespace ds::gui {

class HenonBifurcationView {
 public:
  HenonBifurcationView();
  ~HenonBifurcationView() { job_.cancel(); }
  // The diagram's inputs and Run, for the controls column; `a` and `b` are the orbit view's (the
  // fixed parameter's default).
  void draw_controls(const std::string& a, const std::string& b);
  // The diagram with the current a or b (orbit view) marked; true with *a and *b set when the user
  // clicked a parameter.
  bool draw_view(double current_a, double current_b, std::string* a, std::string* b);
  // Sets the inputs from NAME=VALUE settings (over = a or b; a-from, a-to, b for a diagram over a;
  // b-from, b-to, a for one over b; columns, transient, points); false with *error naming the
  // first one that is not accepted.
  bool set(const std::string& name, const std::string& value, std::string* error);
  bool busy() const { return job_.running(); }
  // The plot area drawn this frame (window coordinates, one image pixel a window pixel), for a
  // script's pointer (move X Y: pixels from the plot area's top-left corner); false when not drawn.
  bool image_rect(ImageRect* r) const {
    if (!drawn_) return false;
    *r = rect_;
    return true;
  }
  void forget_drawn() { drawn_ = false; }
  // Starts a diagram (scripts and the Run button).
  void start();

 private:
  struct Result {
    std::vector<double> p, x;  // one point of the attractor each: the swept parameter and x
    int64_t columns = 0, escaped = 0;
    bool over_b = false;  // the swept parameter is b (a fixed), else a (b fixed)
    std::string fixed;    // the fixed parameter's value
    double lo = 0, hi = 0;
    bool done = false;
  };
  static constexpr int kBuf = 64;
  // Over a: a from a_lo_ to a_hi_ at b = b_. Over b: b from b_lo_ to b_hi_ at a = a_.
  char a_lo_[kBuf], a_hi_[kBuf], b_[kBuf], b_lo_[kBuf], b_hi_[kBuf], a_[kBuf];
  int columns_ = 800, transient_ = 1000, points_ = 150;
  int over_b_ = 0;
  bool b_set_ = false, a_set_ = false;
  BackgroundJob job_;
  std::mutex mutex_;
  std::shared_ptr<const Result> shown_;
  ImageRect rect_;
  bool drawn_ = false;
  std::string error_;
};

}  // namespace ds::gui
