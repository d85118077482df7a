// The Hénon sink-scan view (see henon_scan_view.h): the same henon::scan the batch command runs,
// and its CSV read back through henon::parse_scan_csv.
#include "henon_scan_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "app/io/plot.h"
#include "plot_imgui.h"

#include "kernels/core/input_file.h"

namespace ds::gui {

namespace {
void set_text(char* buf, std::size_t n, const char* s) { std::snprintf(buf, n, "%s", s); }
}  // namespace

HenonScanView::HenonScanView() {
  set_text(a_min_, kBuf, "1.3999");
  set_text(a_step_, kBuf, "1e-7");
  set_text(b_min_, kBuf, "0.3");
  set_text(b_step_, kBuf, "0");
  set_text(tol_, kBuf, "1e-10");
  set_text(path_, sizeof path_, "scan.csv");
}

void HenonScanView::draw_controls(Arith arith) {
  arith_ = arith;
  ImGui::PushID("scan");
  ImGui::SetNextItemWidth(150);
  ImGui::InputText("a min", a_min_, kBuf);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  ImGui::InputText("a step", a_step_, kBuf);
  ImGui::SetNextItemWidth(150);
  ImGui::InputText("b min", b_min_, kBuf);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  ImGui::InputText("b step", b_step_, kBuf);
  const ImS64 one = 1, side_max = henon::kMaxScanSide, init_max = 1000000, nt_max = henon::kMaxTransient,
              zero = 0;
  ImGui::SetNextItemWidth(110);
  ImGui::DragScalar("na", ImGuiDataType_S64, &na_, 10.0f, &one, &side_max, "%lld");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  ImGui::DragScalar("nb", ImGuiDataType_S64, &nb_, 1.0f, &one, &side_max, "%lld");
  ImGui::SetNextItemWidth(110);
  ImGui::DragScalar("start points", ImGuiDataType_S64, &n_init_, 1.0f, &one, &init_max, "%lld");
  ImGui::SetNextItemWidth(110);
  ImGui::DragScalar("transient", ImGuiDataType_S64, &n_transient_, 1000.0f, &zero, &nt_max, "%lld");
  ImGui::SetNextItemWidth(110);
  ImGui::DragInt("scan p_max", &p_max_, 10.0f, 1, henon::kMaxPeriod);
  ImGui::SetNextItemWidth(110);
  ImGui::InputText("scan tolerance", tol_, kBuf);
  ImGui::SetNextItemWidth(110);
  ImGui::Combo("backend", &backend_, "auto\0cpu\0cuda\0");
  if (job_.running()) {
    job_progress_bar(job_, "scanning", -70);
    ImGui::SameLine();
    if (ImGui::Button("cancel")) job_.cancel();
  } else if (ImGui::Button("run scan")) {
    start();
  }
  ImGui::SetNextItemWidth(-60);
  ImGui::InputText("##csv", path_, sizeof path_);
  ImGui::SameLine();
  if (ImGui::Button("open")) open_csv_reporting(path_);
  const std::string err = job_.error();
  if (!err.empty()) error_text(err);
  if (!message_.empty()) ImGui::TextWrapped("%s", message_.c_str());
  ImGui::PopID();
}

bool HenonScanView::set(const std::string& name, const std::string& value, std::string* error) {
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  const bool whole = !value.empty() && *end == 0;
  if ((name == "a-min" || name == "a-step" || name == "b-min") && !value.empty() && value.size() < kBuf)
    set_text(name == "a-min" ? a_min_ : name == "a-step" ? a_step_ : b_min_, kBuf, value.c_str());
  else if (name == "na" && whole && v >= 1 && v <= henon::kMaxScanSide)
    na_ = v, nb_ = 1;
  else if (name == "start-points" && whole && v >= 1 && v <= 1000000)
    n_init_ = v;
  else if (name == "transient" && whole && v >= 0 && v <= henon::kMaxTransient)
    n_transient_ = v;
  else if (name == "p-max" && whole && v >= 1 && v <= henon::kMaxPeriod)
    p_max_ = static_cast<int>(v);
  else if (name == "backend" && (value == "auto" || value == "cpu" || value == "cuda"))
    backend_ = value == "auto" ? 0 : value == "cpu" ? 1 : 2;
  else {
    *error = "the Henon sink scan's " + name + " cannot be \"" + value +
             "\" (a-min, a-step, b-min, na, start-points, transient, p-max, backend)";
    return false;
  }
  return true;
}

void HenonScanView::start() {
  henon::ScanParams sp;
  sp.arith = arith_;
  sp.a_min = a_min_;
  sp.a_step = a_step_;
  sp.na = na_;
  sp.b_min = b_min_;
  sp.b_step = b_step_;
  sp.nb = nb_;
  sp.n_init = n_init_;
  sp.n_transient = n_transient_;
  sp.p_max = p_max_;
  sp.tol = tol_;
  sp.backend = backend_ == 1 ? Backend::kCpu : backend_ == 2 ? Backend::kCuda : Backend::kAuto;
  message_.clear();
  job_.start([this, sp](JobControl& ctl) mutable {
    sp.cancel = &ctl.cancel;
    sp.progress = [&ctl](double f) { ctl.progress = f; };
    henon::ScanResult r = henon::scan(sp);
    if (r.cancelled || ctl.cancel) return;
    char src[160];
    std::snprintf(src, sizeof src, "%s scan on %s, %.1f s", arith_name(sp.arith), backend_name(r.backend),
                  r.seconds);
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = std::move(r);
    pending_source_ = src;
    has_pending_ = true;
  });
}

bool HenonScanView::open_csv(const std::string& path, std::string* error) {
  std::string text;
  try {
    text = read_input_file(path, "scan CSV", kNoInputLimit);
  } catch (const IoError& e) {
    *error = e.what();
    return false;
  }
  try {
    set_result(henon::parse_scan_csv(text), path);
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  message_.clear();
  return true;
}

void HenonScanView::set_result(henon::ScanResult r, const std::string& source) {
  shown_ = std::move(r);
  source_ = source;
  cells_.assign(shown_.params.size(), Cell{});
  with_sink_ = 0;
  for (std::size_t i = 0; i < shown_.params.size(); ++i) {
    const henon::ParamResult& p = shown_.params[i];
    Cell& c = cells_[i];
    if (!p.done) continue;
    c.kind = p.aperiodic > 0 ? Kind::kAperiodic : Kind::kEscaped;
    for (const henon::CycleFound& f : p.cycles) {
      const Kind k = f.sink ? Kind::kSink : Kind::kPeriodic;
      if (k > c.kind || (k == c.kind && f.period < c.period)) {
        c.kind = k;
        c.period = f.period;
      }
    }
    with_sink_ += c.kind == Kind::kSink ? 1 : 0;
  }
  va0_ = 0;
  va1_ = static_cast<double>(std::max<int64_t>(shown_.na, 1));
  vb0_ = 0;
  vb1_ = static_cast<double>(std::max<int64_t>(shown_.nb, 1));
}

uint32_t HenonScanView::colour(const Cell& c) {
  switch (c.kind) {
    case Kind::kNotDone:
      return IM_COL32(25, 25, 30, 255);
    case Kind::kEscaped:
      return IM_COL32(0, 0, 0, 255);
    case Kind::kAperiodic:
      return IM_COL32(70, 70, 78, 255);
    default:
      break;
  }
  // Periods spread over the hue circle by the golden ratio; sinks bright, other cycles dim.
  const float h = std::fmod(static_cast<float>(c.period) * 0.6180339887f, 1.0f);
  float r, g, b;
  ImGui::ColorConvertHSVtoRGB(h, c.kind == Kind::kSink ? 0.85f : 0.4f, c.kind == Kind::kSink ? 1.0f : 0.5f, r,
                              g, b);
  return IM_COL32(static_cast<int>(r * 255), static_cast<int>(g * 255), static_cast<int>(b * 255), 255);
}

bool HenonScanView::draw_view(Pick* pick) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (has_pending_) {
      has_pending_ = false;
      set_result(std::move(pending_), pending_source_);
    }
  }
  if (cells_.empty()) {
    ImGui::TextWrapped(
        "No scan yet: run one with the controls on the left, or open (or drop on the window) a CSV written "
        "by "
        "`deepscope henon scan --csv FILE`.");
    return false;
  }
  if (shown_.nb == 1) return draw_strip(pick);
  ImGui::Text("%s: %lld x %lld parameters, %lld with a sink. Wheel zooms, drag pans, click opens the orbit.",
              source_.c_str(), static_cast<long long>(shown_.na), static_cast<long long>(shown_.nb),
              static_cast<long long>(with_sink_));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 size = ImGui::GetContentRegionAvail();
  size.x = std::max(size.x, 50.0f);
  size.y = std::max(size.y - 18, 50.0f);
  ImGui::InvisibleButton("scan_canvas", size, ImGuiButtonFlags_MouseButtonLeft);
  const bool hovered = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();
  const double na = static_cast<double>(shown_.na), nb = static_cast<double>(shown_.nb);
  const bool strip = shown_.nb == 1;
  auto index_a = [&](float px) { return va0_ + (px - origin.x) / size.x * (va1_ - va0_); };
  auto index_b = [&](float py) { return vb0_ + (origin.y + size.y - py) / size.y * (vb1_ - vb0_); };
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
    const double da = io.MouseDelta.x / size.x * (va1_ - va0_), db = io.MouseDelta.y / size.y * (vb1_ - vb0_);
    va0_ -= da;
    va1_ -= da;
    if (!strip) {
      vb0_ += db;
      vb1_ += db;
    }
  }
  if (hovered && io.MouseWheel != 0) {
    const double f = std::pow(0.8, io.MouseWheel);
    const double ma = index_a(io.MousePos.x), mb = index_b(io.MousePos.y);
    va0_ = ma + (va0_ - ma) * f;
    va1_ = ma + (va1_ - ma) * f;
    if (!strip) {
      vb0_ = mb + (vb0_ - mb) * f;
      vb1_ = mb + (vb1_ - mb) * f;
    }
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 end(origin.x + size.x, origin.y + size.y);
  dl->PushClipRect(origin, end, true);
  dl->AddRectFilled(origin, end, IM_COL32(25, 25, 30, 255));
  // Screen cells of at least 2 px; each shows the most telling parameter it covers (a sink, the
  // smallest period first), so a single sink among a million parameters stays visible.
  const float cw = std::max(2.0f, static_cast<float>(size.x / (va1_ - va0_))),
              ch = strip ? size.y : std::max(2.0f, static_cast<float>(size.y / (vb1_ - vb0_)));
  auto best_in = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t* where) {
    Cell best;
    *where = -1;
    for (int64_t j = std::max<int64_t>(j0, 0); j < std::min<int64_t>(j1, shown_.nb); ++j)
      for (int64_t i = std::max<int64_t>(i0, 0); i < std::min<int64_t>(i1, shown_.na); ++i) {
        const int64_t k = j * shown_.na + i;
        const Cell& c = cells_[static_cast<std::size_t>(k)];
        if (*where < 0 || c.kind > best.kind ||
            (c.kind == best.kind && c.period < best.period && c.period > 0)) {
          best = c;
          *where = k;
        }
      }
    return best;
  };
  for (float y = origin.y; y < end.y; y += ch) {
    const int64_t j1 = strip ? 1 : static_cast<int64_t>(std::ceil(index_b(y)));
    const int64_t j0 = strip ? 0 : static_cast<int64_t>(std::floor(index_b(y + ch)));
    for (float x = origin.x; x < end.x; x += cw) {
      const int64_t i0 = static_cast<int64_t>(std::floor(index_a(x)));
      const int64_t i1 = std::max<int64_t>(i0 + 1, static_cast<int64_t>(std::ceil(index_a(x + cw))));
      if (i1 <= 0 || i0 >= shown_.na || (!strip && (j1 <= 0 || j0 >= shown_.nb))) continue;
      int64_t k;
      const Cell c = best_in(i0, i1, j0, std::max(j1, j0 + 1), &k);
      if (k >= 0) dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cw, y + ch), colour(c));
    }
  }
  dl->PopClipRect();
  // The parameter under the cursor (the most telling one in its screen cell).
  int64_t under = -1;
  if (hovered) {
    const float x = origin.x + std::floor((io.MousePos.x - origin.x) / cw) * cw;
    const int64_t i0 = static_cast<int64_t>(std::floor(index_a(x)));
    const int64_t i1 = std::max<int64_t>(i0 + 1, static_cast<int64_t>(std::ceil(index_a(x + cw))));
    const int64_t j = strip ? 0 : static_cast<int64_t>(std::floor(index_b(io.MousePos.y)));
    (void)best_in(i0, i1, j, j + 1, &under);
  }
  if (under >= 0) {
    const henon::ParamResult& p = shown_.params[static_cast<std::size_t>(under)];
    ImGui::BeginTooltip();
    if (p.done)
      ImGui::Text("a = %s\nb = %s", p.a.c_str(), p.b.c_str());
    else
      ImGui::Text("parameter %lld: not computed (or not in the file)", static_cast<long long>(under));
    if (p.escaped) ImGui::Text("%d start points escaped", p.escaped);
    if (p.aperiodic) ImGui::Text("%d without a period", p.aperiodic);
    for (const henon::CycleFound& c : p.cycles)
      ImGui::Text("period %d%s: %d start points", c.period, c.sink ? " (sink)" : "", c.count);
    ImGui::EndTooltip();
  }
  char label[96];
  std::snprintf(label, sizeof label, "a index %.0f .. %.0f of %.0f%s", va0_, va1_, na, strip ? "" : "");
  ImGui::TextUnformatted(label);
  if (!strip) {
    ImGui::SameLine();
    ImGui::Text("   b index %.0f .. %.0f of %.0f", vb0_, vb1_, nb);
  }
  const float dx = io.MousePos.x - io.MouseClickedPos[0].x, dy = io.MousePos.y - io.MouseClickedPos[0].y;
  const bool clicked = hovered && ImGui::IsMouseReleased(ImGuiMouseButton_Left) && dx * dx + dy * dy < 9;
  if (!clicked || under < 0) return false;
  return make_pick(shown_.params[static_cast<std::size_t>(under)], pick);
}

bool HenonScanView::make_pick(const henon::ParamResult& p, Pick* pick) {
  if (!p.done) return false;
  *pick = Pick{};
  pick->a = p.a;
  pick->b = p.b;
  // The sink of smallest period, else the first cycle found, else no point (the orbit view keeps
  // its start point).
  const henon::CycleFound* best = nullptr;
  for (const henon::CycleFound& c : p.cycles)
    if (c.sink && (!best || c.period < best->period)) best = &c;
  if (!best && !p.cycles.empty()) best = &p.cycles.front();
  if (best) {
    pick->has_point = true;
    pick->x = best->x;
    pick->y = best->y;
    pick->period = best->period;
  }
  return true;
}

// A strip (one b): the smallest period found at each a, over a, on a log axis; parameters with no
// period within p_max on a line of their own at 2 p_max; escaped ones counted. The Bifurcation view
// draws the attractor itself over a.
bool HenonScanView::draw_strip(Pick* pick) {
  namespace plot = app::plot;
  plot::Figure f;
  const std::string b = shown_.params.empty() ? "?" : shown_.params.front().b;
  f.title = "smallest period per a (sink scan, b = " + b + ")";
  f.x.label = "a";
  f.y.label = "period (log scale)";
  f.y.scale = plot::Scale::kLog10;
  plot::Series sink{"sink", {}, {}, plot::Rgba{90, 220, 110, 255}, plot::Style::kPoints, 3};
  plot::Series cyc{"periodic, not a sink", {}, {}, plot::palette(3), plot::Style::kPoints, 3};
  plot::Series none{"no period within p_max (drawn at 2 p_max)",
                    {},
                    {},
                    plot::Rgba{150, 150, 160, 255},
                    plot::Style::kPoints,
                    3};
  int32_t p_max = 1;
  for (const Cell& c : cells_) p_max = std::max(p_max, c.period);
  p_max = std::max(p_max, p_max_);
  int64_t escaped = 0;
  std::vector<std::size_t> index;  // the parameter behind each point: sink, then cyc, then none
  for (int pass = 0; pass < 3; ++pass)
    for (std::size_t i = 0; i < cells_.size() && i < shown_.params.size(); ++i) {
      const Cell& c = cells_[i];
      const double a = std::strtod(shown_.params[i].a.c_str(), nullptr);
      if (pass == 0 && c.kind == Kind::kSink)
        sink.x.push_back(a), sink.y.push_back(c.period), index.push_back(i);
      if (pass == 1 && c.kind == Kind::kPeriodic)
        cyc.x.push_back(a), cyc.y.push_back(c.period), index.push_back(i);
      if (pass == 2 && c.kind == Kind::kAperiodic)
        none.x.push_back(a), none.y.push_back(2.0 * p_max), index.push_back(i);
      if (pass == 0 && c.kind == Kind::kEscaped) ++escaped;
    }
  f.series = {sink, cyc, none};
  ImGui::TextWrapped(
      "%lld parameters: %zu with a sink, %zu periodic, %zu without a period, %lld escaped (not "
      "drawn). Click a point to open its orbit; the Bifurcation view draws the attractor over a.",
      static_cast<long long>(shown_.na), sink.x.size(), cyc.x.size(), none.x.size(),
      static_cast<long long>(escaped));
  const plot::Layout l =
      draw_plot("##scan_strip", f, 0, std::max(200.0f, ImGui::GetContentRegionAvail().y - 4));
  if (!ImGui::IsItemClicked(ImGuiMouseButton_Left)) return false;
  const ImVec2 m = ImGui::GetIO().MousePos;
  const plot::Nearest n = plot::nearest(f, l, {m.x, m.y}, 12);
  if (n.series < 0) return false;
  std::size_t k = n.index;
  for (int s = 0; s < n.series; ++s) k += f.series[static_cast<std::size_t>(s)].x.size();
  return make_pick(shown_.params[index[k]], pick);
}

}  // namespace ds::gui
