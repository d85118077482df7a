// The Hénon workspace's tab: a, b, x0, y0 as sliders and exact text, the orbit as a pan/zoom point
// cloud with axes, and the period / eigenvalue / sink readout, recomputed on a background job
// (cancelled and restarted whenever an input changes) through kernels/henon/henon.h; beside it the sink
// scan's parameter view (henon_scan_view.h) and the parameter plane (henon_plane_view.h), whose clicks
// open a parameter's orbit here.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "henon_bifurcation_view.h"
#include "henon_catalogue_view.h"
#include "henon_plane_view.h"
#include "henon_scan_view.h"
#include "jobs.h"
#include "kernels/colour/point_cloud.h"
#include "kernels/henon/henon.h"
#include "panels.h"
#include "plot_imgui.h"
#include "render/image_texture.h"

namespace ds::gui {
namespace {

struct Outcome {
  henon::OrbitResult orbit;
  henon::PeriodResult period;
  std::string arith;
  uint64_t generation = 0;
};

class HenonPanel final : public Panel {
 public:
  HenonPanel() {
    set_text(a_buf_, "1.4");
    set_text(b_buf_, "0.3");
    set_text(x0_buf_, "0");
    set_text(y0_buf_, "0");
    set_text(tol_buf_, "1e-10");
    dirty_ = true;
  }
  ~HenonPanel() override { job_.cancel(); }

  const char* title() const override { return "Hénon"; }
  bool busy() const override {
    return job_.running() || dirty_ || scan_.busy() || plane_.busy() || bifurcation_.busy() || catalogue_.busy();
  }
  // `bifurcation=1` with a-from, a-to, b, columns, transient, points: opens the Bifurcation view and
  // computes the diagram, as its Run button would. `scan=1` with scan-NAME settings runs the sink
  // scan. `plane=fit`: the plane at the panel's full resolution, as its "fit the panel" box does;
  // `plane-pixels=WxH`: a fixed size instead.
  bool run_with(const std::string& settings, std::string* error) override {
    std::istringstream in(settings);
    bool bif = false, scan = false, cat = false;
    for (std::string w; in >> w;) {
      const std::size_t eq = w.find('=');
      const std::string name = w.substr(0, eq), value = w.substr(eq + 1);
      if (name == "bifurcation") {
        bif = value == "1";
      } else if (name == "catalogue" && value == "1") {
        cat = true;
      } else if (name.rfind("catalogue-", 0) == 0) {
        if (!catalogue_.set(name.substr(10), value, error)) return false;
      } else if (name == "scan" && value == "1") {
        scan = true;
      } else if (name.rfind("scan-", 0) == 0) {
        if (!scan_.set(name.substr(5), value, error)) return false;
      } else if (name == "plane" && value == "fit") {
        // The plane at the panel's full resolution: it must have been drawn once (tab henon-plane).
        if (!plane_.fit_to_panel()) {
          *error = "plane=fit needs the Plane view drawn first (tab henon-plane, wait-idle)";
          return false;
        }
        plane_.apply_fields();
        show_plane_ = true;
        return true;
      } else if (name == "plane-pixels") {
        // A fixed image size (W x H): "fit the panel" off, as typing the pixels would.
        int w = 0, h = 0;
        char tail = 0;
        if (std::sscanf(value.c_str(), "%dx%d%c", &w, &h, &tail) != 2 || w < 1 || h < 1 || w > 4096 || h > 4096) {
          *error = "plane-pixels is WxH, each 1 to 4096, not \"" + value + "\"";
          return false;
        }
        plane_.set_pixels(w, h);
        show_plane_ = true;
        return true;
      } else if (!bifurcation_.set(name, value, error)) {
        return false;
      }
    }
    if (cat) {
      catalogue_.start(a_buf_, b_buf_);
      show_catalogue_ = true;
      return true;
    }
    if (scan) {
      scan_.start();
      show_scan_ = true;
      return true;
    }
    if (!bif) {
      *error =
          "the Henon tab runs bifurcation=1 (with over=a|b, a-from, a-to, b, b-from, b-to, a, columns, "
          "transient, points), "
          "catalogue=1 (with catalogue-period-max), scan=1 "
          "(with scan-a-min, scan-a-step, scan-b-min, scan-na, scan-start-points, scan-transient, "
          "scan-p-max, scan-backend), plane=fit or plane-pixels=WxH";
      return false;
    }
    bifurcation_.start();
    show_bifurcation_ = true;
    return true;
  }

  // A .csv dropped on the window opens in the scan view (a malformed one is reported there).
  bool open_file(const std::string& path) override {
    if (path.size() < 4 || path.compare(path.size() - 4, 4, ".csv") != 0) return false;
    scan_.open_csv_reporting(path);
    show_scan_ = true;
    return true;
  }

  bool open_view(const std::string& name) override {
    if (name != "plane") return false;
    show_plane_ = true;
    plane_.open();
    return true;
  }
  // The plane's image while the Plane view is open, the bifurcation diagram's plot area while that
  // one is (the orbit and scan views have none to point at).
  bool image_rect(ImageRect* r) const override {
    if (plane_.image_rect(r) || bifurcation_.image_rect(r)) return true;
    if (!orbit_drawn_) return false;
    *r = orbit_rect_;  // the orbit plot (scripts point at it: its hover read-out)
    return true;
  }

  void draw() override {
    take_outcome();
    plane_.forget_drawn();
    bifurcation_.forget_drawn();
    orbit_drawn_ = false;
    ImGui::BeginChild("henon_controls", ImVec2(380, 0), true);
    draw_controls();
    if (ImGui::CollapsingHeader("Sink scan", ImGuiTreeNodeFlags_DefaultOpen))
      scan_.draw_controls(all_ariths()[arith_index_]);
    if (show_plane_) ImGui::SetNextItemOpen(true);  // the plane's controls beside its view
    if (ImGui::CollapsingHeader("Parameter plane")) plane_.draw_controls(all_ariths()[arith_index_]);
    if (show_bifurcation_) ImGui::SetNextItemOpen(true);
    if (ImGui::CollapsingHeader("Bifurcation diagram")) bifurcation_.draw_controls(a_buf_, b_buf_);
    if (show_catalogue_) ImGui::SetNextItemOpen(true);
    if (ImGui::CollapsingHeader("Periodic orbits")) catalogue_.draw_controls(a_buf_, b_buf_);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("henon_plot", ImVec2(0, 0), true,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    if (ImGui::BeginTabBar("henon_views")) {
      if (ImGui::BeginTabItem("Orbit", nullptr, show_orbit_ ? ImGuiTabItemFlags_SetSelected : 0)) {
        draw_plot();
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Scan", nullptr, show_scan_ ? ImGuiTabItemFlags_SetSelected : 0)) {
        HenonScanView::Pick pick;
        if (scan_.draw_view(&pick)) open_pick(pick);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Plane", nullptr, show_plane_ ? ImGuiTabItemFlags_SetSelected : 0)) {
        HenonScanView::Pick pick;
        if (plane_.draw_view(&pick.a, &pick.b, std::strtod(a_buf_, nullptr), std::strtod(b_buf_, nullptr)))
          open_pick(pick);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Bifurcation", nullptr,
                              show_bifurcation_ ? ImGuiTabItemFlags_SetSelected : 0)) {
        HenonScanView::Pick pick;
        if (bifurcation_.draw_view(std::strtod(a_buf_, nullptr), std::strtod(b_buf_, nullptr), &pick.a, &pick.b))
          open_pick(pick);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Periodic orbits", nullptr, show_catalogue_ ? ImGuiTabItemFlags_SetSelected : 0)) {
        catalogue_.draw_view();
        ImGui::EndTabItem();
      }
      show_orbit_ = show_scan_ = show_plane_ = show_bifurcation_ = show_catalogue_ = false;
      ImGui::EndTabBar();
    }
    ImGui::EndChild();
    if (dirty_) start();
  }

 private:
  static void set_text(char* buf, const std::string& s) { std::snprintf(buf, kBuf, "%s", s.c_str()); }

  // A slider bound to an exact text field: dragging writes the slider's value as text, editing the
  // text (Enter) moves the slider to the text's nearest float.
  bool slider_with_text(const char* label, char* buf, float lo, float hi) {
    bool changed = false;
    float v = static_cast<float>(std::strtod(buf, nullptr));
    ImGui::PushID(label);
    ImGui::SetNextItemWidth(-1);
    if (ImGui::SliderFloat("##slider", &v, lo, hi, "%.6f")) {
      char tmp[64];
      std::snprintf(tmp, sizeof tmp, "%.9g", static_cast<double>(v));
      set_text(buf, tmp);
      changed = true;
    }
    ImGui::SetNextItemWidth(-40);
    changed |= ImGui::InputText("##text", buf, kBuf, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    ImGui::TextUnformatted(label);
    ImGui::PopID();
    return changed;
  }

  void draw_controls() {
    ImGui::TextWrapped("h(x, y) = (1 + y - a x^2, b x)");
    bool changed = false;
    changed |= slider_with_text("a", a_buf_, 0.0f, 2.0f);
    changed |= slider_with_text("b", b_buf_, -1.0f, 1.0f);
    changed |= slider_with_text("x0", x0_buf_, -2.0f, 2.0f);
    changed |= slider_with_text("y0", y0_buf_, -2.0f, 2.0f);
    const ImS64 nt_min = 0, nt_max = henon::kMaxTransient, pts_min = 1, pts_max = 1000000;
    ImGui::SetNextItemWidth(160);
    changed |= ImGui::DragScalar("transient N_t", ImGuiDataType_S64, &n_transient_, 1000.0f, &nt_min, &nt_max,
                                 "%lld");
    ImGui::SetNextItemWidth(160);
    changed |= ImGui::DragScalar("points", ImGuiDataType_S64, &n_points_, 100.0f, &pts_min, &pts_max, "%lld");
    ImGui::SetNextItemWidth(160);
    changed |= ImGui::DragInt("p_max", &p_max_, 10.0f, 1, 100000);
    ImGui::SetNextItemWidth(160);
    changed |= ImGui::InputText("tolerance", tol_buf_, kBuf, ImGuiInputTextFlags_EnterReturnsTrue);
    const std::vector<Arith>& ariths = all_ariths();
    ImGui::SetNextItemWidth(160);
    if (ImGui::BeginCombo("arithmetic", arith_name(ariths[arith_index_]))) {
      for (std::size_t i = 0; i < ariths.size(); ++i) {
        if (ImGui::Selectable(arith_name(ariths[i]), i == arith_index_)) {
          arith_index_ = i;
          changed = true;
        }
      }
      ImGui::EndCombo();
    }
    if (ImGui::Button("fit view")) fit_ = true;
    if (changed) dirty_ = true;

    ImGui::Separator();
    if (job_.running()) job_progress_bar(job_, "orbit");
    const std::string err = job_.error();
    if (!err.empty()) error_text(err);
    std::lock_guard<std::mutex> lock(mutex_);
    if (shown_.generation == 0) return;
    const henon::OrbitResult& o = shown_.orbit;
    const henon::PeriodResult& p = shown_.period;
    ImGui::Text("%s: %zu points", shown_.arith.c_str(), o.xs.size());
    ImGui::Text("plot: %s", plot_path_.c_str());
    if (!plot_tex_.interop_note().empty() && ImGui::IsItemHovered())
      ImGui::SetTooltip("no CUDA-GL interop: %s", plot_tex_.interop_note().c_str());
    if (o.escaped)
      ImGui::TextColored(ImVec4(1, 0.6f, 0.2f, 1), "escapes at step %lld",
                         static_cast<long long>(o.escape_step));
    if (p.escaped) {
      ImGui::TextUnformatted("period: the orbit escapes");
    } else if (p.period == 0) {
      ImGui::Text("period: none within p_max = %d", p_max_);
    } else {
      ImGui::Text("period: %d", p.period);
      if (p.is_sink)
        ImGui::TextColored(ImVec4(0.3f, 1, 0.3f, 1), "SINK (both |l| < 1)");
      else
        ImGui::TextColored(ImVec4(1, 0.5f, 0.3f, 1), "not a sink");
      ImGui::TextWrapped("trace %s, det %s", p.trace.text.c_str(), p.det.text.c_str());
      if (p.complex) {
        ImGui::TextWrapped("l = %s +- %s i", p.l1_re.text.c_str(), p.l1_im.text.c_str());
        ImGui::TextWrapped("|l| = %s", p.l1_abs.text.c_str());
      } else {
        ImGui::TextWrapped("l1 = %s", p.l1_re.text.c_str());
        ImGui::TextWrapped("l2 = %s", p.l2_re.text.c_str());
      }
      if (!p.note.empty()) ImGui::TextWrapped("note: %s", p.note.c_str());
      ImGui::TextUnformatted("cycle:");
      const std::size_t show = std::min<std::size_t>(p.cycle.size(), 16);
      for (std::size_t i = 0; i < show; ++i)
        ImGui::TextWrapped("(%s, %s)", p.cycle[i].first.c_str(), p.cycle[i].second.c_str());
      if (show < p.cycle.size()) ImGui::Text("... %zu more", p.cycle.size() - show);
    }
  }

  // A parameter clicked in the scan view: its exact a, b and, when it has one, a point of its
  // cycle as the start point, so the orbit view shows the cycle after a short transient.
  void open_pick(const HenonScanView::Pick& pick) {
    set_text(a_buf_, pick.a);
    set_text(b_buf_, pick.b);
    if (pick.has_point) {
      char tmp[64];
      std::snprintf(tmp, sizeof tmp, "%.17g", pick.x);
      set_text(x0_buf_, tmp);
      std::snprintf(tmp, sizeof tmp, "%.17g", pick.y);
      set_text(y0_buf_, tmp);
      p_max_ = std::max(p_max_, pick.period);
    }
    dirty_ = true;
    fit_ = true;
    show_orbit_ = true;
  }

  void start() {
    dirty_ = false;
    henon::MapInput m;
    m.arith = all_ariths()[arith_index_];
    m.a = a_buf_;
    m.b = b_buf_;
    m.x0 = x0_buf_;
    m.y0 = y0_buf_;
    henon::OrbitParams op;
    op.map = m;
    op.n_transient = n_transient_;
    op.n_points = n_points_;
    henon::PeriodParams pp;
    pp.map = m;
    pp.n_transient = n_transient_;
    pp.p_max = p_max_;
    pp.tol = tol_buf_;
    const uint64_t gen = ++generation_;
    job_.start([this, op, pp, gen](JobControl& ctl) mutable {
      op.cancel = &ctl.cancel;
      pp.cancel = &ctl.cancel;
      op.progress = [&ctl](double f) { ctl.progress = 0.5 * f; };
      pp.progress = [&ctl](double f) { ctl.progress = 0.5 + 0.5 * f; };
      Outcome out;
      out.orbit = henon::orbit(op);
      if (out.orbit.cancelled || ctl.cancel) return;
      out.period = henon::detect_period(pp);
      if (out.period.cancelled || ctl.cancel) return;
      out.arith = arith_name(op.map.arith);
      out.generation = gen;
      std::lock_guard<std::mutex> lock(mutex_);
      pending_ = std::move(out);
      has_pending_ = true;
    });
  }

  void take_outcome() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!has_pending_) return;
    has_pending_ = false;
    const bool first = shown_.generation == 0;
    shown_ = std::move(pending_);
    if (first) fit_ = true;
  }

  void fit_view() {
    double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
    for (std::size_t i = 0; i < shown_.orbit.xs.size(); ++i) {
      x0 = std::min(x0, shown_.orbit.xs[i]);
      x1 = std::max(x1, shown_.orbit.xs[i]);
      y0 = std::min(y0, shown_.orbit.ys[i]);
      y1 = std::max(y1, shown_.orbit.ys[i]);
    }
    if (x0 > x1) return;
    cx_ = 0.5 * (x0 + x1);
    cy_ = 0.5 * (y0 + y1);
    scale_ = 1.15 * std::max({x1 - x0, (y1 - y0) * 1.5, 1e-12});  // world units across the width
  }

  // A "nice" tick step (1, 2 or 5 times a power of ten) for about `count` ticks over `span`.
  static double tick_step(double span, int count) {
    const double raw = span / count, p = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
  }

  void draw_cloud(ImVec2 origin, ImVec2 size, ImDrawList* dl) {
    const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
    colour::PlotFrame f;
    f.cx = cx_;
    f.cy = cy_;
    f.width = std::max(1, static_cast<int>(size.x * fb.x));
    f.height = std::max(1, static_cast<int>(size.y * fb.y));
    f.upp = scale_ / f.width;
    try {
      if (!cloud_) cloud_ = std::make_unique<colour::PointCloud>(cloud_cpu_ ? Backend::kCpu : Backend::kAuto);
      if (cloud_generation_ != shown_.generation) {
        cloud_->set_points(shown_.orbit.xs, shown_.orbit.ys);
        cloud_generation_ = shown_.generation;
        cloud_drawn_ = colour::PlotFrame{};
        cloud_drawn_.width = 0;
      }
      if (f.cx != cloud_drawn_.cx || f.cy != cloud_drawn_.cy || f.upp != cloud_drawn_.upp ||
          f.width != cloud_drawn_.width || f.height != cloud_drawn_.height) {
        const bool cuda = cloud_->backend() == Backend::kCuda;
        const render::DisplayPath path = plot_tex_.show(
            f.width, f.height, cuda ? cloud_->cuda_device() : -1, [&](uint8_t* p) { cloud_->render_rgba(f, p); },
            [&](std::vector<uint8_t>* v) { cloud_->render_rgba_host(f, v); });
        plot_path_ = render::display_path_name(path);
        cloud_drawn_ = f;
      }
    } catch (const std::exception& e) {
      // A CUDA failure: the CPU draws the cloud from now on.
      plot_path_ = std::string("CPU after a GPU error: ") + e.what();
      cloud_.reset();
      cloud_cpu_ = true;
      cloud_generation_ = 0;
      return;
    }
    if (plot_tex_.texture().id())
      dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(plot_tex_.texture().id())), origin,
                   ImVec2(origin.x + size.x, origin.y + size.y));
  }

  void draw_plot() {
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImVec2 size = ImGui::GetContentRegionAvail();
    size.x = std::max(size.x, 50.0f);
    size.y = std::max(size.y, 50.0f);
    ImGui::InvisibleButton("canvas", size, ImGuiButtonFlags_MouseButtonLeft);
    const bool hovered = ImGui::IsItemHovered();
    orbit_rect_ = ImageRect{origin.x, origin.y, size.x, size.y, static_cast<int>(size.x), static_cast<int>(size.y)};
    orbit_drawn_ = true;
    std::lock_guard<std::mutex> lock(mutex_);
    if (fit_) {
      fit_view();
      fit_ = false;
    }
    const double ppu = size.x / scale_;  // pixels per world unit
    ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left)) {
      cx_ -= io.MouseDelta.x / ppu;
      cy_ += io.MouseDelta.y / ppu;
    }
    if (hovered && io.MouseWheel != 0) {
      // Zoom about the point under the cursor.
      const double mx = cx_ + (io.MousePos.x - origin.x - size.x / 2) / ppu;
      const double my = cy_ - (io.MousePos.y - origin.y - size.y / 2) / ppu;
      const double f = std::pow(0.8, io.MouseWheel);
      scale_ = std::clamp(scale_ * f, 1e-14, 1e6);
      cx_ = mx + (cx_ - mx) * f;
      cy_ = my + (cy_ - my) * f;
    }
    const double k = size.x / scale_;
    auto sx = [&](double x) { return static_cast<float>(origin.x + size.x / 2 + (x - cx_) * k); };
    auto sy = [&](double y) { return static_cast<float>(origin.y + size.y / 2 - (y - cy_) * k); };
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 end(origin.x + size.x, origin.y + size.y);
    dl->PushClipRect(origin, end, true);
    dl->AddRectFilled(origin, end, IM_COL32(12, 14, 20, 255));
    // The orbit as a point cloud (kernels/colour/point_cloud.h): rasterised where the points live, on the
    // GPU straight into the texture's GL buffer (CUDA-GL interop), then axes and the cycle on top.
    draw_cloud(origin, size, dl);
    // Axes with ticks and labels.
    const double wx0 = cx_ - size.x / 2 / k, wx1 = cx_ + size.x / 2 / k;
    const double wy0 = cy_ - size.y / 2 / k, wy1 = cy_ + size.y / 2 / k;
    const double step = tick_step(wx1 - wx0, 8);
    const float ax = std::clamp(sy(0.0), origin.y, end.y - 14),
                ay = std::clamp(sx(0.0), origin.x + 2, end.x - 2);
    dl->AddLine(ImVec2(origin.x, ax), ImVec2(end.x, ax), IM_COL32(120, 120, 130, 255));
    dl->AddLine(ImVec2(ay, origin.y), ImVec2(ay, end.y), IM_COL32(120, 120, 130, 255));
    char label[32];
    for (double t = std::ceil(wx0 / step) * step; t <= wx1; t += step) {
      const float px = sx(t);
      dl->AddLine(ImVec2(px, ax - 4), ImVec2(px, ax + 4), IM_COL32(160, 160, 170, 255));
      std::snprintf(label, sizeof label, "%.6g", std::fabs(t) < step * 1e-6 ? 0.0 : t);
      dl->AddText(ImVec2(px + 2, ax + 2), IM_COL32(160, 160, 170, 255), label);
    }
    // Where the axes cross at the origin, the x axis's "0" names it; the y axis's would overlap it.
    const bool origin_labelled = sy(0.0) == ax && sx(0.0) == ay;
    for (double t = std::ceil(wy0 / step) * step; t <= wy1; t += step) {
      const float py = sy(t);
      dl->AddLine(ImVec2(ay - 4, py), ImVec2(ay + 4, py), IM_COL32(160, 160, 170, 255));
      if (origin_labelled && std::fabs(t) < step * 1e-6) continue;
      std::snprintf(label, sizeof label, "%.6g", std::fabs(t) < step * 1e-6 ? 0.0 : t);
      dl->AddText(ImVec2(ay + 6, py - 7), IM_COL32(160, 160, 170, 255), label);
    }
    if (shown_.period.period > 0 && shown_.period.cycle.size() <= 1000) {
      for (const auto& pt : shown_.period.cycle)
        dl->AddCircle(
            ImVec2(sx(std::strtod(pt.first.c_str(), nullptr)), sy(std::strtod(pt.second.c_str(), nullptr))),
            5, shown_.period.is_sink ? IM_COL32(80, 255, 80, 255) : IM_COL32(255, 140, 60, 255));
    }
    // Axis names: the map is (x, y) -> (1 - a x^2 + y, b x); both coordinates are dimensionless.
    const ImU32 name_col = IM_COL32(235, 235, 235, 255);
    const char* xname = "x (orbit coordinate)";
    const ImVec2 xs = ImGui::CalcTextSize(xname);
    dl->AddText(ImVec2(end.x - xs.x - 6, std::max(origin.y + 2, ax - xs.y - 4)), name_col, xname);
    dl->AddText(
        ImVec2(std::min(ay + 6, end.x - ImGui::CalcTextSize("y (orbit coordinate)").x - 4), origin.y + 22),
        name_col, "y (orbit coordinate)");
    std::snprintf(label, sizeof label, "width %.3g", wx1 - wx0);
    dl->AddText(ImVec2(origin.x + 6, origin.y + 4), IM_COL32(200, 200, 200, 255), label);
    dl->PopClipRect();
    if (hovered) {  // the read-out: the orbit coordinates under the pointer, to the plot's resolution
      const double mx = cx_ + (io.MousePos.x - origin.x - size.x / 2) / k;
      const double my = cy_ - (io.MousePos.y - origin.y - size.y / 2) / k;
      const int digits = std::clamp(static_cast<int>(std::ceil(-std::log10(1.0 / k))) + 2, 3, 17);
      ImGui::SetTooltip("x = %.*g\ny = %.*g", digits, mx, digits, my);
    }
  }

  // The orbit plot's area on screen, while its tab is drawn (image_rect).
  ImageRect orbit_rect_;
  bool orbit_drawn_ = false;
  // The plotted orbit: the points where they are drawn, the texture, and what it shows.
  std::unique_ptr<colour::PointCloud> cloud_;
  bool cloud_cpu_ = false;
  uint64_t cloud_generation_ = 0;
  colour::PlotFrame cloud_drawn_;
  render::ImageTexture plot_tex_;
  std::string plot_path_ = "-";

  static constexpr int kBuf = 512;
  char a_buf_[kBuf], b_buf_[kBuf], x0_buf_[kBuf], y0_buf_[kBuf], tol_buf_[kBuf];
  ImS64 n_transient_ = 1000;
  ImS64 n_points_ = 20000;
  int p_max_ = 1000;
  std::size_t arith_index_ = 1;  // f64
  bool dirty_ = false, fit_ = false;
  bool show_orbit_ = false, show_scan_ = false, show_plane_ = false;  // select that view's tab next frame
  bool show_bifurcation_ = false, show_catalogue_ = false;
  HenonBifurcationView bifurcation_;
  HenonCatalogueView catalogue_;
  HenonScanView scan_;
  HenonPlaneView plane_;
  double cx_ = 0, cy_ = 0, scale_ = 3;

  BackgroundJob job_;
  std::mutex mutex_;  // guards pending_, has_pending_ and shown_ (the job writes pending_)
  Outcome pending_, shown_;
  bool has_pending_ = false;
  uint64_t generation_ = 0;
};

}  // namespace

std::unique_ptr<Panel> make_henon_panel() { return std::make_unique<HenonPanel>(); }

}  // namespace ds::gui
