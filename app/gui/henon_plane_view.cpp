// The Hénon parameter-plane view (see henon_plane_view.h): henon::plane on a background job, the
// periods coloured with app/io/henon_png.h's palette and uploaded as one texture.
#include "henon_plane_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/io/henon_png.h"

namespace ds::gui {

namespace {
void set_text(char* buf, std::size_t n, const char* s) { std::snprintf(buf, n, "%s", s); }
}  // namespace

HenonPlaneView::HenonPlaneView() {
  set_text(centre_a_, kBuf, "0.75");
  set_text(centre_b_, kBuf, "0");
  set_text(width_, kBuf, "2.5");
  set_text(tol_, kBuf, "1e-10");
}

void HenonPlaneView::draw_controls(Arith arith) {
  arith_ = arith;
  ImGui::PushID("plane");
  ImGui::SetNextItemWidth(150);
  ImGui::InputText("centre a", centre_a_, kBuf);
  ImGui::SetNextItemWidth(150);
  ImGui::InputText("centre b", centre_b_, kBuf);
  ImGui::SetNextItemWidth(150);
  ImGui::InputText("width in a", width_, kBuf);
  ImGui::SetNextItemWidth(110);
  ImGui::DragInt("pixels W", &width_px_, 4.0f, 1, 4096);
  ImGui::SetNextItemWidth(110);
  ImGui::DragInt("pixels H", &height_px_, 4.0f, 1, 4096);
  const ImS64 zero = 0, nt_max = henon::kMaxTransient;
  ImGui::SetNextItemWidth(110);
  ImGui::DragScalar("plane transient", ImGuiDataType_S64, &n_transient_, 1000.0f, &zero, &nt_max, "%lld");
  ImGui::SetNextItemWidth(110);
  ImGui::DragInt("plane p_max", &p_max_, 4.0f, 1, henon::kMaxPeriod);
  ImGui::SetNextItemWidth(110);
  ImGui::InputText("plane tolerance", tol_, kBuf);
  ImGui::SetNextItemWidth(110);
  ImGui::Combo("plane backend", &backend_, "auto\0cpu\0cuda\0");
  if (job_.running()) {
    ImGui::ProgressBar(static_cast<float>(job_.progress()), ImVec2(-70, 0), "computing");
    ImGui::SameLine();
    if (ImGui::Button("cancel")) job_.cancel();
  } else if (ImGui::Button("run plane")) {
    start();
  }
  const std::string err = job_.error();
  if (!err.empty()) ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", err.c_str());
  ImGui::PopID();
}

void HenonPlaneView::start() {
  henon::PlaneView v;
  v.arith = arith_;
  v.centre_a = centre_a_;
  v.centre_b = centre_b_;
  v.width = width_;
  v.width_px = width_px_;
  v.height_px = height_px_;
  v.n_transient = n_transient_;
  v.p_max = p_max_;
  v.tol = tol_;
  v.backend = backend_ == 1   ? henon::Backend::kCpu
              : backend_ == 2 ? henon::Backend::kCuda
                              : henon::Backend::kAuto;
  job_.start([this, v](JobControl& c) mutable {
    v.cancel = &c.cancel;
    v.progress = [&c](double f) { c.progress = f; };
    henon::PlaneResult r = henon::plane(v);
    if (r.cancelled) return;
    std::lock_guard<std::mutex> lock(mutex_);
    pending_view_ = v;
    pending_view_.cancel = nullptr;
    pending_view_.progress = nullptr;
    pending_ = std::move(r);
    has_pending_ = true;
  });
}

bool HenonPlaneView::draw_view(std::string* a, std::string* b) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (has_pending_) {
      has_pending_ = false;
      shown_view_ = pending_view_;
      shown_ = std::move(pending_);
      texture_stale_ = true;
    }
  }
  if (shown_.period.empty()) {
    ImGui::TextWrapped(
        "No plane yet: set the view on the left and run it (the same computation as `deepscope henon "
        "plane`). "
        "Colours: a period each (the PNG's palette), black no period within p_max, white escape.");
    return false;
  }
  if (texture_stale_) {
    texture_.show(
        shown_.width, shown_.height, -1, [](uint8_t*) {},
        [&](std::vector<uint8_t>* rgba) {
          rgba->resize(static_cast<std::size_t>(shown_.width) * shown_.height * 4);
          for (std::size_t q = 0; q < shown_.period.size(); ++q) {
            app::category_colour(shown_.period[q], &(*rgba)[4 * q]);
            (*rgba)[4 * q + 3] = 255;
          }
        });
    texture_stale_ = false;
  }
  ImGui::Text(
      "%d x %d: %lld with a sink (largest period %d), %lld without, %lld escaped. Click a pixel to open it.",
      shown_.width, shown_.height, static_cast<long long>(shown_.with_period), shown_.max_period,
      static_cast<long long>(shown_.no_period), static_cast<long long>(shown_.escaped));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  avail.y = std::max(avail.y - 18, 50.0f);
  // The image at its own aspect, as large as the region allows.
  const float scale = std::max(1e-3f, std::min(avail.x / shown_.width, avail.y / shown_.height));
  const ImVec2 size(shown_.width * scale, shown_.height * scale);
  ImGui::InvisibleButton("plane_canvas", size, ImGuiButtonFlags_MouseButtonLeft);
  const bool hovered = ImGui::IsItemHovered(), clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (texture_.texture().id())
    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture_.texture().id())), origin,
                 ImVec2(origin.x + size.x, origin.y + size.y));
  if (!hovered) return false;
  const ImGuiIO& io = ImGui::GetIO();
  const int i = std::clamp(static_cast<int>((io.MousePos.x - origin.x) / scale), 0, shown_.width - 1);
  const int j = std::clamp(static_cast<int>((io.MousePos.y - origin.y) / scale), 0, shown_.height - 1);
  const auto ab = henon::plane_pixel(shown_view_, i, j);
  const int32_t k = shown_.period[static_cast<std::size_t>(j) * shown_.width + i];
  ImGui::SetTooltip("a = %.12g\nb = %.12g\n%s", std::strtod(ab.first.c_str(), nullptr),
                    std::strtod(ab.second.c_str(), nullptr),
                    k < 0    ? "escaped"
                    : k == 0 ? "no period"
                             : ("period " + std::to_string(k)).c_str());
  if (!clicked) return false;
  *a = ab.first;
  *b = ab.second;
  return true;
}

}  // namespace ds::gui
