// The TMD workspace's tab: function, mode, precision, range, k and search (exhaustive, Lefèvre,
// regular) as controls; the search runs on a background job through kernels/tmd/tmd.h and
// kernels/tmd/lefevre.h (the same calls as `deepscope tmd`), with live counts, a table of the
// MPFR-confirmed cases (x as bits, hex float and decimal; click a row to copy it), plots of the
// cases over x and of their distances against the 2^-k line, and, for the Lefèvre/regular
// searches, the per-warp NMDM histogram.
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "jobs.h"
#include "kernels/core/backend.h"
#include "kernels/tmd/lefevre.h"
#include "kernels/tmd/tmd.h"
#include "panels.h"
#include "plot_imgui.h"

namespace ds::gui {
namespace {

constexpr int kBuf = 16;

struct Live {
  std::string status;  // counts so far, one line per phase or the chunk totals
  std::vector<tmd::Case> cases;
  std::vector<float> nmdm;  // histogram bins
  std::string stats;
  bool done = false;
  int64_t arguments = 0;      // arguments searched (0 until known)
  int k = 0;                  // the run's k
  double x_lo = 0, x_hi = 0;  // the searched range, as numbers
};

// Headers on two lines, so each column is as wide as its values rather than its name: at 1280x800
// the six columns then fit the table beside the controls without scrolling sideways.
const char* const kColumnName[6] = {"x\n(bits)", "x\n(hex float)", "x\n(decimal)",
                                    "run",       "-log2\ndist",    "f(x)\n(MPFR, 256 bits)"};
const char* const kColumnHelp[6] = {
    "the argument's binary32 bit pattern (\"-\" where it is not a binary32 number)",
    "the argument in hexadecimal floating point (C's %a)",
    "the argument in decimal, 9 significant digits (enough to give the binary32 number back)",
    "run: how many bits after the rounding bit (bit p + 1 of f(x)'s significand) are all equal.\n"
    "A run of r bits puts f(x) within about 2^-r ulp of a rounding breakpoint, so a correctly\n"
    "rounded f needs about p + r + 1 bits to round it. \"+\": the run reaches the end of the 256\n"
    "bits MPFR computed, so it is at least that long.",
    "-log2 of the distance from f(x) to the nearest rounding breakpoint, in ulps: every case is\n"
    "above k (closer than 2^-k ulp)",
    "f(x) to 256 bits (MPFR), hexadecimal"};

// The argument as a double: its binary32 value, or its hexadecimal text where it has one.
double case_x(const tmd::Case& c) {
  if (!c.x_text.empty()) return std::strtod(c.x_text.c_str(), nullptr);
  float f;
  std::memcpy(&f, &c.x, 4);
  return static_cast<double>(f);
}

app::plot::Figure nmdm_figure(const Live& live) {
  app::plot::Figure f;
  f.title = "NMDM per warp (phase 1 of the search)";
  f.x.label = "NMDM: share of a warp's 32 lanes that diverge (%)";
  f.y.label = "warps";
  f.x.lo = 0, f.x.hi = 100;
  app::plot::Series s{"", {}, {}, app::plot::palette(0), app::plot::Style::kBars};
  const double bin = 100.0 / static_cast<double>(live.nmdm.size());
  for (std::size_t i = 0; i < live.nmdm.size(); ++i) {
    s.x.push_back((static_cast<double>(i) + 0.5) * bin);
    s.y.push_back(live.nmdm[i]);
  }
  f.series.push_back(std::move(s));
  f.legend = false;
  return f;
}

// The cases over x, with the 2^-k threshold every case passes.
app::plot::Figure cases_figure(const Live& live) {
  app::plot::Figure f;
  f.title = "hard-to-round cases over x";
  f.x.label = "x";
  f.y.label = "-log2(distance to breakpoint / ulp)";
  app::plot::Series s{"case", {}, {}, app::plot::palette(0), app::plot::Style::kPoints, 6};
  double lo = INFINITY, hi = -INFINITY;
  for (const tmd::Case& c : live.cases) {
    s.x.push_back(case_x(c));
    s.y.push_back(c.log2_dist);
    if (std::isfinite(s.x.back())) lo = std::min(lo, s.x.back()), hi = std::max(hi, s.x.back());
  }
  if (live.x_lo < live.x_hi) lo = live.x_lo, hi = live.x_hi;  // the searched range
  f.x.lo = lo, f.x.hi = hi;
  const app::plot::Series k{"k = " + std::to_string(live.k) + ": distance 2^-k ulp",
                            {lo, hi},
                            {double(live.k), double(live.k)},
                            app::plot::palette(1)};
  f.series = {s, k};
  return f;
}

// How many cases at each distance, against what random f(x) would give: with the distance
// uniform over [0, 1/2] ulp, N arguments put N 2^-j in the bin -log2 dist in [j, j + 1).
app::plot::Figure distance_figure(const Live& live) {
  app::plot::Figure f;
  f.title = "distances of the cases";
  f.x.label = "-log2(distance / ulp), bins of 1";
  f.y.label = "cases (log scale)";
  f.y.scale = app::plot::Scale::kLog10;
  int top = live.k + 1;
  for (const tmd::Case& c : live.cases) top = std::max(top, static_cast<int>(std::floor(c.log2_dist)) + 1);
  std::vector<double> counts(static_cast<std::size_t>(top + 1), 0.0);
  for (const tmd::Case& c : live.cases)
    if (c.log2_dist >= 0) counts[static_cast<std::size_t>(std::floor(c.log2_dist))] += 1;
  app::plot::Series bars{"cases found", {}, {}, app::plot::palette(0), app::plot::Style::kBars};
  app::plot::Series model{"random model: N 2^-j", {}, {}, app::plot::palette(3)};
  for (int j = live.k; j <= top; ++j) {
    bars.x.push_back(j + 0.5);
    bars.y.push_back(counts[static_cast<std::size_t>(j)]);
    if (live.arguments > 0) {
      model.x.push_back(j + 0.5);
      model.y.push_back(static_cast<double>(live.arguments) * std::ldexp(1.0, -j));
    }
  }
  double ymax = 1;
  for (double v : bars.y) ymax = std::max(ymax, v);
  for (double v : model.y) ymax = std::max(ymax, v);
  f.x.lo = live.k, f.x.hi = top + 1;
  f.y.lo = 0.5, f.y.hi = 3 * ymax;
  const app::plot::Series kline{"k = " + std::to_string(live.k),
                                {double(live.k), double(live.k)},
                                {0.5, 3 * ymax},
                                app::plot::palette(1)};
  f.series = {bars, kline};
  if (!model.x.empty()) f.series.push_back(model);
  return f;
}

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
  std::string layout_report() const override { return table_report_; }
  bool busy() const override { return job_.running(); }
  // Settings: search (exhaustive|lefevre|regular), function, rounding (nearest|directed), precision,
  // k, from and to (binary32 bits in hex), log2n, backend (auto|cpu|cuda).
  bool run_with(const std::string& settings, std::string* error) override {
    static const char* kSearch[] = {"exhaustive", "lefevre", "regular"};
    static const char* kFunc[] = {"exp", "exp2", "log", "log2", "sin", "cos"};
    static const char* kMode[] = {"nearest", "directed"};
    static const char* kBackend[] = {"auto", "cpu", "cuda"};
    auto pick = [](const char* const* names, int n, const std::string& v, int* out) {
      for (int i = 0; i < n; ++i)
        if (v == names[i]) return *out = i, true;
      return false;
    };
    std::istringstream in(settings);
    for (std::string w; in >> w;) {
      const std::size_t eq = w.find('=');
      const std::string name = w.substr(0, eq), value = w.substr(eq + 1);
      bool ok = true;
      char* end = nullptr;
      const long v = std::strtol(value.c_str(), &end, 10);
      const bool whole = !value.empty() && *end == 0;
      if (name == "search")
        ok = pick(kSearch, 3, value, &search_);
      else if (name == "function")
        ok = pick(kFunc, 6, value, &func_);
      else if (name == "rounding")
        ok = pick(kMode, 2, value, &mode_);
      else if (name == "backend")
        ok = pick(kBackend, 3, value, &backend_);
      else if (name == "precision")
        ok = whole && v >= tmd::kMinPrecision && v <= tmd::kMaxPrecision && (precision_ = int(v), true);
      else if (name == "k")
        ok = whole && v >= tmd::kMinK && v <= tmd::kMaxK && (k_ = int(v), true);
      else if (name == "log2n")
        ok = whole && v >= 2 && v <= 20 && (log2n_ = int(v), true);
      else if (name == "from" || name == "to") {
        uint32_t bits;
        ok = parse_hex(value.c_str(), &bits);
        if (ok) std::snprintf(name == "from" ? lo_ : hi_, kBuf, "%s", value.c_str());
      } else {
        *error = "the TMD tab has no setting \"" + name +
                 "\" (search, function, rounding, precision, k, from, to, log2n, backend)";
        return false;
      }
      if (!ok) {
        *error = "the TMD tab's " + name + " cannot be \"" + value + "\"";
        return false;
      }
    }
    if (search_ != 0 && func_ > 3) {
      *error = "the Lefevre and regular searches take exp, exp2, log or log2";
      return false;
    }
    start();
    if (!input_error_.empty()) *error = "TMD: " + input_error_;
    return input_error_.empty();
  }

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
      job_progress_bar(job_, "search");
    }
    const std::string err = job_.error();
    if (!err.empty()) error_text(err);
    if (!input_error_.empty()) error_text(input_error_);
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
          "histogram of the Lefevre and regular searches, the cases over x, their distances against the 2^-k "
          "line and the table of hard-to-round cases (click a row to copy it) appear here while it runs. "
          "`deepscope tmd ...` runs the same searches in batch.");
      return;
    }
    const Live& live = *shown;
    ImGui::TextWrapped("%s", live.status.c_str());
    if (!live.stats.empty()) ImGui::TextWrapped("%s", live.stats.c_str());
    const float w = ImGui::GetContentRegionAvail().x;
    if (!live.nmdm.empty()) draw_plot("##nmdm", nmdm_figure(live), 0, 200);
    if (!live.cases.empty()) {
      draw_plot("##cases", cases_figure(live), w * 0.5f - 4, 240);
      ImGui::SameLine();
      draw_plot("##dist", distance_figure(live), 0, 240);
    }
    ImGui::Text("%zu cases (click a row to copy x and f(x))", live.cases.size());
    draw_table(shown);
  }

  // The table's text, formatted once per update of the results, with each column's widest entry
  // (header included) in pixels.
  struct Row {
    std::string cell[6];
  };
  void format_rows(const std::shared_ptr<const Live>& live) {
    if (rows_for_ == live && rows_font_ == ImGui::GetFontSize()) return;  // widths follow the UI scale
    rows_for_ = live;
    rows_font_ = ImGui::GetFontSize();
    rows_.clear();
    rows_.reserve(live->cases.size());
    for (const tmd::Case& c : live->cases) {
      char bits[16], hex[48], dec[48], run[16], dist[24];
      std::snprintf(bits, sizeof bits, "0x%08x", c.x);
      const double x = case_x(c);
      if (c.x_text.empty()) {
        std::snprintf(hex, sizeof hex, "%a", x);
      } else {
        std::snprintf(bits, sizeof bits, "-");
        std::snprintf(hex, sizeof hex, "%s", c.x_text.c_str());
      }
      std::snprintf(dec, sizeof dec, "%.9g", x);
      std::snprintf(run, sizeof run, "%d%s", c.run, c.run_capped ? "+" : "");
      std::snprintf(dist, sizeof dist, "%.3f", c.log2_dist);
      rows_.push_back(Row{{bits, hex, dec, run, dist, c.fx}});
    }
    for (int c = 0; c < 6; ++c) need_[c] = ImGui::CalcTextSize(kColumnName[c]).x;
    for (const Row& r : rows_)
      for (int c = 0; c < 6; ++c) need_[c] = std::max(need_[c], ImGui::CalcTextSize(r.cell[c].c_str()).x);
  }

  // The cases, every column as wide as its widest entry (fixed, not resizable: ImGui 1.86 then
  // takes the width given each frame, so a later, wider f(x) widens its column instead of being
  // cut). The 256-bit f(x) alone is about 500 pixels; at 1280x800 all six fit (two-line
  // headers), and where they do not (a narrower window), the table scrolls sideways with x (bits)
  // frozen on the left, so each row stays identifiable.
  void draw_table(const std::shared_ptr<const Live>& live) {
    format_rows(live);
    const float* need = need_;
    table_report_.clear();
    if (!ImGui::BeginTable("tmd_cases", 6,
                           ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY |
                               ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit))
      return;
    for (int c = 0; c < 6; ++c)
      ImGui::TableSetupColumn(kColumnName[c], ImGuiTableColumnFlags_WidthFixed, need[c]);
    ImGui::TableSetupScrollFreeze(1, 1);
    // Headers drawn by hand, so the "run" header can explain itself.
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < 6; ++c) {
      ImGui::TableSetColumnIndex(c);
      ImGui::TableHeader(ImGui::TableGetColumnName(c));
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kColumnHelp[c]);
    }
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(rows_.size()));
    while (clip.Step()) {
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        const Row& r = rows_[static_cast<std::size_t>(i)];
        const tmd::Case& c = live->cases[static_cast<std::size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        ImGui::PushID(i);
        if (ImGui::Selectable(r.cell[0].c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) {
          const std::string line = (c.x_text.empty() ? r.cell[0] : r.cell[1]) + " " + c.fx;
          ImGui::SetClipboardText(line.c_str());
        }
        ImGui::PopID();
        for (int k = 1; k < 6; ++k) {
          ImGui::TableSetColumnIndex(k);
          ImGui::TextUnformatted(r.cell[k].c_str());
        }
      }
    }
    report_table(need);
    ImGui::EndTable();
  }

  // The table as laid out this frame, for layout_report(): each column's widest entry, the width
  // ImGui gave it and where it lies, and the part of the window the table shows.
  void report_table(const float* need) {
    const ImGuiTable* t = ImGui::GetCurrentTable();
    if (!t) return;
    char buf[256];
    const ImGuiWindow* w = t->InnerWindow;
    std::snprintf(buf, sizeof buf,
                  "tmd table: visible x %.1f..%.1f y %.1f..%.1f, scroll x %.1f of %.1f, rows %zu\n",
                  t->InnerClipRect.Min.x, t->InnerClipRect.Max.x, t->InnerClipRect.Min.y,
                  t->InnerClipRect.Max.y, w->Scroll.x, w->ScrollMax.x, rows_.size());
    table_report_ = buf;
    for (int c = 0; c < 6; ++c) {
      const ImGuiTableColumn& col = t->Columns[c];
      std::string name = kColumnName[c];
      std::replace(name.begin(), name.end(), '\n', ' ');
      std::snprintf(buf, sizeof buf,
                    "tmd column %d \"%s\": text %.1f, given %.1f, cell %.1f..%.1f, work %.1f..%.1f\n", c,
                    name.c_str(), need[c], col.WidthGiven, col.MinX, col.MaxX, col.WorkMinX, col.WorkMaxX);
      table_report_ += buf;
    }
  }

  void set_live(Live l) {
    l.k = run_k_;
    l.x_lo = run_lo_, l.x_hi = run_hi_;
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
    float flo, fhi;
    std::memcpy(&flo, &lo, 4);
    std::memcpy(&fhi, &hi, 4);
    run_k_ = k_;
    run_lo_ = static_cast<double>(flo), run_hi_ = static_cast<double>(fhi);
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
        Live l{buf, r.cases, {}, "", true};
        l.arguments = r.evaluated;
        set_live(std::move(l));
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
        l.arguments = r.arguments;
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
  // The table's formatted rows and the results they were formatted from (UI thread only).
  std::shared_ptr<const Live> rows_for_;
  std::vector<Row> rows_;
  float rows_font_ = 0;       // the font size need_ was measured at
  float need_[6] = {};        // each column's widest entry, header included, in pixels
  std::string table_report_;  // the last frame's table layout (report_table)
  // The run shown: its k and range (set on the UI thread before the job starts).
  std::atomic<int> run_k_{0};
  std::atomic<double> run_lo_{0}, run_hi_{0};
};

}  // namespace

std::unique_ptr<Panel> make_tmd_panel() { return std::make_unique<TmdPanel>(); }

}  // namespace ds::gui
