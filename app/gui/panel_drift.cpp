// The MD-drift workspace's tab: Lennard-Jones NVE runs with one background job per checked
// precision (float, double, composite, ff, mixed), live plots of |E(t) - E(0)| / |E(0)| (log) and
// the potential energy on one time axis, a table of drift slopes, the rate and the time left; and
// the thesis's summation and do/undo suites, plotted with a legend. Everything goes through
// kernels/drift/drift.h, the same calls as `deepscope drift`.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "app/io/progress_text.h"
#include "app/io/plot.h"
#include "jobs.h"
#include "kernels/drift/drift.h"
#include "panels.h"
#include "plot_imgui.h"

namespace ds::gui {
namespace {

constexpr int kModes = 6;  // drift::Precision: float, double, composite, ff, mixed, fixed
// A precision's colour everywhere in the tab (checkbox, lines, legend, table): palette(k), so
// float, double, composite, ff and mixed are blue, red, green, orange and purple, as in the PNGs of
// `deepscope drift`. Kahan summation (not a precision) is brown.
app::plot::Rgba colour_of(int k) { return app::plot::palette(k); }
ImU32 im_colour(int k) {
  const app::plot::Rgba c = colour_of(k);
  return IM_COL32(c.r, c.g, c.b, 255);
}

std::string duration(double s) { return app::duration_text(s); }

// What one precision's job shares with the frame.
struct Live {
  std::mutex mu;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::vector<drift::MdSample> samples;
  double steps_per_second = 0;
  bool finished = false;
  drift::MdResult result;
};

class DriftPanel final : public Panel {
 public:
  DriftPanel() { enabled_ = {true, true, true, false, true, true}; }
  ~DriftPanel() override {
    for (auto& j : jobs_) j.cancel();
    suite_job_.cancel();
  }
  const char* title() const override { return "MD drift"; }
  // Settings: cells, steps, every, equilibrate, dt, temperature, backend (auto|cpu|cuda) and
  // precisions (a comma-separated list of precision names); `suites=1` runs the summation and
  // do/undo suites instead (with iterations, trial and divide-first).
  bool run_with(const std::string& settings, std::string* error) override {
    std::istringstream in(settings);
    bool suites = false;
    for (std::string w; in >> w;) {
      const std::size_t eq = w.find('=');
      const std::string name = w.substr(0, eq), value = w.substr(eq + 1);
      try {
        std::size_t used = 0;
        auto whole = [&]() {
          const long long v = std::stoll(value, &used);
          if (used != value.size()) throw std::invalid_argument(value);
          return v;
        };
        auto real = [&]() {
          const double v = std::stod(value, &used);
          if (used != value.size()) throw std::invalid_argument(value);
          return v;
        };
        if (name == "cells")
          cells_ = static_cast<int>(whole());
        else if (name == "steps")
          steps_ = static_cast<int>(whole());
        else if (name == "every")
          every_ = static_cast<int>(whole());
        else if (name == "equilibrate")
          equil_ = static_cast<int>(whole());
        else if (name == "dt")
          dt_ = real();
        else if (name == "temperature")
          temp_ = real();
        else if (name == "iterations")
          iterations_ = std::clamp<long long>(whole(), 1000, 100'000'000);
        else if (name == "trial")
          trial_ = std::clamp(static_cast<int>(whole()), 1, 3) - 1;
        else if (name == "divide-first")
          div_first_ = whole() != 0;
        else if (name == "suites")
          suites = whole() != 0;
        else if (name == "backend") {
          const char* names[] = {"auto", "cpu", "cuda"};
          int b = -1;
          for (int k = 0; k < 3; ++k)
            if (value == names[k]) b = k;
          if (b < 0) throw std::invalid_argument(value);
          backend_ = b;
        } else if (name == "precisions") {
          std::array<bool, kModes> on{};
          std::istringstream list(value);
          for (std::string p; std::getline(list, p, ',');)
            on[static_cast<int>(drift::parse_precision(p))] = true;
          enabled_ = on;
        } else {
          *error = "the MD drift tab has no setting \"" + name +
                   "\" (cells, steps, every, equilibrate, dt, temperature, backend, precisions, suites, "
                   "iterations, trial, divide-first)";
          return false;
        }
      } catch (const std::exception&) {
        *error = "the MD drift tab's " + name + " cannot be \"" + value + "\"";
        return false;
      }
    }
    if (suites) {
      start_suites();
      select_ = 2;
      return true;
    }
    start_md();
    select_ = 1;
    if (!error_.empty()) *error = "MD drift: " + error_;
    return error_.empty();
  }
  bool busy() const override {
    for (const auto& j : jobs_)
      if (j.running()) return true;
    return suite_job_.running();
  }

  void draw() override {
    ImGui::BeginChild("drift_controls", ImVec2(360, 0), true);
    draw_controls();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("drift_view", ImVec2(0, 0), true);
    if (ImGui::BeginTabBar("drift_tabs")) {
      // A run started by a script shows its own sub-tab.
      if (ImGui::BeginTabItem("Lennard-Jones NVE", nullptr,
                              select_ == 1 ? ImGuiTabItemFlags_SetSelected : 0)) {
        draw_md();
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Summation and do/undo", nullptr,
                              select_ == 2 ? ImGuiTabItemFlags_SetSelected : 0)) {
        draw_suites();
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
      select_ = 0;
    }
    ImGui::EndChild();
  }

 private:
  void draw_controls() {
    ImGui::PushItemWidth(150);
    ImGui::TextWrapped("Lennard-Jones fcc lattice, reduced units (sigma, epsilon, tau); %d atoms.",
                       4 * cells_ * cells_ * cells_);
    ImGui::InputInt("fcc cells per side", &cells_);
    ImGui::InputDouble("dt (tau)", &dt_, 0.001, 0.005, "%.4f");
    ImGui::InputInt("steps", &steps_, 1000, 10000);
    ImGui::InputInt("sample every", &every_, 10, 100);
    ImGui::InputInt("equilibrate (steps)", &equil_, 1000, 10000);
    ImGui::InputDouble("temperature (eps/kB)", &temp_, 0.1, 0.5, "%.3f");
    ImGui::Checkbox("shifted potential", &shift_);
    const char* backends[] = {"auto", "cpu", "cuda"};
    ImGui::Combo("backend", &backend_, backends, 3);
    ImGui::Separator();
    ImGui::TextUnformatted("precisions");
    for (int k = 0; k < kModes; ++k) {
      ImGui::PushStyleColor(ImGuiCol_CheckMark, im_colour(k));
      ImGui::Checkbox(drift::precision_name(static_cast<drift::Precision>(k)), &enabled_[k]);
      ImGui::PopStyleColor();
    }
    ImGui::Separator();
    if (ImGui::Button("run")) start_md();
    ImGui::SameLine();
    if (ImGui::Button("stop"))
      for (auto& j : jobs_) j.cancel();
    ImGui::PopItemWidth();
    draw_estimate();
    if (!error_.empty()) error_text(error_);
    for (int k = 0; k < kModes; ++k) {
      const std::string e = jobs_[k].error();
      if (!e.empty()) error_text(std::string(drift::precision_name(static_cast<drift::Precision>(k))) + ": " + e);
    }
  }

  // The time a run takes: while it runs, each precision's progress, rate and time left (the jobs run
  // side by side, so the rate is the shared machine's); before, the estimate at the rate the last
  // run measured, in atom-steps per second, scaled to the settings.
  void draw_estimate() {
    const int64_t atoms = 4LL * cells_ * cells_ * cells_;
    const double work = static_cast<double>(atoms) * (std::max(0, steps_) + std::max(0, equil_));
    double left = 0;
    bool any = false;
    for (int k = 0; k < kModes; ++k) {
      if (!live_[k] || !jobs_[k].running()) continue;
      any = true;
      const double f = jobs_[k].progress();
      double elapsed, sps;
      {
        std::lock_guard<std::mutex> lock(live_[k]->mu);
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - live_[k]->started).count();
        sps = live_[k]->steps_per_second;
      }
      const double rest = f > 0.005 ? elapsed * (1 - f) / f : NAN;
      if (std::isfinite(rest)) left = std::max(left, rest);
      char label[128];
      std::snprintf(label, sizeof label, "%s %.0f %%, %.3g steps/s, %s left",
                    drift::precision_name(static_cast<drift::Precision>(k)), 100 * f, sps,
                    std::isfinite(rest) ? duration(rest).c_str() : "rate not measured yet");
      ImGui::PushStyleColor(ImGuiCol_PlotHistogram, im_colour(k));
      ImGui::ProgressBar(static_cast<float>(f), ImVec2(-1, 0), label);
      ImGui::PopStyleColor();
      if (f > 0.005 && elapsed > 0)
        measured_rate_ = static_cast<double>(run_atoms_) * (run_steps_ + run_equil_) * f / elapsed;
    }
    if (any) {
      ImGui::Text("about %s left", duration(left).c_str());
      return;
    }
    int on = 0;
    for (bool e : enabled_) on += e;
    if (measured_rate_ > 0 && on > 0)
      ImGui::TextWrapped(
          "estimate: about %s for %d precision%s side by side, at the last run's %.3g atom-steps/s "
          "per precision",
          duration(work / measured_rate_).c_str(), on, on > 1 ? "s" : "", measured_rate_);
    else
      ImGui::TextWrapped(
          "time: measured as the run goes (progress, rate and time left appear here); the next run's "
          "estimate uses the rate this one measures. The cost grows with atoms x steps.");
  }

  drift::MdParams params() const {
    drift::MdParams p;
    p.cells = cells_;
    p.dt = dt_;
    p.steps = steps_;
    p.sample_every = every_;
    p.equilibration = equil_;
    p.temperature = temp_;
    p.shift = shift_;
    p.backend = backend_ == 0   ? drift::Backend::kAuto
                : backend_ == 1 ? drift::Backend::kCpu
                                : drift::Backend::kCuda;
    return p;
  }

  void start_md() {
    error_.clear();
    drift::MdParams p = params();
    try {
      drift::validate(p);
      p.backend = select_backend(p.backend);
    } catch (const std::exception& e) {
      error_ = e.what();
      return;
    }
    run_dt_ = p.dt;
    run_steps_ = p.steps;
    run_equil_ = p.equilibration;
    run_atoms_ = 4LL * p.cells * p.cells * p.cells;
    for (int k = 0; k < kModes; ++k) {
      jobs_[k].cancel();
      live_[k] = enabled_[k] ? std::make_shared<Live>() : nullptr;
      if (!enabled_[k]) continue;
      std::shared_ptr<Live> live = live_[k];
      drift::MdParams q = p;
      q.precision = static_cast<drift::Precision>(k);
      jobs_[k].start([live, q](JobControl& ctl) mutable {
        q.cancel = &ctl.cancel;
        q.progress = [&ctl](double f) { ctl.progress = f; };
        const auto t0 = std::chrono::steady_clock::now();
        drift::MdResult r = drift::run_md(q, [&](const drift::MdSample& s) {
          const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          std::lock_guard<std::mutex> lock(live->mu);
          live->samples.push_back(s);
          if (sec > 0) live->steps_per_second = static_cast<double>(s.step) / sec;
        });
        std::lock_guard<std::mutex> lock(live->mu);
        live->result = std::move(r);
        live->finished = true;
      });
    }
  }

  void draw_md() {
    namespace plot = app::plot;
    // One time axis for every precision: the run's whole duration, so a faster precision's line
    // ends further right and never stretches to the width on its own.
    const double t_end = run_dt_ * static_cast<double>(run_steps_);
    plot::Figure rel, pe;
    rel.title = "relative energy drift, one line per precision";
    rel.x.label = pe.x.label = "time (tau, reduced LJ units)";
    rel.x.lo = pe.x.lo = 0;
    rel.x.hi = pe.x.hi = t_end > 0 ? t_end : 1;
    rel.y.label = "|E(t) - E(0)| / |E(0)|  (log scale; exact zeros not drawn)";
    rel.y.scale = plot::Scale::kLog10;
    pe.title = "potential energy";
    pe.y.label = "PE per atom (epsilon)";
    struct Row {
      int k;
      double sps, slope, rms, t, rel_end, kt_ns_dof;
      std::string status;
    };
    std::vector<Row> rows;
    for (int k = 0; k < kModes; ++k) {
      if (!live_[k]) continue;
      plot::Series r{drift::precision_name(static_cast<drift::Precision>(k)), {}, {}, colour_of(k)};
      plot::Series p = r;
      std::lock_guard<std::mutex> lock(live_[k]->mu);
      const auto& s = live_[k]->samples;
      const double e0 = s.empty() ? 0.0 : s[0].total;
      for (const auto& q : s) {
        r.x.push_back(q.time);
        r.y.push_back(e0 != 0 ? std::fabs(q.total - e0) / std::fabs(e0) : NAN);
        p.x.push_back(q.time);
        p.y.push_back(q.pe);
      }
      const drift::DriftFit fit = drift::fit_drift(s);
      const drift::MdResult& res = live_[k]->result;
      std::string status = !live_[k]->finished ? (jobs_[k].running() ? "running" : "stopped")
                           : res.blew_up       ? res.message
                           : res.cancelled     ? "stopped"
                                               : "done";
      // OpenMM's unit, for argon (drift::drift_units): once the run has finished.
      const double kt = live_[k]->finished && !res.blew_up ? drift::drift_units(res).kt_ns_dof : NAN;
      rows.push_back({k, live_[k]->finished ? res.steps_per_second : live_[k]->steps_per_second, fit.slope,
                      fit.rms, s.empty() ? 0.0 : s.back().time, r.y.empty() ? NAN : r.y.back(), kt, status});
      rel.series.push_back(std::move(r));
      pe.series.push_back(std::move(p));
    }
    if (rows.empty()) {
      ImGui::TextWrapped(
          "Check the precisions to compare and press run: |E(t) - E(0)| / |E(0)| of each appears "
          "here on a log scale, all on one time axis, with the potential energy below.");
      return;
    }
    app::plot::nest_line_widths(&rel.series, 2, 2);  // ImGui antialiases a pixel of each edge
    app::plot::nest_line_widths(&pe.series, 2, 2);
    const float h = ImGui::GetContentRegionAvail().y;
    draw_plot("##drift", rel, 0, std::max(220.0f, h * 0.48f));
    draw_plot("##pe", pe, 0, std::max(160.0f, h * 0.27f));
    if (ImGui::BeginTable("drift_table", 8, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
      for (const char* hd : {"precision", "time (tau)", "steps/s", "|dE|/|E0| now",
                             "slope (eps/tau)", "kT/ns/dof", "residual", "status"})
        ImGui::TableSetupColumn(hd);
      ImGui::TableHeadersRow();
      for (const Row& r : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im_colour(r.k)), "%s",
                           drift::precision_name(static_cast<drift::Precision>(r.k)));
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", r.t);
        ImGui::TableNextColumn();
        ImGui::Text("%.4g", r.sps);
        ImGui::TableNextColumn();
        ImGui::Text("%.3e", r.rel_end);
        ImGui::TableNextColumn();
        ImGui::Text("%.3e", r.slope);
        ImGui::TableNextColumn();
        if (std::isfinite(r.kt_ns_dof)) ImGui::Text("%.2e", r.kt_ns_dof);
        else ImGui::TextDisabled("when done");
        ImGui::TableNextColumn();
        ImGui::Text("%.2e", r.rms);
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", r.status.c_str());
      }
      ImGui::EndTable();
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped(
          "slope: least-squares drift of the total energy per atom per tau; kT/ns/dof: the same in "
          "OpenMM's unit for argon (sigma 3.405 A, epsilon/kB 119.8 K, tau %.4g ps; dof 3N - 3; T the "
          "run's mean kinetic temperature), docs/drift.md",
          drift::argon_tau_ps());
      ImGui::PopStyleColor();
    }
  }

  void start_suites() {
    const drift::Backend be = backend_ == 0   ? drift::Backend::kAuto
                              : backend_ == 1 ? drift::Backend::kCpu
                                              : drift::Backend::kCuda;
    auto out = std::make_shared<SuiteOut>();
    suite_ = out;
    const int trial = trial_ + 1;
    const bool div_first = div_first_;
    const int64_t iters = iterations_;
    out->trial = trial;
    out->div_first = div_first;
    out->every = std::max<int64_t>(1, iters / 500);
    suite_job_.start([out, be, trial, div_first, iters](JobControl& ctl) {
      drift::SumSuiteParams sp;
      sp.backend = select_backend(be);
      std::vector<drift::SumRow> rows = drift::sum_suite(sp);
      {
        std::lock_guard<std::mutex> lock(out->mu);
        out->rows = std::move(rows);
      }
      ctl.progress = 0.2;
      for (int a = 0; a < 4 && !ctl.cancel; ++a) {
        drift::DoUndoParams p;
        p.arith = std::array<Arith, 4>{Arith::kF32, Arith::kF64, Arith::kComposite, Arith::kFF}[a];
        p.trial = trial;
        p.div_first = div_first;
        p.iterations = iters;
        p.record_every = std::max<int64_t>(1, iters / 500);
        p.backend = sp.backend;
        const drift::DoUndoResult r = drift::doundo(p);
        std::lock_guard<std::mutex> lock(out->mu);
        out->curves[a].assign(r.drift.begin(), r.drift.end());
        out->seconds[a] = r.seconds;
        ctl.progress = 0.2 + 0.2 * (a + 1);
      }
    });
  }

  void draw_suites() {
    namespace plot = app::plot;
    const char* trials[] = {"trial 1: x, y in (1, 100)", "trial 2: x in (1e5, 1e6), y in (1e-6, 1e-5)",
                            "trial 3: x in (1e-6, 1e-5), y in (1e5, 1e6)"};
    ImGui::SetNextItemWidth(360);
    ImGui::Combo("do/undo trial", &trial_, trials, 3);
    ImGui::SameLine();
    ImGui::Checkbox("divide first", &div_first_);
    int it = static_cast<int>(iterations_);
    ImGui::SetNextItemWidth(160);
    if (ImGui::InputInt("iterations", &it, 100000, 1000000)) iterations_ = std::clamp(it, 1000, 100'000'000);
    if (ImGui::Button("run suites")) start_suites();
    if (suite_job_.running()) job_progress_bar(suite_job_, "suites");
    const std::string err = suite_job_.error();
    if (!err.empty()) error_text(err);
    if (!suite_) return;
    std::lock_guard<std::mutex> lock(suite_->mu);
    // Do/undo: the four arithmetics in their precision colours (f32 = float, f64 = double).
    plot::Figure du;
    du.title = std::string("do/undo drift, ") + trials[suite_->trial - 1] +
               (suite_->div_first ? ", / then *" : ", * then /");
    du.x.label = "iteration";
    du.y.label = "|x - x0| / x0  (log scale; exact zeros not drawn)";
    du.y.scale = plot::Scale::kLog10;
    const char* names[4] = {"f32", "f64", "composite", "ff"};
    for (int a = 0; a < 4; ++a) {
      plot::Series s{names[a], {}, {}, colour_of(a)};
      for (std::size_t i = 0; i < suite_->curves[a].size(); ++i) {
        s.x.push_back(static_cast<double>((i + 1) * static_cast<std::size_t>(suite_->every)));
        s.y.push_back(std::fabs(suite_->curves[a][i]));
      }
      du.series.push_back(std::move(s));
    }
    app::plot::nest_line_widths(&du.series, 2, 2);
    draw_plot("##doundo", du, 0, 240);
    std::string zeros_du;
    for (const auto& s : du.series) {
      std::size_t z = 0;
      for (double v : s.y) z += v == 0;
      if (z > 0)
        zeros_du += (zeros_du.empty() ? "" : ", ") + s.name + " " + std::to_string(z) + " of " +
                    std::to_string(s.y.size());
    }
    if (!zeros_du.empty()) ImGui::TextDisabled("exactly 0, so not on the log axis: %s", zeros_du.c_str());
    ImGui::Text("seconds: f32 %.4g, f64 %.4g, composite %.4g, ff %.4g", suite_->seconds[0],
                suite_->seconds[1], suite_->seconds[2], suite_->seconds[3]);
    // Summation: the exact sum is 0, so |result| is the error; one marker per method and case.
    plot::Figure sum;
    sum.title = "global summation of 1000 values with exact sum 0 (thesis Tables 2-5)";
    sum.x.label = "case: the table's row (threads, order)";
    sum.y.label = "|computed sum|  (the error; log scale, exact zeros not drawn)";
    sum.y.scale = plot::Scale::kLog10;
    int zeros = 0;
    for (drift::SumMethod m : drift::all_sum_methods()) {
      const int mi = static_cast<int>(m);
      plot::Series s{drift::sum_method_name(m), {}, {}, colour_of(m == drift::SumMethod::kKahan ? 5 : mi),
                     plot::Style::kPoints,      7};
      for (std::size_t r = 0; r < suite_->rows.size(); ++r) {
        s.x.push_back(static_cast<double>(r + 1));
        s.y.push_back(std::fabs(suite_->rows[r].result[mi]));
        zeros += suite_->rows[r].result[mi] == 0;
      }
      sum.series.push_back(std::move(s));
    }
    draw_plot("##sum", sum, 0, 240);
    if (zeros > 0)
      ImGui::TextDisabled("%d exact results (0) are not on the log axis; the table lists them", zeros);
    if (ImGui::BeginTable("sum_table", 8, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
      for (const char* h : {"row", "threads", "order", "float", "double", "composite", "ff", "kahan"})
        ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (std::size_t i = 0; i < suite_->rows.size(); ++i) {
        const drift::SumRow& r = suite_->rows[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%zu", i + 1);
        ImGui::TableNextColumn();
        ImGui::Text("%d", r.threads);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(drift::sum_order_name(r.order));
        for (int m = 0; m < 5; ++m) {
          ImGui::TableNextColumn();
          ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(im_colour(m == 4 ? 5 : m)), "%.4e", r.result[m]);
        }
      }
      ImGui::EndTable();
    }
  }

  struct SuiteOut {
    std::mutex mu;
    std::vector<drift::SumRow> rows;
    std::vector<double> curves[4];
    double seconds[4] = {0, 0, 0, 0};
    int trial = 1;
    bool div_first = false;
    int64_t every = 1;  // iterations between recorded drifts
  };

  int cells_ = 10, steps_ = 20000, every_ = 100, equil_ = 0, backend_ = 0, trial_ = 0;
  double dt_ = 0.005, temp_ = 3.0;
  bool shift_ = true, div_first_ = false;
  int64_t iterations_ = 1'000'000;
  std::array<bool, kModes> enabled_{};
  std::array<BackgroundJob, kModes> jobs_;
  std::array<std::shared_ptr<Live>, kModes> live_;
  std::string error_;
  // The run shown: its time step, steps, equilibration and atoms; the rate it measured.
  double run_dt_ = 0.005;
  int64_t run_steps_ = 0, run_equil_ = 0, run_atoms_ = 0;
  double measured_rate_ = 0;  // atom-steps per second per precision
  int select_ = 0;            // the sub-tab to open next frame: 1 the MD run, 2 the suites
  BackgroundJob suite_job_;
  std::shared_ptr<SuiteOut> suite_;
};

}  // namespace

std::unique_ptr<Panel> make_drift_panel() { return std::make_unique<DriftPanel>(); }

}  // namespace ds::gui
