// The Hénon tab's periodic-orbit catalogue (kernels/henon/orbits.h, `deepscope henon orbits`): every
// orbit of least period up to N proven by interval Krawczyk, drawn over the attractor coloured by
// period with a period filter, beside the count per period on a log scale and the entropy estimate.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jobs.h"

namespace ds::gui {

class HenonCatalogueView {
 public:
  ~HenonCatalogueView() { job_.cancel(); }
  // Period limit and Run, for the controls column; a and b are the orbit view's.
  void draw_controls(const std::string& a, const std::string& b);
  // The orbits over the attractor and the counts per period.
  void draw_view();
  // NAME=VALUE settings from scripts: period-max (1..20); false with *error otherwise.
  bool set(const std::string& name, const std::string& value, std::string* error);
  bool busy() const { return job_.running(); }
  // Starts the catalogue at (a, b) (the Run button and scripts).
  void start(const std::string& a, const std::string& b);

 private:
  struct Orbit {
    int period;
    std::vector<double> x, y;  // the enclosures' midpoints
    bool sink;
  };
  struct Result {
    std::string a, b;
    std::vector<Orbit> orbits;
    std::vector<long long> count, undecided;  // index n - 1
    std::vector<double> ax, ay;                // the attractor (an orbit after its transient)
    double seconds = 0;
  };
  int period_max_ = 12;
  int show_lo_ = 1, show_hi_ = 12;  // the period filter
  BackgroundJob job_;
  std::mutex mutex_;
  std::shared_ptr<const Result> shown_;
};

}  // namespace ds::gui
