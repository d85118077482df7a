// The Hénon tab's sink-scan view: runs henon::scan on a background job (or opens a scan CSV the
// batch command wrote) and draws a strip (one b) as the smallest period over a, on the plotting
// layer's axes, or a plane coloured by the detected period; clicking a parameter hands it to the
// orbit view.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "arith/format.h"
#include "jobs.h"
#include "kernels/henon/henon.h"

namespace ds::gui {

class HenonScanView {
 public:
  // A parameter the user clicked: its exact a and b, and a point of its sink when it has one.
  struct Pick {
    std::string a, b;
    bool has_point = false;
    double x = 0, y = 0;
    int32_t period = 0;
  };

  HenonScanView();
  ~HenonScanView() { job_.cancel(); }

  // The scan's inputs and Run / Cancel / Open, for the controls column.
  void draw_controls(Arith arith);
  // The strip (nb = 1) or plane; returns true with *pick set when a parameter was clicked.
  bool draw_view(Pick* pick);
  bool busy() const { return job_.running(); }
  // Sets an input from a NAME=VALUE setting (scripts: a-min, a-step, b-min, na (a strip: nb = 1),
  // start-points, transient, p-max, backend); false with *error naming it if not accepted.
  bool set(const std::string& name, const std::string& value, std::string* error);
  void start();
  // Opens a scan CSV (deepscope henon scan --csv); false with *error set when it cannot.
  bool open_csv(const std::string& path, std::string* error);
  // The same, with a failure shown in the view's message line.
  void open_csv_reporting(const std::string& path) {
    std::string err;
    if (!open_csv(path, &err)) message_ = err;
  }

 private:
  // What one parameter shows: the most telling outcome among its start points.
  enum class Kind : uint8_t { kNotDone, kEscaped, kAperiodic, kPeriodic, kSink };
  struct Cell {
    Kind kind = Kind::kNotDone;
    int32_t period = 0;  // smallest sink period (kSink) or smallest period (kPeriodic)
  };
  void set_result(henon::ScanResult r, const std::string& source);
  bool draw_strip(Pick* pick);
  static bool make_pick(const henon::ParamResult& p, Pick* pick);
  static uint32_t colour(const Cell& c);

  static constexpr int kBuf = 128;
  char a_min_[kBuf], a_step_[kBuf], b_min_[kBuf], b_step_[kBuf], tol_[kBuf], path_[512];
  int64_t na_ = 2000, nb_ = 1, n_init_ = 64, n_transient_ = 100000;
  int p_max_ = 1000;
  int backend_ = 0;  // auto, cpu, cuda
  Arith arith_ = Arith::kF64;

  BackgroundJob job_;
  std::mutex mutex_;  // guards pending_ / has_pending_ (written by the job)
  henon::ScanResult pending_;
  std::string pending_source_;
  bool has_pending_ = false;

  henon::ScanResult shown_;
  std::vector<Cell> cells_;
  std::string source_, message_;
  int64_t with_sink_ = 0;
  // Visible window in parameter-index units.
  double va0_ = 0, va1_ = 1, vb0_ = 0, vb1_ = 1;
};

}  // namespace ds::gui
