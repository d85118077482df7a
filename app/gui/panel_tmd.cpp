// The TMD workspace's tab: function, mode, precision, range, k and search (exhaustive, Lefèvre,
// regular) as controls; the search runs on a background job through kernels/tmd/tmd.h and
// kernels/tmd/lefevre.h (the same calls as `deepscope tmd`), with live counts, a table of the
// MPFR-confirmed cases (click a row to copy it) and, for the Lefèvre/regular searches, the
// per-warp NMDM histogram.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jobs.h"
#include "kernels/core/backend.h"
#include "kernels/tmd/tmd.h"
#include "kernels/tmd/lefevre.h"
#include "panels.h"

namespace ds::gui {
namespace {

constexpr int kBuf = 16;

struct Live {
  std::string status;  // counts so far, one line per phase or the chunk totals
  std::vector<tmd::Case> cases;
  std::vector<float> nmdm;  // histogram bins
  std::string stats;
  bool done = false;
};

bool parse_hex(const char* s, uint32_t* out) {
  if (std::strncmp(s, "0x", 2) != 0 && std::strncmp(s, "0X", 2) != 0) return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s + 2, &end, 16);
  if (end == s + 2 || *end != 0 || v > 0xffffffffull) return false;
  *out = static_cast<uint32_t>(v);
  return true;
}

class TmdPanel final : public Panel {
 public:
  TmdPanel() {
    std::snprintf(lo_, kBuf, "0x3f800000");
    std::snprintf(hi_, kBuf, "0x3fffffff");
  }
  ~TmdPanel() override { job_.cancel(); }
  const char* title() const override { return "TMD"; }
  bool busy() const override { return job_.running(); }

  void draw() override {
    ImGui::BeginChild("tmd_controls", ImVec2(360, 0), true);
    draw_controls();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("tmd_results", ImVec2(0, 0), true);
    draw_results();
    ImGui::EndChild();
  }

 private:
  void draw_controls() {
    static const char* kSearch[] = {"exhaustive (binary32)", "Lefevre", "regular"};
    static const char* kFunc[] = {"exp", "exp2", "log", "log2", "sin", "cos"};
    static const char* kMode[] = {"nearest", "directed"};
    static const char* kBackend[] = {"auto", "cpu", "cuda"};
    ImGui::TextWrapped(
        "Hard-to-round cases: arguments whose f(x) lies within 2^-k ulp of a rounding breakpoint; "
        "every case is confirmed with MPFR.");
    ImGui::SetNextItemWidth(200);
    ImGui::Combo("search", &search_, kSearch, 3);
    ImGui::SetNextItemWidth(200);
    ImGui::Combo("function", &func_, kFunc, search_ == 0 ? 6 : 4);
    if (search_ != 0 && func_ > 3) func_ = 0;
    ImGui::SetNextItemWidth(200);
    ImGui::Combo("rounding", &mode_, kMode, 2);
    ImGui::SetNextItemWidth(200);
    ImGui::SliderInt("precision p", &precision_, tmd::kMinPrecision, tmd::kMaxPrecision);
    ImGui::SetNextItemWidth(200);
    ImGui::SliderInt("k (eps = 2^-k ulp)", &k_, tmd::kMinK, tmd::kMaxK);
    ImGui::SetNextItemWidth(120);
    ImGui::InputText("from (bits)", lo_, kBuf);
    ImGui::SetNextItemWidth(120);
    ImGui::InputText("to (bits)", hi_, kBuf);
    float a = 0, b = 0;
    uint32_t ul, uh;
    if (parse_hex(lo_, &ul) && parse_hex(hi_, &uh)) {
      std::memcpy(&a, &ul, 4);
      std::memcpy(&b, &uh, 4);
      ImGui::TextDisabled("[%a, %a]", static_cast<double>(a), static_cast<double>(b));
    }
    if (search_ != 0) {
      ImGui::SetNextItemWidth(200);
      ImGui::SliderInt("log2 N (interval)", &log2n_, 2, 20);
      ImGui::SetNextItemWidth(200);
      ImGui::SliderInt("phase-2 split (log2)", &split_log2_, 0, log2n_);
      ImGui::SetNextItemWidth(200);
      ImGui::SliderInt("division threshold", &kth_, 0, 64);
      ImGui::Checkbox("hierarchical polynomials", &hierarchical_);
    }
    ImGui::SetNextItemWidth(200);
    ImGui::Combo("backend", &backend_, kBackend, 3);
    if (!job_.running()) {
      if (ImGui::Button("Run")) start();
    } else {
      if (ImGui::Button("Cancel")) job_.cancel();
      ImGui::SameLine();
      ImGui::ProgressBar(static_cast<float>(job_.progress()), ImVec2(-1, 0));
    }
    const std::string err = job_.error();
    if (!err.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", err.c_str());
    if (!input_error_.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", input_error_.c_str());
  }

  void draw_results() {
    std::shared_ptr<const Live> shown;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      shown = live_;
    }
    if (!shown) {
      ImGui::TextWrapped(
          "Choose a search, function, rounding, precision, k and range, then Run. The phase counts, the NMDM "
          "histogram of the Lefevre and regular searches and the table of hard-to-round cases (click a row to "
          "copy it) appear here while it runs. `deepscope tmd ...` runs the same searches in batch.");
      return;
    }
    const Live& live = *shown;
    ImGui::TextWrapped("%s", live.status.c_str());
    if (!live.stats.empty()) ImGui::TextWrapped("%s", live.stats.c_str());
    if (!live.nmdm.empty()) {
      float top = 1;
      for (float v : live.nmdm) top = std::max(top, v);
      ImGui::PlotHistogram("##nmdm", live.nmdm.data(), static_cast<int>(live.nmdm.size()), 0,
                           "NMDM per warp, 5 % bins from 0 to 100 %", 0.0f, top, ImVec2(-1, 120));
    }
    ImGui::Text("%zu cases (click a row to copy x and f(x))", live.cases.size());
    if (ImGui::BeginTable("tmd_cases", 4,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Borders |
                              ImGuiTableFlags_Resizable)) {
      ImGui::TableSetupColumn("x (bits)");
      ImGui::TableSetupColumn("run");
      ImGui::TableSetupColumn("-log2 dist");
      ImGui::TableSetupColumn("f(x) (MPFR)");
      ImGui::TableHeadersRow();
      ImGuiListClipper clip;
      clip.Begin(static_cast<int>(live.cases.size()));
      while (clip.Step()) {
        for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
          const tmd::Case& c = live.cases[static_cast<std::size_t>(i)];
          char x[16];
          std::snprintf(x, sizeof x, "0x%08x", c.x);
          ImGui::TableNextRow();
          ImGui::TableSetColumnIndex(0);
          ImGui::PushID(i);
          if (ImGui::Selectable(x, false, ImGuiSelectableFlags_SpanAllColumns)) {
            const std::string line = std::string(x) + " " + c.fx;
            ImGui::SetClipboardText(line.c_str());
          }
          ImGui::PopID();
          ImGui::TableSetColumnIndex(1);
          ImGui::Text("%d%s", c.run, c.run_capped ? "+" : "");
          ImGui::TableSetColumnIndex(2);
          ImGui::Text("%.3f", c.log2_dist);
          ImGui::TableSetColumnIndex(3);
          ImGui::TextUnformatted(c.fx.c_str());
        }
      }
      ImGui::EndTable();
    }
  }

  void set_live(Live l) {
    auto p = std::make_shared<const Live>(std::move(l));
    std::lock_guard<std::mutex> lock(mutex_);
    live_ = std::move(p);
  }

  void start() {
    input_error_.clear();
    uint32_t lo, hi;
    if (!parse_hex(lo_, &lo) || !parse_hex(hi_, &hi)) {
      input_error_ = "the range bounds are binary32 bit patterns in hex, like 0x3f800000";
      return;
    }
    const Backend be = backend_ == 0 ? Backend::kAuto : (backend_ == 1 ? Backend::kCpu : Backend::kCuda);
    set_live(Live{"running...", {}, {}, "", false});
    if (search_ == 0) {
      tmd::ExhaustiveParams p;
      p.func = tmd::all_funcs()[static_cast<std::size_t>(func_)];
      p.mode = mode_ == 0 ? tmd::Mode::kNearest : tmd::Mode::kDirected;
      p.precision = precision_;
      p.k = k_;
      p.lo = lo;
      p.hi = hi;
      p.backend = be;
      job_.start([this, p](JobControl& ctl) mutable {
        p.cancel = &ctl.cancel;
        p.progress = [&ctl](double f) { ctl.progress = f; };
        p.on_counts = [this](int64_t cand, int64_t cases) {
          set_live(Live{"candidates checked with MPFR: " + std::to_string(cand) +
                            ", cases so far: " + std::to_string(cases),
                        {},
                        {},
                        "",
                        false});
        };
        const tmd::ExhaustiveResult r = tmd::exhaustive(p);
        char buf[256];
        std::snprintf(
            buf, sizeof buf,
            "%s%lld bit patterns, %lld evaluated, %lld candidates (%lld exact), %zu cases in %.2f s on %s",
            r.cancelled ? "cancelled: " : "", static_cast<long long>(r.inputs),
            static_cast<long long>(r.evaluated), static_cast<long long>(r.candidates),
            static_cast<long long>(r.exact), r.cases.size(), r.seconds, backend_name(r.backend));
        set_live(Live{buf, r.cases, {}, "", true});
      });
      return;
    }
    tmd::LefevreParams p;
    p.search = search_ == 1 ? tmd::Search::kLefevre : tmd::Search::kRegular;
    p.func = tmd::all_funcs()[static_cast<std::size_t>(func_)];
    p.mode = mode_ == 0 ? tmd::Mode::kNearest : tmd::Mode::kDirected;
    p.precision = precision_;
    p.k = k_;
    p.lo = lo;
    p.hi = hi;
    p.log2_n = log2n_;
    p.split = 1 << std::min(split_log2_, log2n_);
    p.div_threshold = kth_;
    p.hierarchical = hierarchical_;
    p.backend = be;
    job_.start([this, p](JobControl& ctl) mutable {
      p.cancel = &ctl.cancel;
      p.progress = [&ctl](double f) { ctl.progress = f; };
      p.on_phase = [this](int phase, const tmd::LefevreResult& r) {
        Live l;
        char buf[512];
        std::snprintf(
            buf, sizeof buf,
            "arguments %lld\nphase 1: %lld intervals (%.3f s)\nphase 2: %lld sub-intervals (%.3f s)\n"
            "phase 3: %lld sub-intervals, %lld arguments (%.3f s)\nchecked one by one: %lld\n"
            "MPFR candidates: %lld, cases: %zu%s",
            static_cast<long long>(r.arguments), static_cast<long long>(r.phase1), r.seconds_phase1,
            static_cast<long long>(r.phase2), r.seconds_phase2, static_cast<long long>(r.phase3),
            static_cast<long long>(r.phase3_args), r.seconds_phase3, static_cast<long long>(r.direct_args),
            static_cast<long long>(r.candidates), r.cases.size(), phase < 4 ? " (running)" : "");
        l.status = buf;
        std::snprintf(buf, sizeof buf,
                      "phase-1 loop iterations: min %u, max %u, mean %.2f; %lld warps, mean NMDM %.2f %%",
                      r.iters.min, r.iters.max, r.iters.mean, static_cast<long long>(r.iters.warps),
                      100 * r.iters.mean_nmdm);
        l.stats = buf;
        for (int64_t c : r.iters.nmdm_hist) l.nmdm.push_back(static_cast<float>(c));
        l.cases = r.cases;
        l.done = phase == 4;
        set_live(l);
      };
      const tmd::LefevreResult r = tmd::lefevre_search(p);
      if (r.cancelled) set_live(Live{"cancelled", {}, {}, "", true});
    });
  }

  BackgroundJob job_;
  std::mutex mutex_;
  std::shared_ptr<const Live> live_;
  int search_ = 2, func_ = 0, mode_ = 0, precision_ = 24, k_ = 16, log2n_ = 6, split_log2_ = 3, kth_ = 3,
      backend_ = 0;
  bool hierarchical_ = true;
  char lo_[kBuf], hi_[kBuf];
  std::string input_error_;
};

}  // namespace

std::unique_ptr<Panel> make_tmd_panel() { return std::make_unique<TmdPanel>(); }

}  // namespace ds::gui
