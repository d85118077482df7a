// The MD-drift workspace's tab: Lennard-Jones NVE runs with one background job per checked
// precision (float, double, composite, ff, mixed), live energy plots with one line per precision,
// a table of drift slopes and steps/s; and the thesis's summation and do/undo suites. Everything
// goes through kernels/drift/drift.h, the same calls as `deepscope drift`.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jobs.h"
#include "kernels/drift/drift.h"
#include "panels.h"

namespace ds::gui {
namespace {

constexpr int kModes = 5;
const ImU32 kColours[kModes] = {IM_COL32(31, 119, 180, 255), IM_COL32(214, 39, 40, 255),
                                IM_COL32(44, 160, 44, 255), IM_COL32(255, 127, 14, 255),
                                IM_COL32(148, 103, 189, 255)};

// What one precision's job shares with the frame.
struct Live {
  std::mutex mu;
  std::vector<drift::MdSample> samples;
  double steps_per_second = 0;
  bool finished = false;
  drift::MdResult result;
};

// Several series in one frame, on a common y range, as overlaid ImGui::PlotLines.
void plot_overlay(const char* id, const std::vector<std::vector<float>>& ys,
                  const std::vector<ImU32>& colours, float height) {
  float lo = INFINITY, hi = -INFINITY;
  for (const auto& y : ys)
    for (float v : y)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!(lo <= hi)) lo = -1, hi = 1;
  if (hi - lo < 1e-12f) lo -= 1e-6f, hi += 1e-6f;
  const ImVec2 at = ImGui::GetCursorPos();
  const float width = ImGui::GetContentRegionAvail().x;
  bool first = true;
  for (std::size_t k = 0; k < ys.size(); ++k) {
    if (ys[k].empty()) continue;
    ImGui::SetCursorPos(at);
    ImGui::PushStyleColor(ImGuiCol_PlotLines, colours[k]);
    ImGui::PushStyleColor(ImGuiCol_PlotLinesHovered, colours[k]);
    if (!first) ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(0, 0, 0, 0));
    ImGui::PushID(static_cast<int>(k));
    ImGui::PlotLines(id, ys[k].data(), static_cast<int>(ys[k].size()), 0, nullptr, lo, hi,
                     ImVec2(width, height));
    ImGui::PopID();
    ImGui::PopStyleColor(first ? 2 : 3);
    first = false;
  }
  ImGui::SetCursorPos(ImVec2(at.x, at.y + height + 4));
  ImGui::Text("y range [%.4g, %.4g]", lo, hi);
}

class DriftPanel final : public Panel {
 public:
  DriftPanel() { enabled_ = {true, true, true, false, true}; }
  ~DriftPanel() override {
    for (auto& j : jobs_) j.cancel();
    suite_job_.cancel();
  }
  const char* title() const override { return "MD drift"; }
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
      if (ImGui::BeginTabItem("Lennard-Jones NVE")) {
        draw_md();
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Summation and do/undo")) {
        draw_suites();
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
    ImGui::EndChild();
  }

 private:
  void draw_controls() {
    ImGui::PushItemWidth(150);
    ImGui::TextWrapped("Lennard-Jones fcc lattice, reduced units; %d atoms.", 4 * cells_ * cells_ * cells_);
    ImGui::InputInt("fcc cells per side", &cells_);
    ImGui::InputDouble("dt", &dt_, 0.001, 0.005, "%.4f");
    ImGui::InputInt("steps", &steps_, 1000, 10000);
    ImGui::InputInt("sample every", &every_, 10, 100);
    ImGui::InputInt("equilibrate (steps)", &equil_, 1000, 10000);
    ImGui::InputDouble("temperature", &temp_, 0.1, 0.5, "%.3f");
    ImGui::Checkbox("shifted potential", &shift_);
    const char* backends[] = {"auto", "cpu", "cuda"};
    ImGui::Combo("backend", &backend_, backends, 3);
    ImGui::Separator();
    ImGui::TextUnformatted("precisions");
    for (int k = 0; k < kModes; ++k) {
      ImGui::PushStyleColor(ImGuiCol_CheckMark, kColours[k]);
      ImGui::Checkbox(drift::precision_name(static_cast<drift::Precision>(k)), &enabled_[k]);
      ImGui::PopStyleColor();
    }
    ImGui::Separator();
    if (ImGui::Button("run")) start_md();
    ImGui::SameLine();
    if (ImGui::Button("stop"))
      for (auto& j : jobs_) j.cancel();
    ImGui::PopItemWidth();
    if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", error_.c_str());
    for (int k = 0; k < kModes; ++k) {
      const std::string e = jobs_[k].error();
      if (!e.empty())
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s: %s",
                           drift::precision_name(static_cast<drift::Precision>(k)), e.c_str());
    }
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
    std::vector<std::vector<float>> drift_y(kModes), pe_y(kModes);
    std::vector<ImU32> colours(kModes);
    struct Row {
      int k;
      std::size_t n;
      double sps, slope, rms, t;
      std::string status;
    };
    std::vector<Row> rows;
    for (int k = 0; k < kModes; ++k) {
      colours[k] = kColours[k];
      if (!live_[k]) continue;
      std::lock_guard<std::mutex> lock(live_[k]->mu);
      const auto& s = live_[k]->samples;
      for (const auto& q : s) {
        drift_y[k].push_back(static_cast<float>(q.total - s[0].total));
        pe_y[k].push_back(static_cast<float>(q.pe));
      }
      const drift::DriftFit fit = drift::fit_drift(s);
      const drift::MdResult& r = live_[k]->result;
      std::string status = !live_[k]->finished ? (jobs_[k].running() ? "running" : "stopped")
                           : r.blew_up         ? r.message
                           : r.cancelled       ? "stopped"
                                               : "done";
      rows.push_back({k, s.size(), live_[k]->finished ? r.steps_per_second : live_[k]->steps_per_second,
                      fit.slope, fit.rms, s.empty() ? 0.0 : s.back().time, status});
    }
    ImGui::TextUnformatted("total energy E(t) - E(0) per atom, one line per precision");
    plot_overlay("##drift", drift_y, colours, 220);
    ImGui::TextUnformatted("potential energy per atom");
    plot_overlay("##pe", pe_y, colours, 160);
    if (ImGui::BeginTable("drift_table", 6, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
      for (const char* h :
           {"precision", "time", "steps/s", "drift slope (E/atom/time)", "residual", "status"})
        ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (const Row& r : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kColours[r.k]), "%s",
                           drift::precision_name(static_cast<drift::Precision>(r.k)));
        ImGui::TableNextColumn();
        ImGui::Text("%.3f", r.t);
        ImGui::TableNextColumn();
        ImGui::Text("%.4g", r.sps);
        ImGui::TableNextColumn();
        ImGui::Text("%.3e", r.slope);
        ImGui::TableNextColumn();
        ImGui::Text("%.2e", r.rms);
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", r.status.c_str());
      }
      ImGui::EndTable();
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
    if (suite_job_.running()) ImGui::ProgressBar(static_cast<float>(suite_job_.progress()), ImVec2(-1, 0));
    const std::string err = suite_job_.error();
    if (!err.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", err.c_str());
    if (!suite_) return;
    std::lock_guard<std::mutex> lock(suite_->mu);
    ImGui::TextUnformatted("do/undo drift (x - x0) / x0: f32, f64, composite, ff");
    std::vector<std::vector<float>> ys(4);
    for (int a = 0; a < 4; ++a)
      for (double v : suite_->curves[a]) ys[a].push_back(static_cast<float>(v));
    plot_overlay("##doundo", ys, {kColours[0], kColours[1], kColours[2], kColours[3]}, 200);
    ImGui::Text("seconds: f32 %.4g, f64 %.4g, composite %.4g, ff %.4g", suite_->seconds[0],
                suite_->seconds[1], suite_->seconds[2], suite_->seconds[3]);
    ImGui::TextUnformatted("global summation of 1000 values with exact sum 0 (thesis Tables 2-5)");
    if (ImGui::BeginTable("sum_table", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg)) {
      for (const char* h : {"threads", "order", "float", "double", "composite", "ff", "kahan"})
        ImGui::TableSetupColumn(h);
      ImGui::TableHeadersRow();
      for (const drift::SumRow& r : suite_->rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", r.threads);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(drift::sum_order_name(r.order));
        for (int m = 0; m < 5; ++m) {
          ImGui::TableNextColumn();
          ImGui::Text("%.4e", r.result[m]);
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
  };

  int cells_ = 10, steps_ = 20000, every_ = 100, equil_ = 0, backend_ = 0, trial_ = 0;
  double dt_ = 0.005, temp_ = 3.0;
  bool shift_ = true, div_first_ = false;
  int64_t iterations_ = 1'000'000;
  std::array<bool, kModes> enabled_{};
  std::array<BackgroundJob, kModes> jobs_;
  std::array<std::shared_ptr<Live>, kModes> live_;
  std::string error_;
  BackgroundJob suite_job_;
  std::shared_ptr<SuiteOut> suite_;
};

}  // namespace

std::unique_ptr<Panel> make_drift_panel() { return std::make_unique<DriftPanel>(); }

}  // namespace ds::gui
